// Choices of the form: enums and oneOf lists of consts (selects), constants and yes/no fields.
// Embedded only for input schemas with enum, const, boolean, null or oneOf/anyOf; without it
// those fields fall back to the JSON editor.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, F = G.form;
  var leaf = F.leaf, nid = F.nid, setErr = F.setErr, fail = F.fail;

  F.constant = function (s, o) {
    var id = nid();
    var out = h('output.const', JSON.stringify(s.const));
    var box = h('div.fld', h('span.lab', { id: id }, o.label), out);
    out.setAttribute('aria-labelledby', id);
    return { el: box, read: function () { return s.const; }, write: function () {} };
  };

  F.bool = function (s, o) {
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
  };

  F.choice = function (s, o, vals, title) {
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
  };
})();
