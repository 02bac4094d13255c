// The form: compiles a tool's inputSchema into labelled controls at load time. Every field is
// {el, read(errors) -> value | undefined (omitted), write(value)}; read() coerces to the schema
// type and shows inline messages, so nothing invalid is ever sent.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj;
  var uid = 0;
  // The controls only some schemas need are parts that add themselves to McpGenUi.form, each
  // embedded only for input schemas that can use it: choices, constants and yes/no fields
  // (form-choice.js), time and date-time fields (form-time.js), arrays, variants, maps and cycles
  // (form-extra.js). A field whose part is missing falls back to the JSON editor (time fields to
  // text), which the generator's choice of parts never leaves a tool to reach.
  var X = function (name) { return G.form[name]; };
  var nid = function () { return 'f' + (++uid); };
  // The JSON editor (for fields no control can express) lives in validate.js with the validator
  // it needs; the generator embeds that file whenever a field can end up in the editor.
  var json = function (s, c, o) {
    if (G.form.jsonField) return G.form.jsonField(s, c, o);
    return { el: h('p.help', (o.label || 'Value') + ': this field cannot be edited here.'), read: function () {}, write: function () {} };
  };
  var TEXTY = /^(text|body|content|message|prompt|description|notes?|code|query|sql|markdown|html|json|comment|summary)$/i;

  function setErr(box, msgs) {
    var p = box.__err, c = box.__ctl;
    msgs = msgs || [];
    if (p) { p.textContent = msgs.join(' '); p.hidden = !msgs.length; }
    if (c) { if (msgs.length) c.setAttribute('aria-invalid', 'true'); else c.removeAttribute('aria-invalid'); }
  }
  function fail(box, errs, msgs) {
    if (!msgs.length) return;
    setErr(box, msgs);
    errs.push({ el: box.__ctl || box, box: box, message: msgs.join(' ') });
  }
  function placeholder(s) {
    var ex = Array.isArray(s.examples) ? s.examples[0] : s.example;
    if (ex === undefined) return null;
    return typeof ex === 'string' ? ex : JSON.stringify(ex);
  }

  // A labelled leaf: label, control, help text, inline error; wired for screen readers.
  function leaf(o, ctl, id, s, extra) {
    var help = o.desc || s.description;
    var hid = id + '-h', eid = id + '-e';
    var err = h('p.err', { id: eid, hidden: true, role: 'alert' });
    ctl.id = id;
    if (extra) extra.id = id + '-z';
    ctl.setAttribute('aria-describedby', (help ? hid + ' ' : '') + (extra ? extra.id + ' ' : '') + eid);
    if (o.required) { ctl.setAttribute('aria-required', 'true'); if (ctl.type !== 'checkbox') ctl.required = true; }
    var lab = h('label', { for: id }, o.label, o.required ? h('span.req', { 'aria-hidden': 'true', text: ' *' }) : null);
    var box = ctl.type === 'checkbox'
      ? h('div.fld.chk', ctl, lab, help ? h('p.help', { id: hid, text: help }) : null, err)
      : h('div.fld', lab, help ? h('p.help', { id: hid, text: help }) : null, ctl, extra || null, err);
    if (o.short) box.classList.add('short');
    box.__err = err;
    box.__ctl = ctl;
    return box;
  }

  function group(o, s, cls) {
    var help = o.desc || s.description, id = nid();
    var err = h('p.err', { id: id + '-e', hidden: true, role: 'alert' });
    var fs = h('fieldset', { class: cls, 'aria-describedby': id + '-e' },
      o.label ? h('legend', o.label, o.required ? h('span.req', { 'aria-hidden': 'true', text: ' *' }) : null) : null,
      help ? h('p.help', help) : null);
    fs.__err = err;
    fs.__tail = err;
    return fs;
  }

  function field(s0, ctx, o) {
    var s = S.norm(s0, ctx.root);
    var cyclic = s.__refs.some(function (r) { return ctx.stack.indexOf(r) >= 0; });
    if ((cyclic || ctx.depth > 24) && !o.eager) return X('lazy') ? X('lazy')(s0, s, ctx, o) : json(s, ctx, o);
    var c = { root: ctx.root, stack: ctx.stack.concat(s.__refs), depth: ctx.depth + 1 };
    var f = pick(s, c, o);
    if (s.default !== undefined && !o.noDefault) f.write(s.default);
    return f;
  }

  function pick(s, c, o) {
    if (S.own(s, 'const')) return X('constant') ? X('constant')(s, o) : json(s, c, o);
    var names = s.enumNames || s['x-enumNames'];
    if (Array.isArray(s.enum)) return !X('choice') ? json(s, c, o) : X('choice')(s, o, s.enum, function (v, i) { return Array.isArray(names) && names[i] != null ? String(names[i]) : typeof v === 'string' ? v : JSON.stringify(v); });
    var alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      var ns = alts.map(function (a) { return S.norm(a, c.root); });
      if (ns.every(function (a) { return S.own(a, 'const'); })) {
        return !X('choice') ? json(s, c, o) : X('choice')(s, o, ns.map(function (a) { return a.const; }), function (v, i) { return ns[i].title || (typeof v === 'string' ? v : JSON.stringify(v)); });
      }
      return X('variants') ? X('variants')(s, ns, c, o) : json(s, c, o);
    }
    var t = s.type || (s.properties || isObj(s.additionalProperties) ? 'object' : s.items ? 'array' : null);
    if (Array.isArray(t)) {
      var base = Object.assign({}, s);
      delete base.__refs;
      return X('variants') ? X('variants')(s, t.map(function (x) { return Object.assign({}, base, { type: x, title: x }); }), c, o) : json(s, c, o);
    }
    if (t === 'string' || t === 'number' || t === 'integer') return input(s, o, t);
    if (t === 'boolean') return X('bool') ? X('bool')(s, o) : json(s, c, o);
    if (t === 'object') return object(s, c, o);
    if (t === 'array') return X('array') ? X('array')(s, c, o) : json(s, c, o);
    if (t === 'null') return X('constant') ? X('constant')({ const: null }, o) : json(s, c, o);
    return json(s, c, o);
  }

  function input(s, o, t) {
    var f = s.format, type = 'text', area = false, name = o.name || '', tm = X('time');
    var timed = t === 'string' && tm && tm.type(f);
    if (t === 'string') {
      if (s.writeOnly || f === 'password' || /^(password|passwd|secret|api[_-]?key|token)$/i.test(name)) type = 'password';
      else if (f === 'date') type = 'date';
      else if (timed) type = timed;
      else if (f === 'email') type = 'email';
      else if (f === 'uri' || f === 'url') type = 'url';
      // A pattern or format means a one-line value, whatever the field is called.
      area = type === 'text' && !s.pattern && !f && (s.maxLength > 200 || (s.maxLength == null && (TEXTY.test(name) || s.contentMediaType)));
    } else type = 'number';
    if (type !== 'text' && type !== 'password' && type !== 'email' && type !== 'url') o = Object.assign({ short: true }, o);
    var ctl = area ? h('textarea', { rows: 4 }) : h('input', { type: type });
    if (type === 'number') {
      ctl.step = typeof s.multipleOf === 'number' ? String(s.multipleOf) : t === 'integer' ? '1' : 'any';
      if (typeof s.minimum === 'number') ctl.min = String(s.minimum);
      if (typeof s.maximum === 'number') ctl.max = String(s.maximum);
      ctl.inputMode = t === 'integer' ? 'numeric' : 'decimal';
    }
    if (type === timed) ctl.step = '1';
    if (typeof s.maxLength === 'number') ctl.maxLength = s.maxLength;
    var ph = placeholder(s) || (f === 'uuid' ? '00000000-0000-0000-0000-000000000000' : null);
    if (ph) ctl.placeholder = ph;
    if (type === 'password') ctl.autocomplete = 'off';
    // Time fields name the time zone they are in, under the control.
    var zone = type === timed ? h('p.help.tz') : null;
    var box = leaf(o, ctl, nid(), s, zone);
    if (zone) tm.note(zone, type);
    var live = function () { setErr(box, []); };
    ctl.addEventListener('input', live);
    return {
      el: box,
      read: function (errs) {
        var raw = ctl.value, v;
        setErr(box, []);
        if (raw === '' || (t !== 'string' && raw.trim() === '')) {
          if (!o.required) return undefined;
          if (s.__null) return null;
          fail(box, errs, ['This field is required.']);
          return undefined;
        }
        if (t === 'string') {
          v = zone ? tm.read(type, raw) : raw;
        } else {
          v = Number(raw);
          if (!isFinite(v)) { fail(box, errs, ['Enter a number.']); return undefined; }
          if (t === 'integer' && !Number.isInteger(v)) { fail(box, errs, ['Enter a whole number.']); return undefined; }
        }
        var m = S.scalarErrors(s, v);
        if (m.length) { fail(box, errs, m); return undefined; }
        return v;
      },
      write: function (v) {
        if (v == null) { ctl.value = ''; return; }
        var w = zone ? tm.write(type, v) : null;
        if (w != null) { ctl.value = w; return; }
        ctl.value = typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
    };
  }

  function object(s, c, o) {
    var props = isObj(s.properties) ? s.properties : {}, req = Array.isArray(s.required) ? s.required : [];
    var keys = Object.keys(props);
    var ap = s.additionalProperties;
    // An object with nothing declared (dict[str, Any]) is a map of any values: key/value rows.
    var anyMap = !keys.length && !isObj(ap) && ap !== false && !s.patternProperties && o.label;
    var openMap = isObj(ap) || (ap === true && keys.length > 0) || anyMap;
    if (anyMap && !X('mapRows')) return json(s, c, o);
    var fs = group(o, s, 'obj');
    var kids = keys.map(function (k) {
      var ps = props[k], n = S.norm(ps, c.root);
      var f = field(ps, c, { label: n.title || S.words(k), name: k, required: req.indexOf(k) >= 0 });
      fs.append(f.el);
      return { k: k, f: f };
    });
    var map = openMap && X('mapRows') ? X('mapRows')(isObj(ap) ? ap : {}, c, keys) : null;
    if (map) fs.append(map.el);
    fs.append(fs.__tail);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        var out = {}, any = false, mine = [];
        kids.forEach(function (x) {
          var v = x.f.read(mine);
          if (v !== undefined) { out[x.k] = v; any = true; }
        });
        if (map) { var m = map.read(mine); for (var k in m) { out[k] = m[k]; any = true; } }
        // An optional object left entirely empty is omitted, so its required children are moot.
        if (!any && !o.required) {
          mine.forEach(function (e) { if (e.box) setErr(e.box, []); });
          return undefined;
        }
        mine.forEach(function (e) { errs.push(e); });
        var n = Object.keys(out).length;
        if (s.minProperties != null && n < s.minProperties) fail(fs, errs, ['Fill in at least ' + s.minProperties + ' field(s).']);
        return out;
      },
      write: function (v) {
        if (!isObj(v)) return;
        kids.forEach(function (x) { if (S.own(v, x.k)) x.f.write(v[x.k]); });
        if (map) map.write(v);
      }
    };
  }

  G.form = { field: field, group: group, leaf: leaf, setErr: setErr, fail: fail, nid: nid, placeholder: placeholder };
  G.buildForm = function (schema) {
    var root = isObj(schema) ? schema : { type: 'object' };
    var ctx = { root: root, stack: [], depth: 0 };
    var s = S.norm(root, root);
    var props = isObj(s.properties) ? s.properties : {};
    if (!Object.keys(props).length && !isObj(s.additionalProperties) && !s.oneOf && !s.anyOf) {
      return { el: h('p.help', 'This tool takes no input.'), read: function () { return {}; }, write: function () {} };
    }
    // Shared $refs can make a small schema an exponentially large form: past a budget of fields
    // (validate.js counts them) it is one JSON editor. The generator leaves validate.js out only
    // when it has counted the fields itself and found them within the budget.
    var over = G.form.overBudget && G.form.overBudget(root);
    if (over) return json(s, ctx, { label: 'Input (JSON)', required: true, desc: 'This input has more than ' + over + ' fields, too many for a form: write it as JSON.' });
    return field(root, ctx, { label: '', required: true, eager: true });
  };
})();
