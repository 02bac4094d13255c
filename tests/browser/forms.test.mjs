// A form sends what it shows (book: reference/pages.md, "What a Run sends" and "Who confirms"), against a back
// office written the way FastMCP / the Python SDK's MCPServer and Pydantic write one
// (tests/fixtures/servers/backoffice.py: nullable fields with null defaults, optional nested
// models with defaulted enums, update tools, date-time and time arguments, annotations), run as a
// real server, in the real AppBridge. Every Run's arguments are checked twice: valid against the
// tool's inputSchema (ajv, as a validating server would) and equal to exactly what the form shows
// as set. The server itself (Pydantic) must accept every call.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, generate, connect, ajv, sample, everythingServer, memoryServer, timeServer, backofficeServer, REPO, EXAMPLES } from './lib.mjs';
import { tempDir } from './tmp.mjs';

// The Python of tests/.venv-time (tests/run-all.sh installs mcp-server-time there, which brings
// the `mcp` package and Pydantic).
const BACKOFFICE = backofficeServer();
const HAVE_PY = !!BACKOFFICE;
const SKIP = !HAVE_PY && 'tests/.venv-time is not installed (tests/run-all.sh creates it with python3 -m venv and pip; it needs PyPI)';

buildRust();
let env, gen, client, validators;

before(async () => {
  env = await launch();
  if (!HAVE_PY) return;
  gen = await generate(BACKOFFICE, 'backoffice');
  client = await connect(BACKOFFICE);
  const a = ajv();
  validators = Object.fromEntries(gen.tools.map((t) => [t.name, a.compile(t.inputSchema)]));
});
after(async () => { await client?.close(); await env?.close(); });

// Every call goes to the real server; a call the server (Pydantic) refuses fails the test.
const refusedByServer = [];
const forward = async (p) => {
  const r = await client.callTool({ name: p.name, arguments: p.arguments });
  if (r.isError) refusedByServer.push({ call: p, result: r });
  return r;
};
const PARIS = { theme: 'light', platform: 'web', locale: 'en-US', timeZone: 'Europe/Paris' };
async function open(tool, opts = {}) {
  env.guestDir.current = gen.dir;
  refusedByServer.length = 0;
  return env.openApp(tool + '.html', { onCall: forward, hostContext: PARIS, ...opts });
}
const calls = (page) => page.evaluate(() => window.__calls);
const status = (frame) => frame.evaluate(() => document.getElementById('mcp-status').textContent);
const input = (page, args) => page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
const viewTool = (page, name, args) => page.evaluate(([n, a]) => window.__bridge.callTool({ name: n, arguments: a }), [name, args]);

// Runs the form from its button and returns the arguments of the n-th call, after checking them
// against the inputSchema and that the server took them.
async function run(page, frame, tool, n = 1) {
  await frame.waitForFunction(() => !document.querySelector('button[type=submit]').disabled);
  await frame.click('button[type=submit]');
  await page.waitForFunction((k) => window.__calls.length >= k, n, { timeout: 10000 });
  const c = (await calls(page))[n - 1];
  assert.equal(c.name, tool);
  const v = validators[tool];
  assert.ok(v(c.arguments), `${tool}: ${JSON.stringify(c.arguments)} is valid: ${JSON.stringify(v.errors)}`);
  await frame.waitForSelector('#mcp-result .result');
  assert.deepEqual(refusedByServer, [], 'the server accepted the call');
  return c.arguments;
}
// A control by its label, exactly (a required field's label ends with an aria-hidden "*").
const L = (frame, label) => frame.getByLabel(new RegExp('^' + label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '( \\*)?$'));
const field = (frame, label) => frame.locator('.fld', { has: L(frame, label) });

