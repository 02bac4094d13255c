// Every kind of host (issue 15), in headless chromium:
// - MCP-UI: `serve --embed-ui` results rendered by the real <ui-resource-renderer> of
//   @mcp-ui/client 5.x (its legacy postMessage protocol), the form calling the tool through the
//   host's `tool` action, the new result shown;
// - view tools: the real AppBridge lists and calls a builtin page's view tools, and a page with
//   the runtime only (as llm pages have it) runs its tool after the person agrees;
// - window.openai: a scripted host injecting window.openai as the Apps SDK documents (globals,
//   openai:set_globals, callTool), with and without an MCP Apps parent, late input, late handshake.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildRust, exampleSuite, BIN, REPO } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();
let env, ks, upstream, cmd;

before(async () => {
  ({ env, cmd, gen: ks, client: upstream } = await exampleSuite('kitchen-sink', 'hosts'));
});
after(async () => { await upstream?.close(); await env?.close(); });

// A page with MCP-UI's own renderer (the <ui-resource-renderer> web component) loaded; `setup`
// runs on the page first (e.g. exposing the host's tool call).
async function rendererPage(setup) {
  const { page, errors } = await env.newPage();
  if (setup) await setup(page);
  await page.goto(`${env.base}/blank.html`);
  // The renderer bundles React, which reads process.env.NODE_ENV: a host's bundler defines it.
  await page.evaluate(() => { window.process = { env: { NODE_ENV: 'production' } }; });
  await page.addScriptTag({ url: '/nm/@mcp-ui/client/dist/ui-resource-renderer.wc.js', type: 'module' });
  await page.waitForFunction(() => customElements.get('ui-resource-renderer'));
  return { page, errors };
}

const forward = async (p) => upstream.callTool({ name: p.name, arguments: p.arguments });
/** The URI hosts are given for a page: its name plus `?v=` and 8 hex digits of its bytes' sha256. */
const pageUri = (file) => {
  const sha = createHash('sha256').update(fs.readFileSync(path.join(ks.dir, `${file}.html`))).digest('hex');
  return `ui://kitchen-sink/${file}?v=${sha.slice(0, 8)}`;
};
const quote = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'");

