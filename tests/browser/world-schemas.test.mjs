// Schemas written by others, in the real host (book: testing.md, "Schemas written by others"):
// a form library's own example schemas (@jsonforms/examples), schemas Pydantic and Zod generate
// (tests/world/pydantic_models.py, tests/world/zod_schemas.mjs), and the tools of the registry
// suite's popular servers (tests/fixtures/registry-servers.json), all at pinned versions installed
// by tests/registry/install.sh and tests/world/install.sh (never copied into the repository).
// For each schema: the page loads without a console error; every top-level property has a visible
// control with its label; a Run with every property filled (the library's own data, else the
// schema's defaults, examples or synthetic values, each checked by Ajv first) sends arguments
// that Ajv accepts against the tool's schema (2020-12, or draft-07 when `$schema` says so), that
// are the values given (plus the defaults the form shows), and that the form shows. A source that
// is not installed is SKIPPED by name; a schema that waits on a form feature being built is in
// WAITING below (it runs, and its failure is reported as a TODO, not hidden).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { launch, buildRust, sample, EXAMPLES, REPO } from './lib.mjs';
import { registryServers, generateFor, requiredSample } from './registry.mjs';
import { validatorFor, hostPool, runOnce } from './host-pool.mjs';
import { tempDir } from './tmp.mjs';

buildRust();
const WORLD = path.join(REPO, 'tests', 'world');
const ONLY = process.env.MCP_GEN_UI_WORLD ? new RegExp(process.env.MCP_GEN_UI_WORLD) : null;

// Schemas whose failure waits on a form feature not built yet, by case name, with the feature it
// waits on. The case still runs: a failure is a TODO, and a case here that passes says so (then
// remove it from this list).
const WAITING = {};

// Schemas past the form's field budget (600 fields once expanded, book: builtin.md): the whole
// input is one JSON editor by design, so no property has a control of its own. For these the
// check is that editor: visible, labelled, showing what a Run sends.
const ONE_JSON_EDITOR = new Set([
  'jsonforms_huge', // the GEDCOM X schema: 12 properties, thousands of fields through its $refs
  'jsonforms_jsonschema', // the draft-07 meta-schema: recursive, 46 properties
]);

// --- The corpus --------------------------------------------------------------------------------

function worldStatus() {
  const f = path.join(WORLD, '.status');
  if (!fs.existsSync(f)) return 'not installed here: run `bash tests/registry/install.sh` (tests/run-all.sh does)';
  const line = fs.readFileSync(f, 'utf8').trim();
  return line === 'npm=ok' ? null : line.replace(/^npm=skip:\s*/, '');
}

const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 36);

// JSON Forms' examples whose schema is a tool input (an object), once per distinct schema, with
// the example's own data as the first values to try.
function jsonForms() {
  const req = createRequire(path.join(WORLD, 'package.json'));
  const pkg = req('@jsonforms/examples/package.json');
  const seen = new Set();
  const out = [];
  for (const e of req('@jsonforms/examples').getExamples()) {
    const s = e.schema;
    if (!s || typeof s !== 'object' || (s.type !== 'object' && !s.properties)) continue;
    const key = JSON.stringify(s);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ name: 'jsonforms_' + slug(e.name), source: `@jsonforms/examples@${pkg.version}: ${e.label}`, schema: s, data: e.data });
  }
  return out;
}

async function zodCorpus() {
  const req = createRequire(path.join(WORLD, 'package.json'));
  const version = req('zod/package.json').version;
  const { z } = await import(pathToFileURL(req.resolve('zod')).href);
  const { zodSchemas } = await import(pathToFileURL(path.join(WORLD, 'zod_schemas.mjs')).href);
  return zodSchemas(z).map((t) => ({ ...t, source: `zod@${version} z.toJSONSchema` }));
}

