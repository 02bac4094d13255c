// Conditional fields of an object (book: reference/pages.md, "The form renders what the schema says"): the fields of
// each active if/then/else branch, of dependentSchemas and of draft-07 dependencies appear as the
// values they depend on change; dependentRequired (and dependencies' lists) mark fields required
// while their trigger is set. What was typed in a branch that became inactive is not sent.
// Embedded only for input schemas with those keywords; it gives form.js the 'cond' control.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, F = G.form, isObj = S.isObj, own = S.own, norm = S.norm;
  var isArr = Array.isArray, toJson = JSON.stringify;

  // Whether a value passes an "if" schema (the validator's verdict; false schemas never pass).
  var passes = (s, v, root) => s !== false && (s === true || !S.validate || !S.validate(s, v, root).length);

  // The branches active for the object's current value: their fields (key -> schema, in order) and
  // the keys they require.
  var active = (s, cur, root) => {
    var props = {}, req = {}, seen = 0;
    var take = (b0, depth) => {
      if (depth > 8 || ++seen > 64 || b0 == null) return;
      var b = norm(b0, root);
      if (isObj(b.properties)) for (var k in b.properties) if (!own(props, k)) props[k] = b.properties[k];
      (isArr(b.required) ? b.required : []).forEach((k) => { req[k] = 1; });
      walk(b, depth + 1);
    };
    var walk = (b, depth) => {
      (b.__ifs || []).forEach((c) => take(passes(c.if, cur, root) ? c.then : c.else, depth));
      var ds = isObj(b.dependentSchemas) ? b.dependentSchemas : {}, dr = isObj(b.dependentRequired) ? b.dependentRequired : {};
      var dd = isObj(b.dependencies) ? b.dependencies : {};
      for (var k in ds) if (own(cur, k)) take(ds[k], depth);
      for (k in dd) if (own(cur, k)) { if (isArr(dd[k])) dd[k].forEach((x) => { req[x] = 1; }); else take(dd[k], depth); }
      for (k in dr) if (own(cur, k) && isArr(dr[k])) dr[k].forEach((x) => { req[x] = 1; });
    };
    walk(s, 0);
    return { props, req };
  };

  // A star after a field's own label while a dependency requires it.
  var mark = (el, on) => {
    var lab = el.querySelector('label,legend'), st = el.__dreq;
    if (on && !st && lab) st = el.__dreq = lab.appendChild(h('span.req', { 'aria-hidden': 'true', text: ' *' }));
    if (st) st.hidden = !on;
    var c = el.__ctl;
    if (c) { if (on) c.setAttribute('aria-required', 'true'); else c.removeAttribute('aria-required'); }
  };

  // s: the object's schema; body: where its fields are; kids: [key, field] of its declared
  // fields; fs: where a message about a key with no field goes; peek(): the object's value now,
  // without messages.
  var cond = (s, c, body, kids, fs, peek) => {
    var base = {}, holder = h('div.cond'), cache = {}, shown = [], req = {}, sig = '';
    kids.forEach(([k, f]) => { base[k] = f; });
    var statik = isArr(s.required) ? s.required : [];
    body.append(holder);
    // Shows the fields of the branches active for cur (a written value: only its own branches;
    // else again with what the new fields hold, for branches inside branches).
    var sync = (cur, written) => {
      for (var i = 0; i < (written ? 1 : 4); i++) {
        var a = active(s, isObj(cur) ? cur : {}, c.root), next = toJson([a.props, a.req]);
        if (next === sig) break;
        sig = next;
        req = a.req;
        shown = [];
        holder.textContent = '';
        for (var k in a.props) {
          if (own(base, k)) continue;
          var need = !!req[k], id = k + '\u0000' + need + toJson(a.props[k]);
          var f = cache[id] || (cache[id] = F.field(a.props[k], c, { label: norm(a.props[k], c.root).title || S.words(k), name: k, required: need }));
          shown.push([k, f]);
          holder.append(f.el);
        }
        for (k in base) mark(base[k].el, !!req[k] && !statik.includes(k));
        cur = peek();
      }
    };
    var update = () => sync(peek());
    body.addEventListener('change', update);
    body.addEventListener('input', update);
    update();
    return {
      read(out, errs, quiet) {
        shown.forEach(([k, f]) => { var v = f.read(errs); if (v !== undefined) out[k] = v; });
        if (quiet) return;
        var miss = [];
        for (var k in req) {
          if (own(out, k)) continue;
          var f = base[k] || (shown.find((x) => x[0] === k) || [])[1];
          if (f) F.need(f.el, errs);
          else miss.push(k);
        }
        if (miss.length) F.fail(fs, errs, ['Missing required field ' + miss.join(', ') + '.']);
      },
      // Writes a value: the branches it activates, then their fields. Returns the keys written.
      write(v) {
        sync(v, true);
        var done = {};
        shown.forEach(([k, f]) => { if (own(v, k)) { f.write(v[k]); done[k] = 1; } });
        return done;
      }
    };
  };
  G._on('controls', () => ({ cond }));
})();
