// Shared by the suites that run many generated pages in the real host (registry-servers,
// world-schemas): one host page (the real AppBridge, host.html) reused for every page, and Ajv of
// the draft a schema names.
import Ajv07 from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// The validator of the draft the schema names: draft-07 (or older) when it says so, else 2020-12
// (MCP's default). logger: false: a vendor format (Notion's `format: json`) is ignored, as the
// draft says, without a warning per compile.
const validators = {
  d7: addFormats(new Ajv07({ strict: false, allErrors: true, logger: false })),
  d2020: addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false })),
};
export function validatorFor(schema) {
  const s = schema && schema.$schema;
  const v = typeof s === 'string' && /draft-0[4-7]|json-schema\.org\/schema#?$/.test(s) ? validators.d7 : validators.d2020;
  return { v, validate: v.compile({ ...(schema || { type: 'object' }), $id: undefined }) };
}

// One host page for all the pages of a run: each page gets a new sandboxed iframe and bridge in
// it, so the host's modules load once (the static server sends no-store) instead of once per
// page. `open(file, onCall)` returns what lib.mjs's openApp returns; `drop()` after a failure
// makes the next page start from a fresh host.
export function hostPool(env) {
  let host = null;
  async function open(file, onCall) {
    if (!host) {
      const { page, errors } = await env.newPage();
      const h = { page, errors, onCall: null };
      await page.exposeFunction('hostCallTool', (params) => h.onCall(params));
      await page.goto(`${env.base}/host.html`);
      await page.waitForFunction(() => typeof window.startHost === 'function');
      host = h;
    }
    const { page, errors } = host;
    host.onCall = onCall;
    errors.length = 0;
    await page.evaluate(() => {
      for (const f of document.querySelectorAll('iframe')) f.remove();
      window.__log = []; window.__sizes = []; window.__calls = []; window.__links = []; window.__raw = [];
    });
    const ctx = { theme: 'light', platform: 'web', locale: 'en-US', styles: { variables: { '--font-sans': 'sans-serif' } } };
    await page.evaluate(([src, c]) => window.startHost(src, c), [`/guest/${file}`, ctx]);
    await page.waitForFunction(() => window.__initialized, null, { timeout: 15000 });
    await page.evaluate(() => window.__initialized);
    const frame = page.frames().find((f) => f.url().includes('/guest/'));
    return { page, frame, errors };
  }
  async function drop() {
    const h = host;
    host = null;
    await h?.page.close().catch(() => {});
  }
  return { open, drop };
}

// Clicks Run (and the confirmation when the page asks, whatever the annotations said) and resolves
// with the tools/call the host received; without one, fails with what the page says (its status
// and inline errors). `args`: the tool-input sent before, named in the error.
export async function runOnce(page, frame, args) {
  await frame.click('button[type=submit]');
  // A call, the question before a destructive run, or the form refusing (its status says why).
  const refused = () => frame.waitForSelector('#mcp-status.bad', { timeout: 10000 }).then(() => 'refused', () => null);
  const next = await Promise.race([
    page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 }).then(() => 'call', () => null),
    frame.waitForSelector('.confirm .btn.danger', { state: 'visible', timeout: 10000 }).then(() => 'confirm', () => null),
    refused(),
  ]);
  if (next === 'confirm') await frame.click('.confirm .btn.danger');
  const wait = next === 'refused' ? Promise.reject(new Error('refused')) : page.waitForFunction(() => window.__calls.length > 0, null, { timeout: 10000 });
  await wait.catch(async (e) => {
    const why = await frame.evaluate(() => [document.getElementById('mcp-status')?.textContent]
      .concat([...document.querySelectorAll('.err:not([hidden])')].map((x) => x.textContent)).filter(Boolean).join(' | '));
    throw new Error(`no tools/call after Run: ${why} (tool-input ${JSON.stringify(args)})`, { cause: e });
  });
  return (await page.evaluate(() => window.__calls))[0];
}