describe('MCP-UI host (@mcp-ui/client renderer) with serve --embed-ui', () => {
  let client;
  before(async () => {
    // A client without the MCP Apps extension, as MCP-UI hosts are.
    const transport = new StdioClientTransport({
      command: BIN, args: ['serve', '--server', cmd.map(quote).join(' '), '--out-dir', ks.dir, '--embed-ui'], stderr: 'ignore',
    });
    client = new Client({ name: 'mcp-ui-host', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => { await client?.close(); });

  test('the embedded page shows its result, calls the tool through the host, and the new result is shown', async () => {
    const first = await client.callTool({ name: 'list_users', arguments: { limit: 2 } });
    const texts = first.content.filter((c) => c.type === 'text');
    assert.equal(texts.length, 1, 'the upstream text is kept');
    const embedded = first.content.filter((c) => c.type === 'resource');
    assert.equal(embedded.length, 1);
    assert.equal(embedded[0].resource.mimeType, 'text/html');
    assert.equal(embedded[0].resource.uri, pageUri('list_users'));
    assert.deepEqual(first.structuredContent.users.length, 2);
    // Without the option: exactly the upstream (tools with no text get a summary only with it).
    const plain = await upstream.callTool({ name: 'list_users', arguments: { limit: 2 } });
    assert.deepEqual({ ...first, content: texts }, plain);

    const { page, errors } = await rendererPage(async (p) => p.exposeFunction('hostCallTool', async (name, args) => client.callTool({ name, arguments: args })));
    try {
      await page.evaluate((resource) => {
        window.__actions = [];
        window.show = (res) => {
          const el = document.createElement('ui-resource-renderer');
          el.setAttribute('resource', JSON.stringify(res));
          el.setAttribute('html-props', JSON.stringify({ autoResizeIframe: { height: true } }));
          // The host's side of the `tool` action: call the tool, render the UI of the new result.
          el.addEventListener('onUIAction', async (e) => {
            window.__actions.push(e.detail);
            if (e.detail.type !== 'tool') return;
            const r = await window.hostCallTool(e.detail.payload.toolName, e.detail.payload.params);
            const ui = r.content.find((c) => c.type === 'resource');
            if (ui) window.show(ui.resource);
          });
          document.body.append(el);
        };
        window.show(resource);
      }, embedded[0].resource);
      // The page speaks MCP-UI at once and shows its own result (no render-data is ever sent).
      await page.waitForFunction(() => document.querySelectorAll('iframe').length === 1);
      const frame1 = () => page.frames().find((f) => f !== page.mainFrame());
      let f1;
      for (let i = 0; i < 50 && !(f1 = frame1()); i++) await new Promise((r) => setTimeout(r, 50));
      await f1.waitForSelector('text=user2@example.com', { timeout: 5000 });
      assert.equal(await f1.inputValue('input[type=number]'), '2', 'the arguments pre-fill the form');
      // It resized itself through ui-size-change.
      await page.waitForFunction(() => parseInt(document.querySelector('iframe').style.height, 10) > 100, null, { timeout: 5000 });
      await f1.fill('input[type=number]', '3');
      await f1.click('button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('iframe').length === 2, null, { timeout: 10000 });
      const actions = await page.evaluate(() => window.__actions);
      const tool = actions.filter((a) => a.type === 'tool');
      assert.equal(tool.length, 1);
      assert.deepEqual(tool[0].payload, { toolName: 'list_users', params: { limit: 3 } });
      assert.ok(tool[0].messageId, 'the action carries a messageId');
      // The host answered (ui-message-received / ui-message-response without a result): the page says so.
      await f1.waitForSelector('text=its result appears in the conversation', { timeout: 5000 });
      const f2 = page.frames().filter((f) => f !== page.mainFrame())[1];
      await f2.waitForSelector('text=user3@example.com', { timeout: 5000 });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
  test('the ui:// copy (not embedded) turns to MCP-UI after neither MCP Apps nor window.openai answered', async () => {
    const html = fs.readFileSync(path.join(ks.dir, 'list_users.html'), 'utf8');
    const { page, errors } = await rendererPage();
    try {
      await page.evaluate((text) => {
        window.__actions = [];
        const el = document.createElement('ui-resource-renderer');
        el.setAttribute('resource', JSON.stringify({ uri: 'ui://kitchen-sink/list_users', mimeType: 'text/html', text }));
        el.setAttribute('html-props', JSON.stringify({ iframeRenderData: { toolInput: { limit: 6 }, toolOutput: { users: [{ id: 1, name: 'From render data' }] } } }));
        el.addEventListener('onUIAction', (e) => window.__actions.push(e.detail));
        document.body.append(el);
      }, html);
      let f;
      for (let i = 0; i < 50 && !(f = page.frames().find((x) => x !== page.mainFrame())); i++) await new Promise((r) => setTimeout(r, 50));
      await f.waitForSelector('text=From render data', { timeout: 6000 });
      assert.equal(await f.inputValue('input[type=number]'), '6');
      await f.click('button[type=submit]');
      await page.waitForFunction(() => window.__actions.some((a) => a.type === 'tool'), null, { timeout: 5000 });
      const tool = (await page.evaluate(() => window.__actions)).filter((a) => a.type === 'tool');
      assert.deepEqual(tool[0].payload, { toolName: 'list_users', params: { limit: 6 } });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('an MCP Apps host that keeps pages by URI, through serve', () => {
  test('reads the page by the URI tools/list gives (and by an old one) and the real AppBridge runs it', async () => {
    const MCP_APP = 'text/html;profile=mcp-app';
    const transport = new StdioClientTransport({
      command: BIN, args: ['serve', '--server', cmd.map(quote).join(' '), '--out-dir', ks.dir], stderr: 'ignore',
    });
    const client = new Client({ name: 'caching-host', version: '1.0.0' },
      { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MCP_APP] } } } });
    await client.connect(transport);
    const guest = tempDir('mcp-gen-ui-served-');
    try {
      const { tools } = await client.listTools();
      const uri = tools.find((t) => t.name === 'list_users')._meta.ui.resourceUri;
      assert.equal(uri, pageUri('list_users'));
      const read = await client.readResource({ uri });
      assert.equal(read.contents[0].uri, uri);
      assert.equal(read.contents[0].mimeType, MCP_APP);
      // A host holding the URI of an older page gets the page as it is now.
      const old = await client.readResource({ uri: uri.replace(/\?v=.*$/, '?v=00000000') });
      assert.equal(old.contents[0].text, read.contents[0].text);
      // What the host read is what it loads.
      fs.writeFileSync(path.join(guest, 'served.html'), read.contents[0].text);
      env.guestDir.current = guest;
      const { page, frame, errors } = await env.openApp('served.html', { onCall: forward });
      try {
        await frame.fill('input[type=number]', '2');
        await frame.click('button[type=submit]');
        await frame.waitForSelector('text=user2@example.com', { timeout: 10000 });
        assert.deepEqual(await page.evaluate(() => window.__calls), [{ name: 'list_users', arguments: { limit: 2 } }]);
        assert.deepEqual(errors, []);
      } finally { await page.close(); }
    } finally {
      await client.close();
      fs.rmSync(guest, { recursive: true, force: true });
    }
  });
});

describe('view tools in the real AppBridge', () => {
  test('list, fill, read, run and read the result of a builtin page', async () => {
    env.guestDir.current = ks.dir;
    const { page, frame, errors } = await env.openApp('list_users.html', { onCall: forward });
    try {
      const list = await page.evaluate(() => window.__bridge.listTools({}));
      assert.deepEqual(list.tools.map((t) => t.name), ['read_form', 'fill_form', 'run_tool', 'read_result']);
      const fill = list.tools.find((t) => t.name === 'fill_form');
      assert.deepEqual(fill.inputSchema.properties.values.properties.limit, { type: 'integer', minimum: 1, maximum: 100, default: 5 });
      const call = (name, args) => page.evaluate(([n, a]) => window.__bridge.callTool({ name: n, arguments: a }), [name, args]);

      let r = await call('fill_form', { values: { limit: 4 } });
      assert.ok(!r.isError, JSON.stringify(r));
      assert.equal(await frame.inputValue('input[type=number]'), '4', 'the person sees the value');
      assert.deepEqual(r.structuredContent.values, { limit: 4 });
      // Values the form refuses are reported, not sent.
      r = await call('fill_form', { values: { limit: 1000 } });
      assert.ok(r.structuredContent.errors.some((e) => /100/.test(e)), JSON.stringify(r.structuredContent));
      r = await call('fill_form', { values: { limit: 4 } });
      r = await call('read_form', {});
      assert.deepEqual(r.structuredContent, { values: { limit: 4 }, errors: [] });
      assert.deepEqual(await page.evaluate(() => window.__calls), [], 'nothing ran yet');

      r = await call('run_tool', {});
      assert.deepEqual(await page.evaluate(() => window.__calls), [{ name: 'list_users', arguments: { limit: 4 } }]);
      assert.equal(r.structuredContent.users.length, 4);
      await frame.waitForSelector('text=user4@example.com');
      r = await call('read_result', {});
      assert.equal(r.structuredContent.shown, true);
      assert.equal(r.structuredContent.result.structuredContent.users[3].email, 'user4@example.com');
      assert.match(r.structuredContent.text, /user4@example\.com/);
      // The capability is declared in ui/initialize.
      assert.deepEqual(await page.evaluate(() => window.__bridge.getAppCapabilities().tools), { listChanged: false });
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a destructive tool still asks the person', async () => {
    env.guestDir.current = ks.dir;
    const { page, frame, errors } = await env.openApp('delete_item.html', { onCall: forward });
    try {
      const run = page.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: { arguments: { id: 7 } } }));
      await frame.waitForSelector('text=Yes, run it');
      assert.deepEqual(await page.evaluate(() => window.__calls), [], 'nothing is sent before the person agrees');
      await frame.click('text=Yes, run it');
      const r = await run;
      assert.ok(!r.isError, JSON.stringify(r));
      assert.deepEqual(await page.evaluate(() => window.__calls), [{ name: 'delete_item', arguments: { id: 7 } }]);
      // Cancel answers the model with an error result.
      const again = page.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: {} }));
      await frame.waitForSelector('text=Yes, run it');
      await frame.click('text=Cancel');
      assert.match((await again).content[0].text, /chose not to run/);
      assert.equal((await page.evaluate(() => window.__calls)).length, 1);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('a page with the runtime only (as llm pages have it) runs its tool after the person agrees', async () => {
    const html = fs.readFileSync(path.join(ks.dir, 'list_users.html'), 'utf8');
    // The builtin page's runtime, plus the run_tool runner that llm pages get and builtin pages
    // (whose glue runs the tool itself) do not.
    const runner = fs.readFileSync(path.join(REPO, 'templates', 'min', 'runner.js'), 'utf8');
    const runtime = [...html.matchAll(/<script>\n([\s\S]*?)\n<\/script>/g)][0][1] + '\n' + runner;
    const header = html.slice(0, html.indexOf('-->') + 3);
    const llm = `${header}\n<!doctype html><html><head><meta charset="utf-8"><script>\n${runtime}\n</script></head><body><div id="out"></div>
<script>
const { App } = window.McpGenUi;
const app = new App({ name: 'llm page', version: '1.0.0' });
app.ontoolresult = (r) => { document.getElementById('out').textContent = 'users: ' + r.structuredContent.users.map((u) => u.email).join(', '); };
app.connect();
</script></body></html>`;
    fs.writeFileSync(path.join(ks.dir, 'llm_like.html'), llm);
    env.guestDir.current = ks.dir;
    const { page, frame, errors } = await env.openApp('llm_like.html', { onCall: forward });
    try {
      const list = await page.evaluate(() => window.__bridge.listTools({}));
      assert.deepEqual(list.tools.map((t) => t.name), ['run_tool', 'read_result']);
      const run = page.evaluate(() => window.__bridge.callTool({ name: 'run_tool', arguments: { arguments: { limit: 1 } } }));
      await frame.click('button:has-text("Run it")');
      const r = await run;
      assert.deepEqual(await page.evaluate(() => window.__calls), [{ name: 'list_users', arguments: { limit: 1 } }]);
      assert.equal(r.structuredContent.users.length, 1);
      await frame.waitForSelector('text=users: user1@example.com');
      const read = await page.evaluate(() => window.__bridge.callTool({ name: 'read_result', arguments: {} }));
      assert.match(read.structuredContent.text, /users: user1@example\.com/);
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});

describe('window.openai hosts (scripted as the Apps SDK documents)', () => {
  // Injected into the widget frame before its scripts run, like ChatGPT's bridge.
  function injectOpenAI(page, globals) {
    return page.addInitScript((g) => {
      if (window === window.top) return;
      window.__oa = [];
      window.openai = Object.assign({
        callTool: async (name, args) => { window.__oa.push({ name, args }); return { structuredContent: { users: [{ id: 9, name: 'From callTool' }] } }; },
      }, g);
      // How many timer callbacks had run in the frame when the result was first drawn: a render
      // "at once" needs none (no polling for window.openai, no waiting out the MCP Apps handshake).
      window.__timersRun = 0;
      for (const name of ['setTimeout', 'setInterval']) {
        const original = window[name];
        window[name] = function (fn, ...rest) {
          const counted = typeof fn === 'function' ? function (...a) { window.__timersRun++; return fn.apply(this, a); } : fn;
          return original.call(this, counted, ...rest);
        };
      }
      new MutationObserver(() => {
        const r = document.getElementById('mcp-result');
        if (r && r.firstChild && window.__timersAtDraw === undefined) window.__timersAtDraw = window.__timersRun;
      }).observe(document, { childList: true, subtree: true });
      // What the Apps SDK does when globals change: update window.openai, then the event.
      window.__setGlobals = (globals) => {
        Object.assign(window.openai, globals);
        window.dispatchEvent(new CustomEvent('openai:set_globals', { detail: { globals } }));
      };
    }, globals);
  }

  test('no MCP Apps parent: first render at once, late input pre-fills, equal output does not redraw', async () => {
    const { page, errors } = await env.newPage();
    env.guestDir.current = ks.dir;
    try {
      await injectOpenAI(page, { theme: 'dark', toolInput: null, toolOutput: { users: [{ id: 1, name: 'From toolOutput' }] } });
      await page.goto(`${env.base}/plain.html?src=/guest/list_users.html`);
      await page.waitForFunction(() => document.querySelector('iframe'));
      const frame = page.frames().find((f) => f !== page.mainFrame());
      await frame.waitForSelector('text=From toolOutput', { timeout: 5000 });
      // Drawn from window.openai before any timer ran: not after polling for it, and not after
      // the 1.5 s the MCP Apps handshake is given (whose ui/initialize stays unanswered here).
      const timers = await frame.evaluate(() => window.__timersAtDraw);
      assert.equal(timers, 0, `first drawn only after ${timers} timer callbacks ran in the frame`);
      assert.equal(await frame.evaluate(() => document.documentElement.getAttribute('data-theme')), 'dark');
      // Late toolInput.
      await frame.evaluate(() => window.__setGlobals({ toolInput: { limit: 7 } }));
      await frame.waitForFunction(() => document.querySelector('input[type=number]').value === '7');
      // A new toolOutput object with equal content: the same DOM stays.
      await frame.evaluate(() => { document.querySelector('#mcp-result > *').__mark = 1; });
      await frame.evaluate(() => window.__setGlobals({ toolOutput: { users: [{ id: 1, name: 'From toolOutput' }] }, theme: 'light' }));
      await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'light');
      assert.equal(await frame.evaluate(() => document.querySelector('#mcp-result > *').__mark), 1);
      await frame.evaluate(() => window.__setGlobals({ toolOutput: { users: [{ id: 2, name: 'Changed' }] } }));
      await frame.waitForSelector('text=Changed');
      await frame.click('button[type=submit]');
      await frame.waitForSelector('text=From callTool');
      assert.deepEqual(await frame.evaluate(() => window.__oa), [{ name: 'list_users', args: { limit: 7 } }]);
      // Nothing but the (unanswered) ui/initialize reached the parent.
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });

  test('an MCP Apps parent that answers late: openai renders first, the handshake is completed, then MCP Apps carries the calls', async () => {
    const { page, errors } = await env.newPage();
    env.guestDir.current = ks.dir;
    try {
      await injectOpenAI(page, { theme: 'dark', toolInput: { limit: 2 }, toolOutput: { users: [{ id: 1, name: 'From toolOutput' }] } });
      await page.goto(`${env.base}/blank.html`);
      await page.evaluate(() => {
        window.__seen = [];
        const iframe = document.createElement('iframe');
        iframe.setAttribute('sandbox', 'allow-scripts');
        iframe.style.cssText = 'width:800px;height:600px';
        window.addEventListener('message', (e) => {
          const m = e.data;
          if (e.source !== iframe.contentWindow || !m) return;
          window.__seen.push(m.method || m.type || ('response ' + m.id));
          const reply = (result) => iframe.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*');
          if (m.method === 'ui/initialize') {
            // Answered 2.5 s late.
            setTimeout(() => reply({ protocolVersion: '2026-01-26', hostInfo: { name: 'late', version: '1' }, hostCapabilities: { serverTools: {} }, hostContext: { theme: 'light' } }), 2500);
          }
          if (m.method === 'tools/call') reply({ structuredContent: { users: [{ id: 5, name: 'From MCP Apps' }] }, content: [] });
          if (m.method === 'ui/notifications/initialized') {
            // The newer wire name of the view tools' list (ext-apps v2 SDKs).
            iframe.contentWindow.postMessage({ jsonrpc: '2.0', id: 'vt', method: 'ui/list-view-tools', params: {} }, '*');
          }
          if (m.id === 'vt') window.__viewTools = m.result.tools.map((t) => t.name);
        });
        iframe.src = '/guest/list_users.html';
        document.body.append(iframe);
      });
      await page.waitForFunction(() => document.querySelector('iframe'));
      const frame = page.frames().find((f) => f !== page.mainFrame());
      await frame.waitForSelector('text=From toolOutput', { timeout: 2000 });
      assert.equal(await frame.inputValue('input[type=number]'), '2');
      // The handshake rule: nothing but ui/initialize before the handshake completes.
      assert.deepEqual(await page.evaluate(() => window.__seen), ['ui/initialize']);
      await page.waitForFunction(() => window.__seen.includes('ui/notifications/initialized'), null, { timeout: 5000 });
      const seen = await page.evaluate(() => window.__seen);
      assert.equal(seen.indexOf('ui/notifications/initialized'), 1, seen.join(', '));
      await frame.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'light');
      await page.waitForFunction(() => window.__viewTools);
      assert.deepEqual(await page.evaluate(() => window.__viewTools), ['read_form', 'fill_form', 'run_tool', 'read_result']);
      await frame.click('button[type=submit]');
      await frame.waitForSelector('text=From MCP Apps');
      assert.deepEqual(await frame.evaluate(() => window.__oa), [], 'calls go through MCP Apps once it answered');
      assert.deepEqual(errors, []);
    } finally { await page.close(); }
  });
});
