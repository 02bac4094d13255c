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
  var confirmBox = h('div.confirm', { hidden: true, role: 'alertdialog', 'aria-label': 'Confirm' });
  var pending = null;
  formEl.append(form.el, h('div.actions', submit), confirmBox);

  function say(msg, kind) {
    status.className = 'status' + (kind ? ' ' + kind : '');
    status.textContent = msg;
  }
  var label = submit.textContent, last = null;
  // A retry button under an error, for calls this page made (not for results the host pushed).
  function retry() {
    if (!last) return null;
    var args = last;
    return h('div.actions', h('button.btn', { text: 'Retry', onclick: function () { if (ann.destructiveHint) ask(args); else run(args); } }));
  }
  function show(result, mine) {
    say('');
    G.renderResult(out, result, opts);
    var panel = out.querySelector('.error');
    if (mine && panel && result && result.isError) { var r = retry(); if (r) panel.append(r); }
  }
  function busy(on) {
    submit.disabled = on;
    submit.textContent = on ? 'Running…' : label;
    out.setAttribute('aria-busy', String(on));
    formEl.classList.toggle('running', on);
  }
  function run(args) {
    last = args;
    busy(true);
    say('Running ' + (tool.title || tool.name) + '…', 'busy');
    app.callServerTool({ name: tool.name, arguments: args }).then(function (r) { show(r, true); }, function (e) {
      say('');
      out.textContent = '';
      out.append(h('div.result', h('div.error', { role: 'alert' }, h('strong', 'The call failed'), h('p', String(e && e.message || e)), retry())));
    }).then(function () { busy(false); });
  }
  // Destructive tools ask first; an in-page panel, since sandboxed frames may block confirm().
  function ask(args) {
    pending = args;
    confirmBox.textContent = '';
    var yes = h('button.btn.danger', { text: 'Yes, run it', onclick: function () { confirmBox.hidden = true; run(pending); } });
    confirmBox.append(h('p', h('strong', tool.title || tool.name), ' may change or delete data. Run it with these inputs?'));
    confirmBox.append(h('div.actions', yes, h('button.btn.ghost', { text: 'Cancel', onclick: function () { confirmBox.hidden = true; say('Cancelled.'); submit.focus(); } })));
    confirmBox.hidden = false;
    yes.focus();
  }
  // Runs from the Run button's click, which Enter in a field also produces: hosts that sandbox
  // the frame without allow-forms (the reference host grants only allow-scripts) block form
  // submission before any submit event fires. Cancelling the click keeps the form from submitting
  // where it could; the submit listener covers anything else that submits it.
  function go(e) {
    e.preventDefault();
    var errs = [];
    var args = form.read(errs);
    if (errs.length) {
      say('Please fix ' + errs.length + ' field' + (errs.length > 1 ? 's' : '') + ' before running.', 'bad');
      if (errs[0].el && errs[0].el.focus) errs[0].el.focus();
      return;
    }
    if (!G.schema.isObj(args)) args = {};
    if (ann.destructiveHint) ask(args); else run(args);
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