function pydanticCorpus() {
  const py = path.join(REPO, 'tests', 'registry', '.venv', 'bin', 'python');
  if (!fs.existsSync(py)) return { skip: 'the registry venv (tests/registry/.venv, with the pinned Pydantic) is not installed here: run `bash tests/registry/install.sh`' };
  const r = spawnSync(py, [path.join(WORLD, 'pydantic_models.py')], { encoding: 'utf8', timeout: 120000 });
  if (r.status !== 0) throw new Error('tests/world/pydantic_models.py failed: ' + r.stderr);
  const version = spawnSync(py, ['-c', 'import pydantic; print(pydantic.VERSION)'], { encoding: 'utf8' }).stdout.trim();
  return { cases: JSON.parse(r.stdout).map((t) => ({ ...t, source: `pydantic==${version} model_json_schema` })) };
}

// Renders each case's page with the builtin generator (the render-tool dev aid): {dir, cases}.
function render(cases, label) {
  const dir = tempDir(`mcp-gen-ui-world-${label}-`);
  const tools = cases.map((c) => ({ name: c.name, description: c.source, inputSchema: c.schema }));
  const f = path.join(dir, 'tools.input.json');
  fs.writeFileSync(f, JSON.stringify(tools));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [f, dir]);
  return { dir, cases: cases.map((c, i) => ({ ...c, tool: tools[i], file: c.name + '.html' })) };
}

// --- Values ------------------------------------------------------------------------------------

const isObj = (v) => v && typeof v === 'object' && !Array.isArray(v);

// Strings for a `pattern` that lib.mjs's sample does not try: the first that the whole string
// schema accepts (Ajv), else the sample.
const PATTERNED = ['ABC', 'abc', 'abc-123', '12345', 'A1', 'a', '1', 'sample'];
function scalar(s, root, v) {
  if (isObj(s) && typeof s.pattern === 'string' && !s.format) {
    const only = { type: 'string', pattern: s.pattern, minLength: s.minLength, maxLength: s.maxLength };
    const hit = PATTERNED.find((x) => { try { return v.validate(only, x); } catch { return false; } });
    if (hit !== undefined) return hit;
  }
  return sample(s, root);
}

// Every top-level property, with the schema's own values: the required ones first (registry.mjs's
// requiredSample, checked by Ajv at every choice), then each optional property whose value keeps
// the whole valid. `first` (a library's own data) wins when Ajv accepts it.
function fullValue(schema, v, validate, first) {
  if (isObj(first) && validate(first)) return first;
  const root = schema;
  const base = requiredSample(root, v, (s, r) => scalar(s, r, v));
  if (!isObj(base)) return base;
  const out = { ...base };
  const props = { ...root.properties };
  for (const part of root.allOf || []) Object.assign(props, part.properties);
  for (const [k, s] of Object.entries(props)) {
    if (k in out || !s || typeof s !== 'object') continue;
    const one = requiredSample({ ...s, $defs: root.$defs, definitions: root.definitions }, v, (x, r) => scalar(x, r, v));
    const next = { ...out, [k]: one };
    if (one !== undefined && validate(next)) out[k] = one;
  }
  return out;
}

// The value with what the form shows as set added at every level (book: reference/pages.md, "What
// a Run sends"): a missing property's `const`, or its default when not null. A branch of
// oneOf/anyOf is the first that accepts the value; `$ref`s and `allOf` are followed.
function withShown(s, value, root, v, depth = 0) {
  if (depth > 12 || !isObj(s)) return value;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
    const { $ref, ...rest } = s;
    return withShown({ ...resolveTop(root, { $ref }), ...rest, $ref: undefined }, value, root, v, depth + 1);
  }
  let out = value;
  for (const part of s.allOf || []) out = withShown(part, out, root, v, depth + 1);
  const alts = s.oneOf || s.anyOf;
  if (Array.isArray(alts)) {
    const withDefs = (x) => (isObj(x) ? { ...x, $defs: root.$defs, definitions: root.definitions } : x);
    const alt = alts.find((a) => { try { return v.validate(withDefs(a), out); } catch { return false; } });
    if (alt) out = withShown(alt, out, root, v, depth + 1);
  }
  if (isObj(out) && isObj(s.properties)) {
    out = { ...out };
    for (const [k, p0] of Object.entries(s.properties)) {
      const p = resolveTop(root, p0);
      if (!(k in out) && isObj(p)) {
        if ('const' in p) out[k] = p.const;
        else if (p.default != null) out[k] = p.default;
      }
      if (k in out) out[k] = withShown(p0, out[k], root, v, depth + 1);
    }
  }
  if (Array.isArray(out) && isObj(s.items)) out = out.map((x) => withShown(s.items, x, root, v, depth + 1));
  return out;
}

