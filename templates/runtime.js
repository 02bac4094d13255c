// mcp-gen-ui runtime: the guest side of MCP Apps (SEP-1865, protocol 2026-01-26) in one inline
// script; hosts.js adds ChatGPT's window.openai and MCP-UI, viewtools.js the tools a page offers
// the model. No imports, no network, no eval.
//
// window.McpGenUi API (also used by LLM-written pages, whose "import {App} from
// "@modelcontextprotocol/ext-apps"" is rewritten to "const {App} = window.McpGenUi"):
//   new App(appInfo {name, version}, capabilities?, options? {autoResize: true})
//     handler properties (set before connect): ontoolinput(params {arguments}),
//       ontoolinputpartial(params), ontoolresult(CallToolResult), ontoolcancelled(params),
//       onhostcontextchanged(partial HostContext, already merged), onteardown(params) -> {}
//     addEventListener / removeEventListener(name, fn) for toolinput, toolinputpartial,
//       toolresult, toolcancelled, hostcontextchanged, teardown
//     connect() -> Promise: handshake (ui/initialize -> ui/notifications/initialized); rejects
//       with a clear Error when no host answers (a notice is shown in the page)
//     callServerTool({name, arguments}, {timeout ms}?) -> Promise<CallToolResult>
//     readServerResource({uri}), listServerResources(), sendMessage({role, content}),
//     sendLog({level, data}), updateModelContext({content?, structuredContent?}),
//     openLink({url}) (alias sendOpenLink), requestDisplayMode({mode}), downloadFile({contents}),
//     sendSizeChanged({width, height}), setupSizeChangedNotifications(),
//     getHostContext(), getHostCapabilities(), getHostVersion(),
//     hostKind ("mcp"|"openai"|"mcpui"|null: hosts.js has the last two)
//   applyDocumentTheme(theme), getDocumentTheme(), applyHostStyleVariables(vars),
//   applyHostFonts(css), PostMessageTransport (accepted and ignored)
//   app: the page's App (the builtin glue's, else the first whose connect() was called)
//   h('tag.class1.class2', attrs?, ...children): builds DOM from text only (never HTML);
//     attrs is a plain object, anything else in its place is the first child; a button is
//     type=button unless attrs say otherwise
//   render(el, value, opts) / renderTable / renderChart / renderCards / renderJson /
//   renderResult(el, callToolResult, opts): the builtin result views (view.js)
//   asksFirst(annotations, byModel) -> boolean: whether a run asks the person first (a click on
//     Run when byModel is false, run_tool when true); the one rule every part uses
//
// Extension points: the one way the parts reach one another's work. A part registers with
// McpGenUi._on(point, fn) at load, and the part that owns the point runs what was registered, with
// McpGenUi._run(point, ...args) -> [results], in load order (the registry in
// src/generate/builtin/registry.rs; templates/README.md). No part writes into another's objects.
//   'connect'  (app)               an App's connect() was called (runner.js: the page's App)
//   'event'    (app, name, params) an event is about to reach its handlers (viewtools.js: the
//                                  result shown)
//   'call'     (app, params) -> params  before callServerTool sends; may return other params, or
//                                  throw to refuse (the promise rejects) (llm.js: argument checks)
//   'failed'   (result, error)     a tool-result handler threw or its promise rejected; with none
//                                  registered such a throw is only logged (llm.js: builtin view)
//   'form'     (form, schema)      McpGenUi.buildForm built a form (form.js runs it; viewtools.js)
//   'check'    (schema, value) -> [message]  a per-value check of schema.scalarErrors (schema.js
//                                  runs it; checks.js, formats.js)
//   'refs'     (root) -> index     the $ref index of a root schema (schema.js's resolve; schema-ids.js)
//   'controls' () -> {name: fn}    the controls form.js does not build itself, the first part to
//                                  offer a name wins (McpGenUi.form.control(name)): constant, bool,
//                                  choice (form-choice.js); time (form-time.js); json, overBudget
//                                  (form-json.js); array, variants, mapRows, lazy (form-extra.js)
//   'zone'     ()                  the host's time zone may have changed (app.js runs it after
//                                  connecting and on hostcontextchanged; form-time.js's notes)
//   'result'   (result) -> [node]  controls for a shown result's tool row (view.js's renderResult
//                                  runs it; export.js: fullscreen, CSV and JSON downloads)
//   'handled'  (app, name, params) an event has reached its handlers (drafts.js: streamed input,
//                                  drafts restored over the tool-input the glue wrote)
//
// Host context beyond theme and styles (book: reference/pages.md, "Living in the host"):
// displayMode is mirrored as <html data-mode>, containerDimensions cap or fix the page's height
// (the page scrolls inside), safeAreaInsets pad it (--safe-top/right/bottom/left), and
// deviceCapabilities.touch sets <html class="touch"> (44 px controls).
(function () {
  'use strict';
  var PROTOCOL = '2026-01-26';
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var M = Math, Str = String, isArr = Array.isArray;
  // ext-apps renamed two host->app requests after 2.0.4 (the released AppBridge still sends the
  // old names): both names reach the same handler.
  var RENAMED = { 'ui/call-view-tool': 'tools/call', 'ui/list-view-tools': 'tools/list' };
  var EVENTS = ['toolinput', 'toolinputpartial', 'toolresult', 'toolcancelled', 'hostcontextchanged', 'teardown'];
  var G = window.McpGenUi = window.McpGenUi || {};
  var hooks = {};
  var on = (point, fn) => { (hooks[point] = hooks[point] || []).push(fn); };
  var run = (point, ...a) => (hooks[point] || []).map((f) => f(...a));
  var html = document.documentElement;
  var byId = (id) => document.getElementById(id);
  var message = (e) => Str(e?.message || e);
  // Who confirms (book: reference/pages.md): whether a run asks the person first. Their own click
  // on Run asks when destructiveHint is true; a run the model asks for (run_tool) asks unless
  // readOnlyHint is true or destructiveHint is false. "True" and "false" are the JSON literals: a
  // string "true" or a 1 is neither. src/model/confirm.rs is the same rule, tested against this.
  var asksFirst = (annotations, byModel) => {
    var is = (k, v) => annotations !== null && typeof annotations === 'object' && !isArr(annotations) && annotations[k] === v;
    return byModel ? !(is('readOnlyHint', true) || is('destructiveHint', false)) : is('destructiveHint', true);
  };

  // h('tag.class1.class2', attrs?, ...children): attrs is a plain object (text, on*, class and
  // attributes); anything else in its place is the first child. Strings become text nodes.
  // Buttons default to type=button so that only the Run button submits the form.
  var h = (tag, attrs, ...kids) => {
    var [t, ...cls] = tag.split('.');
    var el = t.startsWith('svg:')
      ? document.createElementNS('http://www.w3.org/2000/svg', t.slice(4))
      : document.createElement(t);
    if (cls.length) el.setAttribute('class', cls.join(' '));
    if (t === 'button') el.type = 'button';
    if (attrs == null || typeof attrs !== 'object' || attrs.nodeType || isArr(attrs)) kids.unshift(attrs);
    else for (var k in attrs) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'text') el.textContent = Str(v);
      else if (k.startsWith('on')) { if (typeof v === 'function') el.addEventListener(k.slice(2), v); }
      else if (k === 'class') el.setAttribute('class', v);
      else if (k in el && typeof v !== 'string' && !(el instanceof SVGElement)) el[k] = v;
      else el.setAttribute(k, v === true ? '' : Str(v));
    }
    add(el, kids);
    return el;
  };
  var add = (el, c) => {
    if (c == null || c === false) return;
    if (isArr(c)) c.forEach((x) => add(el, x));
    else el.append(typeof c === 'object' ? c : Str(c));
  };

  var applyDocumentTheme = (theme) => {
    if (theme !== 'light' && theme !== 'dark') return;
    html.setAttribute('data-theme', theme);
    html.style.colorScheme = theme;
  };
  var applyHostStyleVariables = (vars) => {
    for (var k in vars || {}) {
      // Only custom properties: a host value can never rewrite anything but our own variables.
      if (/^--[\w-]+$/.test(k) && typeof vars[k] === 'string') html.style.setProperty(k, vars[k]);
    }
  };
  var applyHostFonts = (css) => {
    if (typeof css !== 'string' || !css) return;
    var s = byId('mcp-host-fonts');
    if (!s) document.head.append(s = h('style', { id: 'mcp-host-fonts' }));
    s.textContent = css;
  };
  var px = (v) => typeof v === 'number' && isFinite(v) && v >= 0 ? M.round(v) + 'px' : '';
  var applyContext = (ctx) => {
    if (!ctx) return;
    applyDocumentTheme(G.forcedTheme || ctx.theme);
    applyHostStyleVariables(ctx.styles?.variables);
    applyHostFonts(ctx.styles?.css?.fonts);
    var cd = ctx.containerDimensions, sa = ctx.safeAreaInsets, dc = ctx.deviceCapabilities, st = html.style;
    if (typeof ctx.displayMode === 'string') html.setAttribute('data-mode', ctx.displayMode);
    if (cd && typeof cd === 'object') {
      st.maxHeight = px(cd.maxHeight);
      st.height = px(cd.height);
      st.overflowY = st.maxHeight || st.height ? 'auto' : '';
    }
    if (sa && typeof sa === 'object') ['top', 'right', 'bottom', 'left'].forEach((k) => st.setProperty('--safe-' + k, px(sa[k]) || '0px'));
    if (dc && typeof dc === 'object') html.classList.toggle('touch', dc.touch === true);
  };

  var NOT_CONNECTED = 'Not connected to an MCP host';
  var showNotice = (text) => {
    var n = byId('mcp-notice');
    if (!n) document.body.prepend(n = h('div', { id: 'mcp-notice', class: 'notice', role: 'status' }));
    n.textContent = text;
    n.hidden = false;
  };
  var hideNotice = () => {
    var n = byId('mcp-notice');
    if (n) n.hidden = true;
  };

  class App {
    constructor(appInfo, capabilities, options) {
      var info = appInfo && typeof appInfo === 'object' ? appInfo : {};
      // The reference host rejects ui/initialize without appInfo.version (-32602).
      this.appInfo = { name: Str(info.name || 'mcp-gen-ui app'), version: Str(info.version || '1.0.0') };
      this.capabilities = capabilities || {};
      this.options = options || {};
      this.hostKind = null;
      this._n = 0;
      this._pending = {};
      this._ls = {};
      this._ctx = {};
      this._ready = false;
      EVENTS.forEach((e) => { this['on' + e] = null; });
      this._onMessage = (ev) => this._receive(ev);
    }

    addEventListener(name, fn) { (this._ls[name] = this._ls[name] || []).push(fn); }
    removeEventListener(name, fn) { this._ls[name] = (this._ls[name] || []).filter((f) => f !== fn); }
    _emit(name, params) {
      var out, failed = null, watch = name === 'toolresult' && hooks.failed;
      run('event', this, name, params);
      [this['on' + name], ...this._ls[name] || []].forEach((f) => {
        if (!f) return;
        try {
          out = watch ? f.call(this, params) : f(params);
          // A handler's promise that rejects failed too.
          if (watch && typeof out?.then === 'function') out.then(null, (e) => run('failed', params, e));
        } catch (e) {
          if (watch) { failed = e; out = undefined; } else console.warn('mcp-gen-ui: ' + name + ' handler failed', e);
        }
      });
      if (failed) run('failed', params, failed);
      run('handled', this, name, params);
      return out;
    }
    _post(msg) {
      msg.jsonrpc = '2.0';
      window.parent.postMessage(msg, '*');
    }
    // A request that the answer for "key" settles (through _pending), or that times out; "done"
    // turns the answer into the result.
    _wait(key, method, opts, send, done) {
      var ms = opts?.timeout || (method === 'tools/call' ? 120000 : 30000);
      return new Promise((resolve, reject) => {
        var t = setTimeout(() => {
          delete this._pending[key];
          reject(new Error(method + ' timed out after ' + M.round(ms / 1000) + ' s: the host did not answer'));
        }, ms);
        this._pending[key] = (err, res) => {
          clearTimeout(t);
          if (err) reject(err); else resolve(done ? done(res) : res);
        };
        send();
      });
    }
    _request(method, params, opts) {
      if (this.hostKind === 'openai' && !opts?.init) return this._openai(method, params);
      if (this.hostKind === 'mcpui') return G.hosts.request(this, method, params, opts);
      if (!this._ready && method !== 'ui/initialize') return Promise.reject(new Error(NOT_CONNECTED + ': cannot send ' + method));
      var id = ++this._n;
      return this._wait(id, method, opts, () => this._post({ id, method, params: params || {} }));
    }
    _notify(method, params) {
      // Nothing may reach the host before the handshake completes (hosts keep the frame hidden).
      if (this._ready && this.hostKind === 'mcp') this._post({ method, params: params || {} });
      else if (this.hostKind === 'mcpui') G.hosts.request(this, method, params);
      return Promise.resolve();
    }
    _receive(ev) {
      if (ev.source !== window.parent) return;
      var m = ev.data;
      if (!m || typeof m !== 'object') return;
      if (typeof m.type === 'string' && G.hosts) return G.hosts.receive(this, m);
      if (m.jsonrpc !== '2.0') return;
      var p = m.params || {};
      if (m.method && m.id != null) {
        var reply = (result, error) => this._post(error ? { id: m.id, error } : { id: m.id, result: result || {} });
        var fail = (code) => (e) => reply(null, { code, message: message(e) });
        var method = RENAMED[m.method] || m.method;
        if (method === 'ping') return reply({});
        if (method === 'ui/resource-teardown') return Promise.resolve(this._emit('teardown', p)).then(reply, fail(-32603));
        // View tools (viewtools.js): tools/list, tools/call and their newer names.
        var vt = G.viewTools?.handle(method, p);
        if (vt) return vt.then(reply, fail(-32602));
        return reply(null, { code: -32601, message: 'Method not found: ' + m.method });
      }
      if (m.method) {
        // ui/notifications/tool-input -> toolinput, …; teardown is a request, never a notification.
        var name = /^ui\/notifications\/[a-z-]+$/.test(m.method) ? m.method.slice(17).replace(/-/g, '') : '';
        if (name === 'teardown' || !EVENTS.includes(name)) return;
        if (name === 'hostcontextchanged') {
          Object.assign(this._ctx, p);
          applyContext(p);
        }
        this._emit(name, p);
        return;
      }
      var cb = this._pending[m.id];
      if (cb) {
        delete this._pending[m.id];
        var e = m.error;
        if (e) cb(new Error((e.message || 'Host error') + (e.code != null ? ' (' + e.code + ')' : '')));
        else cb(null, m.result);
      }
    }

    connect() {
      // The page's App: the builtin glue's, else the first one connected (an LLM-written page
      // makes its own). Dates and numbers follow its host context; links open through it.
      G.app = G.app || this;
      run('connect', this);
      if (this._connecting) return this._connecting;
      window.addEventListener('message', this._onMessage);
      var inFrame = window.parent && window.parent !== window;
      var X = G.hosts || {};
      // The copy serve embedded in a tool result (MCP-UI hosts) speaks MCP-UI at once.
      var emb = inFrame && X.embedded?.();
      if (emb) return (this._connecting = X.mcpui(this, emb));
      var caps = { ...this.capabilities };
      if (G.viewTools?.list().length) caps.tools = { listChanged: false, ...caps.tools };
      var done = false;
      return (this._connecting = new Promise((resolve, reject) => {
        var win = (res) => { if (!done) { done = true; hideNotice(); resolve(res); } };
        if (inFrame) {
          this._request('ui/initialize', { protocolVersion: PROTOCOL, appInfo: this.appInfo, appCapabilities: caps },
            { timeout: 864e5, init: true }).then((res) => {
            // Completed even when window.openai was already in use: a host that speaks both gets
            // its handshake, and MCP Apps takes over from then on.
            res = res || {};
            this.hostKind = 'mcp';
            // Newer hosts also put their capabilities under capabilities.extensions (SEP-2133).
            this._hostCaps = res.hostCapabilities || res.capabilities?.extensions?.['io.modelcontextprotocol/ui'] || {};
            this._hostInfo = res.hostInfo;
            Object.assign(this._ctx, res.hostContext);
            this._ready = true;
            this._post({ method: 'ui/notifications/initialized', params: {} });
            applyContext(this._ctx);
            hideNotice();
            if (this.options.autoResize !== false && !this._sizing) this.setupSizeChangedNotifications();
            win(res);
          }, (e) => { if (!done) { done = true; reject(e); } });
        }
        // window.openai (ChatGPT Apps SDK) as soon as it is there: rendering sends nothing.
        X.openai?.(this, win);
        setTimeout(() => {
          if (done || this.hostKind) return;
          if (!inFrame) {
            showNotice(NOT_CONNECTED + '. Open this UI from an MCP Apps client (or "mcp-gen-ui preview").');
            done = true;
            return reject(new Error(NOT_CONNECTED));
          }
          showNotice('Waiting for the MCP host to answer…');
          // Neither MCP Apps nor window.openai answered: perhaps an MCP-UI host.
          X.probe?.(this, win);
        }, inFrame ? 1500 : 0);
      }));
    }

    // Logs go as notifications/message: AppBridge 2.0.4 listens only there, and newer hosts listen
    // on both that and ui/log.
    sendLog(p) { return this._notify('notifications/message', p); }
    sendSizeChanged(p) { return this._notify('ui/notifications/size-changed', p); }
    callServerTool(p, o) {
      try { (hooks.call || []).forEach((f) => { p = f(this, p); }); } catch (e) { return Promise.reject(e); }
      return this._request('tools/call', p, o);
    }

    getHostContext() { return this._ctx; }
    getHostCapabilities() { return this._hostCaps; }
    getHostVersion() { return this._hostInfo; }
    setupSizeChangedNotifications() {
      var busy = false, lw = 0, lh = 0;
      this._sizing = true;
      var measure = () => {
        if (busy) return;
        busy = true;
        requestAnimationFrame(() => {
          busy = false;
          var old = html.style.height;
          html.style.height = 'max-content';
          var height = M.ceil(html.getBoundingClientRect().height);
          html.style.height = old;
          var width = M.ceil(window.innerWidth);
          if (width !== lw || height !== lh) { lw = width; lh = height; this.sendSizeChanged({ width, height }); }
        });
      };
      measure();
      if (typeof ResizeObserver === 'undefined') return () => {};
      var ro = new ResizeObserver(measure);
      ro.observe(html);
      ro.observe(document.body);
      return () => ro.disconnect();
    }
  }
  // Requests to the host: method(params, {timeout}?) -> Promise of the result.
  Object.entries({
    readServerResource: 'resources/read',
    listServerResources: 'resources/list', sendMessage: 'ui/message',
    updateModelContext: 'ui/update-model-context', openLink: 'ui/open-link',
    sendOpenLink: 'ui/open-link', requestDisplayMode: 'ui/request-display-mode',
    downloadFile: 'ui/download-file'
  }).forEach(([name, method]) => { App.prototype[name] = function (p, o) { return this._request(method, p, o); }; });

  G.App = App;
  // A class, so that "new PostMessageTransport(...)" in LLM-written code keeps working.
  G.PostMessageTransport = class PostMessageTransport {};
  G.h = h;
  G.applyDocumentTheme = applyDocumentTheme;
  G.getDocumentTheme = () => html.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
  G.applyHostStyleVariables = applyHostStyleVariables;
  G.applyHostFonts = applyHostFonts;
  G.showNotice = showNotice;
  G.hideNotice = hideNotice;
  G.applyContext = applyContext;
  G.PROTOCOL_VERSION = PROTOCOL;
  G.asksFirst = asksFirst;
  G._on = on;
  G._run = run;
  G._byId = byId;
  G._message = message;
})();
