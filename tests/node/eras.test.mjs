// Both MCP eras through `mcp-gen-ui serve`, with the official 2.x TypeScript client
// (@modelcontextprotocol/client 2.4.0) in `auto` mode, pinned to 2026-07-28 and in `legacy`
// (2025) mode, over both host transports (stdio, `serve --http`), against six upstreams made with
// the official 2.x server package (tests/node/fixtures/era-server.mjs): two-era, 2026-07-28-only
// and 2025-only, each over stdio and over streamable HTTP.
//
// For every combination the client does the same things directly and through serve, and the
// answers must be deep-equal except for the permitted UI additions (the tools' `_meta.ui*` keys,
// the `ui://` resources, and the `resources` / extension capability): a client with the MCP Apps
// extension gets the same UI tools and reads the same `ui://` pages whatever its era; a client
// without it sees the upstream unchanged; and when the upstream does not speak the client's era,
// the client fails through serve exactly as it fails directly.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

import { serveBinary, startListening, startServeHttp } from "./serve-helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURE = path.join(here, "fixtures", "era-server.mjs");
const MCP_APP = "text/html;profile=mcp-app";
const UI_CAPS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MCP_APP] } } };
const MODES = { auto: "auto", pinned: { pin: "2026-07-28" }, legacy: "legacy" };

let work;
let stopping = false;
const children = [];
const httpUpstreams = {}; // eras → URL
const serveHttp = {}; // upstream label → serve --http URL

const logs = {}; // what → tail() of that child's output, printed with ERAS_LOGS
async function started(what, starting) {
  const { child, url, tail } = await starting;
  children.push(child);
  logs[what] = tail;
  child.on("exit", (code) => {
    if (!stopping) console.error(`${what} exited (${code}): ${tail().slice(-3000)}`);
  });
  return url;
}

async function startHttpUpstream(eras) {
  return started(`era-server http ${eras}`, startListening(process.execPath, [FIXTURE, "http", eras]));
}

/** The upstream as `--server` or `--url` arguments, and how to reach it directly. */
function upstreamOf(label) {
  const [kind, eras] = label.split("-");
  if (kind === "stdio") return { args: ["--server", `${process.execPath} ${FIXTURE} stdio ${eras}`], stdio: [FIXTURE, "stdio", eras] };
  return { args: ["--url", httpUpstreams[eras]], url: httpUpstreams[eras] };
}

async function startServe(label) {
  const args = [...upstreamOf(label).args, "serve", "--http", "127.0.0.1:0", "--max-sessions", "4", "--session-idle-minutes", "1"];
  return started(`serve --http (${label})`, startServeHttp(args, { cwd: work, env: { MCP_GEN_UI_LOG: process.env.ERAS_LOGS ?? "warn" } }));
}

function transportFor(route, label) {
  const up = upstreamOf(label);
  if (route === "direct") {
    return up.url
      ? new StreamableHTTPClientTransport(new URL(up.url))
      : new StdioClientTransport({ command: process.execPath, args: up.stdio, stderr: "ignore" });
  }
  if (route === "stdio") {
    return new StdioClientTransport({
      command: serveBinary(),
      args: [...up.args, "serve"],
      cwd: work,
      stderr: "ignore",
      env: { ...process.env, MCP_GEN_UI_LOG: "error" },
    });
  }
  return new StreamableHTTPClientTransport(new URL(serveHttp[label]));
}

/** What one client sees of the upstream (or how it failed). */
async function observe(route, label, mode, ui) {
  const client = new Client(
    { name: "eras-test", version: "1.0.0" },
    { capabilities: ui ? UI_CAPS : {}, versionNegotiation: { mode: MODES[mode] } },
  );
  try {
    await client.connect(transportFor(route, label));
  } catch (e) {
    return { failed: { name: e.constructor.name, code: e.code ?? null, message: String(e.message) } };
  }
  try {
    const out = {
      version: client.getNegotiatedProtocolVersion(),
      tools: (await client.listTools()).tools,
      resources: (await client.listResources()).resources,
      templates: (await client.listResourceTemplates()).resourceTemplates,
      prompts: (await client.listPrompts()).prompts,
      add: await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }),
      regional: await client.callTool({ name: "regional", arguments: { region: "eu-west 1 ☀" } }),
      slow: await client.callTool({ name: "slow", arguments: { steps: 3 } }),
      notes: await client.readResource({ uri: "file:///notes.txt" }),
      prompt: await client.getPrompt({ name: "greet", arguments: { who: "Ada" } }),
      unknownTool: await client
        .callTool({ name: "no-such-tool", arguments: {} })
        .then((r) => ({ result: r }), (e) => ({ error: { code: e.code, message: String(e.message) } })),
    };
    out.uiReads = {};
    out.oldReads = {};
    const seen = (read) => ({
      contents: read.contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, size: c.text.length })),
      ttlMs: read.ttlMs,
      cacheScope: read.cacheScope,
    });
    for (const r of out.resources.filter((r) => r.uri.startsWith("ui://"))) {
      out.uiReads[r.uri] = seen(await client.readResource({ uri: r.uri }));
      // A host that kept an older version of the page's URI.
      const old = r.uri.replace(/\?v=[0-9a-f]{8}$/, "?v=00000000");
      out.oldReads[r.uri] = seen(await client.readResource({ uri: old }));
    }
    return out;
  } finally {
    await client.close();
  }
}

