// The per-value checks behind the form's inline messages (minLength, maxLength, pattern, minimum,
// maximum, exclusive bounds, multipleOf), also used by schema-check.js; formats.js adds format.
// Embedded for input schemas with any of those keywords and with schema-check.js; it registers them
// as the 'check' extension point of schema.js's scalarErrors (see runtime.js), which without it
// finds nothing to check, which is all a schema without them can have.
(function () {
  'use strict';
  var G = window.McpGenUi;
  // A pattern as the validators servers use compile it (formats.js's "regex" format uses it too).
  var regex = G.schema.regex = (p) => {
    try { return new RegExp(p, 'u'); } catch (e) { try { return new RegExp(p); } catch (e2) { return null; } }
  };

  // Messages for one value, as plain sentences. Only what a form can act on is checked.
  G._on('check', (s, v) => {
    var e = [], n = (k) => typeof s[k] === 'number';
    var check = (bad, text) => { if (bad) e.push(text + '.'); };
    if (typeof v === 'string') {
      var len = Array.from(v).length, r = typeof s.pattern === 'string' && regex(s.pattern);
      check(s.minLength != null && len < s.minLength, 'Use at least ' + s.minLength + ' characters');
      check(s.maxLength != null && len > s.maxLength, 'Use at most ' + s.maxLength + ' characters');
      check(r && !r.test(v), 'Must match the pattern ' + s.pattern);
    }
    if (typeof v === 'number') {
      var xmin = s.exclusiveMinimum === true ? s.minimum : n('exclusiveMinimum') ? s.exclusiveMinimum : null;
      var xmax = s.exclusiveMaximum === true ? s.maximum : n('exclusiveMaximum') ? s.exclusiveMaximum : null;
      var q = v / s.multipleOf;  // a whole quotient, as JavaScript computes it (as Ajv does)
      check(n('minimum') && v < s.minimum, 'Must be at least ' + s.minimum);
      check(n('maximum') && v > s.maximum, 'Must be at most ' + s.maximum);
      check(xmin != null && v <= xmin, 'Must be greater than ' + xmin);
      check(xmax != null && v >= xmax, 'Must be less than ' + xmax);
      check(n('multipleOf') && s.multipleOf > 0 && !Number.isInteger(q), 'Must be a multiple of ' + s.multipleOf);
    }
    return e;
  });
})();
