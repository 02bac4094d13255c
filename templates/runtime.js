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
//     openLink({url}) (alias sendOpenLink), requestDisplayMode({mode}),
//     sendSizeChanged({width, height}), setupSizeChangedNotifications(),
//     getHostContext(), getHostCapabilities(), getHostVersion(),
//     hostKind ("mcp"|"openai"|"mcpui"|null: hosts.js has the last two)
//   applyDocumentTheme(theme), getDocumentTheme(), applyHostStyleVariables(vars),
//   applyHostFonts(css), PostMessageTransport (accepted and ignored)
//   h('tag.class1.class2', attrs?, ...children): builds DOM from text only (never HTML);
//     attrs is a plain object, anything else in its place is the first child; a button is
//     type=button unless attrs say otherwise
//   render(el, value, opts) / renderTable / renderChart / renderCards / renderJson /
//   renderResult(el, callToolResult, opts): the builtin result views (view.js)
(function () {
  'use strict';
  var PROTOCOL = '2026-01-26';
  // ext-apps renamed two host->app requests after 2.0.4 (the released AppBridge still sends the
  // old names): both names reach the same handler.
  var RENAMED = { 'ui/call-view-tool': 'tools/call', 'ui/list-view-tools': 'tools/list' };
  var EVENTS = ['toolinput', 'toolinputpartial', 'toolresult', 'toolcancelled', 'hostcontextchanged', 'teardown'];
  var G = window.McpGenUi = window.McpGenUi || {};

  // h('tag.class1.class2', attrs?, ...children): attrs is a plain object (text, on*, class and
  // attributes); anything else in its place is the first child. Strings become text nodes.
  // Buttons default to type=button so that only the Run button submits the form.
  function h(tag, attrs, ...kids) {
    var p = tag.split('.'), t = p[0];
    var el = t.indexOf('svg:') === 0
      ? document.createElementNS('http://www.w3.org/2000/svg', t.slice(4))
      : document.createElement(t);
    if (p.length > 1) el.setAttribute('class', p.slice(1).join(' '));
    if (t === 'button') el.type = 'button';
    if (attrs == null || typeof attrs !== 'object' || attrs.nodeType || Array.isArray(attrs)) kids.unshift(attrs);
    else for (var k in attrs) {
      var v = attrs[k];
      if (v == null || v === false) continue;
      if (k === 'text') el.textContent = String(v);
      else if (k.slice(0, 2) === 'on') { if (typeof v === 'function') el.addEventListener(k.slice(2), v); }
      else if (k === 'class') el.setAttribute('class', v);
      else if (k in el && typeof v !== 'string' && !(el instanceof SVGElement)) el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    add(el, kids);
    return el;
  }
  function add(el, c) {
    if (c == null || c === false) return;
    if (Array.isArray(c)) c.forEach(function (x) { add(el, x); });
    else el.append(typeof c === 'object' ? c : String(c));
  }

  function applyDocumentTheme(theme) {
    if (theme !== 'light' && theme !== 'dark') return;
    var d = document.documentElement;
    d.setAttribute('data-theme', theme);
    d.style.colorScheme = theme;
  }
  function getDocumentTheme() {
    return document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
  }
  function applyHostStyleVariables(vars) {
    for (var k in vars || {}) {
      // Only custom properties: a host value can never rewrite anything but our own variables.
      if (/^--[\w-]+$/.test(k) && typeof vars[k] === 'string') document.documentElement.style.setProperty(k, vars[k]);
    }
  }
  function applyHostFonts(css) {
    if (typeof css !== 'string' || !css) return;
    var s = document.getElementById('mcp-host-fonts');
    if (!s) document.head.append(s = h('style', { id: 'mcp-host-fonts' }));
    s.textContent = css;
  }
  function applyContext(ctx) {
    if (!ctx) return;
    if (G.forcedTheme) applyDocumentTheme(G.forcedTheme);
    else if (ctx.theme) applyDocumentTheme(ctx.theme);
    var st = ctx.styles || {};
    applyHostStyleVariables(st.variables);
    if (st.css && st.css.fonts) applyHostFonts(st.css.fonts);
  }

  function App(appInfo, capabilities, options) {
    var info = appInfo && typeof appInfo === 'object' ? appInfo : {};
    // The reference host rejects ui/initialize without appInfo.version (-32602).
    this.appInfo = { name: String(info.name || 'mcp-gen-ui app'), version: String(info.version || '1.0.0') };
    this.capabilities = capabilities || {};
    this.options = options || {};
    this.hostKind = null;
    this._n = 0;
    this._pending = {};
    this._ls = {};
    this._ctx = {};
    this._ready = false;
    var self = this;
    EVENTS.forEach(function (e) { self['on' + e] = null; });
    this._onMessage = function (ev) { self._receive(ev); };
  }
  var P = App.prototype;

  P.addEventListener = function (name, fn) { (this._ls[name] = this._ls[name] || []).push(fn); };
  P.removeEventListener = function (name, fn) {
    this._ls[name] = (this._ls[name] || []).filter(function (f) { return f !== fn; });
  };
  P._emit = function (name, params) {
    var fns = (this['on' + name] ? [this['on' + name]] : []).concat(this._ls[name] || []);
    var out;
    fns.forEach(function (f) {
      try { out = f(params); } catch (e) { console.warn('mcp-gen-ui: ' + name + ' handler failed', e); }
    });
    return out;
  };
  P._post = function (msg) {
    msg.jsonrpc = '2.0';
    window.parent.postMessage(msg, '*');
  };
  P._request = function (method, params, opts) {
    var self = this;
    if (this.hostKind === 'openai' && !(opts && opts.init)) return this._openai(method, params);
    if (this.hostKind === 'mcpui') return G.hosts.request(this, method, params, opts);
    if (!this._ready && method !== 'ui/initialize') return Promise.reject(new Error('Not connected to an MCP host: cannot send ' + method));
    var id = ++this._n;
    var ms = (opts && opts.timeout) || (method === 'tools/call' ? 120000 : 30000);
    return new Promise(function (resolve, reject) {
      var t = setTimeout(function () {
        delete self._pending[id];
        reject(new Error(method + ' timed out after ' + Math.round(ms / 1000) + ' s: the host did not answer'));
      }, ms);
      self._pending[id] = function (err, res) { clearTimeout(t); if (err) reject(err); else resolve(res); };
      self._post({ id: id, method: method, params: params || {} });
    });
  };
  P._notify = function (method, params) {
    // Nothing may reach the host before the handshake completes (hosts keep the frame hidden).
    if (this._ready && this.hostKind === 'mcp') this._post({ method: method, params: params || {} });
    else if (this.hostKind === 'mcpui') G.hosts.request(this, method, params);
    return Promise.resolve();
  };
  P._receive = function (ev) {
    if (ev.source !== window.parent) return;
    var m = ev.data;
    if (m && typeof m === 'object' && typeof m.type === 'string' && G.hosts) return G.hosts.receive(this, m);
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    var self = this;
    if (m.method && m.id != null) {
      var reply = function (result, error) {
        var r = { id: m.id };
        if (error) r.error = error; else r.result = result || {};
        self._post(r);
      };
      var method = RENAMED[m.method] || m.method;
      if (method === 'ping') return reply({});
      if (method === 'ui/resource-teardown') {
        return Promise.resolve(this._emit('teardown', m.params || {})).then(function (r) { reply(r || {}); },
          function (e) { reply(null, { code: -32603, message: String(e && e.message || e) }); });
      }
      // View tools (viewtools.js): tools/list, tools/call and their newer names.
      var vt = G.viewTools && G.viewTools.handle(method, m.params || {});
      if (vt) return vt.then(function (r) { reply(r); }, function (e) { reply(null, { code: -32602, message: String(e && e.message || e) }); });
      return reply(null, { code: -32601, message: 'Method not found: ' + m.method });
    }
    if (m.method) {
      // ui/notifications/tool-input -> toolinput, …; teardown is a request, never a notification.
      var ev2 = /^ui\/notifications\/[a-z-]+$/.test(m.method) ? m.method.slice(17).replace(/-/g, '') : '';
      if (ev2 === 'teardown' || EVENTS.indexOf(ev2) < 0) ev2 = '';
      if (ev2 === 'hostcontextchanged') {
        for (var k in m.params || {}) this._ctx[k] = m.params[k];
        applyContext(m.params);
      }
      if (ev2) this._emit(ev2, m.params || {});
      return;
    }
    var cb = this._pending[m.id];
    if (cb) {
      delete this._pending[m.id];
      if (m.error) cb(new Error((m.error.message || 'Host error') + (m.error.code != null ? ' (' + m.error.code + ')' : '')));
      else cb(null, m.result);
    }
  };

  P.connect = function () {
    var self = this;
    if (this._connecting) return this._connecting;
    window.addEventListener('message', this._onMessage);
    var inFrame = window.parent && window.parent !== window;
    var X = G.hosts || {};
    // The copy serve embedded in a tool result (MCP-UI hosts) speaks MCP-UI at once.
    var emb = inFrame && X.embedded && X.embedded();
    if (emb) return (this._connecting = X.mcpui(this, emb));
    var caps = Object.assign({}, this.capabilities);
    if (G.viewTools && G.viewTools.list().length) caps.tools = Object.assign({ listChanged: false }, caps.tools);
    var done = false;
    this._connecting = new Promise(function (resolve, reject) {
      var win = function (res) { if (!done) { done = true; hideNotice(); resolve(res); } };
      if (inFrame) {
        self._request('ui/initialize', { protocolVersion: PROTOCOL, appInfo: self.appInfo, appCapabilities: caps },
          { timeout: 24 * 3600 * 1000, init: true }).then(function (res) {
          // Completed even when window.openai was already in use: a host that speaks both gets
          // its handshake, and MCP Apps takes over from then on.
          res = res || {};
          self.hostKind = 'mcp';
          // Newer hosts also put their capabilities under capabilities.extensions (SEP-2133).
          var ext = res.capabilities && res.capabilities.extensions;
          self._hostCaps = res.hostCapabilities || (ext && ext['io.modelcontextprotocol/ui']) || {};
          self._hostInfo = res.hostInfo;
          self._ctx = Object.assign(self._ctx, res.hostContext || {});
          self._ready = true;
          self._post({ method: 'ui/notifications/initialized', params: {} });
          applyContext(self._ctx);
          hideNotice();
          if (self.options.autoResize !== false && !self._sizing) self.setupSizeChangedNotifications();
          win(res);
        }, function (e) { if (!done) { done = true; reject(e); } });
      }
      // window.openai (ChatGPT Apps SDK) as soon as it is there: rendering sends nothing.
      if (X.openai) X.openai(self, win);
      setTimeout(function () {
        if (done || self.hostKind) return;
        if (!inFrame) {
          showNotice('Not connected to an MCP host. Open this UI from an MCP Apps client (or "mcp-gen-ui preview").');
          done = true;
          return reject(new Error('Not connected to an MCP host'));
        }
        showNotice('Waiting for the MCP host to answer…');
        // Neither MCP Apps nor window.openai answered: perhaps an MCP-UI host.
        if (X.probe) X.probe(self, win);
      }, inFrame ? 1500 : 0);
    });
    return this._connecting;
  };

  // Requests to the host: method(params, {timeout}?) -> Promise of the result.
  [
    ['callServerTool', 'tools/call'], ['readServerResource', 'resources/read'],
    ['listServerResources', 'resources/list'], ['sendMessage', 'ui/message'],
    ['updateModelContext', 'ui/update-model-context'], ['openLink', 'ui/open-link'],
    ['sendOpenLink', 'ui/open-link'], ['requestDisplayMode', 'ui/request-display-mode']
  ].forEach(function (x) { P[x[0]] = function (p, o) { return this._request(x[1], p, o); }; });
  // Logs go as notifications/message: AppBridge 2.0.4 listens only there, and newer hosts listen
  // on both that and ui/log.
  P.sendLog = function (p) { return this._notify('notifications/message', p); };
  P.sendSizeChanged = function (p) { return this._notify('ui/notifications/size-changed', p); };
  P.getHostContext = function () { return this._ctx; };
  P.getHostCapabilities = function () { return this._hostCaps; };
  P.getHostVersion = function () { return this._hostInfo; };
  P.setupSizeChangedNotifications = function () {
    var self = this, busy = false, lw = 0, lh = 0;
    this._sizing = true;
    var measure = function () {
      if (busy) return;
      busy = true;
      requestAnimationFrame(function () {
        busy = false;
        var d = document.documentElement, old = d.style.height;
        d.style.height = 'max-content';
        var hgt = Math.ceil(d.getBoundingClientRect().height);
        d.style.height = old;
        var w = Math.ceil(window.innerWidth);
        if (w !== lw || hgt !== lh) { lw = w; lh = hgt; self.sendSizeChanged({ width: w, height: hgt }); }
      });
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return function () {};
    var ro = new ResizeObserver(measure);
    ro.observe(document.documentElement);
    ro.observe(document.body);
    return function () { ro.disconnect(); };
  };

  function showNotice(text) {
    var n = document.getElementById('mcp-notice');
    if (!n) { n = h('div', { id: 'mcp-notice', class: 'notice', role: 'status' }); document.body.insertBefore(n, document.body.firstChild); }
    n.textContent = text;
    n.hidden = false;
  }
  function hideNotice() {
    var n = document.getElementById('mcp-notice');
    if (n) n.hidden = true;
  }

  G.App = App;
  // A class, so that "new PostMessageTransport(...)" in LLM-written code keeps working.
  G.PostMessageTransport = class PostMessageTransport {};
  G.h = h;
  G.applyDocumentTheme = applyDocumentTheme;
  G.getDocumentTheme = getDocumentTheme;
  G.applyHostStyleVariables = applyHostStyleVariables;
  G.applyHostFonts = applyHostFonts;
  G.showNotice = showNotice;
  G.hideNotice = hideNotice;
  G.applyContext = applyContext;
  G.PROTOCOL_VERSION = PROTOCOL;
})();
