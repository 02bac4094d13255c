// The form: compiles a tool's inputSchema into labelled controls at load time. Every field is
// {el, read(errors) -> value | undefined (omitted), write(value)}; read() coerces to the schema
// type and shows inline messages, so nothing invalid is ever sent.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, own = S.own, norm = S.norm;
  var uid = 0;
  var nid = () => 'f' + (++uid);
  var none = () => {};
  // A field with nothing to edit.
  var text = (t) => ({ el: h('p.help', t), read: () => ({}), write: none });
  // The JSON editor (for fields no control can express) lives in validate.js with the validator
  // it needs; the generator embeds that file whenever a field can end up in the editor.
  var json = (s, c, o) => G.form.jsonField ? G.form.jsonField(s, c, o) : { ...text((o.label || 'Value') + ': this field cannot be edited here.'), read: none };
  // The controls only some schemas need are parts that add themselves to McpGenUi.form, each
  // embedded only for input schemas that can use it: choices, constants and yes/no fields
  // (form-choice.js), time and date-time fields (form-time.js), arrays, variants, maps and cycles
  // (form-extra.js). A field whose part is missing falls back to the JSON editor (time fields to
  // text), which the generator's choice of parts never leaves a tool to reach.
  var part = (name, s, c, o) => G.form[name] || (() => json(s, c, o));
  var TEXTY = /^(text|body|content|message|prompt|description|notes?|code|query|sql|markdown|html|json|comment|summary)$/i;

  var setErr = (box, msgs = []) => {
    var p = box.__err, c = box.__ctl;
    if (p) { p.textContent = msgs.join(' '); p.hidden = !msgs.length; }
    if (c) { if (msgs.length) c.setAttribute('aria-invalid', 'true'); else c.removeAttribute('aria-invalid'); }
  };
  var fail = (box, errs, msgs) => {
    if (!msgs.length) return;
    setErr(box, msgs);
    errs.push({ el: box.__ctl || box, box, message: msgs.join(' ') });
  };
  var placeholder = (s) => {
    var ex = Array.isArray(s.examples) ? s.examples[0] : s.example;
    return ex === undefined ? null : typeof ex === 'string' ? ex : JSON.stringify(ex);
  };
  var star = (o) => o.required ? h('span.req', { 'aria-hidden': 'true', text: ' *' }) : null;
  var errEl = (id) => h('p.err', { id, hidden: true, role: 'alert' });

  // A labelled leaf: label, control, help text, inline error; wired for screen readers.
  var leaf = (o, ctl, id, s, extra) => {
    var text = o.desc || s.description, eid = id + '-e', err = errEl(eid);
    var help = text ? h('p.help', { id: id + '-h', text }) : null;
    ctl.id = id;
    if (extra) extra.id = id + '-z';
    ctl.setAttribute('aria-describedby', (help ? help.id + ' ' : '') + (extra ? extra.id + ' ' : '') + eid);
    if (o.required) { ctl.setAttribute('aria-required', 'true'); if (ctl.type !== 'checkbox') ctl.required = true; }
    var lab = h('label', { for: id }, o.label, star(o));
    var box = ctl.type === 'checkbox' ? h('div.fld.chk', ctl, lab, help, err) : h('div.fld', lab, help, ctl, extra, err);
    if (o.short) box.classList.add('short');
    box.__err = err;
    box.__ctl = ctl;
    return box;
  };

  var group = (o, s, cls) => {
    var help = o.desc || s.description, id = nid() + '-e', err = errEl(id);
    var fs = h('fieldset', { class: cls, 'aria-describedby': id }, o.label ? h('legend', o.label, star(o)) : null, help ? h('p.help', help) : null);
    fs.__err = fs.__tail = err;
    return fs;
  };

  var field = (s0, ctx, o) => {
    var s = norm(s0, ctx.root);
    if ((s.__refs.some((r) => ctx.stack.includes(r)) || ctx.depth > 24) && !o.eager) return part('lazy', s, ctx, o)(s0, s, ctx, o);
    var f = pick(s, { root: ctx.root, stack: ctx.stack.concat(s.__refs), depth: ctx.depth + 1 }, o);
    if (s.default !== undefined && !o.noDefault) f.write(s.default);
    return f;
  };

  var pick = (s, c, o) => {
    var use = (name) => part(name, s, c, o);
    var show = (v) => typeof v === 'string' ? v : JSON.stringify(v);
    var names = s.enumNames || s['x-enumNames'], alts = s.oneOf || s.anyOf;
    if (own(s, 'const')) return use('constant')(s, o);
    if (Array.isArray(s.enum)) return use('choice')(s, o, s.enum, (v, i) => Array.isArray(names) && names[i] != null ? String(names[i]) : show(v));
    if (Array.isArray(alts) && alts.length) {
      var ns = alts.map((a) => norm(a, c.root));
      return ns.every((a) => own(a, 'const')) ? use('choice')(s, o, ns.map((a) => a.const), (v, i) => ns[i].title || show(v)) : use('variants')(s, ns, c, o);
    }
    var t = s.type || (s.properties || isObj(s.additionalProperties) ? 'object' : s.items ? 'array' : null);
    if (Array.isArray(t)) {
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

  var input = (s, o, t) => {
    var f = s.format, name = o.name || '', tm = G.form.time, str = t === 'string';
    // A time or date-time field (form-time.js): its control, and a note naming the time zone.
    var timed = str && tm?.type(f);
    var type = !str ? 'number'
      : s.writeOnly || f === 'password' || /^(password|passwd|secret|api[_-]?key|token)$/i.test(name) ? 'password'
      : f === 'date' ? f
      : timed || (f === 'email' ? f : f === 'uri' || f === 'url' ? 'url' : 'text');
    // A pattern or format means a one-line value, whatever the field is called.
    var area = type === 'text' && !s.pattern && !f && (s.maxLength > 200 || (s.maxLength == null && (TEXTY.test(name) || s.contentMediaType)));
    if (!/^(text|password|email|url)$/.test(type)) o = { short: true, ...o };
    var ctl = area ? h('textarea', { rows: 4 }) : h('input', { type });
    var ph = placeholder(s) || (f === 'uuid' ? '00000000-0000-0000-0000-000000000000' : null);
    var number = (k) => typeof s[k] === 'number';
    if (!str) {
      ctl.step = number('multipleOf') ? String(s.multipleOf) : t === 'integer' ? '1' : 'any';
      if (number('minimum')) ctl.min = String(s.minimum);
      if (number('maximum')) ctl.max = String(s.maximum);
      ctl.inputMode = t === 'integer' ? 'numeric' : 'decimal';
    }
    if (type === timed) ctl.step = '1';
    if (number('maxLength')) ctl.maxLength = s.maxLength;
    if (ph) ctl.placeholder = ph;
    if (type === 'password') ctl.autocomplete = 'off';
    var zone = type === timed ? h('p.help.tz') : null;
    var box = leaf(o, ctl, nid(), s, zone);
    if (zone) tm.note(zone, type);
    ctl.addEventListener('input', () => setErr(box));
    var bad = (errs, msgs) => { fail(box, errs, msgs); };
    return {
      el: box,
      read(errs) {
        var raw = ctl.value, v = raw;
        setErr(box);
        if (raw === '' || (!str && raw.trim() === '')) {
          if (!o.required) return undefined;
          if (s.__null) return null;
          return bad(errs, ['This field is required.']);
        }
        if (zone) v = tm.read(type, raw);
        if (!str) {
          v = Number(raw);
          if (!isFinite(v)) return bad(errs, ['Enter a number.']);
          if (t === 'integer' && !Number.isInteger(v)) return bad(errs, ['Enter a whole number.']);
        }
        var m = S.scalarErrors(s, v);
        return m.length ? bad(errs, m) : v;
      },
      write(v) {
        var w = v != null && zone ? tm.write(type, v) : null;
        ctl.value = v == null ? '' : w ?? (typeof v === 'object' ? JSON.stringify(v) : String(v));
      }
    };
  };

  var object = (s, c, o) => {
    var props = isObj(s.properties) ? s.properties : {}, req = Array.isArray(s.required) ? s.required : [];
    var keys = Object.keys(props), ap = s.additionalProperties, rows = G.form.mapRows;
    // An object with nothing declared (dict[str, Any]) is a map of any values: key/value rows.
    var anyMap = !keys.length && !isObj(ap) && ap !== false && !s.patternProperties && o.label;
    if (anyMap && !rows) return json(s, c, o);
    var fs = group(o, s, 'obj');
    var kids = keys.map((k) => {
      var f = field(props[k], c, { label: norm(props[k], c.root).title || S.words(k), name: k, required: req.includes(k) });
      fs.append(f.el);
      return [k, f];
    });
    var map = rows && (isObj(ap) || (ap === true && keys.length) || anyMap) ? rows(isObj(ap) ? ap : {}, c, keys) : null;
    if (map) fs.append(map.el);
    fs.append(fs.__tail);
    return {
      el: fs,
      read(errs) {
        setErr(fs);
        var out = {}, any = false, mine = [];
        var put = (k, v) => { if (v !== undefined) { out[k] = v; any = true; } };
        kids.forEach(([k, f]) => put(k, f.read(mine)));
        var m = map ? map.read(mine) : {};
        for (var k in m) put(k, m[k]);
        // An optional object left entirely empty is omitted, so its required children are moot.
        if (!any && !o.required) {
          mine.forEach((e) => { if (e.box) setErr(e.box); });
          return undefined;
        }
        errs.push(...mine);
        var n = Object.keys(out).length;
        if (s.minProperties != null && n < s.minProperties) fail(fs, errs, ['Fill in at least ' + s.minProperties + ' field(s).']);
        return out;
      },
      write(v) {
        if (!isObj(v)) return;
        kids.forEach(([k, f]) => { if (own(v, k)) f.write(v[k]); });
        if (map) map.write(v);
      }
    };
  };

  G.form = { field, group, leaf, setErr, fail, nid, placeholder };
  G.buildForm = (schema) => {
    var root = isObj(schema) ? schema : { type: 'object' };
    var ctx = { root, stack: [], depth: 0 };
    var s = norm(root, root);
    if (!Object.keys(isObj(s.properties) ? s.properties : {}).length && !isObj(s.additionalProperties) && !s.oneOf && !s.anyOf) return text('This tool takes no input.');
    // Shared $refs can make a small schema an exponentially large form: past a budget of fields
    // (validate.js counts them) it is one JSON editor. The generator leaves validate.js out only
    // when it has counted the fields itself and found them within the budget.
    var over = G.form.overBudget?.(root);
    if (over) return json(s, ctx, { label: 'Input (JSON)', required: true, desc: 'This input has more than ' + over + ' fields, too many for a form: write it as JSON.' });
    return field(root, ctx, { label: '', required: true, eager: true });
  };
})();
