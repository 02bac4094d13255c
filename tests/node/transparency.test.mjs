// Transparency of `mcp-gen-ui serve`: the official TypeScript SDK client talks to the real
// @modelcontextprotocol/server-everything directly and through `serve`, with and without the MCP
// Apps extension, and the answers must be deep-equal except for the permitted UI additions (the
// tools' `_meta.ui*` keys and the `ui://` resources). Notifications, progress and server→client
// requests (sampling, elicitation) must make the round trip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ProgressNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { serveBinary, everythingBinary, canonicalJson, sha256Hex, startServeHttp } from "./serve-helpers.mjs";

const MCP_APP = "text/html;profile=mcp-app";
const UI_TOOL = "get-sum";
const UI_HTML = "<!doctype html><title>sum</title><p>sum UI</p>";
// The URI hosts are given: the page's name plus `?v=` and 8 hex digits of its bytes' sha256.
const UI_URI = `ui://everything/${UI_TOOL}?v=${sha256Hex(UI_HTML).slice(0, 8)}`;

let work;

/** A ui/ with one UI (for `get-sum`) whose lock matches the live tool definition. */
async function writeUi(dir) {
  const probe = await connect({ through: false, ui: false });
  const tools = await listAll(probe, "tools/list", "tools");
  await probe.close();
  const tool = tools.find((t) => t.name === UI_TOOL);
  assert.ok(tool, `server-everything has no ${UI_TOOL}`);
  const hashed = {};
  for (const k of ["name", "title", "description", "inputSchema", "outputSchema", "annotations"]) {
    if (k in tool) hashed[k] = tool[k];
  }
  const out = path.join(dir, "ui");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, `${UI_TOOL}.html`), UI_HTML);
  const lock = `version = 1
generator = "builtin"
fingerprint = "test"
validator_version = 1
server_name = "everything"

[tools.${UI_TOOL}]
tool_hash = "${sha256Hex(canonicalJson(hashed))}"
config_hash = "test"

[[tools.${UI_TOOL}.widgets]]
name = "default"
path = "${UI_TOOL}.html"
sha256 = "${sha256Hex(UI_HTML)}"
generator = "builtin"
template_version = "1"
ui_type = "rich"
default = true
`;
  writeFileSync(path.join(out, "mcp-gen-ui.lock"), lock);
  return out;
}

const seen = { sampling: 0, elicitation: 0, logs: 0, progress: [] };

async function connect({ through, ui }) {
  const capabilities = { sampling: {}, elicitation: {} };
  if (ui) capabilities.extensions = { "io.modelcontextprotocol/ui": { mimeTypes: [MCP_APP] } };
  const client = new Client({ name: "transparency-test", version: "1.0.0" }, { capabilities });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    seen.sampling++;
    return {
      model: "test-model",
      role: "assistant",
      stopReason: "endTurn",
      content: { type: "text", text: `sampled: ${JSON.stringify(req.params.messages[0].content)}` },
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    seen.elicitation++;
    return { action: "decline" };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, () => {
    seen.logs++;
  });
  // Counted raw: the SDK's own `onprogress` drops a progress notification that shares a read
  // chunk with the final response (it dispatches notifications a microtask later).
  client.setNotificationHandler(ProgressNotificationSchema, (n) => {
    seen.progress.push(n.params);
  });
  const server = everythingBinary();
  const transport = through
    ? new StdioClientTransport({
        command: serveBinary(),
        args: ["serve", "--server", server, "--out-dir", path.join(work, "ui")],
        env: { ...process.env, MCP_GEN_UI_LOG: "warn" },
        stderr: "inherit",
      })
    : new StdioClientTransport({ command: server, args: ["stdio"], env: { ...process.env }, stderr: "ignore" });
  await client.connect(transport);
  return client;
}

async function raw(client, method, params = {}, options = {}) {
  return client.request({ method, params }, ResultSchema, options);
}

async function listAll(client, method, key) {
  const all = [];
  let cursor;
  const pages = [];
  do {
    const r = await raw(client, method, cursor ? { cursor } : {});
    pages.push(r);
    all.push(...r[key]);
    cursor = r.nextCursor;
  } while (cursor);
  return all;
}

