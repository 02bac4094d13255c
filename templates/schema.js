// JSON Schema helpers shared by the form and the result view: local $ref resolution (cycle-safe),
// allOf merging, nullable detection, labels, and numbers and dates for people. The per-value checks
// behind inline messages are checks.js, the full validator schema-check.js, each embedded only for
// tools that need it.
(function () {
  'use strict';
  var G = window.McpGenUi;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var Str = String, isArr = Array.isArray, toJson = JSON.stringify;
  var own = (o, k) => ({}).hasOwnProperty.call(o, k);
  var isObj = (v) => v !== null && typeof v === 'object' && !isArr(v);
  var same = (a, b) => toJson(a) === toJson(b);

  // Which schema a $ref names (book: reference/pages.md, "Which $ref a page follows"), for the
  // form and the validator alike: {s, b} (the schema and its base URI), or null when it is not in
  // the document. The index of $ids, anchors and base URIs is schema-ids.js's (the 'refs' point),
  // embedded where a schema has an $id, an anchor, a $dynamicRef or a $ref that does not start
  // with "#", and with the validator. Without them a $ref is "#" and a JSON pointer from the root.
  var BASE = 'https://mcp-gen-ui.invalid/input.json';
  // A JSON pointer (~0, ~1 and %-escapes) followed from cur: the value there, or undefined.
  var follow = (cur, frag) => {
    for (var p of frag ? frag.split('/').slice(1) : []) {
      try { p = decodeURIComponent(p); } catch (e) { return; }
      p = p.replace(/~1/g, '/').replace(/~0/g, '~');
      if (cur === null || typeof cur !== 'object' || !own(cur, p)) return;
      cur = cur[p];
    }
    return cur;
  };
  var index = (root) => G._run('refs', root)[0];
  var resolve = (root, ref, from) => {
    var x = index(root), frag = typeof ref === 'string' && ref[0] === '#' ? ref.slice(1) : null, t;
    if (x) return x.resolve(ref, from);
    if (frag === null || (frag && frag[0] !== '/') || (t = follow(root, frag)) === undefined) return null;
    return { s: t, b: BASE };
  };
  var pointer = (root, ref, from) => resolve(root, ref, from)?.s ?? null;

  // Merges an allOf part into a schema. Every part's if/then/else is kept in "__ifs" (the form
  // shows the fields of each active branch: form-cond.js), and the dependency maps are joined.
  var DEPS = /^(dependentSchemas|dependentRequired|dependencies|patternProperties)$/;
  var merge = (into, s) => {
    // (Internal names are renamed by the minifier: never compared as strings.)
    into.__refs = [...into.__refs || [], ...s.__refs || []];
    if (s.__ifs) into.__ifs = [...into.__ifs || [], ...s.__ifs];
    for (var k in s) {
      if (k === 'properties') into.properties = { ...into.properties, ...s.properties };
      else if (k === 'required') into.required = (into.required || []).concat(s.required || []);
      else if (DEPS.test(k) && isObj(s[k])) into[k] = { ...s[k], ...into[k] };
      else if (!own(into, k)) into[k] = s[k];
    }
    return into;
  };

  // A schema as an object: true (and a missing one) is {}, false is {not: {}}.
  var asSchema = (x) => x === false ? { not: {} } : isObj(x) ? x : {};
  // Returns a fresh object (the original schema is never mutated) with $ref followed, allOf merged
  // and nullability in "__null"; "__refs" lists the refs crossed, for cycle detection by callers.
  var norm = (s0, root, depth = 0) => {
    var s = asSchema(s0);
    var refs = [], $ref, from = s0;
    for (var g = 0; typeof s.$ref === 'string' && g < 32 && !refs.includes(s.$ref); g++) {
      var t = pointer(root, s.$ref, from);
      refs.push(s.$ref);
      ({ $ref, ...s } = s);
      s = { ...asSchema(t), ...s };
      from = t;
    }
    ({ $ref, ...s } = s);
    s.__refs = [...refs, ...s0?.__refs || []];
    if (own(s, 'if') && !s.__ifs) s.__ifs = [{ if: s.if, then: s.then, else: s.else }];
    if (isArr(s.allOf) && depth < 16) {
      var parts = s.allOf;
      delete s.allOf;
      parts.forEach((p) => merge(s, norm(p, root, depth + 1)));
    }
    if (isArr(s.type)) {
      var nn = s.type.filter((x) => x !== 'null');
      if (nn.length < s.type.length && nn.length) { s.__null = true; s.type = nn.length === 1 ? nn[0] : nn; }
    }
    // "T or null" is a nullable T; a single branch (with its if/then/else, which form-cond.js
    // shows) is merged like allOf.
    var key = isArr(s.anyOf) ? 'anyOf' : isArr(s.oneOf) ? 'oneOf' : null;
    if (key && depth < 16) {
      var alts = s[key].filter((a) => !(isObj(a) && a.type === 'null' && Object.keys(a).length <= 2));
      if (alts.length && alts.length < s[key].length) { s.__null = true; s[key] = alts; }
      // (merge keeps the branch's own "__null".)
      if (alts.length === 1) { delete s[key]; merge(s, norm(alts[0], root, depth + 1)); }
    }
    if (s.nullable === true) s.__null = true;
    return s;
  };

  // Words for a property name with no title: "customer_id" and "customerId" become "Customer ID".
  var ACRO = /^(id|ids|url|uri|api|ip|uuid|json|html|sql|http|https|csv|pdf|sku|vat|iso|utc|gps|os|ui|db)$/i;
  var words = (k) => {
    var w = Str(k).replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.\s]+/g, ' ').trim().split(' ');
    return !w[0] ? Str(k) : w.map((x, i) => ACRO.test(x) ? x.toUpperCase() : i ? x.toLowerCase() : x[0].toUpperCase() + x.slice(1)).join(' ');
  };

  // What f returns, or undefined when it throws (Intl refuses a bad locale or time zone).
  var attempt = (f) => { try { return f(); } catch (e) { /* undefined */ } };
  // The host's locale and time zone (HostContext.locale / timeZone) when Intl accepts them, else
  // the browser's.
  var where = () => {
    var c = G.app?.getHostContext?.() || {}, tz = c.timeZone, loc = c.locale;
    return {
      locale: attempt(() => new Intl.NumberFormat(loc) && loc) || undefined,
      timeZone: attempt(() => new Intl.DateTimeFormat('en', { timeZone: tz }) && tz)
        || attempt(() => Intl.DateTimeFormat().resolvedOptions().timeZone) || 'UTC',
    };
  };
  var fmtNum = (v) => attempt(() => new Intl.NumberFormat(where().locale, { maximumFractionDigits: 20, useGrouping: 'min2' }).format(v)) ?? Str(v);
  var ISO_DT = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:?\d\d)$/;
  // A date or date-time string for people (host locale and time zone), or null when it is not one.
  var fmtDate = (v, short) => {
    if (typeof v !== 'string') return null;
    var w = where(), dateStyle = short ? 'short' : 'medium';
    return attempt(() => {
      if (/^\d{4}-\d\d-\d\d$/.test(v)) return new Intl.DateTimeFormat(w.locale, { timeZone: 'UTC', dateStyle }).format(new Date(v + 'T00:00:00Z'));
      var d = ISO_DT.test(v) && new Date(v);
      return !d || isNaN(d) ? null : new Intl.DateTimeFormat(w.locale, { timeZone: w.timeZone, dateStyle, timeStyle: 'short' }).format(d);
    }) ?? null;
  };

  // scalarErrors: the messages of every 'check' registered (checks.js, for schemas with
  // constraints: the generator embeds it then); none without it.
  G.schema = { words, where, fmtNum, fmtDate, norm, scalarErrors: (s, v) => G._run('check', s, v).flat(), pointer, resolve, index, isObj, same, own, _dateTime: ISO_DT, _follow: follow, _base: BASE };
})();
