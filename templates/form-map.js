// Maps in the form: key/value rows for additionalProperties and patternProperties (the value's
// control from the schema its key matches; keys checked against the patterns and propertyNames),
// and values of any type typed as text. Embedded for input schemas with maps (the 'mapRows'
// control form.js's objects ask for).
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, F = G.form;
  var toJson = JSON.stringify, field = F.field, setErr = F.setErr, fail = F.fail, nid = F.nid;
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
          // The value keyed by its key, for the validator's messages (schema-check.js).
          if (k) r.f.el.dataset.key = k; else delete r.f.el.dataset.key;
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

  G._on('controls', () => ({ mapRows }));
})();