/** The JSON-RPC error code of a failure, also when it is inside an HTTP error's body text. */
function rpcCode(failed) {
  if (typeof failed.code === "number") return failed.code;
  const m = failed.message.match(/"code":(-?\d+)/);
  return m ? Number(m[1]) : null;
}

/** The direct view with the UI additions serve makes for a UI client. */
function stripUi(seen) {
  const copy = structuredClone(seen);
  for (const t of copy.tools) {
    if (!t._meta) continue;
    delete t._meta.ui;
    delete t._meta["ui/resourceUri"];
    if (Object.keys(t._meta).length === 0) delete t._meta;
  }
  copy.resources = copy.resources.filter((r) => !r.uri.startsWith("ui://"));
  copy.uiReads = {};
  copy.oldReads = {};
  return copy;
}

/** The URI hosts are given for a page: its name plus `?v=` and 8 hex digits of its bytes' sha256. */
function pageUri(server, dir, file) {
  const sha = createHash("sha256").update(readFileSync(path.join(dir, `${file}.html`))).digest("hex");
  return `ui://${server}/${file}?v=${sha.slice(0, 8)}`;
}

const UPSTREAMS = ["stdio-both", "stdio-modern", "stdio-legacy", "http-both", "http-modern", "http-legacy"];

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "mcp-gen-ui-eras-"));
  // Our own client against a 2026-07-28-only upstream writes the UIs (and the lock) that serve
  // then serves to every era.
  execFileSync(serveBinary(), ["--server", `${process.execPath} ${FIXTURE} stdio modern`, "generate"], {
    cwd: work,
    stdio: "pipe",
  });
  for (const eras of ["both", "modern", "legacy"]) httpUpstreams[eras] = await startHttpUpstream(eras);
  for (const label of UPSTREAMS) serveHttp[label] = await startServe(label);
});

