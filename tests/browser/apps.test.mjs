// Every generated builtin UI, for every tool of the example servers and of
// @modelcontextprotocol/server-everything, in headless chromium inside a sandboxed iframe under
// the default MCP Apps CSP, driven by the real AppBridge.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, exampleServer, everythingServer, memoryServer, timeServer, backofficeServer, generate, connect, ajv, sample, leaves, norm, axeSerious, EXAMPLES, REPO } from './lib.mjs';
import { tempDir } from './tmp.mjs';

const SERVERS = [
  ['kitchen-sink', () => exampleServer('kitchen-sink')],
  ['weather-server', () => exampleServer('weather-server')],
  ['db-server', () => exampleServer('db-server')],
  ['everything', () => everythingServer()],
  // The official memory server (npm) and time server (PyPI, installed by tests/run-all.sh).
  ['memory', () => memoryServer(path.join(tempDir('mcp-gen-ui-memory-'), 'memory.jsonl'))],
  ['time', () => timeServer()],
  // A FastMCP-style back office (Python SDK MCPServer and Pydantic, same venv): forms.test.mjs.
  ['backoffice', () => backofficeServer()],
];
const VENV = 'tests/run-all.sh installs it into tests/.venv-time with python3 -m venv and pip; it needs PyPI';
const SKIP_WHY = { time: `mcp-server-time is not installed (${VENV})`, backoffice: `the Python mcp package is not installed (${VENV})` };
// server-everything tools that need a client feature this harness does not offer (sampling,
// elicitation, roots) or that run for a long time: their calls are answered by the harness with an
// error result, which the page must still show.
const NO_FORWARD = /sampl|elicit|roots|long|trigger|simulate/i;

// Built before the tests are declared: which example servers exist decides what is skipped.
buildRust();
const ONLY = process.env.MCP_GEN_UI_SERVERS ? process.env.MCP_GEN_UI_SERVERS.split(',') : null;

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

function stripSchemaKeyword(s) {
  const c = JSON.parse(JSON.stringify(s || { type: 'object' }));
  delete c.$schema;
  return c;
}