/** Removes exactly the UI keys serve may add to a tool. */
function withoutUiMeta(tools, direct) {
  return tools.map((t) => {
    const d = direct.find((x) => x.name === t.name);
    if (!t._meta) return t;
    const copy = structuredClone(t);
    delete copy._meta.ui;
    delete copy._meta["ui/resourceUri"];
    if (d && d._meta && d._meta.ui) copy._meta.ui = d._meta.ui;
    if (Object.keys(copy._meta).length === 0 && !(d && d._meta)) delete copy._meta;
    return copy;
  });
}

const CALLS = [
  ["echo", { message: "héllo <b>wörld</b>" }],
  ["get-sum", { a: 2, b: 40 }],
  ["get-structured-content", { location: "New York" }],
  ["get-tiny-image", {}],
  ["get-annotated-message", { messageType: "error", includeImage: true }],
  ["get-resource-links", { count: 3 }],
  ["get-resource-reference", { resourceType: "Text", resourceId: 2 }],
  ["no-such-tool", {}],
];

/** Server-everything stamps some texts with the wall-clock time: the one part allowed to differ. */
function untimed(v) {
  return JSON.parse(JSON.stringify(v).replace(/\d{1,2}:\d{2}:\d{2}\s?[AP]M/g, "<time>"));
}

async function snapshot(client) {
  const out = {
    init: {
      serverInfo: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    },
    tools: await listAll(client, "tools/list", "tools"),
    resources: await listAll(client, "resources/list", "resources"),
    templates: await listAll(client, "resources/templates/list", "resourceTemplates"),
    prompts: await listAll(client, "prompts/list", "prompts"),
    calls: [],
  };
  out.read = await raw(client, "resources/read", { uri: out.resources[0].uri });
  out.prompt = await raw(client, "prompts/get", { name: out.prompts[0].name, arguments: {} }).catch((e) => ({
    error: e.code,
  }));
  const withArgs = out.prompts.find((p) => p.arguments && p.arguments.length > 0);
  out.completion = withArgs
    ? await raw(client, "completion/complete", {
        ref: { type: "ref/prompt", name: withArgs.name },
        argument: { name: withArgs.arguments[0].name, value: "" },
      }).catch((e) => ({ error: e.code }))
    : null;
  for (const [name, args] of CALLS) {
    out.calls.push(await raw(client, "tools/call", { name, arguments: args }).catch((e) => ({ error: e.code })));
  }
  return untimed(out);
}

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "serve-transparency-"));
  await writeUi(work);
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * Connects to the upstream direct and through serve (both with the UI extension or both without,
 * `ui`), snapshots each, and runs `check(direct's, serve's, the client through serve)`; both
 * clients are closed after, whatever happens.
 */
async function withBoth(ui, check) {
  const direct = await connect({ through: false, ui });
  const through = await connect({ through: true, ui });
  try {
    await check(await snapshot(direct), await snapshot(through), through);
  } finally {
    await direct.close();
    await through.close();
  }
}

test("without the UI extension, serve answers exactly like the upstream", () =>
  withBoth(false, async (a, b) => {
    assert.deepEqual(b.init, a.init);
    assert.deepEqual(b.tools, a.tools);
    assert.deepEqual(b.resources, a.resources);
    assert.ok(!b.resources.some((r) => r.uri.startsWith("ui://")));
    assert.deepEqual(b.templates, a.templates);
    assert.deepEqual(b.prompts, a.prompts);
    assert.deepEqual(b.read, a.read);
    assert.deepEqual(b.prompt, a.prompt);
    assert.deepEqual(b.completion, a.completion);
    assert.ok(a.completion, "server-everything has a prompt with arguments to complete");
    assert.deepEqual(b.calls, a.calls);
  }));