after(() => {
  stopping = true;
  if (process.env.ERAS_LOGS) for (const [k, v] of Object.entries(logs)) console.error(`--- ${k}\n${v().slice(-4000)}`);
  for (const c of children) c.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

test("generate against a 2026-07-28-only upstream records nothing era-specific", () => {
  // The same tools listed over the 2025 handshake hash the same: generate is up to date.
  const out = execFileSync(serveBinary(), ["--server", `${process.execPath} ${FIXTURE} stdio legacy`, "generate"], {
    cwd: work,
    encoding: "utf8",
    stdio: "pipe",
  });
  assert.match(out, /Up to date: 3 tools/);
  const lock = readFileSync(path.join(work, "ui", "mcp-gen-ui.lock"), "utf8");
  assert.doesNotMatch(lock, /2026-07-28|2025-|protocol/i);
});

for (const label of UPSTREAMS) {
  for (const route of ["stdio", "http"]) {
    for (const mode of Object.keys(MODES)) {
      for (const ui of mode === "auto" ? [true, false] : [true]) {
        test(`${mode} client${ui ? " with the UI extension" : ""}, serve over ${route}, ${label} upstream`, async () => {
          const direct = await observe("direct", label, mode, ui);
          const through = await observe(route, label, mode, ui);
          if (direct.failed) {
            const both = JSON.stringify({ direct: direct.failed, through: through.failed });
            assert.ok(through.failed, `direct failed but through serve it worked: ${both}`);
            if (route === "stdio" && label.startsWith("http-") && typeof direct.failed.code !== "number" && rpcCode(direct.failed) !== null) {
              // Over stdio there is no HTTP status: the host gets the JSON-RPC error the HTTP
              // upstream answered with (directly, the client reports it inside an HTTP error).
              assert.equal(through.failed.code, rpcCode(direct.failed), both);
              return;
            }
            assert.deepEqual(through.failed, direct.failed);
            return;
          }
          assert.ok(!through.failed, `through serve: ${JSON.stringify(through.failed)}`);
          if (!ui) {
            assert.deepEqual(through, direct);
            return;
          }
          // Only the permitted additions differ.
          assert.deepEqual(stripUi(through), stripUi(direct));
          const uiTools = through.tools.filter((t) => t._meta?.ui?.resourceUri);
          assert.deepEqual(uiTools.map((t) => t.name).sort(), ["add", "regional", "slow"]);
          const lock = readFileSync(path.join(work, "ui", "mcp-gen-ui.lock"), "utf8");
          const modern = through.version === "2026-07-28";
          for (const t of uiTools) {
            const uri = t._meta.ui.resourceUri;
            assert.equal(uri, pageUri("era-fixture", path.join(work, "ui"), t.name));
            assert.ok(lock.includes(`uri = "${uri}"`), `${uri} is not in the lock:\n${lock}`);
            assert.equal(t._meta["ui/resourceUri"], uri);
            const read = through.uiReads[uri];
            assert.equal(read?.contents?.[0]?.mimeType, MCP_APP, t.name);
            assert.equal(read.contents[0].uri, uri);
            assert.ok(read.contents[0].size > 1000);
            // An old version reads the same page, under the URI asked for.
            const old = through.oldReads[uri];
            assert.equal(old.contents[0].uri, uri.replace(/\?v=.*$/, "?v=00000000"));
            assert.equal(old.contents[0].size, read.contents[0].size);
            if (modern) {
              // The current version may be kept until its URI changes; an old one not at all.
              assert.deepEqual([read.ttlMs, read.cacheScope], [31536000000, "private"], t.name);
              assert.deepEqual([old.ttlMs, old.cacheScope], [0, "private"], t.name);
            } else {
              assert.deepEqual([read.ttlMs, read.cacheScope, old.ttlMs], [undefined, undefined, undefined], t.name);
            }
          }
        });
      }
    }
  }
}

// The rmcp example server (a Rust server that speaks both eras) with the committed example UIs.
const WEATHER = path.resolve(here, "..", "..", "target", "debug", "weather-server");
const WEATHER_UI = path.resolve(here, "..", "..", "examples", "weather", "ui");

async function observeWeather(route, mode, ui) {
  const transport =
    route === "direct"
      ? new StdioClientTransport({ command: WEATHER, stderr: "ignore" })
      : new StdioClientTransport({
          command: serveBinary(),
          args: ["--server", WEATHER, "--out-dir", WEATHER_UI, "serve"],
          stderr: "ignore",
          env: { ...process.env, MCP_GEN_UI_LOG: "error" },
        });
  const client = new Client(
    { name: "eras-test", version: "1.0.0" },
    { capabilities: ui ? UI_CAPS : {}, versionNegotiation: { mode: MODES[mode] } },
  );
  await client.connect(transport);
  try {
    const out = {
      version: client.getNegotiatedProtocolVersion(),
      tools: (await client.listTools()).tools,
      forecast: await client.callTool({ name: "get_forecast", arguments: { city: "Paris", days: 2 } }),
      // The server has no resources capability: what the client makes of that.
      resources: await client
        .listResources()
        .then((r) => r.resources.map((x) => x.uri), (e) => ({ error: e.code ?? e.constructor.name })),
    };
    return out;
  } finally {
    await client.close();
  }
}

for (const mode of Object.keys(MODES)) {
  test(`${mode} client and the rmcp weather server (both eras) through serve over stdio`, async () => {
    const direct = await observeWeather("direct", mode, true);
    const through = await observeWeather("stdio", mode, true);
    assert.equal(through.version, direct.version);
    assert.deepEqual(through.forecast, direct.forecast);
    const stripped = stripUi({ tools: through.tools, resources: [], uiReads: {} }).tools;
    assert.deepEqual(stripped, direct.tools);
    const uris = through.tools.map((t) => t._meta.ui.resourceUri);
    assert.deepEqual(uris, through.tools.map((t) => pageUri("weather", WEATHER_UI, t.name)));
    assert.ok(!Array.isArray(direct.resources) || direct.resources.length === 0, JSON.stringify(direct.resources));
    assert.deepEqual(through.resources.sort(), uris.sort());
    const plain = await observeWeather("stdio", mode, false);
    assert.deepEqual(plain.tools, direct.tools);
    assert.deepEqual(plain.resources, direct.resources);
  });
}