for (const [label, cmdOf] of SERVERS.filter(([l]) => !ONLY || ONLY.includes(l))) {
  describe(`generated UIs of ${label}`, () => {
    let gen, client, cmd;
    before(async () => {
      cmd = cmdOf();
      if (!cmd) return;
      gen = await generate(cmd, label);
      env.guestDir.current = gen.dir;
      client = await connect(cmd);
    });
    after(async () => { await client?.close(); });

    test('server available', { skip: !cmdOf() && (SKIP_WHY[label] || `${label} is not built on this branch`) }, () => {
      assert.ok(gen.tools.length > 0, 'the server lists tools');
    });

    // Tests are declared after the tool list is known, so each tool is its own test case.
    test('every tool', { skip: !cmdOf() && (SKIP_WHY[label] || `${label} is not built on this branch`) }, async (t) => {
      const v = ajv();
      for (const tool of gen.tools) {
        await t.test(tool.name, async () => {
          env.guestDir.current = gen.dir;
          const schema = stripSchemaKeyword(tool.inputSchema);
          const validate = v.compile(schema);
          let lastResult = null;
          const onCall = async (params) => {
            let result;
            if (label === 'everything' && NO_FORWARD.test(params.name)) {
              result = { isError: true, content: [{ type: 'text', text: 'harness: not forwarded ' + params.name }] };
            } else {
              try {
                result = await client.callTool({ name: params.name, arguments: params.arguments }, undefined, { timeout: 8000 });
              } catch (e) {
                result = { isError: true, content: [{ type: 'text', text: 'harness: ' + e.message }] };
              }
            }
            lastResult = result;
            return result;
          };
          const file = tool.name.replace(/[^a-z0-9_-]/g, '') === tool.name ? `${tool.name}.html` : null;
          assert.ok(file, 'plain tool names only in the example servers');
          const { page, frame, errors } = await env.openApp(file, { onCall });
          try {
            // Handshake first: nothing before ui/initialize, size-changed only after initialized.
            await page.waitForFunction(() => window.__sizes.length > 0, null, { timeout: 5000 });
            const log = await page.evaluate(() => window.__log);
            assert.equal(log[0], 'ui/initialize', log.join(','));
            const init = log.indexOf('ui/notifications/initialized');
            assert.ok(init === 1, 'initialized right after the handshake: ' + log.join(','));
            assert.ok(log.indexOf('ui/notifications/size-changed') > init, 'size-changed after initialized');

            // Every control has a label; every required top-level input has a control.
            const unlabeled = await frame.evaluate(() => [...document.querySelectorAll('input,select,textarea')]
              .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby'))
              .map((el) => el.outerHTML.slice(0, 80)));
            assert.deepEqual(unlabeled, []);
            const req = (schema.required || []).length;
            const reqControls = await frame.evaluate(() => document.querySelectorAll('[aria-required=true],fieldset .req').length);
            assert.ok(reqControls >= Math.min(req, 1), 'required inputs are marked');

            // Pre-fill through tool-input, submit, and check the arguments that reach the host.
            const args = sample(schema);
            await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
            await frame.click('button[type=submit]');
            if (tool.annotations && tool.annotations.destructiveHint) await frame.click('.confirm .btn.danger');
            await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 }).catch(async (e) => {
              const why = await frame.evaluate(() => [document.getElementById('mcp-status').textContent]
                .concat([...document.querySelectorAll('.err:not([hidden])')].map((x) => x.textContent)).join(' | '));
              throw new Error('no tools/call after submit: ' + why + ' (sample ' + JSON.stringify(args) + ')', { cause: e });
            });
            const calls = await page.evaluate(() => window.__calls);
            assert.equal(calls[0].name, tool.name);
            assert.ok(validate(calls[0].arguments ?? {}), `arguments ${JSON.stringify(calls[0].arguments)} invalid: ${v.errorsText(validate.errors)}`);

            // The result's values appear on the page.
            await frame.waitForSelector('#mcp-result .result', { timeout: 10000 });
            const shown = norm(await frame.evaluate(() => document.getElementById('mcp-result').textContent));
            const r = lastResult || {};
            const expect = r.structuredContent !== undefined ? leaves(r.structuredContent)
              : leaves((r.content || []).filter((c) => c.type === 'text').map((c) => c.text.replace(/\]\([^)]*\)?/g, '').slice(0, 60)));
            for (const x of expect) {
              const n = norm(x).slice(0, 40);
              if (n) assert.ok(shown.includes(n), `result value ${JSON.stringify(x)} is on the page`);
            }

            // Accessibility: no serious or critical axe-core violations, light and dark.
            assert.deepEqual(await axeSerious(frame), [], 'axe-core, light theme');

            // Dark theme from the host.
            await page.evaluate(() => window.__bridge.setHostContext({ theme: 'dark' }));
            await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark', null, { timeout: 5000 });
            const bg = await frame.evaluate(() => getComputedStyle(document.body).backgroundColor);
            const [rr, gg, bb] = bg.match(/\d+/g).map(Number);
            assert.ok(rr + gg + bb < 200, 'dark background, got ' + bg);
            assert.deepEqual(await axeSerious(frame), [], 'axe-core, dark theme');

            assert.deepEqual(errors, [], 'no console errors or CSP violations');
          } finally {
            await page.close();
          }
        });
      }
    });
  });
}

// The corpus snapshots (tools/list of real servers, tests/fixtures/corpus): every tool's page, with
// no server behind it, must produce valid arguments and pass axe-core light and dark.
describe('corpus snapshots', () => {
  const dir = path.join(REPO, 'tests', 'fixtures', 'corpus');
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.tools.json'))) {
    test(f, async (t) => {
      const out = tempDir('mcp-gen-ui-corpus-');
      const tools = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      execFileSync(path.join(EXAMPLES, 'render-tool'), [path.join(dir, f), out]);
      const v = ajv();
      for (const tool of tools) {
        await t.test(tool.name, async () => {
          env.guestDir.current = out;
          const schema = stripSchemaKeyword(tool.inputSchema);
          const validate = v.compile(schema);
          const { page, frame, errors } = await env.openApp(`${tool.name}.html`, { onCall: async () => ({ content: [{ type: 'text', text: 'done: ' + tool.name }] }) });
          try {
            await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), sample(schema));
            await frame.click('button[type=submit]');
            if (tool.annotations && tool.annotations.destructiveHint) await frame.click('.confirm .btn.danger');
            await page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 });
            const args = (await page.evaluate(() => window.__calls))[0].arguments ?? {};
            assert.ok(validate(args), `arguments ${JSON.stringify(args)} invalid: ${v.errorsText(validate.errors)}`);
            await frame.waitForSelector('#mcp-result .result');
            assert.deepEqual(await axeSerious(frame), [], 'axe-core, light theme');
            await page.evaluate(() => window.__bridge.setHostContext({ theme: 'dark' }));
            await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'dark');
            assert.deepEqual(await axeSerious(frame), [], 'axe-core, dark theme');
            assert.deepEqual(errors, []);
          } finally { await page.close(); }
        });
      }
    });
  }
});