// The titles a property's choices show for their values (oneOf/anyOf consts with a title,
// enumNames): value → title.
function titles(s, root, out = new Map(), depth = 0) {
  if (depth > 8 || !isObj(s)) return out;
  const r = resolveTop(root, s);
  for (const a of [...(r.oneOf || []), ...(r.anyOf || [])]) {
    if (isObj(a) && 'const' in a && typeof a.title === 'string') out.set(JSON.stringify(a.const), a.title);
    titles(a, root, out, depth + 1);
  }
  const names = r.enumNames || r['x-enumNames'];
  if (Array.isArray(r.enum) && Array.isArray(names)) r.enum.forEach((x, i) => names[i] != null && out.set(JSON.stringify(x), String(names[i])));
  for (const x of [r.items, ...Object.values(r.properties || {})]) titles(x, root, out, depth + 1);
  return out;
}

// --- What the person sees ----------------------------------------------------------------------

const loose = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '');

// The page's label for a top-level property: its box (a .fld or fieldset) and the control in it.
// What we expect: the property's title, else its name (the page puts names in words; compared
// without case, spaces and punctuation).
async function controlsOf(frame, names) {
  return frame.evaluate((list) => {
    const loose = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '');
    const visible = (el) => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const form = document.getElementById('mcp-form');
    const labels = [...form.querySelectorAll('label, legend, .lab')].filter(visible);
    return list.map(([key, want]) => {
      const lab = labels.find((l) => want.some((w) => loose([...l.childNodes].filter((n) => !(n.classList && n.classList.contains('req'))).map((n) => n.textContent).join('')) === w));
      if (!lab) return { key, found: false };
      const box = lab.tagName === 'LEGEND' ? lab.closest('fieldset') : lab.closest('.fld') || lab.parentElement;
      const ctl = lab.htmlFor ? document.getElementById(lab.htmlFor) : box.querySelector('input, select, textarea, button, output');
      return { key, found: true, control: visible(ctl) };
    });
  }, names);
}

// What a property's box shows: input and textarea values, the selected options, checkbox states
// and the box's text (constants).
async function shownIn(frame, want) {
  return frame.evaluate((w) => {
    const loose = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '');
    const form = document.getElementById('mcp-form');
    const lab = [...form.querySelectorAll('label, legend, .lab')].find((l) => w.some((x) => loose([...l.childNodes].filter((n) => !(n.classList && n.classList.contains('req'))).map((n) => n.textContent).join('')) === x));
    if (!lab) return null;
    const box = lab.tagName === 'LEGEND' ? lab.closest('fieldset') : lab.closest('.fld') || lab.parentElement;
    const texts = [], checks = [];
    for (const el of box.querySelectorAll('input, textarea, select')) {
      if (el.type === 'checkbox' || el.type === 'radio') checks.push(el.checked);
      else if (el.tagName === 'SELECT') { const o = el.selectedOptions[0]; if (o) texts.push(o.textContent, o.value); }
      else texts.push(el.value);
    }
    texts.push(box.textContent);
    return { texts, checks };
  }, want);
}

// The scalar leaves of a value a person would read back (date-times and times are shown in the
// host's zone, not as sent: left out), at most 12.
function scalars(v, out = []) {
  if (out.length >= 12) return out;
  if (typeof v === 'string') { if (v.trim() && !/^\d{4}-\d\d-\d\dT|^\d\d:\d\d(:\d\d)?/.test(v)) out.push(v); }
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => scalars(x, out));
  else if (isObj(v)) Object.entries(v).forEach(([, x]) => scalars(x, out));
  return out;
}

