// The result's host controls (book: reference/pages.md, "Living in the host"), each offered only
// when the host offers what it needs: fullscreen for a large result (a table over a screenful, a
// chart, long text) when availableDisplayModes lists it, and CSV and JSON downloads of a records
// result through ui/download-file when the host has downloadFile. Registered for the 'result'
// point of view.js's renderResult.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, isObj = G.schema.isObj, isArr = Array.isArray, Str = String, toJson = JSON.stringify;
  var html = document.documentElement, app = () => G.app || {}, FULL = 'fullscreen', listening;
  var notice = (text) => G.showNotice(text);
  // The file's name: the tool's, from the page's App (app.js names it "mcp-gen-ui: TOOL").
  var stem = () => Str(app().appInfo?.name || 'result').replace(/^mcp-gen-ui: /, '').replace(/[^\w.-]+/g, '-');
  // The value a result holds: its structuredContent, else the JSON of its one text item.
  var value = (r) => {
    if (r.structuredContent !== undefined) return r.structuredContent;
    var t = (isArr(r.content) ? r.content : []).filter((c) => c?.type === 'text');
    if (t.length === 1) try { return JSON.parse(t[0].text); } catch (e) { /* not JSON */ }
  };
  var recs = (v) => isArr(v) && v.length && v.every(isObj) ? v : null;
  // RFC 4180: fields with a quote, comma or line break quoted, quotes doubled, CRLF lines. A text
  // cell that a spreadsheet would run as a formula gets a leading apostrophe; numbers never do.
  var cell = (v) => {
    var t = v == null ? '' : typeof v === 'object' ? toJson(v) : Str(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(t)) t = "'" + t;
    return /[",\r\n]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  var csv = (rows) => {
    var cols = [...new Set(rows.flatMap(Object.keys))];
    return [cols, ...rows.map((r) => cols.map((k) => r[k]))].map((l) => l.map(cell).join(',') + '\r\n').join('');
  };
  var offer = (ext, mimeType, text) => h('button.btn.ghost', {
    text: 'Download ' + ext.toUpperCase(),
    onclick: () => app().downloadFile({ contents: [{ type: 'resource', resource: { uri: 'file:///' + stem() + '.' + ext, mimeType, text: text() } }] })
      .then((r) => r?.isError && notice('The host did not download the file.'), (e) => notice('The download failed: ' + G._message(e)))
  });
  // Fullscreen: the button names the other mode; the layout follows the mode the host grants.
  var full = () => html.dataset.mode === FULL;
  var label = () => document.querySelectorAll('.fs').forEach((b) => { b.textContent = full() ? 'Exit fullscreen' : 'Fullscreen'; });
  var toggle = () => app().requestDisplayMode({ mode: full() ? 'inline' : FULL }).then((r) => {
    if (typeof r?.mode === 'string') html.dataset.mode = r.mode;
    label();
  }, (e) => notice(G._message(e)));

  G._on('result', (r, body) => {
    if (!isObj(r) || r.isError) return;
    var out = [], v = value(r), rows = recs(v) || (isObj(v) && Object.values(v).find(recs));
    if (full() || app().getHostContext?.()?.availableDisplayModes?.includes?.(FULL)) {
      var fs = h('button.btn.ghost.fs', { onclick: toggle, hidden: !full() });
      if (!listening) app().addEventListener?.('hostcontextchanged', listening = label);
      // Large (a table over a screenful, a chart, long text): known once the body is in the page.
      queueMicrotask(() => { fs.hidden = !(full() || body.querySelector('.chartbox') || body.offsetHeight > 560 || body.textContent.length > 4000); label(); });
      out.push(fs);
    }
    if (rows && isObj(app().getHostCapabilities?.()?.downloadFile)) out.push(offer('csv', 'text/csv', () => csv(rows)), offer('json', 'application/json', () => toJson(v, null, 2)));
    return out;
  });
})();
