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
  var isArr = Array.isArray, toJson = JSON.stringify, Win = window, Prom = Promise;
  // The prefix of this page's keys and ids.
  var ME = 'mcp-gen-ui', EMBED_KEY = ME + '/embedded', DRAFT = ME + '/draft';
  // The requests both host kinds carry.
  var CALL = 'tools/call', LINK = 'ui/open-link', MESSAGE = 'ui/message', MODE = 'ui/request-display-mode', CONTEXT = 'ui/update-model-context';
  var OPENAI = 'openai', RESULT = 'toolresult';
  var READY = 'ui-lifecycle-iframe-ready', RENDER = 'ui-lifecycle-iframe-render-data', RECEIVED = 'ui-message-received';
  var post = (msg) => Win.parent.postMessage(msg, '*');
  var unsupported = (method) => Prom.reject(new Error(method + ' is not supported by this host'));

  // A result of bare structured data.
  var bare = (data) => ({ structuredContent: data, content: [] });
  // A CallToolResult from whatever a host hands over (a result, or bare structured data).
  function asResult(r) {
    var all = isObj(r) && r.content;
    if (isObj(r) && (isArr(all) || 'structuredContent' in r || r.isError)) {
      // Our own embedded copy of the page is for the host to render, not for the page to show.
      var c = isArr(all) && all.filter((x) => !x?._meta?.[EMBED_KEY]);
      return c && c.length !== all.length ? { ...r, content: c } : r;
    }
    return bare(r);
  }
  var text = (content) => (isArr(content) ? content : []).map((c) => c?.text || '').join('\n');
  // What connect() resolves with for a host kind besides MCP Apps.
  var hello = (app, name) => ({ hostInfo: { name, version: '' }, hostContext: app._ctx });
  // A tool's input and result that a host hands over with the page.
  var emitInput = (app, args) => app._emit('toolinput', { arguments: args });
  var feed = (app, input, result) => {
    if (isObj(input)) emitInput(app, input);
    if (result != null) app._emit(RESULT, asResult(result));
  };

  function openai(app, win) {
    var started = false, lastIn, lastOut, tries = 0;
    var read = (g, k) => g && k in g ? g[k] : (Win.openai || {})[k];
    function sync(g) {
      var ctx = app._ctx;
      ['theme', 'displayMode', 'locale'].forEach((k) => { var v = read(g, k); if (v != null) ctx[k] = v; });
      // The Apps SDK's display modes, where it can change them.
      if (typeof Win.openai?.requestDisplayMode === 'function') ctx.availableDisplayModes = ['inline', 'pip', 'fullscreen'];
      G.applyContext(ctx);
      var input = read(g, 'toolInput');
      if (isObj(input) && !same(input, lastIn)) emitInput(app, lastIn = input);
      var out = read(g, 'toolOutput');
      // toolOutput is the result's structuredContent. Equal content is not a new result: redrawing would close what the person had open.
      if (out != null && !same(out, lastOut)) app._emit(RESULT, bare(lastOut = out));
    }
    function start() {
      if (started || !Win.openai || app.hostKind) return;
      started = true;
      app.hostKind = OPENAI;
      app._ready = true;
      sync(null);
      win(hello(app, OPENAI));
    }
    Win.addEventListener('openai:set_globals', (ev) => {
      if (!started) return start();
      // Once the MCP Apps handshake has completed, that host speaks for itself.
      if (app.hostKind !== OPENAI) return;
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
    var oa = Win.openai, call = (f, ...a) => Prom.resolve(oa[f](...a));
    // The request through window.openai's function f where it has one (arg() its argument), else null.
    var via = (m, f, arg) => method === m && oa[f] ? call(f, arg()) : null;
    p = p || {};
    if (method === CALL) return call('callTool', p.name, p.arguments || {}).then((r) => asResult(r || {}));
    return via(MODE, 'requestDisplayMode', () => ({ mode: p.mode }))
      || (via(LINK, 'openExternal', () => ({ href: p.url }))
        || via(MESSAGE, 'sendFollowUpMessage', () => ({ prompt: text(p.content) }))
        // The widget state also holds the form's draft (drafts.js), which this keeps.
        || via(CONTEXT, 'setWidgetState', () => {
          var draft = isObj(oa.widgetState) && oa.widgetState[DRAFT], state = p.structuredContent || p;
          return draft ? { ...state, [DRAFT]: draft } : state;
        }))?.then(() => ({}))
      || unsupported(method);
  };

  // ---- MCP-UI ----
  function embedded() {
    try { var d = JSON.parse(G._byId(ME + '-embedded').textContent); return isObj(d) ? d : null; } catch (e) { return null; }
  }
  // Makes MCP-UI the app's host kind (once); returns what connect() resolves with.
  function useMcpUi(app) {
    if (app.hostKind !== 'mcpui') app._use('mcpui');
    return hello(app, 'mcp-ui');
  }
  function mcpui(app, data) {
    var r = useMcpUi(app);
    post({ type: READY });
    return Prom.resolve(r).then(() => {
      // After connect() resolves, so handlers set after connect() see them too.
      feed(app, data.arguments, data.result);
      return r;
    });
  }
  function probe(app, win) {
    app._mcpuiWin = win;
    post({ type: READY });
    post({ type: 'ui-request-render-data', messageId: ME + '-render-data' });
  }
  function receive(app, m) {
    var type = m.type, p = isObj(m.payload) ? m.payload : {};
    if (![RENDER, RECEIVED, 'ui-message-response'].includes(type)) return;
    if (!app.hostKind && app._mcpuiWin) app._mcpuiWin(useMcpUi(app));
    if (app.hostKind !== 'mcpui') return;
    if (type === RENDER) {
      var d = isObj(p.renderData) ? p.renderData : {};
      if (d.theme) { app._ctx.theme = d.theme; G.applyContext(app._ctx); }
      feed(app, d.toolInput, d.toolOutput);
      return;
    }
    // The answer settles the request once (runtime.js's _wait removes it).
    var cb = app._pending['ui:' + m.messageId];
    if (!cb || type === RECEIVED) return;
    cb(p.error != null ? new Error('The host could not do it: ' + (p.error.message || toJson(p.error))) : null, p.response);
  }
  // Requests as MCP-UI actions. The host acknowledges with ui-message-received and answers with
  // ui-message-response; a host that does not return the tool's result (it shows it in the
  // conversation instead) gets a result saying so.
  function request(app, method, p, opts) {
    p = p || {};
    var action = (type, payload) => ({ type, payload });
    if (method === 'ui/notifications/size-changed') return post(action('ui-size-change', { width: p.width, height: p.height }));
    if (method === 'notifications/message') return post(action('notify', { message: typeof p.data === 'string' ? p.data : toJson(p.data) }));
    var a = method === CALL ? action('tool', { toolName: p.name, params: p.arguments || {} })
      : method === MESSAGE ? action('prompt', { prompt: text(p.content) })
      : method === LINK ? action('link', { url: p.url })
      : method === CONTEXT || method === MODE ? action('intent', { intent: method.slice(3), params: p })
      : null;
    if (!a) return unsupported(method);
    var id = a.messageId = ME + '-' + (++app._n);
    return app._wait('ui:' + id, method, opts, () => post(a), (res) => method !== CALL ? res || {}
      : res == null ? { content: [{ type: 'text', text: 'The host took the call; its result appears in the conversation.' }] } : asResult(res));
  }

  G.hosts = { openai, embedded, mcpui, probe, receive, request, asResult };
})();
