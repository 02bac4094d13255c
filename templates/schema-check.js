// The full JSON Schema validator: checks structuredContent against a tool's outputSchema, and the
// values typed into the form's JSON editor (form-json.js). Embedded only for tools that can need
// it (an outputSchema, or the JSON editor); the per-value checks it runs on every value are
// checks.js's.
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

  S.validate = validate;
  S.typeOf = typeOf;
  G.validate = (schema, value) => validate(schema, value, schema);
})();
