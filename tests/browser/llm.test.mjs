// Pages written by an LLM (replayed from tests/fixtures/llm through the real llm pipeline and a
// fake provider: see tests/llm.rs) in headless chromium, inside a sandboxed iframe under the
// default MCP Apps CSP, driven by the real AppBridge. The page written against the bare
// reference-SDK import must work after its repair.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, ajv, leaves, norm, llmPagesSuite } from './lib.mjs';

const PAGES = ['bare_import', 'good_ui', 'cdn_import', 'fenced_with_prose'];
const TOOL = JSON.parse(fs.readFileSync(path.join(REPO, 'tests', 'fixtures', 'llm', 'tool_get_forecast.json'), 'utf8'));
const RESULT = {
  content: [{ type: 'text', text: 'Forecast for Lyon: 3 days' }],
  structuredContent: {
    city: 'Lyon',
    forecast: [
      { date: '2026-01-02', high: 9.5, low: 2.25, condition: 'Cloudy' },
      { date: '2026-01-03', high: 11.75, low: 4.5, condition: 'Light rain' },
      { date: '2026-01-04', high: 7.125, low: -1.5, condition: 'Sunny' },
    ],
  },
};

let browser, http;

let suite;
before(async () => {
  // The real pipeline writes the repaired pages (a no-op build when `cargo test` already ran).
  suite = await llmPagesSuite('browser_fixture_pages_are_accepted', 'MCP_GEN_UI_LLM_OUT', 'llm');
  ({ browser, http } = suite);
});

after(async () => { await suite?.close(); });

for (const name of PAGES) {
  test(`LLM page ${name} works in the reference host`, async () => {
    const file = `${name}.html`;
    assert.ok(fs.existsSync(path.join(suite.dir, file)), `${file} was written`);
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.exposeFunction('hostCallTool', async () => RESULT);
    try {
      await page.goto(`http://127.0.0.1:${http.port}/host.html`);
      await page.waitForFunction(() => typeof window.startHost === 'function');
      await page.evaluate((src) => window.startHost(src, { theme: 'light', platform: 'web', locale: 'en-US' }), `/guest/${file}`);
      await page.waitForFunction(() => window.__initialized, null, { timeout: 15000 });
      await page.evaluate(() => window.__initialized);
      const frame = page.frames().find((f) => f.url().includes('/guest/'));
      assert.ok(frame, 'the guest frame loaded');

      // The handshake comes first, and completes.
      const log = await page.evaluate(() => window.__log);
      assert.equal(log[0], 'ui/initialize', log.join(','));
      assert.equal(log[1], 'ui/notifications/initialized', log.join(','));

      // A tool result pushed by the host is rendered with its values.
      await page.evaluate((r) => window.__bridge.sendToolResult(r), RESULT);
      await frame.waitForFunction(() => document.body.textContent.includes('2026-01-03'), null, { timeout: 10000 });
      const shown = norm(await frame.evaluate(() => document.body.textContent));
      for (const x of leaves(RESULT.structuredContent.forecast.map(({ date, high, low }) => ({ date, high, low })))) {
        assert.ok(shown.includes(norm(x)), `result value ${JSON.stringify(x)} is on the page`);
      }

      // The form produces a tools/call whose arguments are valid against the inputSchema.
      await frame.fill('#city', 'Lyon');
      await frame.click('button[type=submit]');
      await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 });
      const calls = await page.evaluate(() => window.__calls);
      assert.equal(calls[0].name, 'get_forecast');
      const validate = ajv().compile(TOOL.inputSchema);
      assert.ok(validate(calls[0].arguments), `arguments ${JSON.stringify(calls[0].arguments)}: ${JSON.stringify(validate.errors)}`);
      assert.equal(calls[0].arguments.city, 'Lyon');

      assert.deepEqual(errors, [], 'no console errors or CSP violations');
    } finally {
      await page.close();
    }
  });
}
