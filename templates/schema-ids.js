// The index behind schema.js's $ref resolution (book: reference/pages.md, "Which $ref a page
// follows"), offered as the 'refs' point: embedded where a tool's schemas have an $id, an anchor, a
// $dynamicRef or a $ref that does not start with "#", and with the validator (schema-check.js),
// which reads its base URIs and dynamic anchors.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, own = S.own, isObj = S.isObj, isArr = Array.isArray, BASE = S._base;
  // An index of the root's resources built once per root: each
  // $id (resolved against its parent's base URI), $anchor and $dynamicAnchor (draft-07's "#name"
  // $id too) as an absolute URI, and the base URI of every schema object. A $ref is resolved
  // against the base of the schema it sits in, then looked up (an $id, an anchor), or its JSON
  // pointer (~0, ~1 and %-escapes) followed from the resource it names. Refs outside the
  // document resolve to nothing.
  var SUB1 = /^(additionalProperties|additionalItems|items|contains|propertyNames|if|then|else|not|unevaluatedProperties|unevaluatedItems|contentSchema)$/;
  var SUBN = /^(allOf|anyOf|oneOf|prefixItems|items)$/, SUBM = /^(properties|patternProperties|\$defs|definitions|dependentSchemas|dependencies)$/;
  var url = (r, b) => { try { return new URL(r, b).href; } catch (e) { return null; } };
  var indexes = new WeakMap();
  var index = (root) => {
    var x = isObj(root) && indexes.get(root);
    if (x) return x;
    x = { ids: { [BASE]: root }, dyn: {}, base: new WeakMap(), d7: /draft-0\d\//.test(root?.$schema) };
    var walk = (s, b, depth) => {
      if (!isObj(s) || depth > 256 || x.base.has(s)) return;
      var id = s.$id;
      if (typeof id === 'string' && !(x.d7 && s.$ref != null)) {
        var u = url(id, b);
        if (u && id[0] === '#') x.ids[u] = s;
        else if (u) x.ids[b = u.replace(/#$/, '')] = s;
      }
      if (typeof s.$anchor === 'string') x.ids[b + '#' + s.$anchor] = s;
      if (typeof s.$dynamicAnchor === 'string') x.ids[b + '#' + s.$dynamicAnchor] = x.dyn[b + '#' + s.$dynamicAnchor] = s;
      x.base.set(s, b);
      for (var k in s) {
        var v = s[k];
        if (SUB1.test(k)) walk(v, b, depth + 1);
        if (SUBN.test(k) && isArr(v)) v.forEach((y) => walk(y, b, depth + 1));
        if (SUBM.test(k) && isObj(v)) for (var j in v) walk(v[j], b, depth + 1);
      }
    };
    walk(root, BASE, 0);
    x.resolve = (ref, from) => resolve(x, ref, from);
    if (isObj(root)) indexes.set(root, x);
    return x;
  };
  // The target of ref written in schema "from" of the index's root: {s, b} (the schema and its base
  // URI), or null when it is not in the document.
  var resolve = (x, ref, from) => {
    var u = typeof ref === 'string' && url(ref, (isObj(from) && x.base.get(from)) || BASE);
    if (!u) return null;
    var at = (t, b) => ({ s: t, b: (isObj(t) && x.base.get(t)) || b });
    if (own(x.ids, u)) return at(x.ids[u], u.replace(/#.*/, ''));
    var hash = u.indexOf('#'), doc = hash < 0 ? u : u.slice(0, hash), frag = u.slice(doc.length + 1);
    var cur = own(x.ids, doc) && !(frag && frag[0] !== '/') ? S._follow(x.ids[doc], frag) : undefined;
    return cur === undefined ? null : at(cur, doc);
  };
  G._on('refs', index);
})();
