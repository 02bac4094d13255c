// mcp-gen-ui runtime, host kinds besides MCP Apps (runtime.js): ChatGPT's window.openai and
// MCP-UI's postMessage protocol. runtime.js's connect() calls these through McpGenUi.hosts.
//   openai(app, win): renders from window.openai as soon as it is there (at once, on
//     openai:set_globals, or polled for 1.5 s); the MCP Apps handshake keeps going meanwhile and
//     wins when it completes. Rendering sends nothing to the host (SPEC 2's rule).
//   embedded(): the copy of a page that serve --embed-ui put into a tool result carries its
//     result in <script type="application/json" id="mcp-gen-ui-embedded">: that copy speaks
//     MCP-UI at once (mcpui) and shows its own result even if the host never sends render-data.
//   probe(app, win): the ui:// copy tries MCP-UI only after no MCP Apps host and no window.openai
//     answered: it announces ui-lifecycle-iframe-ready and asks for render data.
//   request(app, method, params): MCP Apps requests carried as MCP-UI actions (tool, prompt,
//     link, notify, intent); receive(app, msg): MCP-UI messages from the host.
(function () {
  'use strict';
  var G = window.McpGenUi;
  var same = function (a, b) { return JSON.stringify(a) === JSON.stringify(b); };
  var isObj = function (v) { return v !== null && typeof v === 'object' && !Array.isArray(v); };
  var EMBED_KEY = 'mcp-gen-ui/embedded';

  // A CallToolResult from whatever a host hands over (a result, or bare structured data).
  function asResult(r) {
    if (isObj(r) && (Array.isArray(r.content) || 'structuredContent' in r || r.isError)) {
      // Our own embedded copy of the page is for the host to render, not for the page to show.
      if (Array.isArray(r.content)) {
        var c = r.content.filter(function (x) { return !(x && x._meta && x._meta[EMBED_KEY]); });
        if (c.length !== r.content.length) r = Object.assign({}, r, { content: c });
      }
      return r;
    }
    return { structuredContent: r, content: [] };
  }

  function openai(app, win) {
    var started = false, lastIn, lastOut, tries = 0;
    var read = function (g, k) { return g && k in g ? g[k] : (window.openai || {})[k]; };
    function sync(g) {
      var ctx = app._ctx;
      ['theme', 'displayMode', 'locale'].forEach(function (k) { var v = read(g, k); if (v != null) ctx[k] = v; });
      G.applyContext(ctx);
      var input = read(g, 'toolInput');
      if (isObj(input) && !same(input, lastIn)) { lastIn = input; app._emit('toolinput', { arguments: input }); }
      var out = read(g, 'toolOutput');
      // toolOutput is the result's structuredContent. Equal content is not a new result: redrawing would close what the person had open.
      if (out != null && !same(out, lastOut)) { lastOut = out; app._emit('toolresult', { structuredContent: out, content: [] }); }
    }
    function start() {
      if (started || !window.openai || app.hostKind) return;
      started = true;
      app.hostKind = 'openai';
      app._ready = true;
      sync(null);
      win({ hostInfo: { name: 'openai', version: '' }, hostContext: app._ctx });
    }
    window.addEventListener('openai:set_globals', function (ev) {
      if (!started) return start();
      // Once the MCP Apps handshake has completed, that host speaks for itself.
      if (app.hostKind !== 'openai') return;
      sync(ev && ev.detail && ev.detail.globals);
      app._emit('hostcontextchanged', app._ctx);
    });
    start();
    var poll = setInterval(function () {
      if (started || app.hostKind || ++tries > 30) clearInterval(poll); else start();
    }, 50);
  }

  // window.openai's own calls for what the page asks of its host.
  G.App.prototype._openai = function (method, p) {
    var oa = window.openai;
    p = p || {};
    if (method === 'tools/call') {
      return Promise.resolve(oa.callTool(p.name, p.arguments || {})).then(function (r) { return asResult(r || {}); });
    }
    if (method === 'ui/open-link' && oa.openExternal) return Promise.resolve(oa.openExternal({ href: p.url })).then(function () { return {}; });
    if (method === 'ui/message' && oa.sendFollowUpMessage) {
      return Promise.resolve(oa.sendFollowUpMessage({ prompt: text(p.content) })).then(function () { return {}; });
    }
    if (method === 'ui/request-display-mode' && oa.requestDisplayMode) return Promise.resolve(oa.requestDisplayMode({ mode: p.mode }));
    if (method === 'ui/update-model-context' && oa.setWidgetState) return Promise.resolve(oa.setWidgetState(p.structuredContent || p)).then(function () { return {}; });
    return Promise.reject(new Error(method + ' is not supported by this host'));
  };
  function text(content) {
    return (Array.isArray(content) ? content : []).map(function (c) { return c && c.text || ''; }).join('\n');
  }

  // ---- MCP-UI ----
  function embedded() {
    var el = document.getElementById('mcp-gen-ui-embedded');
    if (!el) return null;
    try { var d = JSON.parse(el.textContent); return isObj(d) ? d : null; } catch (e) { return null; }
  }
  function post(msg) { window.parent.postMessage(msg, '*'); }
  function useMcpUi(app) {
    if (app.hostKind === 'mcpui') return;
    app.hostKind = 'mcpui';
    app._ready = true;
    G.hideNotice();
    if (app.options.autoResize !== false) app.setupSizeChangedNotifications();
  }
  function mcpui(app, data) {
    useMcpUi(app);
    post({ type: 'ui-lifecycle-iframe-ready' });
    var res = { hostInfo: { name: 'mcp-ui', version: '' }, hostContext: app._ctx };
    return Promise.resolve(res).then(function (r) {
      // After connect() resolves, so handlers set after connect() see them too.
      if (isObj(data.arguments)) app._emit('toolinput', { arguments: data.arguments });
      if (data.result != null) app._emit('toolresult', asResult(data.result));
      return r;
    });
  }
  function probe(app, win) {
    app._mcpuiWin = win;
    post({ type: 'ui-lifecycle-iframe-ready' });
    post({ type: 'ui-request-render-data', messageId: 'mcp-gen-ui-render-data' });
  }
  function receive(app, m) {
    var type = m.type, p = isObj(m.payload) ? m.payload : {};
    if (!/^ui-(lifecycle-iframe-render-data|message-received|message-response)$/.test(type)) return;
    if (!app.hostKind && app._mcpuiWin) {
      useMcpUi(app);
      app._mcpuiWin({ hostInfo: { name: 'mcp-ui', version: '' }, hostContext: app._ctx });
    }
    if (app.hostKind !== 'mcpui') return;
    if (type === 'ui-lifecycle-iframe-render-data') {
      var d = isObj(p.renderData) ? p.renderData : {};
      if (d.theme) { app._ctx.theme = d.theme; G.applyContext(app._ctx); }
      if (isObj(d.toolInput)) app._emit('toolinput', { arguments: d.toolInput });
      if (d.toolOutput != null) app._emit('toolresult', asResult(d.toolOutput));
      return;
    }
    var cb = app._pending['ui:' + m.messageId];
    if (!cb || type === 'ui-message-received') return;
    delete app._pending['ui:' + m.messageId];
    if (p.error != null) cb(new Error('The host could not do it: ' + (p.error.message || JSON.stringify(p.error))));
    else cb(null, p.response);
  }
  // Requests as MCP-UI actions. The host acknowledges with ui-message-received and answers with
  // ui-message-response; a host that does not return the tool's result (it shows it in the
  // conversation instead) gets a result saying so.
  function request(app, method, p, opts) {
    p = p || {};
    var action;
    if (method === 'tools/call') action = { type: 'tool', payload: { toolName: p.name, params: p.arguments || {} } };
    else if (method === 'ui/message') action = { type: 'prompt', payload: { prompt: text(p.content) } };
    else if (method === 'ui/open-link') action = { type: 'link', payload: { url: p.url } };
    else if (method === 'notifications/message') action = { type: 'notify', payload: { message: typeof p.data === 'string' ? p.data : JSON.stringify(p.data) } };
    else if (method === 'ui/notifications/size-changed') return post({ type: 'ui-size-change', payload: { width: p.width, height: p.height } });
    else if (method === 'ui/update-model-context' || method === 'ui/request-display-mode') action = { type: 'intent', payload: { intent: method.slice(3), params: p } };
    else return Promise.reject(new Error(method + ' is not supported by this host'));
    if (method === 'notifications/message') return post(action);
    var id = 'mcp-gen-ui-' + (++app._n), ms = (opts && opts.timeout) || (method === 'tools/call' ? 120000 : 30000);
    action.messageId = id;
    return new Promise(function (resolve, reject) {
      var t = setTimeout(function () {
        delete app._pending['ui:' + id];
        reject(new Error(method + ' timed out after ' + Math.round(ms / 1000) + ' s: the host did not answer'));
      }, ms);
      app._pending['ui:' + id] = function (err, res) {
        clearTimeout(t);
        if (err) return reject(err);
        if (method !== 'tools/call') return resolve(res || {});
        resolve(res == null ? { content: [{ type: 'text', text: 'The host took the call; its result appears in the conversation.' }] } : asResult(res));
      };
      post(action);
    });
  }

  G.hosts = { openai: openai, embedded: embedded, mcpui: mcpui, probe: probe, receive: receive, request: request, asResult: asResult };
})();
