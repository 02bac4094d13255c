// `mcp-gen-ui preview` end to end: the real binary, the real fixture server as upstream, real
// headless chromium. The main flow: page → sandboxed iframe → host page → preview server →
// upstream → result shown on the page. Also the security promises of the book's reference/security.md (token, Origin,
// Host), checked with raw HTTP and with a hostile page in the same browser.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const targetDir = process.env.CARGO_TARGET_DIR || path.join(repo, "target");
const BIN = process.env.MCP_GEN_UI_BIN || path.join(targetDir, "debug", "mcp-gen-ui");
const FIXTURE = path.join(targetDir, "debug", "fixture-server");
const SERVER = `${JSON.stringify(FIXTURE)} --mode ok`;
const EXT_APPS = path.join(here, "..", "node_modules", "@modelcontextprotocol", "ext-apps", "dist", "src", "app-with-deps.js");

let dir;
let preview; // { child, url, origin, token, stderr() }
let browser;

function startPreview(cwd, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ["preview", "--no-open", "--server", SERVER, ...extra], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`preview printed no URL in 30 s; stderr:\n${err}`)), 30000);
    child.stderr.on("data", (d) => { err += d; });
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^Preview: (http:\/\/127\.0\.0\.1:\d+\/\?token=([0-9a-f]+))$/m);
      if (m) {
        clearTimeout(timer);
        const url = new URL(m[1]);
        resolve({ child, url: m[1], origin: url.origin, port: Number(url.port), token: m[2], stderr: () => err, stdout: () => out });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`preview exited with ${code} before printing its URL; stderr:\n${err}`));
    });
  });
}

function stop(p) {
  return new Promise((resolve) => {
    if (!p || p.child.exitCode !== null) return resolve(p && p.child.exitCode);
    const timer = setTimeout(() => p.child.kill("SIGKILL"), 10000);
    p.child.on("exit", (code) => { clearTimeout(timer); resolve(code); });
    p.child.kill("SIGTERM");
  });
}

