// Form features that only some schemas need: arrays (rows with add/remove/reorder, enum
// multi-select), oneOf/anyOf variants, additionalProperties maps, and lazily expanded $ref cycles.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, F = G.form;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var Str = String, isArr = Array.isArray, toJson = JSON.stringify;
  var field = F.field, group = F.group, setErr = F.setErr, fail = F.fail, jsonField = F.json, nid = F.nid;
  // The null control of a nullable array (see form.js), in the fieldset's actions.
  var nulled = (s, fs, before, clear) => {
    if (!s.__null) return null;
    var nb = F.nullBox((on) => { if (on) clear(); });
    fs.insertBefore(nb.el, before);
    return nb;
  };
  var wrongType = (fs, errs, v, t) => fail(fs, errs, ['Expected ' + t + ', got ' + toJson(v).slice(0, 40) + '.']);

  // A value of any type, typed as text: a JSON literal (42, true, null, [1], {"a": 1}, "quoted")
  // is that value, anything else is the text itself. Numbers with leading zeros stay text.
  var LITERAL = /^\s*(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)\s*$/;
  var anyValue = (o) => {
    var id = nid(), ctl = h('input', { type: 'text' });
    var box = F.leaf({ label: o.label, required: o.required, desc: 'Text, or a JSON value: 42, true, null, ["a"], {"k": 1}' }, ctl, id, {});
    var read = (errs) => {
      setErr(box, []);
      var t = ctl.value;
      if (LITERAL.test(t)) return JSON.parse(t);
      if (!/^\s*[[{"]/.test(t)) return t;
      try { return JSON.parse(t); } catch (e) { fail(box, errs, ['Not valid JSON: ' + e.message + ' (write plain text without a leading bracket or quote)']); return undefined; }
    };
    ctl.addEventListener('input', function () { read([]); });
    return { el: box, read: read, write: function (v) { ctl.value = typeof v === 'string' && !LITERAL.test(v) && !/^\s*[[{"]/.test(v) ? v : toJson(v); } };
  };
  var described = ['type', 'enum', 'const', 'oneOf', 'anyOf', 'allOf', 'not', 'properties', 'additionalProperties', 'items', 'prefixItems', '$ref', 'format', 'pattern'];

  // The regular expression of a patternProperties key (unicode, as JSON Schema reads it), or null.
  var regex = (p) => { try { return new RegExp(p, 'u'); } catch (e) { return null; } };
  // Key/value rows of a map: the keys of additionalProperties, and of patternProperties, whose
  // matching schema gives the value's control; keys are checked against the patterns (when
  // nothing else is allowed) and against propertyNames.
  var mapRows = (vs, c, known, os) => {
    var wrap = h('div.map'), rows = [], os1 = os || {};
    var pats = S.isObj(os1.patternProperties) ? Object.keys(os1.patternProperties) : [];
    var closed = os1.additionalProperties === false, names = os1.propertyNames;
    var list = h('div.rows');
    var addBtn = h('button.btn.sm', { text: '+ Add entry', onclick: function () { addRow('', undefined).key.focus(); } });
    wrap.append(list, addBtn);
    // The value's schema for a key: the first pattern it matches, else additionalProperties.
    var schemaOf = (k) => {
      var p = pats.find(function (x) { var re = regex(x); return re && re.test(k); });
      return p !== undefined ? os1.patternProperties[p] : k === '' && pats.length ? os1.patternProperties[pats[0]] : vs;
    };
    var keyErrors = (k) => {
      var m = [];
      if (closed && pats.length && !pats.some(function (x) { var re = regex(x); return re && re.test(k); })) m.push('The key must match ' + pats.join(' or ') + '.');
      // propertyNames: the validator's verdict on the key (schema-check.js comes with this part).
      var e = names == null ? [] : S.validate(names, k, c.root).map(function (x) { return x.message; });
      if (e.length) m.push('Key: ' + e.join(' '));
      return m;
    };
    var valueField = (vs1, v) => {
      var opts = { label: 'Value', name: 'value', required: true, noDefault: v !== undefined };
      var vf = vs1 === true || !S.isObj(vs1) || !described.some(function (k) { return k in vs1; }) ? anyValue(opts) : field(vs1, c, opts);
      if (v !== undefined) vf.write(v);
      return vf;
    };
    var addRow = (k, v) => {
      var kid = nid(), key = h('input', { type: 'text', value: k });
      var kbox = F.leaf({ label: 'Key', required: true, desc: pats.length ? 'Keys like ' + pats.join(' or ') : null }, key, kid, {});
      var vs1 = schemaOf(k), vf = valueField(vs1, v), holder = h('div', vf.el);
      var row = h('div.row', kbox, holder,
        h('button.btn.sm.ghost', { 'aria-label': 'Remove entry', text: '✕', onclick: function () { list.removeChild(row); rows.splice(rows.indexOf(r), 1); } }));
      var r = { key: key, kbox: kbox, f: vf };
      // A key that matches another pattern changes the value's control.
      key.addEventListener('change', function () {
        setErr(kbox, keyErrors(key.value.trim()));
        var next = schemaOf(key.value.trim());
        if (next === vs1) return;
        vs1 = next;
        // The value typed so far moves to the new control (which checks it).
        var e = [], was = r.f.read(e);
        r.f = valueField(vs1, was);
        holder.replaceChildren(r.f.el);
      });
      rows.push(r);
      list.append(row);
      return r;
    };
    return {
      el: wrap,
      read: function (errs) {
        var out = {};
        rows.forEach(function (r) {
          var k = r.key.value.trim();
          var v = r.f.read(errs);
          setErr(r.kbox, []);
          if (!k) { if (v !== undefined && v !== '') fail(r.kbox, errs, ['Enter a key.']); return; }
          fail(r.kbox, errs, keyErrors(k));
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
  };

  var array = (s, c, o) => {
    var items = s.items;
    if (isArr(items) || isArr(s.prefixItems)) return tuple(s, c, o);
    var is = S.norm(items, c.root);
    var opts = isArr(is.enum) ? is.enum
      : isArr(is.oneOf || is.anyOf) && (is.oneOf || is.anyOf).every(function (a) { return isObj(a) && F.one(a); }) ? (is.oneOf || is.anyOf).map(function (a) { return F.one(a)[0]; }) : null;
    var fs = group(o, s, 'arr');
    if (opts) return multi(s, o, fs, opts, is);
    // An optional array is absent until the person adds a row; an empty list written into it (by
    // the host or a view tool) is kept until someone changes it. "wrong": a written non-array.
    var list = h('div.rows'), rows = [], empty = false, wrong;
    var touch = () => { empty = false; wrong = undefined; if (nb) nb.cb.checked = false; };
    var addBtn = h('button.btn.sm', { text: '+ Add ' + (is.title || 'item'), onclick: function () { touch(); addRow(undefined, true); sync(); } });
    fs.append(list, addBtn, fs.__tail);
    var clearRows = () => { rows.forEach(function (r) { list.removeChild(r.el); }); rows = []; empty = false; wrong = undefined; sync(); };
    var nb = nulled(s, fs, fs.__tail, clearRows);
    var sync = () => {
      rows.forEach(function (r, i) {
        r.num.textContent = '#' + (i + 1);
        r.up.disabled = i === 0;
        r.down.disabled = i === rows.length - 1;
        r.up.setAttribute('aria-label', 'Move item ' + (i + 1) + ' up');
        r.down.setAttribute('aria-label', 'Move item ' + (i + 1) + ' down');
        r.del.setAttribute('aria-label', 'Remove item ' + (i + 1));
      });
      addBtn.disabled = s.maxItems != null && rows.length >= s.maxItems;
    };
    var move = (r, d) => {
      var i = rows.indexOf(r), j = i + d;
      if (j < 0 || j >= rows.length) return;
      rows.splice(i, 1);
      rows.splice(j, 0, r);
      rows.forEach(function (x) { list.append(x.el); });
      sync();
      (d < 0 ? r.up : r.down).focus();
    };
    var addRow = (v, focus) => {
      var f = field(items, c, { label: is.title || (o.label ? o.label + ' item' : 'Item'), name: o.name, required: true, noDefault: v !== undefined });
      if (v !== undefined) f.write(v);
      var r = { f: f };
      r.num = h('span.num');
      r.up = h('button.btn.sm.ghost', { text: '↑', onclick: function () { touch(); move(r, -1); } });
      r.down = h('button.btn.sm.ghost', { text: '↓', onclick: function () { touch(); move(r, 1); } });
      // Focus stays in the list after a removal: the next row's remove button, else "Add".
      r.del = h('button.btn.sm.ghost', { text: '✕', onclick: function () {
        var i = rows.indexOf(r);
        touch();
        list.removeChild(r.el); rows.splice(i, 1); sync();
        var next = rows[Math.min(i, rows.length - 1)];
        (next ? next.del : addBtn).focus();
      } });
      r.el = h('div.row', h('div.rowh', r.num, r.up, r.down, r.del), f.el);
      rows.push(r);
      list.append(r.el);
      if (focus) { var first = r.el.querySelector('input,select,textarea'); if (first) first.focus(); }
    };
    // A required list starts with the rows it needs; a required nullable one as null.
    if (o.required && nb) nb.cb.checked = true;
    else if (o.required) for (var i = 0; i < (s.minItems || 0) && i < 50; i++) addRow();
    sync();
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (wrong !== undefined) return wrongType(fs, errs, wrong, 'a list');
        if (nb && nb.cb.checked) return null;
        var out = [];
        rows.forEach(function (r) { var v = r.f.read(errs); if (v !== undefined) out.push(v); });
        if (!rows.length && !o.required && !empty) return undefined;
        var m = [];
        if (s.minItems != null && out.length < s.minItems) m.push('Add at least ' + s.minItems + ' item(s).');
        if (s.maxItems != null && out.length > s.maxItems) m.push('Use at most ' + s.maxItems + ' item(s).');
        if (s.uniqueItems) {
          var ks = out.map(function (x) { return toJson(x); });
          if (ks.some(function (x, i) { return ks.indexOf(x) !== i; })) m.push('Items must be unique.');
        }
        fail(fs, errs, m);
        return out;
      },
      write: function (v) {
        if (v === undefined) return;
        clearRows();
        if (nb) nb.cb.checked = v === null && !!s.__null;
        if (v === null && s.__null) return;
        if (!isArr(v)) { wrong = v; return; }
        empty = !v.length;
        v.slice(0, 500).forEach(function (x) { addRow(x); });
        sync();
      }
    };
  };

  var multi = (s, o, fs, opts, is) => {
    var names = is.enumNames || [];
    var boxes = opts.map(function (v, i) {
      var id = nid();
      var cb = h('input', { type: 'checkbox', id: id });
      var t = (is.oneOf || is.anyOf || [])[i];
      fs.append(h('div.fld.chk', cb, h('label', { for: id, text: (t && t.title) || names[i] || (typeof v === 'string' ? v : toJson(v)) })));
      return cb;
    });
    fs.append(fs.__tail);
    // Like a list of rows: an empty list written into it is kept until someone changes it.
    var empty = false, wrong, order = [], nb = nulled(s, fs, fs.__tail, function () { boxes.forEach(function (b) { b.checked = false; }); });
    if (o.required && nb) nb.cb.checked = true;
    fs.addEventListener('change', function (e) { empty = false; wrong = undefined; if (nb && e.target !== nb.cb) nb.cb.checked = false; });
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (wrong !== undefined) return wrongType(fs, errs, wrong, 'a list');
        if (nb && nb.cb.checked) return null;
        // In the order they were written (what a tool-input gave goes out as it came), then the options.
        var rank = function (v) { var i = order.findIndex(function (y) { return S.same(v, y); }); return i < 0 ? order.length : i; };
        var out = opts.filter(function (v, i) { return boxes[i].checked; }).sort(function (a, b) { return rank(a) - rank(b); });
        if (!out.length && !o.required && !empty) return undefined;
        var m = [];
        if (s.minItems != null && out.length < s.minItems) m.push('Choose at least ' + s.minItems + '.');
        if (s.maxItems != null && out.length > s.maxItems) m.push('Choose at most ' + s.maxItems + '.');
        fail(fs, errs, m);
        return out;
      },
      write: function (v) {
        if (v === undefined) return;
        wrong = undefined;
        if (nb) nb.cb.checked = v === null && !!s.__null;
        if (v === null && s.__null) return;
        if (!isArr(v) || v.some(function (y) { return !opts.some(function (x) { return S.same(x, y); }); })) { wrong = v; return; }
        empty = !v.length;
        order = v;
        opts.forEach(function (x, i) { boxes[i].checked = v.some(function (y) { return S.same(x, y); }); });
      }
    };
  };

  // A distinct name for each variant (book: reference/pages.md, "The form renders what the schema says"): its title; else its
  // const, or the const of a property (a discriminator); else the required properties only it
  // has; else its type when no other variant has it; else "Option N". Names still equal get
  // their number.
  var altNames = (alts, root) => {
    var show = (v) => typeof v === 'string' ? v : toJson(v);
    var req = alts.map(function (a) { return isArr(a.required) ? a.required : []; });
    var names = alts.map(function (a, i) {
      if (a.title) return Str(a.title);
      if (F.one(a)) return show(F.one(a)[0]);
      var p = isObj(a.properties) ? a.properties : {};
      for (var k in p) { var one = isObj(p[k]) && F.one(S.norm(p[k], root)); if (one) return show(one[0]); }
      var mine = req[i].filter(function (k) { return !req.some(function (r, j) { return j !== i && r.indexOf(k) >= 0; }); });
      if (mine.length) return 'With ' + mine.slice(0, 3).map(S.words).join(', ');
      if (typeof a.type === 'string' && alts.filter(function (b) { return b.type === a.type; }).length === 1) return a.type;
      return 'Option ' + (i + 1);
    });
    return names.map(function (n, i) { return names.indexOf(n) !== i || names.lastIndexOf(n) !== i ? n + ' (' + (i + 1) + ')' : n; });
  };

  var variants = (s, alts, c, o) => {
    var base = Object.assign({}, s);
    ['oneOf', 'anyOf', 'title', 'description', 'default'].forEach(function (k) { delete base[k]; });
    delete base.__refs;
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
    var names = altNames(merged, c.root);
    merged.forEach(function (a, i) { sel.append(h('option', { value: Str(i), text: names[i] })); });
    if (!o.required) { sel.insertBefore(h('option', { value: '', text: '(not set)' }), sel.firstChild); sel.value = ''; }
    // Nullable: a null choice (a required one starts there: it is what it would send).
    if (s.__null) { sel.append(h('option', { value: 'null', text: 'null' })); if (o.required) sel.value = 'null'; }
    var holder = h('div.alt');
    fs.append(h('div.fld', h('label', { for: sid, text: (o.label || 'Value') + ' — kind' }), sel), holder, fs.__tail);
    // What each variant last held: switching back restores it, and switching to another variant
    // carries over the fields the two share.
    var cur = null, at = null, kept = {};
    var carry = (j) => {
      if (kept[j] !== undefined) return kept[j];
      var prev = at == null ? undefined : kept[at], t = merged[j];
      if (!isObj(prev) || !isObj(t.properties)) return S.typeOf && prev !== undefined && !isObj(prev) && (!t.type || t.type === S.typeOf(prev)) ? prev : undefined;
      var out = {}, any = false;
      for (var k in prev) if (S.own(t.properties, k) && !(isObj(t.properties[k]) && 'const' in t.properties[k])) { out[k] = prev[k]; any = true; }
      return any ? out : undefined;
    };
    var save = () => { if (cur && at != null) { var was = cur.read([]); if (was !== undefined) kept[at] = was; } };
    var choose = (i, v) => {
      holder.textContent = '';
      cur = null;
      at = i === '' || i === 'null' || i == null ? null : Number(i);
      if (at == null) return;
      // An object variant's fields sit right under the selector, without a second heading.
      var alt = merged[at], isObject = alt.type === 'object' || (!alt.type && isObj(alt.properties));
      cur = field(alt, c, { label: isObject ? '' : o.label || 'Value', name: o.name, required: true, noDefault: v !== undefined, eager: true });
      if (v !== undefined) cur.write(v);
      holder.append(cur.el);
    };
    sel.addEventListener('change', function () { save(); choose(sel.value, sel.value === '' || sel.value === 'null' ? undefined : carry(Number(sel.value))); });
    choose(sel.value);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (sel.value === 'null') return null;
        if (!cur) return o.required ? F.need(fs, errs, 'Choose a kind.') : undefined;
        return cur.read(errs);
      },
      write: function (v) {
        if (v === undefined) return;
        if (v === null && s.__null) { save(); sel.value = 'null'; choose('null'); return; }
        var i = merged.findIndex(function (a) { return !S.validate(a, v, c.root).length; });
        if (i < 0) i = merged.findIndex(function (a) { return !a.type || S.typeOf(v) === a.type || (a.type === 'number' && typeof v === 'number'); });
        // A value no variant takes stays in the first one that has its type, else the first one,
        // whose own checks then show what is wrong.
        if (i < 0) i = 0;
        sel.value = Str(i);
        choose(Str(i), v);
      }
    };
  };

  // Cycles ($ref back into an ancestor) expand one level per click, so the form stays finite.
  var lazy = (s0, s, ctx, o) => {
    var fs = group(o, s, 'lazy'), inner = null, nul = false;
    var btn = h('button.btn.sm', '+ Add ' + (o.label || 'value'));
    var rm = h('button.btn.sm.ghost', { text: 'Remove', hidden: true });
    var holder = h('div');
    var open = (v) => {
      nul = false;
      inner = field(s0, { root: ctx.root, stack: [], depth: 0 }, { label: o.label, name: o.name, required: true, eager: true, noDefault: v !== undefined });
      if (v !== undefined) inner.write(v);
      holder.append(inner.el);
      btn.hidden = true;
      rm.hidden = false;
    };
    btn.addEventListener('click', function () { open(); });
    rm.addEventListener('click', function () { holder.textContent = ''; inner = null; btn.hidden = false; rm.hidden = true; });
    fs.append(holder, btn, rm, fs.__tail);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (inner) return inner.read(errs);
        if (nul) return null;
        if (o.required) F.need(fs, errs);
        return undefined;
      },
      write: function (v) {
        if (v === undefined) return;
        holder.textContent = ''; inner = null; nul = v === null && !!s.__null;
        if (v !== null) open(v); else { btn.hidden = false; rm.hidden = true; }
      }
    };
  };

  // A tuple (prefixItems, or draft-07 items: [...]): a fixed row per position with its own
  // control, then rows per items (additionalItems in draft-07) unless those are false. Optional
  // positions are left empty only at the end; the whole list stays absent until something is set.
  var tuple = (s, c, o) => {
    var pre = (isArr(s.prefixItems) ? s.prefixItems : s.items).slice(0, 50);
    var rest = isArr(s.prefixItems) ? s.items : s.additionalItems, min = s.minItems || 0;
    var fs = group(o, s, 'arr tup'), wrong;
    var fixed = pre.map(function (p, i) {
      var f = field(p, c, { label: S.norm(p, c.root).title || (o.label || 'Item') + ' ' + (i + 1), name: o.name, required: i < min });
      fs.append(f.el);
      return f;
    });
    var more = rest === false ? null : array({ items: isObj(rest) ? rest : {}, maxItems: s.maxItems != null ? Math.max(0, s.maxItems - pre.length) : undefined }, c, { label: 'More items', name: o.name });
    if (more) fs.append(more.el);
    fs.append(fs.__tail);
    fs.addEventListener('input', function () { wrong = undefined; });
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (wrong !== undefined) return wrongType(fs, errs, wrong, 'a list');
        var out = [], gap = -1, m = [];
        fixed.forEach(function (f, i) {
          var v = f.read(errs);
          if (v === undefined) { if (gap < 0) gap = i; return; }
          if (gap >= 0) m.push('Fill in item ' + (gap + 1) + ' before item ' + (i + 1) + '.');
          out.push(v);
        });
        var extra = more ? more.read(errs) || [] : [];
        if (extra.length && gap >= 0) m.push('Fill in item ' + (gap + 1) + ' before more items.');
        out = out.concat(extra);
        if (!out.length && !o.required) return undefined;
        if (out.length < min) m.push('Add at least ' + min + ' item(s).');
        fail(fs, errs, m);
        return out;
      },
      write: function (v) {
        if (v === undefined) return;
        if (!isArr(v)) { wrong = v; return; }
        fixed.forEach(function (f, i) { if (i < v.length) f.write(v[i]); });
        if (more && v.length > pre.length) more.write(v.slice(pre.length));
      }
    };
  };

  G._on('controls', () => ({ array, variants, mapRows, lazy }));
})();
