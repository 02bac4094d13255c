// Time and date-time fields of the form (format "time" and "date-time"): embedded only for input
// schemas with those formats; without it they are text fields.
// A date-time is edited as wall-clock time in the host's time zone (HostContext.timeZone, else the
// browser's) and sent in UTC. A format "time" value is RFC 3339 full-time, which needs an offset,
// and an <input type=time> holds none: the offset is that time zone's on today's date there. The
// note under the field says which.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema;
  var zones = [];
  var zone = function () { return S.where().timeZone; };

  // The UTC offset of a time zone at an instant, in minutes east of UTC.
  var offset = (tz, d) => {
    try {
      var p = {};
      new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
        .formatToParts(d).forEach(function (x) { p[x.type] = x.value; });
      var wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second);
      return Math.round((wall - Math.floor(d.getTime() / 1000) * 1000) / 60000);
    } catch (e) { return -d.getTimezoneOffset(); }
  };
  var offStr = (m) => {
    var a = Math.abs(m);
    return (m < 0 ? '-' : '+') + String(Math.floor(a / 60)).padStart(2, '0') + ':' + String(a % 60).padStart(2, '0');
  };
  // A wall-clock time ("YYYY-MM-DDTHH:MM:SS") in a time zone, as an instant.
  var fromWall = (wall, tz) => {
    var u = new Date(wall + 'Z');
    if (isNaN(u)) return u;
    var g = new Date(u.getTime() - offset(tz, u) * 60000);
    return new Date(u.getTime() - offset(tz, g) * 60000);
  };
  var secs = (raw) => { return /(^|T)\d\d:\d\d$/.test(raw) ? raw + ':00' : raw; };
  var wallOf = (d) => { return new Date(d.getTime() + offset(zone(), d) * 60000).toISOString(); };
  var today = () => { return wallOf(new Date()).slice(0, 10); };
  var withOffset = (t) => {
    if (!/^\d\d:\d\d:\d\d(\.\d+)?$/.test(t)) return t;
    var d = fromWall(today() + 'T' + t.slice(0, 8), zone());
    return t + (isNaN(d) ? 'Z' : offStr(offset(zone(), d)));
  };
  // A full-time with any offset, as the wall-clock time of the host's zone today.
  var timeIn = (v) => {
    var m = /^(\d\d:\d\d(?::\d\d)?)(?:\.\d+)?([Zz]|[+-]\d\d:?\d\d)?$/.exec(v);
    if (!m) return v.slice(0, 8);
    if (!m[2]) return secs(m[1]);
    var off = /z/i.test(m[2]) ? '+00:00' : m[2].slice(0, 3) + ':' + m[2].slice(-2);
    var d = new Date(today() + 'T' + secs(m[1]) + off);
    return isNaN(d) ? secs(m[1]) : wallOf(d).slice(11, 19);
  };
  var zoneNote = (type) => {
    var tz = zone(), off = offStr(offset(tz, new Date()));
    return type === 'time'
      ? 'Time zone: ' + tz + ' (UTC' + off + ', the offset on today\'s date); sent with that offset.'
      : 'Time zone: ' + tz + ' (UTC' + off + ' now); sent in UTC.';
  };

  // What form.js's text input asks of a time field: its <input> type for a format, the note under
  // it (kept current when the host's time zone arrives: the 'zone' point), and the value both ways.
  var time = {
    type: function (f) { return f === 'time' ? 'time' : f === 'date-time' ? 'datetime-local' : null; },
    note: function (el, type) {
      var say = function () { el.textContent = zoneNote(type); };
      say();
      zones.push(say);
    },
    read: function (type, raw) {
      if (type === 'time') return withOffset(secs(raw));
      var d = fromWall(secs(raw), zone());
      return isNaN(d) ? raw : d.toISOString();
    },
    // The control's value, or null to show the value as it is.
    write: function (type, v) {
      if (type === 'time') return typeof v === 'string' ? timeIn(v) : null;
      var d = new Date(v);
      return isNaN(d) ? null : wallOf(d).slice(0, 19);
    },
    // A wall-clock value with seconds ("HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS", fraction allowed)
    // with the host zone's offset then ("+05:30"), or null (llm.js completes a model's values).
    zoned: function (wall) {
      if (!wall.includes('T')) return withOffset(wall);
      var d = fromWall(wall, zone());
      return isNaN(d) ? null : wall + offStr(offset(zone(), d));
    }
  };
  G._on('controls', () => ({ time }));
  G._on('zone', () => { zones.forEach((z) => { z(); }); });
})();
