// The form: compiles a tool's inputSchema into labelled controls at load time. Every field is
// {el, read(errors) -> value | undefined (omitted), write(value)}; read() coerces to the schema
// type and shows inline messages, so nothing invalid is ever sent.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj;
  var uid = 0;
  // Arrays, variants, maps and cycles live in form-extra.js, embedded only for schemas that use
  // them; without it those fields fall back to the JSON editor.
  var X = function (name) { return G.formx && G.formx[name]; };
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
    if (S.own(s, 'const')) return constField(s, o);
    var names = s.enumNames || s['x-enumNames'];
    if (Array.isArray(s.enum)) return choice(s, o, s.enum, function (v, i) { return Array.isArray(names) && names[i] != null ? String(names[i]) : typeof v === 'string' ? v : JSON.stringify(v); });
    var alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      var ns = alts.map(function (a) { return S.norm(a, c.root); });
      if (ns.every(function (a) { return S.own(a, 'const'); })) {
        return choice(s, o, ns.map(function (a) { return a.const; }), function (v, i) { return ns[i].title || (typeof v === 'string' ? v : JSON.stringify(v)); });
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
    if (t === 'boolean') return bool(s, o);
    if (t === 'object') return object(s, c, o);
    if (t === 'array') return X('array') ? X('array')(s, c, o) : json(s, c, o);
    if (t === 'null') return constField({ const: null }, o);
    return json(s, c, o);
  }

  function constField(s, o) {
    var id = nid();
    var out = h('output.const', JSON.stringify(s.const));
    var box = h('div.fld', h('span.lab', { id: id }, o.label), out);
    out.setAttribute('aria-labelledby', id);
    return { el: box, read: function () { return s.const; }, write: function () {} };
  }

  function input(s, o, t) {
    var f = s.format, type = 'text', area = false, name = o.name || '';
    if (t === 'string') {
      if (s.writeOnly || f === 'password' || /^(password|passwd|secret|api[_-]?key|token)$/i.test(name)) type = 'password';
      else if (f === 'date') type = 'date';
      else if (f === 'date-time') type = 'datetime-local';
      else if (f === 'time') type = 'time';
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
    if (type === 'datetime-local' || type === 'time') ctl.step = '1';
    if (typeof s.maxLength === 'number') ctl.maxLength = s.maxLength;
    var ph = placeholder(s) || (f === 'uuid' ? '00000000-0000-0000-0000-000000000000' : null);
    if (ph) ctl.placeholder = ph;
    if (type === 'password') ctl.autocomplete = 'off';
    var zone = type === 'time' || type === 'datetime-local' ? h('p.help.tz') : null;
    var box = leaf(o, ctl, nid(), s, zone);
    if (zone) { var sayZone = function () { zone.textContent = zoneNote(type); }; sayZone(); zones.push(sayZone); }
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
          v = raw;
          if (type === 'datetime-local') { var d = S.fromWall(secs(raw), S.where().timeZone); v = isNaN(d) ? raw : d.toISOString(); }
          if (type === 'time') v = withOffset(secs(raw));
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
        if (type === 'datetime-local') {
          var d = new Date(v);
          if (!isNaN(d)) { ctl.value = wallOf(d).slice(0, 19); return; }
        }
        if (type === 'time' && typeof v === 'string') { ctl.value = timeIn(v); return; }
        ctl.value = typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
    };
  }

  // Times: a format "time" value is RFC 3339 full-time, which needs an offset, and an
  // <input type=time> holds none. The offset is the host's time zone (HostContext.timeZone, else
  // the browser's) on today's date there; the note under the field says so.
  var zones = [];
  function secs(raw) { return /(^|T)\d\d:\d\d$/.test(raw) ? raw + ':00' : raw; }
  function wallOf(d) { return new Date(d.getTime() + S.offset(S.where().timeZone, d) * 60000).toISOString(); }
  function today() { return wallOf(new Date()).slice(0, 10); }
  function withOffset(t) {
    if (!/^\d\d:\d\d:\d\d(\.\d+)?$/.test(t)) return t;
    var d = S.fromWall(today() + 'T' + t.slice(0, 8), S.where().timeZone);
    return t + (isNaN(d) ? 'Z' : S.offStr(S.offset(S.where().timeZone, d)));
  }
  // A full-time with any offset, as the wall-clock time of the host's zone today.
  function timeIn(v) {
    var m = /^(\d\d:\d\d(?::\d\d)?)(?:\.\d+)?([Zz]|[+-]\d\d:?\d\d)?$/.exec(v);
    if (!m) return v.slice(0, 8);
    if (!m[2]) return secs(m[1]);
    var off = /z/i.test(m[2]) ? '+00:00' : m[2].slice(0, 3) + ':' + m[2].slice(-2);
    var d = new Date(today() + 'T' + secs(m[1]) + off);
    return isNaN(d) ? secs(m[1]) : wallOf(d).slice(11, 19);
  }
  function zoneNote(type) {
    var tz = S.where().timeZone, off = S.offStr(S.offset(tz, new Date()));
    return type === 'time'
      ? 'Time zone: ' + tz + ' (UTC' + off + ', the offset on today\'s date); sent with that offset.'
      : 'Time zone: ' + tz + ' (UTC' + off + ' now); sent in UTC.';
  }

  function bool(s, o) {
    // Optional with no default: tri-state, so "not set" stays distinguishable from false.
    o = Object.assign({ short: true }, o);
    if (!o.required && s.default === undefined) {
      var sel = h('select', h('option', { value: '', text: '(not set)' }), h('option', { value: 'true', text: 'Yes' }), h('option', { value: 'false', text: 'No' }));
      var b = leaf(o, sel, nid(), s);
      return {
        el: b,
        read: function () { return sel.value === '' ? (s.__null && o.required ? null : undefined) : sel.value === 'true'; },
        write: function (v) { sel.value = v === true ? 'true' : v === false ? 'false' : ''; }
      };
    }
    var cb = h('input', { type: 'checkbox' });
    var box = leaf(o, cb, nid(), s);
    return { el: box, read: function () { return cb.checked; }, write: function (v) { cb.checked = v === true; } };
  }

  function choice(s, o, vals, title) {
    o = Object.assign({ short: true }, o);
    var sel = h('select', h('option', { value: '', text: o.required ? '— choose —' : '(not set)' }));
    vals.forEach(function (v, i) { sel.append(h('option', { value: String(i), text: title(v, i) })); });
    var box = leaf(o, sel, nid(), s);
    return {
      el: box,
      read: function (errs) {
        setErr(box, []);
        if (sel.value === '') {
          if (!o.required) return undefined;
          if (s.__null) return null;
          fail(box, errs, ['Choose a value.']);
          return undefined;
        }
        return vals[Number(sel.value)];
      },
      write: function (v) {
        var i = vals.findIndex(function (x) { return S.same(x, v); });
        sel.value = i < 0 ? '' : String(i);
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

  // The whole form for a tool's inputSchema (always an object at the top level).
  // How many fields a schema expands to, counted up to just past "cap": shared $refs (a DAG, not a
  // cycle) can make a small schema an exponentially large form. src/generate/builtin.rs uses the
  // same budget to embed the JSON editor.
  var BUDGET = 600;
  function size(s0, root, stack, n, cap) {
    if (n.v > cap) return;
    n.v++;
    var s = S.norm(s0, root);
    if (s.__refs.some(function (r) { return stack.indexOf(r) >= 0; })) return;
    var st = stack.concat(s.__refs), kids = [];
    if (isObj(s.properties)) for (var k in s.properties) kids.push(s.properties[k]);
    if (isObj(s.items)) kids.push(s.items);
    if (isObj(s.additionalProperties)) kids.push(s.additionalProperties);
    (s.oneOf || s.anyOf || []).forEach(function (a) { kids.push(a); });
    for (var i = 0; i < kids.length && n.v <= cap; i++) size(kids[i], root, st, n, cap);
  }

  G.form = { field: field, group: group, leaf: leaf, setErr: setErr, fail: fail, nid: nid, placeholder: placeholder, budget: BUDGET,
    refresh: function () { zones.forEach(function (z) { z(); }); } };
  G.buildForm = function (schema) {
    var root = isObj(schema) ? schema : { type: 'object' };
    var ctx = { root: root, stack: [], depth: 0 };
    var s = S.norm(root, root);
    var props = isObj(s.properties) ? s.properties : {};
    if (!Object.keys(props).length && !isObj(s.additionalProperties) && !s.oneOf && !s.anyOf) {
      return { el: h('p.help', 'This tool takes no input.'), read: function () { return {}; }, write: function () {} };
    }
    var n = { v: 0 };
    size(root, root, [], n, BUDGET);
    if (n.v > BUDGET) {
      var j = json(s, ctx, { label: 'Input (JSON)', required: true, desc: 'This input has more than ' + BUDGET + ' fields, too many for a form: write it as JSON.' });
      return j;
    }
    var f = field(root, ctx, { label: '', required: true, eager: true });
    return f;
  };
})();
