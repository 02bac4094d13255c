// The page of one builtin widget: builds the form from the embedded tool definition, runs the
// tool through the host, and shows every result the host sends.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, byId = G._byId, message = G._message, V = G.viewTools, isObj = G.schema.isObj;
  // The prefix of the page's ids and console messages.
  var ME = 'mcp-gen-ui', data = {};
  try { data = JSON.parse(byId(ME + '-data').textContent); } catch (e) { console.error(ME + ': bad embedded data', e); }
  var tool = data.tool || {}, hints = data.hints || {}, ann = tool.annotations, name = tool.title || tool.name;
  var opts = { view: hints.view, x: hints.x, y: hints.y, hidden: hints.hidden, labels: hints.labels, sort: hints.sort, outputSchema: tool.outputSchema };
  if (hints.theme === 'light' || hints.theme === 'dark') G.applyDocumentTheme(G.forcedTheme = hints.theme);
  if (hints.density === 'compact') document.documentElement.classList.add('compact');

  var app = G.app = new G.App({ name: ME + ': ' + (tool.name || 'tool'), version: data.version || '1' }, {}, { autoResize: true });
  var ACTIONS = 'div.actions', formEl = byId('mcp-form'), status = byId('mcp-status'), out = byId('mcp-result');
  // form.js is left out of pages whose tool takes no input.
  var form = G.buildForm ? G.buildForm(tool.inputSchema) : { el: h('p.help', 'This tool takes no input.'), read: () => ({}), write() {} };
  var label = G.asksFirst(ann, false) ? 'Run…' : 'Run', last = null;
  var submit = h('button.btn.primary', { type: 'submit', text: label });
  formEl.append(form.el, h(ACTIONS, submit));
  // The description in view.js's Markdown subset; page.html's plain text stays for a page without scripts.
  var desc = document.querySelector('.head .desc');
  if (desc && tool.description && G.markdown) desc.replaceWith(G.markdown(h('div.desc'), tool.description));
  var listen = (el, type, fn) => el.addEventListener(type, fn);

  var say = (msg, kind) => {
    status.className = 'status' + (kind ? ' ' + kind : '');
    status.textContent = msg;
  };
  // A retry button under an error, for calls this page made (not for results the host pushed).
  var retry = () => {
    var args = last;
    return args && h(ACTIONS, h('button.btn', { text: 'Retry', onclick: () => ask(false).then((yes) => yes && run(args)).catch(() => { /* shown in the page */ }) }));
  };
  var show = (result, mine) => {
    say('');
    G.renderResult(out, result, opts);
    var panel = out.querySelector('.error');
    if (mine && panel && result?.isError) panel.append(retry() || '');
    V?.shown(result);
  };
  var busy = (on) => {
    submit.disabled = on;
    submit.textContent = on ? 'Running…' : label;
    out.setAttribute('aria-busy', String(on));
  };
  // Resolves with the result shown, or rejects with the failure shown.
  function run(args) {
    last = args;
    busy(true);
    say('Running ' + name + '…', 'busy');
    return app.callServerTool({ name: tool.name, arguments: args }).then((r) => { show(r, true); return r; }, (e) => {
      say('');
      out.replaceChildren(h('div.result', h('div.error', { role: 'alert' }, h('strong', 'The call failed'), h('p', message(e)), retry())));
      throw e;
    }).finally(() => busy(false));
  }
  // Who confirms (book: reference/pages.md): the runtime's one rule, for the person's click or a
  // run the model asks for (run_tool). confirm.js is embedded whenever either can ask. Resolves
  // true when the person runs it, false when they cancel.
  var ask = (model) => Promise.resolve(!G.asksFirst(ann, model)
    || !!G._confirmRun && G._confirmRun(formEl, name, () => { say('Cancelled.'); submit.focus(); }, model));
  // What the Run button does; the run_tool view tool does the same (model: true). Resolves with
  // the result, or with {errors} when the form is not valid, or {cancelled} when the person said no.
  var attempt = (model) => {
    var errs = [], args = form.read(errs), n = errs.length;
    if (!isObj(args)) args = {};
    // The field's key before each of the form's own messages, for run_tool's answer (the page
    // shows them at their field already; the validator's come with their path).
    errs.forEach((x) => { var k = x.box?.dataset?.key; if (k) x.message = k + ': ' + x.message; });
    // Then the tool's whole inputSchema, where the schema needs more than the form checks
    // (schema-check.js is embedded then): nothing is sent that it rejects.
    if (!n && G.checkArgs) n = (errs = G.checkArgs(tool.inputSchema, args, form)).length;
    if (n) {
      say('Please fix ' + n + ' field' + (n > 1 ? 's' : '') + ' before running.', 'bad');
      errs[0].el?.focus?.();
      return Promise.resolve({ errors: errs });
    }
    return ask(model).then((yes) => yes ? run(args) : { cancelled: true });
  };
  // Runs from the Run button's click, which Enter in a field also produces: hosts that sandbox
  // the frame without allow-forms (the reference host grants only allow-scripts) block form
  // submission before any submit event fires. Cancelling the click keeps the form from submitting
  // where it could; the submit listener covers anything else that submits it.
  var go = (e) => {
    e.preventDefault();
    attempt(false).catch(() => { /* shown in the page */ });
  };
  if (V) {
    V.resultEl = out;
    var failed = V._failure;
    // With arguments: filled in all or none first (fill_form's check), so a refused call changes
    // nothing in the form.
    V.runner = (args) => {
      var filled = args && V.fillAll(args);
      // (Its content replaced, the rest as fill_form answered.)
      if (filled?.isError) return { ...filled, ...failed('Not run. ' + filled.content[0].text) };
      return attempt(true).then((r) => r?.errors ? failed('The form is not valid yet: ' + r.errors.map((x) => x.message).join('; '))
        : r?.cancelled ? failed('The person chose not to run ' + tool.name + '.') : r,
      (e) => failed('The call failed: ' + message(e)));
    };
  }
  listen(submit, 'click', go);
  listen(formEl, 'submit', go);

  app.ontoolinput = (p) => { if (p?.arguments) form.write(p.arguments); };
  // Arguments as the model writes them (drafts.js locks and marks the form meanwhile): anything
  // but an object is ignored.
  app.ontoolinputpartial = (p) => {
    if (isObj(p?.arguments)) form.write(p.arguments);
    else console.warn(ME + ': ignored a tool-input-partial whose arguments are not an object');
  };
  // A result the host pushed: no retry button (show without "mine").
  app.ontoolresult = show;
  app.ontoolcancelled = (p) => say('The tool call was cancelled' + (p?.reason ? ': ' + p.reason : '.'), 'bad');
  app.onteardown = () => ({});
  // Time fields name the host's time zone, known once the host has answered.
  var zones = () => G._run('zone');
  listen(app, 'hostcontextchanged', zones);
  app.connect().then(zones).catch((e) => console.warn(ME + ':', e?.message));
})();
