// The registry suite's servers for Node tests: the manifest tests/fixtures/registry-servers.json,
// what tests/registry/install.sh recorded in tests/registry/.status, and each server's command
// line (started without network where `unshare -rn` works), plus generating a project for one
// with the real CLI. Shared by every suite that tests against the world's servers.
// book: installation.md ("Servers we test against").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, BIN } from './lib.mjs';
import { tempDir } from './tmp.mjs';

const DIR = path.join(REPO, 'tests', 'registry');
export const MANIFEST = path.join(REPO, 'tests', 'fixtures', 'registry-servers.json');

// {npm: null | 'why skipped', pypi: …}; every registry skipped with one reason when install.sh never ran.
function status() {
  const file = path.join(DIR, '.status');
  if (!fs.existsSync(file)) return { missing: 'not installed here: run `bash tests/registry/install.sh` (tests/run-all.sh does)' };
  const out = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i < 0) continue;
    const v = line.slice(i + 1).trim();
    out[line.slice(0, i).trim()] = v === 'ok' ? null : v.replace(/^skip:\s*/, '');
  }
  return out;
}

let offline;
// ['unshare', '-rn'] when this kernel lets an unprivileged user drop the network, else [].
export function offlinePrefix() {
  if (offline === undefined) {
    offline = spawnSync('unshare', ['-rn', 'true']).status === 0 ? ['unshare', '-rn'] : [];
    if (!offline.length) console.log('# note: `unshare -rn` is not available here; the registry servers start with the network');
  }
  return offline;
}

// Every server of the manifest: {name, pinned, env, expect, why, cmd} plus skip (a reason: its
// registry is not installed) or broken (installed, yet its command is missing: a failure).
export function registryServers() {
  const doc = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  const st = status();
  return doc.servers.map((s) => {
    const scratch = tempDir('mcp-gen-ui-registry-scratch-');
    const cmd = s.command.map((a) => a
      .replace('{npm}', path.join(DIR, 'node_modules', '.bin'))
      .replace('{venv}', path.join(DIR, '.venv', 'bin'))
      .replace('{scratch}', scratch));
    const server = { name: s.name, pinned: `${s.package}@${s.version}`, env: s.env || {}, expect: s.expect, why: s.why, cmd };
    const why = st.missing || (s.registry in st ? st[s.registry] : `install.sh recorded nothing for ${s.registry}`);
    if (why) server.skip = why;
    else if (!fs.existsSync(cmd[0])) server.broken = `${s.registry} installed, but ${cmd[0]} is missing`;
    else server.cmd = [...offlinePrefix(), ...cmd];
    return server;
  });
}

function quote(s) { return /^[\w@%+=:,./-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

// The CLI in project `dir`, against `server` when given (its dummy keys through --env NAME=VALUE).
function cli(dir, args, server) {
  const up = server ? ['--config', 'timeout.toml', '--server', server.cmd.map(quote).join(' '),
    ...Object.entries(server.env).flatMap(([k, v]) => ['--env', `${k}=${v}`])] : [];
  const r = spawnSync(BIN, [...args, '--out-dir', 'ui', ...up], { cwd: dir, encoding: 'utf8', timeout: 180000 });
  if (r.status !== 0) throw new Error(`mcp-gen-ui ${args.join(' ')} (${dir}) exited with ${r.status ?? r.signal}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

// Generates a project for `server`: {dir (its ui/), tools (tools/list as the CLI recorded it),
// pages (tool name → page file, from the lock through `list`)}.
export function generateFor(server) {
  const dir = tempDir(`mcp-gen-ui-registry-${server.name}-`);
  // A Python server takes seconds to import on a loaded CI machine: more than the default 10 s.
  fs.writeFileSync(path.join(dir, 'timeout.toml'), '[upstream]\ntimeout_ms = 90000\n');
  cli(dir, ['generate'], server);
  const ui = path.join(dir, 'ui');
  const tools = JSON.parse(fs.readFileSync(path.join(ui, 'mcp-gen-ui.tools.json'), 'utf8'));
  const list = JSON.parse(cli(dir, ['list', '--format', 'json']));
  const pages = Object.fromEntries(list.map((e) => [e.tool, e.files && e.files[0]]));
  return { dir: ui, tools, pages };
}

// A value the schema accepts with only the required properties given, checked by `ajv` at every
// branch choice: `anyOf`/`oneOf` take the first branch whose value the whole node accepts, and a
// `$ref` keeps its target's keywords (siblings add to them). `fallback(schema, root)` (lib.mjs's
// sample) gives the scalars, and the whole value when this one is not accepted.
export function requiredSample(schema, ajv, fallback) {
  const root = schema || { type: 'object' };
  const withDefs = (s) => (s && typeof s === 'object' ? { ...s, $defs: root.$defs, definitions: root.definitions, $schema: undefined, $id: undefined } : s);
  const accepts = (s, v) => { try { return ajv.validate(withDefs(s), v); } catch { return false; } };
  const resolve = (ref) => ref.replace(/^#\/?/, '').split('/').filter(Boolean)
    .reduce((t, p) => t && t[decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~')], root);
  function go(s, depth) {
    if (s === true || s == null || typeof s !== 'object' || depth > 14) return 'x';
    if (s.$ref) {
      const { $ref, ...rest } = s;
      return go({ ...(resolve($ref) || {}), ...rest }, depth + 1);
    }
    if ('const' in s) return s.const;
    if (s.default !== undefined && accepts(s, s.default)) return s.default;
    if (Array.isArray(s.examples) && s.examples.length && accepts(s, s.examples[0])) return s.examples[0];
    if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
    if (Array.isArray(s.allOf) && s.allOf.length) {
      const { allOf, ...m } = s;
      for (const part of allOf) {
        const r = part.$ref ? resolve(part.$ref) || {} : part;
        m.properties = { ...m.properties, ...r.properties };
        m.required = [...(m.required || []), ...(r.required || [])];
        for (const k of Object.keys(r)) if (!(k in m)) m[k] = r[k];
      }
      return go(m, depth + 1);
    }
    const alts = s.oneOf || s.anyOf;
    if (Array.isArray(alts) && alts.length) {
      const { oneOf, anyOf, ...base } = s;
      const ordered = [...alts.filter((a) => a.type !== 'null'), ...alts.filter((a) => a.type === 'null')];
      for (const alt of ordered) {
        const v = go(alt, depth + 1);
        const merged = base.properties && v && typeof v === 'object' && !Array.isArray(v) ? { ...go({ ...base, type: 'object' }, depth + 1), ...v } : v;
        if (accepts(s, merged)) return merged;
      }
      return go(ordered[0], depth + 1);
    }
    let t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    if (!t) t = s.properties || s.required ? 'object' : s.items ? 'array' : 'string';
    if (t === 'object') {
      const out = {};
      for (const k of s.required || []) out[k] = go((s.properties || {})[k] ?? true, depth + 1);
      return out;
    }
    if (t === 'array') {
      // A tuple: one value per position (2020-12 prefixItems, draft-07 items as a list).
      const tuple = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : null;
      if (tuple) return tuple.map((x) => go(x, depth + 1));
      const n = Math.max(s.minItems || 0, 1);
      return Array.from({ length: n }, (_, i) => { const v = go(s.items || {}, depth + 1); return s.uniqueItems && typeof v !== 'object' ? `${v}${i}` : v; });
    }
    return fallback(s, root);
  }
  const v = go(root, 0);
  return accepts(root, v) ? v : fallback(root, root);
}
