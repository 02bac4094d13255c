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
  var M = Math, Str = String, isArr = Array.isArray, Doc = document, Win = window, Prom = Promise, assign = Object.assign;
  var attr = (el, k, v) => el.setAttribute(k, v);
  var isStr = (v) => typeof v === 'string';
  // What h() and add() leave out.
  var none = (v) => v == null || v === false;
  // Not null and of type object (arrays included).
  var objLike = (v) => v !== null && typeof v === 'object';
  var CALL = 'tools/call', INIT = 'ui/initialize', LINK = 'ui/open-link', NOTE = 'ui/notifications/';
  // ext-apps renamed two host->app requests after 2.0.4 (the released AppBridge still sends the
  // old names): both names reach the same handler.
  var RENAMED = { 'ui/call-view-tool': CALL, 'ui/list-view-tools': 'tools/list' };
  var RESULT = 'toolresult', CONTEXT = 'hostcontextchanged', TEARDOWN = 'teardown';
  var EVENTS = ['toolinput', 'toolinputpartial', RESULT, 'toolcancelled', CONTEXT, TEARDOWN];
  var G = Win.McpGenUi = Win.McpGenUi || {};
  var hooks = {};
  var on = (point, fn) => { (hooks[point] = hooks[point] || []).push(fn); };
  var run = (point, ...a) => (hooks[point] || []).map((f) => f(...a));
  var html = Doc.documentElement, htmlStyle = html.style;
  var byId = (id) => Doc.getElementById(id);
  var message = (e) => Str(e?.message || e);
  // Who confirms (book: reference/pages.md): whether a run asks the person first. Their own click
  // on Run asks when destructiveHint is true; a run the model asks for (run_tool) asks unless
  // readOnlyHint is true or destructiveHint is false. "True" and "false" are the JSON literals: a
  // string "true" or a 1 is neither. src/model/confirm.rs is the same rule, tested against this.
  var asksFirst = (annotations, byModel) => {
    var a = objLike(annotations) && !isArr(annotations) ? annotations : {}, d = a.destructiveHint;
    return byModel ? !(a.readOnlyHint === true || d === false) : d === true;
  };

  // h('tag.class1.class2', attrs?, ...children): attrs is a plain object (text, on*, class and
  // attributes); anything else in its place is the first child. Strings become text nodes.
  // Buttons default to type=button so that only the Run button submits the form.
  var CLASS = 'class';
  var h = (tag, attrs, ...kids) => {
    var [t, ...cls] = tag.split('.'), svg = t.startsWith('svg:');
    var el = svg
      ? Doc.createElementNS('http://www.w3.org/2000/svg', t.slice(4))
      : Doc.createElement(t);
    if (cls.length) attr(el, CLASS, cls.join(' '));
    if (t === 'button') el.type = 'button';
    if (!objLike(attrs) || attrs.nodeType || isArr(attrs)) kids.unshift(attrs);
    else for (var k in attrs) {
      var v = attrs[k];
      if (none(v)) continue;
      if (k === 'text') el.textContent = Str(v);
      else if (k.startsWith('on')) { if (typeof v === 'function') el.addEventListener(k.slice(2), v); }
      else if (k === CLASS) attr(el, CLASS, v);
      else if (k in el && !isStr(v) && !svg) el[k] = v;
      else attr(el, k, v === true ? '' : Str(v));
    }
    add(el, kids);
    return el;
  };
  var add = (el, c) => {
    if (none(c)) return;
    if (isArr(c)) c.forEach((x) => add(el, x));
    else el.append(objLike(c) ? c : Str(c));
  };

  var THEME = 'data-theme';
  var applyDocumentTheme = (theme) => {
    if (theme !== 'light' && theme !== 'dark') return;
    attr(html, THEME, theme);
    htmlStyle.colorScheme = theme;
  };
  var applyHostStyleVariables = (vars) => {
    for (var k in vars || {}) {
      // Only custom properties: a host value can never rewrite anything but our own variables.
      if (/^--[\w-]+$/.test(k) && isStr(vars[k])) htmlStyle.setProperty(k, vars[k]);
    }
  };
  var applyHostFonts = (css) => {
    if (!isStr(css) || !css) return;
    var id = 'mcp-host-fonts', s = byId(id);
    if (!s) Doc.head.append(s = h('style', { id }));
    s.textContent = css;
  };
  var px = (v) => typeof v === 'number' && isFinite(v) && v >= 0 ? M.round(v) + 'px' : '';
  var applyContext = (ctx) => {
    if (!ctx) return;
    applyDocumentTheme(G.forcedTheme || ctx.theme);
    applyHostStyleVariables(ctx.styles?.variables);
    applyHostFonts(ctx.styles?.css?.fonts);
    var cd = ctx.containerDimensions, sa = ctx.safeAreaInsets, dc = ctx.deviceCapabilities;
    if (isStr(ctx.displayMode)) attr(html, 'data-mode', ctx.displayMode);
    if (objLike(cd)) {
      htmlStyle.maxHeight = px(cd.maxHeight);
      htmlStyle.height = px(cd.height);
      htmlStyle.overflowY = htmlStyle.maxHeight || htmlStyle.height ? 'auto' : '';
    }
    if (objLike(sa)) 'top right bottom left'.split(' ').forEach((k) => htmlStyle.setProperty('--safe-' + k, px(sa[k]) || '0px'));
    if (objLike(dc)) html.classList.toggle('touch', dc.touch === true);
  };

  var NOT_CONNECTED = 'Not connected to an MCP host', NOTICE = 'mcp-notice';
  var showNotice = (text) => {
    var n = byId(NOTICE);
    if (!n) Doc.body.prepend(n = h('div', { id: NOTICE, class: 'notice', role: 'status' }));
    n.textContent = text;
    n.hidden = false;
  };
  var hideNotice = () => {
    var n = byId(NOTICE);
    if (n) n.hidden = true;
  };

  class App {
    constructor(appInfo, capabilities, options) {
      var info = objLike(appInfo) ? appInfo : {};
      assign(this, {
        // The reference host rejects ui/initialize without appInfo.version (-32602).
        appInfo: { name: Str(info.name || 'mcp-gen-ui app'), version: Str(info.version || '1.0.0') },
        capabilities: capabilities || {},
        options: options || {},
        hostKind: null,
        _n: 0,
        _pending: {},
        _ls: {},
        _ctx: {},
        _ready: false
      });
      EVENTS.forEach((e) => { this['on' + e] = null; });
      this._onMessage = (ev) => this._receive(ev);
    }

    addEventListener(name, fn) { (this._ls[name] = this._ls[name] || []).push(fn); }
    removeEventListener(name, fn) { this._ls[name] = (this._ls[name] || []).filter((f) => f !== fn); }
    _emit(name, params) {
      var app = this, out, failed = null, watch = name === RESULT && hooks.failed;
      run('event', app, name, params);
      [app['on' + name], ...app._ls[name] || []].forEach((f) => {
        if (!f) return;
        try {
          out = watch ? f.call(app, params) : f(params);
          // A handler's promise that rejects failed too.
          if (watch && typeof out?.then === 'function') out.then(null, (e) => run('failed', params, e));
        } catch (e) {
          if (watch) { failed = e; out = undefined; } else console.warn('mcp-gen-ui: ' + name + ' handler failed', e);
        }
      });
      if (failed) run('failed', params, failed);
      run('handled', app, name, params);
      return out;
    }
    _post(msg) {
      msg.jsonrpc = '2.0';
      Win.parent.postMessage(msg, '*');
    }
    // A request that the answer for "key" settles (through _pending), or that times out; "done"
    // turns the answer into the result.
    _wait(key, method, opts, send, done) {
      var ms = opts?.timeout || (method === CALL ? 120000 : 30000), pending = this._pending;
      return new Prom((resolve, reject) => {
        var t = setTimeout(() => pending[key](new Error(method + ' timed out after ' + M.round(ms / 1000) + ' s: the host did not answer')), ms);
        // Settled once: the answer (or the timeout) removes the request.
        pending[key] = (err, res) => {
          delete pending[key];
          clearTimeout(t);
          if (err) reject(err); else resolve(done ? done(res) : res);
        };
        send();
      });
    }
    _request(method, params, opts) {
      var app = this, kind = app.hostKind;
      if (kind === 'openai' && !opts?.init) return app._openai(method, params);
      if (kind === 'mcpui') return G.hosts.request(app, method, params, opts);
      if (!app._ready && method !== INIT) return Prom.reject(new Error(NOT_CONNECTED + ': cannot send ' + method));
      var id = ++app._n;
      return app._wait(id, method, opts, () => app._post({ id, method, params: params || {} }));
    }
    _notify(method, params) {
      // Nothing may reach the host before the handshake completes (hosts keep the frame hidden).
      var app = this, kind = app.hostKind;
      if (app._ready && kind === 'mcp') app._post({ method, params: params || {} });
      else if (kind === 'mcpui') G.hosts.request(app, method, params);
      return Prom.resolve();
    }
    // The host kind has answered: requests may go, the notice goes, and the page reports its size
    // (autoResize; once is true where sizing set up already must not be set up twice).
    _use(kind, once) {
      var app = this;
      app.hostKind = kind;
      app._ready = true;
      hideNotice();
      if (app.options.autoResize !== false && !(once && app._sizing)) app.setupSizeChangedNotifications();
    }
    _receive(ev) {
      var app = this, m = ev.data;
      if (ev.source !== Win.parent || !objLike(m)) return;
      if (isStr(m.type) && G.hosts) return G.hosts.receive(app, m);
      if (m.jsonrpc !== '2.0') return;
      var p = m.params || {}, id = m.id, asked = m.method;
      if (asked && id != null) {
        var reply = (result, error) => app._post(error ? { id, error } : { id, result: result || {} });
        var fail = (code) => (e) => reply(null, { code, message: message(e) });
        var method = RENAMED[asked] || asked;
        if (method === 'ping') return reply({});
        if (method === 'ui/resource-teardown') return Prom.resolve(app._emit(TEARDOWN, p)).then(reply, fail(-32603));
        // View tools (viewtools.js): tools/list, tools/call and their newer names.
        var vt = G.viewTools?.handle(method, p);
        if (vt) return vt.then(reply, fail(-32602));
        return fail(-32601)('Method not found: ' + asked);
      }
      if (asked) {
        // ui/notifications/tool-input -> toolinput, …; teardown is a request, never a notification.
        // (Anything but [a-z-] after the prefix stays in the name, which is then no event.)
        var name = isStr(asked) && asked.startsWith(NOTE) ? asked.slice(17).replace(/-/g, '') : '';
        if (name === TEARDOWN || !EVENTS.includes(name)) return;
        if (name === CONTEXT) {
          assign(app._ctx, p);
          applyContext(p);
        }
        app._emit(name, p);
        return;
      }
      var cb = app._pending[id], e = m.error;
      if (cb) cb(e && new Error((e.message || 'Host error') + (e.code != null ? ' (' + e.code + ')' : '')), m.result);
    }

    connect() {
      // The page's App: the builtin glue's, else the first one connected (an LLM-written page
      // makes its own). Dates and numbers follow its host context; links open through it.
      var app = this;
      G.app = G.app || app;
      run('connect', app);
      if (app._connecting) return app._connecting;
      Win.addEventListener('message', app._onMessage);
      var inFrame = Win.parent && Win.parent !== Win;
      var X = G.hosts || {};
      // The copy serve embedded in a tool result (MCP-UI hosts) speaks MCP-UI at once.
      var emb = inFrame && X.embedded?.();
      if (emb) return (app._connecting = X.mcpui(app, emb));
      var caps = { ...app.capabilities };
      if (G.viewTools?.list().length) caps.tools = { listChanged: false, ...caps.tools };
      // The first of the ways below to succeed or fail settles the promise.
      var done = false;
      var once = (f) => (v) => { if (!done) { done = true; f(v); } };
      return (app._connecting = new Prom((resolve, reject) => {
        var win = once((res) => { hideNotice(); resolve(res); }), lose = once(reject);
        if (inFrame) {
          app._request(INIT, { protocolVersion: PROTOCOL, appInfo: app.appInfo, appCapabilities: caps },
            { timeout: 864e5, init: true }).then((res) => {
            // Completed even when window.openai was already in use: a host that speaks both gets
            // its handshake, and MCP Apps takes over from then on.
            res = res || {};
            // Newer hosts also put their capabilities under capabilities.extensions (SEP-2133).
            app._hostCaps = res.hostCapabilities || res.capabilities?.extensions?.['io.modelcontextprotocol/ui'] || {};
            app._hostInfo = res.hostInfo;
            assign(app._ctx, res.hostContext);
            // (The size is measured in an animation frame, after the context below applies.)
            app._use('mcp', true);
            app._notify(NOTE + 'initialized');
            applyContext(app._ctx);
            win(res);
          }, lose);
        }
        // window.openai (ChatGPT Apps SDK) as soon as it is there: rendering sends nothing.
        X.openai?.(app, win);
        setTimeout(() => {
          if (done || app.hostKind) return;
          if (!inFrame) {
            showNotice(NOT_CONNECTED + '. Open this UI from an MCP Apps client (or "mcp-gen-ui preview").');
            return lose(new Error(NOT_CONNECTED));
          }
          showNotice('Waiting for the MCP host to answer…');
          // Neither MCP Apps nor window.openai answered: perhaps an MCP-UI host.
          X.probe?.(app, win);
        }, inFrame ? 1500 : 0);
      }));
    }

    // Logs go as notifications/message: AppBridge 2.0.4 listens only there, and newer hosts listen
    // on both that and ui/log.
    sendLog(p) { return this._notify('notifications/message', p); }
    sendSizeChanged(p) { return this._notify(NOTE + 'size-changed', p); }
    callServerTool(p, o) {
      try { (hooks.call || []).forEach((f) => { p = f(this, p); }); } catch (e) { return Prom.reject(e); }
      return this._request(CALL, p, o);
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
          var old = htmlStyle.height;
          htmlStyle.height = 'max-content';
          var height = M.ceil(html.getBoundingClientRect().height);
          htmlStyle.height = old;
          var width = M.ceil(Win.innerWidth);
          if (width !== lw || height !== lh) { lw = width; lh = height; this.sendSizeChanged({ width, height }); }
        });
      };
      measure();
      if (typeof ResizeObserver === 'undefined') return () => {};
      var ro = new ResizeObserver(measure);
      ro.observe(html);
      ro.observe(Doc.body);
      return () => ro.disconnect();
    }
  }
  // Requests to the host: method(params, {timeout}?) -> Promise of the result.
  Object.entries({
    readServerResource: 'resources/read',
    listServerResources: 'resources/list', sendMessage: 'ui/message',
    updateModelContext: 'ui/update-model-context', openLink: LINK,
    sendOpenLink: LINK, requestDisplayMode: 'ui/request-display-mode',
    downloadFile: 'ui/download-file'
  }).forEach(([name, method]) => { App.prototype[name] = function (p, o) { return this._request(method, p, o); }; });

  // Assigned one by one: tests/node/minified.test.mjs checks these names and that
  // PostMessageTransport stays a class (LLM-written code calls "new" on it).
  G.App = App;
  G.PostMessageTransport = class PostMessageTransport {};
  G.h = h;
  G.applyDocumentTheme = applyDocumentTheme;
  G.getDocumentTheme = () => html.getAttribute(THEME) === 'dark' ? 'dark' : 'light';
  G.applyHostStyleVariables = applyHostStyleVariables;
  G.applyHostFonts = applyHostFonts;
  assign(G, {
    showNotice, hideNotice, applyContext, PROTOCOL_VERSION: PROTOCOL, asksFirst,
    _on: on, _run: run, _byId: byId, _message: message
  });
})();
