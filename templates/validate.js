// The full JSON Schema validator, and the form's JSON editor that relies on it: checks
// structuredContent against a tool's outputSchema and values typed into the editor. Embedded only
// for tools that can need it (an outputSchema, or an input schema with fields the form cannot
// express as controls); loaded after form.js.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, own = S.own, isObj = S.isObj, same = S.same, norm = S.norm, scalarErrors = S.scalarErrors;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, toJson = JSON.stringify;

  var typeOf = (v) => v === null ? 'null' : isArr(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
  var show = (v) => { var s = toJson(v); return s?.length > 40 ? s.slice(0, 40) + '…' : s; };

  // Full (recursive) validation: a list of {path, message}.
  var validate = (s0, v, root = s0, path = '', out = [], depth = 0) => {
    if (depth > 64) return out;
    var s = norm(s0, root);
    var err = (message) => out.push({ path: path || '(root)', message });
    var deeper = (s1, v1, p) => validate(s1, v1, root, p, out, depth + 1);
    if (s.__null && v === null) return out;
    if (isObj(s.not) && !Object.keys(s.not).length) { err('No value is allowed here.'); return out; }
    if (s.type) {
      var ts = [].concat(s.type), a = typeOf(v);
      if (!ts.some((t) => t === a || (t === 'number' && a === 'integer'))) { err('Expected ' + ts.join(' or ') + ', got ' + a + '.'); return out; }
    }
    if (own(s, 'const') && !same(s.const, v)) err('Must be ' + show(s.const) + '.');
    if (isArr(s.enum) && !s.enum.some((x) => same(x, v))) err('Must be one of ' + s.enum.map(show).join(', ') + '.');
    scalarErrors(s, v).forEach(err);
    var alts = s.oneOf || s.anyOf;
    if (isArr(alts) && alts.length && !alts.some((x) => !validate(x, v, root, path, [], depth + 1).length)) err('Does not match any of the allowed variants.');
    if (isArr(v)) {
      if (s.minItems != null && v.length < s.minItems) err('Add at least ' + s.minItems + ' item(s).');
      if (s.maxItems != null && v.length > s.maxItems) err('Use at most ' + s.maxItems + ' item(s).');
      var seen = s.uniqueItems ? v.map((x) => toJson(x)) : [];
      if (seen.some((x, i) => seen.indexOf(x) !== i)) err('Items must be unique.');
      if (isObj(s.items) || s.items === false) v.forEach((x, i) => deeper(s.items, x, path + '[' + i + ']'));
    } else if (isObj(v)) {
      var props = isObj(s.properties) ? s.properties : {}, ap = s.additionalProperties;
      (isArr(s.required) ? s.required : []).forEach((k) => { if (!own(v, k)) err('Missing required field ' + k + '.'); });
      for (var k in v) {
        var sub = path ? path + '.' + k : k;
        if (own(props, k)) deeper(props[k], v[k], sub);
        else if (ap === false) out.push({ path: sub, message: 'Unexpected field.' });
        else if (isObj(ap)) deeper(ap, v[k], sub);
      }
    }
    return out;
  };

  // A field we cannot express as controls: JSON with live validation against its schema.
  var jsonField = (s, c, o) => {
    var F = G.form, fail = F.fail, ta = G.h('textarea.mono', { rows: 3, spellcheck: 'false', placeholder: F.placeholder(s) || 'JSON value' });
    var box = F.leaf({ label: o.label || 'Value', required: o.required, desc: (o.desc || s.description || '') + (s.description ? ' ' : '') + '(JSON)' }, ta, F.nid(), s);
    var parse = (errs) => {
      var v, t = ta.value;
      F.setErr(box);
      if (!t.trim()) return o.required ? fail(box, errs, ['This field is required (JSON).']) : undefined;
      try { v = JSON.parse(t); } catch (e) { return fail(box, errs, ['Not valid JSON: ' + e.message]); }
      var m = validate(s, v, c.root).map((x) => x.path === '(root)' ? x.message : x.path + ': ' + x.message);
      return m.length ? fail(box, errs, m.slice(0, 3)) : v;
    };
    ta.addEventListener('input', () => parse([]));
    return { el: box, read: parse, write(v) { ta.value = v === undefined ? '' : toJson(v, null, 2); } };
  };

  // How many fields a schema expands to, counted up to just past "cap": shared $refs (a DAG, not a
  // cycle) can make a small schema an exponentially large form. src/generate/builtin.rs counts the
  // same budget (FORM_FIELD_BUDGET) to leave this file out of pages whose form stays within it.
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

  if (G.form) {
    G.form.jsonField = jsonField;
    // The budget when the input schema expands past it, else 0 (build the form).
    G.form.overBudget = (root) => {
      var n = { v: 0 };
      size(root, root, [], n, BUDGET);
      return n.v > BUDGET ? BUDGET : 0;
    };
  }
  S.validate = validate;
  S.typeOf = typeOf;
  G.validate = (schema, value) => validate(schema, value, schema);
})();
