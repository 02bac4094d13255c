// File fields (book: reference/pages.md, "Files"): a string with contentEncoding base64 or the
// data-url format is a file picker that reads the chosen file into that encoding, up to the page's
// cap (the [generate] max_file_bytes setting, 5 MB unless set). Checks the file's type against
// contentMediaType; shows its name, its size and, for images, a preview through a data: URL (the
// default CSP allows no blob:). A value written into it (tool-input) is shown as "file, N bytes",
// never as text, and goes out as it came. Embedded only for input schemas with such fields; it
// gives form.js the 'file' control.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, F = G.form;
  var cap = 5 * 1048576;
  try { var d = JSON.parse(G._byId('mcp-gen-ui-data').textContent).hints?.max_file_bytes; if (d > 0) cap = d; } catch (e) { /* the default */ }
  var size = (n) => n < 1024 ? n + ' bytes' : n < 1048576 ? (n / 1024).toFixed(1) + ' KB' : (n / 1048576).toFixed(1) + ' MB';
  // The bytes a base64 text stands for.
  var bytes = (b64) => { var t = b64.replace(/\s+/g, ''), pad = /==$/.test(t) ? 2 : /=$/.test(t) ? 1 : 0; return Math.max(0, Math.floor(t.length * 3 / 4) - pad); };
  var B64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
  // A media type against contentMediaType ("image/*" takes any image).
  var fits = (want, got) => !want || (want.endsWith('/*') ? got.startsWith(want.slice(0, -1)) : got.split(';')[0].trim().toLowerCase() === want.toLowerCase());

  var file = (s, o) => {
    var url = s.format === 'data-url', mt = typeof s.contentMediaType === 'string' ? s.contentMediaType : '';
    var inp = h('input', { type: 'file' }), info = h('p.help.filei'), prev = h('div.filep');
    if (mt) inp.accept = mt;
    var box = F.leaf(o, inp, F.nid(), s, info);
    var rm = h('button.btn.sm.ghost', { text: 'Remove file', hidden: true });
    info.after(prev, rm);
    // value: what a Run sends; busy: a file still being read.
    var value, busy = false;
    var shown = (name, n, dataUrl) => {
      info.textContent = (name ? name + ', ' : 'file, ') + size(n);
      prev.textContent = '';
      if (/^data:image\/[\w.+-]+[;,]/i.test(dataUrl || '')) prev.append(h('img', { src: dataUrl, alt: 'Preview of ' + (name || 'the file') }));
      rm.hidden = false;
    };
    var clear = () => { value = undefined; inp.value = ''; info.textContent = ''; prev.textContent = ''; rm.hidden = true; };
    // Removing is a change of the person's (a written value is no longer sent).
    rm.addEventListener('click', () => { clear(); F.setErr(box); inp.dispatchEvent(new Event('input', { bubbles: true })); inp.focus(); });
    inp.addEventListener('change', () => {
      var f = inp.files && inp.files[0];
      F.setErr(box);
      if (!f) return;
      clear();
      if (f.size > cap) return F.setErr(box, ['This file is ' + size(f.size) + '; files of at most ' + size(cap) + ' can be sent.']);
      if (!fits(mt, f.type || '')) return F.setErr(box, ['Expected a ' + mt + ' file; ' + f.name + ' is ' + (f.type || 'of an unknown type') + '.']);
      var r = new FileReader();
      busy = true;
      r.onload = () => {
        busy = false;
        var text = String(r.result), at = text.indexOf(',');
        // A file of no known type reads as "data:application/octet-stream"; the schema's type is
        // the better label.
        if (url && mt && !f.type) text = 'data:' + mt + ';base64,' + text.slice(at + 1);
        value = url ? text : text.slice(at + 1);
        shown(f.name, f.size, url ? text : 'data:' + (f.type || mt) + ';base64,' + text.slice(at + 1));
      };
      r.onerror = () => { busy = false; F.setErr(box, ['This file could not be read' + (r.error ? ': ' + r.error.message : '.')]); };
      r.readAsDataURL(f);
    });
    return {
      el: box,
      exact: true,
      read(errs) {
        if (busy) return F.fail(box, errs, ['The file is still being read: try again in a moment.']);
        if (value === undefined && o.required) return F.need(box, errs, 'Choose a file.');
        return value;
      },
      write(v) {
        clear();
        if (typeof v !== 'string') { if (v != null) info.textContent = 'Not a file: ' + JSON.stringify(v).slice(0, 40); return; }
        value = v;
        var m = /^data:([^,]*?)(;base64)?,/i.exec(v), body = m ? v.slice(m[0].length) : v;
        var n = m && !m[2] ? body.length : bytes(body);
        shown('', n, m ? v : mt && B64.test(v) ? 'data:' + mt + ';base64,' + v.replace(/\s+/g, '') : '');
      }
    };
  };
  G._on('controls', () => ({ file }));
})();