function shows({ texts, checks }, leaf, named) {
  const title = named.get(JSON.stringify(leaf));
  if (title !== undefined && texts.some((t) => String(t).includes(title))) return true;
  if (typeof leaf === 'boolean') {
    return checks.includes(leaf) || texts.some((t) => (leaf ? /^(yes|true)$/i : /^(no|false)$/i).test(String(t).trim()) || String(t).includes(String(leaf)));
  }
  if (typeof leaf === 'number') {
    return texts.some((t) => { const s = String(t).replace(/[\s,\u00a0\u202f]/g, ''); return Number(s) === leaf || s.includes(String(leaf)); });
  }
  return texts.some((t) => String(t).includes(leaf) || String(t).includes(JSON.stringify(leaf).slice(1, -1)));
}

// --- The check ---------------------------------------------------------------------------------

let env, host;
const report = { pass: [], waiting: [], fail: [], skipped: [], nowPasses: [], budget: [] };

function topProps(schema) {
  const props = { ...(schema && schema.properties) };
  for (const part of (schema && schema.allOf) || []) if (isObj(part)) Object.assign(props, part.properties);
  return Object.entries(props).filter(([, s]) => s !== false);
}
function resolveTop(schema, s) {
  if (!isObj(s) || typeof s.$ref !== 'string' || !s.$ref.startsWith('#/')) return s;
  const t = s.$ref.slice(2).split('/').reduce((o, p) => o && o[decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~')], schema);
  return isObj(t) ? { ...t, ...s } : s;
}

async function checkSchema(dir, file, tool, first) {
  const schema = tool.inputSchema || { type: 'object' };
  env.guestDir.current = dir;
  const { v, validate } = validatorFor(schema);
  const value = fullValue(schema, v, validate, first);
  assert.ok(validate(value), `no value the schema accepts could be made (${JSON.stringify(value)}): ${v.errorsText(validate.errors)}`);
  const { page, frame, errors } = await host.open(file, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  let clean = false;
  try {
    await page.waitForFunction(() => window.__sizes.length > 0, null, { timeout: 10000 });
    const whole = await frame.evaluate(() => {
      const l = [...document.querySelectorAll('#mcp-form label')].find((x) => x.firstChild?.textContent === 'Input (JSON)');
      const ta = l && document.getElementById(l.htmlFor);
      return l ? { visible: !!ta && ta.getClientRects().length > 0 } : null;
    });
    if (whole) {
      assert.ok(ONE_JSON_EDITOR.has(tool.name), 'the whole input is one JSON editor (past the field budget): list it in ONE_JSON_EDITOR if that is right');
      assert.ok(whole.visible, 'the JSON editor is visible');
    }
    // Every top-level property: a visible label and control.
    const props = whole ? [] : topProps(schema);
    const want = Object.fromEntries(props.map(([k, s]) => {
      const r = resolveTop(schema, s);
      return [k, [...new Set([isObj(r) && typeof r.title === 'string' ? loose(r.title) : null, loose(k)].filter(Boolean))]];
    }));
    const seen = await controlsOf(frame, Object.entries(want));
    const missing = seen.filter((x) => !x.found).map((x) => x.key), blind = seen.filter((x) => x.found && !x.control).map((x) => x.key);
    assert.deepEqual(missing, [], 'properties without a visible label');
    assert.deepEqual(blind, [], 'properties whose label has no visible control');

    // Every property filled, as a host's tool-input; then Run.
    await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), value);
    const call = await runOnce(page, frame, value);
    assert.equal(call.name, tool.name);
    const sent = call.arguments ?? {};
    assert.ok(validate(sent), `the schema rejects the arguments sent ${JSON.stringify(sent)}: ${v.errorsText(validate.errors)}`);
    // As given (untouched tool-input goes out as it came), or with what the form shows as set
    // (defaults, constants) added.
    const shown = withShown(schema, value, schema, v);
    for (const k of new Set([...Object.keys(value), ...Object.keys(sent)])) {
      if (!isDeepStrictEqual(sent[k], value[k])) assert.deepEqual(sent[k], shown[k], `${k}: neither as given nor with the defaults the form shows`);
    }
    // What was sent is what the form shows.
    if (whole) {
      const text = await frame.evaluate(() => document.querySelector('#mcp-form textarea').value);
      assert.deepEqual(JSON.parse(text), sent, 'the JSON editor shows what was sent');
      report.budget.push(tool.name);
    }
    for (const [k, x] of Object.entries(whole ? {} : sent)) {
      if (!want[k]) continue;
      const box = await shownIn(frame, want[k]);
      assert.ok(box, `${k}: no field`);
      const named = titles((schema.properties || {})[k], schema);
      for (const leaf of scalars(x)) assert.ok(shows(box, leaf, named), `${k}: sends ${JSON.stringify(leaf)} but the form does not show it (shows ${JSON.stringify(box.texts.slice(0, 6)).slice(0, 300)})`);
    }
    assert.deepEqual(errors, [], 'console errors or CSP violations');
    clean = true;
  } finally {
    if (!clean) await host.drop();
  }
}

// One case as a test: WAITING cases are TODOs whose outcome is reported either way.
function caseTest(t, name, source, run) {
  if (ONLY && !ONLY.test(name)) return;
  const waits = WAITING[name];
  return t.test(name, waits ? { todo: `waits on ${waits}` } : {}, async () => {
    try {
      await run();
    } catch (e) {
      const line = `${name} (${source}): ${String(e.message).split('\n')[0].slice(0, 300)}`;
      (waits ? report.waiting : report.fail).push(waits ? `${line} [waits on ${waits}]` : line);
      throw e;
    }
    (waits ? report.nowPasses : report.pass).push(waits ? `${name}: passes now, remove it from WAITING (${waits})` : name);
  });
}

before(async () => { env = await launch(); host = hostPool(env); });
after(async () => {
  await env?.close();
  const lines = [`${report.pass.length} passed (${report.budget.length} of them as one JSON editor: ${report.budget.join(', ')}), ${report.waiting.length} waiting on a form feature, ${report.fail.length} failed, ${report.skipped.length} sources skipped`,
    ...report.skipped, ...report.waiting.map((x) => 'WAITING ' + x), ...report.nowPasses.map((x) => 'NOW PASSES ' + x), ...report.fail.map((x) => 'FAILED ' + x)];
  for (const line of lines) console.log('# world schemas: ' + line);
});

function corpusSuite(label, load) {
  describe(label, () => {
    let got, skip = false;
    const why = worldStatus();
    if (label !== 'pydantic' && why) skip = `SKIPPED ${label}: ${why}`;
    before(async () => {
      if (skip) { report.skipped.push(skip); return; }
      const c = await load();
      if (c.skip) { report.skipped.push(`SKIPPED ${label}: ${c.skip}`); got = null; return; }
      got = render(c.cases, label);
    });
    test('every schema in the real host', { skip }, async (t) => {
      if (!got) return t.skip(`SKIPPED ${label}: not installed`);
      for (const c of got.cases) await caseTest(t, c.name, c.source, () => checkSchema(got.dir, c.file, c.tool, c.data));
    });
  });
}

corpusSuite('jsonforms', async () => ({ cases: jsonForms() }));
corpusSuite('pydantic', async () => pydanticCorpus());
corpusSuite('zod', async () => ({ cases: await zodCorpus() }));

// The registry suite's servers: every tool with every property filled.
for (const server of registryServers()) {
  describe(`registry server ${server.name} (${server.pinned})`, () => {
    const skip = server.skip ? `SKIPPED ${server.name} (${server.pinned}): ${server.skip}` : false;
    let gen;
    before(() => {
      if (skip) report.skipped.push(skip);
      // Narrowed by MCP_GEN_UI_WORLD: a server starts when its name is in the pattern.
      else if (!server.broken && (!ONLY || ONLY.source.includes(server.name))) gen = generateFor(server);
    });
    test('every tool, every property filled', { skip }, async (t) => {
      assert.ok(!server.broken, server.broken);
      if (!gen) return;
      for (const tool of gen.tools) {
        await caseTest(t, `${server.name}/${tool.name}`, server.pinned, () => {
          assert.ok(gen.pages[tool.name], `the lock names no page for ${tool.name}`);
          return checkSchema(gen.dir, gen.pages[tool.name], tool);
        });
      }
    });
  });
}
