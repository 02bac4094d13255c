// What a host sees: the official TypeScript SDK client, over real pipes, calling
// server-everything's `echo` straight and through `mcp-gen-ui serve` (same upstream), interleaved
// so machine noise hits both alike; over stdio, five fresh pairs of processes, pooled. Prints
// median and p90 per call, the ratio and the absolute difference, for stdio (serve in front of a stdio upstream) and for streamable HTTP (`serve --http`
// in front of server-everything's HTTP transport, against that server direct).
//
//   node tests/tools/bench-host.mjs [CALLS] [--bin PATH] [--rows]
//
// PATH defaults to target/release/mcp-gen-ui (build it with `cargo build --release`).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const args = process.argv.slice(2);
const binAt = args.indexOf("--bin");
const bin = binAt >= 0 ? args[binAt + 1] : path.join(repo, "target", "release", "mcp-gen-ui");
const calls = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--bin") ?? 2000);
const everything = path.join(repo, "tests", "node_modules", ".bin", "mcp-server-everything");
for (const f of [bin, everything]) {
  if (!fs.existsSync(f)) {
    console.error(`bench-host: ${f} is missing (cargo build --release; npm ci in tests/)`);
    process.exit(2);
  }
}

const UI_CAPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };

async function stdioClient(command, cmdArgs) {
  const client = new Client({ name: "bench-host", version: "1.0.0" }, { capabilities: UI_CAPS });
  const transport = new StdioClientTransport({ command, args: cmdArgs, stderr: "ignore", env: { ...process.env, MCP_GEN_UI_LOG: "error" } });
  await client.connect(transport);
  return client;
}

async function httpClient(url) {
  const client = new Client({ name: "bench-host", version: "1.0.0" }, { capabilities: UI_CAPS });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Starts a process that prints a listening address on stderr or stdout; resolves with the URL. */
function startHttp(command, cmdArgs, pattern, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, cmdArgs, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let seen = "";
    const onData = (d) => {
      seen += d.toString();
      const m = seen.match(pattern);
      if (m) resolve({ child, url: m[1] });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${command} exited ${code}: ${seen}`)));
    setTimeout(() => reject(new Error(`${command} did not start: ${seen}`)), 20000).unref();
  });
}

async function timeCalls(client, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    const r = await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (!r.content?.length) throw new Error("echo returned no content");
  }
  return out;
}

function freePort() {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** Times `calls` calls a side, interleaved; `pairs()` opens a fresh [direct, through] pair of
 * clients for each of `sets` sets (where the OS places fresh processes changes a run's figure by
 * ±15 µs on a 2-core machine, so the samples of several sets are pooled). */
async function compare(label, pairs, sets = 1) {
  const d = [];
  const t = [];
  for (let s = 0; s < sets; s++) {
    const [direct, through] = await pairs();
    // Warm both well: a fresh Node server keeps getting faster for its first few hundred calls.
    await timeCalls(direct, 500);
    await timeCalls(through, 500);
    // Short rounds, many of them: a burst of machine noise lands on both sides alike.
    const perRound = 20;
    for (let r = 0; r < Math.ceil(calls / sets / perRound); r++) {
      d.push(...(await timeCalls(direct, perRound)));
      t.push(...(await timeCalls(through, perRound)));
    }
    await direct.close();
    await through.close();
  }
  const dm = pct(d, 0.5);
  const tm = pct(t, 0.5);
  return {
    label,
    calls: d.length,
    direct: `${dm.toFixed(3)} / ${pct(d, 0.9).toFixed(3)}`,
    through: `${tm.toFixed(3)} / ${pct(t, 0.9).toFixed(3)}`,
    ratio: (tm / dm).toFixed(2),
    added: `${((tm - dm) * 1000).toFixed(0)} µs`,
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-host-"));
const rows = [];
try {
  // The UIs serve would show (generated once; serve reads them at start-up).
  const gen = spawn(bin, ["generate", "--quiet", "--server", everything, "--out-dir", path.join(dir, "ui")], { stdio: "inherit" });
  await new Promise((res, rej) => gen.on("exit", (c) => (c === 0 ? res() : rej(new Error(`generate exited ${c}`)))));
  const serveArgs = ["serve", "--out-dir", path.join(dir, "ui"), "--server", everything];

  const stdioPair = async () => [await stdioClient(everything, []), await stdioClient(bin, serveArgs)];
  rows.push(await compare("stdio", stdioPair, 5));

  const port = await freePort();
  const upUrl = `http://127.0.0.1:${port}/mcp`;
  const up = await startHttp(everything, ["streamableHttp"], /listening on port (\d+)/, { PORT: String(port) }).catch((e) => {
    console.error(`bench-host: server-everything over HTTP: ${e.message}`);
    return null;
  });
  const sv = up
    ? await startHttp(bin, ["serve", "--out-dir", path.join(dir, "ui"), "--url", upUrl, "--http", "127.0.0.1:0"], /listening on (http:\/\/[^\s]+)/i).catch((e) => {
        console.error(`bench-host: serve --http: ${e.message}`);
        return null;
      })
    : null;
  if (up && sv) {
    rows.push(await compare("streamable HTTP", async () => [await httpClient(upUrl), await httpClient(sv.url)]));
  } else {
    rows.push({ label: "streamable HTTP", calls: 0, direct: "n/a", through: "n/a", ratio: "n/a", added: "n/a" });
  }
  up?.child.kill();
  sv?.child.kill();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (args.includes("--rows")) {
  for (const r of rows) {
    const target = r.label === "stdio" ? "at most +100 µs" : "—";
    console.log(`| \`serve\` over ${r.label}, official TS SDK client (server-everything \`echo\`, ms median / p90) | ${r.direct} direct, ${r.through} through serve: +${r.added}, ratio ${r.ratio} | ${target} |`);
  }
} else {
  console.log(`tools/call echo through mcp-gen-ui serve, official TS SDK client, ${calls} calls each, interleaved (ms: median / p90)`);
  console.log("| transport | calls | direct | through serve | ratio | added at the median |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.label} | ${r.calls} | ${r.direct} | ${r.through} | ${r.ratio} | ${r.added} |`);
}
process.exit(0);
