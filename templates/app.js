// The page of one builtin widget: builds the form from the embedded tool definition, runs the
// tool through the host, and shows every result the host sends.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h;
  var data = {};
  try { data = JSON.parse(document.getElementById('mcp-gen-ui-data').textContent); } catch (e) { console.error('mcp-gen-ui: bad embedded data', e); }
  var tool = data.tool || {}, hints = data.hints || {}, ann = tool.annotations || {};
  var opts = { view: hints.view, x: hints.x, y: hints.y, hidden: hints.hidden, labels: hints.labels, sort: hints.sort, outputSchema: tool.outputSchema };
  if (hints.theme === 'light' || hints.theme === 'dark') { G.forcedTheme = hints.theme; G.applyDocumentTheme(hints.theme); }
  if (hints.density === 'compact') document.documentElement.classList.add('compact');

  var app = G.app = new G.App({ name: 'mcp-gen-ui: ' + (tool.name || 'tool'), version: data.version || '1' }, {}, { autoResize: true });
  var formEl = document.getElementById('mcp-form');
  var status = document.getElementById('mcp-status');
  var out = document.getElementById('mcp-result');
  // form.js is left out of pages whose tool takes no input.
  var form = G.buildForm ? G.buildForm(tool.inputSchema) : { el: h('p.help', 'This tool takes no input.'), read: function () { return {}; }, write: function () {} };
  var submit = h('button', { type: 'submit', class: 'btn primary', text: ann.destructiveHint ? 'Run…' : 'Run' });
  formEl.append(form.el, h('div.actions', submit));

  function say(msg, kind) {
    status.className = 'status' + (kind ? ' ' + kind : '');
    status.textContent = msg;
  }
  var label = submit.textContent, last = null;
  // A retry button under an error, for calls this page made (not for results the host pushed).
  function retry() {
    if (!last) return null;
    var args = last;
    return h('div.actions', h('button.btn', { text: 'Retry', onclick: function () {
      ask().then(function (yes) { return yes && run(args); }).catch(function () { /* shown in the page */ });
    } }));
  }
  function show(result, mine) {
    say('');
    G.renderResult(out, result, opts);
    var panel = out.querySelector('.error');
    if (mine && panel && result && result.isError) { var r = retry(); if (r) panel.append(r); }
    if (G.viewTools) G.viewTools.shown(result);
  }
  function busy(on) {
    submit.disabled = on;
    submit.textContent = on ? 'Running…' : label;
    out.setAttribute('aria-busy', String(on));
  }
  // Resolves with the result shown, or rejects with the failure shown.
  function run(args) {
    last = args;
    busy(true);
    say('Running ' + (tool.title || tool.name) + '…', 'busy');
    return app.callServerTool({ name: tool.name, arguments: args }).then(function (r) { show(r, true); return r; }, function (e) {
      say('');
      out.textContent = '';
      out.append(h('div.result', h('div.error', { role: 'alert' }, h('strong', 'The call failed'), h('p', String(e && e.message || e)), retry())));
      throw e;
    }).finally(function () { busy(false); });
  }
  // Destructive tools ask first (confirm.js, embedded for them). Resolves true when the person
  // runs it, false when they cancel.
  function ask() {
    if (!ann.destructiveHint) return Promise.resolve(true);
    if (!G._confirmRun) return Promise.resolve(false);
    return G._confirmRun(formEl, tool.title || tool.name, function () { say('Cancelled.'); submit.focus(); });
  }
  // What the Run button does; the run_tool view tool does the same. Resolves with the result, or
  // with null when the form is not valid or the person cancelled.
  function attempt() {
    var errs = [];
    var args = form.read(errs);
    if (errs.length) {
      say('Please fix ' + errs.length + ' field' + (errs.length > 1 ? 's' : '') + ' before running.', 'bad');
      if (errs[0].el && errs[0].el.focus) errs[0].el.focus();
      return Promise.resolve({ errors: errs });
    }
    if (!G.schema.isObj(args)) args = {};
    return ask().then(function (yes) {
      return yes ? run(args) : { cancelled: true };
    });
  }
  // Runs from the Run button's click, which Enter in a field also produces: hosts that sandbox
  // the frame without allow-forms (the reference host grants only allow-scripts) block form
  // submission before any submit event fires. Cancelling the click keeps the form from submitting
  // where it could; the submit listener covers anything else that submits it.
  function go(e) {
    e.preventDefault();
    attempt().catch(function () { /* shown in the page */ });
  }
  if (G.viewTools) {
    G.viewTools.resultEl = out;
    G.viewTools.runner = function (args) {
      if (args) form.write(args);
      return attempt().then(function (r) {
        if (r && r.errors) return { isError: true, content: [{ type: 'text', text: 'The form is not valid yet: ' + r.errors.map(function (x) { return x.message; }).join('; ') }] };
        if (r && r.cancelled) return { isError: true, content: [{ type: 'text', text: 'The person chose not to run ' + tool.name + '.' }] };
        return r;
      }, function (e) { return { isError: true, content: [{ type: 'text', text: 'The call failed: ' + String(e && e.message || e) }] }; });
    };
  }
  submit.addEventListener('click', go);
  formEl.addEventListener('submit', go);

  app.ontoolinput = function (p) { if (p && p.arguments) form.write(p.arguments); };
  app.ontoolinputpartial = function (p) { if (p && p.arguments) form.write(p.arguments); };
  app.ontoolresult = function (r) { show(r); };
  app.ontoolcancelled = function (p) { say('The tool call was cancelled' + (p && p.reason ? ': ' + p.reason : '.'), 'bad'); };
  app.onteardown = function () { return {}; };
  // Time fields name the host's time zone, known once the host has answered.
  var zones = function () { if (G.form && G.form.refresh) G.form.refresh(); };
  app.addEventListener('hostcontextchanged', zones);
  app.connect().then(zones).catch(function (e) { console.warn('mcp-gen-ui:', e && e.message); });
})();
