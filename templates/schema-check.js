// The full JSON Schema validator (book: reference/pages.md, "What a page checks before a call"):
// a tool's arguments before any call the page makes, structuredContent against an outputSchema,
// and the values typed into the form's JSON editor (form-json.js). Draft 2020-12, and draft-07
// when the root's $schema names it ($ref siblings ignored, array items with additionalItems,
// dependencies, definitions; these forms are accepted in 2020-12 schemas too). $ref and
// $dynamicRef are resolved with schema.js's index ($id, $anchor, JSON pointers), the per-value
// checks (lengths, pattern, format, bounds, multipleOf) are checks.js's. Embedded only for tools
// whose schemas need more than the form's own checks.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, own = S.own, isObj = S.isObj, scalarErrors = S.scalarErrors;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, toJson = JSON.stringify, oKeys = Object.keys;

  var typeOf = (v) => v === null ? 'null' : isArr(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
  var show = (v) => { var s = toJson(v); return s?.length > 40 ? s.slice(0, 40) + '…' : s; };
  var list = (a) => a.map(show).join(', ');
  // Equal as JSON values: 1 and 1.0 alike, keys in any order.
  var eq = (a, b) => {
    if (a === b) return true;
    if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || isArr(a) !== isArr(b)) return false;
    var ka = oKeys(a);
    return ka.length === oKeys(b).length && ka.every((k) => own(b, k) && eq(a[k], b[k]));
  };
  // A pattern as JavaScript compiles it (checks.js), unicode-aware where it can be; null when it
  // cannot.
  var rxs = new Map();
  var rx = (p) => {
    if (!rxs.has(p)) {
      rxs.set(p, S.regex(p));
    }
    return rxs.get(p);
  };
  var where = (at) => at.reduce((p, k) => typeof k === 'number' ? p + '[' + k + ']' : p ? p + '.' + k : k, '') || '(root)';

  // One schema against one value at instance path "at" (an array of keys and indexes). Returns the
  // errors and what it evaluated (P: property names, I: item indexes) for unevaluated*; a
  // subschema's annotations count only when it holds.
  var ev = (s, v, at, b, st) => {
    var r = { e: [], P: new Set(), I: new Set() }, t = typeOf(v), x = st.x, d7 = x.d7;
    var err = (message, a = at) => { r.e.push({ at: a, message }); };
    if (s === false) err('No value is allowed here.');
    if (!isObj(s) || (v === null && (s.__null || s.nullable === true)) || st.depth > 400) return r;
    b = x.base.get(s) || b;
    var inner = st.dyn[st.dyn.length - 1] !== b;
    if (inner) st.dyn.push(b);
    st.depth++;
    var run = (s1, v1, a1) => ev(s1, v1, a1, b, st);
    var take = (q) => { q.P.forEach((k) => r.P.add(k)); q.I.forEach((i) => r.I.add(i)); };
    var sub = (s1, v1 = v, a1 = at) => { var q = run(s1, v1, a1); r.e.push(...q.e); if (!q.e.length && a1 === at) take(q); return q; };
    // A $ref or $dynamicRef target, entered once per instance location (a ref cycle that reads
    // no deeper into the value stops there).
    var follow = (hit) => {
      if (!hit) return;
      var key = where(at), seen = isObj(hit.s) && (st.on.get(hit.s) || st.on.set(hit.s, new Set()).get(hit.s));
      if (seen && seen.has(key)) return;
      if (seen) seen.add(key);
      var q = ev(hit.s, v, at, hit.b, st);
      if (seen) seen.delete(key);
      r.e.push(...q.e);
      if (!q.e.length) take(q);
    };
    if (typeof s.$ref === 'string') follow(S.resolve(st.root, s.$ref, s));
    if (typeof s.$dynamicRef === 'string' && !d7) {
      var hit = S.resolve(st.root, s.$dynamicRef, s), name = s.$dynamicRef.replace(/^[^#]*#?/, '');
      if (hit && isObj(hit.s) && hit.s.$dynamicAnchor === name) {
        var outer = st.dyn.find((d) => own(x.dyn, d + '#' + name));
        if (outer) hit = { s: x.dyn[outer + '#' + name], b: outer };
      }
      follow(hit);
    }
    if (d7 && own(s, '$ref')) return done(r, st, inner);

    var type = s.type;
    if (type != null && ![].concat(type).some((y) => y === t || (y === 'number' && t === 'integer'))) {
      err('Expected ' + [].concat(type).join(' or ') + ', got ' + t + '.');
      return done(r, st, inner);
    }
    if (own(s, 'const') && !eq(s.const, v)) err('Must be ' + show(s.const) + '.');
    if (isArr(s.enum) && !s.enum.some((y) => eq(y, v))) err('Must be one of ' + list(s.enum) + '.');
    scalarErrors(s, v).forEach((m) => err(m));

    if (t === 'array') arrays(s, v, at, r, err, run, d7);
    if (t === 'object') objects(s, v, at, r, err, run);

    if (isArr(s.allOf)) s.allOf.forEach((y) => sub(y));
    [['anyOf', 0], ['oneOf', 1]].forEach(([k, one]) => {
      if (!isArr(s[k])) return;
      var qs = s[k].map((y) => run(y, v, at)), ok = qs.filter((q) => !q.e.length);
      ok.forEach(take);
      if (one && ok.length > 1) err('Matches ' + ok.length + ' of the allowed variants; it must match exactly one.');
      if (!ok.length) {
        // The variant that comes closest (its errors all lie deeper) says what to fix; else one
        // sentence for the value.
        var best = qs.reduce((m, q) => !m || q.e.length < m.e.length ? q : m, null);
        if (best && best.e.every((e) => e.at.length > at.length)) r.e.push(...best.e);
        else err('Does not match any of the allowed variants.');
      }
    });
    if (own(s, 'not') && !run(s.not, v, at).e.length) err(notText(s.not));
    if (own(s, 'if')) {
      var cond = run(s.if, v, at);
      if (!cond.e.length) { take(cond); if (own(s, 'then')) sub(s.then); } else if (own(s, 'else')) sub(s.else);
    }
    if (t === 'object' && own(s, 'dependentSchemas') && isObj(s.dependentSchemas)) for (var k in s.dependentSchemas) if (own(v, k)) sub(s.dependentSchemas[k]);
    if (t === 'object' && isObj(s.dependencies)) for (k in s.dependencies) if (own(v, k) && !isArr(s.dependencies[k])) sub(s.dependencies[k]);

    // Last, what no other keyword here (or in a subschema that holds) evaluated.
    if (t === 'object' && own(s, 'unevaluatedProperties') && !d7) {
      for (k of oKeys(v)) if (!r.P.has(k)) { if (s.unevaluatedProperties === false) err('Unexpected field.', at.concat(k)); else sub(s.unevaluatedProperties, v[k], at.concat(k)); r.P.add(k); }
    }
    if (t === 'array' && own(s, 'unevaluatedItems') && !d7) {
      v.forEach((y, i) => { if (!r.I.has(i)) { if (s.unevaluatedItems === false) err('Remove item ' + (i + 1) + ': no more items are allowed.', at.concat(i)); else sub(s.unevaluatedItems, y, at.concat(i)); r.I.add(i); } });
    }
    return done(r, st, inner);
  };
  var done = (r, st, inner) => { st.depth--; if (inner) st.dyn.pop(); return r; };

  var notText = (n) => isObj(n) && own(n, 'const') ? 'Must not be ' + show(n.const) + '.'
    : isObj(n) && isArr(n.enum) ? 'Must not be one of ' + list(n.enum) + '.'
    : isObj(n) && isArr(n.required) && oKeys(n).every((k) => k === 'required' || k === 'title' || k === 'description') ? 'Do not set ' + n.required.join(' and ') + ' together here.'
    : 'This value is not allowed here.';

  var arrays = (s, v, at, r, err, run, d7) => {
    var n = v.length, tuple = isArr(s.items), pre = tuple ? s.items : !d7 && isArr(s.prefixItems) ? s.prefixItems : [];
    var rest = tuple ? s.additionalItems : s.items;
    if (s.minItems != null && n < s.minItems) err('Add at least ' + s.minItems + ' item(s).');
    if (s.maxItems != null && n > s.maxItems) err('Use at most ' + s.maxItems + ' item(s).');
    if (s.uniqueItems === true) {
      for (var i = 0; i < n; i++) for (var j = i + 1; j < n; j++) if (eq(v[i], v[j])) { err('Items must be unique: items ' + (i + 1) + ' and ' + (j + 1) + ' are the same.'); i = j = n; }
    }
    v.forEach((y, i) => {
      var k = i < pre.length ? pre[i] : rest;
      if (k === undefined) return;
      if (k === false && i >= pre.length) err('Remove item ' + (i + 1) + ': at most ' + pre.length + ' item(s) are allowed.', at.concat(i));
      else r.e.push(...run(k, y, at.concat(i)).e);
      r.I.add(i);
    });
    if (own(s, 'contains')) {
      var hits = v.filter((y, i) => !run(s.contains, y, at.concat(i)).e.length && r.I.add(i)).length;
      var lo = typeof s.minContains === 'number' && !d7 ? s.minContains : 1, hi = !d7 ? s.maxContains : null;
      if (hits < lo) err(lo === 1 ? 'Add an item of the kind this list must contain.' : 'Add at least ' + lo + ' items of the kind this list must contain.');
      if (typeof hi === 'number' && hits > hi) err('Use at most ' + hi + ' items of the kind ' + (hi === 1 ? 'this list may hold once.' : 'this list limits.'));
    }
  };

  var objects = (s, v, at, r, err, run) => {
    var keys = oKeys(v), props = isObj(s.properties) ? s.properties : {}, pp = isObj(s.patternProperties) ? oKeys(s.patternProperties) : [];
    var needs = (list, why) => { if (isArr(list)) list.forEach((k) => { if (typeof k === 'string' && !own(v, k)) err(why, at.concat(k)); }); };
    needs(s.required, 'This field is required.');
    if (s.minProperties != null && keys.length < s.minProperties) err('Fill in at least ' + s.minProperties + ' field(s).');
    if (s.maxProperties != null && keys.length > s.maxProperties) err('Use at most ' + s.maxProperties + ' field(s).');
    keys.forEach((k) => {
      var hit = own(props, k), a = at.concat(k);
      if (hit) r.e.push(...run(props[k], v[k], a).e);
      pp.forEach((p) => { if (rx(p)?.test(k)) { hit = true; r.e.push(...run(s.patternProperties[p], v[k], a).e); } });
      if (!hit && own(s, 'additionalProperties')) {
        if (s.additionalProperties === false) err('Unexpected field.', a);
        else r.e.push(...run(s.additionalProperties, v[k], a).e);
        hit = true;
      }
      if (hit) r.P.add(k);
      if (own(s, 'propertyNames')) {
        var q = run(s.propertyNames, k, at);
        if (q.e.length) err('The name "' + k + '" is not allowed: ' + q.e[0].message, a);
      }
    });
    [s.dependentRequired, s.dependencies].forEach((d) => {
      if (isObj(d)) for (var k in d) if (own(v, k)) needs(d[k], 'Required when ' + k + ' is set.');
    });
  };

  // Every error of value v against schema s, whose $refs resolve in root: [{path, at, message}]
  // (path for people, "(root)" for the value itself; at the keys and indexes).
  var validate = (s, v, root = s) => {
    // Without schema-ids.js (the page's schemas have no $id, anchor or dynamic ref) every schema
    // sits in the one document, at its base URI.
    var x = S.index(root) || { base: new WeakMap(), dyn: {}, d7: /draft-0\d\//.test(root?.$schema) };
    var b = (isObj(s) && x.base.get(s)) || S.resolve(root, '#')?.b;
    var st = { x, root, dyn: [], on: new WeakMap(), depth: 0 };
    return ev(s, v, [], b, st).e.map((e) => ({ path: where(e.at), at: e.at, message: e.message }));
  };

  // The element of a form field named k directly under box (form.js marks each object field's
  // element with its key, data-key; form-extra.js each array row's with its index as sent and each
  // map entry's value with its key).
  var child = (box, k) => {
    for (var d of box.querySelectorAll('[data-key]')) {
      var p = d.parentElement.closest('[data-key]');
      if (d.dataset.key === k && (p === box || !p || !box.contains(p))) return d;
    }
    return null;
  };
  var tops = new WeakMap();
  // Before any call a page makes (book: reference/pages.md, "What a page checks before a call"):
  // the arguments against the tool's whole inputSchema. With the page's form, each message goes to
  // the field its path names (the deepest one the form shows, the rest of the path in the
  // message), else to the top of the form. Returns [{el, box, message}]; none: the call may go.
  G.checkArgs = (schema, args, form) => {
    var found = isObj(schema) || typeof schema === 'boolean' ? validate(schema, args) : [], el = form?.el, top = el && tops.get(form), at = new Map();
    if (!el?.parentNode) return found.map((e) => ({ message: e.path === '(root)' ? e.message : e.path + ': ' + e.message }));
    if (!top) { tops.set(form, top = G.h('p.err', { role: 'alert' })); el.before(top); }
    top.hidden = true;
    found.forEach((e) => {
      var box = el, rest = [];
      e.at.forEach((k) => { var d = !rest.length && child(box, String(k)); if (d) box = d; else rest.push(k); });
      while (box && box !== el && !box.__err) box = box.parentElement;
      var key = box && box !== el ? box : top, m = (rest.length ? where(rest) + ': ' : '') + e.message;
      var was = at.get(key) || [[], []];
      at.set(key, [was[0].concat(m), was[1].concat(e.path === '(root)' ? e.message : e.path + ': ' + e.message)]);
    });
    // Shown without the path the field already names; returned with it (for run_tool's answer).
    return [...at].map(([box, [msgs, full]]) => {
      if (box === top) { top.textContent = msgs.join(' '); top.hidden = false; } else G.form.setErr(box, msgs);
      return { el: box.__ctl || box, box, message: full.join(' ') };
    });
  };

  S.validate = validate;
  S.typeOf = typeOf;
  G.validate = (schema, value) => validate(schema, value, schema);
})();
