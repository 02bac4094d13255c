// The per-value checks behind the form's inline messages (minLength, maxLength, pattern, format,
// minimum, maximum, exclusive bounds, multipleOf), also used by validate.js. Embedded for input
// schemas with any of those keywords and with validate.js; without it schema.js's scalarErrors
// finds nothing to check, which is all a schema without them can have.
(function () {
  'use strict';
  var FORMATS = {
    email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
    date: /^\d{4}-\d\d-\d\d$/,
    'date-time': /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:?\d\d)$/,
    time: /^\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/,
    uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/,
    uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
  };
  function regex(p) {
    try { return new RegExp(p, 'u'); } catch (e) { try { return new RegExp(p); } catch (e2) { return null; } }
  }

  // Messages for one value, as plain sentences. Only what a form can act on is checked.
  function scalarErrors(s, v) {
    var e = [];
    if (typeof v === 'string') {
      var n = Array.from(v).length;
      if (s.minLength != null && n < s.minLength) e.push('Use at least ' + s.minLength + ' characters.');
      if (s.maxLength != null && n > s.maxLength) e.push('Use at most ' + s.maxLength + ' characters.');
      var r = typeof s.pattern === 'string' && regex(s.pattern);
      if (r && !r.test(v)) e.push('Must match the pattern ' + s.pattern + '.');
      var f = FORMATS[s.format === 'url' ? 'uri' : s.format];
      if (f && !f.test(v)) e.push('Not a valid ' + s.format + '.');
    }
    if (typeof v === 'number') {
      if (typeof s.minimum === 'number' && v < s.minimum) e.push('Must be at least ' + s.minimum + '.');
      if (typeof s.maximum === 'number' && v > s.maximum) e.push('Must be at most ' + s.maximum + '.');
      var xmin = s.exclusiveMinimum, xmax = s.exclusiveMaximum;
      if (xmin === true) xmin = s.minimum; else if (typeof xmin !== 'number') xmin = null;
      if (xmax === true) xmax = s.maximum; else if (typeof xmax !== 'number') xmax = null;
      if (xmin != null && v <= xmin) e.push('Must be greater than ' + xmin + '.');
      if (xmax != null && v >= xmax) e.push('Must be less than ' + xmax + '.');
      if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
        var q = v / s.multipleOf;
        if (Math.abs(q - Math.round(q)) > 1e-9) e.push('Must be a multiple of ' + s.multipleOf + '.');
      }
    }
    return e;
  }

  window.McpGenUi.schema.scalarErrors = scalarErrors;
})();
