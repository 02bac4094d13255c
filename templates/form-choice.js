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

  F.constant = (s, o) => {
    var id = nid(), out = h('output.const', { 'aria-labelledby': id }, JSON.stringify(s.const));
    return { el: h('div.fld', h('span.lab', { id }, o.label), out), read: () => s.const, write() {} };
  };

  F.bool = (s, o) => {
    // Optional with no default: tri-state, so "not set" stays distinguishable from false.
    if (!o.required && s.default === undefined) {
      var [sel, el] = select(s, o, '(not set)', [option('true', 'Yes'), option('false', 'No')]);
      return {
        el,
        read: () => sel.value === '' ? (s.__null && o.required ? null : undefined) : sel.value === 'true',
        write(v) { sel.value = v === true ? 'true' : v === false ? 'false' : ''; }
      };
    }
    var cb = h('input', { type: 'checkbox' });
    return { el: leaf({ short: true, ...o }, cb, nid(), s), read: () => cb.checked, write(v) { cb.checked = v === true; } };
  };

  F.choice = (s, o, vals, title) => {
    var [sel, box] = select(s, o, o.required ? '— choose —' : '(not set)', vals.map((v, i) => option(String(i), title(v, i))));
    return {
      el: box,
      read(errs) {
        F.setErr(box);
        if (sel.value !== '') return vals[Number(sel.value)];
        if (!o.required) return undefined;
        if (s.__null) return null;
        F.fail(box, errs, ['Choose a value.']);
      },
      write(v) {
        var i = vals.findIndex((x) => G.schema.same(x, v));
        sel.value = i < 0 ? '' : String(i);
      }
    };
  };
})();
