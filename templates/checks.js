// The per-value checks behind the form's inline messages (minLength, maxLength, pattern, minimum,
// maximum, exclusive bounds, multipleOf), also used by schema-check.js; formats.js adds format.
// Embedded for input schemas with any of those keywords and with schema-check.js; it registers them
// as the 'check' extension point of schema.js's scalarErrors (see runtime.js), which without it
// finds nothing to check, which is all a schema without them can have.
(function () {
  'use strict';
  var G = window.McpGenUi;
  // A pattern as the validators servers use compile it (formats.js's "regex" format uses it too).
  // (with the u flag, else without it, else null)
  var compile = (p, flags) => { try { return new RegExp(p, flags); } catch (e) { return null; } };
  var regex = G.schema.regex = (p) => compile(p, 'u') || compile(p);

  // Messages for one value, as plain sentences. Only what a form can act on is checked.
  G._on('check', (s, v) => {
    var e = [], n = (k) => typeof s[k] === 'number';
    var check = (bad, text) => { if (bad) e.push(text + '.'); };
    if (typeof v === 'string') {
      var len = [...v].length, r = typeof s.pattern === 'string' && regex(s.pattern);
      // "Use at least 3 characters." or "Use at most 3 characters."
      var chars = (k, bad, which) => check(s[k] != null && bad, 'Use at ' + which + ' ' + s[k] + ' characters');
      chars('minLength', len < s.minLength, 'least');
      chars('maxLength', len > s.maxLength, 'most');
      check(r && !r.test(v), 'Must match the pattern ' + s.pattern);
    }
    if (typeof v === 'number') {
      // An exclusive bound: draft-04's boolean beside its bound, or the bound itself.
      var excl = (k, bound) => s[k] === true ? s[bound] : n(k) ? s[k] : null;
      var xmin = excl('exclusiveMinimum', 'minimum'), xmax = excl('exclusiveMaximum', 'maximum');
      // "Must be at least 3.", "Must be a multiple of 0.5." and the like.
      var must = (bad, text) => check(bad, 'Must be ' + text);
      must(n('minimum') && v < s.minimum, 'at least ' + s.minimum);
      must(n('maximum') && v > s.maximum, 'at most ' + s.maximum);
      must(xmin != null && v <= xmin, 'greater than ' + xmin);
      must(xmax != null && v >= xmax, 'less than ' + xmax);
      // a whole quotient, as JavaScript computes it (as Ajv does)
      must(n('multipleOf') && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf), 'a multiple of ' + s.multipleOf);
    }
    return e;
  });
})();
