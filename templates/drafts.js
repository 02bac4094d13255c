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
  var WEEK = 6048e5, PREFIX = 'mcp-gen-ui/draft/', WS = 'mcp-gen-ui/draft';
  var data = {};
  try { data = JSON.parse(G._byId('mcp-gen-ui-data').textContent) || {}; } catch (e) { /* app.js says so */ }
  var tool = data.tool || {}, formEl = G._byId('mcp-form');
  var form = null, root, built, base, given, view, bar = null, streaming = false, mem = {}, ls = null;
  // A clock a test may replace (McpGenUi.now).
  var now = () => (G.now || Date.now)();
  var canon = (v) => isArr(v) ? '[' + v.map(canon).join(',') + ']'
    : isObj(v) ? '{' + oKeys(v).sort().map((k) => toJson(k) + ':' + canon(v[k])).join(',') + '}' : toJson(v) ?? 'null';
  // Two 32-bit hashes of the text: a key, not a secret (book: what another page could read).
  var hash = (t) => {
    var a = 0x811c9dc5, b = 5381;
    for (var i = 0; i < t.length; i++) { var c = t.charCodeAt(i); a = Math.imul(a ^ c, 16777619); b = Math.imul(b, 33) ^ c; }
    return (a >>> 0).toString(36) + '.' + (b >>> 0).toString(36);
  };
  var schemaHash = hash(canon(tool.inputSchema));
  try { ls = window.localStorage; ls.setItem(PREFIX, '1'); ls.removeItem(PREFIX); } catch (e) { ls = null; }
  var oa = () => typeof window.openai?.setWidgetState === 'function' ? window.openai : null;
  var widget = () => { var w = oa()?.widgetState; return isObj(w) ? w : {}; };
  var fresh = (d) => isObj(d) && d.s === schemaHash && typeof d.t === 'number' && now() - d.t < WEEK && now() >= d.t - WEEK;
  var load = (id) => {
    var d = mem[id];
    if (d === undefined) {
      if (oa()) d = widget()[WS];
      else if (ls) try { d = JSON.parse(ls.getItem(PREFIX + id)); } catch (e) { d = null; }
    }
    return fresh(d) && d.k === id ? d : null;
  };
  var keep = (id, d) => {
    mem[id] = d;
    var o = oa();
    try {
      if (o) { var w = { ...widget() }; if (d) w[WS] = d; else delete w[WS]; o.setWidgetState(w); }
      else if (ls) { if (d) ls.setItem(PREFIX + id, toJson(d)); else ls.removeItem(PREFIX + id); }
    } catch (e) { /* full or refused: memory keeps it */ }
  };
  // Expired or unreadable drafts of any view leave page storage.
  if (ls) try {
    for (var i = ls.length - 1; i >= 0; i--) {
      var k = ls.key(i), d = null;
      if (!k || k.indexOf(PREFIX) !== 0) continue;
      try { d = JSON.parse(ls.getItem(k)); } catch (e) { /* dropped below */ }
      if (!isObj(d) || typeof d.t !== 'number' || now() - d.t >= WEEK) ls.removeItem(k);
    }
  } catch (e) { /* storage went away */ }

  // What the form holds, read without changing the messages the person sees.
  var quiet = () => {
    var el = form.el, v;
    var marks = [...el.querySelectorAll('.err')].map((e) => [e, e.textContent, e.hidden]);
    var bad = new Set(el.querySelectorAll('[aria-invalid]'));
    try { v = form.read([]); } catch (e) { v = undefined; }
    marks.forEach(([e, t, hid]) => { e.textContent = t; e.hidden = hid; });
    el.querySelectorAll('[aria-invalid]').forEach((e) => { if (!bad.has(e)) e.removeAttribute('aria-invalid'); });
    bad.forEach((e) => e.setAttribute('aria-invalid', 'true'));
    return v;
  };
  // Never a field the form shows as a password, never a file's contents: left out by the schema.
  var hidden = (s, name) => G.form.secret?.(s, name) || s.contentEncoding === 'base64' || s.format === 'data-url';
  var strip = (v, s0, depth) => {
    var s = S.norm(s0, root);
    if (depth > 24) return v;
    if (isArr(v)) return v.map((x, i) => strip(x, isArr(s.prefixItems) && i < s.prefixItems.length ? s.prefixItems[i] : s.items, depth + 1));
    if (!isObj(v)) return v;
    var alts = [s].concat(s.oneOf || [], s.anyOf || [], s.then || [], s.else || []).map((a) => S.norm(a, root));
    var out = {};
    oKeys(v).forEach((k) => {
      var subs = alts.map((a) => isObj(a.properties) && a.properties[k]).filter(Boolean).map((x) => S.norm(x, root));
      if (!subs.length && isObj(s.additionalProperties)) subs = [S.norm(s.additionalProperties, root)];
      if (hidden({}, k) || subs.some((x) => hidden(x, k))) return;
      out[k] = strip(v[k], subs[0], depth + 1);
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
  var note = (text, act) => {
    bar?.remove();
    bar = h('div.draftbar', { role: 'status' }, h('span', text), act);
    formEl.prepend(bar);
  };
  var unnote = () => { bar?.remove(); bar = null; };

  var save = () => {
    if (!form || streaming || !view) return;
    var v = strip(quiet(), root, 0);
    keep(view, canon(v) === canon(base) ? null : { k: view, s: schemaHash, t: now(), v });
  };
  var restore = () => {
    var d = load(view);
    if (!d) return;
    form.write(over(d.v, quiet()));
    note('Your unsent changes were restored.', h('button.btn.sm.ghost', { text: 'Discard changes', onclick: discard }));
  };
  var discard = () => {
    form.write(over(given, quiet()));
    keep(view, null);
    unnote();
  };
  // The view of a tool-input (none: null) starts from the form as built, then that input.
  var start = (args) => {
    view = hash(canon([data.server || '', tool.name || '', data.widget || '', args ?? null]));
    given = quiet();
    base = strip(given, root, 0);
  };
  var lock = (on) => {
    streaming = on;
    formEl.inert = on;
    formEl.classList.toggle('filling', on);
    formEl.setAttribute('aria-busy', String(on));
    formEl.querySelectorAll('input,select,textarea,button').forEach((c) => {
      if (on && !c.disabled) { c.disabled = true; c.setAttribute('data-filling', ''); }
      if (!on && c.hasAttribute('data-filling')) { c.disabled = false; c.removeAttribute('data-filling'); }
    });
    if (on && !bar?.classList.contains('streaming')) { note('Filling in as the model writes…'); bar.classList.add('streaming'); }
    if (!on && bar?.classList.contains('streaming')) unnote();
  };

  G._on('form', (f, schema) => {
    if (form || !formEl || !tool.name) return;
    form = f;
    root = isObj(schema) ? schema : {};
    built = quiet();
    start(null);
    ['input', 'change'].forEach((t) => formEl.addEventListener(t, save));
    restore();
  });
  // Before the glue writes a tool-input (partial or final): the form as built, so that what the
  // input lacks is empty.
  G._on('event', (app, name, p) => {
    if (!form || app !== G.app || !/^toolinput/.test(name) || !isObj(p?.arguments)) return;
    unnote();
    form.write(over(built, quiet()));
  });
  G._on('handled', (app, name, p) => {
    if (!form || app !== G.app) return;
    if (name === 'toolinputpartial' && isObj(p?.arguments)) lock(true);
    else if (name === 'toolinput' && isObj(p?.arguments)) { lock(false); start(p.arguments); restore(); }
    else if (name === 'toolcancelled' || name === 'toolresult') lock(false);
  });
  // Nothing is sent while the model writes; a call that goes out drops the draft.
  G._on('call', (app, p) => {
    if (form && app === G.app && p?.name === tool.name) {
      if (streaming) throw new Error('The model is still writing the arguments: nothing was sent.');
      if (view) keep(view, null);
      unnote();
    }
    return p;
  });
})();
