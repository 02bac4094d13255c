// Behaviour of the builtin UI beyond "every tool works": typed values from real DOM input, inline
// constraint messages, rows, maps, destructive confirmation, hints, charts, raw JSON, links
// through the host, pushed results, no-host and window.openai hosts, and hostile strings.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, exampleServer, generate, connect, EXAMPLES, REPO } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();
let env, ks, client, fixtures;

before(async () => {
  env = await launch();
  const cmd = exampleServer('kitchen-sink');
  ks = await generate(cmd, 'features');
  client = await connect(cmd);
  fixtures = tempDir('mcp-gen-ui-fixtures-');
  const all = fs.readdirSync(path.join(REPO, 'tests/fixtures/tools')).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(REPO, 'tests/fixtures/tools', f), 'utf8')))
    .filter((t) => /^[a-z0-9_-]+$/.test(t.name));
  fs.writeFileSync(path.join(fixtures, 'all.json'), JSON.stringify(all));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [path.join(fixtures, 'all.json'), fixtures]);
});
after(async () => { await client?.close(); await env?.close(); });

const forward = async (p) => client.callTool({ name: p.name, arguments: p.arguments });

async function open(dir, file, opts = {}) {
  env.guestDir.current = dir;
  return env.openApp(file, { onCall: forward, ...opts });
}
const calls = (page) => page.evaluate(() => window.__calls);
const text = (frame, sel) => frame.evaluate((s) => (document.querySelector(s) || {}).textContent || '', sel);

