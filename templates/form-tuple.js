// Tuples in the form (prefixItems, or draft-07 items: [...]): the 'tuple' control form-extra.js's
// arrays ask for, with form-extra.js's rows for the items after the fixed ones. Embedded for input
// schemas with a tuple.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, isObj = S.isObj, F = G.form;
  var isArr = Array.isArray, toJson = JSON.stringify;
  var field = F.field, group = F.group, setErr = F.setErr, fail = F.fail;
  // A fixed row per position with its own control, then rows per items (additionalItems in
  // draft-07) unless those are false. Optional positions are left empty only at the end; the whole
  // list stays absent until something is set.
  var tuple = (s, c, o) => {
    var pre = (isArr(s.prefixItems) ? s.prefixItems : s.items).slice(0, 50);
    var rest = isArr(s.prefixItems) ? s.items : s.additionalItems, min = s.minItems || 0;
    var fs = group(o, s, 'arr tup'), wrong;
    var fixed = pre.map(function (p, i) {
      var f = field(p, c, { label: S.norm(p, c.root).title || (o.label || 'Item') + ' ' + (i + 1), name: o.name, required: i < min });
      f.el.dataset.key = i;
      fs.append(f.el);
      return f;
    });
    var more = rest === false ? null : F.control('array')({ items: isObj(rest) ? rest : {}, maxItems: s.maxItems != null ? Math.max(0, s.maxItems - pre.length) : undefined }, c, { label: 'More items', name: o.name, from: pre.length });
    if (more) fs.append(more.el);
    fs.append(fs.__tail);
    fs.addEventListener('input', function () { wrong = undefined; });
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (wrong !== undefined) return fail(fs, errs, ['Expected a list, got ' + toJson(wrong).slice(0, 40) + '.']);
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

  G._on('controls', () => ({ tuple }));
})();
