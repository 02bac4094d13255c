// Pages that live in the host (issue 35), in the real AppBridge host under the default CSP: drafts
// that survive the frame being re-created (page storage, storage that throws, window.openai widget
// state), input streamed as the model writes it, a cancelled call, display modes, container size,
// safe areas and touch, and CSV/JSON downloads through ui/download-file. Each behaviour with a
// host that offers the capability and one that does not.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, buildRust, EXAMPLES } from './lib.mjs';
import { tempDir } from './tmp.mjs';

buildRust();

const NOTE = {
  name: 'create_note', description: 'Create a note.',
  inputSchema: {
    type: 'object', required: ['title'],
    properties: {
      title: { type: 'string' }, body: { type: 'string' }, count: { type: 'integer' },
      api_key: { type: 'string' }, pin: { type: 'string', format: 'password' }, hidden: { type: 'string', writeOnly: true },
      photo: { type: 'string', contentEncoding: 'base64', contentMediaType: 'image/png' },
    },
  },
};
// The same tool after its schema changed.
const NOTE2 = { ...NOTE, inputSchema: { ...NOTE.inputSchema, properties: { ...NOTE.inputSchema.properties, tag: { type: 'string' } } } };
const ROWS = { name: 'list_rows', description: 'Rows.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } };

function render(tools) {
  const dir = tempDir('mcp-gen-ui-hostlife-');
  const f = path.join(dir, 'tools.input.json');
  fs.writeFileSync(f, JSON.stringify(tools));
  execFileSync(path.join(EXAMPLES, 'render-tool'), [f, dir]);
  return dir;
}

let env, dir, dir2;
before(async () => {
  dir = render([NOTE, ROWS]);
  dir2 = render([NOTE2]);
  env = await launch();
});
after(async () => { await env?.close(); });

const CTX = { theme: 'light', platform: 'web', locale: 'en-US' };
const STORAGE = 'allow-scripts allow-same-origin';

// A host page; frame() is the live app frame after start() (which re-creates it).
async function host(file, { ctx = CTX, opts = {}, onCall } = {}) {
  const { page, errors } = await env.newPage();
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  await page.exposeFunction('hostCallTool', onCall || (async () => ({ content: [{ type: 'text', text: 'ok' }] })));
  await page.goto(`${env.base}/host.html`);
  await page.waitForFunction(() => typeof window.startHost === 'function');
  const frame = () => page.frames().find((f) => f.url().includes('/guest/') && !f.isDetached());
  const start = async (o = opts) => {
    await page.evaluate(([src, c, op]) => { document.querySelectorAll('iframe').forEach((i) => i.remove()); return window.startHost(src, c, op); }, [`/guest/${file}`, ctx, o]);
    await page.waitForFunction(() => window.__initialized, null, { timeout: 15000 });
    await page.evaluate(() => window.__initialized);
    return frame();
  };
  const input = (args) => page.evaluate((a) => window.__bridge.sendToolInput({ arguments: a }), args);
  const raw = (method, params) => page.evaluate(([m, p]) => document.querySelector('iframe').contentWindow.postMessage({ jsonrpc: '2.0', method: m, params: p }, '*'), [method, params]);
  // The tool-input { title } sent, and shown in the form's first field.
  const shown = async (f, title) => {
    await input({ title });
    await f.waitForFunction((t) => document.querySelector('input').value === t, title);
    return f;
  };
  // A re-created frame given the tool-input { title }.
  const fresh = async (title) => shown(await start(), title);
  await start();
  return { page, errors, warnings, frame, start, input, raw, shown, fresh };
}

const value = (f, label) => f.getByLabel(label, { exact: true }).inputValue();
const fillNote = async (f) => {
  await f.getByLabel('Title').fill('Edited title');
  await f.getByLabel('Body').fill('my unsent text');
  await f.getByLabel('Count').fill('5');
  await f.getByLabel('Api Key').fill('k-secret');
  await f.getByLabel('Pin').fill('1234');
  await f.getByLabel('Hidden').fill('writeonly-secret');
  // A file field (form-file.js): its contents must never reach a draft.
  await f.getByLabel('Photo').setInputFiles({ name: 'p.png', mimeType: 'image/png', buffer: Buffer.from('iVBORw0KGgo=', 'base64') });
};
const drafts = (page) => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('mcp-gen-ui/draft/')).map((k) => localStorage.getItem(k)));

