// The run_tool view tool (viewtools.js) for pages whose glue sets no runner of its own: llm pages,
// and pages built from an override directory (the builtin app.js sets one). It runs the page's
// tool with the given arguments, else the form's values, after the person agrees in the page,
// unless the tool's annotations (the page's embedded tool, else the host's toolInfo) say it is
// readOnlyHint or explicitly not destructiveHint (book: reference/pages.md, "Who confirms").
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, V = G.viewTools, app = null;
  if (!V) return;
  // The page's App: the first one connected (the runtime's 'connect' extension point).
  G._on('connect', (a) => { app = app || a; });

  var failure = (text) => { return { isError: true, content: [{ type: 'text', text: text }] }; };
  // The tool this page is for, as embedded: the builtin page's data, else llm.js's tool block.
  var embedded = () => {
    try {
      var d = JSON.parse((document.getElementById('mcp-gen-ui-data') || {}).textContent || '{}');
      if (d.tool && d.tool.name) return d.tool;
    } catch (e) { /* no data block */ }
    try {
      var t = JSON.parse((document.getElementById('mcp-gen-ui-tool') || {}).textContent || 'null');
      if (t && t.name) return t;
    } catch (e) { /* no tool block */ }
    return null;
  };
  // Its annotations: the embedded tool's, else the host's toolInfo when it names the same tool.
  var annotations = (name) => {
    var t = embedded(), info = app && app._ctx && app._ctx.toolInfo && app._ctx.toolInfo.tool;
    if (t && t.name === name && t.annotations) return t.annotations;
    return info && info.name === name ? info.annotations : null;
  };
  // The tool this page is for: the embedded tool, else the generated-file header.
  var toolName = () => {
    var t = embedded();
    if (t) return t.name;
    var c = document.firstChild;
    var m = c && c.nodeType === 8 && /from tool ("(?:[^"\\]|\\.)*")/.exec(c.data);
    try { return m ? JSON.parse(m[1]) : null; } catch (e) { return null; }
  };
  var ask = (name) => {
    return new Promise(function (resolve) {
      var box = h('div.confirm', { role: 'alertdialog', 'aria-label': 'Confirm' });
      var done = function (v) { box.remove(); resolve(v); };
      box.append(h('p', 'The assistant wants to run ', h('strong', name), '. Run it?'),
        h('div.actions', h('button.btn.primary', { text: 'Run it', onclick: function () { done(true); } }),
          h('button.btn.ghost', { text: 'Cancel', onclick: function () { done(false); } })));
      document.body.insertBefore(box, document.body.firstChild);
    });
  };

  V._runner = function (args) {
    var name = toolName();
    if (!name || !app) return failure('This page cannot run its tool: it is not connected to a host.');
    var f = !args && V._readForm();
    if (f) {
      if (f.errors.length) return failure('The form is not valid yet: ' + f.errors.join('; '));
      args = f.values;
    }
    // The tool's whole inputSchema first (schema-check.js, which these pages embed): nothing it
    // rejects is sent.
    var t = embedded(), bad = G.checkArgs && t && t.name === name ? G.checkArgs(t.inputSchema, args || {}) : [];
    if (bad.length) return failure('Not run: the arguments do not match the tool\'s input schema: ' + bad.map(function (x) { return x.message; }).join('; '));
    return (G.asksFirst(annotations(name), true) ? ask(name) : Promise.resolve(true)).then(function (yes) {
      if (!yes) return failure('The person chose not to run ' + name + '.');
      return app.callServerTool({ name: name, arguments: args || {} }).then(function (r) {
        app._emit('toolresult', r);
        return r;
      });
    });
  };
})();
