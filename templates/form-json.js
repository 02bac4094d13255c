// The form's JSON editor, for fields no control can express: JSON with live validation against
// the field's schema (schema-check.js), and the field budget past which a whole form is one
// editor. Embedded only for input schemas with such fields, or too many fields to count; it gives
// form.js the 'json' and 'overBudget' controls.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, F = G.form, fail = F.fail, norm = S.norm, isObj = S.isObj;
  var toJson = JSON.stringify;

  // A field we cannot express as controls: JSON with live validation against its schema.
  var jsonField = (s, c, o) => {
    var ta = G.h('textarea.mono', { rows: 3, spellcheck: 'false', placeholder: F.placeholder(s) || 'JSON value' });
    var box = F.leaf({ label: o.label || 'Value', required: o.required, desc: (o.desc || s.description || '') + (s.description ? ' ' : '') + '(JSON)' }, ta, F.nid(), s);
    var parse = (errs) => {
      var v, t = ta.value;
      F.setErr(box);
      if (!t.trim()) return o.required ? fail(box, errs, ['This field is required (JSON).']) : undefined;
      try { v = JSON.parse(t); } catch (e) { return fail(box, errs, ['Not valid JSON: ' + e.message]); }
      var m = S.validate(s, v, c.root).map((x) => x.path === '(root)' ? x.message : x.path + ': ' + x.message);
      return m.length ? fail(box, errs, m.slice(0, 3)) : v;
    };
    ta.addEventListener('input', () => parse([]));
    return { el: box, read: parse, write(v) { ta.value = v === undefined ? '' : toJson(v, null, 2); } };
  };

  // How many fields a schema expands to, counted up to just past "cap": shared $refs (a DAG, not a
  // cycle) can make a small schema an exponentially large form. The generator counts the same
  // budget (FORM_FIELD_BUDGET in src/generate/builtin/schema_needs.rs) to leave this file out of
  // pages whose form stays within it.
  var BUDGET = 600;
  var size = (s0, root, stack, n, cap) => {
    if (n.v > cap) return;
    n.v++;
    var s = norm(s0, root);
    if (s.__refs.some((r) => stack.includes(r))) return;
    var st = stack.concat(s.__refs), kids = [];
    if (isObj(s.properties)) kids = Object.values(s.properties);
    if (isObj(s.items)) kids.push(s.items);
    if (isObj(s.additionalProperties)) kids.push(s.additionalProperties);
    kids = kids.concat(s.oneOf || s.anyOf || []);
    for (var i = 0; i < kids.length && n.v <= cap; i++) size(kids[i], root, st, n, cap);
  };

  // The budget when the input schema expands past it, else 0 (build the form).
  var overBudget = (root) => {
    var n = { v: 0 };
    size(root, root, [], n, BUDGET);
    return n.v > BUDGET ? BUDGET : 0;
  };
  G._on('controls', () => ({ json: jsonField, overBudget }));
})();
