// Form features that only some schemas need: arrays (rows with add/remove/reorder, enum
// multi-select) and lazily expanded $ref cycles. Tuples are form-tuple.js's, maps form-map.js's,
// oneOf/anyOf variants form-variants.js's: each part is embedded only for schemas that use it.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, F = G.form;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, toJson = JSON.stringify;
  var field = F.field, group = F.group, setErr = F.setErr, fail = F.fail, nid = F.nid;
  // The null control of a nullable array (see form.js), in the fieldset's actions.
  var nulled = (s, fs, before, clear) => {
    if (!s.__null) return null;
    var nb = F.nullBox((on) => { if (on) clear(); });
    fs.insertBefore(nb.el, before);
    return nb;
  };
  // An element's key in the value (data-key), for the validator's messages (schema-check.js); null: none.
  var keyed = (el, k) => { if (k == null) delete el.dataset.key; else el.dataset.key = k; };
  var wrongType = (fs, errs, v, t) => fail(fs, errs, ['Expected ' + t + ', got ' + toJson(v).slice(0, 40) + '.']);

  var array = (s, c, o) => {
    var items = s.items;
    // A tuple: form-tuple.js's, embedded for schemas with one (else the JSON editor).
    if (isArr(items) || isArr(s.prefixItems)) return (F.control('tuple') || F.json)(s, c, o);
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
        // Each row's element keyed by its index in what is sent (o.from: a tuple's fixed rows before).
        rows.forEach(function (r) { var v = r.f.read(errs); keyed(r.f.el, v === undefined ? null : (o.from || 0) + out.length); if (v !== undefined) out.push(v); });
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

  G._on('controls', () => ({ array, lazy }));
})();
