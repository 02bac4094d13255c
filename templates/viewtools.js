// mcp-gen-ui runtime: view tools, the tools a page offers the model through the host (MCP Apps
// app-provided tools: host -> page tools/list and tools/call, newer names ui/list-view-tools and
// ui/call-view-tool). The names are pinned in the book (hosts.md, "View tools"):
//   read_form   {}                      the form's current values and the messages it shows
//   fill_form   {values}                sets some fields, all or none: the merged values are checked
//                                        the way the form checks typing (required fields aside)
//                                        before anything changes
//   run_tool    {arguments?}            runs the page's tool as its Run button does; asks the person
//                                        first unless the tool is readOnlyHint or explicitly not
//                                        destructiveHint (McpGenUi.asksFirst(annotations, true))
//   read_result {}                      the result the page shows, and its visible text
// McpGenUi.viewTools: add(def, fn), list(), handle(method, params), shown(result); a page may set
// runner(args) -> Promise<CallToolResult> (the builtin page does) and resultEl. Pages without a
// runner of their own (llm pages) get runner.js, which asks the person before it runs the tool.
(function () {
  'use strict';
  var G = window.McpGenUi, isObj = G.schema.isObj;
  // Short local names for the globals this file calls most (the minifier keeps member names).
  var isArr = Array.isArray, oKeys = Object.keys, Prom = Promise;
  var tools = [], fns = {}, form = null, schema = null, last = null;
  var objSchema = (properties) => ({ type: 'object', properties });
  var noInput = objSchema({}), readOnly = { readOnlyHint: true };
  var V = G.viewTools = {
    add(def, fn) { if (!fns[def.name]) tools.push(def); fns[def.name] = fn; },
    list: () => tools.filter((t) => !t._needsForm || form).map(({ _needsForm, ...t }) => t),
    shown(r) { last = r; },
    handle(method, p) {
      if (method === 'tools/list' || method === 'ui/list-view-tools') return Prom.resolve({ tools: V.list() });
      if (method !== 'tools/call' && method !== 'ui/call-view-tool') return null;
      var fn = fns[p.name];
      if (!fn || !V.list().some((t) => t.name === p.name)) return Prom.reject(new Error('Unknown view tool: ' + p.name));
      return Prom.resolve().then(() => fn(isObj(p.arguments) ? p.arguments : {}));
    }
  };

  var says = (text) => [{ type: 'text', text }];
  var result = (data, text) => ({ content: says(text + '\n' + JSON.stringify(data).slice(0, 20000)), structuredContent: data });
  var failure = (text) => ({ isError: true, content: says(text) });
  var label = (e) => {
    var l = (e.box || e.el)?.querySelector?.(':scope > label, :scope > legend');
    return (l ? l.textContent.replace(/\s*\*$/, '').trim() + ': ' : '') + e.message;
  };
  // The form's values and messages; with partial, required fields still empty are listed under
  // "missing" and their messages are not shown (a partial fill is normal).
  var readForm = (partial) => {
    var errs = [], values = form.read(errs), out = { values: isObj(values) ? values : {} };
    var req = errs.filter((e) => e.req);
    out.errors = errs.filter((e) => !partial || !e.req).map(label);
    if (partial) {
      req.forEach((e) => { if (e.box) G.form.setErr(e.box); });
      out.missing = req.map((e) => label(e).replace(/: .*$/, ''));
    }
    return out;
  };
  // Objects merged key by key (what form.write does to the fields); anything else replaced.
  var deep = (a, b) => {
    if (!isObj(a) || !isObj(b)) return b;
    var o = { ...a };
    for (var k in b) if (k !== '__proto__') o[k] = deep(a[k], b[k]);
    return o;
  };
  // Whether the form took a value: equal, where objects may hold more (defaults the form shows).
  var taken = (v, now) => {
    if (isObj(v)) return isObj(now) && oKeys(v).every((k) => taken(v[k], now[k]));
    if (isArr(v)) return isArr(now) && v.length === now.length && v.every((x, i) => taken(x, now[i]));
    return G.schema.same(v, now);
  };
  // fill_form, all or none: the values merged into the form's are first written into a scratch
  // form built from the same schema; only when it takes them all, with no message but "required",
  // are they written into the page's form.
  var fill = (values) => {
    var probe = G.form._build(schema), errs = [];
    probe.write(deep(readForm(true).values, values));
    var now = probe.read(errs);
    errs = errs.filter((e) => !e.req).map(label);
    var refused = oKeys(values).filter((k) => !taken(values[k], isObj(now) ? now[k] : undefined));
    if (errs.length || refused.length) {
      return { ...result({ values: readForm(true).values, refused, errors: errs }, 'Nothing was changed: the form does not take ' + (refused.length ? refused.join(', ') : 'these values') + (errs.length ? ' (' + errs.join('; ') + ')' : '') + '. It still holds:'), isError: true };
    }
    form.write(values);
    var done = readForm(true);
    done.refused = [];
    return result(done, 'The form now holds:');
  };

  // The page's form, whoever built it (the builtin page, or an llm page using the runtime's form),
  // and the result it shows: through the runtime's extension points.
  G._on('form', (f, s) => { form = f; schema = isObj(s) ? s : null; });
  G._on('event', (app, name, params) => { if (name === 'toolresult') last = params; });

  var valuesSchema = (description) => {
    var { required, $schema, ...s } = { type: 'object', ...schema, description };
    return s;
  };

  // A view tool, with its definition's keys in the order tools/list sends them; input() gives its
  // inputSchema each time the list is asked for (the form's schema is known by then).
  var tool = (name, needsForm, title, description, input, fn, more) =>
    V.add({ name, _needsForm: needsForm, title, description, get inputSchema() { return input(); }, ...more }, fn);
  var reads = { annotations: readOnly };

  tool('read_form', true, 'Read the form',
    'The form\'s current values and its messages for invalid fields.',
    () => noInput, () => result(readForm(), 'The form holds:'), reads);
  tool('fill_form', true, 'Fill in the form',
    'Sets some form fields for the person to review (others keep their values); runs nothing; all or none. Returns the form\'s values, refused fields and missing required fields.',
    () => ({ ...objSchema({ values: valuesSchema('Field values, as the tool takes them') }), required: ['values'] }),
    (a) => {
      if (!isObj(a.values)) return failure('fill_form needs {"values": {…}}, an object of field values.');
      return fill(a.values);
    });
  tool('run_tool', false, 'Run the tool',
    'Runs the tool as the Run button does (with arguments: filled in first; without: the form\'s values) and returns the result shown. Tools that may change data ask the person first.',
    () => objSchema({ arguments: valuesSchema('Arguments of the tool (optional: the form\'s values are used when absent)') }),
    (a) => {
      var run = V.runner || V._runner;
      return run ? run(isObj(a.arguments) ? a.arguments : undefined) : failure('This page cannot run its tool.');
    });
  tool('read_result', false, 'Read the result',
    'The result the page shows and its visible text.',
    () => noInput, () => {
      var el = V.resultEl || document.body;
      var text = (el.innerText || el.textContent || '').trim().slice(0, 8000);
      return result({ shown: last != null, result: last, text }, last == null ? 'The page shows no result yet.' : 'The page shows:');
    }, reads);

  // For runner.js: the form's values and messages, or null when the page has no form. For app.js's
  // run_tool: fill_form's all-or-none fill, or null without a form.
  V._readForm = () => form ? readForm() : null;
  V.fillAll = (values) => form ? fill(values) : null;
  // For app.js's run_tool answers: the same shape of refusal.
  V._failure = failure;
})();