describe('form', () => {
  test('typed values from DOM input, inline errors before anything is sent', async () => {
    const { page, frame, errors } = await open(ks.dir, 'all_types.html');
    try {
      await frame.getByLabel('Full name').fill('Ada');
      await frame.getByLabel('age').fill('200');
      await frame.getByLabel('agree').check();
      await frame.click('button[type=submit]');
      assert.match(await text(frame, '#mcp-status'), /fix 1 field/);
      assert.match(await frame.evaluate(() => document.activeElement.closest('.fld').textContent), /at most 150/);
      assert.equal((await calls(page)).length, 0, 'nothing is sent while a field is invalid');
      await frame.getByLabel('age').fill('42');
      await frame.getByLabel('ratio').fill('0.5');
      await frame.getByLabel('newsletter').selectOption('false');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      const args = (await calls(page))[0].arguments;
      assert.deepEqual(args, { name: 'Ada', age: 42, ratio: 0.5, agree: true, newsletter: false, color: 'green', kind: 'demo' });
      // Enter in a field runs the tool too, although the frame (sandboxed like the reference
      // host's, without allow-forms) can never submit a form.
      await frame.waitForFunction(() => !document.querySelector('button[type=submit]').disabled);
      await frame.getByLabel('Full name').fill('Grace');
      await frame.getByLabel('Full name').press('Enter');
      await page.waitForFunction(() => window.__calls.length === 2, null, { timeout: 10000 });
      assert.equal((await calls(page))[1].arguments.name, 'Grace');
      assert.equal(await page.evaluate(() => document.querySelector('iframe').getAttribute('sandbox')), 'allow-scripts');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('rows of objects (add, reorder, remove), tag sets, maps, object defaults', async () => {
    const { page, frame, errors } = await open(ks.dir, 'nested.html');
    try {
      await frame.getByLabel('city').fill('Paris');
      const contacts = frame.locator('fieldset.arr').filter({ has: frame.locator('legend', { hasText: 'contacts' }) }).first();
      await contacts.locator('.rows input').first().fill('Ann');
      await contacts.getByRole('button', { name: '+ Add Contact' }).click();
      await contacts.locator('.rows .row').nth(1).locator('input').first().fill('Bob');
      await contacts.getByRole('button', { name: 'Move item 2 up' }).click();
      await frame.getByLabel('work').check();
      await frame.getByRole('button', { name: '+ Add entry' }).click();
      await frame.getByLabel('Key').fill('team');
      await frame.locator('.map .row input').last().fill('core');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      const a = (await calls(page))[0].arguments;
      assert.deepEqual(a.contacts, [{ name: 'Bob' }, { name: 'Ann' }]);
      assert.deepEqual(a.tags, ['work']);
      assert.deepEqual(a.labels, { team: 'core' });
      assert.deepEqual(a.settings, { theme: 'dark', volume: 3 }, 'object default sent as an object');
      assert.deepEqual(a.address, { city: 'Paris' });
      await contacts.getByRole('button', { name: 'Remove item 1' }).click();
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 2);
      assert.deepEqual((await calls(page))[1].arguments.contacts, [{ name: 'Ann' }]);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('variants, recursion and tool-input pre-fill', async () => {
    const { page, frame, errors } = await open(ks.dir, 'variants.html');
    try {
      const input = { shape: { kind: 'rect', width: 2, height: 3 }, tree: { label: 'root', children: [{ label: 'leaf' }] }, amount: '50%' };
      await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), input);
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length === 1);
      assert.deepEqual((await calls(page))[0].arguments, input);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('destructive tools ask for confirmation first', async () => {
    const { page, frame } = await open(ks.dir, 'delete_item.html');
    try {
      await frame.getByLabel('id').fill('7');
      await frame.click('button[type=submit]');
      assert.ok(await frame.isVisible('.confirm'));
      await frame.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await calls(page)).length, 0);
      await frame.click('button[type=submit]');
      await frame.getByRole('button', { name: 'Yes, run it' }).click();
      await page.waitForFunction(() => window.__calls.length === 1);
      await frame.waitForSelector('text=Deleted item 7');
    } finally { await page.close(); }
  });
});

describe('result view', () => {
  test('series: chart with a table toggle; raw JSON; links open through the host', async () => {
    const { page, frame, errors } = await open(ks.dir, 'sales_series.html');
    try {
      await frame.click('button[type=submit]');
      await frame.waitForSelector('svg.chart polyline');
      assert.equal(await frame.locator('svg.chart polyline').count(), 2, 'revenue and costs');
      await frame.getByRole('button', { name: 'Table' }).click();
      await frame.waitForSelector('table');
      assert.match(await text(frame, 'table'), /2025-01/);
      await frame.getByRole('button', { name: 'Raw JSON' }).click();
      assert.match(await text(frame, '.rawbox'), /"structuredContent"/);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
    const u = await open(ks.dir, 'list_users.html');
    try {
      await u.frame.click('button[type=submit]');
      await u.frame.waitForSelector('table');
      await u.frame.getByRole('link', { name: 'https://example.com/u/1' }).click();
      await u.page.waitForFunction(() => window.__links.length === 1);
      assert.deepEqual(await u.page.evaluate(() => window.__links), ['https://example.com/u/1']);
      await u.frame.getByRole('button', { name: 'name' }).click();
      await u.frame.getByRole('button', { name: 'name' }).click();
      assert.equal(await u.frame.getAttribute('th:nth-child(2)', 'aria-sort'), 'descending');
      assert.match(await text(u.frame, 'tbody tr'), /User 5/);
      // A result that does not match the outputSchema is flagged, and still shown.
      await u.page.evaluate(() => window.__bridge.sendToolResult({ content: [], structuredContent: { users: 'nope' } }));
      await u.frame.waitForSelector('.warn');
      assert.match(await text(u.frame, '.warn'), /outputSchema/);
    } finally { await u.page.close(); }
  });

  test('huge output is truncated and filterable', async () => {
    const { page, frame, errors } = await open(ks.dir, 'huge_output.html');
    try {
      await frame.click('button[type=submit]');
      await frame.waitForSelector('table');
      assert.equal(await frame.locator('tbody tr').count(), 50);
      assert.match(await text(frame, '.count'), /3000 of 3000 rows/);
      await frame.getByLabel('Filter rows').fill('item-2999');
      assert.equal(await frame.locator('tbody tr').count(), 1);
      assert.ok(await frame.getByRole('button', { name: /Show more \(/ }).count() >= 1, 'long text has show more');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('errors, media, pushed results, cancellation and teardown', async () => {
    const f = await open(ks.dir, 'fail.html');
    try {
      await f.frame.click('button[type=submit]');
      await f.frame.waitForSelector('.error[role=alert]');
      assert.match(await text(f.frame, '.error'), /Cannot complete: disk full/);
    } finally { await f.page.close(); }
    const { page, frame, errors } = await open(ks.dir, 'media.html');
    try {
      await frame.click('button[type=submit]');
      await frame.waitForSelector('img.media');
      assert.ok(await frame.locator('audio').count() === 1);
      assert.match(await text(frame, '#mcp-result'), /report\.pdf.*Embedded note text/s);
      await page.evaluate(() => window.__bridge.sendToolResult({ content: [{ type: 'text', text: '{"pushed": 42}' }] }));
      await frame.waitForSelector('text=pushed');
      await page.evaluate(() => window.__bridge.sendToolCancelled({ reason: 'user stopped it' }));
      await frame.waitForSelector('text=user stopped it');
      assert.deepEqual(await page.evaluate(() => window.__bridge.teardownResource({})), {});
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('hints: bar chart, x/y, labels, hidden fields, forced theme, density', async () => {
    const { page, frame, errors } = await open(fixtures, 'series_hints.html');
    try {
      await page.evaluate(() => window.__bridge.sendToolResult({ content: [], structuredContent: { days: [
        { day: 'Mon', high: 20, low: 10, internal: 'x' }, { day: 'Tue', high: 25, low: 12, internal: 'y' }, { day: 'Wed', high: 18, low: 9, internal: 'z' }] } }));
      await frame.waitForSelector('svg.chart rect.bar');
      assert.equal(await frame.locator('svg.chart rect.bar').count(), 3, 'only the y field');
      assert.match(await text(frame, '.legend'), /High °C/);
      assert.equal(await frame.evaluate(() => document.documentElement.getAttribute('data-theme')), 'dark');
      assert.ok(await frame.evaluate(() => document.documentElement.classList.contains('compact')));
      await frame.getByRole('button', { name: 'Table' }).click();
      assert.doesNotMatch(await text(frame, 'table'), /internal/);
      assert.match(await text(frame, 'tbody tr'), /Tue/, 'sorted by high desc');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('hosts and safety', () => {
  test('hostile strings are shown as text and never run', async () => {
    const { page, frame, errors } = await open(ks.dir, 'hostile_strings.html');
    try {
      const tool = ks.tools.find((t) => t.name === 'hostile_strings');
      assert.equal(await text(frame, 'h1'), tool.title);
      await frame.click('button[type=submit]');
      await frame.waitForSelector('#mcp-result .result');
      await page.waitForTimeout(300);
      assert.equal(await frame.locator('img').count(), 0);
      assert.equal(await frame.locator('#mcp-result a[href^="javascript"]').count(), 0);
      assert.deepEqual(await page.evaluate(() => window.__raw), [], 'no injected script posted anything');
      assert.ok((await text(frame, '#mcp-result')).includes("<script>parent.postMessage('pwned','*')</script>"));
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('without a host: a notice instead of hanging', async () => {
    const { page, errors } = await env.newPage();
    env.guestDir.current = ks.dir;
    try {
      await page.goto(`${env.base}/guest/list_users.html`);
      await page.waitForSelector('#mcp-notice:not([hidden])', { timeout: 5000 });
      assert.match(await page.textContent('#mcp-notice'), /Not connected to an MCP host/);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a newer host: capabilities under extensions, renamed view-tool requests', async () => {
    // A scripted host speaking the wire names ext-apps adopted after 2.0.4: host capabilities
    // only under capabilities.extensions["io.modelcontextprotocol/ui"], and host->app requests
    // ui/list-view-tools / ui/call-view-tool, which must be handled exactly like the 2.0.4 names.
    const { page, errors } = await env.newPage();
    env.guestDir.current = ks.dir;
    try {
      await page.addInitScript(() => {
        if (window !== window.top) return;
        window.__answers = {};
        window.__logs = [];
        let n = 100;
        window.addEventListener('message', (ev) => {
          const m = ev.data;
          if (!m || m.jsonrpc !== '2.0') return;
          const frame = document.querySelector('iframe').contentWindow;
          const send = (msg) => frame.postMessage({ jsonrpc: '2.0', ...msg }, '*');
          if (m.method === 'ui/initialize') {
            send({ id: m.id, result: {
              protocolVersion: '2026-01-26', hostInfo: { name: 'newer-host', version: '3' },
              capabilities: { extensions: { 'io.modelcontextprotocol/ui': { openLinks: {}, logging: {} } } },
              hostContext: { theme: 'light' },
            } });
          } else if (m.method === 'ui/notifications/initialized') {
            for (const method of ['ui/list-view-tools', 'tools/list', 'ui/call-view-tool', 'tools/call']) {
              send({ id: ++n, method, params: method.endsWith('call') || method.endsWith('tool') ? { name: 'x', arguments: {} } : {} });
              window.__answers[n] = method;
            }
          } else if (m.method === 'notifications/message' || m.method === 'ui/log') {
            window.__logs.push(m.method);
          } else if (m.id != null && !m.method && window.__answers[m.id]) {
            const method = window.__answers[m.id];
            delete window.__answers[m.id];
            window.__answers[method] = m.error ? { error: m.error } : { result: m.result };
          }
        });
      });
      await page.goto(`${env.base}/plain.html?src=/guest/list_users.html`);
      await page.waitForFunction(() => ['ui/list-view-tools', 'tools/list', 'ui/call-view-tool', 'tools/call']
        .every((m) => window.__answers[m]), null, { timeout: 10000 });
      const answers = await page.evaluate(() => window.__answers);
      assert.deepEqual(answers['ui/list-view-tools'], answers['tools/list']);
      assert.deepEqual(answers['ui/call-view-tool'], answers['tools/call']);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      assert.deepEqual(await frame.evaluate(() => window.McpGenUi.app.getHostCapabilities()), { openLinks: {}, logging: {} });
      await frame.evaluate(() => window.McpGenUi.app.sendLog({ level: 'info', data: 'hi' }));
      await page.waitForFunction(() => window.__logs.length > 0);
      assert.deepEqual(await page.evaluate(() => window.__logs), ['notifications/message']);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('window.openai host (ChatGPT Apps SDK) when no MCP Apps host answers', async () => {
    const { page, errors } = await env.newPage();
    env.guestDir.current = ks.dir;
    try {
      await page.addInitScript(() => {
        if (window === window.top) return;
        window.__oa = [];
        window.openai = {
          theme: 'dark', toolInput: { limit: 3 }, toolOutput: { users: [{ id: 1, name: 'From toolOutput' }] },
          callTool: async (name, args) => { window.__oa.push({ name, args }); return { structuredContent: { users: [{ id: 9, name: 'From callTool' }] } }; },
        };
      });
      await page.goto(`${env.base}/plain.html?src=/guest/list_users.html`);
      await page.waitForFunction(() => document.querySelector('iframe'));
      const frame = page.frames().find((f) => f !== page.mainFrame());
      await frame.waitForSelector('text=From toolOutput', { timeout: 5000 });
      assert.equal(await frame.inputValue('input[type=number]'), '3');
      assert.equal(await frame.evaluate(() => document.documentElement.getAttribute('data-theme')), 'dark');
      await frame.click('button[type=submit]');
      await frame.waitForSelector('text=From callTool');
      assert.deepEqual(await frame.evaluate(() => window.__oa), [{ name: 'list_users', args: { limit: 3 } }]);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});
