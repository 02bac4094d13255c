// The official MCP server conformance suite (npm @modelcontextprotocol/conformance, pinned in
// tests/package.json) against its test upstream (fixtures/conformance-server.mjs) directly, then
// ten times in a row through ONE `mcp-gen-ui serve --http` in front of that same upstream, with
// UIs generated for its tools and serve's default session settings. A scenario that passes
// directly must pass through serve in every run.
//
// The suite's client never ends its sessions (no HTTP DELETE) and opens about 30 per run, so
// ten runs go far past serve's session cap (64): they pass only if serve closes idle sessions at
// the cap fast enough for the next run's hosts (--session-evict-seconds).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { serveBinary, startListening, startServeHttp } from "./serve-helpers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const CLI = path.join(repo, "tests", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const UPSTREAM = path.join(here, "fixtures", "conformance-server.mjs");
const NODE20_SHIM = path.join(here, "fixtures", "node20-fs-glob.mjs");
const RUNS = 10;
// A whole run takes a few seconds; this only stops a hung one.
const RUN_TIMEOUT_MS = 180_000;
const EVICTED = "closed the least recently used idle host session";
const REFUSED = "refused a new host session";

let work;
let upstream; // { child, url }
let serve; // { child, url, log, count }
let direct; // the baseline: Map scenario → result

/**
 * One run of the suite (all its server scenarios, pending ones included) against `url`;
 * Map scenario → { failed: [messages], checks }. Its own exit code only says whether some
 * scenario failed, so the verdicts come from the checks.json it writes per scenario.
 */
async function runSuite(url, label) {
  const out = path.join(work, "results", label);
  const args = ["--import", NODE20_SHIM, CLI, "server", "--url", url, "--suite", "all", "-o", out];
  const child = spawn(process.execPath, args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  for (const s of [child.stdout, child.stderr]) s.on("data", (d) => (output = (output + d).slice(-20_000)));
  const code = await new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("exit", (c, signal) => {
      clearTimeout(timer);
      resolve(c ?? signal);
    });
  });
  const results = new Map();
  let dirs = [];
  try {
    dirs = readdirSync(out);
  } catch {
    // None written: reported below with the CLI's output.
  }
  for (const dir of dirs) {
    const m = dir.match(/^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/);
    if (!m) continue;
    const checks = JSON.parse(readFileSync(path.join(out, dir, "checks.json"), "utf8"));
    const failed = checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? c.description}`);
    const warnings = checks.filter((c) => c.status === "WARNING").length;
    results.set(m[1], { failed, warnings, checks: checks.length });
  }
  assert.ok(results.size > 0, `${label}: the conformance CLI wrote no results (exit ${code}):\n${output}`);
  return results;
}

const passes = (r) => r !== undefined && r.failed.length === 0;

before(async () => {
  work = mkdtempSync(path.join(tmpdir(), "mcp-gen-ui-conformance-"));
  upstream = await startListening(process.execPath, [UPSTREAM, "http", "0"], { cwd: work });
  // UIs for the upstream's tools, so that serve adds its metadata and ui:// resources.
  execFileSync(serveBinary(), ["--url", upstream.url, "--out-dir", path.join(work, "ui"), "--quiet", "generate", "--generator", "builtin"], {
    cwd: work,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const count = { opened: 0, evicted: 0, refused: 0 };
  serve = await startServeHttp(["--url", upstream.url, "--out-dir", path.join(work, "ui"), "serve", "--http", "127.0.0.1:0"], {
    cwd: work,
    env: { MCP_GEN_UI_LOG: "info" },
    onLine: (line) => {
      if (line.includes("host session opened")) count.opened++;
      if (line.includes(EVICTED)) count.evicted++;
      if (line.includes(REFUSED)) count.refused++;
    },
  });
  serve.count = count;
});

after(() => {
  for (const p of [serve, upstream]) p?.child.kill("SIGTERM");
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the baseline: the suite passes every scenario against its upstream directly", { timeout: RUN_TIMEOUT_MS }, async (t) => {
  direct = await runSuite(upstream.url, "direct");
  const failing = [...direct].filter(([, r]) => !passes(r)).map(([s, r]) => `${s}: ${r.failed.join("; ")}`);
  t.diagnostic(`direct: ${direct.size - failing.length}/${direct.size} scenarios pass: ${[...direct.keys()].join(", ")}`);
  // Without this the comparison below could pass vacuously.
  assert.deepEqual(failing, [], "tests/node/fixtures/conformance-server.mjs must pass every scenario of the pinned suite");
});

test(`${RUNS} runs in a row through one serve --http: no scenario that passes directly fails`, { timeout: RUNS * RUN_TIMEOUT_MS }, async (t) => {
  assert.ok(direct, "the baseline run did not finish");
  const regressions = [];
  for (let run = 1; run <= RUNS; run++) {
    const started = performance.now();
    const through = await runSuite(serve.url, `serve-${run}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    let passed = 0;
    for (const [scenario, base] of direct) {
      const r = through.get(scenario);
      if (passes(r)) passed++;
      else if (passes(base)) {
        regressions.push(`run ${run}: ${scenario} passes directly but ${r ? `fails through serve: ${r.failed.join("; ")}` : "has no result through serve"}`);
      }
      if (r && r.warnings !== base.warnings) t.diagnostic(`run ${run}: ${scenario}: ${r.warnings} warnings through serve, ${base.warnings} directly`);
    }
    t.diagnostic(`run ${run}: ${passed}/${direct.size} scenarios pass through serve (${seconds} s); sessions so far: ${JSON.stringify(serve.count)}`);
  }
  const { opened, evicted, refused } = serve.count;
  t.diagnostic(`serve sessions: ${opened} opened, ${evicted} closed at the cap for a new host, ${refused} refused, ${opened - evicted} still open`);
  const logTail = serve.tail().split("\n").slice(-12).join("\n");
  assert.deepEqual(regressions, [], `${regressions.length} regressions:\n${regressions.join("\n")}\n\nserve's log ends with:\n${logTail}`);
  assert.equal(serve.child.exitCode, null, "serve exited during the runs");
  // Ten runs open far more sessions than the default cap of 64, and the suite ends none.
  assert.ok(evicted > 0, `no "${EVICTED}" line in serve's log although ${opened} sessions were opened`);
});
