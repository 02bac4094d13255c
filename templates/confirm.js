// Asks before a tool that may change or delete data runs: a panel at the end of the form, since
// sandboxed frames may block confirm(). Whether a run asks is McpGenUi.asksFirst's (runtime.js);
// embedded only in the pages of tools that can ask; app.js calls it.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, box = null, pending = null;
  // Resolves true when the person runs it, false when they cancel (then cancelled() runs) or a
  // newer question replaces this one.
  G._confirmRun = function (form, name, cancelled, model) {
    if (pending) pending(false);
    if (!box) form.append(box = h('div.confirm', { role: 'alertdialog', 'aria-label': 'Confirm' }));
    return new Promise(function (resolve) {
      pending = resolve;
      var end = function (v) { box.hidden = true; pending = null; resolve(v); };
      var yes = h('button.btn.danger', { text: 'Yes, run it', onclick: function () { end(true); } });
      var who = h('strong', name);
      box.replaceChildren(h('p', model ? ['The assistant wants to run ', who, ', which may change data.']
        : [who, ' may change or delete data.'], ' Run it with these inputs?'),
        h('div.actions', yes, h('button.btn.ghost', { text: 'Cancel', onclick: function () { end(false); cancelled(); } })));
      box.hidden = false;
      yes.focus();
    });
  };
})();
