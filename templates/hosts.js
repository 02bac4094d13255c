// mcp-gen-ui runtime, host kinds besides MCP Apps (runtime.js): ChatGPT's window.openai and
// MCP-UI's postMessage protocol. runtime.js's connect() calls these through McpGenUi.hosts.
//   openai(app, win): renders from window.openai as soon as it is there (at once, on
//     openai:set_globals, or polled for 1.5 s); the MCP Apps handshake keeps going meanwhile and
//     wins when it completes. Rendering sends nothing to the host (the handshake rule: book, reference/pages.md).
//   embedded(): the copy of a page that serve --embed-ui put into a tool result carries its
//     result in <script type="application/json" id="mcp-gen-ui-embedded">: that copy speaks
//     MCP-UI at once (mcpui) and shows its own result even if the host never sends render-data.
//   probe(app, win): the ui:// copy tries MCP-UI only after no MCP Apps host and no window.openai
//     answered: it announces ui-lifecycle-iframe-ready and asks for render data.
//   request(app, method, params): MCP Apps requests carried as MCP-UI actions (tool, prompt,
//     link, notify, intent); receive(app, msg): MCP-UI messages from the host.
(function () {
  'use strict';
  var G = window.McpGenUi, S = G.schema, isObj = S.isObj, same = S.same;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, toJson = JSON.stringify;
  var EMBED_KEY = 'mcp-gen-ui/embedded', DRAFT = 'mcp-gen-ui/draft';
  var post = (msg) => window.parent.postMessage(msg, '*');
  var unsupported = (method) => Promise.reject(new Error(method + ' is not supported by this host'));
  var empty = () => ({});

  // A CallToolResult from whatever a host hands over (a result, or bare structured data).
  function asResult(r) {
    if (isObj(r) && (isArr(r.content) || 'structuredContent' in r || r.isError)) {
      // Our own embedded copy of the page is for the host to render, not for the page to show.
      var c = isArr(r.content) && r.content.filter((x) => !x?._meta?.[EMBED_KEY]);
      return c && c.length !== r.content.length ? { ...r, content: c } : r;
    }
    return { structuredContent: r, content: [] };
  }
  var text = (content) => (isArr(content) ? content : []).map((c) => c?.text || '').join('\n');

  function openai(app, win) {
    var started = false, lastIn, lastOut, tries = 0;
    var read = (g, k) => g && k in g ? g[k] : (window.openai || {})[k];
    function sync(g) {
      var ctx = app._ctx;
      ['theme', 'displayMode', 'locale'].forEach((k) => { var v = read(g, k); if (v != null) ctx[k] = v; });
      // The Apps SDK's display modes, where it can change them.
      if (typeof window.openai?.requestDisplayMode === 'function') ctx.availableDisplayModes = ['inline', 'pip', 'fullscreen'];
      G.applyContext(ctx);
      var input = read(g, 'toolInput');
      if (isObj(input) && !same(input, lastIn)) app._emit('toolinput', { arguments: lastIn = input });
      var out = read(g, 'toolOutput');
      // toolOutput is the result's structuredContent. Equal content is not a new result: redrawing would close what the person had open.
      if (out != null && !same(out, lastOut)) app._emit('toolresult', { structuredContent: lastOut = out, content: [] });
    }
    function start() {
      if (started || !window.openai || app.hostKind) return;
      started = true;
      app.hostKind = 'openai';
      app._ready = true;
      sync(null);
      win({ hostInfo: { name: 'openai', version: '' }, hostContext: app._ctx });
    }
    window.addEventListener('openai:set_globals', (ev) => {
      if (!started) return start();
      // Once the MCP Apps handshake has completed, that host speaks for itself.
      if (app.hostKind !== 'openai') return;
      sync(ev?.detail?.globals);
      app._emit('hostcontextchanged', app._ctx);
    });
    start();
    var poll = setInterval(() => {
      if (started || app.hostKind || ++tries > 30) clearInterval(poll); else start();
    }, 50);
  }

  // window.openai's own calls for what the page asks of its host.
  G.App.prototype._openai = function (method, p) {
    var oa = window.openai, call = (f, arg) => Promise.resolve(f.call(oa, arg));
    p = p || {};
    if (method === 'tools/call') return Promise.resolve(oa.callTool(p.name, p.arguments || {})).then((r) => asResult(r || {}));
    if (method === 'ui/open-link' && oa.openExternal) return call(oa.openExternal, { href: p.url }).then(empty);
    if (method === 'ui/message' && oa.sendFollowUpMessage) return call(oa.sendFollowUpMessage, { prompt: text(p.content) }).then(empty);
    if (method === 'ui/request-display-mode' && oa.requestDisplayMode) return call(oa.requestDisplayMode, { mode: p.mode });
    // The widget state also holds the form's draft (drafts.js), which this keeps.
    if (method === 'ui/update-model-context' && oa.setWidgetState) {
      var draft = isObj(oa.widgetState) && oa.widgetState[DRAFT];
      return call(oa.setWidgetState, draft ? { ...p.structuredContent || p, [DRAFT]: draft } : p.structuredContent || p).then(empty);
    }
    return unsupported(method);
  };

  // ---- MCP-UI ----
  function embedded() {
    try { var d = JSON.parse(G._byId('mcp-gen-ui-embedded').textContent); return isObj(d) ? d : null; } catch (e) { return null; }
  }
  function useMcpUi(app) {
    if (app.hostKind === 'mcpui') return;
    app.hostKind = 'mcpui';
    app._ready = true;
    G.hideNotice();
    if (app.options.autoResize !== false) app.setupSizeChangedNotifications();
  }
  var hello = (app) => ({ hostInfo: { name: 'mcp-ui', version: '' }, hostContext: app._ctx });
  function mcpui(app, data) {
    useMcpUi(app);
    post({ type: 'ui-lifecycle-iframe-ready' });
    return Promise.resolve(hello(app)).then((r) => {
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
      app._mcpuiWin(hello(app));
    }
    if (app.hostKind !== 'mcpui') return;
    if (type === 'ui-lifecycle-iframe-render-data') {
      var d = isObj(p.renderData) ? p.renderData : {};
      if (d.theme) { app._ctx.theme = d.theme; G.applyContext(app._ctx); }
      if (isObj(d.toolInput)) app._emit('toolinput', { arguments: d.toolInput });
      if (d.toolOutput != null) app._emit('toolresult', asResult(d.toolOutput));
      return;
    }
    var key = 'ui:' + m.messageId, cb = app._pending[key];
    if (!cb || type === 'ui-message-received') return;
    delete app._pending[key];
    if (p.error != null) cb(new Error('The host could not do it: ' + (p.error.message || toJson(p.error))));
    else cb(null, p.response);
  }
  // Requests as MCP-UI actions. The host acknowledges with ui-message-received and answers with
  // ui-message-response; a host that does not return the tool's result (it shows it in the
  // conversation instead) gets a result saying so.
  function request(app, method, p, opts) {
    p = p || {};
    var action = (type, payload) => ({ type, payload });
    if (method === 'ui/notifications/size-changed') return post(action('ui-size-change', { width: p.width, height: p.height }));
    if (method === 'notifications/message') return post(action('notify', { message: typeof p.data === 'string' ? p.data : toJson(p.data) }));
    var a = method === 'tools/call' ? action('tool', { toolName: p.name, params: p.arguments || {} })
      : method === 'ui/message' ? action('prompt', { prompt: text(p.content) })
      : method === 'ui/open-link' ? action('link', { url: p.url })
      : method === 'ui/update-model-context' || method === 'ui/request-display-mode' ? action('intent', { intent: method.slice(3), params: p })
      : null;
    if (!a) return unsupported(method);
    var id = a.messageId = 'mcp-gen-ui-' + (++app._n);
    return app._wait('ui:' + id, method, opts, () => post(a), (res) => method !== 'tools/call' ? res || {}
      : res == null ? { content: [{ type: 'text', text: 'The host took the call; its result appears in the conversation.' }] } : asResult(res));
  }

  G.hosts = { openai, embedded, mcpui, probe, receive, request, asResult };
})();
