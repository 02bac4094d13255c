// The form: compiles a tool's inputSchema into labelled controls at load time. Every field is
// {el, read(errors) -> value | undefined (omitted), write(value)}; read() coerces to the schema
// type and shows inline messages, so nothing invalid is ever sent.
// A Run sends what the form shows as set (book: reference/pages.md): what was written into it (tool-input, a view
// tool, non-null defaults) and what the person changed. A field with a null default or none is
// absent until someone sets it; a value written into a field nobody touched since goes out
// exactly as it came (checked first, like anything typed); nullable fields have a null control;
// optional objects stay closed until the person adds them.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, own = S.own, norm = S.norm;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, oKeys = Object.keys, toJson = JSON.stringify;
  var uid = 0;
  var nid = () => 'f' + (++uid);
  var none = () => {};
  var on = (el, type, fn) => el.addEventListener(type, fn);
  var attr = (el, k, v) => el.setAttribute(k, v);
  // What the person changing a value fires.
  var edits = (el, fn) => ['input', 'change'].forEach((t) => on(el, t, fn));
  // A field with nothing to edit.
  var text = (t) => ({ el: h('p.help', t), read: () => ({}), write: none });
  // The controls only some schemas need come from parts that register for the 'controls'
  // extension point, each embedded only for input schemas that can use it: choices, constants and
  // yes/no fields (form-choice.js), time and date-time fields (form-time.js), the JSON editor and
  // the field budget (form-json.js), arrays, variants, maps and cycles (form-extra.js). The first
  // part that offers a name wins.
  var control = (name) => {
    for (var c of G._run('controls')) if (c && c[name]) return c[name];
  };
  // A field no control can express: the JSON editor. A field whose part is missing falls back to
  // it (time fields to text), which the generator's choice of parts never leaves a tool to reach.
  // A field's name in a message about the whole field.
  var named = (o, t) => (o.label || 'Value') + ': ' + t;
  var json = (s, c, o) => control('json')?.(s, c, o) || { ...text(named(o, 'this field cannot be edited here.')), read: none };
  var part = (name, s, c, o) => control(name) || (() => json(s, c, o));
  // A field shown as a password (drafts.js never keeps one).
  var secret = (s, name) => !!s.writeOnly || s.format === 'password' || /^(password|passwd|secret|api[_-]?key|token)$/i.test(name || '');
  var FIELDS = 'input,select,textarea';
  var TEXTY = /^(text|body|content|message|prompt|description|notes?|code|query|sql|markdown|html|json|comment|summary)$/i;

  var setErr = (box, msgs = []) => {
    var p = box.__err, c = box.__ctl, inv = 'aria-invalid';
    if (p) { p.textContent = msgs.join(' '); p.hidden = !msgs.length; }
    if (c) { if (msgs.length) attr(c, inv, 'true'); else c.removeAttribute(inv); }
  };
  var fail = (box, errs, msgs) => {
    if (!msgs.length) return;
    setErr(box, msgs);
    errs.push({ el: box.__ctl || box, box, message: msgs.join(' ') });
  };
  // A required field left empty: marked, since a partial fill (fill_form) is no mistake.
  var need = (box, errs, msg) => {
    fail(box, errs, [msg || 'This field is required.']);
    errs[errs.length - 1].req = true;
  };
  // The control that sets a nullable field to null on purpose; onSet(true) when checked.
  var nullBox = (onSet) => {
    var cb = h('input', { type: 'checkbox', onchange: () => onSet(cb.checked) });
    return { el: h('label.nul', cb, 'Set to null'), cb };
  };
  // Checks or clears a field's null control, if it has one.
  var tick = (nb, on) => { if (nb) nb.cb.checked = on; };
  // A value at the end of a message: its JSON (cut at 40 characters), then the full stop.
  var show = (v) => { var t = toJson(v); return (t && t.length > 40 ? t.slice(0, 40) + '…' : t) + '.'; };
  // A value as a person reads it: a string as it is, anything else as JSON.
  var asText = (v) => typeof v === 'string' ? v : toJson(v);
  // What is wrong with a value written into a leaf (tool-input, a view tool): its type, its
  // choices, then the checks of a typed value.
  var valueErrors = (s, v) => {
    var choices = isArr(s.enum) ? s.enum : own(s, 'const') ? [s.const] : values(s.oneOf || s.anyOf);
    if (choices) return choices.some((x) => S.same(x, v)) || (v === null && s.__null) ? [] : ['Not one of the choices: ' + show(v)];
    if (v === null) return s.__null || s.type === 'null' ? [] : ['Cannot be null.'];
    var t = [].concat(s.type || []), k = typeof v;
    if (t.length && !t.some((x) => x === k || (x === 'integer' && Number.isInteger(v)))) return ['Expected ' + t.join(' or ') + ', got ' + show(v)];
    return S.scalarErrors(s, v);
  };
  // A leaf keeps what was written into it: until the person changes it (input or change events),
  // read() checks that value and returns it as it came, rather than the control's version of it
  // (a time in the host's zone, a number re-typed), and null stays null. A schema's own default
  // (dflt) that its schema refuses ("5" for an integer) is sent as the control shows it instead.
  var keep = (f, s) => {
    var given, fresh = false, soft, r = f.read, w = f.write, stale = () => { fresh = false; };
    edits(f.el, stale);
    f.write = (v, dflt) => { w(v); given = v; fresh = v !== undefined; soft = dflt; };
    f.read = (errs) => {
      var m = fresh ? valueErrors(s, given) : [];
      if (m.length && soft) fresh = false;
      else if (m.length) { r([]); return fail(f.el, errs, m); }
      var n = errs.length, v = r(errs);
      return fresh && errs.length === n ? given : v;
    };
    return f;
  };
  var placeholder = (s) => {
    var ex = isArr(s.examples) ? s.examples[0] : s.example;
    return ex === undefined ? null : asText(ex);
  };
  var star = (o) => o.required ? h('span.req', { 'aria-hidden': 'true', text: ' *' }) : null;
  var errEl = (id) => h('p.err', { id, hidden: true, role: 'alert' });
  // A field's description, in view.js's Markdown subset (book: reference/pages.md, "Markdown");
  // text without it.
  var helpEl = (o, s, attrs) => {
    var t = o.desc || s.description, el = t && h('div.help', attrs);
    return !t ? null : G.markdown ? G.markdown(el, t) : (el.textContent = t, el);
  };

  // A labelled leaf: label, control, help text, inline error; wired for screen readers.
  var leaf = (o, ctl, id, s, extra) => {
    var eid = id + '-e', err = errEl(eid), chk = ctl.type === 'checkbox', help = helpEl(o, s, { id: id + '-h' });
    ctl.id = id;
    if (extra) extra.id = id + '-z';
    attr(ctl, 'aria-describedby', (help ? help.id + ' ' : '') + (extra ? extra.id + ' ' : '') + eid);
    if (o.required) { attr(ctl, 'aria-required', 'true'); if (!chk) ctl.required = true; }
    var lab = h('label', { for: id }, o.label, star(o));
    var box = h('div.fld' + (chk ? '.chk' : '') + (o.short ? '.short' : ''), chk ? [ctl, lab, help, err] : [lab, help, ctl, extra, err]);
    box.__err = err;
    box.__ctl = ctl;
    return box;
  };

  var group = (o, s, cls) => {
    var id = nid() + '-e', err = errEl(id);
    var fs = h('fieldset', { class: cls, 'aria-describedby': id }, o.label ? h('legend', o.label, star(o)) : null, helpEl(o, s));
    fs.__err = fs.__tail = err;
    return fs;
  };

  var field = (s0, ctx, o) => {
    var s = norm(s0, ctx.root);
    if ((s.__refs.some((r) => ctx.stack.includes(r)) || ctx.depth > 24) && !o.eager) return part('lazy', s, ctx, o)(s0, s, ctx, o);
    var f = pick(s, { ...ctx, stack: ctx.stack.concat(s.__refs), depth: ctx.depth + 1 }, o);
    if (f.exact) keep(f, s);
    if (s.readOnly === true) fixed(f);
    // A non-null default is shown, and so sent; a null default leaves the field not set.
    if (s.default != null && !o.noDefault) f.write(s.default, true);
    return f;
  };
  // readOnly: shown, not edited; sent only as the tool-input or the default gave it.
  var fixed = (f) => {
    var given, w = f.write;
    var el = f.el;
    el.classList.add('ro');
    el.querySelectorAll(FIELDS + ',button').forEach((x) => {
      // (a textarea's type is 'textarea')
      if (/^(text|email|url|number|date|password|search|tel|textarea)$/.test(x.type)) x.readOnly = true;
      else x.disabled = true;
    });
    f.write = (v, d) => { w(v, d); given = v; };
    f.read = () => given;
  };
  // A value of a choice: a const, or an enum of one value.
  var one = (a) => own(a, 'const') ? [a.const] : isArr(a.enum) && a.enum.length === 1 ? a.enum : null;
  // The values of a list of choices, or null when it is not one.
  var values = (alts) => isArr(alts) && alts.every((a) => isObj(a) && one(a)) ? alts.map((a) => one(a)[0]) : null;

  var pick = (s, c, o) => {
    var use = (name) => part(name, s, c, o);
    var names = s.enumNames || s['x-enumNames'], alts = s.oneOf || s.anyOf;
    if (own(s, 'const')) return use('constant')(s, o);
    if (isArr(s.enum)) return use('choice')(s, o, s.enum, (v, i) => isArr(names) && names[i] != null ? String(names[i]) : asText(v));
    if (isArr(alts) && alts.length) {
      var ns = alts.map((a) => norm(a, c.root)), vals = values(ns);
      return vals ? use('choice')(s, o, vals, (v, i) => ns[i].title || asText(v)) : use('variants')(s, ns, c, o);
    }
    // A false schema: no value is allowed (one written into it is kept, and refused).
    if (isObj(s.not) && !oKeys(s.not).length && !s.type) return refused(o);
    // A file (form-file.js): its contents in the declared encoding.
    var file = s.type === 'string' && (s.contentEncoding === 'base64' || s.format === 'data-url') && control('file');
    if (file) return file(s, o);
    var t = s.type || (s.properties || isObj(s.additionalProperties) ? 'object' : s.items ? 'array' : null);
    if (isArr(t)) {
      var { __refs, ...base } = s;
      return use('variants')(s, t.map((x) => ({ ...base, type: x, title: x })), c, o);
    }
    return t === 'string' || t === 'number' || t === 'integer' ? input(s, o, t)
      : t === 'boolean' ? use('bool')(s, o)
      : t === 'object' ? object(s, c, o)
      : t === 'array' ? use('array')(s, c, o)
      : t === 'null' ? use('constant')({ const: null }, o)
      : json(s, c, o);
  };

  var refused = (o) => {
    var given, msg = named(o, 'no value is allowed here.'), el = h('p.help', msg);
    return { el, read: (errs) => { if (given !== undefined) fail(el, errs, [msg]); return given; }, write(v) { given = v; } };
  };

  var input = (s, o, t) => {
    var f = s.format, name = o.name || '', tm = control('time'), str = t === 'string', int = t === 'integer';
    // A time or date-time field (form-time.js): its control, and a note naming the time zone.
    var timed = str && tm?.type(f);
    var type = !str ? 'number'
      : secret(s, name) ? 'password'
      : f === 'date' ? f
      : timed || (f === 'email' ? f : f === 'uri' || f === 'url' ? 'url' : 'text');
    // A pattern or format means a one-line value, whatever the field is called.
    var area = type === 'text' && !s.pattern && !f && (s.maxLength > 200 || (s.maxLength == null && (TEXTY.test(name) || s.contentMediaType)));
    if (!/^(text|password|email|url)$/.test(type)) o = { short: true, ...o };
    var number = (k) => typeof s[k] === 'number' ? s[k] : null;
    // (h skips null and false; the properties take numbers as text)
    var ctl = h(area ? 'textarea' : 'input', {
      rows: area && 4,
      type: !area && type,
      step: str ? type === timed && '1' : number('multipleOf') ?? (int ? '1' : 'any'),
      min: !str && number('minimum'),
      max: !str && number('maximum'),
      inputMode: !str && (int ? 'numeric' : 'decimal'),
      maxLength: number('maxLength'),
      placeholder: placeholder(s) || (f === 'uuid' ? '00000000-0000-0000-0000-000000000000' : null),
      autocomplete: type === 'password' && 'off'
    });
    var zone = type === timed && h('p.help.tz'), id = nid();
    var box = leaf(o, ctl, id, s, zone);
    // Examples are suggestions: the browser's list of them under the field.
    var ex = isArr(s.examples) ? s.examples.filter((x) => typeof x === 'string' || typeof x === 'number').slice(0, 30) : [];
    if (ex.length && !area && type !== 'password') {
      attr(ctl, 'list', id + '-x');
      ctl.after(h('datalist', { id: id + '-x' }, ex.map((value) => h('option', { value }))));
    }
    if (zone) tm.note(zone, type);
    // Nullable: a required one starts as null (what it would send), an optional one as not set.
    var nb = s.__null ? nullBox((on) => { if (on) ctl.value = ''; setErr(box); }) : null;
    if (nb) ctl.after(nb.el);
    tick(nb, !!o.required);
    on(ctl, 'input', () => { setErr(box); tick(nb, false); });
    return {
      el: box,
      exact: true,
      read(errs) {
        var raw = ctl.value, v = raw;
        setErr(box);
        if (nb?.cb.checked) return null;
        // (a number field of spaces is empty too)
        if (!(str ? raw : raw.trim())) return o.required ? need(box, errs) : undefined;
        if (zone) v = tm.read(type, raw);
        var m = str ? null : !isFinite(v = Number(raw)) ? 'Enter a number.' : int && !Number.isInteger(v) ? 'Enter a whole number.' : null;
        m = m ? [m] : S.scalarErrors(s, v);
        return m.length ? fail(box, errs, m) : v;
      },
      write(v) {
        var w = v != null && zone ? tm.write(type, v) : null;
        ctl.value = v == null ? '' : w ?? (typeof v === 'object' ? toJson(v) : v);
        tick(nb, v === null);
      }
    };
  };

  // An object: its fields in a fieldset. An optional (or nullable) one is closed until the person
  // adds it, so that its defaults and required fields count only then; while closed it is absent,
  // or null when its null control is checked. A map with no declared fields is like a list: absent
  // until it has an entry (an empty object written into it is kept until someone changes it).
  // Keys it has no control for are kept as written.
  var object = (s, c, o) => {
    var props = isObj(s.properties) ? s.properties : {}, required = !!o.required;
    var keys = oKeys(props), count = keys.length, ap = s.additionalProperties, rows = control('mapRows');
    // An object with nothing declared (dict[str, Any]) is a map of any values: key/value rows.
    var anyMap = !count && !isObj(ap) && ap !== false && !s.patternProperties && !o.top, pp = isObj(s.patternProperties);
    if (anyMap && !rows) return json(s, c, o);
    // (kids, map and cond are set while open)
    var fs = group(o, s, 'obj'), body = h('div.objb'), kids, map, cond, extra = {}, wrong, blank, add, rm;
    // Fields that come and go with the values (if/then/else, dependencies): form-cond.js.
    var branchy = s.__ifs || ['dependentSchemas', 'dependentRequired', 'dependencies'].some((k) => isObj(s[k]));
    var closable = count > 0 && (!required || s.__null), what = o.label || 'fields';
    // Null: a closable object closes, a map empties.
    var toNull = () => { if (closable) close(); else if (map) map.write({}); };
    var nb = s.__null && o.label !== '' ? nullBox((on) => { if (on) toNull(); }) : null;
    // Open: the fields shown with Remove; closed: Add and the null control (a closable one's).
    var opened = (on) => { if (add) { add.hidden = on; rm.hidden = !on; if (nb) nb.el.hidden = on; } };
    var open = () => {
      if (kids) return;
      wrong = undefined;
      if (closable) tick(nb, false);
      kids = keys.map((k) => {
        var f = field(props[k], c, { label: norm(props[k], c.root).title || S.words(k), name: k, required: isArr(s.required) && s.required.includes(k) });
        // Its key, for messages about it (schema-check.js's checkArgs).
        f.el.dataset.key = k;
        body.append(f.el);
        return [k, f];
      });
      cond = branchy ? control('cond')?.(s, c, body, kids, fs, peek) : null;
      map = rows && (isObj(ap) || (ap === true && count) || anyMap || pp) ? rows(isObj(ap) ? ap : {}, c, keys, s) : null;
      if (map) body.append(map.el);
      opened(true);
    };
    var close = () => {
      body.textContent = '';
      kids = map = cond = null;
      extra = {};
      wrong = undefined;
      setErr(fs);
      opened(false);
    };
    fs.append(body);
    if (closable) {
      add = h('button.btn.sm', { text: '+ Add ' + what, onclick: () => { open(); body.querySelector(FIELDS)?.focus(); } });
      rm = h('button.btn.sm.ghost', { text: 'Remove ' + what, onclick: () => { close(); add.focus(); } });
      fs.append(h('div.actions.sm', add, rm, nb?.el));
      close();
    } else {
      open();
      if (nb) fs.append(nb.el);
      on(body, 'input', () => { blank = false; tick(nb, false); });
    }
    tick(nb, required);
    // A written non-object is shown as an error until the person changes anything here.
    edits(fs, () => { wrong = undefined; });
    fs.append(fs.__tail);
    // The fields' values (quiet: without the checks of required branch fields).
    function collect(errs, quiet) {
      var out = {};
      kids.forEach(([k, f]) => { var v = f.read(errs); if (v !== undefined) out[k] = v; });
      cond?.read(out, errs, quiet);
      return Object.assign(out, map?.read(errs));
    }
    // The value now, for the conditions of form-cond.js: read without leaving messages.
    function peek() {
      var e = [], v = kids ? collect(e, true) : {};
      e.forEach((x) => x.box && setErr(x.box));
      for (var k in extra) if (!own(v, k)) v[k] = extra[k];
      return v;
    }
    return {
      el: fs,
      read(errs) {
        setErr(fs);
        if (wrong !== undefined) return fail(fs, errs, ['Expected an object, got ' + show(wrong)]);
        if (nb?.cb.checked) return null;
        if (!kids) return required ? need(fs, errs, 'Add ' + what + '.') : undefined;
        var out = collect(errs), bad = [];
        for (var k in extra) if (ap === false) bad.push('Unexpected field ' + k + '.'); else if (!own(out, k)) out[k] = extra[k];
        var min = s.minProperties;
        if (min != null && oKeys(out).length < min) bad.push('Fill in at least ' + min + ' field(s).');
        fail(fs, errs, bad);
        return closable || required || blank || oKeys(out).length ? out : undefined;
      },
      write(v) {
        if (v === undefined) return;
        if (v === null && nb) { toNull(); tick(nb, true); return; }
        if (!isObj(v)) { close(); if (!closable) open(); wrong = v; return; }
        open();
        tick(nb, false);
        blank = !oKeys(v).length;
        kids.forEach(([k, f]) => { if (own(v, k)) f.write(v[k]); });
        var done = cond ? cond.write(v) : {}, rest = {};
        for (var k in v) if (!own(done, k)) rest[k] = v[k];
        if (map) map.write(rest);
        else for (k in rest) if (!own(props, k)) extra[k] = rest[k];
      }
    };
  };

  // The form of a schema, as McpGenUi.buildForm builds it without telling the 'form' extension
  // point (viewtools.js's scratch forms).
  var build = (schema) => {
    var root = isObj(schema) ? schema : { type: 'object' };
    var ctx = { root, stack: [], depth: 0 };
    var s = norm(root, root);
    if (!oKeys(isObj(s.properties) ? s.properties : {}).length && !isObj(s.additionalProperties) && !isObj(s.patternProperties) && !s.oneOf && !s.anyOf && !s.__ifs && !isObj(s.dependentSchemas) && !isObj(s.dependencies)) return text('This tool takes no input.');
    // Shared $refs can make a small schema an exponentially large form: past a budget of fields
    // (form-json.js counts them) it is one JSON editor. The generator leaves form-json.js out
    // only when it has counted the fields itself and found them within the budget.
    var over = control('overBudget')?.(root);
    if (over) return json(s, ctx, { label: 'Input (JSON)', required: true, desc: 'This input has more than ' + over + ' fields, too many for a form: write it as JSON.' });
    return field(root, ctx, { label: '', required: true, eager: true, top: true });
  };
  // What the form's other parts build their controls from (they never write into it).
  G.form = { field, group, leaf, setErr, fail, need, nullBox, nid, placeholder, json, control, secret, one, _build: build };
  G.buildForm = (schema) => {
    var form = build(schema);
    G._run('form', form, schema);
    return form;
  };
})();