/** A raw HTTP request, so Host and Origin can be anything (fetch would not allow that). */
function raw(port, { method = "GET", path: p = "/", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: p, headers }, (res) => {
      let data = "";
      res.on("data", (d) => { data += d; });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: data }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// A hand-written MCP App speaking the raw protocol: handshake, then on tool-input it calls the
// tool through the host, shows the result, reports its size, sends a message and a log line,
// and proves its CSP by trying to reach the network itself.
const RAW_APP = `<!doctype html>
<html><head><meta charset="utf-8"><title>raw test app</title></head>
<body><h1>raw test app</h1>
<div id="out">waiting</div><div id="theme"></div><div id="toolresult"></div><div id="fetch">not tried</div>
<form id="form"><input id="q" value="typed"><button id="go">Go</button></form><div id="formout"></div><div id="submitted">no</div>
<script>
var pending = {}, next = 0;
function send(m) { window.parent.postMessage(m, "*"); }
function request(method, params) {
  return new Promise(function (resolve) { var id = ++next; pending[id] = resolve; send({ jsonrpc: "2.0", id: id, method: method, params: params }); });
}
function text(r) { return r && r.content && r.content[0] ? r.content[0].text : JSON.stringify(r); }
window.addEventListener("message", function (e) {
  if (e.source !== window.parent) return;
  var m = e.data;
  if (m.id !== undefined && !m.method) { var p = pending[m.id]; delete pending[m.id]; if (p) p(m); return; }
  if (m.method === "ui/notifications/tool-input") {
    var said = (m.params.arguments && m.params.arguments.text) || "";
    request("tools/call", { name: "echo", arguments: { text: "from the app " + said } }).then(function (r) {
      document.getElementById("out").textContent = r.error ? "error: " + r.error.message : text(r.result);
    });
  } else if (m.method === "ui/notifications/tool-result") {
    document.getElementById("toolresult").textContent = text(m.params);
  } else if (m.method === "ui/notifications/host-context-changed") {
    if (m.params.theme) document.getElementById("theme").textContent = m.params.theme;
  } else if (m.method === "ui/resource-teardown") {
    send({ jsonrpc: "2.0", id: m.id, result: {} });
  }
});
document.getElementById("form").addEventListener("submit", function (e) {
  e.preventDefault();
  document.getElementById("submitted").textContent = "yes";
});
document.getElementById("go").addEventListener("click", function () {
  request("tools/call", { name: "echo", arguments: { text: "form " + document.getElementById("q").value } }).then(function (r) {
    document.getElementById("formout").textContent = text(r.result);
  });
});
request("ui/initialize", { protocolVersion: "2026-01-26", appInfo: { name: "raw-test-app", version: "1.0.0" }, appCapabilities: {} })
  .then(function (r) {
    document.getElementById("theme").textContent = r.result.hostContext.theme;
    send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: 321 } });
    send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "raw app says hello" } });
    request("ui/message", { role: "user", content: [{ type: "text", text: "a message from the raw app" }] });
    request("ui/open-link", { url: "https://example.com/docs" });
    var target = location.href.replace(/\\/frame\\?.*/, "/rpc") + location.search;
    fetch(target, { method: "POST", body: "{}" }).then(
      function (resp) { document.getElementById("fetch").textContent = "reached the server: " + resp.status; },
      function () { document.getElementById("fetch").textContent = "blocked"; });
  });
</script></body></html>
`;

// The same flow written against the reference SDK's App class (npm @modelcontextprotocol/ext-apps),
// inlined as a module: the host must be compatible with the real guest implementation.
function sdkApp() {
  const lib = fs.readFileSync(EXT_APPS, "utf8");
  const m = lib.match(/export\s*\{([^}]*)\};?\s*$/);
  assert.ok(m, "app-with-deps.js ends with an export list");
  const names = m[1].split(",").map((s) => s.trim().split(/\s+as\s+/)).map(([local, exported]) => `${exported || local}: ${local}`);
  const body = lib.slice(0, m.index) + `\nconst __ext = { ${names.join(", ")} };\n`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>sdk test app</title></head>
<body><h1>sdk test app</h1><div id="out">waiting</div><div id="theme"></div><div id="host"></div><div id="toolresult"></div>
<script type="module">
${body.replace(/<\/script/gi, "<\\/script")}
const app = new __ext.App({ name: "sdk-test-app", version: "1.0.0" });
app.ontoolinput = async () => {
  const r = await app.callServerTool({ name: "echo", arguments: { text: "via the SDK" } });
  document.getElementById("out").textContent = r.content[0].text;
};
app.ontoolresult = (r) => { document.getElementById("toolresult").textContent = r.content[0].text; };
app.onhostcontextchanged = (ctx) => { if (ctx.theme) document.getElementById("theme").textContent = ctx.theme; };
await app.connect();
document.getElementById("host").textContent = app.getHostVersion().name + " " + app.getHostContext().theme;
</script></body></html>
`;
}

before(async () => {
  for (const f of [BIN, FIXTURE]) {
    assert.ok(fs.existsSync(f), `${f} is missing: run \`cargo build --workspace --all-targets --all-features\` first`);
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-gen-ui-preview-"));
  const gen = spawnSync(BIN, ["generate", "--server", SERVER], { cwd: dir, encoding: "utf8" });
  assert.equal(gen.status, 0, `generate failed:\n${gen.stderr}`);
  preview = await startPreview(dir);
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  if (browser) await browser.close();
  await stop(preview);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("the generated UI is loaded in a sandboxed iframe under the MCP Apps CSP", async () => {
  const page = await browser.newPage();
  try {
    await page.goto(preview.url);
    const frame = page.locator("iframe#app");
    assert.equal(await frame.getAttribute("sandbox"), "allow-scripts");
    assert.match(await page.locator("#tool").innerText(), /echo/);
    assert.match(await page.locator("#tool-info").innerText(), /Echoes its arguments back\.\s*read-only/);
    const src = await frame.getAttribute("src");
    const resp = await raw(preview.port, { path: "/" + src, headers: { host: `127.0.0.1:${preview.port}` } });
    assert.equal(resp.status, 200);
    assert.equal(resp.body, fs.readFileSync(path.join(dir, "ui", "echo.html"), "utf8"));
    assert.equal(resp.headers["content-security-policy"],
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'");
    // Every generated UI starts the handshake, whatever its generator.
    await page.locator('#log li[data-dir="app → host"][data-what^="ui/initialize"]').first().waitFor({ timeout: 10000 });
    // The generated form itself calls the tool through the host and shows the upstream's answer.
    await page.locator("#status").filter({ hasText: "connected to the app" }).waitFor({ timeout: 10000 });
    const ui = page.frameLocator("iframe#app");
    await ui.getByRole("textbox").first().fill("hello builtin");
    await ui.getByRole("button", { name: "Run" }).click();
    await page.locator("#result").filter({ hasText: 'echo called with {"text":"hello builtin"}' }).waitFor({ timeout: 10000 });
    await ui.locator("body").filter({ hasText: "hello builtin" }).waitFor({ timeout: 10000 });
  } finally {
    await page.close();
  }
});

test("a tool called by the UI reaches the upstream and its result is shown", async () => {
  fs.writeFileSync(path.join(dir, "ui", "echo.html"), RAW_APP);
  const page = await browser.newPage();
  try {
    const callsBefore = (preview.stderr().match(/preview: tools\/call echo: ok/g) || []).length;
    await page.goto(preview.url);
    const app = page.frameLocator("iframe#app");
    // Inside the sandboxed frame: the app got the upstream's answer to its own tools/call.
    await app.locator("#out").filter({ hasText: 'echo called with {"text":"from the app "}' }).waitFor({ timeout: 15000 });
    // On the host page: the same result, and the JSON-RPC log of the whole path.
    assert.match(await page.locator("#result").innerText(), /echo called with \{"text":"from the app "\}/);
    for (const [dir_, what] of [["app → host", "tools/call"], ["host → upstream", "tools/call"], ["upstream → host", "result"], ["host → app", "result"]]) {
      assert.ok(await page.locator(`#log li[data-dir="${dir_}"][data-what^="${what}"]`).count() > 0, `log has ${dir_} ${what}`);
    }
    assert.ok((preview.stderr().match(/preview: tools\/call echo: ok/g) || []).length > callsBefore, "the preview server forwarded the call");
    // The protocol around it: size, messages, logs, open-link (shown, not followed), CSP.
    await page.waitForFunction(() => document.querySelector("iframe#app").style.height === "321px");
    const fromApp = await page.locator("#from-app").innerText();
    assert.match(fromApp, /message: a message from the raw app/);
    assert.match(fromApp, /log info: raw app says hello/);
    assert.match(fromApp, /open-link \(not opened\): https:\/\/example\.com\/docs/);
    await app.locator("#fetch").filter({ hasText: "blocked" }).waitFor({ timeout: 5000 });
    assert.equal(new URL(page.url()).host, `127.0.0.1:${preview.port}`, "the page did not navigate");

    // The frame is sandboxed like the reference host's (allow-scripts only): a click handler
    // works, but form submission is blocked before any submit event fires.
    await app.locator("#go").click();
    await app.locator("#formout").filter({ hasText: 'echo called with {"text":"form typed"}' }).waitFor({ timeout: 10000 });
    assert.equal(await app.locator("#submitted").innerText(), "no", "a sandboxed form must not submit");
    assert.equal(await page.locator("iframe#app").getAttribute("sandbox"), "allow-scripts");

    // Theme toggle reaches the app as host-context-changed.
    assert.equal(await app.locator("#theme").innerText(), "light");
    await page.click("#theme");
    await app.locator("#theme").filter({ hasText: "dark" }).waitFor({ timeout: 5000 });

    // The host's own call (as a model would): tool-input, tools/call upstream, tool-result.
    await page.fill("#args", '{"text": "from the host"}');
    await page.click("#call");
    await app.locator("#toolresult").filter({ hasText: 'echo called with {"text":"from the host"}' }).waitFor({ timeout: 10000 });
    await app.locator("#out").filter({ hasText: 'from the app from the host' }).waitFor({ timeout: 10000 });
  } finally {
    await page.close();
  }
});

test("the reference SDK's App works against the preview host", async () => {
  fs.writeFileSync(path.join(dir, "ui", "echo.html"), sdkApp());
  const page = await browser.newPage();
  try {
    await page.goto(preview.url + "&theme=dark");
    const app = page.frameLocator("iframe#app");
    await app.locator("#host").filter({ hasText: "mcp-gen-ui-preview dark" }).waitFor({ timeout: 15000 });
    await app.locator("#out").filter({ hasText: 'echo called with {"text":"via the SDK"}' }).waitFor({ timeout: 15000 });
    assert.match(await page.locator("#result").innerText(), /via the SDK/);
    await page.click("#theme");
    await app.locator("#theme").filter({ hasText: "light" }).waitFor({ timeout: 5000 });
    await page.click("#call");
    await app.locator("#toolresult").filter({ hasText: "echo called with {}" }).waitFor({ timeout: 10000 });
    // Switching tools (here: reloading) tears the old frame down politely first.
    await page.click("#reload");
    await page.locator('#log li[data-dir="host → app"][data-what^="ui/resource-teardown"]').first().waitFor({ timeout: 5000 });
  } finally {
    await page.close();
  }
});

test("without the token, from another origin or another Host, nothing is served or called", async () => {
  const host = `127.0.0.1:${preview.port}`;
  const call = JSON.stringify({ method: "tools/call", params: { name: "echo", arguments: { text: "x" } } });
  const rpc = `/rpc?token=${preview.token}`;
  for (const p of ["/", "/?token=", "/?token=0123", `/?token=${preview.token.slice(1)}0`, "/host.js", "/frame?tool=echo", "/rpc"]) {
    assert.equal((await raw(preview.port, { path: p, headers: { host } })).status, 404, p);
  }
  assert.equal((await raw(preview.port, { path: `/?token=${preview.token}`, headers: { host } })).status, 200);
  // DNS rebinding: the right token on a foreign Host is still refused.
  assert.equal((await raw(preview.port, { path: `/?token=${preview.token}`, headers: { host: `evil.example:${preview.port}` } })).status, 403);
  const json = { host, "content-type": "application/json" };
  const ok = await raw(preview.port, { method: "POST", path: rpc, headers: { ...json, origin: preview.origin }, body: call });
  assert.equal(ok.status, 200);
  assert.match(JSON.parse(ok.body).result.content[0].text, /echo called with/);
  const refused = [
    { ...json, origin: "http://evil.example" },
    { ...json, origin: "null" },
    json, // no Origin
    { host, origin: preview.origin, "content-type": "text/plain" },
    { ...json, origin: preview.origin, "sec-fetch-site": "cross-site" },
  ];
  for (const headers of refused) {
    assert.equal((await raw(preview.port, { method: "POST", path: rpc, headers, body: call })).status, 403, JSON.stringify(headers));
  }
  const notForwarded = await raw(preview.port, {
    method: "POST", path: rpc, headers: { ...json, origin: preview.origin },
    body: JSON.stringify({ method: "initialize", params: {} }),
  });
  assert.equal(notForwarded.status, 400);
});

test("a hostile page that even knows the token cannot make the preview call a tool", async () => {
  const rpcUrl = `${preview.origin}/rpc?token=${preview.token}`;
  const evil = http.createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(`<!doctype html><body><form id="f" method="POST" action="${rpcUrl}" enctype="text/plain">
<input name='{"method":"tools/call","params":{"name":"echo","arguments":{"text":"EVIL' value='"}}}'></form>
<div id="done">no</div><script>
Promise.allSettled([
  fetch(${JSON.stringify(rpcUrl)}, { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" },
    body: JSON.stringify({ method: "tools/call", params: { name: "echo", arguments: { text: "EVIL" } } }) }),
  fetch(${JSON.stringify(rpcUrl)}, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ method: "tools/call", params: { name: "echo", arguments: { text: "EVIL" } } }) }),
]).then(() => { document.getElementById("done").textContent = "yes"; });
</script></body>`);
  });
  await new Promise((r) => evil.listen(0, "127.0.0.1", r));
  const page = await browser.newPage();
  try {
    const okBefore = (preview.stderr().match(/preview: tools\/call/g) || []).length;
    const refusedBefore = (preview.stderr().match(/preview refused POST \/rpc/g) || []).length;
    await page.goto(`http://127.0.0.1:${evil.address().port}/`);
    await page.locator("#done").filter({ hasText: "yes" }).waitFor({ timeout: 10000 });
    await Promise.all([page.waitForNavigation().catch(() => {}), page.evaluate(() => document.getElementById("f").submit())]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((preview.stderr().match(/preview: tools\/call/g) || []).length, okBefore, "no call was forwarded");
    assert.ok((preview.stderr().match(/preview refused POST \/rpc/g) || []).length >= refusedBefore + 2, preview.stderr());
  } finally {
    await page.close();
    evil.close();
  }
});

