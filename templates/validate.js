// The full JSON Schema validator, and the form's JSON editor that relies on it: checks
// structuredContent against a tool's outputSchema and values typed into the editor. Embedded only
// for tools that can need it (an outputSchema, or an input schema with fields the form cannot
// express as controls); loaded after form.js.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, own = S.own, isObj = S.isObj, same = S.same, norm = S.norm, scalarErrors = S.scalarErrors;

  function typeOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
    return typeof v;
  }
  function typeOk(t, v) {
    var a = typeOf(v);
    return t === a || (t === 'number' && a === 'integer');
  }

  function show(v) { var s = JSON.stringify(v); return s && s.length > 40 ? s.slice(0, 40) + '…' : s; }

  // Full (recursive) validation: a list of {path, message}.
  function validate(s0, v, root, path, out, depth) {
    out = out || [];
    path = path || '';
    depth = depth || 0;
    root = root || s0;
    if (depth > 64) return out;
    var s = norm(s0, root);
    var err = function (m) { out.push({ path: path || '(root)', message: m }); };
    if (s.__null && v === null) return out;
    if (s.not && isObj(s.not) && !Object.keys(s.not).length) { err('No value is allowed here.'); return out; }
    if (s.type) {
      var ts = Array.isArray(s.type) ? s.type : [s.type];
      if (!ts.some(function (t) { return typeOk(t, v); })) { err('Expected ' + ts.join(' or ') + ', got ' + typeOf(v) + '.'); return out; }
    }
    if (own(s, 'const') && !same(s.const, v)) err('Must be ' + show(s.const) + '.');
    if (Array.isArray(s.enum) && !s.enum.some(function (x) { return same(x, v); })) err('Must be one of ' + s.enum.map(show).join(', ') + '.');
    scalarErrors(s, v).forEach(err);
    var alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      var ok = alts.some(function (a) { return !validate(a, v, root, path, [], depth + 1).length; });
      if (!ok) err('Does not match any of the allowed variants.');
    }
    if (Array.isArray(v)) {
      if (s.minItems != null && v.length < s.minItems) err('Add at least ' + s.minItems + ' item(s).');
      if (s.maxItems != null && v.length > s.maxItems) err('Use at most ' + s.maxItems + ' item(s).');
      if (s.uniqueItems) {
        var seen = v.map(function (x) { return JSON.stringify(x); });
        if (seen.some(function (x, i) { return seen.indexOf(x) !== i; })) err('Items must be unique.');
      }
      if (isObj(s.items) || s.items === false) v.forEach(function (x, i) { validate(s.items, x, root, path + '[' + i + ']', out, depth + 1); });
    } else if (isObj(v)) {
      var props = isObj(s.properties) ? s.properties : {};
      (Array.isArray(s.required) ? s.required : []).forEach(function (k) { if (!own(v, k)) err('Missing required field ' + k + '.'); });
      for (var k in v) {
        var sub = path ? path + '.' + k : k;
        if (own(props, k)) validate(props[k], v[k], root, sub, out, depth + 1);
        else if (s.additionalProperties === false) out.push({ path: sub, message: 'Unexpected field.' });
        else if (isObj(s.additionalProperties)) validate(s.additionalProperties, v[k], root, sub, out, depth + 1);
      }
    }
    return out;
  }

  // A field we cannot express as controls: JSON with live validation against its schema.
  function jsonField(s, c, o) {
    var F = G.form, h = G.h, setErr = F.setErr, fail = F.fail;
    var ta = h('textarea.mono', { rows: 3, spellcheck: 'false' });
    var ph = F.placeholder(s);
    ta.placeholder = ph || 'JSON value';
    var box = F.leaf({ label: o.label || 'Value', required: o.required, desc: (o.desc || s.description || '') + (s.description ? ' ' : '') + '(JSON)' }, ta, F.nid(), s);
    function parse(errs) {
      setErr(box, []);
      if (!ta.value.trim()) {
        if (o.required) fail(box, errs, ['This field is required (JSON).']);
        return undefined;
      }
      var v;
      try { v = JSON.parse(ta.value); } catch (e) { fail(box, errs, ['Not valid JSON: ' + e.message]); return undefined; }
      var m = validate(s, v, c.root).map(function (x) { return x.path === '(root)' ? x.message : x.path + ': ' + x.message; });
      if (m.length) { fail(box, errs, m.slice(0, 3)); return undefined; }
      return v;
    }
    ta.addEventListener('input', function () { parse([]); });
    return { el: box, read: parse, write: function (v) { ta.value = v === undefined ? '' : JSON.stringify(v, null, 2); } };
  }

  // How many fields a schema expands to, counted up to just past "cap": shared $refs (a DAG, not a
  // cycle) can make a small schema an exponentially large form. src/generate/builtin.rs counts the
  // same budget (FORM_FIELD_BUDGET) to leave this file out of pages whose form stays within it.
  var BUDGET = 600;
  function size(s0, root, stack, n, cap) {
    if (n.v > cap) return;
    n.v++;
    var s = norm(s0, root);
    if (s.__refs.some(function (r) { return stack.indexOf(r) >= 0; })) return;
    var st = stack.concat(s.__refs), kids = [];
    if (isObj(s.properties)) for (var k in s.properties) kids.push(s.properties[k]);
    if (isObj(s.items)) kids.push(s.items);
    if (isObj(s.additionalProperties)) kids.push(s.additionalProperties);
    (s.oneOf || s.anyOf || []).forEach(function (a) { kids.push(a); });
    for (var i = 0; i < kids.length && n.v <= cap; i++) size(kids[i], root, st, n, cap);
  }

  if (G.form) {
    G.form.jsonField = jsonField;
    // The budget when the input schema expands past it, else 0 (build the form).
    G.form.overBudget = function (root) {
      var n = { v: 0 };
      size(root, root, [], n, BUDGET);
      return n.v > BUDGET ? BUDGET : 0;
    };
  }
  S.validate = validate;
  S.typeOf = typeOf;
  G.validate = function (schema, value) { return validate(schema, value, schema); };
})();
