// Choices of the form: enums and oneOf lists of consts (selects), constants and yes/no fields.
// Embedded only for input schemas with enum, const, boolean, null or oneOf/anyOf; without it
// those fields fall back to the JSON editor.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, F = G.form, leaf = F.leaf, nid = F.nid;
  var option = (value, text) => h('option', { value, text });
  // A select of vals, as a short field: "(not set)" or "— choose —" first, then an option per
  // value (its value attribute from keys, its text from titles), then, for a nullable field whose
  // values lack null, the option that sets it to null; a required one starts there (what it sends).
  // A value written into it picks the option of the value it matches.
  var select = (s, o, vals, keys, titles, match) => {
    var sel = h('select', option('', o.required ? '— choose —' : '(not set)'), keys.map((k, i) => option(k, titles[i])));
    var box = leaf({ short: true, ...o }, sel, nid(), s);
    if (s.__null && !vals.includes(null)) {
      sel.append(option('null', 'null'));
      if (o.required) sel.value = 'null';
    }
    return {
      el: box,
      exact: true,
      read(errs) {
        F.setErr(box);
        var v = sel.value;
        if (v === 'null') return null;
        if (v !== '') return vals[keys.indexOf(v)];
        if (o.required) F.need(box, errs, 'Choose a value.');
      },
      write(v) {
        var i = vals.findIndex((x) => match(x, v));
        sel.value = i >= 0 ? keys[i] : v === null && s.__null ? 'null' : '';
      }
    };
  };

  var constant = (s, o) => {
    var id = nid();
    return { el: h('div.fld', h('span.lab', { id }, o.label), h('output.const', { 'aria-labelledby': id }, JSON.stringify(s.const))), exact: true, read: () => s.const, write() {} };
  };

  var bool = (s, o) => {
    // A checkbox only where unchecked means false: a required boolean, or one whose default is a
    // boolean. Otherwise a select, so "not set" (and, when nullable, null) stays distinguishable
    // from false: a null default is not an unchecked box.
    if (!s.__null && (o.required || typeof s.default === 'boolean')) {
      var cb = h('input', { type: 'checkbox' });
      return { el: leaf({ short: true, ...o }, cb, nid(), s), exact: true, read: () => cb.checked, write(v) { cb.checked = v === true; } };
    }
    return select(s, o, [true, false], ['true', 'false'], ['Yes', 'No'], (x, v) => x === v);
  };

  var choice = (s, o, vals, title) => select(s, o, vals, vals.map((v, i) => String(i)), vals.map((v, i) => title(v, i)), G.schema.same);
  G._on('controls', () => ({ constant, bool, choice }));
})();
