// Drafts and streamed input, for the builtin page's form (book: reference/pages.md, "Living in
// the host"). A person's unsent edits are kept per view (the server, the tool and its
// tool-input, hashed) in window.openai's widget state where there is one, else page storage
// where it works, else memory; never a field shown as a password and never a file's contents.
// A draft is restored over the tool-input it was stored for, and dropped once sent, after 7
// days, or when the tool's schema changes. While tool-input-partial streams, the form shows the
// partial locked and marked (nothing editable, nothing sent); the final tool-input replaces it.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, isArr = Array.isArray, oKeys = Object.keys, toJson = JSON.stringify;
  var WEEK = 6048e5, KEY = 'mcp-gen-ui/draft', PREFIX = KEY + '/', TYPED = /^(text|email|url|search|tel|date|time|datetime-local|textarea)$/;
  var tool = {}, formEl = G._byId('mcp-form'), form, root, built, base, given, view, bar, streaming, errs = [], mem = {}, ls;
  var all = (el, sel) => [...el.querySelectorAll(sel)];
  var parse = (t) => { try { return JSON.parse(t); } catch (e) { /* null */ } };
  var data = parse(G._byId('mcp-gen-ui-data')?.textContent);
  if (isObj(data?.tool)) tool = data.tool;
  // A clock a test may replace (McpGenUi.now).
  var now = () => (G.now || Date.now)();
  var canon = (v) => isArr(v) ? '[' + v.map(canon) + ']'
    : isObj(v) ? '{' + oKeys(v).sort().map((k) => toJson(k) + ':' + canon(v[k])) + '}' : toJson(v) ?? 'null';
  // Two 32-bit hashes of the text: a key, not a secret (book: what another page could read).
  var hash = (t) => {
    for (var a = 0x811c9dc5, b = 5381, i = 0, c; i < t.length; i++) { c = t.charCodeAt(i); a = Math.imul(a ^ c, 16777619); b = Math.imul(b, 33) ^ c; }
    return (a >>> 0).toString(36) + (b >>> 0).toString(36);
  };
  var schemaHash = hash(canon(tool.inputSchema));
  var fresh = (d) => isObj(d) && now() - d.t < WEEK;
  try {
    ls = window.localStorage;
    // Drafts past 7 days leave page storage, whichever view they were for.
    oKeys(ls).forEach((k) => { if (!k.indexOf(PREFIX) && !fresh(parse(ls[k]))) ls.removeItem(k); });
  } catch (e) { ls = null; }
  var oa = () => typeof window.openai?.setWidgetState === 'function' && window.openai;
  var widget = () => ({ ...isObj(oa().widgetState) && oa().widgetState });
  var load = (id) => {
    var d = id in mem ? mem[id] : oa() ? widget()[KEY] : ls ? parse(ls[PREFIX + id]) : null;
    return fresh(d) && d.s === schemaHash && d.k === id ? d : null;
  };
  var keep = (id, d) => {
    mem[id] = d;
    try {
      if (oa()) { var w = widget(); if (d) w[KEY] = d; else delete w[KEY]; oa().setWidgetState(w); }
      else if (d) ls.setItem(PREFIX + id, toJson(d)); else ls.removeItem(PREFIX + id);
    } catch (e) { /* no storage, full or refused: memory keeps it */ }
  };

  // What the form holds, read without changing the messages the person sees.
  var quiet = () => {
    var el = form.el, v, inv = 'aria-invalid', sel = '[' + inv + ']', bad = all(el, sel);
    var marks = all(el, '.err').map((e) => [e, e.textContent, e.hidden]);
    try { v = form.read(errs = []); } catch (e) { /* undefined */ }
    marks.forEach(([e, t, hid]) => { e.textContent = t; e.hidden = hid; });
    all(el, sel).forEach((e) => e.removeAttribute(inv));
    bad.forEach((e) => e.setAttribute(inv, 'true'));
    return v;
  };
  // Never a field the form shows as a password, never a file's contents: left out by the schema.
  var hidden = (s, name) => G.form.secret?.(s, name) || s.contentEncoding === 'base64' || s.format === 'data-url';
  var norm = (s) => S.norm(s, root);
  var strip = (v, s0, depth) => {
    // (a branch that is no object has no properties)
    var s = norm(s0), alts = [s, s.oneOf, s.anyOf, s.then, s.else].flat(), out = {};
    if (depth > 24 || !isObj(v) && !isArr(v)) return v;
    if (isArr(v)) return v.map((x, i) => strip(x, s.prefixItems?.[i] || s.items, depth + 1));
    oKeys(v).forEach((k) => {
      var subs = alts.map((a) => norm(a).properties?.[k]).filter(isObj).concat(s.additionalProperties || []).map(norm);
      // (the name alone, then each schema the key may have)
      if (![{}, ...subs].some((x) => hidden(x, k))) out[k] = strip(v[k], subs[0], depth + 1);
    });
    return out;
  };
  // A value to write over what the form holds: keys it has and the target lacks become
  // undefined, which empties those fields.
  var over = (target, cur) => {
    if (!isObj(target) || !isObj(cur)) return target;
    var out = { ...target };
    for (var k in cur) out[k] = k in target ? over(target[k], cur[k]) : undefined;
    return out;
  };
  var unbar = () => bar?.remove();
  // Writes v over what the form holds.
  var put = (v) => form.write(over(v, quiet()));
  var note = (text, act) => {
    unbar();
    formEl.prepend(bar = h('div.draftbar', { role: 'status' }, h('span', text), act));
  };

  var drop = () => { keep(view, null); unbar(); };
  var save = () => {
    if (!streaming && view) {
      var v = strip(quiet(), root, 0);
      // What a Run would refuse is not in the value: a half-typed text is kept as typed, by its
      // field's id (the same form builds the same ids), never a password.
      var r = errs.map((e) => e.el).filter((c) => TYPED.test(c?.type) && c.value && c.value.length < 2000).map((c) => [c.id, c.value]);
      keep(view, (r.length || canon(v) !== canon(base)) && { k: view, s: schemaHash, t: now(), v, r });
    }
  };
  var restore = () => {
    var d = load(view);
    if (d) {
      put(d.v);
      (isArr(d.r) ? d.r : []).forEach(([id, t]) => {
        var c = G._byId(id);
        if (c && form.el.contains(c) && TYPED.test(c.type) && !c.value) { c.value = t; c.dispatchEvent(new Event('input', { bubbles: true })); }
      });
      note('Your unsent changes were restored.', h('button.btn.sm.ghost', { text: 'Discard changes', onclick: () => { put(given); drop(); } }));
    }
  };
  // The view of a tool-input (none: null): what the form holds with that input, before a draft.
  var start = (args) => {
    view = hash(canon([data?.server, tool.name, data?.widget, args]));
    base = strip(given = quiet(), root, 0);
    restore();
  };
  var lock = (on) => {
    formEl.inert = streaming = on;
    formEl.classList.toggle('filling', on);
    all(formEl, 'input,select,textarea,button').forEach((c) => {
      var d = c.dataset;
      if (on && !c.disabled) c.disabled = d.filling = 1;
      else if (!on && d.filling) { c.disabled = false; delete d.filling; }
    });
    if (on) note('Filling in as the model writes…');
  };

  G._on('form', (f, schema) => {
    if (form || !formEl || !tool.name) return;
    form = f;
    root = isObj(schema) ? schema : {};
    built = quiet();
    ['input', 'change'].forEach((t) => formEl.addEventListener(t, save));
    start(null);
  });
  // An event or call of the page's App, once the form is built.
  var ours = (app) => form && app === G.app;
  // Before the glue writes a tool-input (partial or final): the form as built, so that what the
  // input lacks is empty.
  G._on('event', (app, name, p) => {
    if (ours(app) && /^toolinput/.test(name) && isObj(p?.arguments)) {
      unbar();
      put(built);
    }
  });
  G._on('handled', (app, name, p) => {
    if (!ours(app)) return;
    var args = isObj(p?.arguments) && p.arguments;
    if (name === 'toolinputpartial' && args) lock(true);
    else if (name === 'toolinput' && args || /^tool(cancelled|result)$/.test(name)) {
      if (streaming) { lock(false); unbar(); }
      if (args) start(args);
    }
  });
  // Nothing is sent while the model writes; a call that goes out drops the draft.
  G._on('call', (app, p) => {
    if (ours(app) && p?.name === tool.name) {
      if (streaming) throw Error('The model is still writing the arguments: nothing was sent.');
      drop();
    }
    return p;
  });
})();
