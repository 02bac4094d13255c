// The registry suite, real-host half: every page generated for the popular servers of
// tests/fixtures/registry-servers.json (installed by tests/registry/install.sh, started offline
// with dummy keys), in headless chromium inside a sandboxed iframe under the default MCP Apps CSP,
// driven by the real AppBridge. Each page completes the handshake, logs no console error, sends a
// tools/call from its form whose arguments the tool's own inputSchema accepts (Ajv, the draft the
// schema names; only the required fields filled), and shows a synthetic result's values. A server
// whose registry is not installed is SKIPPED by name. book: installation.md.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launch, buildRust, sample, leaves, norm } from './lib.mjs';
import { registryServers, generateFor, requiredSample } from './registry.mjs';
import { validatorFor, hostPool, runOnce } from './host-pool.mjs';

buildRust();
const ONLY = process.env.MCP_GEN_UI_SERVERS ? process.env.MCP_GEN_UI_SERVERS.split(',') : null;
const SERVERS = registryServers().filter((s) => !ONLY || ONLY.includes(s.name));

// A result with values the page must show: the outputSchema's sample as structured content, else text.
function syntheticResult(tool) {
  if (tool.outputSchema) {
    const structured = sample(tool.outputSchema);
    return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }] };
  }
  return { content: [{ type: 'text', text: `Registry suite result for ${tool.name}: value 4217` }] };
}

const failures = [];
let env, host;
before(async () => { env = await launch(); host = hostPool(env); });
after(async () => {
  await env?.close();
  const skipped = SERVERS.filter((s) => s.skip).map((s) => `SKIPPED ${s.name} (${s.pinned}): ${s.skip}`);
  for (const line of [...skipped, ...failures]) console.log('# registry suite: ' + line);
});

async function checkPage(server, gen, tool) {
  const file = gen.pages[tool.name];
  assert.ok(file, `the lock names no page for ${tool.name}`);
  env.guestDir.current = gen.dir;
  const { v, validate } = validatorFor(tool.inputSchema);
  const result = syntheticResult(tool);
  const { frame, page, errors } = await host.open(file, async () => result);
  let clean = false;
  try {
    // The handshake: ui/initialize first, initialized right after, size-changed after that.
    await page.waitForFunction(() => window.__sizes.length > 0, null, { timeout: 10000 });
    const log = await page.evaluate(() => window.__log);
    assert.equal(log[0], 'ui/initialize', log.join(','));
    assert.equal(log[1], 'ui/notifications/initialized', 'initialized right after the handshake: ' + log.join(','));

    // Only the required fields, through tool-input as a host sends them; then Run.
    const args = requiredSample(tool.inputSchema, v, (s, root) => sample(s, root));
    await page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
    const call = await runOnce(page, frame, args);
    assert.equal(call.name, tool.name);
    const sentArgs = call.arguments ?? {};
    assert.ok(validate(sentArgs), `the schema rejects the arguments sent ${JSON.stringify(sentArgs)}: ${v.errorsText(validate.errors)}`);

    // The synthetic result's values are on the page.
    await frame.waitForSelector('#mcp-result .result', { timeout: 10000 });
    const shown = norm(await frame.evaluate(() => document.getElementById('mcp-result').textContent));
    // Dates and times are shown in the host's locale and zone, not as sent: not compared here.
    const expected = (result.structuredContent !== undefined ? leaves(result.structuredContent) : ['4217', tool.name])
      .filter((x) => !/^\d{4}-\d\d-\d\d(T|$)|^\d\d:\d\d(:\d\d)?Z?$/.test(x));
    for (const x of expected) {
      const n = norm(x).slice(0, 40);
      if (n) assert.ok(shown.includes(n), `result value ${JSON.stringify(x)} is not on the page`);
    }
    assert.deepEqual(errors, [], 'console errors or CSP violations');
    clean = true;
  } finally {
    // The host page stays for the next tool; after a failure the next tool gets a fresh one.
    if (!clean) await host.drop();
  }
}

for (const server of SERVERS) {
  describe(`registry server ${server.name} (${server.pinned})`, () => {
    const skip = server.skip ? `SKIPPED ${server.name} (${server.pinned}): ${server.skip}` : false;
    let gen;
    before(() => { if (!server.skip && !server.broken) gen = generateFor(server); });

    test('installed and listing its tools offline', { skip }, () => {
      assert.ok(!server.broken, server.broken);
      assert.equal(gen.tools.length, server.expect.tools, 'tool count at the pinned version');
      for (const n of server.expect.names) assert.ok(gen.tools.some((t) => t.name === n), `tool ${n} listed`);
    });

    test('every page in the real host', { skip }, async (t) => {
      assert.ok(!server.broken, server.broken);
      for (const tool of gen.tools) {
        await t.test(tool.name, async () => {
          try {
            await checkPage(server, gen, tool);
          } catch (e) {
            failures.push(`FAILED ${server.name}/${tool.name}: ${String(e.message).split('\n')[0].slice(0, 400)}`);
            throw e;
          }
        });
      }
    });
  });
}
