// oneOf/anyOf variants and fields of several types in the form: a selector of the kind, each with
// a distinct name, and the chosen variant's fields (the 'variants' control). Embedded for input
// schemas with real variants (more than "T or null") or several types.
(function () {
  'use strict';
  var G = window.McpGenUi, h = G.h, S = G.schema, isObj = S.isObj, F = G.form;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var Str = String, isArr = Array.isArray, toJson = JSON.stringify;
  var field = F.field, group = F.group, setErr = F.setErr, nid = F.nid;
  // A distinct name for each variant (book: reference/pages.md, "The form renders what the schema says"): its title; else its
  // const, or the const of a property (a discriminator); else the required properties only it
  // has; else its type when no other variant has it; else "Option N". Names still equal get
  // their number.
  var altNames = (alts, root) => {
    var show = (v) => typeof v === 'string' ? v : toJson(v);
    var req = alts.map(function (a) { return isArr(a.required) ? a.required : []; });
    var names = alts.map(function (a, i) {
      if (a.title) return Str(a.title);
      if (F.one(a)) return show(F.one(a)[0]);
      var p = isObj(a.properties) ? a.properties : {};
      for (var k in p) { var one = isObj(p[k]) && F.one(S.norm(p[k], root)); if (one) return show(one[0]); }
      var mine = req[i].filter(function (k) { return !req.some(function (r, j) { return j !== i && r.indexOf(k) >= 0; }); });
      if (mine.length) return 'With ' + mine.slice(0, 3).map(S.words).join(', ');
      if (typeof a.type === 'string' && alts.filter(function (b) { return b.type === a.type; }).length === 1) return a.type;
      return 'Option ' + (i + 1);
    });
    return names.map(function (n, i) { return names.indexOf(n) !== i || names.lastIndexOf(n) !== i ? n + ' (' + (i + 1) + ')' : n; });
  };

  var variants = (s, alts, c, o) => {
    var base = Object.assign({}, s);
    ['oneOf', 'anyOf', 'title', 'description', 'default'].forEach(function (k) { delete base[k]; });
    delete base.__refs;
    var merged = alts.map(function (a) {
      var m = Object.assign({}, a);
      if (base.properties || base.required) {
        m.properties = Object.assign({}, base.properties, a.properties);
        m.required = (base.required || []).concat(a.required || []);
      }
      for (var k in base) if (!(k in m)) m[k] = base[k];
      // The conditionals of both (form-cond.js shows the fields of each active one).
      if (base.__ifs && a.__ifs) m.__ifs = base.__ifs.concat(a.__ifs);
      ['dependentSchemas', 'dependentRequired', 'dependencies'].forEach(function (k) { if (isObj(base[k]) && isObj(a[k])) m[k] = Object.assign({}, base[k], a[k]); });
      return m;
    });
    var fs = group(o, s, 'var');
    var sid = nid();
    var sel = h('select', { id: sid });
    var names = altNames(merged, c.root);
    merged.forEach(function (a, i) { sel.append(h('option', { value: Str(i), text: names[i] })); });
    if (!o.required) { sel.insertBefore(h('option', { value: '', text: '(not set)' }), sel.firstChild); sel.value = ''; }
    // Nullable: a null choice (a required one starts there: it is what it would send).
    if (s.__null) { sel.append(h('option', { value: 'null', text: 'null' })); if (o.required) sel.value = 'null'; }
    var holder = h('div.alt');
    fs.append(h('div.fld', h('label', { for: sid, text: (o.label || 'Value') + ' — kind' }), sel), holder, fs.__tail);
    // What each variant last held: switching back restores it, and switching to another variant
    // carries over the fields the two share.
    var cur = null, at = null, kept = {};
    var carry = (j) => {
      if (kept[j] !== undefined) return kept[j];
      var prev = at == null ? undefined : kept[at], t = merged[j];
      if (!isObj(prev) || !isObj(t.properties)) return S.typeOf && prev !== undefined && !isObj(prev) && (!t.type || t.type === S.typeOf(prev)) ? prev : undefined;
      var out = {}, any = false;
      for (var k in prev) if (S.own(t.properties, k) && !(isObj(t.properties[k]) && 'const' in t.properties[k])) { out[k] = prev[k]; any = true; }
      return any ? out : undefined;
    };
    var save = () => { if (cur && at != null) { var was = cur.read([]); if (was !== undefined) kept[at] = was; } };
    var choose = (i, v) => {
      holder.textContent = '';
      cur = null;
      at = i === '' || i === 'null' || i == null ? null : Number(i);
      if (at == null) return;
      // An object variant's fields sit right under the selector, without a second heading.
      var alt = merged[at], isObject = alt.type === 'object' || (!alt.type && isObj(alt.properties));
      cur = field(alt, c, { label: isObject ? '' : o.label || 'Value', name: o.name, required: true, noDefault: v !== undefined, eager: true });
      if (v !== undefined) cur.write(v);
      holder.append(cur.el);
    };
    sel.addEventListener('change', function () { save(); choose(sel.value, sel.value === '' || sel.value === 'null' ? undefined : carry(Number(sel.value))); });
    choose(sel.value);
    return {
      el: fs,
      read: function (errs) {
        setErr(fs, []);
        if (sel.value === 'null') return null;
        if (!cur) return o.required ? F.need(fs, errs, 'Choose a kind.') : undefined;
        return cur.read(errs);
      },
      write: function (v) {
        if (v === undefined) return;
        if (v === null && s.__null) { save(); sel.value = 'null'; choose('null'); return; }
        var i = merged.findIndex(function (a) { return !S.validate(a, v, c.root).length; });
        if (i < 0) i = merged.findIndex(function (a) { return !a.type || S.typeOf(v) === a.type || (a.type === 'number' && typeof v === 'number'); });
        // A value no variant takes stays in the first one that has its type, else the first one,
        // whose own checks then show what is wrong.
        if (i < 0) i = 0;
        sel.value = Str(i);
        choose(Str(i), v);
      }
    };
  };

  G._on('controls', () => ({ variants }));
})();
