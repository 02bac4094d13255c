// The network formats (book: reference/pages.md, "Formats"): email, uri (and "url"),
// uri-reference, ipv4, ipv6 and hostname, as RFC 5321, 4291, 1034 and 3986 write them, registered
// as one more 'check' like formats.js's. Embedded only where a tool's input or output schema has
// one of these formats.
(function () {
  'use strict';
  var G = window.McpGenUi, re = (r) => (v) => r.test(v);
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
    email: (v) => {
      var m = new RegExp('^(' + ATOM + '(\\.' + ATOM + ')*|"([^"\\\\]|\\\\.)*")@(.+)$').exec(v), d = m && m[4];
      return !!m && (hostname(d) || (/^\[.*\]$/.test(d) && (ipv4(d.slice(1, -1)) || (/^\[IPv6:/i.test(d) && ipv6(d.slice(6, -1))))));
    },
    uri: (v) => uriRef(v, true),
    'uri-reference': (v) => uriRef(v, false),
    ipv4,
    ipv6,
    hostname
  };
  G._on('check', (s, v) => {
    var f = s.format === 'url' ? 'uri' : s.format;
    return typeof v === 'string' && G.schema.own(FORMATS, f) && !FORMATS[f](v) ? ['Not a valid ' + s.format + '.'] : [];
  });
})();
