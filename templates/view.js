// The universal result view: a CallToolResult (or any JSON value) as tables, SVG charts, cards,
// lists, text and media. Untrusted strings only ever reach the page through textContent or
// attributes; links open through the host.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, fmtNum = S.fmtNum, fmtDate = S.fmtDate;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var M = Math, Str = String, isArr = Array.isArray, oKeys = Object.keys, toJson = JSON.stringify;
  var ROWS = 50, TEXT = 1200, RAW = 20000;
  var URL_RE = /^(https?:\/\/|mailto:)[^\s<>"]+$/i;
  var TIMEY = /(^|_)(date|time|day|week|month|quarter|year|hour|minute|period|timestamp|ts|t|x)$/i;
  var ISO = /^\d{4}-\d\d(-\d\d)?([T ]\d\d:\d\d.*)?$/;
  // Keys whose numbers are codes, not quantities: shown as they are (no grouping).
  var CODE = /(^|_)(id|ids|year|zip|code|port|pid|version|number|no)$|[a-z](Id|Year|Code)$/;
  // Keys that make a list of objects a list of records (a table), not a series.
  var IDENT = /(^|_)(id|uuid|guid|name|title|email|sku|slug|username|login|label|key)$|[a-z](Id|Name|Title|Key)$/i;

  var lab = (k, o) => o.labels?.[k] || S.words(k);
  var hidden = (k, o) => o.hidden?.includes?.(k);
  var num = (v) => typeof v === 'number' && isFinite(v);
  var str = (v) => typeof v === 'string';
  var empty = (text) => h('p.help.empty', text);
  var btn = (text, onclick, cls) => h('button.btn.sm' + (cls || ''), { text, onclick });
  var pre = (t) => h('pre.raw', h('code', t));
  // (h only reads its attributes: one object serves every element.)
  var quiet = { 'aria-hidden': 'true' };
  // The render functions append to the element they are given and return it.
  var put = (el, ...kids) => { el.append(...kids); return el; };

  var link = (url, text) => {
    return h('a', {
      href: url, class: 'link', target: '_blank', rel: 'noopener noreferrer', text: text || url,
      onclick: (e) => {
        e.preventDefault();
        var app = G.app;
        if (app?._ready) app.openLink({ url }).catch((err) => console.warn('mcp-gen-ui: open-link failed', err));
      }
    });
  };

  // Text longer than "max" shows its start and a button that reveals the rest.
  var more = (full, max, make) => {
    if (full.length <= max) return make(full);
    var box = h('div.trunc', make(full.slice(0, max) + '…'), btn('Show more (' + (full.length - max) + ' more characters)', () => box.replaceChildren(make(full))));
    return box;
  };

  // Numbers and dates for people (host locale and time zone); the raw value on hover.
  var scalar = (v, k) => {
    if (v == null) return h('span.nil', v === null ? 'null' : '—');
    if (num(v) && !(k && CODE.test(k))) {
      var f = fmtNum(v), raw = Str(v);
      return h('span.number', { text: f, title: f !== raw && raw });
    }
    if (str(v)) {
      if (URL_RE.test(v)) return link(v);
      var d = v.length < 40 && fmtDate(v);
      return d ? h('time', { datetime: v, title: v, text: d }) : more(v, 300, (t) => h('span.str', t));
    }
    if (isNode(v)) return more(toJson(v), 200, (t) => h('code', t));
    return h('span', { class: typeof v, text: Str(v) });
  };

  // A safe Markdown subset (book: reference/pages.md, "Markdown"), for results and for the form's
  // descriptions: paragraphs, headings, lists (nested by indentation), quotes, code fences,
  // **strong**, *emphasis*, inline code, [links](url), <autolinks> and bare URLs. Only http,
  // https and mailto links become links (opened through the host); any other link, an image
  // (its alt text) and raw HTML stay text: nothing here ever becomes markup.
  var INL = /\x60([^\x60]+)\x60|!\[([^\]]*)\]\(([^()\s]*)(?:\s+"[^"]*")?\)|\[([^\]]+)\]\(([^()\s]+)(?:\s+"[^"]*")?\)|<((?:https?:\/\/|mailto:)[^\s<>]+)>|(\*\*|__)(?=\S)([\s\S]*?\S)\7|(^|[^\w*\\])([*_])(?=[^\s*_])([^*_]*?[^\s*_\\])\10(?!\w)|\\([\\\x60*_[\]()#+\-.!<>])|https?:\/\/[^\s<>()"]*[^\s<>()".,;:!?'*_]/g;
  var inline = (text) => {
    // (A copy per call: the strong and emphasis texts are read while the outer one is.)
    var out = [], last = 0, m, re = new RegExp(INL);
    while ((m = re.exec(text))) {
      var at = m.index + (m[9] || '').length;
      if (at > last) out.push(text.slice(last, at));
      var n = m[1] ? h('code', m[1])
        : m[3] !== undefined ? m[2] || m[0]
        : m[4] ? URL_RE.test(m[5]) ? link(m[5], m[4]) : m[0]
        : m[6] ? link(m[6])
        : m[8] ? h('strong', inline(m[8]))
        : m[11] ? h('em', inline(m[11]))
        : m[12] || link(m[0]);
      out.push(n);
      last = re.lastIndex;
    }
    out.push(text.slice(last));
    return out;
  };
  var markdown = (text, box) => {
    box = box || h('div.md');
    var lines = text.split(/\r?\n/), para = [], lists = [], i, l, m, LI = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/, QUOTE = /^\s{0,3}>\s?(.*)$/;
    var flush = () => { if (para.length) box.append(h('p', inline(para.join('\n')))); para = []; };
    var close = () => { flush(); lists = []; };
    // A block ends the paragraph and the lists before it.
    var block = (el) => { close(); box.append(el); };
    for (i = 0; i < lines.length; i++) {
      l = lines[i];
      if ((m = /^\s*(\x60{3,}|~{3,})/.exec(l))) {
        var code = [], fence = m[1];
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence); i++) code.push(lines[i]);
        block(h('pre', h('code', code.join('\n'))));
      } else if (/^\s{0,3}#{1,6}\s/.test(l)) block(h('p.mdh', h('strong', inline(l.replace(/^\s*#+\s*/, '').replace(/\s#+\s*$/, '')))));
      else if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(l)) block(h('hr'));
      else if ((m = LI.exec(l))) {
        flush();
        var ind = m[1].replace(/\t/g, '    ').length, tag = /\d/.test(m[2]) ? 'ol' : 'ul', top;
        while ((top = lists[lists.length - 1]) && (ind < top.ind || (ind === top.ind && tag !== top.tag))) lists.pop();
        if (!top || ind > top.ind) {
          var from = parseInt(m[2]), list = h(tag, { start: from > 1 && from });
          (top ? top.li : box).append(list);
          lists.push(top = { el: list, ind, tag });
        }
        top.el.append(top.li = h('li', inline(m[3])));
      } else if (!l.trim()) close();
      // An indented line continues the last item (top: the innermost list, while there are lists).
      else if (lists.length && /^\s/.test(l)) top.li.append('\n', ...inline(l.trim()));
      else if ((m = QUOTE.exec(l))) {
        var quote = [m[1]];
        while (i + 1 < lines.length && (m = QUOTE.exec(lines[i + 1]))) { quote.push(m[1]); i++; }
        block(h('blockquote', markdown(quote.join('\n'))));
      } else { lists = []; para.push(l); }
    }
    close();
    return box;
  };
  var text = (t) => more(t, TEXT, markdown);

  var tryJson = (t) => {
    var s = str(t) ? t.trim() : '';
    if (/^[[{]/.test(s)) try { return JSON.parse(s); } catch (e) { /* text */ }
  };

  var columns = (rows, o) => {
    var cols = [];
    rows.slice(0, 200).forEach((r) => { for (var k in r) if (!cols.includes(k) && !hidden(k, o)) cols.push(k); });
    return cols;
  };

  // A value on an ordered axis: a date or date-time string (ms), or a number.
  var ordinal = (v) => {
    if (num(v)) return v;
    var t = str(v) && ISO.test(v) ? Date.parse(v.length === 7 ? v + '-01' : v) : NaN;
    return isNaN(t) ? null : t;
  };
  // Numeric series: an ordered x (dates or times, or a numeric key such as year or step; rows are
  // sorted by it) with numeric y fields, or an array of numbers. A list of records (identifiers or
  // names among its fields) is a table, not a series, unless a hint asks for a chart.
  // -> [rows, x key, y keys, whether x is ordered] or null.
  var series = (v, o, forced) => {
    if (v.length < 2) return null;
    if (v.every(num)) return [v.map((y, i) => ({ '#': i + 1, value: y })), '#', ['value'], true];
    if (!v.every(isObj)) return null;
    var cols = columns(v, o);
    var all = (f) => (k) => v.every((r) => f(r[k]));
    // (v has rows: no column is both.)
    var nums = cols.filter(all(num)), texts = cols.filter(all(str));
    var ordered = all((t) => ordinal(t) != null);
    // A forced chart takes the first text column when no other x fits.
    var x = (o.x && cols.includes(o.x) ? o.x : texts.find(ordered))
      || nums.find((k) => /^(year|x|t|time|timestamp|ts|epoch|hour|day|week|month|step|index|n|i|tick|iteration|epoch_ms)$/i.test(k))
      || (forced ? texts[0] : texts.find((k) => TIMEY.test(k)));
    if (!forced && (!x || cols.some((k) => k !== x && IDENT.test(k)))) return null;
    var ys = o.y?.length ? o.y.filter((k) => nums.includes(k)) : nums.filter((k) => k !== x && !CODE.test(k)).slice(0, 6);
    if (!ys.length) return null;
    var ord = x && ordered(x);
    return [ord ? v.slice().sort((a, b) => ordinal(a[x]) - ordinal(b[x])) : v, x, ys, ord];
  };

  var renderChart = (el, ser, o, bar) => {
    var [data, sx, ys, ord] = ser, rows = data.slice(0, 1000), W = 640, H = 260, L = 56, R = 12, T = 12, B = 34;
    var n = rows.length, pw = W - L - R, ph = H - T - B, all = rows.flatMap((r) => ys.map((k) => r[k]).filter(num));
    // A bar chart's axis includes 0.
    if (bar) all.push(0);
    var lo = M.min(...all), hi = M.max(...all);
    if (lo === hi) { lo -= 1; hi += 1; }
    // Round axis ticks: steps of 1, 2 or 5 × 10ⁿ covering [lo, hi], about 5 of them.
    var raw = (hi - lo) / 4, p = M.pow(10, M.floor(M.log10(raw))), f = raw / p;
    var step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p, tks = [], fmt = Str;
    lo = M.floor(lo / step) * step;
    hi = M.ceil(hi / step) * step;
    for (var t = lo; t <= hi + step / 2 && tks.length < 50; t += step) tks.push(M.round(t / step) * step);
    // (Intl's format is a bound function.)
    try { fmt = new Intl.NumberFormat(S.where().locale, { maximumFractionDigits: M.max(0, M.min(20, -M.floor(M.log10(step) + 1e-9))), notation: step >= 1e6 ? 'compact' : 'standard', useGrouping: 'min2' }).format; } catch (e) { /* plain */ }
    // Dates and numeric keys are placed by value, anything else evenly (a series has 2 rows or more).
    var xs = ord && !bar && sx ? rows.map((r) => ordinal(r[sx])) : null;
    var x0 = xs?.[0], x1 = xs?.[n - 1];
    if (x1 === x0) xs = null;
    var X = (i) => L + (xs ? (xs[i] - x0) / (x1 - x0) * pw : bar ? (i + 0.5) * pw / n : i * pw / (n - 1));
    var Y = (v) => T + ph - (v - lo) / (hi - lo) * ph;
    var fix = (v) => v.toFixed(1);
    var xl = (i, long) => {
      if (!sx) return Str(i + 1);
      var v = rows[i][sx];
      if (num(v)) return CODE.test(sx) ? Str(v) : fmtNum(v);
      if (/^\d{4}-\d\d$/.test(v)) try { return new Intl.DateTimeFormat(S.where().locale, { timeZone: 'UTC', year: 'numeric', month: long ? 'long' : 'short' }).format(new Date(v + '-01T00:00:00Z')); } catch (e) { return v; }
      return fmtDate(v, !long) || Str(v);
    };
    var names = ys.map((k) => lab(k, o)), title = (bar ? 'Bar' : 'Line') + ' chart of ' + names.join(', ') + (sx ? ' by ' + lab(sx, o) : '');
    // Points carry their own names (a role=img chart would hide them from screen readers), up to
    // a few hundred; past that the chart is one image and the Table view lists the values.
    var named = n * ys.length <= 400;
    var svg = h('svg:svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'chart', role: named ? 'group' : 'img', 'aria-label': title + (named ? '' : ' (' + n + ' points: the Table view lists them)') });
    var axis = (x, y, anchor, text) => h('svg:text', { x, y, 'text-anchor': anchor, class: 'axis', ...quiet, text });
    tks.forEach((v) => {
      var y = Y(v);
      svg.append(h('svg:line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid', ...quiet }), axis(L - 6, y + 4, 'end', fmt(v)));
    });
    // Up to 4 labelled rows on the x axis: the first, the last and two between.
    var xt = [...new Set([0, 1, 2, 3].map((q) => M.round(q * (n - 1) / 3)))];
    xt.forEach((i, j) => svg.append(axis(X(i), H - 10, bar ? 'middle' : !j ? 'start' : j === xt.length - 1 ? 'end' : 'middle', xl(i).slice(0, 24))));
    ys.forEach((k, si) => {
      var cls = ' s' + (si % 6), bw = pw / n / (ys.length + 0.5), pts = [], marks = [];
      var name = names[si] + ', ' + (sx ? lab(sx, o) + ' ' : '#');
      rows.forEach((r, i) => {
        var v = r[k];
        if (!num(v)) return;
        var a = named ? { role: 'img', 'aria-label': name + xl(i, true) + ': ' + fmtNum(v) } : quiet;
        // Hover shows the raw values; screen readers get them formatted.
        var tip = h('svg:title', name + (sx ? Str(r[sx]) : i + 1) + ': ' + v);
        var cx = fix(X(i)), cy = fix(Y(v));
        pts.push(cx + ',' + cy);
        if (bar) {
          var y0 = Y(M.max(0, v)), y1 = Y(M.min(0, v));
          marks.push(h('svg:rect', { x: fix(X(i) - pw / n / 2 + bw * (si + 0.25)), y: fix(y0), width: fix(M.max(bw - 1, 1)), height: fix(M.max(y1 - y0, 0.5)), class: 'bar' + cls, ...a }, tip));
        } else if (n <= 400) marks.push(h('svg:circle', { cx, cy, r: n > 120 ? 2 : 3, class: 'pt' + cls, ...a }, tip));
      });
      if (!bar) svg.append(h('svg:polyline', { points: pts.join(' '), class: 'ln' + cls, ...quiet }));
      svg.append(...marks);
    });
    return put(el, h('figure.chartbox', svg, h('ul.legend', names.map((k, si) => h('li', h('span', { class: 'sw s' + (si % 6), ...quiet }), k)))));
  };

  var renderTable = (el, rows, o) => {
    var cols = columns(rows, o), p = Str(o.sort || '').split(/\s+/);
    var sortKey = p[0] || null, dir = p[1] === 'desc' ? -1 : 1, q = '', limit = ROWS;
    var fid = 'flt' + M.random().toString(36).slice(2, 8);
    var filter = h('input', { type: 'search', id: fid, placeholder: 'Filter rows…', oninput: () => { q = filter.value; limit = ROWS; draw(); } });
    var count = h('span.count', { 'aria-live': 'polite' });
    var ths = cols.map((k) => h('th', { scope: 'col' }, h('button.sort', { text: lab(k, o), onclick: () => { dir = sortKey === k ? -dir : 1; sortKey = k; draw(); } })));
    var tbody = h('tbody'), foot = h('div.tfoot');
    var cmp = (a, b) => {
      var x = a[sortKey], y = b[sortKey];
      return x == null ? 1 : y == null ? -1 : (num(x) && num(y) ? x - y : Str(x).localeCompare(Str(y), undefined, { numeric: true })) * dir;
    };
    var draw = () => {
      var ql = q.toLowerCase();
      var vis = rows.filter((r) => !ql || cols.some((k) => { var v = r[k]; return v != null && (isNode(v) ? toJson(v) : Str(v)).toLowerCase().includes(ql); }));
      var n = vis.length, left = n - limit;
      if (sortKey) vis.sort(cmp);
      ths.forEach((th, i) => th.setAttribute('aria-sort', cols[i] === sortKey ? (dir > 0 ? 'ascending' : 'descending') : 'none'));
      tbody.replaceChildren(...n ? vis.slice(0, limit).map((r) => h('tr', cols.map((k) => { var v = r[k]; return h('td', { class: num(v) && 'n' }, scalar(v, k)); })))
        : [h('tr', h('td', { colspan: cols.length, class: 'empty', text: 'No rows match "' + q + '".' }))]);
      count.textContent = n + ' of ' + rows.length + ' rows';
      foot.replaceChildren(...left > 0 ? [btn('Show ' + M.min(left, 200) + ' more rows', () => { limit += 200; draw(); })] : []);
    };
    draw();
    return put(el, h('div.tablebox',
      rows.length > 5 && h('div.tools', h('label.sr', { for: fid, text: 'Filter rows' }), filter, count),
      h('div.scroll', { tabindex: '0', role: 'region', 'aria-label': 'Table' + (o.caption ? ': ' + o.caption : '') }, h('table', h('thead', h('tr', ths)), tbody)), foot));
  };

  // A pane that a button (its state in attribute "state") shows and hides, filled the first time
  // it is shown (every fill adds something).
  var pane = (el, b, state, fill) => (on) => {
    el.hidden = !on;
    b.setAttribute(state, on);
    if (on && !el.firstChild) fill(el);
  };

  // One pane per view, each filled the first time it is shown.
  var toggleBox = (views) => {
    var bar = h('div.tools', { role: 'group', 'aria-label': 'View' }), box = h('div.multi', bar);
    var show = (i) => shows.forEach((f, j) => f(j === i));
    var shows = views.map(([name, fill], i) => {
      var p = h('div'), b = btn(name, () => show(i));
      bar.append(b);
      box.append(p);
      return pane(p, b, 'aria-pressed', fill);
    });
    show(0);
    return box;
  };

  var renderCards = (el, obj, o, depth) => {
    var items = oKeys(obj).filter((k) => !hidden(k, o)).map((k) => {
      var v = obj[k], name = lab(k, o), deep = isNode(v) && depth < 8;
      // A nested value folds under its name; a long text (a path, a sentence) gets the whole row
      // instead of a tall narrow card.
      return h('div.kv' + (deep ? '.wide' : str(v) && v.length > 48 ? '.span' : ''), h(deep ? 'dt.sr' : 'dt', name),
        h('dd', deep ? h('details', { open: depth < 2 }, h('summary', name + (isArr(v) ? ' (' + v.length + ')' : '')), node(v, sub(o), depth + 1)) : scalar(v, k)));
    });
    return put(el, items.length ? h('dl.cards', items) : empty('No fields.'));
  };
  var sub = (o) => ({ labels: o.labels, hidden: o.hidden });
  var isNode = (x) => x !== null && typeof x === 'object';

  var list = (v, o, depth) => {
    // A short list of short values (tags, column names, ids) reads best as one line of chips.
    var chips = v.length <= 24 && v.every((x) => x === null || (!isNode(x) && Str(x).length <= 40));
    var items = (n) => v.slice(0, n).map((x) => h('li', isNode(x) ? node(x, sub(o), depth + 1) : scalar(x)));
    // The first ROWS, then a button that shows them all.
    var ul = h('ul.list' + (chips ? '.chips' : ''), items(ROWS), v.length > ROWS && h('li', btn('Show ' + (v.length - ROWS) + ' more', () => ul.replaceChildren(...items(v.length)))));
    return ul;
  };

  var renderJson = (el, v) => put(el, more(toJson(v, null, 2) ?? 'undefined', RAW, pre));

  // Picks a view for any JSON value; hints (o.view, o.x, o.y, …) only apply at the top level.
  var node = (v, o, depth) => {
    var view = !depth && o.view, box = h('div.val');
    if (view === 'json') return renderJson(box, v);
    // At the top, a wrapper around one array ({items: [...]}) shows the array itself under its
    // title, and so does a value's first array where a hint asks for another view than cards (the
    // rest as cards above it).
    var ks = isObj(v) ? oKeys(v) : [], key = !depth && ks.find((k) => isArr(v[k]) && v[k].length);
    if (key && (ks.length === 1 || (view && view !== 'cards'))) {
      var { [key]: _, ...rest } = v;
      if (ks.length > 1) renderCards(box, rest, o, 1);
      return put(box, h('p.sub', lab(key, o)), node(v[key], o, 0));
    }
    if (isArr(v)) {
      if (!v.length) return empty('No items.');
      if (view === 'list') return list(v, o, depth);
      var objs = v.every(isObj);
      var ser = series(v, o, view === 'line' || view === 'bar');
      if (ser && view !== 'table' && view !== 'cards') {
        return toggleBox([['Chart', (p) => renderChart(p, ser, o, view === 'bar')], ['Table', (p) => renderTable(p, ser[0], o)]]);
      }
      if (objs && view === 'cards') { v.slice(0, ROWS).forEach((x) => renderCards(box, x, o, depth + 1)); return box; }
      return objs ? renderTable(box, v, o) : list(v, o, depth);
    }
    if (isObj(v)) return renderCards(box, v, o, depth);
    if (str(v)) return depth ? scalar(v) : v.trim() ? text(v) : empty('Empty text.');
    return put(box, scalar(v));
  };

  var render = (el, v, o) => put(el, node(v, o || {}, 0));

  // An image or audio item (kind: its type), shown only when its data is base64 of a media type of its kind.
  var media = (c) => {
    var mime = Str(c.mimeType || ''), data = Str(c.data || ''), src = 'data:' + mime + ';base64,' + data.replace(/\s/g, '');
    var kind = c.type, image = kind === 'image', what = (image ? 'Image' : 'Audio') + ' returned by the tool';
    var bad = !/^[A-Za-z0-9+/=\s]*$/.test(data) ? ': its data is not base64.' : !RegExp('^' + kind + '/[\\w.+-]+$').test(mime) ? ' of type ' + mime + '.' : '';
    return bad ? h('p.warn', 'Skipped ' + kind + ' content' + bad) : image ? h('img.media', { src, alt: what }) : h('audio', { controls: true, src, 'aria-label': what });
  };

  var resource = (c, o) => {
    var r = c.resource || c, uri = Str(r.uri || ''), name = r.name || r.title || uri, t = r.text, j = tryJson(t);
    return h('div.res', h('p.sub', URL_RE.test(uri) ? link(uri, name) : h('code', name)), r.description ? h('p.help', r.description) : null,
      str(t) ? (j !== undefined ? node(j, o, 0) : more(t, TEXT, pre))
      : str(r.blob) && media({ type: /^audio/.test(r.mimeType) ? 'audio' : 'image', mimeType: r.mimeType, data: r.blob }));
  };

  var copy = (value, status) => {
    var say = (ok) => { status.textContent = ok ? 'Copied.' : 'Copy is blocked here: select the raw JSON and copy it.'; };
    var fallback = () => {
      var ta = h('textarea.sr', quiet, value), ok;
      document.body.append(ta);
      ta.select();
      try { ok = document.execCommand('copy'); } catch (e) { /* blocked */ }
      ta.remove();
      say(ok);
    };
    try { navigator.clipboard.writeText(value).then(() => say(true), fallback); } catch (e) { fallback(); }
  };

  // A whole CallToolResult: error panel, structuredContent (checked against outputSchema), every
  // content item, then the raw JSON toggle and copy button.
  var renderResult = (el, r, o) => {
    o = o || {};
    r = isNode(r) ? r : { content: [{ type: 'text', text: Str(r) }] };
    el.textContent = '';
    var content = isArr(r.content) ? r.content : [], sc = r.structuredContent, has = sc !== undefined;
    var errs = !r.isError && has && o.outputSchema && G.validate ? G.validate(o.outputSchema, sc) : [];
    var item = (c) => {
      if (!isNode(c)) return;
      var t = c.type, j;
      if (t !== 'text') return t === 'image' || t === 'audio' ? media(c) : t === 'resource_link' || t === 'resource' ? resource(c, o) : renderJson(h('div'), c);
      j = tryJson(c.text);
      if (j === undefined) return text(Str(c.text ?? ''));
      // Servers often repeat structuredContent (or its one payload) as JSON text: show it once.
      if (!(has && (S.same(j, sc) || (isObj(sc) && Object.values(sc).some((x) => S.same(x, j)))))) return node(j, o, 0);
    };
    var body = h('div.result' + (r.isError ? '.is-error' : ''), r.isError
      ? h('div.error', { role: 'alert' }, h('strong', 'The tool reported an error'), content.filter((c) => c?.type === 'text').map((c) => text(Str(c.text))), has && node(sc, {}, 1))
      : [errs.length > 0 && h('div.warn', { role: 'note' }, h('strong', 'The result does not match the tool\'s outputSchema: '), errs.slice(0, 5).map((e) => e.path + ': ' + e.message).join('; ')),
        has && node(sc, o, 0), content.map(item), !has && !content.length && empty('The tool returned no content.')]);
    var raw = h('div.rawbox'), status = h('span.help', { role: 'status' }), rawText = toJson(r, null, 2) || '';
    var rawBtn = btn('Raw JSON', () => showRaw(raw.hidden), '.ghost');
    var showRaw = pane(raw, rawBtn, 'aria-expanded', (p) => renderJson(p, r));
    showRaw(false);
    // The host's controls for this result (export.js: fullscreen, downloads), via the 'result' point.
    body.append(h('div.tools.end', G._run('result', r, body), rawBtn, btn('Copy JSON', () => copy(rawText, status), '.ghost'), status), raw);
    return put(el, body);
  };

  G.render = render;
  G.renderResult = renderResult;
  G.renderTable = (el, rows, o) => renderTable(el, isArr(rows) ? rows.filter(isObj) : [], o || {});
  G.renderChart = (el, data, o) => {
    o = o || {};
    var ser = isArr(data) && series(data, o, true);
    return ser ? renderChart(el, ser, o, o.view === 'bar') : render(el, data, { view: 'table' });
  };
  G.renderCards = (el, obj, o) => isObj(obj) ? renderCards(el, obj, o || {}, 0) : render(el, obj, o);
  G.renderJson = renderJson;
  G.renderText = (el, t) => put(el, text(Str(t)));
  // The same renderer for the form's descriptions (form.js, app.js): el gets the blocks.
  G.markdown = (el, t) => { el.classList.add('md'); return markdown(Str(t), el); };
})();
