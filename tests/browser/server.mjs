// Static 127.0.0.1 server for the browser suite: the host page (real AppBridge from npm), the
// generated guest files under the default MCP Apps CSP header, and node_modules as browser ES
// modules (bare import specifiers are rewritten to resolved /nm/ paths, since no bundler is used).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const NM = path.resolve(here, '..', 'node_modules');
export const DEFAULT_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";
const CONDITIONS = ['browser', 'import', 'module', 'default'];

function pick(target) {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) { for (const t of target) { const r = pick(t); if (r) return r; } return null; }
  if (target && typeof target === 'object') {
    for (const c of CONDITIONS) if (c in target) { const r = pick(target[c]); if (r) return r; }
  }
  return null;
}

// Node-style resolution of a bare specifier from an importing file, preferring browser/ESM builds.
export function resolveBare(spec, fromFile) {
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const sub = '.' + spec.slice(name.length);
  for (let dir = path.dirname(fromFile); ; dir = path.dirname(dir)) {
    const pkgDir = path.join(dir, 'node_modules', name);
    const self = path.join(dir, 'package.json');
    let root = null;
    if (fs.existsSync(path.join(pkgDir, 'package.json'))) root = pkgDir;
    else if (fs.existsSync(self) && JSON.parse(fs.readFileSync(self, 'utf8')).name === name) root = dir;
    if (root) {
      const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
      let rel = null;
      if (pkg.exports) {
        const ex = typeof pkg.exports === 'string' || Array.isArray(pkg.exports) || !Object.keys(pkg.exports).some((k) => k.startsWith('.'))
          ? { '.': pkg.exports } : pkg.exports;
        rel = pick(ex[sub]);
        if (!rel) {
          for (const k of Object.keys(ex)) {
            if (k.endsWith('*') && sub.startsWith(k.slice(0, -1))) { const t = pick(ex[k]); if (t) rel = t.replace('*', sub.slice(k.length - 1)); }
          }
        }
      } else rel = sub === '.' ? (pkg.module || pkg.main || 'index.js') : sub;
      if (!rel) throw new Error(`cannot resolve ${spec} from ${fromFile}`);
      return path.join(root, rel);
    }
    if (dir === path.dirname(dir)) throw new Error(`package ${name} not found from ${fromFile}`);
  }
}

function rewrite(code, file) {
  return code.replace(/(\bfrom\s*|\bimport\s*\(?\s*|\bexport\s*\*\s*from\s*)(["'])([^"'\s]+)\2/g, (m, pre, q, spec) => {
    if (/^(\.|\/|[a-z]+:)/.test(spec)) return m;
    try {
      const target = resolveBare(spec, file);
      return pre + q + '/nm/' + path.relative(NM, target).split(path.sep).join('/') + q;
    } catch { return m; }
  });
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.cjs': 'text/javascript', '.json': 'application/json' };

const NM_CACHE = new Map();

// guestDir: directory of generated HTML files, served at /guest/<file> with the default CSP.
export function startServer(guestDir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const send = (code, type, body, headers = {}) => { res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', ...headers }); res.end(body); };
    try {
      if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
      // A parent page that never answers MCP Apps (like a ChatGPT Apps SDK frame).
      if (url.pathname === '/plain.html') return send(200, TYPES['.html'], '<!doctype html><title>plain</title><iframe sandbox="allow-scripts" style="width:800px;height:600px" src="' + encodeURI(url.searchParams.get('src') || '') .replace(/"/g, '%22') + '"></iframe>');
      // An empty same-origin page for scripted hosts (MCP-UI's renderer, raw postMessage hosts).
      if (url.pathname === '/blank.html') return send(200, TYPES['.html'], '<!doctype html><meta charset="utf-8"><title>host</title><body></body>');
      if (url.pathname === '/host.html') return send(200, TYPES['.html'], fs.readFileSync(path.join(here, 'host.html')));
      if (url.pathname === '/host.js') return send(200, TYPES['.js'], rewrite(fs.readFileSync(path.join(here, 'host.js'), 'utf8'), path.join(here, 'host.js')));
      if (url.pathname.startsWith('/guest/')) {
        const file = path.join(guestDir.current, decodeURIComponent(url.pathname.slice(7)));
        if (!file.startsWith(guestDir.current) || !fs.existsSync(file)) return send(404, 'text/plain', 'not found');
        return send(200, TYPES['.html'], fs.readFileSync(file), { 'content-security-policy': DEFAULT_CSP });
      }
      if (url.pathname.startsWith('/nm/')) {
        const file = path.join(NM, decodeURIComponent(url.pathname.slice(4)));
        if (!file.startsWith(NM) || !fs.existsSync(file)) return send(404, 'text/plain', 'not found');
        const ext = path.extname(file);
        // The installed packages do not change during a run: each module is rewritten once and
        // the browser may keep it, so that a new host page does not fetch and rewrite the host
        // SDK's hundreds of modules again (that was most of a page's load time).
        let body = NM_CACHE.get(file);
        if (body === undefined) {
          body = ext.match(/js$/) ? rewrite(fs.readFileSync(file, 'utf8'), file) : fs.readFileSync(file);
          NM_CACHE.set(file, body);
        }
        return send(200, TYPES[ext] || 'application/octet-stream', body, { 'cache-control': 'max-age=3600' });
      }
      send(404, 'text/plain', 'not found');
    } catch (e) { send(500, 'text/plain', String(e && e.stack || e)); }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}
