// The universal result view: a CallToolResult (or any JSON value) as tables, SVG charts, cards,
// lists, text and media. Untrusted strings only ever reach the page through textContent or
// attributes; links open through the host.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj;
  var ROWS = 50, TEXT = 1200, RAW = 20000;
  var URL_RE = /^(https?:\/\/|mailto:)[^\s<>"]+$/i;
  var TIMEY = /(^|_)(date|time|day|week|month|quarter|year|hour|minute|period|timestamp|ts|t|x)$/i;
  var ISO = /^\d{4}-\d\d(-\d\d)?([T ]\d\d:\d\d.*)?$/;

  function lab(k, o) { return (o.labels && o.labels[k]) || S.words(k); }
  // Keys whose numbers are codes, not quantities: shown as they are (no grouping).
  var CODE = /(^|_)(id|ids|year|zip|code|port|pid|version|number|no)$|[a-z](Id|Year|Code)$/;
  // Keys that make a list of objects a list of records (a table), not a series.
  var IDENT = /(^|_)(id|uuid|guid|name|title|email|sku|slug|username|login|label|key)$|[a-z](Id|Name|Title|Key)$/i;
  function hidden(k, o) { return o.hidden && o.hidden.indexOf(k) >= 0; }
  function num(v) { return typeof v === 'number' && isFinite(v); }

  function link(url, text) {
    return h('a', {
      href: url, class: 'link', target: '_blank', rel: 'noopener noreferrer', text: text || url,
      onclick: function (e) {
        e.preventDefault();
        if (G.app && G.app._ready) G.app.openLink({ url: url }).catch(function (err) { console.warn('mcp-gen-ui: open-link failed', err); });
      }
    });
  }

  // Text longer than "max" shows its start and a button that reveals the rest.
  function more(full, max, make) {
    if (full.length <= max) return make(full);
    var box = h('div.trunc');
    var part = make(full.slice(0, max) + '…');
    var btn = h('button.btn.sm', {
      text: 'Show more (' + (full.length - max) + ' more characters)',
      onclick: function () { box.replaceChildren(make(full)); }
    });
    box.append(part, btn);
    return box;
  }

  // Numbers and dates for people (host locale and time zone); the raw value on hover.
  function scalar(v, k) {
    if (v === null || v === undefined) return h('span.nil', v === null ? 'null' : '—');
    if (num(v) && !(k && CODE.test(k))) {
      var f = S.fmtNum(v);
      return h('span', { class: 'number', text: f, title: f === String(v) ? null : String(v) });
    }
    if (typeof v === 'string') {
      if (URL_RE.test(v)) return link(v);
      var d = v.length < 40 ? S.fmtDate(v) : null;
      if (d) return h('time', { datetime: v, title: v, text: d });
      return more(v, 300, function (t) { return h('span.str', t); });
    }
    if (typeof v === 'object') return more(JSON.stringify(v), 200, function (t) { return h('code', t); });
    return h('span', { class: typeof v, text: String(v) });
  }

  // Light markdown: headings, lists, code fences, **bold**, inline code, [links](url) and bare URLs.
  function inline(text) {
    var out = [], re = /(\*\*([^*]+)\*\*|\x60([^\x60]+)\x60|\[([^\]]+)\]\(([^)\s]+)\)|https?:\/\/[^\s<>()"]+)/g, last = 0, m;
    while ((m = re.exec(text))) {
      if (m.index > last) out.push(text.slice(last, m.index));
      if (m[2]) out.push(h('strong', m[2]));
      else if (m[3]) out.push(h('code', m[3]));
      else if (m[4]) out.push(URL_RE.test(m[5]) ? link(m[5], m[4]) : m[0]);
      else out.push(link(m[0]));
      last = re.lastIndex;
    }
    out.push(text.slice(last));
    return out;
  }
  function markdown(text) {
    var box = h('div.md'), lines = text.split(/\r?\n/), i = 0, para = [], list = null;
    var flush = function () { if (para.length) { box.append(h('p', inline(para.join('\n')))); para = []; } list = null; };
    while (i < lines.length) {
      var l = lines[i];
      if (/^\x60{3}/.test(l)) {
        flush();
        var code = [];
        for (i++; i < lines.length && !/^\x60{3}/.test(lines[i]); i++) code.push(lines[i]);
        box.append(h('pre', h('code', code.join('\n'))));
      } else if (/^#{1,6}\s/.test(l)) {
        flush();
        box.append(h('p.mdh', h('strong', inline(l.replace(/^#+\s*/, '')))));
      } else if (/^\s*([-*]|\d+\.)\s+/.test(l)) {
        if (para.length) flush();
        if (!list) { list = h(/^\s*\d/.test(l) ? 'ol' : 'ul'); box.append(list); }
        list.append(h('li', inline(l.replace(/^\s*([-*]|\d+\.)\s+/, ''))));
      } else if (!l.trim()) flush();
      else { list = null; para.push(l); }
      i++;
    }
    flush();
    return box;
  }
  function text(t) { return more(t, TEXT, markdown); }

  function tryJson(t) {
    var s = typeof t === 'string' ? t.trim() : '';
    if (!/^[[{]/.test(s)) return undefined;
    try { return JSON.parse(s); } catch (e) { return undefined; }
  }

  function columns(rows, o) {
    var cols = [];
    rows.slice(0, 200).forEach(function (r) {
      for (var k in r) if (cols.indexOf(k) < 0 && !hidden(k, o)) cols.push(k);
    });
    return cols;
  }

  // A value on an ordered axis: a date or date-time string (ms), or a number.
  function ordinal(v) {
    if (num(v)) return v;
    if (typeof v === 'string' && ISO.test(v)) { var t = Date.parse(v.length === 7 ? v + '-01' : v); return isNaN(t) ? null : t; }
    return null;
  }
  // Numeric series: an ordered x (dates or times, or a numeric key such as year or step; rows are
  // sorted by it) with numeric y fields, or an array of numbers. A list of records (identifiers or
  // names among its fields) is a table, not a series, unless a hint asks for a chart.
  function series(v, o, forced) {
    if (v.length < 2) return null;
    if (v.every(num)) return { rows: v.map(function (y, i) { return { '#': i + 1, value: y }; }), x: '#', ys: ['value'], ord: true };
    if (!v.every(isObj)) return null;
    var cols = columns(v, o);
    var nums = cols.filter(function (k) { return v.every(function (r) { return num(r[k]); }); });
    var dated = function (k) { return v.every(function (r) { return typeof r[k] === 'string' && ordinal(r[k]) != null; }); };
    var x = o.x && cols.indexOf(o.x) >= 0 ? o.x : cols.find(function (k) { return nums.indexOf(k) < 0 && dated(k); });
    if (!x) x = nums.find(function (k) { return /^(year|x|t|time|timestamp|ts|epoch|hour|day|week|month|step|index|n|i|tick|iteration|epoch_ms)$/i.test(k); });
    if (!x && !forced) x = cols.find(function (k) { return nums.indexOf(k) < 0 && TIMEY.test(k) && v.every(function (r) { return typeof r[k] === 'string'; }); });
    if (!forced && (!x || cols.some(function (k) { return k !== x && IDENT.test(k); }))) return null;
    if (!x && forced) x = cols.find(function (k) { return nums.indexOf(k) < 0 && v.every(function (r) { return typeof r[k] === 'string'; }); });
    var ys = o.y && o.y.length ? o.y.filter(function (k) { return nums.indexOf(k) >= 0; }) : nums.filter(function (k) { return k !== x && !CODE.test(k); }).slice(0, 6);
    if (!ys.length) return null;
    var ord = !!x && v.every(function (r) { return ordinal(r[x]) != null; });
    var rows = ord ? v.slice().sort(function (a, b) { return ordinal(a[x]) - ordinal(b[x]); }) : v;
    return { rows: rows, x: x || null, ys: ys, ord: ord };
  }

  // Round axis ticks: steps of 1, 2 or 5 × 10ⁿ covering [lo, hi].
  function ticks(lo, hi, want) {
    var raw = (hi - lo) / Math.max(want - 1, 1), p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    var step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
    var a = Math.floor(lo / step) * step, b = Math.ceil(hi / step) * step, out = [];
    for (var t = a; t <= b + step / 2 && out.length < 50; t += step) out.push(Math.round(t / step) * step);
    return { lo: a, hi: b, step: step, ticks: out };
  }
  function tickFmt(step) {
    var dig = Math.max(0, Math.min(20, -Math.floor(Math.log10(step) + 1e-9)));
    var nf;
    try { nf = new Intl.NumberFormat(S.where().locale, { maximumFractionDigits: dig, notation: step >= 1e6 ? 'compact' : 'standard', useGrouping: 'min2' }); } catch (e) { nf = null; }
    return function (v) { return nf ? nf.format(v) : String(v); };
  }

  function renderChart(el, ser, o) {
    o = o || {};
    var kind = o.view === 'bar' ? 'bar' : 'line';
    var rows = ser.rows.slice(0, 1000), W = 640, H = 260, L = 56, R = 12, T = 12, B = 34;
    var all = [];
    rows.forEach(function (r) { ser.ys.forEach(function (k) { if (num(r[k])) all.push(r[k]); }); });
    var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
    if (kind === 'bar') { lo = Math.min(lo, 0); hi = Math.max(hi, 0); }
    if (lo === hi) { lo -= 1; hi += 1; }
    var tk = ticks(lo, hi, 5), fmt = tickFmt(tk.step);
    lo = tk.lo; hi = tk.hi;
    var n = rows.length, pw = W - L - R, ph = H - T - B;
    // Dates and numeric keys are placed by value, anything else evenly.
    var xs = ser.ord && kind !== 'bar' && ser.x ? rows.map(function (r) { return ordinal(r[ser.x]); }) : null;
    var x0 = xs ? xs[0] : 0, x1 = xs ? xs[xs.length - 1] : 0;
    if (xs && x1 === x0) xs = null;
    var X = function (i) { return L + (xs ? (xs[i] - x0) / (x1 - x0) * pw : kind === 'bar' ? (i + 0.5) * pw / n : n === 1 ? pw / 2 : i * pw / (n - 1)); };
    var Y = function (v) { return T + ph - (v - lo) / (hi - lo) * ph; };
    var xl = function (i, long) {
      if (!ser.x) return String(i + 1);
      var v = rows[i][ser.x];
      if (num(v)) return CODE.test(ser.x) ? String(v) : S.fmtNum(v);
      if (/^\d{4}-\d\d$/.test(v)) try { return new Intl.DateTimeFormat(S.where().locale, { timeZone: 'UTC', year: 'numeric', month: long ? 'long' : 'short' }).format(new Date(v + '-01T00:00:00Z')); } catch (e) { return v; }
      return S.fmtDate(v, !long) || String(v);
    };
    var title = (kind === 'bar' ? 'Bar' : 'Line') + ' chart of ' + ser.ys.map(function (k) { return lab(k, o); }).join(', ') + (ser.x ? ' by ' + lab(ser.x, o) : '');
    // Points carry their own names (a role=img chart would hide them from screen readers), up to
    // a few hundred; past that the chart is one image and the Table view lists the values.
    var named = n * ser.ys.length <= 400;
    var svg = h('svg:svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: named ? 'group' : 'img', 'aria-label': title + (named ? '' : ' (' + n + ' points: the Table view lists them)') });
    tk.ticks.forEach(function (v) {
      var y = Y(v);
      svg.append(h('svg:line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid', 'aria-hidden': 'true' }), h('svg:text', { x: L - 6, y: y + 4, 'text-anchor': 'end', class: 'axis', 'aria-hidden': 'true', text: fmt(v) }));
    });
    var xt = n <= 1 ? [0] : n <= 4 ? rows.map(function (r, i) { return i; }) : [0, Math.round((n - 1) / 3), Math.round(2 * (n - 1) / 3), n - 1];
    xt.forEach(function (i, j) {
      var end = j === xt.length - 1 && xt.length > 1;
      svg.append(h('svg:text', { x: X(i), y: H - 10, 'text-anchor': kind !== 'bar' && j === 0 ? 'start' : kind !== 'bar' && end ? 'end' : 'middle', class: 'axis', 'aria-hidden': 'true', text: xl(i).slice(0, 24) }));
    });
    ser.ys.forEach(function (k, si) {
      var cls = 's' + (si % 6);
      if (kind === 'line') {
        var pts = [];
        rows.forEach(function (r, i) { if (num(r[k])) pts.push(X(i).toFixed(1) + ',' + Y(r[k]).toFixed(1)); });
        svg.append(h('svg:polyline', { points: pts.join(' '), class: 'ln ' + cls, 'aria-hidden': 'true' }));
      }
      var bw = pw / n / (ser.ys.length + 0.5);
      rows.forEach(function (r, i) {
        if (!num(r[k])) return;
        var name = lab(k, o) + ', ' + (ser.x ? lab(ser.x, o) + ' ' : '#') + xl(i, true) + ': ' + S.fmtNum(r[k]);
        var a = named ? { role: 'img', 'aria-label': name } : { 'aria-hidden': 'true' };
        // Hover shows the raw values; screen readers get them formatted.
        var tip = h('svg:title', lab(k, o) + ', ' + (ser.x ? lab(ser.x, o) + ' ' + String(r[ser.x]) : '#' + (i + 1)) + ': ' + r[k]);
        if (kind === 'bar') {
          var y0 = Y(Math.max(0, r[k])), y1 = Y(Math.min(0, r[k]));
          svg.append(h('svg:rect', Object.assign({ x: (X(i) - pw / n / 2 + bw * (si + 0.25)).toFixed(1), y: y0.toFixed(1), width: Math.max(bw - 1, 1).toFixed(1), height: Math.max(y1 - y0, 0.5).toFixed(1), class: 'bar ' + cls }, a), tip));
        } else if (n <= 400) svg.append(h('svg:circle', Object.assign({ cx: X(i).toFixed(1), cy: Y(r[k]).toFixed(1), r: n > 120 ? 2 : 3, class: 'pt ' + cls }, a), tip));
      });
    });
    var legend = h('ul.legend', ser.ys.map(function (k, si) { return h('li', h('span', { class: 'sw s' + (si % 6), 'aria-hidden': 'true' }), lab(k, o)); }));
    el.append(h('figure.chartbox', svg, legend));
    return el;
  }

  function renderTable(el, rows, o) {
    o = o || {};
    var cols = columns(rows, o);
    var sortKey = null, dir = 1, q = '', limit = ROWS;
    if (o.sort) { var p = String(o.sort).split(/\s+/); sortKey = p[0]; dir = p[1] === 'desc' ? -1 : 1; }
    var fid = 'flt' + Math.random().toString(36).slice(2, 8);
    var filter = h('input', { type: 'search', id: fid, placeholder: 'Filter rows…' });
    var count = h('span.count', { 'aria-live': 'polite' });
    var ths = cols.map(function (k) {
      var b = h('button.sort', { text: lab(k, o), onclick: function () { dir = sortKey === k ? -dir : 1; sortKey = k; draw(); } });
      return h('th', { scope: 'col' }, b);
    });
    var tbody = h('tbody'), foot = h('div.tfoot');
    var table = h('table', h('thead', h('tr', ths)), tbody);
    function cmp(a, b) {
      var x = a[sortKey], y = b[sortKey];
      if (x == null) return 1;
      if (y == null) return -1;
      if (num(x) && num(y)) return (x - y) * dir;
      return String(x).localeCompare(String(y), undefined, { numeric: true }) * dir;
    }
    function draw() {
      var ql = q.toLowerCase();
      var vis = rows.filter(function (r) { return !ql || cols.some(function (k) { var v = r[k]; return v != null && (typeof v === 'object' ? JSON.stringify(v) : String(v)).toLowerCase().indexOf(ql) >= 0; }); });
      if (sortKey) vis = vis.slice().sort(cmp);
      ths.forEach(function (th, i) { th.setAttribute('aria-sort', cols[i] === sortKey ? (dir > 0 ? 'ascending' : 'descending') : 'none'); });
      tbody.textContent = '';
      vis.slice(0, limit).forEach(function (r) {
        tbody.append(h('tr', cols.map(function (k) { var v = r[k]; return h('td', { class: num(v) ? 'n' : null }, scalar(v, k)); })));
      });
      count.textContent = vis.length + ' of ' + rows.length + ' rows';
      if (!vis.length) tbody.append(h('tr', h('td', { colspan: String(cols.length), class: 'empty', text: 'No rows match "' + q + '".' })));
      foot.textContent = '';
      if (vis.length > limit) foot.append(h('button.btn.sm', { text: 'Show ' + Math.min(vis.length - limit, 200) + ' more rows', onclick: function () { limit += 200; draw(); } }));
    }
    filter.addEventListener('input', function () { q = filter.value; limit = ROWS; draw(); });
    draw();
    el.append(h('div.tablebox',
      rows.length > 5 ? h('div.tools', h('label', { for: fid, class: 'sr', text: 'Filter rows' }), filter, count) : null,
      h('div.scroll', { tabindex: '0', role: 'region', 'aria-label': 'Table' + (o.caption ? ': ' + o.caption : '') }, table), foot));
    return el;
  }

  function toggleBox(views) {
    var box = h('div.multi'), bar = h('div.tools', { role: 'group', 'aria-label': 'View' }), panes = [];
    views.forEach(function (v, i) {
      var pane = h('div', { hidden: i > 0 });
      var b = h('button.btn.sm', { 'aria-pressed': String(i === 0), text: v[0], onclick: function () {
        panes.forEach(function (p, j) { p.pane.hidden = j !== i; p.b.setAttribute('aria-pressed', String(j === i)); if (j === i && !p.done) { p.done = true; v[1](p.pane); } });
      } });
      panes.push({ pane: pane, b: b, done: i === 0 });
      if (i === 0) v[1](pane);
      bar.append(b);
      box.append(pane);
    });
    box.insertBefore(bar, box.firstChild);
    return box;
  }

  function renderCards(el, obj, o, depth) {
    o = o || {};
    depth = depth || 0;
    var dl = h('dl.cards');
    Object.keys(obj).forEach(function (k) {
      if (hidden(k, o)) return;
      var v = obj[k], dd = h('dd');
      if (v !== null && typeof v === 'object' && depth < 8) {
        var det = h('details', { open: depth < 2 }, h('summary', lab(k, o) + (Array.isArray(v) ? ' (' + v.length + ')' : '')));
        det.append(node(v, sub(o), depth + 1));
        dd.append(det);
        dl.append(h('div.kv.wide', h('dt.sr', lab(k, o)), dd));
      } else {
        dd.append(scalar(v, k));
        // A long text (a path, a sentence) gets the whole row instead of a tall narrow card.
        dl.append(h(typeof v === 'string' && v.length > 48 ? 'div.kv.span' : 'div.kv', h('dt', lab(k, o)), dd));
      }
    });
    el.append(dl.firstChild ? dl : h('p.help.empty', 'No fields.'));
    return el;
  }
  function sub(o) { return { labels: o.labels, hidden: o.hidden }; }

  function list(v, o, depth) {
    // A short list of short values (tags, column names, ids) reads best as one line of chips.
    var chips = v.length <= 24 && v.every(function (x) { return x === null || (typeof x !== 'object' && String(x).length <= 40); });
    var ul = h(chips ? 'ul.list.chips' : 'ul.list'), limit = ROWS;
    function draw() {
      ul.textContent = '';
      v.slice(0, limit).forEach(function (x) { ul.append(h('li', x !== null && typeof x === 'object' ? node(x, sub(o), depth + 1) : scalar(x))); });
      if (v.length > limit) ul.append(h('li', h('button.btn.sm', { text: 'Show ' + (v.length - limit) + ' more', onclick: function () { limit = v.length; draw(); } })));
    }
    draw();
    return ul;
  }

  function renderJson(el, v) {
    var s = JSON.stringify(v, null, 2);
    el.append(more(s === undefined ? 'undefined' : s, RAW, function (t) { return h('pre.raw', h('code', t)); }));
    return el;
  }

  // Picks a view for any JSON value; hints (o.view, o.x, o.y, …) only apply at the top level.
  function node(v, o, depth) {
    var view = depth ? null : o.view, box = h('div.val');
    if (view === 'json') return renderJson(box, v);
    if (isObj(v) && view && view !== 'cards') {
      var key = Object.keys(v).find(function (k) { return Array.isArray(v[k]) && v[k].length; });
      if (key) {
        var rest = Object.assign({}, v);
        delete rest[key];
        if (Object.keys(rest).length) renderCards(box, rest, o, 1);
        box.append(h('p.sub', lab(key, o)), node(v[key], o, 0));
        return box;
      }
    }
    if (Array.isArray(v)) {
      if (!v.length) return h('p.help.empty', 'No items.');
      if (view === 'list') return list(v, o, depth);
      var objs = v.every(isObj);
      var ser = series(v, o, view === 'line' || view === 'bar');
      if (ser && view !== 'table' && view !== 'cards') {
        var co = Object.assign({}, o, { view: view === 'bar' ? 'bar' : 'line' });
        return toggleBox([['Chart', function (p) { renderChart(p, ser, co); }], ['Table', function (p) { renderTable(p, ser.rows, o); }]]);
      }
      if (objs && view === 'cards') { v.slice(0, ROWS).forEach(function (x) { renderCards(box, x, o, depth + 1); }); return box; }
      if (objs) return renderTable(box, v, o);
      return list(v, o, depth);
    }
    if (isObj(v)) {
      // A wrapper around one array ({items: [...]}) shows the array itself.
      var ks = Object.keys(v);
      if (!depth && ks.length === 1 && Array.isArray(v[ks[0]]) && v[ks[0]].length) {
        box.append(h('p.sub', lab(ks[0], o)), node(v[ks[0]], o, 0));
        return box;
      }
      return renderCards(box, v, o, depth);
    }
    if (typeof v === 'string') return depth ? scalar(v) : v.trim() ? text(v) : h('p.help.empty', 'Empty text.');
    box.append(scalar(v));
    return box;
  }

  function render(el, v, o) { el.append(node(v, o || {}, 0)); return el; }

  function media(c) {
    var mime = String(c.mimeType || ''), data = String(c.data || '');
    if (!/^[A-Za-z0-9+/=\s]*$/.test(data)) return h('p.warn', 'Skipped ' + c.type + ' content: its data is not base64.');
    if (c.type === 'image' && /^image\/[\w.+-]+$/.test(mime)) return h('img', { src: 'data:' + mime + ';base64,' + data.replace(/\s/g, ''), alt: 'Image returned by the tool', class: 'media' });
    if (c.type === 'audio' && /^audio\/[\w.+-]+$/.test(mime)) return h('audio', { controls: true, src: 'data:' + mime + ';base64,' + data.replace(/\s/g, ''), 'aria-label': 'Audio returned by the tool' });
    return h('p.warn', 'Skipped ' + c.type + ' content of type ' + mime + '.');
  }

  function resource(c, o) {
    var r = c.resource || c, uri = String(r.uri || ''), box = h('div.res');
    var name = r.name || r.title || uri;
    box.append(h('p.sub', URL_RE.test(uri) ? link(uri, name) : h('code', name)));
    if (r.description) box.append(h('p.help', r.description));
    if (typeof r.text === 'string') {
      var j = /json/.test(r.mimeType || '') || /^[[{]/.test(r.text.trim()) ? tryJson(r.text) : undefined;
      box.append(j !== undefined ? node(j, o, 0) : more(r.text, TEXT, function (t) { return h('pre.raw', h('code', t)); }));
    } else if (typeof r.blob === 'string') box.append(media({ type: /^audio/.test(r.mimeType) ? 'audio' : 'image', mimeType: r.mimeType, data: r.blob }));
    return box;
  }

  function copy(textValue, status) {
    var done = function () { status.textContent = 'Copied.'; };
    var fallback = function () {
      var ta = h('textarea.sr', { 'aria-hidden': 'true' });
      ta.value = textValue;
      document.body.append(ta);
      ta.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      document.body.removeChild(ta);
      status.textContent = ok ? 'Copied.' : 'Copy is blocked here: select the raw JSON and copy it.';
    };
    try { navigator.clipboard.writeText(textValue).then(done, fallback); } catch (e) { fallback(); }
  }

  // A whole CallToolResult: error panel, structuredContent (checked against outputSchema), every
  // content item, then the raw JSON toggle and copy button.
  function renderResult(el, r, o) {
    o = o || {};
    r = r && typeof r === 'object' ? r : { content: [{ type: 'text', text: String(r) }] };
    el.textContent = '';
    var body = h('div', { class: 'result' + (r.isError ? ' is-error' : '') });
    var content = Array.isArray(r.content) ? r.content : [];
    var sc = r.structuredContent;
    if (r.isError) {
      var panel = h('div.error', { role: 'alert' }, h('strong', 'The tool reported an error'));
      content.forEach(function (c) { if (c && c.type === 'text') panel.append(text(String(c.text))); });
      if (sc !== undefined) panel.append(node(sc, {}, 1));
      body.append(panel);
    } else {
      if (sc !== undefined) {
        if (o.outputSchema && G.validate) {
          var errs = G.validate(o.outputSchema, sc);
          if (errs.length) body.append(h('div.warn', { role: 'note' }, h('strong', 'The result does not match the tool\'s outputSchema: '),
            errs.slice(0, 5).map(function (e) { return e.path + ': ' + e.message; }).join('; ')));
        }
        body.append(node(sc, o, 0));
      }
      content.forEach(function (c) {
        if (!c || typeof c !== 'object') return;
        if (c.type === 'text') {
          var j = tryJson(c.text);
          // Servers often repeat structuredContent (or its one payload) as JSON text: show it once.
          if (sc !== undefined && j !== undefined && (S.same(j, sc) || (isObj(sc) && Object.keys(sc).some(function (k) { return S.same(sc[k], j); })))) return;
          body.append(j !== undefined ? node(j, o, 0) : text(String(c.text == null ? '' : c.text)));
        } else if (c.type === 'image' || c.type === 'audio') body.append(media(c));
        else if (c.type === 'resource_link' || c.type === 'resource') body.append(resource(c, o));
        else body.append(renderJson(h('div'), c));
      });
      if (sc === undefined && !content.length) body.append(h('p.help.empty', 'The tool returned no content.'));
    }
    var raw = h('div', { hidden: true, class: 'rawbox' }), status = h('span.help', { role: 'status' });
    var rawText = JSON.stringify(r, null, 2) || '';
    var rawBtn = h('button.btn.sm.ghost', { 'aria-expanded': 'false', text: 'Raw JSON', onclick: function () {
      raw.hidden = !raw.hidden;
      rawBtn.setAttribute('aria-expanded', String(!raw.hidden));
      if (!raw.hidden && !raw.firstChild) renderJson(raw, r);
    } });
    var cp = h('button.btn.sm.ghost', { text: 'Copy JSON', onclick: function () { copy(rawText, status); } });
    body.append(h('div.tools.end', rawBtn, cp, status), raw);
    el.append(body);
    return el;
  }

  G.render = render;
  G.renderResult = renderResult;
  G.renderTable = function (el, rows, o) { return renderTable(el, Array.isArray(rows) ? rows.filter(isObj) : [], o); };
  G.renderChart = function (el, data, o) {
    o = o || {};
    var ser = Array.isArray(data) ? series(data, o, true) : null;
    if (!ser) return render(el, data, { view: 'table' });
    return renderChart(el, ser, o);
  };
  G.renderCards = function (el, obj, o) { return isObj(obj) ? renderCards(el, obj, o || {}, 0) : render(el, obj, o); };
  G.renderJson = renderJson;
  G.renderText = function (el, t) { el.append(text(String(t))); return el; };
})();
