// The result's host controls (book: reference/pages.md, "Living in the host"), each offered only
// when the host offers what it needs: fullscreen for a large result (a table over a screenful, a
// chart, long text) when availableDisplayModes lists it, and CSV and JSON downloads of a records
// result through ui/download-file when the host has downloadFile. Registered for the 'result'
// point of view.js's renderResult.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, isObj = G.schema.isObj, isArr = Array.isArray, Str = String, toJson = JSON.stringify;
  var html = document.documentElement;
  var app = () => G.app || {};
  var ctx = () => app().getHostContext?.() || {};
  var data = {};
  try { data = JSON.parse(G._byId('mcp-gen-ui-data').textContent) || {}; } catch (e) { /* app.js says so */ }
  var stem = Str(data.tool?.name || 'result').replace(/[^\w.-]+/g, '-').slice(0, 64) || 'result';

  // The value a result holds: its structuredContent, else the JSON of its one text item.
  var value = (r) => {
    if (r.structuredContent !== undefined) return r.structuredContent;
    var t = (isArr(r.content) ? r.content : []).filter((c) => c?.type === 'text');
    if (t.length === 1) try { return JSON.parse(t[0].text); } catch (e) { /* not JSON */ }
  };
  var recs = (v) => isArr(v) && v.length && v.every(isObj) ? v : null;
  // Its records: an array of objects, or the first such array directly under it.
  var records = (v) => recs(v) || (isObj(v) ? Object.values(v).map(recs).find(Boolean) : null) || null;
  // RFC 4180: fields with a quote, comma or line break quoted, quotes doubled, CRLF lines. A text
  // cell that a spreadsheet would run as a formula gets a leading apostrophe; numbers never do.
  var cell = (v) => {
    var t = v == null ? '' : typeof v === 'object' ? toJson(v) : Str(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(t)) t = "'" + t;
    return /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  var csv = (rows) => {
    var cols = [];
    rows.forEach((r) => Object.keys(r).forEach((k) => { if (!cols.includes(k)) cols.push(k); }));
    return [cols].concat(rows.map((r) => cols.map((k) => r[k]))).map((line) => line.map(cell).join(',')).join('\r\n') + '\r\n';
  };
  var download = (say, name, mimeType, text) => {
    say('');
    app().downloadFile({ contents: [{ type: 'resource', resource: { uri: 'file:///' + name, mimeType, text } }] })
      .then((r) => say(r?.isError ? 'The download did not happen.' : ''), (e) => say('The download failed: ' + G._message(e)));
  };

  // Fullscreen: the button names the other mode; the layout follows the mode the host grants.
  var modes = () => isArr(ctx().availableDisplayModes) ? ctx().availableDisplayModes : [];
  var full = () => html.getAttribute('data-mode') === 'fullscreen';
  var label = () => document.querySelectorAll('button.fs').forEach((b) => { b.textContent = full() ? 'Exit fullscreen' : 'Fullscreen'; });
  var listening = false;
  var toggle = () => {
    var mode = full() ? 'inline' : 'fullscreen';
    app().requestDisplayMode({ mode }).then((r) => {
      if (typeof r?.mode === 'string') html.setAttribute('data-mode', r.mode);
      label();
    }, (e) => console.warn('mcp-gen-ui: display mode not changed:', G._message(e)));
  };

  G._on('result', (r, body) => {
    if (!isObj(r) || r.isError) return null;
    var out = [], v = value(r), rows = records(v);
    if (modes().includes('fullscreen') || full()) {
      var fs = h('button.btn.ghost.fs', { text: full() ? 'Exit fullscreen' : 'Fullscreen', onclick: toggle, hidden: !full() });
      if (!listening && G.app?.addEventListener) { listening = true; G.app.addEventListener('hostcontextchanged', label); }
      // Large: known once drawn (the body is in the page when the microtask runs).
      if (!full()) Promise.resolve().then(() => { fs.hidden = !(body.querySelector('.chartbox') || body.offsetHeight > 560 || body.textContent.length > 4000); });
      out.push(fs);
    }
    if (rows && isObj(app().getHostCapabilities?.()?.downloadFile)) {
      var st = h('span.help', { role: 'status' }), say = (t) => { st.textContent = t; };
      out.push(h('button.btn.ghost', { text: 'Download CSV', onclick: () => download(say, stem + '.csv', 'text/csv', csv(rows)) }),
        h('button.btn.ghost', { text: 'Download JSON', onclick: () => download(say, stem + '.json', 'application/json', toJson(v, null, 2)) }), st);
    }
    return out;
  });
})();
