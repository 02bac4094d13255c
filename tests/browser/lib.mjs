// Shared parts of the browser suite: building the Rust binaries, generating UIs for a real server,
// talking to that server, sample arguments from a schema, and chromium.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '..', '..');
export const TARGET = process.env.CARGO_TARGET_DIR || path.join(REPO, 'target');
export const BIN = process.env.MCP_GEN_UI_BIN || path.join(TARGET, 'debug', 'mcp-gen-ui');
// Dev aids of the main package (render-tool, the benches).
export const EXAMPLES = path.join(TARGET, 'debug', 'examples');
// The example servers: bins of the mcp-gen-ui-examples package (sources in examples/).
export const SERVERS = path.join(TARGET, 'debug');

let built = false;
// The same build as tests/run-all.sh: the CLI, the example servers and the dev aids (a no-op after it).
export function buildRust() {
  if (built || process.env.MCP_GEN_UI_SKIP_BUILD) return;
  const r = spawnSync('cargo', ['build', '-q', '--workspace', '--all-targets', '--all-features'], { cwd: REPO, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('cargo build failed');
  built = true;
}

export function exampleServer(name) {
  const p = path.join(SERVERS, name);
  return fs.existsSync(p) ? [p] : null;
}

export function everythingServer() {
  return [process.execPath, path.join(REPO, 'tests', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'), 'stdio'];
}

export async function connect(cmd) {
  const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'ignore' });
  const client = new Client({ name: 'mcp-gen-ui-browser-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

function quote(s) { return /^[\w@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

// Generates the UIs with the real CLI when it has `generate`; before that command exists, with the
// render-tool dev example over the server's own tools/list. Returns {dir, tools}.
export async function generate(cmd, label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-gen-ui-' + label + '-'));
  // Run inside the temporary folder: a first run writes its project config into the working
  // directory (book: configuration.md), which must not be the repository.
  const cli = spawnSync(BIN, ['generate', '--server', cmd.map(quote).join(' '), '--out-dir', dir], { encoding: 'utf8', timeout: 120000, cwd: dir });
  const snap = path.join(dir, 'mcp-gen-ui.tools.json');
  let tools;
  if (cli.status === 0 && fs.existsSync(snap)) {
    tools = JSON.parse(fs.readFileSync(snap, 'utf8'));
  } else {
    const client = await connect(cmd);
    tools = (await client.listTools()).tools;
    await client.close();
    const f = path.join(dir, 'tools.input.json');
    fs.writeFileSync(f, JSON.stringify(tools));
    execFileSync(path.join(EXAMPLES, 'render-tool'), [f, dir]);
  }
  return { dir, tools, viaCli: cli.status === 0 };
}

export function fileStem(name) {
  if (/^[a-z0-9_-]{1,64}$/.test(name)) return name;
  throw new Error('fileStem: only plain names are computed here: ' + name);
}

export function ajv() {
  const a = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(a);
  return a;
}

// A valid instance of a schema: defaults, examples, enums and bounds first, then type-based values.
export function sample(schema, root = schema, depth = 0, required = true) {
  if (depth > 12 || schema === true || schema == null) return 'x';
  if (schema.$ref) {
    const parts = schema.$ref.replace(/^#\/?/, '').split('/').filter(Boolean);
    let t = root;
    for (const p of parts) t = t && t[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    return sample({ ...t, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) }, root, depth + 1, required);
  }
  if (schema.allOf) {
    const m = { ...schema };
    delete m.allOf;
    for (const s of schema.allOf) {
      const r = s.$ref ? sampleSchemaResolve(s, root) : s;
      m.properties = { ...m.properties, ...r.properties };
      m.required = [...(m.required || []), ...(r.required || [])];
      for (const k of Object.keys(r)) if (!(k in m)) m[k] = r[k];
    }
    return sample(m, root, depth + 1, required);
  }
  if ('const' in schema) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const alts = schema.oneOf || schema.anyOf;
  if (alts) {
    const alt = alts.find((a) => a.type !== 'null') || alts[0];
    const base = { ...schema };
    delete base.oneOf;
    delete base.anyOf;
    return sample({ ...base, ...alt, properties: { ...base.properties, ...alt.properties }, required: [...(base.required || []), ...(alt.required || [])] }, root, depth + 1, required);
  }
  let t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (!t) t = schema.properties ? 'object' : schema.items ? 'array' : 'string';
  switch (t) {
    case 'string': {
      const f = { date: '2024-05-01', 'date-time': '2024-05-01T10:00:00.000Z', time: '10:00:00Z', email: 'a@example.com', uri: 'https://example.com/', url: 'https://example.com/', uuid: '123e4567-e89b-12d3-a456-426614174000' }[schema.format];
      if (f) return f;
      let s = 'sample';
      if (schema.minLength) s = s.padEnd(schema.minLength, 'x');
      if (schema.maxLength != null) s = s.slice(0, schema.maxLength);
      return s;
    }
    case 'integer':
    case 'number': {
      let v = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
      if (typeof schema.maximum === 'number' && v > schema.maximum) v = schema.maximum;
      if (typeof schema.multipleOf === 'number') v = Math.ceil(v / schema.multipleOf) * schema.multipleOf;
      return t === 'integer' ? Math.ceil(v) : v;
    }
    case 'boolean': return true;
    case 'null': return null;
    case 'array': {
      const n = Math.max(schema.minItems || 0, 1);
      const items = Array.from({ length: n }, (_, i) => {
        const v = sample(schema.items || {}, root, depth + 1);
        return schema.uniqueItems && typeof v === 'string' ? v + i : schema.uniqueItems && typeof v === 'number' ? v + i : v;
      });
      return items;
    }
    case 'object': {
      const out = {};
      const req = schema.required || [];
      for (const [k, s] of Object.entries(schema.properties || {})) {
        if (req.includes(k)) out[k] = sample(s, root, depth + 1);
      }
      return out;
    }
    default: return 'x';
  }
}
function sampleSchemaResolve(s, root) {
  const parts = s.$ref.replace(/^#\/?/, '').split('/').filter(Boolean);
  let t = root;
  for (const p of parts) t = t && t[p];
  return t || {};
}

// Short leaf values of a result that must be visible on the page.
export function leaves(v, out = [], depth = 0) {
  if (out.length >= 4 || depth > 6) return out;
  if (typeof v === 'string') { if (v.trim()) out.push(v); }
  else if (typeof v === 'number' || typeof v === 'boolean') out.push(String(v));
  else if (Array.isArray(v)) v.slice(0, 2).forEach((x) => leaves(x, out, depth + 1));
  else if (v && typeof v === 'object') Object.values(v).slice(0, 4).forEach((x) => leaves(x, out, depth + 1));
  return out;
}

// Letters and digits only, so markdown rendering and whitespace do not matter.
export function norm(s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, ''); }

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

// Chromium plus the static server; openApp() loads one generated file into the AppBridge host.
export async function launch() {
  const { chromium } = await import('playwright-core');
  const { startServer } = await import('./server.mjs');
  const guestDir = { current: '' };
  const http = await startServer(guestDir);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const base = `http://127.0.0.1:${http.port}`;
  async function newPage() {
    const page = await browser.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    return { page, errors };
  }
  async function openApp(file, opts = {}) {
    const { page, errors } = await newPage();
    await page.exposeFunction('hostCallTool', opts.onCall || (async () => ({ content: [{ type: 'text', text: 'ok' }] })));
    await page.goto(`${base}/host.html`);
    await page.waitForFunction(() => typeof window.startHost === 'function');
    const ctx = opts.hostContext || { theme: 'light', platform: 'web', locale: 'en-US', styles: { variables: { '--font-sans': 'sans-serif' } } };
    await page.evaluate(([src, c]) => window.startHost(src, c), [`/guest/${file}`, ctx]);
    await page.waitForFunction(() => window.__initialized, null, { timeout: 15000 });
    await page.evaluate(() => window.__initialized);
    const frame = page.frames().find((f) => f.url().includes('/guest/'));
    return { page, frame, errors };
  }
  return { browser, http, base, guestDir, newPage, openApp, close: async () => { await browser.close(); http.server.close(); } };
}

// axe-core (tests/node_modules) in a frame: the serious and critical violations, one line each.
const AXE = path.join(REPO, 'tests', 'node_modules', 'axe-core', 'axe.min.js');
export async function axeSerious(frame) {
  if (!(await frame.evaluate(() => typeof window.axe === 'object'))) await frame.addScriptTag({ content: fs.readFileSync(AXE, 'utf8') });
  const r = await frame.evaluate(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations'] });
    return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.split('\n').slice(1, 2).join('') : '')).join('; ')})`);
  });
  return r;
}

export function memoryServer(file) {
  return ['/usr/bin/env', 'MEMORY_FILE_PATH=' + file, process.execPath, path.join(REPO, 'tests', 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js')];
}

// The official MCP time server (PyPI mcp-server-time), installed by tests/run-all.sh into a
// gitignored venv; null when it is not installed here.
export function timeServer() {
  const p = path.join(REPO, 'tests', '.venv-time', 'bin', 'mcp-server-time');
  return fs.existsSync(p) ? [p, '--local-timezone', 'Europe/Paris'] : null;
}

// tests/fixtures/servers/backoffice.py (a FastMCP-style server: the Python SDK's MCPServer and
// Pydantic) with the Python of tests/.venv-time, where mcp-server-time brings the `mcp` package;
// null when it is not installed here.
export function backofficeServer() {
  const py = path.join(REPO, 'tests', '.venv-time', 'bin', 'python');
  return fs.existsSync(py) ? [py, path.join(REPO, 'tests', 'fixtures', 'servers', 'backoffice.py')] : null;
}