test("with the UI extension, only the UI additions differ", () =>
  withBoth(true, async (a, b, through) => {
    assert.deepEqual(b.init, a.init);
    const sum = b.tools.find((t) => t.name === UI_TOOL);
    assert.equal(sum._meta.ui.resourceUri, UI_URI);
    assert.equal(sum._meta["ui/resourceUri"], UI_URI);
    for (const t of b.tools.filter((t) => t.name !== UI_TOOL)) {
      assert.deepEqual(t, a.tools.find((x) => x.name === t.name));
    }
    assert.deepEqual(withoutUiMeta(b.tools, a.tools), a.tools);
    const ours = b.resources.filter((r) => r.uri.startsWith("ui://"));
    assert.deepEqual(ours.map((r) => [r.uri, r.mimeType]), [[UI_URI, MCP_APP]]);
    assert.deepEqual(b.resources.filter((r) => !r.uri.startsWith("ui://")), a.resources);
    assert.deepEqual(b.templates, a.templates);
    assert.deepEqual(b.prompts, a.prompts);
    assert.deepEqual(b.read, a.read);
    assert.deepEqual(b.calls, a.calls);
    const html = await raw(through, "resources/read", { uri: UI_URI });
    assert.equal(html.contents[0].text, UI_HTML);
    assert.equal(html.contents[0].mimeType, MCP_APP);
  }));

test("progress, logging, sampling and elicitation make the round trip through serve", async () => {
  const through = await connect({ through: true, ui: true });
  try {
    const done = await raw(through, "tools/call", {
      name: "trigger-long-running-operation",
      arguments: { duration: 1, steps: 3 },
      _meta: { progressToken: "progress-42" },
    });
    assert.ok(done.content[0].text.includes("completed"), JSON.stringify(done));
    const deadline0 = Date.now() + 5000;
    while (seen.progress.length < 3 && Date.now() < deadline0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(
      seen.progress.map((p) => [p.progressToken, p.progress, p.total]),
      [["progress-42", 1, 3], ["progress-42", 2, 3], ["progress-42", 3, 3]],
    );

    const before = { ...seen };
    const sampled = await raw(through, "tools/call", {
      name: "trigger-sampling-request",
      arguments: { prompt: "say hi", maxTokens: 10 },
    });
    assert.equal(seen.sampling, before.sampling + 1);
    assert.ok(JSON.stringify(sampled).includes("sampled:"), JSON.stringify(sampled));

    const elicited = await raw(through, "tools/call", { name: "trigger-elicitation-request", arguments: {} });
    assert.equal(seen.elicitation, before.elicitation + 1);
    assert.ok(JSON.stringify(elicited).toLowerCase().includes("decline"), JSON.stringify(elicited));

    await raw(through, "logging/setLevel", { level: "debug" });
    await raw(through, "tools/call", { name: "toggle-simulated-logging", arguments: {} });
    const deadline = Date.now() + 10000;
    while (seen.logs === before.logs && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(seen.logs > before.logs, "no log notification arrived through serve");
  } finally {
    await through.close();
  }
});

test("over streamable HTTP, sessions carry progress and server→client requests", async () => {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const serve = await startServeHttp(["serve", "--http", "127.0.0.1:0", "--server", everythingBinary(), "--out-dir", path.join(work, "ui")]);
  const proc = serve.child;
  try {
    const url = serve.url;
    const capabilities = {
      sampling: {},
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MCP_APP] } },
    };
    const client = new Client({ name: "http-test", version: "1.0.0" }, { capabilities });
    let sampled = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      sampled++;
      return { model: "m", role: "assistant", content: { type: "text", text: "over http" } };
    });
    const progress = [];
    client.setNotificationHandler(ProgressNotificationSchema, (n) => progress.push(n.params.progress));
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const tools = await listAll(client, "tools/list", "tools");
    assert.equal(tools.find((t) => t.name === UI_TOOL)._meta.ui.resourceUri, UI_URI);
    const html = await raw(client, "resources/read", { uri: UI_URI });
    assert.equal(html.contents[0].text, UI_HTML);
    await raw(client, "tools/call", {
      name: "trigger-long-running-operation",
      arguments: { duration: 0.6, steps: 3 },
      _meta: { progressToken: "http-progress" },
    });
    const deadline = Date.now() + 5000;
    while (progress.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(progress, [1, 2, 3]);
    const r = await raw(client, "tools/call", {
      name: "trigger-sampling-request",
      arguments: { prompt: "hi", maxTokens: 5 },
    });
    assert.equal(sampled, 1);
    assert.ok(JSON.stringify(r).includes("over http"), JSON.stringify(r));
    await client.close();
  } finally {
    proc.kill("SIGTERM");
  }
});
