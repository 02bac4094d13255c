// The protocol behaviours the official conformance suite's server scenarios exercise through a
// proxy — sampling, elicitation, progress, logging, sessions, resources, prompts — run against
// @modelcontextprotocol/server-everything directly and through ONE long-lived `serve --http`
// instance, several rounds in a row, with the official TypeScript SDK client (the 2025 era,
// where server→client requests travel on the upstream's GET stream). Every round must see exactly
// what the direct run sees; sessions are ended with DELETE; the session cap holds under a burst,
// names the limit and the setting, and frees up after DELETE. (The conformance CLI itself needs
// Node 22; these are its server scenarios written with the SDK client, which runs on Node 20.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { everythingBinary, freePort, startServeHttp, waitForPort } from "./serve-helpers.mjs";

const ROUNDS = 4;
const MAX_SESSIONS = 3;
let work;
const children = [];
let upstreamUrl;
let serveUrl;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "serve-scenarios-"));
  mkdirSync(path.join(work, "ui"));
  const up = await freePort();
  const everything = spawn(everythingBinary(), ["streamableHttp"], {
    env: { ...process.env, PORT: String(up) },
    stdio: "ignore",
  });
  children.push(everything);
  await waitForPort(up);
  upstreamUrl = `http://127.0.0.1:${up}/mcp`;
  // The burst test checks the 503 at the cap: no session may become evictable (idle past
  // --session-evict-seconds) while it runs, however slow the machine.
  const serve = await startServeHttp([
    "--url", upstreamUrl, "--out-dir", path.join(work, "ui"), "serve", "--http", "127.0.0.1:0",
    "--max-sessions", String(MAX_SESSIONS), "--session-evict-seconds", "3600", "--allow-stale",
  ]);
  children.push(serve.child);
  serveUrl = serve.url;
});

after(() => {
  for (const c of children) c.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

async function connect(url) {
  const seen = { sampling: [], elicitation: [], logs: 0, progress: [] };
  const client = new Client(
    { name: "scenarios", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    seen.sampling.push(req.params.messages[0].content);
    return { model: "m", role: "assistant", stopReason: "endTurn", content: { type: "text", text: "sampled" } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    seen.elicitation.push(req.params.message);
    return { action: "accept", content: { color: "red", number: 5, pets: "cats" } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, () => {
    seen.logs++;
  });
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    seen.progress.push(n.params.progress);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport, seen };
}

const raw = (client, method, params = {}, options = {}) => client.request({ method, params }, ResultSchema, options);

/** What the conformance server scenarios look at, for one session. */
async function scenarios(url) {
  const { client, transport, seen } = await connect(url);
  try {
    const out = {};
    out.sessionId = typeof transport.sessionId === "string" && transport.sessionId.length > 0;
    out.tools = (await raw(client, "tools/list")).tools.map((t) => t.name).sort();
    out.sampling = await raw(client, "tools/call", {
      name: "trigger-sampling-request",
      arguments: { prompt: "hello", maxTokens: 10 },
    });
    out.elicitation = await raw(client, "tools/call", { name: "trigger-elicitation-request", arguments: {} });
    out.progress = await raw(
      client,
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 }, _meta: { progressToken: "pt" } },
    );
    await raw(client, "logging/setLevel", { level: "debug" });
    out.resources = (await raw(client, "resources/list")).resources.slice(0, 3);
    out.read = await raw(client, "resources/read", { uri: out.resources[0].uri });
    out.templates = (await raw(client, "resources/templates/list")).resourceTemplates;
    out.prompts = (await raw(client, "prompts/list")).prompts;
    out.prompt = await raw(client, "prompts/get", { name: "simple-prompt", arguments: {} });
    out.ping = await raw(client, "ping");
    out.seen = { sampling: seen.sampling, elicitation: seen.elicitation.length, progress: seen.progress };
    return out;
  } finally {
    // Ends the session with DELETE, then closes.
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}

test(`${ROUNDS} rounds of the server scenarios through one serve --http match the direct runs`, async () => {
  const direct = await scenarios(upstreamUrl);
  assert.equal(direct.seen.sampling.length, 1);
  assert.equal(direct.seen.elicitation, 1);
  assert.deepEqual(direct.seen.progress, [1, 2, 3]);
  // More rounds than the session cap: DELETE must free each round's session.
  for (let round = 1; round <= ROUNDS; round++) {
    const through = await scenarios(serveUrl);
    assert.deepEqual(through, direct, `round ${round}`);
  }
});

test("the session cap holds under a burst, says so, and DELETE frees a slot", async () => {
  const init = (i) =>
    fetch(serveUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: i,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "burst", version: "1" } },
      }),
    });
  const answers = await Promise.all(Array.from({ length: MAX_SESSIONS + 3 }, (_, i) => init(i)));
  const opened = answers.filter((r) => r.ok);
  const refused = answers.filter((r) => r.status === 503);
  assert.equal(opened.length, MAX_SESSIONS);
  assert.equal(refused.length, 3);
  const body = await refused[0].json();
  assert.match(body.error.message, new RegExp(`limit is ${MAX_SESSIONS}`));
  assert.match(body.error.message, /--max-sessions/);
  assert.match(body.error.message, /\[serve\] max_sessions/);
  assert.match(body.error.message, /DELETE/);
  for (const r of opened) await r.text();
  const ids = opened.map((r) => r.headers.get("mcp-session-id"));
  // Ending one session frees exactly one slot.
  const del = await fetch(serveUrl, { method: "DELETE", headers: { "mcp-session-id": ids[0] } });
  assert.equal(del.status, 200);
  const again = await fetch(serveUrl, { method: "DELETE", headers: { "mcp-session-id": ids[0] } });
  assert.equal(again.status, 404);
  const next = await init(99);
  assert.equal(next.status, 200);
  ids[0] = next.headers.get("mcp-session-id");
  await next.text();
  assert.equal((await init(100)).status, 503);
  for (const id of ids) {
    assert.equal((await fetch(serveUrl, { method: "DELETE", headers: { "mcp-session-id": id } })).status, 200);
  }
});

test("an MCP-Protocol-Version the server does not know is refused like the SDK servers do", async () => {
  for (const url of [upstreamUrl, serveUrl]) {
    const { transport, client } = await connect(url);
    const r = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId,
        "mcp-protocol-version": "1999-01-01",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(r.status, 400, url);
    assert.match((await r.json()).error.message, /Unsupported protocol version/);
    await transport.terminateSession();
    await client.close();
  }
});
