// What every LLM-written page gets on top of the runtime, for the mistakes models make that the
// post-processor cannot fix in the text (embedded only in LLM-written pages, after view.js):
//   - callServerTool checks the arguments of a call to the page's own tool against its
//     inputSchema (from <script type="application/json" id="mcp-gen-ui-tool">, else the host's
//     toolInfo): unambiguous coercions (numeric strings for number/integer, "true"/"false"/"on"
//     for booleans, "" for optional fields dropped, null dropped from optional fields whose
//     schema has no null (null is kept wherever the schema allows it), "HH:MM" and
//     datetime-local values completed with seconds and the host's UTC offset for the
//     time/date-time formats); what is still
//     invalid is shown in the page, naming the field, and the call is not sent (the promise
//     rejects with the same message).
//   - McpGenUi.localStorage / sessionStorage: the real storage when the frame may use it, else an
//     in-memory one (also installed as window.localStorage / sessionStorage, which throw in an
//     opaque-origin frame).
//   - McpGenUi.notice(message): an in-page message (what alert() is rewritten to).
//   - McpGenUi.confirm(message, {confirmLabel, cancelLabel}?) -> Promise<boolean>: an in-page,
//     accessible dialog; true only when the person chooses the confirming button.
//   - A result handler that throws: the result is rendered with renderResult anyway, the error
//     goes to console.error and to McpGenUi.handlerErrors (the page does not count as working).
//   - Controls the page's scripts create, bound to an input-schema field by their name or id and
//     without an accessible name, get one (aria-label) from the field's title or name, as the
//     generator does for the controls in the markup.
(function () {
  'use strict';
  var G = window.McpGenUi;
  if (!G || !G.App) return;
  var S = G.schema || {};
  var h = G.h;

  // ---- Storage -------------------------------------------------------------------------------
  function memory() {
    var m = new Map();
    return {
      get length() { return m.size; },
      key: function (i) { var k = Array.from(m.keys())[i]; return k === undefined ? null : k; },
      getItem: function (k) { k = String(k); return m.has(k) ? m.get(k) : null; },
      setItem: function (k, v) { m.set(String(k), String(v)); },
      removeItem: function (k) { m.delete(String(k)); },
      clear: function () { m.clear(); }
    };
  }
  function storage(name) {
    try {
      var s = window[name], probe = '__mcp_gen_ui__';
      s.setItem(probe, probe);
      s.removeItem(probe);
      return s;
    } catch (e) { /* opaque origin: SecurityError */ }
    var mem = memory();
    try { Object.defineProperty(window, name, { value: mem, configurable: true, enumerable: true, writable: true }); } catch (e) { /* keep the global as it is */ }
    return mem;
  }
  G.localStorage = storage('localStorage');
  G.sessionStorage = storage('sessionStorage');

  // ---- Messages and confirmation -------------------------------------------------------------
  var BOX = 'position:fixed;left:12px;right:12px;z-index:2147483646;padding:10px 12px;border-radius:8px;' +
    'border:1px solid var(--bd,#d5d9df);background:var(--bg,#fff);color:var(--fg,#1a1d21);' +
    'box-shadow:0 4px 16px rgba(0,0,0,.25);font:14px/1.4 system-ui,sans-serif;';
  function notice(message, kind) {
    var id = kind === 'error' ? 'mcp-gen-ui-error' : 'mcp-gen-ui-notice';
    var n = document.getElementById(id);
    if (!n) {
      var text = h('span');
      var close = h('button', { type: 'button', 'aria-label': 'Dismiss', style: 'margin-left:12px;font:inherit;color:inherit;background:transparent;border:1px solid currentColor;border-radius:6px;padding:0 8px;cursor:pointer' }, '×');
      n = h('div', { id: id, role: kind === 'error' ? 'alert' : 'status', style: BOX + (kind === 'error' ? 'bottom:12px;border-color:var(--bad,#b42318);' : 'top:12px;') }, text, close);
      close.addEventListener('click', function () { n.hidden = true; });
      (document.body || document.documentElement).append(n);
    }
    n.firstChild.textContent = String(message == null ? '' : message);
    n.hidden = false;
    return n;
  }
  G.notice = function (message) { notice(message, 'status'); };

  G.confirm = function (message, opts) {
    opts = opts || {};
    return new Promise(function (resolve) {
      var prev = document.activeElement;
      var title = h('p', { id: 'mcp-gen-ui-confirm-text', style: 'margin:0 0 12px' }, String(message == null ? 'Are you sure?' : message));
      var btn = 'font:inherit;padding:6px 14px;border-radius:6px;cursor:pointer;margin-left:8px;';
      var no = h('button', { type: 'button', style: btn + 'background:transparent;color:inherit;border:1px solid var(--bd,#8a919c)' }, String(opts.cancelLabel || 'Cancel'));
      var yes = h('button', { type: 'button', style: btn + 'background:var(--bad,#b42318);color:#fff;border:1px solid var(--bad,#b42318)' }, String(opts.confirmLabel || 'Confirm'));
      var box = h('div', {
        role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'mcp-gen-ui-confirm-text', tabindex: '-1',
        style: BOX + 'top:20%;max-width:420px;margin:0 auto;'
      }, title, h('div', { style: 'text-align:right' }, no, yes));
      var veil = h('div', { style: 'position:fixed;inset:0;z-index:2147483645;background:rgba(0,0,0,.4)' }, box);
      function done(v) {
        veil.remove();
        document.removeEventListener('keydown', key, true);
        if (prev && prev.focus) try { prev.focus(); } catch (e) { /* gone */ }
        resolve(v);
      }
      function key(e) {
        if (e.key === 'Escape') { e.preventDefault(); done(false); }
        if (e.key === 'Tab') { e.preventDefault(); (document.activeElement === no ? yes : no).focus(); }
      }
      no.addEventListener('click', function () { done(false); });
      yes.addEventListener('click', function () { done(true); });
      document.addEventListener('keydown', key, true);
      (document.body || document.documentElement).append(veil);
      // The safe choice has the focus: Enter alone never confirms.
      no.focus();
    });
  };

  // ---- Arguments -------------------------------------------------------------------------------
  var tool = null;
  try {
    var el = document.getElementById('mcp-gen-ui-tool');
    if (el) tool = JSON.parse(el.textContent || 'null');
  } catch (e) { tool = null; }
  function currentTool(app) {
    if (tool && tool.inputSchema) return tool;
    var info = app && app._ctx && app._ctx.toolInfo;
    return info && info.tool && info.tool.inputSchema ? info.tool : null;
  }

  var NUM = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  // A wall-clock time or date-time with seconds, completed with the UTC offset of the host's
  // time zone there (form-time.js: HostContext.timeZone, as the form's own fields use), else the
  // browser's (e.g. "2026-03-02T09:30:00+01:00").
  function zoned(wall) {
    var z = G.form?.control('time')?.zoned?.(wall);
    if (z) return z;
    var date = wall.includes('T') ? new Date(wall) : new Date();
    if (isNaN(date.getTime())) return wall;
    var m = -date.getTimezoneOffset(), sign = m >= 0 ? '+' : '-';
    m = Math.abs(m);
    return wall + sign + pad(Math.floor(m / 60)) + ':' + pad(m % 60);
  }
  function types(s) {
    if (Array.isArray(s.type)) return s.type;
    if (typeof s.type === 'string') return [s.type];
    if (s.properties) return ['object'];
    return [];
  }
  var norm = S.norm || function (s) { return s && typeof s === 'object' ? s : {}; };
  var own = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };

  // Returns the coerced value (undefined: drop the field); pushes "field: problem" to errs.
  function coerce(v, s0, root, path, required, errs, depth) {
    var s = norm(s0, root);
    var t = types(s);
    var name = path || 'arguments';
    if (depth > 32) return v;
    if (v === '' && !t.includes('string') && !(Array.isArray(s.enum) && s.enum.includes(''))) {
      if (!required) return undefined;
      errs.push(name + ': a value is required');
      return v;
    }
    if (v === '' && !required) return undefined;
    // null is kept where the schema allows it (book: reference/pages.md: a model's null is a value); where it does
    // not, an optional field is left out (not set) and a required one is refused.
    if (v == null) {
      var nullable = s.__null || t.includes('null') || (Array.isArray(s.enum) && s.enum.includes(null)) || (own(s, 'const') && s.const === null);
      if (v === null && !nullable && required) errs.push(name + ': a value is required');
      return v === null && !nullable && !required && t.length ? undefined : v;
    }
    if (typeof v === 'string' && (t.includes('number') || t.includes('integer')) && !t.includes('string') && NUM.test(v)) v = Number(v);
    if (typeof v === 'string' && t.includes('boolean') && !t.includes('string')) {
      var b = v.trim().toLowerCase();
      if (b === 'true' || b === 'on') v = true;
      else if (b === 'false') v = false;
    }
    if (typeof v === 'number' && t.includes('string') && !t.includes('number') && !t.includes('integer')) v = String(v);
    if (typeof v === 'string' && s.format === 'time' && /^\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(v)) {
      v = zoned(v.length === 5 ? v + ':00' : v);
    }
    if (typeof v === 'string' && s.format === 'date-time' && /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(v)) {
      var local = v.replace(' ', 'T');
      v = zoned(local.length === 16 ? local + ':00' : local);
    }
    if (Array.isArray(s.enum) && !s.enum.some(function (x) { return x === v; })) {
      var hit = s.enum.find(function (x) { return String(x) === String(v); });
      if (hit !== undefined) v = hit;
      else errs.push(name + ': must be one of ' + s.enum.map(function (x) { return JSON.stringify(x); }).join(', '));
      return v;
    }
    if (Array.isArray(v)) {
      if (t.length && !t.includes('array')) { errs.push(name + ': must be ' + t.join(' or ') + ', not a list'); return v; }
      var items = s.items && typeof s.items === 'object' && !Array.isArray(s.items) ? s.items : {};
      return v.map(function (x, i) { return coerce(x, items, root, name + '[' + i + ']', true, errs, depth + 1); })
        .filter(function (x) { return x !== undefined; });
    }
    if (v && typeof v === 'object') {
      if (t.length && !t.includes('object')) { errs.push(name + ': must be ' + t.join(' or ')); return v; }
      var props = s.properties || {}, req = Array.isArray(s.required) ? s.required : [], out = {};
      Object.keys(v).forEach(function (k) {
        var sub = Object.prototype.hasOwnProperty.call(props, k) ? props[k]
          : s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : {};
        var x = coerce(v[k], sub, root, path ? path + '.' + k : k, req.includes(k), errs, depth + 1);
        if (x !== undefined) out[k] = x;
      });
      req.forEach(function (k) {
        if (!Object.prototype.hasOwnProperty.call(out, k)) errs.push((path ? path + '.' + k : k) + ': a value is required');
      });
      return out;
    }
    var kind = typeof v === 'number' ? (Number.isInteger(v) ? ['integer', 'number'] : ['number']) : [typeof v];
    if (t.length && !kind.some(function (k) { return t.includes(k); })) {
      errs.push(name + ': must be ' + t.join(' or ') + (typeof v === 'string' ? ', not "' + v.slice(0, 40) + '"' : ''));
      return v;
    }
    if (S.scalarErrors) S.scalarErrors(s, v).forEach(function (m) { errs.push(name + ': ' + m); });
    return v;
  }
  G.coerceArguments = function (args, schema) {
    var errs = [];
    var value = coerce(args == null ? {} : args, schema || {}, schema || {}, '', true, errs, 0);
    return { value: value, errors: errs };
  };

  // The runtime's 'call' extension point: a call that is still invalid throws, and the runtime
  // rejects callServerTool's promise with it.
  G._on('call', function (app, params) {
    var t = currentTool(app);
    if (t && params && typeof params === 'object' && params.name === t.name) {
      var r = G.coerceArguments(params.arguments, t.inputSchema);
      // Then the whole inputSchema (schema-check.js): what it rejects is not sent either.
      if (!r.errors.length && G.checkArgs) r.errors = G.checkArgs(t.inputSchema, r.value).map(function (x) { return x.message; });
      if (r.errors.length) {
        var msg = 'Not sent: ' + r.errors.slice(0, 3).join('; ') + (r.errors.length > 3 ? ' (and ' + (r.errors.length - 3) + ' more)' : '');
        notice(msg, 'error');
        throw new Error(msg);
      }
      var err = document.getElementById('mcp-gen-ui-error');
      if (err) err.hidden = true;
      params = Object.assign({}, params, { arguments: r.value });
    }
    return params;
  });

  // ---- Results that a page's own handler cannot show ------------------------------------------
  // The runtime's 'failed' extension point: a tool-result handler that throws (or whose promise
  // rejects) is reported here instead of only logged.
  G._on('failed', function (result, error) { fallback(result, error); });
  G.handlerErrors = [];
  function fallback(result, error) {
    G.handlerErrors.push(String(error && error.message || error));
    console.error('mcp-gen-ui: the page could not show the tool result, shown with the builtin view instead:', error);
    var box = document.getElementById('mcp-gen-ui-result');
    if (!box) {
      box = h('section', { id: 'mcp-gen-ui-result', 'aria-label': 'Tool result', style: 'margin:12px 0' });
      (document.body || document.documentElement).append(box);
    }
    box.textContent = '';
    if (G.renderResult) G.renderResult(box, result || {});
    else box.textContent = JSON.stringify(result);
  }

  // ---- Accessible names for the controls the page creates ------------------------------------
  var fields = null;
  function human(k) {
    var w = k.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.\s]+/g, ' ').trim().toLowerCase();
    return w.charAt(0).toUpperCase() + w.slice(1);
  }
  function flat(x) { return String(x).replace(/[^A-Za-z0-9]/g, '').toLowerCase(); }
  function collect(s, d) {
    if (!s || typeof s !== 'object' || d > 8) return;
    var p = s.properties && typeof s.properties === 'object' ? s.properties : {};
    Object.keys(p).forEach(function (k) {
      var t = p[k] && typeof p[k].title === 'string' && p[k].title.trim();
      if (!(flat(k) in fields)) fields[flat(k)] = t || human(k);
      collect(p[k], d + 1);
    });
    collect(s.items, d + 1);
    ['anyOf', 'oneOf', 'allOf'].forEach(function (x) { if (Array.isArray(s[x])) s[x].forEach(function (v) { collect(v, d + 1); }); });
  }
  function bound(a) {
    if (!a) return null;
    var last = a.split(/[.[]/).map(function (x) { return x.replace(/\]$/, ''); }).filter(function (x) { return x && !/^\d+$/.test(x); }).pop() || a;
    if (fields[flat(a)]) return fields[flat(a)];
    if (fields[flat(last)]) return fields[flat(last)];
    var words = last.split(/[^A-Za-z0-9]+/).filter(Boolean);
    var kept = words.filter(function (w) { return !/^(input|field|fld|inp|select|sel|txt|control|ctl)$/i.test(w); });
    return kept.length && kept.length < words.length ? fields[kept.join('').toLowerCase()] || null : null;
  }
  var pending = false;
  function nameControls() {
    pending = false;
    if (!fields) { fields = Object.create(null); var t = currentTool(null); collect(t && t.inputSchema, 0); }
    document.querySelectorAll('input, select, textarea').forEach(function (el) {
      if (el.tagName === 'INPUT' && /^(hidden|submit|button|reset|image)$/i.test(el.type)) return;
      if ((el.labels && el.labels.length) || ['aria-label', 'aria-labelledby', 'title'].some(function (a) { return (el.getAttribute(a) || '').trim(); })) return;
      var l = bound(el.getAttribute('name')) || bound(el.id);
      if (l) el.setAttribute('aria-label', l);
    });
  }
  if (typeof MutationObserver === 'function') {
    new MutationObserver(function () {
      if (!pending) { pending = true; Promise.resolve().then(nameControls); }
    }).observe(document.documentElement, { childList: true, subtree: true });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', nameControls);
  else nameControls();
})();
