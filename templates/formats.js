// The format checks (book: reference/pages.md, "Formats"): date, time, date-time, email, uri,
// uuid and the others below, registered as one more 'check' (after checks.js's, so a value's
// messages keep their order). Embedded only where a tool's input or output schema has a format;
// schema-check.js, which checks every value with scalarErrors, gets them through the same point.
(function () {
  'use strict';
  var G = window.McpGenUi, regex = G.schema.regex;
  // As RFC 3339, 4291, 5321, 1034 and 3986 write them; any other format is an annotation, as in
  // the validators servers use.
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
  var V4 = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}';
  var ipv4 = re(new RegExp('^' + V4 + '$'));
  var ipv6 = (v) => {
    var tail = /^(.*:)([^:]*\.[^:]*)$/.exec(v), s = tail ? tail[1] + '0:0' : v, halves = s.split('::');
    if (tail && !ipv4(tail[2])) return false;
    if (halves.length > 2 || !/^[0-9a-fA-F:]+$/.test(s)) return false;
    var parts = halves.map((x) => x ? x.split(':') : []), n = parts.flat().length;
    return parts.flat().every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) && (halves.length === 2 ? n < 8 : n === 8);
  };
  var hostname = (v) => v.length <= 253 && v.split('.').every((l) => /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(l));
  // RFC 3986: a scheme (for "uri"), then only the characters a URI may hold, %-escapes whole, an
  // authority whose port is digits and whose host is a name, an IPv4 or a bracketed IPv6.
  var uriRef = (v, scheme) => {
    var m = /^(([a-zA-Z][a-zA-Z0-9+.-]*):)?(\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(v);
    if (!m || (scheme && !m[1]) || !/^([A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9a-fA-F]{2})*$/.test(v) || /[[\]]/.test(m[5] + (m[6] || '') + (m[7] || ''))) return false;
    var auth = m[4] != null && /^(([^@]*)@)?(\[([^\]]*)\]|[^:[\]]*)(:(\d*))?$/.exec(m[4]);
    return m[4] == null || (!!auth && !/[@]/.test(auth[2] || '') && (auth[4] == null || ipv6(auth[4]) || /^v[0-9a-f]+\./i.test(auth[4])));
  };
  var ATOM = "[A-Za-z0-9!#$%&'*+/=?^_\x60{|}~-]+";
  var FORMATS = {
    date,
    time,
    'date-time': (v) => { var p = v.split(/[Tt ]/); return p.length === 2 && date(p[0]) && time(p[1]); },
    email: (v) => {
      var m = new RegExp('^(' + ATOM + '(\\.' + ATOM + ')*|"([^"\\\\]|\\\\.)*")@(.+)$').exec(v), d = m && m[4];
      return !!m && (hostname(d) || (/^\[.*\]$/.test(d) && (ipv4(d.slice(1, -1)) || (/^\[IPv6:/i.test(d) && ipv6(d.slice(6, -1))))));
    },
    uri: (v) => uriRef(v, true),
    'uri-reference': (v) => uriRef(v, false),
    uuid: re(/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i),
    ipv4,
    ipv6,
    hostname,
    duration: re(/^P(\d+W|(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?)$/),
    'json-pointer': re(/^(\/([^~/]|~[01])*)*$/),
    'relative-json-pointer': re(/^(0|[1-9]\d*)(#|(\/([^~/]|~[01])*)*)$/),
    regex: (v) => !/(^|[^\\])\\Z/.test(v) && regex(v) !== null
  };
  G._on('check', (s, v) => {
    var f = s.format === 'url' ? 'uri' : s.format;
    return typeof v === 'string' && G.schema.own(FORMATS, f) && !FORMATS[f](v) ? ['Not a valid ' + s.format + '.'] : [];
  });
})();
