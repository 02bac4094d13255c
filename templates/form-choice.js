// Choices of the form: enums and oneOf lists of consts (selects), constants and yes/no fields.
// Embedded only for input schemas with enum, const, boolean, null or oneOf/anyOf; without it
// those fields fall back to the JSON editor.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, F = G.form, leaf = F.leaf, nid = F.nid;
  var option = (value, text) => h('option', { value, text });
  // A select, with "(not set)" or "— choose —" first, as a short field.
  var select = (s, o, first, options) => {
    var sel = h('select', option('', first), options);
    return [sel, leaf({ short: true, ...o }, sel, nid(), s)];
  };
  // The option that sets a nullable field to null; a required one starts there (what it sends).
  var nullOption = (s, o, sel) => {
    if (!s.__null) return;
    sel.append(option('null', 'null'));
    if (o.required) sel.value = 'null';
  };

  var constant = (s, o) => {
    var id = nid(), out = h('output.const', { 'aria-labelledby': id }, JSON.stringify(s.const));
    return { el: h('div.fld', h('span.lab', { id }, o.label), out), exact: true, read: () => s.const, write() {} };
  };

  var bool = (s, o) => {
    // A checkbox only where unchecked means false: a required boolean, or one whose default is a
    // boolean. Otherwise a select, so "not set" (and, when nullable, null) stays distinguishable
    // from false: a null default is not an unchecked box.
    if (!s.__null && (o.required || typeof s.default === 'boolean')) {
      var cb = h('input', { type: 'checkbox' });
      return { el: leaf({ short: true, ...o }, cb, nid(), s), exact: true, read: () => cb.checked, write(v) { cb.checked = v === true; } };
    }
    var [sel, el] = select(s, o, o.required ? '— choose —' : '(not set)', [option('true', 'Yes'), option('false', 'No')]);
    nullOption(s, o, sel);
    return {
      el,
      exact: true,
      read(errs) {
        F.setErr(el);
        var v = sel.value;
        if (v === '') return o.required ? F.need(el, errs, 'Choose a value.') : undefined;
        return v === 'null' ? null : v === 'true';
      },
      write(v) { sel.value = v === true ? 'true' : v === false ? 'false' : v === null && s.__null ? 'null' : ''; }
    };
  };

  var choice = (s, o, vals, title) => {
    var [sel, box] = select(s, o, o.required ? '— choose —' : '(not set)', vals.map((v, i) => option(String(i), title(v, i))));
    if (!vals.includes(null)) nullOption(s, o, sel);
    return {
      el: box,
      exact: true,
      read(errs) {
        F.setErr(box);
        if (sel.value === 'null') return null;
        if (sel.value !== '') return vals[Number(sel.value)];
        if (!o.required) return undefined;
        F.need(box, errs, 'Choose a value.');
      },
      write(v) {
        var i = vals.findIndex((x) => G.schema.same(x, v));
        sel.value = i >= 0 ? String(i) : v === null && s.__null ? 'null' : '';
      }
    };
  };
  G._on('controls', () => ({ constant, bool, choice }));
})();
