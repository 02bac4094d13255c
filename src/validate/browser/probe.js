// The judge's probes, run in an isolated world of the page's frame (the page's own scripts
// cannot see or change them): what text is on screen, filling the form from a tool-input,
// pressing Run, confirming an in-page dialog, and the contrast of every rendered text.
(function (op, arg) {
  'use strict';
  var norm = function (s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, ''); };
  var controls = 'input, select, textarea';

  function labelled(key) {
    var want = norm(key);
    var labels = document.querySelectorAll('label');
    for (var i = 0; i < labels.length; i++) {
      var c = labels[i].control;
      if (c && norm(labels[i].textContent).indexOf(want) >= 0) return c;
    }
    var all = document.querySelectorAll(controls);
    for (var j = 0; j < all.length; j++) {
      var a = all[j].getAttribute('aria-label') || all[j].getAttribute('placeholder') || '';
      if (a && norm(a).indexOf(want) >= 0) return all[j];
    }
    return null;
  }

  function field(key) {
    var q = '"' + CSS.escape(key) + '"';
    return document.querySelector('input[name=' + q + '], select[name=' + q + '], textarea[name=' + q + ']') ||
      document.querySelector('input[id=' + q + '], select[id=' + q + '], textarea[id=' + q + ']') || labelled(key);
  }

  function set(el, v) {
    var tag = el.tagName.toLowerCase(), type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'checkbox' || type === 'radio') el.checked = !!v;
    else if (tag === 'select') {
      var opts = el.options, hit = null;
      for (var i = 0; i < opts.length; i++) if (opts[i].value === String(v) || norm(opts[i].textContent) === norm(v)) { hit = opts[i]; break; }
      if (!hit) return false;
      el.value = hit.value;
    } else if (type === 'datetime-local') el.value = String(v).replace(/(Z|[+-]\d\d:\d\d)$/, '').slice(0, 16);
    // What a person's picker gives: HH:MM, YYYY-MM-DD.
    else if (type === 'time') el.value = String(v).slice(0, 5);
    else if (type === 'date') el.value = String(v).slice(0, 10);
    else el.value = String(v);
    if (type === 'number' || type === 'range') {
      // A value the control's own step refuses would block the form: the nearest step.
      var step = parseFloat(el.step), base = parseFloat(el.min) || 0, n = parseFloat(el.value);
      if (el.validity && el.validity.stepMismatch && step > 0 && !isNaN(n)) el.value = String(base + Math.round((n - base) / step) * step);
    }
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return true;
  }

  function fill(input) {
    var out = { filled: [], missing: [] }, form = null;
    var flat = {};
    Object.keys(input || {}).forEach(function (k) {
      var v = input[k];
      // A list of rows: the first row's fields (a row editor shows one to begin with).
      if (Array.isArray(v) && v[0] && typeof v[0] === 'object') Object.keys(v[0]).forEach(function (k2) { if (!(k2 in flat)) flat[k2] = v[0][k2]; });
      else flat[k] = v;
    });
    Object.keys(flat).forEach(function (k) {
      var v = flat[k];
      if (v !== null && typeof v === 'object') return;
      var el = field(k);
      if (el && !el.disabled && set(el, v)) { out.filled.push(k); form = form || el.form; } else out.missing.push(k);
    });
    window.__judgeForm = form;
    return out;
  }

  var skip = /swap|reset|clear|cancel|close|copy|theme|toggle|dark mode|light mode|back|more|less|expand|collapse/i;
  function run() {
    var form = window.__judgeForm || document.querySelector('form');
    var submit = 'button[type=submit], input[type=submit], button:not([type])';
    var b = (form && form.querySelector(submit)) || document.querySelector(submit);
    if (!b) {
      var all = document.querySelectorAll('button, [role=button]');
      for (var i = 0; i < all.length; i++) if (!skip.test(all[i].textContent || '')) { b = all[i]; break; }
    }
    if (b) { b.click(); return (b.textContent || b.value || b.tagName).trim().slice(0, 40); }
    if (form) { form.requestSubmit(); return 'the form'; }
    return null;
  }

  function confirmDialog() {
    var d = document.querySelector('[role=alertdialog], dialog[open]');
    if (!d) return false;
    var bs = d.querySelectorAll('button');
    for (var i = 0; i < bs.length; i++) if (/confirm|yes|delete|ok|continue|proceed|run|send/i.test(bs[i].textContent || '')) { bs[i].click(); return true; }
    return false;
  }

  function rgba(c) {
    var m = /rgba?\(([^)]+)\)/.exec(c || '');
    if (!m) return null;
    var p = m[1].split(/[\s,\/]+/).filter(Boolean).map(parseFloat);
    if (p.length < 3 || p.some(isNaN)) return null;
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  }
  var over = function (f, b) { return { r: f.r * f.a + b.r * (1 - f.a), g: f.g * f.a + b.g * (1 - f.a), b: f.b * f.a + b.b * (1 - f.a), a: 1 }; };
  var lum = function (c) {
    var ch = function (v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.r) + 0.7152 * ch(c.g) + 0.0722 * ch(c.b);
  };
  var ratio = function (a, b) { var x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  var hex = function (c) { return '#' + [c.r, c.g, c.b].map(function (v) { return ('0' + Math.round(v).toString(16)).slice(-2); }).join(''); };

  function background(el) {
    var layers = [];
    for (var e = el; e; e = e.parentElement) {
      var cs = getComputedStyle(e);
      if (cs.backgroundImage && cs.backgroundImage !== 'none') return null;
      var c = rgba(cs.backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    var scheme = getComputedStyle(document.documentElement).colorScheme || '';
    var base = scheme.trim() === 'dark' ? { r: 18, g: 18, b: 18, a: 1 } : { r: 255, g: 255, b: 255, a: 1 };
    for (var i = layers.length - 1; i >= 0; i--) base = over(layers[i], base);
    return base;
  }

  var ident = /^[A-Za-z_][\w-]*$/;
  function selector(el) {
    var parts = [];
    for (var e = el, depth = 0; e && e !== document.documentElement && depth < 4; e = e.parentElement, depth++) {
      if (e.id && ident.test(e.id)) { parts.unshift('#' + e.id); break; }
      var s = e.tagName.toLowerCase();
      var cls = Array.prototype.filter.call(e.classList, function (c) { return ident.test(c); }).slice(0, 3);
      if (cls.length) s += '.' + cls.join('.');
      if (e === el && e.style && e.style.color) s += '[style*="color"]';
      parts.unshift(s);
      if (e === document.body) break;
    }
    return parts.join(' > ');
  }

  function contrast() {
    var out = [], seen = {};
    var all = document.body ? document.body.querySelectorAll('*') : [];
    for (var i = 0; i < all.length && out.length < 8; i++) {
      var el = all[i], tag = el.tagName.toLowerCase();
      if (/^(script|style|noscript|template|option|optgroup)$/.test(tag) || el.closest('svg, [hidden], [aria-hidden="true"]') || el.disabled) continue;
      var text = '';
      for (var n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3) text += n.nodeValue;
      text = text.trim();
      if (!text || !el.getClientRects().length) continue;
      var cs = getComputedStyle(el);
      if (cs.visibility !== 'visible' || parseFloat(cs.opacity) === 0) continue;
      var fg = rgba(cs.color), bg = background(el);
      if (!fg || !bg || fg.a === 0) continue;
      var size = parseFloat(cs.fontSize), weight = parseInt(cs.fontWeight, 10) || 400;
      var need = size >= 24 || (size >= 18.66 && weight >= 700) ? 3 : 4.5;
      var r = ratio(over(fg, bg), bg);
      if (r + 1e-6 >= need) continue;
      var sel = selector(el);
      if (seen[sel]) continue;
      seen[sel] = true;
      out.push({ selector: sel, text: text.slice(0, 40), fg: hex(over(fg, bg)), bg: hex(bg), ratio: Math.round(r * 100) / 100, need: need, inline: !!(el.style && el.style.color) });
    }
    return out;
  }

  switch (op) {
    case 'values': {
      var t = norm(document.body ? document.body.innerText : '');
      return arg.filter(function (v) { return t.indexOf(norm(v)) < 0; });
    }
    case 'chart': {
      // A drawn chart: a visible svg with a line or area, or at least two marks (bars, dots);
      // or a canvas that has a size.
      var drawn = false;
      document.querySelectorAll('svg').forEach(function (svg) {
        if (!svg.getClientRects().length) return;
        if (svg.querySelector('polyline, path, polygon') || svg.querySelectorAll('rect, circle, line').length >= 2) drawn = true;
      });
      return drawn || Array.prototype.some.call(document.querySelectorAll('canvas'), function (c) {
        return c.width > 0 && c.height > 0 && c.getClientRects().length > 0;
      });
    }
    case 'fill': return fill(arg);
    case 'run': return run();
    case 'confirm': return confirmDialog();
    case 'contrast': return contrast();
    case 'theme': return document.documentElement.getAttribute('data-theme') || '';
    default: return null;
  }
})