test("preview refuses a tool without a UI and stops cleanly on SIGTERM", async () => {
  const bad = spawnSync(BIN, ["preview", "--no-open", "--server", SERVER, "nope"], { cwd: dir, encoding: "utf8" });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /tool "nope" has no generated UI/);
  assert.match(bad.stderr, /"echo"/);
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-gen-ui-preview-empty-"));
  try {
    const none = spawnSync(BIN, ["preview", "--no-open", "--server", SERVER], { cwd: empty, encoding: "utf8" });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /run `mcp-gen-ui generate` first/);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
  const p = await startPreview(dir, ["echo"]);
  assert.equal(await stop(p), 0);
  assert.match(p.stderr(), /upstream shut down/);
});

test("several widgets, examples and a declared CSP are honoured", async () => {
  const proj = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-gen-ui-preview-widgets-"));
  let p;
  const page = await browser.newPage();
  try {
    fs.writeFileSync(path.join(proj, "mcp-gen-ui.toml"), `[upstream]
command = ${JSON.stringify(FIXTURE)}
args = ["--mode", "ok"]

[tools.echo]
widgets = [{ name = "card", default = true }, { name = "raw" }]
examples = [{ text = "example text" }]
csp = { connect_domains = ["https://api.example.com", "not an origin"] }
`);
    const gen = spawnSync(BIN, ["generate"], { cwd: proj, encoding: "utf8" });
    assert.equal(gen.status, 0, gen.stderr);
    p = await new Promise((resolve, reject) => {
      const child = spawn(BIN, ["preview", "--no-open"], { cwd: proj, stdio: ["ignore", "pipe", "ignore"] });
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
        const m = out.match(/^Preview: (\S+)$/m);
        if (m) resolve({ child, url: m[1] });
      });
      child.on("exit", (code) => reject(new Error(`preview exited with ${code}`)));
    });
    await page.goto(p.url);
    const labels = await page.locator("#tool option").allInnerTexts();
    assert.deepEqual(labels, ["Echo (echo) / card", "Echo (echo) / raw"]);
    assert.equal(JSON.parse(await page.locator("#args").inputValue()).text, "example text");
    assert.match(await page.locator("#notes").innerText(), /ignored "not an origin"/);
    assert.match(await page.locator("iframe#app").getAttribute("src"), /widget=card/);
    await page.selectOption("#tool", { label: "Echo (echo) / raw" });
    // Switching reloads the frame asynchronously (teardown first): wait for it.
    await page.waitForFunction(() => (document.querySelector("iframe#app")?.getAttribute("src") || "").includes("widget=raw"), null, { timeout: 10000 });
    const src = await page.locator("iframe#app").getAttribute("src");
    assert.match(src, /widget=raw/);
    await page.waitForURL(/tool=echo&widget=raw/, { timeout: 10000 });
    const resp = await page.request.get(new URL(src, p.url).href);
    assert.equal(resp.status(), 200);
    const csp = resp.headers()["content-security-policy"];
    assert.match(csp, /connect-src https:\/\/api\.example\.com;/);
    assert.doesNotMatch(csp, /not an origin/);
  } finally {
    await page.close();
    if (p) await stop(p);
    fs.rmSync(proj, { recursive: true, force: true });
  }
});
