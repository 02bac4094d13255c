// Three `mcp-gen-ui serve --http` replicas behind nginx, with the committed
// examples/deploy/nginx.conf (only its ports replaced), driven by the official TypeScript client
// in both eras: 2025 handshake sessions (routed back to their replica by the replica tag in
// `Mcp-Session-Id`) and 2026-07-28 stateless requests (any replica). One replica is killed
// mid-run: every later call is answered; a session that lived on the dead replica costs exactly
// one 404 and a re-initialize.
//
// nginx is Debian's (`apt-get install nginx`; tests/run-all.sh installs it when missing). It runs
// unprivileged-port, on 127.0.0.1 only, with its own prefix and config in a temporary directory.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

import { freePort, startServeHttp, waitForPort } from "./serve-helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const FIXTURE = path.join(here, "fixtures", "era-server.mjs");
const CONF = path.join(repo, "examples", "deploy", "nginx.conf");
const TOKEN = "replicas-test-token";
const MODES = { legacy: "legacy", stateless: { pin: "2026-07-28" } };

let work;
let stopping = false;
let nginxUrl;
const replicas = {}; // r1… → { child, addr, log }
const others = [];

function nginxBinary() {
  for (const p of ["/usr/sbin/nginx", "/usr/bin/nginx"]) if (existsSync(p)) return p;
  try {
    return execFileSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("nginx is missing: install Debian's (`sudo apt-get install nginx`); tests/run-all.sh does");
  }
}

async function startReplica(id) {
  const args = ["--server", `${process.execPath} ${FIXTURE} stdio both`, "serve", "--http", "127.0.0.1:0", "--replica-id", id, "--trusted-proxy", "127.0.0.1"];
  const { child, url } = await startServeHttp(args, { cwd: work, env: { MCP_GEN_UI_TOKEN: TOKEN } });
  replicas[id] = { child, addr: new URL(url).host };
}

async function startNginx() {
  const port = await freePort();
  const prefix = path.join(work, "nginx");
  mkdirSync(path.join(prefix, "tmp"), { recursive: true });
  let conf = readFileSync(CONF, "utf8");
  ["r1", "r2", "r3"].forEach((id, i) => {
    conf = conf.replaceAll(`127.0.0.1:${3001 + i};`, `${replicas[id].addr};`);
    conf = conf.replaceAll(`127.0.0.1:${3001 + i} backup;`, `${replicas[id].addr} backup;`);
  });
  const live = conf.split("\n").filter((l) => !l.trim().startsWith("#")).join("\n");
  assert.doesNotMatch(live, /:300[123]\b/, "every replica port was replaced");
  conf = conf.replace("listen 127.0.0.1:8080;", `listen 127.0.0.1:${port};`);
  const confPath = path.join(prefix, "nginx.conf");
  writeFileSync(confPath, conf);
  const child = spawn(nginxBinary(), ["-p", `${prefix}/`, "-c", confPath, "-e", "stderr", "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  others.push(child);
  let log = "";
  child.stderr.on("data", (d) => (log = (log + d.toString()).slice(-20000)));
  child.on("exit", (code) => {
    if (!stopping) console.error(`nginx exited (${code}): ${log}`);
  });
  // Ready when it accepts connections.
  await waitForPort(port, { timeoutMs: 20_000, what: () => `nginx: ${log}` });
  nginxUrl = `http://127.0.0.1:${port}/mcp`;
}

/** A connected client of `era` through nginx. */
async function connect(era) {
  const client = new Client({ name: `replicas-${era}`, version: "1.0.0" }, { versionNegotiation: { mode: MODES[era] } });
  const transport = new StreamableHTTPClientTransport(new URL(nginxUrl), {
    requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return { client, transport, era };
}

/** The replica a session lives on (from its id), or null for a stateless client. */
function replicaOf(host) {
  const sid = host.transport.sessionId;
  return sid ? sid.split(".")[0] : null;
}

async function add(host, a, b) {
  const r = await host.client.callTool({ name: "add", arguments: { a, b } });
  return r.structuredContent?.sum ?? JSON.parse(r.content?.[0]?.text ?? "null");
}

function isNotFound(e) {
  return e?.status === 404 || e?.data?.status === 404 || /\b404\b|unknown or expired Mcp-Session-Id/.test(String(e?.message));
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "mcp-gen-ui-replicas-"));
  await Promise.all(["r1", "r2", "r3"].map(startReplica));
  await startNginx();
});

after(async () => {
  stopping = true;
  for (const r of Object.values(replicas)) r.child.kill("SIGTERM");
  for (const c of others) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  if (work) rmSync(work, { recursive: true, force: true });
});

test("both eras through nginx over 3 replicas; one replica dies mid-run and every later call is answered", async () => {
  // The tool's answer as the upstream gives it, directly.
  const expected = (a, b) => a + b;
  const hosts = [];
  for (let i = 0; i < 6; i++) hosts.push(await connect("legacy"));
  for (let i = 0; i < 3; i++) hosts.push(await connect("stateless"));
  // Sessions are spread over the replicas and tagged with theirs; stateless clients have none.
  const placed = hosts.filter((h) => h.era === "legacy").map(replicaOf);
  assert.deepEqual([...new Set(placed)].sort(), ["r1", "r2", "r3"], `sessions: ${placed}`);
  for (const h of hosts.filter((h) => h.era === "stateless")) assert.equal(replicaOf(h), null);
  for (const [i, h] of hosts.entries()) assert.equal(await add(h, i, 100), expected(i, 100), `before, host ${i}`);

  // Kill one replica (and with it its sessions).
  const victim = "r2";
  const onVictim = hosts.filter((h) => replicaOf(h) === victim).length;
  assert.ok(onVictim >= 1);
  replicas[victim].child.kill("SIGKILL");
  await new Promise((resolve) => replicas[victim].child.once("exit", resolve));

  let notFound = 0;
  let reinitialized = 0;
  for (let round = 0; round < 3; round++) {
    for (const [i, h] of hosts.entries()) {
      const [a, b] = [round * 10 + i, 7];
      let got;
      try {
        got = await add(h, a, b);
      } catch (e) {
        // Only a session of the dead replica may fail, once, with 404; it initializes again.
        assert.equal(h.era, "legacy", `a stateless call failed: ${e}`);
        assert.equal(replicaOf(h), victim, `a session on a live replica failed: ${e}`);
        assert.ok(isNotFound(e), `expected 404, got: ${e?.status ?? ""} ${e}`);
        notFound++;
        await h.client.close().catch(() => {});
        const fresh = await connect(h.era);
        Object.assign(h, fresh);
        reinitialized++;
        assert.notEqual(replicaOf(h), victim);
        got = await add(h, a, b);
      }
      assert.equal(got, expected(a, b), `round ${round}, host ${i}`);
    }
  }
  assert.equal(notFound, onVictim, "each session of the dead replica cost one 404");
  assert.equal(reinitialized, onVictim);
  for (const h of hosts) await h.client.close().catch(() => {});
});