describe('what a Run sends', { skip: SKIP }, () => {
  test('an update tool run with only its required field sends only that: a nullable boolean is not a checkbox, an optional object stays closed', async () => {
    const { page, frame, errors } = await open('update_customer');
    try {
      // marketing_opt_in: anyOf [boolean, null], default null: four states, starting at "not set".
      const opt = L(frame, 'Marketing Opt In');
      assert.equal(await opt.evaluate((e) => e.tagName), 'SELECT', 'a null default is not an unchecked box');
      assert.deepEqual(await opt.evaluate((e) => [...e.options].map((o) => o.textContent)), ['(not set)', 'Yes', 'No', 'null']);
      assert.equal(await opt.inputValue(), '');
      // company: anyOf [$ref Company, null], default null: closed, and its defaulted enum with it.
      assert.equal(await L(frame, 'Size').count(), 0, 'nothing of an optional object is shown before it is added');
      await L(frame, 'Customer Id').fill('7');
      assert.deepEqual(await run(page, frame, 'update_customer'), { customer_id: 7 });
      assert.equal(await frame.locator('.confirm:not([hidden])').count(), 0, 'a person\'s click on a tool without destructiveHint does not ask');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a nullable boolean has four states: not set, yes, no, null', async () => {
    const { page, frame } = await open('update_customer');
    try {
      await L(frame, 'Customer Id').fill('7');
      const opt = L(frame, 'Marketing Opt In');
      const sent = [];
      for (const [value, n] of [['true', 1], ['false', 2], ['null', 3], ['', 4]]) {
        await opt.selectOption(value);
        sent.push((await run(page, frame, 'update_customer', n)).marketing_opt_in);
      }
      assert.deepEqual(sent, [true, false, null, undefined]);
      assert.ok(!('marketing_opt_in' in (await calls(page))[3].arguments), 'not set: absent');
    } finally { await page.close(); }
  });

  test('a tool-input null is kept; a person can set a nullable field to null on purpose', async () => {
    const { page, frame, errors } = await open('update_customer');
    try {
      const given = { customer_id: 7, phone: null, email: 'ada@example.com' };
      await input(page, given);
      await frame.waitForFunction(() => document.querySelector('input[type=number]').value === '7');
      assert.ok(await field(frame, 'Phone').getByLabel('Set to null').isChecked(), 'the form shows the null it will send');
      assert.deepEqual(await run(page, frame, 'update_customer'), given, 'untouched: the tool-input as the host gave it');
      // Typing into a null field un-nulls it; "Set to null" on another field sends null.
      await L(frame, 'Phone').fill('+33 1 23 45 67 89');
      await field(frame, 'Email').getByLabel('Set to null').check();
      assert.equal(await L(frame, 'Email').inputValue(), '');
      assert.deepEqual(await run(page, frame, 'update_customer', 2), { customer_id: 7, phone: '+33 1 23 45 67 89', email: null });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an optional object with a defaulted enum is absent until added; added, it sends its shown default', async () => {
    const { page, frame, errors } = await open('update_customer');
    try {
      await L(frame, 'Customer Id').fill('7');
      await frame.getByRole('button', { name: '+ Add Company' }).click();
      assert.equal(await L(frame, 'Size').inputValue(), '0', 'the default shows');
      // Added, its required name is required; nothing is sent until it is filled.
      await frame.click('button[type=submit]');
      assert.match(await status(frame), /fix 1 field/);
      assert.equal((await calls(page)).length, 0);
      await L(frame, 'Name').fill('ACME');
      assert.deepEqual(await run(page, frame, 'update_customer'), { customer_id: 7, company: { name: 'ACME', size: '1-10' } });
      await frame.getByRole('button', { name: 'Remove Company' }).click();
      assert.deepEqual(await run(page, frame, 'update_customer', 2), { customer_id: 7 });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an optional object holding an optional object with required fields: required-only runs', async () => {
    const { page, frame, errors } = await open('create_shipment');
    try {
      await L(frame, 'Order Id').fill('A-1');
      await L(frame, 'Weight Kg').fill('2.5');
      assert.deepEqual(await run(page, frame, 'create_shipment'), { order_id: 'A-1', weight_kg: 2.5 });
      // Options added: its shown defaults go with it, its customs stay absent until added.
      await frame.getByRole('button', { name: '+ Add ShipmentOptions' }).click();
      assert.deepEqual(await run(page, frame, 'create_shipment', 2), { order_id: 'A-1', weight_kg: 2.5, options: { insured: false, speed: 'standard' } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('date-time and time strings from tool-input go out byte for byte when nobody touched them', async () => {
    const { page, frame, errors } = await open('schedule_callback');
    try {
      const given = { customer_id: 3, at: '2026-03-01T09:00:00Z', window_start: '02:00:00Z', note: 'call back' };
      await input(page, given);
      await frame.waitForFunction(() => document.querySelector('input[type=time]').value !== '');
      assert.equal(await L(frame, 'Window Start').inputValue(), '03:00:00', 'shown in the host\'s zone (Paris, winter)');
      assert.deepEqual(await run(page, frame, 'schedule_callback'), given);
      // Touched, a value is what the person typed, in the host's zone.
      await L(frame, 'At').fill('2026-03-01T11:00');
      const a = await run(page, frame, 'schedule_callback', 2);
      assert.equal(a.at, '2026-03-01T10:00:00.000Z');
      assert.equal(a.window_start, '02:00:00Z');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an invalid tool-input blocks the Run with inline errors naming the fields', async () => {
    const { page, frame, errors } = await open('update_customer');
    try {
      await input(page, { customer_id: 7, marketing_opt_in: 'yes', company: { name: 'ACME', size: 'huge' } });
      await frame.waitForFunction(() => document.querySelector('input[type=number]').value === '7');
      await frame.click('button[type=submit]');
      assert.match(await status(frame), /fix 2 fields/);
      const shown = await frame.evaluate(() => [...document.querySelectorAll('.err:not([hidden])')].map((e) => e.closest('.fld, fieldset').querySelector('label, legend').textContent + ': ' + e.textContent));
      assert.deepEqual(shown, ['Marketing Opt In: Expected boolean, got "yes".', 'Size: Not one of the choices: "huge".']);
      assert.equal((await calls(page)).length, 0, 'nothing is sent');
      // Fixed by the person, it runs.
      await L(frame, 'Marketing Opt In').selectOption('true');
      await L(frame, 'Size').selectOption({ label: '11-50' });
      assert.deepEqual(await run(page, frame, 'update_customer'), { customer_id: 7, marketing_opt_in: true, company: { name: 'ACME', size: '11-50' } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a nullable list: absent until added, an empty list from tool-input kept, null kept', async () => {
    const { page, frame, errors } = await open('tag_customer');
    try {
      await L(frame, 'Customer Id').fill('4');
      assert.deepEqual(await run(page, frame, 'tag_customer'), { customer_id: 4 });
      const given = { customer_id: 4, tags: [], vip: null };
      await input(page, given);
      assert.deepEqual(await run(page, frame, 'tag_customer', 2), given);
      await frame.getByRole('button', { name: '+ Add item' }).click();
      await frame.locator('fieldset.arr .rows input').first().fill('gold');
      assert.deepEqual(await run(page, frame, 'tag_customer', 3), { customer_id: 4, tags: ['gold'], vip: null });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('every tool runs with only its required fields: the required values plus shown non-null defaults, nothing else', async (t) => {
    for (const tool of gen.tools) {
      await t.test(tool.name, async () => {
        const s = tool.inputSchema, req = s.required || [];
        const given = Object.fromEntries(req.map((k) => [k, sample(s.properties[k], s)]));
        const expected = { ...given };
        for (const [k, p] of Object.entries(s.properties || {})) if (!req.includes(k) && p.default != null) expected[k] = p.default;
        const { page, frame, errors } = await open(tool.name);
        try {
          await input(page, given);
          const run1 = run(page, frame, tool.name);
          // delete_customer asks the person (destructiveHint) even for their own click.
          if (tool.annotations?.destructiveHint) await frame.getByRole('button', { name: 'Yes, run it' }).click();
          assert.deepEqual(await run1, expected);
          assert.deepEqual(errors, []);
        } finally { await page.close(); }
      });
    }
  });
});

describe('view tools', { skip: SKIP }, () => {
  test('fill_form is all or none: an invalid fill changes nothing', async () => {
    const { page, frame, errors } = await open('delete_customer');
    try {
      let r = await viewTool(page, 'fill_form', { values: { customer_id: 5 } });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.ok(await L(frame, 'Dry Run').isChecked(), 'dry_run shows its default, true');
      r = await viewTool(page, 'fill_form', { values: { customer_id: 'five', dry_run: false } });
      assert.ok(r.isError, 'refused');
      assert.deepEqual(r.structuredContent.refused, ['customer_id']);
      assert.match(r.structuredContent.errors.join(' '), /Customer Id: Expected integer/);
      assert.equal(await L(frame, 'Customer Id').inputValue(), '5', 'the number is kept');
      assert.ok(await L(frame, 'Dry Run').isChecked(), 'dry_run still true: nothing changed');
      r = await viewTool(page, 'read_form', {});
      assert.deepEqual(r.structuredContent, { values: { customer_id: 5, dry_run: true }, errors: [] });
      assert.deepEqual(await calls(page), []);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('fill_form: a partial fill is normal, nested defaults do not count as refused', async () => {
    const { page, frame, errors } = await open('update_customer');
    try {
      const r = await viewTool(page, 'fill_form', { values: { company: { name: 'ACME' }, phone: null } });
      assert.ok(!r.isError, JSON.stringify(r.structuredContent));
      assert.deepEqual(r.structuredContent.refused, []);
      assert.deepEqual(r.structuredContent.errors, [], 'no message about the required customer_id the fill left out');
      assert.deepEqual(r.structuredContent.missing, ['Customer Id']);
      assert.deepEqual(r.structuredContent.values, { phone: null, company: { name: 'ACME', size: '1-10' } });
      assert.equal(await frame.locator('.err:not([hidden])').count(), 0, 'no message shown in the page either');
      assert.equal(await L(frame, 'Name').inputValue(), 'ACME');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('run_tool with arguments the form refuses changes nothing and runs nothing', async () => {
    const { page, frame, errors } = await open('delete_customer');
    try {
      await viewTool(page, 'fill_form', { values: { customer_id: 5 } });
      const bad = await viewTool(page, 'run_tool', { arguments: { customer_id: 7, dry_run: 'no' } });
      assert.ok(bad.isError);
      assert.match(bad.content[0].text, /Dry Run: Expected boolean/);
      assert.equal(await L(frame, 'Customer Id').inputValue(), '5', 'the form is unchanged');
      assert.ok(await L(frame, 'Dry Run').isChecked());
      assert.equal(await frame.locator('.confirm:not([hidden])').count(), 0, 'nothing to confirm');
      assert.deepEqual(await calls(page), []);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('run_tool asks for a tool without annotations (MCP\'s defaults), not for readOnlyHint or destructiveHint: false', async () => {
    // No annotations: MCP's defaults (may write, destructively), so run_tool asks.
    let { page, frame, errors } = await open('update_customer');
    try {
      const r = page.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: { arguments: { customer_id: 7, marketing_opt_in: false } } }));
      await frame.waitForSelector('text=Yes, run it');
      assert.match(await frame.locator('.confirm').textContent(), /The assistant wants to run/);
      assert.deepEqual(await calls(page), [], 'nothing is sent before the person agrees');
      await frame.click('text=Yes, run it');
      assert.ok(!(await r).isError);
      assert.deepEqual((await calls(page))[0].arguments, { customer_id: 7, marketing_opt_in: false });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
    // destructiveHint: false, and readOnlyHint: true: no question.
    for (const [tool, args] of [['tag_customer', { customer_id: 2, vip: true }], ['list_customers', { status: 'active' }]]) {
      ({ page, frame, errors } = await open(tool));
      try {
        const r = await viewTool(page, 'run_tool', { arguments: args });
        assert.ok(!r.isError, JSON.stringify(r));
        const sent = (await calls(page))[0].arguments;
        assert.ok(validators[tool](sent));
        assert.deepEqual(sent, tool === 'list_customers' ? { limit: 20, ...args } : args);
        assert.equal(await frame.locator('.confirm:not([hidden])').count(), 0);
        assert.deepEqual(errors, []);
      } finally { await page.close(); }
    }
  });

  test('an llm page (runtime and runner.js) confirms by the same rule, from its embedded tool', async () => {
    // The builtin page's runtime plus runner.js, as llm pages have them, and llm.js's tool block.
    const html = fs.readFileSync(path.join(gen.dir, 'list_customers.html'), 'utf8');
    const runner = fs.readFileSync(path.join(REPO, 'templates', 'min', 'runner.js'), 'utf8');
    const llm = fs.readFileSync(path.join(REPO, 'templates', 'min', 'llm.js'), 'utf8');
    const runtime = [...html.matchAll(/<script>\n([\s\S]*?)\n<\/script>/g)][0][1] + '\n' + runner + '\n' + llm;
    const page = (tool) => `<!doctype html><html><head><meta charset="utf-8"><script>\n${runtime}\n</script>
<script type="application/json" id="mcp-gen-ui-tool">${JSON.stringify(tool)}</script></head><body><div id="out"></div>
<script>
const app = new window.McpGenUi.App({ name: 'llm page', version: '1.0.0' });
app.ontoolresult = () => { document.getElementById('out').textContent = 'shown'; };
app.connect();
</script></body></html>`;
    const byName = Object.fromEntries(gen.tools.map((t) => [t.name, t]));
    fs.writeFileSync(path.join(gen.dir, 'llm_read_only.html'), page(byName.list_customers));
    fs.writeFileSync(path.join(gen.dir, 'llm_update.html'), page(byName.update_customer));
    let { page: p, frame, errors } = await open('llm_read_only');
    try {
      // llm.js's argument checks: a null is kept where the schema allows it, left out of an
      // optional field whose schema has none, and a time with its offset is left as it is.
      const c = await frame.evaluate((s) => window.McpGenUi.coerceArguments({ limit: null, status: null, since: '2026-03-01T09:00:00Z' }, s), byName.list_customers.inputSchema);
      assert.deepEqual(c, { value: { status: null, since: '2026-03-01T09:00:00Z' }, errors: [] });
      const r = await viewTool(p, 'run_tool', { arguments: { limit: 2 } });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.deepEqual(await calls(p), [{ name: 'list_customers', arguments: { limit: 2 } }], 'readOnlyHint: no question');
      assert.deepEqual(errors, []);
    } finally { await p.close(); }
    ({ page: p, frame, errors } = await open('llm_update'));
    try {
      const r = p.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: { arguments: { customer_id: 1 } } }));
      await frame.waitForSelector('text=Run it');
      assert.deepEqual(await calls(p), [], 'no annotations: the person is asked first');
      await frame.click('button:has-text("Run it")');
      assert.ok(!(await r).isError);
      assert.deepEqual(await calls(p), [{ name: 'update_customer', arguments: { customer_id: 1 } }]);
      assert.deepEqual(errors, []);
    } finally { await p.close(); }
  });

  test('a page without inputs offers run_tool and read_result', async () => {
    const { page, errors } = await open('server_status');
    try {
      const list = await page.evaluate(() => window.__bridge.listTools({}));
      assert.deepEqual(list.tools.map((t) => t.name), ['run_tool', 'read_result']);
      const r = await viewTool(page, 'run_tool', {});
      assert.ok(!r.isError, JSON.stringify(r));
      assert.deepEqual(await calls(page), [{ name: 'server_status', arguments: {} }]);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

// Servers from outside this repository (server-everything and the official memory server from npm,
// the official time server from PyPI): every tool, required fields only, from tool-input, sends
// exactly those plus the shown non-null defaults.
const OUTSIDE = [
  ['server-everything', () => everythingServer()],
  ['memory', () => memoryServer(path.join(tempDir('mcp-gen-ui-memory-'), 'memory.jsonl'))],
  ['time', () => timeServer()],
];
for (const [label, cmdOf] of OUTSIDE) describe(`${label}: required-only runs`, () => {
  test('every tool', { skip: !cmdOf() && `${label} is not installed here` }, async (t) => {
    const cmd = cmdOf();
    const g = await generate(cmd, label + '-forms');
    const a = ajv();
    for (const tool of g.tools.filter((x) => /^[a-z0-9_-]+$/.test(x.name))) {
      await t.test(tool.name, async () => {
        const s = { ...tool.inputSchema }, req = s.required || [], props = s.properties || {};
        delete s.$schema;
        const given = Object.fromEntries(req.map((k) => [k, sample(props[k], s)]));
        const expected = { ...given };
        for (const [k, p] of Object.entries(props)) if (!req.includes(k) && p.default != null) expected[k] = p.default;
        env.guestDir.current = g.dir;
        const { page, frame, errors } = await env.openApp(tool.name + '.html', { onCall: async () => ({ content: [{ type: 'text', text: 'ok' }] }) });
        try {
          await input(page, given);
          await frame.waitForFunction(() => !document.querySelector('button[type=submit]').disabled);
          await frame.click('button[type=submit]');
          if (tool.annotations?.destructiveHint) await frame.getByRole('button', { name: 'Yes, run it' }).click();
          await page.waitForFunction(() => window.__calls.length >= 1, null, { timeout: 10000 });
          const sent = (await calls(page))[0].arguments;
          const v = a.compile(s);
          assert.ok(v(sent), JSON.stringify(v.errors));
          assert.deepEqual(sent, expected);
          assert.deepEqual(errors, []);
        } finally { await page.close(); }
      });
    }
  });
});

// Schemas as servers write them, rendered with the generator (render-tool): a default its own
// schema refuses is shown and sent as the form shows it, not a reason to block every Run.
describe('defaults a schema gets wrong', () => {
  test('an integer default written as a string is sent as the number the field shows', async () => {
    const dir = tempDir('mcp-gen-ui-sloppy-');
    const tools = [{ name: 'sloppy', inputSchema: { type: 'object', properties: { limit: { type: 'integer', default: '5' }, q: { type: 'string' } } }, annotations: { readOnlyHint: true } }];
    fs.writeFileSync(path.join(dir, 'tools.json'), JSON.stringify(tools));
    execFileSync(path.join(EXAMPLES, 'render-tool'), [path.join(dir, 'tools.json'), dir]);
    env.guestDir.current = dir;
    const { page, frame, errors } = await env.openApp('sloppy.html', { onCall: async () => ({ content: [{ type: 'text', text: 'ok' }] }) });
    try {
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1, null, { timeout: 10000 });
      assert.deepEqual((await calls(page))[0].arguments, { limit: 5 });
      // The same value from tool-input is the host's: it is checked, and blocks the Run.
      await input(page, { limit: '7' });
      await frame.click('button[type=submit]');
      await frame.waitForSelector('.err:not([hidden])');
      assert.match(await frame.locator('.err:not([hidden])').first().textContent(), /Expected integer, got "7"/);
      assert.equal((await calls(page)).length, 1);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});
