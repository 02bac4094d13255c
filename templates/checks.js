// The per-value checks behind the form's inline messages (minLength, maxLength, pattern, format,
// minimum, maximum, exclusive bounds, multipleOf), also used by schema-check.js. Embedded for input
// schemas with any of those keywords and with schema-check.js; it registers them as the 'check'
// extension point of schema.js's scalarErrors (see runtime.js), which without it finds nothing to
// check, which is all a schema without them can have.
(function () {
  'use strict';
  var G = window.McpGenUi;
  var FORMATS = {
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    date: /^\d{4}-\d\d-\d\d$/,
    'date-time': G.schema._dateTime,
    time: /^\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/,
    uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/,
    uuid: /^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i
  };
  function regex(p) {
    try { return new RegExp(p, 'u'); } catch (e) { try { return new RegExp(p); } catch (e2) { return null; } }
  }

  // Messages for one value, as plain sentences. Only what a form can act on is checked.
  G._on('check', (s, v) => {
    var e = [], n = (k) => typeof s[k] === 'number';
    var check = (bad, text) => { if (bad) e.push(text + '.'); };
    if (typeof v === 'string') {
      var len = Array.from(v).length, r = typeof s.pattern === 'string' && regex(s.pattern), f = s.format === 'url' ? 'uri' : s.format;
      check(s.minLength != null && len < s.minLength, 'Use at least ' + s.minLength + ' characters');
      check(s.maxLength != null && len > s.maxLength, 'Use at most ' + s.maxLength + ' characters');
      check(r && !r.test(v), 'Must match the pattern ' + s.pattern);
      check(G.schema.own(FORMATS, f) && !FORMATS[f].test(v), 'Not a valid ' + s.format);
    }
    if (typeof v === 'number') {
      var xmin = s.exclusiveMinimum === true ? s.minimum : n('exclusiveMinimum') ? s.exclusiveMinimum : null;
      var xmax = s.exclusiveMaximum === true ? s.maximum : n('exclusiveMaximum') ? s.exclusiveMaximum : null;
      var q = v / s.multipleOf;
      check(n('minimum') && v < s.minimum, 'Must be at least ' + s.minimum);
      check(n('maximum') && v > s.maximum, 'Must be at most ' + s.maximum);
      check(xmin != null && v <= xmin, 'Must be greater than ' + xmin);
      check(xmax != null && v >= xmax, 'Must be less than ' + xmax);
      check(n('multipleOf') && s.multipleOf > 0 && Math.abs(q - Math.round(q)) > 1e-9, 'Must be a multiple of ' + s.multipleOf);
    }
    return e;
  });
})();
