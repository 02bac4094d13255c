// The format checks (book: reference/pages.md, "Formats"): date, time, date-time, uuid and the
// others below (formats-net.js has email, uri and the host formats), registered as one more
// 'check' (after checks.js's, so a value's messages keep their order). Embedded only where a
// tool's input or output schema has one of these formats; schema-check.js, which checks every
// value with scalarErrors, gets them through the same point.
(function () {
  'use strict';
  var G = window.McpGenUi, regex = G.schema.regex;
  // As RFC 3339 and 6901 write them; any other format is an annotation, as in the validators
  // servers use.
  var re = (r) => (v) => r.test(v);
  var DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  var date = (v) => {
    var m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(v), y = m && +m[1], mo = m && +m[2], d = m && +m[3];
    return !!m && mo >= 1 && mo <= 12 && d >= 1 && d <= (mo === 2 && (y % 4 || (!(y % 100) && y % 400)) ? 28 : DAYS[mo]);
  };
  // A full-time; 23:59:60 only where it is the last minute of a UTC day (a leap second).
  var time = (v) => {
    var m = /^(\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|([+-])(\d\d):(\d\d))$/.exec(v);
    if (!m || +m[1] > 23 || +m[2] > 59 || +m[7] > 23 || +m[8] > 59 || +m[3] > 60) return false;
    var sign = m[6] === '-' ? -1 : 1, um = +m[2] - sign * (+m[8] || 0), uh = +m[1] - sign * (+m[7] || 0) - (um < 0 ? 1 : 0);
    return +m[3] < 60 || ((um + 60) % 60 === 59 && (uh + 24) % 24 === 23);
  };
  var FORMATS = {
    date,
    time,
    'date-time': (v) => { var p = v.split(/[Tt ]/); return p.length === 2 && date(p[0]) && time(p[1]); },
    uuid: re(/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i),
    duration: re(/^P(\d+W|(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?)$/),
    'json-pointer': re(/^(\/([^~/]|~[01])*)*$/),
    'relative-json-pointer': re(/^(0|[1-9]\d*)(#|(\/([^~/]|~[01])*)*)$/),
    regex: (v) => !/(^|[^\\])\\Z/.test(v) && regex(v) !== null
  };
  G._on('check', (s, v) => typeof v === 'string' && G.schema.own(FORMATS, s.format) && !FORMATS[s.format](v) ? ['Not a valid ' + s.format + '.'] : []);
})();