describe('drafts survive the frame', () => {
  test('page storage: restored for the same tool-input only, never a password or a file, discardable, dropped once sent', async () => {
    env.guestDir.current = dir;
    const h = await host('create_note.html', { opts: { sandbox: STORAGE } });
    try {
      let f = h.frame();
      await h.shown(f, 'From model');
      await fillNote(f);
      const stored = await drafts(h.page);
      assert.equal(stored.length, 1);
      const d = JSON.parse(stored[0]);
      assert.deepEqual(d.v, { title: 'Edited title', body: 'my unsent text', count: 5 });
      for (const secret of ['k-secret', '1234', 'writeonly-secret', 'iVBORw0KGgo', 'From model']) assert.ok(!stored[0].includes(secret), secret);

      // The host re-creates the frame and replays the same tool-input and result.
      f = await h.start();
      await h.input({ title: 'From model' });
      await h.page.evaluate(() => window.__bridge.sendToolResult({ content: [{ type: 'text', text: 'done' }] }));
      await f.waitForSelector('text=Your unsent changes were restored.');
      assert.equal(await value(f, 'Title *'), 'Edited title');
      assert.equal(await f.getByLabel('Body').inputValue(), 'my unsent text');
      assert.equal(await f.getByLabel('Count').inputValue(), '5');
      for (const l of ['Api Key', 'Pin', 'Hidden', 'Photo']) assert.equal(await f.getByLabel(l).inputValue(), '', l);
      await f.waitForSelector('text=done');

      // Another view of the tool (other input) has no draft.
      f = await h.fresh('Other');
      assert.equal(await f.getByLabel('Body').inputValue(), '');
      assert.equal(await f.locator('text=Your unsent changes were restored.').count(), 0);

      // Discard: back to the tool-input, and gone for good.
      f = await h.start();
      await h.input({ title: 'From model' });
      await f.waitForSelector('text=Your unsent changes were restored.');
      await f.click('button:has-text("Discard changes")');
      assert.equal(await f.getByLabel('Title').inputValue(), 'From model');
      assert.equal(await f.getByLabel('Body').inputValue(), '');
      assert.equal(await f.locator('.draftbar').count(), 0);
      assert.deepEqual(await drafts(h.page), []);

      // Sent: the draft is dropped.
      await f.getByLabel('Body').fill('will be sent');
      assert.equal((await drafts(h.page)).length, 1);
      await f.click('button[type=submit]');
      await f.waitForSelector('text=ok');
      assert.deepEqual(await h.page.evaluate(() => window.__calls.map((c) => c.arguments)), [{ title: 'From model', body: 'will be sent' }]);
      assert.deepEqual(await drafts(h.page), []);
      f = await h.fresh('From model');
      assert.equal(await f.getByLabel('Body').inputValue(), '');
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
  });

  test('a draft lasts 7 days (injected clock) and ends when the schema changes', async () => {
    env.guestDir.current = dir;
    const h = await host('create_note.html', { opts: { sandbox: STORAGE } });
    try {
      let f = h.frame();
      await h.input({ title: 'T' });
      await f.getByLabel('Body').fill('kept a while');
      const later = async (days) => {
        f = await h.start();
        await f.evaluate((ms) => { const t0 = Date.now(); window.McpGenUi.now = () => t0 + ms; }, days * 864e5);
        await h.shown(f, 'T');
        return f.getByLabel('Body').inputValue();
      };
      assert.equal(await later(6.9), 'kept a while');
      assert.equal(await later(7.1), '');
      // Fresh again (the clock is real), then the tool's schema changes.
      assert.equal(await later(0), 'kept a while');
      env.guestDir.current = dir2;
      assert.equal(await later(0), '');
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); env.guestDir.current = dir; }
  });

  test('storage that throws: no console error, memory keeps the edits when the host replays the input', async () => {
    env.guestDir.current = dir;
    const h = await host('create_note.html');
    try {
      let f = h.frame();
      assert.equal(await f.evaluate(() => { try { return typeof localStorage; } catch (e) { return 'throws'; } }), 'throws');
      await h.shown(f, 'From model');
      await f.getByLabel('Body').fill('in memory');
      await h.input({ title: 'From model' });
      await f.waitForSelector('text=Your unsent changes were restored.');
      assert.equal(await f.getByLabel('Body').inputValue(), 'in memory');
      // A new frame has nothing to read.
      f = await h.fresh('From model');
      assert.equal(await f.getByLabel('Body').inputValue(), '');
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
  });

  test('window.openai: the draft goes to widget state (no password) and comes back from it', async () => {
    env.guestDir.current = dir;
    const open = async (widgetState) => {
      const { page, errors } = await env.newPage();
      await page.addInitScript((ws) => {
        if (window === window.top) return;
        window.__states = [];
        window.openai = {
          toolInput: { title: 'From ChatGPT' }, toolOutput: null, widgetState: ws,
          setWidgetState(s) { window.__states.push(s); window.openai.widgetState = s; },
          callTool: async () => ({ structuredContent: { ok: true } }),
        };
      }, widgetState);
      await page.goto(`${env.base}/plain.html?src=/guest/create_note.html`);
      await page.waitForFunction(() => document.querySelector('iframe'));
      let f;
      for (let i = 0; i < 50 && !(f = page.frames().find((x) => x !== page.mainFrame())); i++) await new Promise((r) => setTimeout(r, 50));
      await f.waitForFunction(() => document.querySelector('input')?.value === 'From ChatGPT');
      return { page, errors, f };
    };
    const a = await open({ other: 'kept' });
    let state;
    try {
      await a.f.getByLabel('Body').fill('typed in ChatGPT');
      await a.f.getByLabel('Api Key').fill('k-secret');
      state = await a.f.evaluate(() => window.openai.widgetState);
      assert.equal(state.other, 'kept', 'the rest of the widget state stays');
      assert.deepEqual(state['mcp-gen-ui/draft'].v, { title: 'From ChatGPT', body: 'typed in ChatGPT' });
      assert.ok(!JSON.stringify(await a.f.evaluate(() => window.__states)).includes('k-secret'));
      assert.deepEqual(a.errors, []);
    } finally { await a.page.close(); }
    const b = await open(state);
    try {
      await b.f.waitForSelector('text=Your unsent changes were restored.');
      assert.equal(await b.f.getByLabel('Body').inputValue(), 'typed in ChatGPT');
      assert.deepEqual(b.errors, []);
    } finally { await b.page.close(); }
  });
});

describe('input streamed as the model writes it, and a cancelled call', () => {
  test('partials fill a locked form, nothing is sent, the final input replaces them and a draft for it comes back', async () => {
    env.guestDir.current = dir;
    const h = await host('create_note.html', { opts: { sandbox: STORAGE } });
    try {
      let f = h.frame();
      // A draft stored for the final input.
      await h.input({ title: 'Hello world' });
      await f.getByLabel('Body').fill('draft for the final input');
      f = await h.start();
      await h.page.evaluate(() => window.__bridge.sendToolInputPartial({ arguments: { title: 'Hel' } }));
      await f.waitForFunction(() => document.querySelector('input').value === 'Hel');
      assert.ok(await f.evaluate(() => document.getElementById('mcp-form').classList.contains('filling')));
      await f.waitForSelector('text=Filling in as the model writes');
      assert.ok(await f.evaluate(() => [...document.querySelectorAll('#mcp-form input, #mcp-form button')].every((c) => c.disabled)), 'nothing editable');
      assert.equal(await f.getByLabel('Body').inputValue(), '', 'no draft over a partial');
      // A partial the schema refuses is shown, not an error; a malformed one is ignored with a warning.
      await h.page.evaluate(() => window.__bridge.sendToolInputPartial({ arguments: { title: 'Hello', count: 'twelve' } }));
      await f.waitForFunction(() => document.querySelector('input').value === 'Hello');
      assert.equal(await f.locator('.err:not([hidden])').count(), 0);
      await h.raw('ui/notifications/tool-input-partial', { arguments: 'not an object' });
      await h.raw('ui/notifications/tool-input-partial', { arguments: [1, 2] });
      await f.evaluate(() => document.querySelector('button[type=submit]').click());
      assert.equal(await f.getByLabel('Title').inputValue(), 'Hello');
      assert.ok(h.warnings.filter((w) => /tool-input-partial/.test(w)).length >= 2, h.warnings.join('\n'));
      await h.input({ title: 'Hello world' });
      await f.waitForSelector('text=Your unsent changes were restored.');
      assert.equal(await f.getByLabel('Title').inputValue(), 'Hello world');
      assert.equal(await f.getByLabel('Count').inputValue(), '', 'the final input replaced the partial');
      assert.equal(await f.getByLabel('Body').inputValue(), 'draft for the final input');
      assert.ok(await f.evaluate(() => !document.getElementById('mcp-form').inert && !document.querySelector('button[type=submit]').disabled));
      assert.deepEqual(await h.page.evaluate(() => window.__calls), [], 'nothing was sent mid-stream');
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
  });

  test('tool-cancelled shows the call was cancelled and Run works again', async () => {
    env.guestDir.current = dir;
    const h = await host('create_note.html');
    try {
      const f = h.frame();
      await h.page.evaluate(() => window.__bridge.sendToolInputPartial({ arguments: { title: 'Half' } }));
      await f.waitForFunction(() => document.querySelector('input').value === 'Half');
      await h.page.evaluate(() => window.__bridge.sendToolCancelled({ reason: 'user action' }));
      await f.waitForSelector('text=The tool call was cancelled: user action');
      assert.equal(await f.locator('.filling').count(), 0);
      await f.click('button[type=submit]');
      await f.waitForSelector('text=ok');
      assert.deepEqual(await h.page.evaluate(() => window.__calls.map((c) => c.arguments)), [{ title: 'Half' }]);
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
  });
});

const many = (n) => ({ rows: Array.from({ length: n }, (_, i) => ({ id: i + 1, name: 'Row ' + (i + 1), note: 'x'.repeat(20) })) });
const result = (h, sc) => h.page.evaluate((s) => window.__bridge.sendToolResult({ structuredContent: s, content: [] }), sc);

describe('display modes, size, safe areas and touch', () => {
  test('fullscreen is offered for a large result where the host lists it, and the layout follows the granted mode', async () => {
    env.guestDir.current = dir;
    const ctx = { ...CTX, displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'] };
    const h = await host('list_rows.html', { ctx });
    try {
      const f = h.frame();
      await result(h, many(3));
      await f.waitForSelector('text=Row 3');
      assert.equal(await f.locator('button.fs:visible').count(), 0, 'no fullscreen for a small result');
      await result(h, many(40));
      await f.waitForSelector('text=Row 40');
      await f.click('button:has-text("Fullscreen")');
      await f.waitForFunction(() => document.documentElement.getAttribute('data-mode') === 'fullscreen');
      assert.deepEqual(await h.page.evaluate(() => window.__modes), ['fullscreen']);
      assert.equal(await f.evaluate(() => getComputedStyle(document.querySelector('.app')).maxWidth), 'none');
      assert.equal(await f.locator('button.fs').textContent(), 'Exit fullscreen');
      await f.click('button:has-text("Exit fullscreen")');
      await f.waitForFunction(() => document.documentElement.getAttribute('data-mode') === 'inline');
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
    // A host that grants another mode: the layout follows what it granted.
    const g = await host('list_rows.html', { ctx, opts: { grant: 'pip' } });
    try {
      const f = g.frame();
      await result(g, many(40));
      await f.click('button:has-text("Fullscreen")');
      await f.waitForFunction(() => document.documentElement.getAttribute('data-mode') === 'pip');
      assert.equal(await f.evaluate(() => getComputedStyle(document.querySelector('.app')).maxWidth), '960px');
      assert.equal(await f.locator('button.fs').textContent(), 'Fullscreen');
    } finally { await g.page.close(); }
    // A host without fullscreen: no control.
    const n = await host('list_rows.html', { ctx: { ...CTX, availableDisplayModes: ['inline'] } });
    try {
      const f = n.frame();
      await result(n, many(40));
      await f.waitForSelector('text=Row 40');
      assert.equal(await f.locator('button.fs').count(), 0);
    } finally { await n.page.close(); }
  });

  test('containerDimensions.maxHeight scrolls inside, safe areas pad the page, touch makes 44 px controls', async () => {
    env.guestDir.current = dir;
    const ctx = { ...CTX, containerDimensions: { maxHeight: 300, width: 800 }, safeAreaInsets: { top: 20, right: 4, bottom: 30, left: 12 }, deviceCapabilities: { touch: true, hover: false } };
    const h = await host('create_note.html', { ctx });
    try {
      const f = h.frame();
      await result(h, many(60));
      await f.waitForSelector('text=Row 20');
      // The page is at most 300 px tall (what it tells the host) and its content scrolls inside.
      const m = await f.evaluate(() => ({ ch: document.documentElement.getBoundingClientRect().height, sh: document.body.scrollHeight }));
      assert.ok(m.ch <= 300 && m.sh > 300, JSON.stringify(m));
      await h.page.waitForFunction(() => window.__sizes.length && window.__sizes.at(-1).height <= 300);
      const pad = await f.evaluate(() => { const s = getComputedStyle(document.body); return [s.paddingTop, s.paddingRight, s.paddingBottom, s.paddingLeft]; });
      assert.deepEqual(pad, ['20px', '4px', '30px', '12px']);
      const small = await f.evaluate(() => [...document.querySelectorAll('button, input:not([type=checkbox]):not([type=radio]), select, textarea')]
        .filter((e) => e.offsetParent && e.getBoundingClientRect().height < 44).map((e) => e.outerHTML.slice(0, 80)));
      assert.deepEqual(small, []);
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
    // Without touch, controls keep their size.
    const n = await host('create_note.html');
    try {
      assert.ok(await n.frame().evaluate(() => document.querySelector('input').getBoundingClientRect().height < 44));
      assert.equal(await n.frame().evaluate(() => document.documentElement.style.maxHeight), '');
    } finally { await n.page.close(); }
  });

  test('320 px wide: a wide table and long words scroll inside, never the page', async () => {
    env.guestDir.current = dir;
    const h = await host('list_rows.html', { opts: { width: 320 } });
    try {
      const f = h.frame();
      const wide = { rows: [Object.fromEntries(Array.from({ length: 12 }, (_, i) => ['column_number_' + i, 'value-' + 'w'.repeat(30)]))], note: 'Z'.repeat(300) };
      await result(h, wide);
      await f.waitForSelector('text=column number 0 >> nth=0').catch(() => {});
      await f.waitForFunction(() => document.querySelector('table'));
      const m = await f.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
      assert.ok(m.cw <= 320 && m.sw <= m.cw, JSON.stringify(m));
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
  });
});

describe('export through ui/download-file', () => {
  const sc = { rows: [
    { name: 'a,b', note: 'say "hi"', formula: '=SUM(A1:A2)', n: -5, s: '-5', at: '@home', tab: '\tx', cr: 'line1\r\nline2', obj: { a: 1 }, none: null },
    { name: '+1 plan', n: 3.5, extra: true },
  ] };
  test('CSV (RFC 4180, formulas defused, numbers untouched) and JSON as the result holds it', async () => {
    env.guestDir.current = dir;
    const h = await host('list_rows.html', { opts: { caps: { downloadFile: {} } } });
    try {
      const f = h.frame();
      await result(h, sc);
      await f.click('button:has-text("Download CSV")');
      await h.page.waitForFunction(() => window.__downloads.length === 1);
      await f.click('button:has-text("Download JSON")');
      await h.page.waitForFunction(() => window.__downloads.length === 2);
      const [csv, json] = await h.page.evaluate(() => window.__downloads.map((d) => d.contents[0]));
      assert.equal(csv.type, 'resource');
      assert.equal(csv.resource.uri, 'file:///list_rows.csv');
      assert.equal(csv.resource.mimeType, 'text/csv');
      assert.equal(csv.resource.text,
        'name,note,formula,n,s,at,tab,cr,obj,none,extra\r\n'
        + '"a,b","say ""hi""",\'=SUM(A1:A2),-5,\'-5,\'@home,\'\tx,"line1\r\nline2","{""a"":1}",,\r\n'
        + '\'+1 plan,,,3.5,,,,,,,true\r\n');
      assert.equal(json.resource.uri, 'file:///list_rows.json');
      assert.equal(json.resource.mimeType, 'application/json');
      assert.equal(json.resource.text, JSON.stringify(sc, null, 2));
      assert.deepEqual(h.errors, []);
    } finally { await h.page.close(); }
    const n = await host('list_rows.html');
    try {
      await result(n, sc);
      await n.frame().waitForSelector('text=+1 plan');
      assert.equal(await n.frame().locator('button:has-text("Download")').count(), 0, 'no export without downloadFile');
    } finally { await n.page.close(); }
  });
});

describe('drafts on real forms (the kitchen-sink corpus)', () => {
  test('a typed value in each tool with a text field comes back in a re-created frame, without console errors', async () => {
    const tools = JSON.parse(fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'corpus', 'kitchen-sink.tools.json'), 'utf8'));
    const kdir = render(tools);
    env.guestDir.current = kdir;
    let tried = 0;
    try {
      for (const t of tools) {
        const file = t.name + '.html';
        if (!fs.existsSync(path.join(kdir, file))) continue;
        const h = await host(file, { opts: { sandbox: STORAGE } });
        try {
          let f = h.frame();
          await h.input({});
          const sel = '#mcp-form input[type=text]:not([readonly]), #mcp-form textarea';
          if (!(await f.locator(sel).count())) continue;
          tried++;
          await f.locator(sel).first().fill('typed ' + t.name);
          f = await h.start();
          await h.input({});
          await f.waitForSelector('text=Your unsent changes were restored.', { timeout: 5000 }).catch(() => assert.fail(t.name + ': no draft restored'));
          assert.equal(await f.locator(sel).first().inputValue(), 'typed ' + t.name, t.name);
          assert.deepEqual(h.errors, [], t.name);
        } finally { await h.page.close(); }
      }
      assert.ok(tried >= 4, 'tools tried: ' + tried);
    } finally { env.guestDir.current = dir; }
  });
});
