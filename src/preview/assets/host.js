// mcp-gen-ui preview: the host side of MCP Apps (SEP-1865, protocol 2026-01-26) for one UI at a
// time. The UI runs in an iframe sandboxed without allow-same-origin, so it has an opaque origin:
// it can reach nothing but this page, through postMessage. Its requests to the MCP server are
// relayed to the preview server (POST rpc), which forwards them to the live upstream.
// Everything shown here comes from the upstream or the app: it is only ever set as text.
(function () {
  "use strict";

  var PROTOCOL_VERSION = "2026-01-26";
  var LOG_LIMIT = 500;
  var SHOWN_JSON_LIMIT = 20000;
  var TEARDOWN_WAIT_MS = 500;
  var HANDSHAKE_WARN_MS = 5000;

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var token = boot.token;

  var THEMES = {
    light: {
      "--color-background-primary": "#ffffff",
      "--color-background-secondary": "#f4f5f7",
      "--color-background-tertiary": "#eceef2",
      "--color-background-inverse": "#1b1d21",
      "--color-text-primary": "#1b1d21",
      "--color-text-secondary": "#5b6170",
      "--color-text-tertiary": "#80869a",
      "--color-text-inverse": "#ffffff",
      "--color-text-danger": "#b3261e",
      "--color-text-success": "#1e7b34",
      "--color-text-warning": "#8a5a00",
      "--color-text-info": "#1f5fbf",
      "--color-border-primary": "#d5d8de",
      "--color-border-secondary": "#e3e5ea",
      "--color-ring-primary": "#3a6ff7",
      "--font-sans": "system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif",
      "--font-mono": "ui-monospace, \"SFMono-Regular\", Menlo, Consolas, monospace",
      "--border-radius-sm": "4px",
      "--border-radius-md": "8px",
      "--border-radius-lg": "12px",
    },
    dark: {
      "--color-background-primary": "#1c1d21",
      "--color-background-secondary": "#26282e",
      "--color-background-tertiary": "#30333a",
      "--color-background-inverse": "#eceef2",
      "--color-text-primary": "#eceef2",
      "--color-text-secondary": "#a3a8b5",
      "--color-text-tertiary": "#7d8292",
      "--color-text-inverse": "#1b1d21",
      "--color-text-danger": "#ff8a80",
      "--color-text-success": "#7bd88f",
      "--color-text-warning": "#ffcc66",
      "--color-text-info": "#8ab4ff",
      "--color-border-primary": "#3b3e47",
      "--color-border-secondary": "#30333a",
      "--color-ring-primary": "#7aa2ff",
      "--font-sans": "system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif",
      "--font-mono": "ui-monospace, \"SFMono-Regular\", Menlo, Consolas, monospace",
      "--border-radius-sm": "4px",
      "--border-radius-md": "8px",
      "--border-radius-lg": "12px",
    },
  };

  var $ = function (id) { return document.getElementById(id); };
  var state = {
    tool: null,        // the boot entry of the tool shown
    widget: null,      // its widget name
    frame: null,       // the iframe element
    ready: false,      // ui/notifications/initialized received from this frame
    appInfo: null,
    theme: "light",
    nextId: 1,
    pending: new Map(), // our requests to the app, by id
    generation: 0,     // bumped per loaded frame, so late answers of an old frame are ignored
  };

  // ---- small helpers ---------------------------------------------------------------------

  function jsonText(v) {
    var s;
    try { s = JSON.stringify(v, null, 2); } catch (e) { s = String(v); }
    if (s === undefined) s = String(v);
    if (s.length > SHOWN_JSON_LIMIT) s = s.slice(0, SHOWN_JSON_LIMIT) + "\n… (" + s.length + " characters, cut)";
    return s;
  }

  function setStatus(text, bad) {
    var el = $("status");
    el.textContent = text;
    el.classList.toggle("bad", !!bad);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function summarize(msg) {
    if (!msg || typeof msg !== "object") return typeof msg;
    if (typeof msg.method === "string") {
      var s = msg.method;
      if (msg.id !== undefined) s += " #" + msg.id;
      if (msg.method === "tools/call" && msg.params && typeof msg.params.name === "string") s += " " + msg.params.name;
      return s;
    }
    if (msg.id !== undefined) return (msg.error ? "error #" : "result #") + msg.id;
    if (msg.error) return "error " + msg.error.code;
    if ("result" in msg) return "result";
    return "message";
  }

  function log(dir, msg, isError) {
    var list = $("log");
    var li = el("li", isError || (msg && msg.error) ? "err" : "");
    var d = el("details");
    var sum = el("summary");
    var t = new Date();
    sum.appendChild(el("span", "time", t.toLocaleTimeString() + " "));
    sum.appendChild(el("span", "dir", dir));
    sum.appendChild(el("span", "what", summarize(msg)));
    d.appendChild(sum);
    d.appendChild(el("pre", "", jsonText(msg)));
    li.appendChild(d);
    li.setAttribute("data-dir", dir);
    li.setAttribute("data-what", summarize(msg));
    list.appendChild(li);
    while (list.children.length > LOG_LIMIT) list.removeChild(list.firstChild);
    list.scrollTop = list.scrollHeight;
  }

  function fromApp(kind, text) {
    var li = el("li", "", kind + ": " + text);
    li.setAttribute("data-kind", kind);
    $("from-app").appendChild(li);
    $("from-app-count").textContent = "(" + $("from-app").children.length + ")";
  }

  function contentText(content) {
    if (!Array.isArray(content)) return "";
    return content.map(function (c) {
      if (c && c.type === "text" && typeof c.text === "string") return c.text;
      return "[" + (c && c.type) + "]";
    }).join("\n");
  }

  function showResult(toolName, result, error) {
    var out = $("result");
    if (error) {
      out.textContent = toolName + " → error " + error.code + ": " + error.message;
      out.classList.add("error");
      return;
    }
    out.classList.toggle("error", !!(result && result.isError));
    var text = contentText(result && result.content);
    out.textContent = toolName + (result && result.isError ? " → tool error" : " → ok") +
      (text ? "\n" + text : "") + "\n\n" + jsonText(result);
  }

  // ---- the upstream, through the preview server ---------------------------------------------

  function upstream(method, params) {
    var msg = { method: method, params: params };
    log("host → upstream", msg);
    return fetch("rpc?token=" + encodeURIComponent(token), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(msg),
    }).then(function (resp) {
      return resp.text().then(function (text) {
        var body;
        try { body = JSON.parse(text); } catch (e) {
          body = { error: { code: -32603, message: "preview server answered HTTP " + resp.status + ": " + text.slice(0, 300) } };
        }
        log("upstream → host", body, !!body.error);
        return body;
      });
    }, function (err) {
      var body = { error: { code: -32603, message: "the preview server is not reachable (did `mcp-gen-ui preview` stop?): " + err } };
      log("upstream → host", body, true);
      return body;
    });
  }

  // ---- talking to the app --------------------------------------------------------------------

  function post(msg) {
    if (!state.frame || !state.frame.contentWindow) return;
    log("host → app", msg);
    // "*" is the only target that reaches an opaque-origin (sandboxed) frame; the message
    // carries nothing the app may not see.
    state.frame.contentWindow.postMessage(msg, "*");
  }

  function notify(method, params) {
    post({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function request(method, params, timeoutMs) {
    var id = "host-" + state.nextId++;
    var gen = state.generation;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        state.pending.delete(id);
        reject(new Error(method + ": no answer within " + timeoutMs + " ms"));
      }, timeoutMs);
      state.pending.set(id, { gen: gen, done: function (m) { clearTimeout(timer); resolve(m); } });
      post({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    });
  }

  function reply(id, result) { post({ jsonrpc: "2.0", id: id, result: result }); }
  function replyError(id, code, message) { post({ jsonrpc: "2.0", id: id, error: { code: code, message: message } }); }

  function hostContext() {
    var ctx = {
      theme: state.theme,
      styles: { variables: THEMES[state.theme] },
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: state.frame ? state.frame.clientWidth : 800, maxHeight: 5000 },
      locale: navigator.language || "en-US",
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "mcp-gen-ui-preview/" + boot.version,
      platform: "web",
      deviceCapabilities: { hover: true, touch: false },
    };
    if (state.tool && state.tool.definition) ctx.toolInfo = { tool: state.tool.definition };
    return ctx;
  }

  function onInitialize(msg) {
    var p = msg.params || {};
    state.appInfo = p.appInfo || null;
    reply(msg.id, {
      protocolVersion: PROTOCOL_VERSION,
      hostInfo: { name: "mcp-gen-ui-preview", version: boot.version },
      hostCapabilities: {
        openLinks: {},
        serverTools: {},
        serverResources: {},
        logging: {},
        message: { text: {}, structuredContent: {} },
        updateModelContext: { text: {}, structuredContent: {} },
        sandbox: { csp: state.tool ? state.tool.csp : {} },
      },
      hostContext: hostContext(),
    });
    setStatus("handshake: waiting for ui/notifications/initialized");
  }

  function onInitialized() {
    state.ready = true;
    var app = state.appInfo && state.appInfo.name ? " (" + state.appInfo.name + ")" : "";
    setStatus("connected to the app" + app);
    var args = readArgs();
    notify("ui/notifications/tool-input", { arguments: args === null ? {} : args });
  }

  function forward(msg) {
    var name = msg.params && typeof msg.params.name === "string" ? msg.params.name : "";
    var gen = state.generation;
    upstream(msg.method, msg.params).then(function (body) {
      if (msg.method === "tools/call") showResult(name, body.result, body.error);
      // The frame that asked may be gone (tool switched, reloaded): its answer goes nowhere.
      if (gen !== state.generation) return;
      if (body.error) replyError(msg.id, body.error.code, body.error.message);
      else reply(msg.id, body.result);
    });
  }

  function onRequest(msg) {
    var p = msg.params || {};
    switch (msg.method) {
      case "ui/initialize": return onInitialize(msg);
      case "ping": return reply(msg.id, {});
      case "tools/call":
      case "resources/read":
      case "resources/list":
      case "resources/templates/list":
        return forward(msg);
      case "ui/message":
        fromApp("message", contentText(p.content) || jsonText(p));
        return reply(msg.id, {});
      case "ui/open-link":
        // A preview never navigates away on the app's behalf; the link is shown instead.
        fromApp("open-link (not opened)", String(p.url));
        return reply(msg.id, {});
      case "ui/update-model-context":
        fromApp("model context", contentText(p.content) || jsonText(p.structuredContent || p));
        return reply(msg.id, {});
      case "ui/request-display-mode":
        return reply(msg.id, { mode: "inline" });
      default:
        return replyError(msg.id, -32601, "Method not found: " + String(msg.method).slice(0, 100) + " (mcp-gen-ui preview)");
    }
  }

  function onNotification(msg) {
    var p = msg.params || {};
    switch (msg.method) {
      case "ui/notifications/initialized": return onInitialized();
      case "ui/notifications/size-changed":
        if (typeof p.height === "number" && isFinite(p.height) && state.frame) {
          state.frame.style.height = Math.max(40, Math.min(5000, Math.ceil(p.height))) + "px";
        }
        return;
      case "notifications/message":
        fromApp("log " + (p.level || "info"), typeof p.data === "string" ? p.data : jsonText(p.data));
        return;
      case "ui/notifications/request-teardown":
        fromApp("request-teardown", "the app asked to be closed (preview keeps it open)");
        return;
      default:
        return;
    }
  }

  window.addEventListener("message", function (ev) {
    // Only the current frame speaks to us; any other window (an old frame, another tab) is ignored.
    if (!state.frame || ev.source !== state.frame.contentWindow) return;
    var msg = ev.data;
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
    log("app → host", msg, !!msg.error);
    var hasId = msg.id !== undefined && msg.id !== null;
    if (typeof msg.method === "string") {
      if (hasId) onRequest(msg);
      else onNotification(msg);
    } else if (hasId) {
      var pending = state.pending.get(msg.id);
      if (pending && pending.gen === state.generation) {
        state.pending.delete(msg.id);
        pending.done(msg);
      }
    }
  });

  // ---- loading a tool's UI ---------------------------------------------------------------------

  function frameUrl(tool, widget) {
    var q = "token=" + encodeURIComponent(token) + "&tool=" + encodeURIComponent(tool.name);
    if (widget) q += "&widget=" + encodeURIComponent(widget);
    return "frame?" + q;
  }

  function teardown() {
    if (!state.frame) return Promise.resolve();
    if (!state.ready) return Promise.resolve();
    return request("ui/resource-teardown", {}, TEARDOWN_WAIT_MS).catch(function () {});
  }

  function load(tool, widget) {
    return teardown().then(function () {
      state.generation++;
      state.pending = new Map();
      state.ready = false;
      state.appInfo = null;
      state.tool = tool;
      state.widget = widget;
      var box = $("frame-box");
      while (box.firstChild) box.removeChild(box.firstChild);
      state.frame = null;
      showNotes(tool);
      showToolInfo(tool);
      if (!tool) { setStatus("no tool with a UI: run `mcp-gen-ui generate`", true); return; }
      var f = document.createElement("iframe");
      f.id = "app";
      f.title = "UI of " + tool.name;
      // What the reference host grants an app (ext-apps: sandbox "allow-scripts"), so a UI that
      // works here works there: no forms (submission is blocked, with no submit event), no
      // popups, no top navigation, and no allow-same-origin: the document comes from this server,
      // so same-origin would hand the app this page and its token.
      f.setAttribute("sandbox", "allow-scripts");
      f.setAttribute("referrerpolicy", "no-referrer");
      f.src = frameUrl(tool, widget);
      state.frame = f;
      box.appendChild(f);
      setStatus("loading the UI of " + tool.name + "…");
      var gen = state.generation;
      setTimeout(function () {
        if (gen === state.generation && !state.ready) {
          setStatus("the UI has not completed the MCP Apps handshake (ui/initialize, then ui/notifications/initialized)", true);
        }
      }, HANDSHAKE_WARN_MS);
      $("args").value = jsonText(tool.example || {});
      $("args-error").textContent = "";
    });
  }

  // The tool's description and behaviour hints, so the user knows what "Call tool" will do.
  function showToolInfo(tool) {
    var info = $("tool-info");
    while (info.firstChild) info.removeChild(info.firstChild);
    var def = tool && tool.definition;
    if (!def) return;
    info.appendChild(el("span", "", typeof def.description === "string" ? def.description : ""));
    var a = def.annotations || {};
    if (a.readOnlyHint === true) info.appendChild(el("span", "badge", "read-only"));
    if (a.destructiveHint === true && a.readOnlyHint !== true) info.appendChild(el("span", "badge destructive", "destructive"));
    if (a.idempotentHint === true) info.appendChild(el("span", "badge", "idempotent"));
    if (a.openWorldHint === true) info.appendChild(el("span", "badge", "open world"));
  }

  function showNotes(tool) {
    var notes = $("notes");
    while (notes.firstChild) notes.removeChild(notes.firstChild);
    var list = [];
    if (boot.lockError) list.push(boot.lockError);
    if (tool) list = list.concat(tool.notes || [], tool.cspWarnings || []);
    list.forEach(function (n) { notes.appendChild(el("div", "", n)); });
    notes.hidden = list.length === 0;
  }

  function readArgs() {
    var text = $("args").value.trim();
    if (!text) return {};
    try {
      var v = JSON.parse(text);
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("the arguments must be a JSON object");
      $("args-error").textContent = "";
      return v;
    } catch (e) {
      $("args-error").textContent = String(e.message || e);
      return null;
    }
  }

  // The host's own call, as when a model calls the tool: input, call, then the result.
  function hostCall() {
    var tool = state.tool;
    if (!tool) return;
    var args = readArgs();
    if (args === null) return;
    if (state.ready) notify("ui/notifications/tool-input", { arguments: args });
    var gen = state.generation;
    upstream("tools/call", { name: tool.name, arguments: args }).then(function (body) {
      showResult(tool.name, body.result, body.error);
      if (gen !== state.generation || !state.ready) return;
      if (body.error) {
        notify("ui/notifications/tool-result", {
          content: [{ type: "text", text: "Error " + body.error.code + ": " + body.error.message }],
          isError: true,
        });
      } else {
        notify("ui/notifications/tool-result", body.result);
      }
    });
  }

  function setTheme(theme) {
    state.theme = theme;
    document.documentElement.setAttribute("data-theme", theme);
    var b = $("theme");
    b.textContent = theme === "dark" ? "Light theme" : "Dark theme";
    b.setAttribute("aria-pressed", theme === "dark" ? "true" : "false");
    if (state.ready) notify("ui/notifications/host-context-changed", { theme: theme, styles: { variables: THEMES[theme] } });
  }

  function option(value, label) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    return o;
  }

  function init() {
    var select = $("tool");
    var choices = [];
    boot.tools.forEach(function (t, ti) {
      var widgets = t.widgets && t.widgets.length ? t.widgets : [{ name: null }];
      widgets.forEach(function (w, wi) {
        var label = (t.title ? t.title + " (" + t.name + ")" : t.name);
        if (widgets.length > 1) label += " / " + w.name;
        choices.push({ tool: t, widget: widgets.length > 1 ? w.name : null });
        select.appendChild(option(String(choices.length - 1), label));
      });
    });
    var params = new URLSearchParams(location.search);
    var wanted = params.get("tool") || boot.initialTool;
    var wantedWidget = params.get("widget");
    var start = 0;
    choices.forEach(function (c, i) {
      if (c.tool.name === wanted && (!wantedWidget || c.widget === wantedWidget) && start === 0) start = i;
    });
    select.value = String(start);
    select.addEventListener("change", function () {
      var c = choices[Number(select.value)];
      if (!c) return;
      // Keep the choice in the address bar, so a reload shows the same tool.
      var q = new URLSearchParams(location.search);
      q.set("tool", c.tool.name);
      if (c.widget) q.set("widget", c.widget); else q.delete("widget");
      history.replaceState(null, "", "?" + q.toString());
      load(c.tool, c.widget);
    });
    $("reload").addEventListener("click", function () { load(state.tool, state.widget); });
    $("theme").addEventListener("click", function () { setTheme(state.theme === "dark" ? "light" : "dark"); });
    $("call").addEventListener("click", hostCall);
    $("clear-log").addEventListener("click", function (e) {
      e.preventDefault();
      var list = $("log");
      while (list.firstChild) list.removeChild(list.firstChild);
    });
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    var themeParam = params.get("theme");
    setTheme(themeParam === "dark" || themeParam === "light" ? themeParam : dark ? "dark" : "light");
    $("foot").textContent = "Upstream: " + boot.upstream.describe + " (" + boot.upstream.serverName + ") · UIs from " +
      boot.outDir + " · mcp-gen-ui " + boot.version;
    var first = choices[start];
    load(first ? first.tool : null, first ? first.widget : null);
  }

  init();
})();
