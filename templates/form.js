// The form: compiles a tool's inputSchema into labelled controls at load time. Every field is
// {el, read(errors) -> value | undefined (omitted), write(value)}; read() coerces to the schema
// type and shows inline messages, so nothing invalid is ever sent.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj;
  var uid = 0;
  var nid = function () { return 'f' + (++uid); };
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
  function leaf(o, ctl, id, s) {
    var help = o.desc || s.description;
    var hid = id + '-h', eid = id + '-e';
    var err = h('p', { class: 'err', id: eid, hidden: true, role: 'alert' });
    ctl.id = id;
    ctl.setAttribute('aria-describedby', (help ? hid + ' ' : '') + eid);
    if (o.required) { ctl.setAttribute('aria-required', 'true'); if (ctl.type !== 'checkbox') ctl.required = true; }
    var lab = h('label', { for: id }, o.label, o.required ? h('span', { class: 'req', 'aria-hidden': 'true', text: ' *' }) : null);
    var box = ctl.type === 'checkbox'
      ? h('div', { class: 'fld chk' }, ctl, lab, help ? h('p', { class: 'help', id: hid, text: help }) : null, err)
      : h('div', { class: 'fld' }, lab, help ? h('p', { class: 'help', id: hid, text: help }) : null, ctl, err);
    box.__err = err;
    box.__ctl = ctl;
    return box;
  }

  function group(o, s, cls) {
    var help = o.desc || s.description, id = nid();
    var err = h('p', { class: 'err', id: id + '-e', hidden: true, role: 'alert' });
    var fs = h('fieldset', { class: cls, 'aria-describedby': id + '-e' },
      o.label ? h('legend', null, o.label, o.required ? h('span', { class: 'req', 'aria-hidden': 'true', text: ' *' }) : null) : null,
      help ? h('p', { class: 'help', text: help }) : null);
    fs.__err = err;
    fs.__tail = err;
    return fs;
  }

  function field(s0, ctx, o) {
    var s = S.norm(s0, ctx.root);
    var cyclic = s.__refs.some(function (r) { return ctx.stack.indexOf(r) >= 0; });
    if ((cyclic || ctx.depth > 24) && !o.eager) return lazy(s0, s, ctx, o);
    var c = { root: ctx.root, stack: ctx.stack.concat(s.__refs), depth: ctx.depth + 1 };
    var f = pick(s, c, o);
    if (s.default !== undefined && !o.noDefault) f.write(s.default);
    return f;
  }

  function pick(s, c, o) {
    if (Object.prototype.hasOwnProperty.call(s, 'const')) return constField(s, o);
    var names = s.enumNames || s['x-enumNames'];
    if (Array.isArray(s.enum)) return choice(s, o, s.enum, function (v, i) { return Array.isArray(names) && names[i] != null ? String(names[i]) : typeof v === 'string' ? v : JSON.stringify(v); });
    var alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      var ns = alts.map(function (a) { return S.norm(a, c.root); });
      if (ns.every(function (a) { return Object.prototype.hasOwnProperty.call(a, 'const'); })) {
        return choice(s, o, ns.map(function (a) { return a.const; }), function (v, i) { return ns[i].title || (typeof v === 'string' ? v : JSON.stringify(v)); });
      }
      return variants(s, ns, c, o);
    }
    var t = s.type || (s.properties || isObj(s.additionalProperties) ? 'object' : s.items ? 'array' : null);
    if (Array.isArray(t)) {
      var base = Object.assign({}, s);
      delete base.__refs;
      return variants(s, t.map(function (x) { return Object.assign({}, base, { type: x, title: x }); }), c, o);
    }
    if (t === 'string' || t === 'number' || t === 'integer') return input(s, o, t);
    if (t === 'boolean') return bool(s, o);
    if (t === 'object') return object(s, c, o);
    if (t === 'array') return array(s, c, o);
    if (t === 'null') return constField({ const: null }, o);
    return jsonField(s, c, o);
  }

  function constField(s, o) {
    var id = nid();
    var out = h('output', { class: 'const', text: JSON.stringify(s.const) });
    var box = h('div', { class: 'fld' }, h('span', { class: 'lab', id: id }, o.label), out);
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
      area = type === 'text' && (s.maxLength > 200 || (s.maxLength == null && (TEXTY.test(name) || s.contentMediaType)));
    } else type = 'number';
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
    var box = leaf(o, ctl, nid(), s);
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
          if (type === 'datetime-local') { var d = new Date(raw); v = isNaN(d) ? raw : d.toISOString(); }
          if (type === 'time' && /^\d\d:\d\d$/.test(raw)) v = raw + ':00';
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
          if (!isNaN(d)) { var l = new Date(d.getTime() - d.getTimezoneOffset() * 60000); ctl.value = l.toISOString().slice(0, 19); return; }
        }
        if (type === 'time' && typeof v === 'string') { ctl.value = v.slice(0, 8); return; }
        ctl.value = typeof v === 'object' ? JSON.stringify(v) : String(v);
      }
    };
  }

  function bool(s, o) {
    // Optional with no default: tri-state, so "not set" stays distinguishable from false.
    if (!o.required && s.default === undefined) {
      var sel = h('select', null, h('option', { value: '', text: '(not set)' }), h('option', { value: 'true', text: 'Yes' }), h('option', { value: 'false', text: 'No' }));
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
    var sel = h('select', null, h('option', { value: '', text: o.required ? '— choose —' : '(not set)' }));
    vals.forEach(function (v, i) { sel.appendChild(h('option', { value: String(i), text: title(v, i) })); });
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
    var openMap = isObj(ap) || (ap === true && keys.length > 0);
    if (!keys.length && !isObj(ap) && !s.patternProperties && o.label) return jsonField(s, c, o);
    var fs = group(o, s, 'obj');
    var kids = keys.map(function (k) {
      var ps = props[k], n = S.norm(ps, c.root);
      var f = field(ps, c, { label: n.title || k, name: k, required: req.indexOf(k) >= 0 });
      fs.appendChild(f.el);
      return { k: k, f: f };
    });
    var map = openMap ? mapRows(isObj(ap) ? ap : {}, c, keys) : null;
    if (map) fs.appendChild(map.el);
    fs.appendChild(fs.__tail);
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
        kids.forEach(function (x) { if (Object.prototype.hasOwnProperty.call(v, x.k)) x.f.write(v[x.k]); });
        if (map) map.write(v);
      }
    };
  }

  function mapRows(vs, c, known) {
    var wrap = h('div', { class: 'map' }), rows = [];
    var list = h('div', { class: 'rows' });
    var addBtn = h('button', { type: 'button', class: 'btn sm', text: '+ Add entry', onclick: function () { addRow('', undefined).key.focus(); } });
    wrap.appendChild(list);
    wrap.appendChild(addBtn);
    function addRow(k, v) {
      var kid = nid();
      var key = h('input', { type: 'text', id: kid, value: k });
      var vf = field(vs, c, { label: 'Value', name: 'value', required: true, noDefault: v !== undefined });
      if (v !== undefined) vf.write(v);
      var row = h('div', { class: 'row' },
        h('div', { class: 'fld' }, h('label', { for: kid, text: 'Key' }), key), vf.el,
        h('button', { type: 'button', class: 'btn sm ghost', 'aria-label': 'Remove entry', text: '✕', onclick: function () { list.removeChild(row); rows.splice(rows.indexOf(r), 1); } }));
      var r = { key: key, f: vf };
      rows.push(r);
      list.appendChild(row);
      return r;
    }
    return {
      el: wrap,
      read: function (errs) {
        var out = {};
        rows.forEach(function (r) {
          var k = r.key.value.trim();
          var v = r.f.read(errs);
          if (!k) { if (v !== undefined) errs.push({ el: r.key, message: 'Enter a key.' }); return; }
          if (known.indexOf(k) < 0 && v !== undefined) out[k] = v;
        });
        return out;
      },
      write: function (v) {
        rows.slice().forEach(function (r) { var el = r.key.closest('.row'); if (el) list.removeChild(el); });
        rows.length = 0;
        for (var k in v) if (known.indexOf(k) < 0) addRow(k, v[k]);
      }
    };
  }

  function array(s, c, o) {
    var items = s.items;
    if (Array.isArray(items) || Array.isArray(s.prefixItems)) return jsonField(s, c, o);
    var is = S.norm(items, c.root);
    var opts = Array.isArray(is.enum) ? is.enum
      : Array.isArray(is.oneOf || is.anyOf) && (is.oneOf || is.anyOf).every(function (a) { return isObj(a) && 'const' in a; }) ? (is.oneOf || is.anyOf).map(function (a) { return a.const; }) : null;
    var fs = group(o, s, 'arr');
    if (opts) return multi(s, o, fs, opts, is);
    var list = h('div', { class: 'rows' }), rows = [];
    var addBtn = h('button', { type: 'button', class: 'btn sm', text: '+ Add ' + (is.title || 'item'), onclick: function () { addRow(undefined, true); sync(); } });
    fs.appendChild(list);
    fs.appendChild(addBtn);
    fs.appendChild(fs.__tail);
    function sync() {
      rows.forEach(function (r, i) {
        r.num.textContent = '#' + (i + 1);
        r.up.disabled = i === 0;
        r.down.disabled = i === rows.length - 1;
        r.up.setAttribute('aria-label', 'Move item ' + (i + 1) + ' up');
        r.down.setAttribute('aria-label', 'Move item ' + (i + 1) + ' down');
        r.del.setAttribute('aria-label', 'Remove item ' + (i + 1));
      });
      addBtn.disabled = s.maxItems != null && rows.length >= s.maxItems;
    }
    function move(r, d) {
      var i = rows.indexOf(r), j = i + d;
      if (j < 0 || j >= rows.length) return;
      rows.splice(i, 1);
      rows.splice(j, 0, r);
      rows.forEach(function (x) { list.appendChild(x.el); });
      sync();
      (d < 0 ? r.up : r.down).focus();
    }
    function addRow(v, focus) {
      var f = field(items, c, { label: is.title || (o.label ? o.label + ' item' : 'Item'), name: o.name, required: true, noDefault: v !== undefined });
      if (v !== undefined) f.write(v);
      var r = { f: f };
      r.num = h('span', { class: 'num' });
      r.up = h('button', { type: 'button', class: 'btn sm ghost', text: '↑', onclick: function () { move(r, -1); } });
      r.down = h('button', { type: 'button', class: 'btn sm ghost', text: '↓', onclick: function () { move(r, 1); } });
      r.del = h('button', { type: 'button', class: 'btn sm ghost', text: '✕', onclick: function () { list.removeChild(r.el); rows.splice(rows.indexOf(r), 1); sync(); } });
      r.el = h('div', { class: 'row' }, h('div', { class: 'rowh' }, r.num, r.up, r.down, r.del), f.el);
      rows.push(r);
      list.appendChild(r.el);
      if (focus) { var first = r.el.querySelector('input,select,textarea'); if (first) first.focus(); }
    }
    for (var i = 0; i < (s.minItems || 0) && i < 50; i++) addRow();
    sync();
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        var out = [];
        rows.forEach(function (r) { var v = r.f.read(errs); if (v !== undefined) out.push(v); });
        if (!out.length && !o.required && !rows.length) return undefined;
        var m = [];
        if (s.minItems != null && out.length < s.minItems) m.push('Add at least ' + s.minItems + ' item(s).');
        if (s.maxItems != null && out.length > s.maxItems) m.push('Use at most ' + s.maxItems + ' item(s).');
        if (s.uniqueItems) {
          var ks = out.map(function (x) { return JSON.stringify(x); });
          if (ks.some(function (x, i) { return ks.indexOf(x) !== i; })) m.push('Items must be unique.');
        }
        fail(fs, errs, m);
        return out;
      },
      write: function (v) {
        if (!Array.isArray(v)) return;
        rows.forEach(function (r) { list.removeChild(r.el); });
        rows = [];
        v.slice(0, 500).forEach(function (x) { addRow(x); });
        sync();
      }
    };
  }

  function multi(s, o, fs, opts, is) {
    var names = is.enumNames || [];
    var boxes = opts.map(function (v, i) {
      var id = nid();
      var cb = h('input', { type: 'checkbox', id: id });
      var t = (is.oneOf || is.anyOf || [])[i];
      fs.appendChild(h('div', { class: 'fld chk' }, cb, h('label', { for: id, text: (t && t.title) || names[i] || (typeof v === 'string' ? v : JSON.stringify(v)) })));
      return cb;
    });
    fs.appendChild(fs.__tail);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        var out = opts.filter(function (v, i) { return boxes[i].checked; });
        if (!out.length && !o.required) return undefined;
        var m = [];
        if (s.minItems != null && out.length < s.minItems) m.push('Choose at least ' + s.minItems + '.');
        if (s.maxItems != null && out.length > s.maxItems) m.push('Choose at most ' + s.maxItems + '.');
        fail(fs, errs, m);
        return out;
      },
      write: function (v) {
        if (!Array.isArray(v)) return;
        opts.forEach(function (x, i) { boxes[i].checked = v.some(function (y) { return S.same(x, y); }); });
      }
    };
  }

  function altName(a, i) {
    if (a.title) return a.title;
    var p = isObj(a.properties) ? a.properties : {};
    for (var k in p) if (isObj(p[k]) && 'const' in p[k]) return k + ': ' + p[k].const;
    if (typeof a.type === 'string') return a.type;
    return 'Option ' + (i + 1);
  }

  function variants(s, alts, c, o) {
    var base = Object.assign({}, s);
    ['oneOf', 'anyOf', '__refs', 'title', 'description', 'default'].forEach(function (k) { delete base[k]; });
    var merged = alts.map(function (a) {
      var m = Object.assign({}, a);
      if (base.properties || base.required) {
        m.properties = Object.assign({}, base.properties, a.properties);
        m.required = (base.required || []).concat(a.required || []);
      }
      for (var k in base) if (!(k in m)) m[k] = base[k];
      return m;
    });
    var fs = group(o, s, 'var');
    var sid = nid();
    var sel = h('select', { id: sid });
    merged.forEach(function (a, i) { sel.appendChild(h('option', { value: String(i), text: altName(a, i) })); });
    if (!o.required) { sel.insertBefore(h('option', { value: '', text: '(not set)' }), sel.firstChild); sel.value = ''; }
    var holder = h('div', { class: 'alt' });
    fs.appendChild(h('div', { class: 'fld' }, h('label', { for: sid, text: (o.label || 'Value') + ' — kind' }), sel));
    fs.appendChild(holder);
    fs.appendChild(fs.__tail);
    var cur = null;
    function choose(i, v) {
      holder.textContent = '';
      cur = null;
      if (i === '' || i == null) return;
      cur = field(merged[Number(i)], c, { label: o.label || 'Value', name: o.name, required: true, noDefault: v !== undefined, eager: true });
      if (v !== undefined) cur.write(v);
      holder.appendChild(cur.el);
    }
    sel.addEventListener('change', function () { choose(sel.value); });
    choose(sel.value);
    return {
      el: fs,
      read: function (errs) {
        if (!cur) return o.required && s.__null ? null : undefined;
        return cur.read(errs);
      },
      write: function (v) {
        if (v === undefined) return;
        var i = merged.findIndex(function (a) { return !S.validate(a, v, c.root).length; });
        if (i < 0) i = merged.findIndex(function (a) { return !a.type || S.typeOf(v) === a.type || (a.type === 'number' && typeof v === 'number'); });
        if (i < 0) return;
        sel.value = String(i);
        choose(String(i), v);
      }
    };
  }

  // A field we cannot express as controls: JSON with live validation against its schema.
  function jsonField(s, c, o) {
    var ta = h('textarea', { rows: 3, class: 'mono', spellcheck: 'false' });
    var ph = placeholder(s);
    ta.placeholder = ph || 'JSON value';
    var box = leaf({ label: o.label || 'Value', required: o.required, desc: (o.desc || s.description || '') + (s.description ? ' ' : '') + '(JSON)' }, ta, nid(), s);
    function parse(errs) {
      setErr(box, []);
      if (!ta.value.trim()) {
        if (o.required) fail(box, errs, ['This field is required (JSON).']);
        return undefined;
      }
      var v;
      try { v = JSON.parse(ta.value); } catch (e) { fail(box, errs, ['Not valid JSON: ' + e.message]); return undefined; }
      var m = S.validate(s, v, c.root).map(function (x) { return x.path === '(root)' ? x.message : x.path + ': ' + x.message; });
      if (m.length) { fail(box, errs, m.slice(0, 3)); return undefined; }
      return v;
    }
    ta.addEventListener('input', function () { parse([]); });
    return { el: box, read: parse, write: function (v) { ta.value = v === undefined ? '' : JSON.stringify(v, null, 2); } };
  }

  // Cycles ($ref back into an ancestor) expand one level per click, so the form stays finite.
  function lazy(s0, s, ctx, o) {
    var fs = group(o, s, 'lazy'), inner = null;
    var btn = h('button', { type: 'button', class: 'btn sm', text: '+ Add ' + (o.label || 'value') });
    var rm = h('button', { type: 'button', class: 'btn sm ghost', text: 'Remove', hidden: true });
    var holder = h('div');
    function open(v) {
      inner = field(s0, { root: ctx.root, stack: [], depth: 0 }, { label: o.label, name: o.name, required: true, eager: true, noDefault: v !== undefined });
      if (v !== undefined) inner.write(v);
      holder.appendChild(inner.el);
      btn.hidden = true;
      rm.hidden = false;
    }
    btn.addEventListener('click', function () { open(); });
    rm.addEventListener('click', function () { holder.textContent = ''; inner = null; btn.hidden = false; rm.hidden = true; });
    fs.appendChild(holder);
    fs.appendChild(btn);
    fs.appendChild(rm);
    fs.appendChild(fs.__tail);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (inner) return inner.read(errs);
        if (o.required) fail(fs, errs, ['This field is required.']);
        return undefined;
      },
      write: function (v) { holder.textContent = ''; inner = null; if (v !== undefined && v !== null) open(v); else { btn.hidden = false; rm.hidden = true; } }
    };
  }

  // The whole form for a tool's inputSchema (always an object at the top level).
  G.buildForm = function (schema) {
    var root = isObj(schema) ? schema : { type: 'object' };
    var ctx = { root: root, stack: [], depth: 0 };
    var s = S.norm(root, root);
    var props = isObj(s.properties) ? s.properties : {};
    if (!Object.keys(props).length && !isObj(s.additionalProperties) && !s.oneOf && !s.anyOf) {
      return { el: h('p', { class: 'help', text: 'This tool takes no input.' }), read: function () { return {}; }, write: function () {} };
    }
    var f = field(root, ctx, { label: '', required: true, eager: true });
    return f;
  };
})();
