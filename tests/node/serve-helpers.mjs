// The Node tests' kit (and bench-host's): where the binaries are, starting `serve --http` (or any
// server that says `listening on http://…`) and waiting for it, a free port and waiting until a
// port accepts connections, and the tool_hash ingredients. A new test that starts a server
// starts it here.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import readline from "node:readline";
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");

/** The mcp-gen-ui binary: $MCP_GEN_UI_BIN, else the cargo target dir's debug build. */
export function serveBinary() {
  const target = process.env.CARGO_TARGET_DIR ?? path.join(repo, "target");
  const bin = process.env.MCP_GEN_UI_BIN ?? path.join(target, "debug", "mcp-gen-ui");
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`cargo build\` first (or set MCP_GEN_UI_BIN)`);
  return bin;
}

/** The server-everything binary installed by `npm ci` in tests/. */
export function everythingBinary() {
  const bin = path.join(repo, "tests", "node_modules", ".bin", "mcp-server-everything");
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`npm ci\` in tests/`);
  return bin;
}

/**
 * RFC 8785 canonical JSON for plain JSON data: keys sorted by UTF-16 code units (what
 * Array.prototype.sort does for strings) and ECMAScript number printing (what JSON.stringify does).
 */
export function canonicalJson(v) {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

export function sha256Hex(text) {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Starts `cmd args` and resolves once it prints a line `listening on http://…` (on stdout or
 * stderr, read line by line so an address is never cut): `{ child, url, tail }`, `tail()` being
 * the last of its output. `pattern` says what the line looks like (its first group is `url`;
 * server-everything says `listening on port (\d+)`). `onLine` sees every line. Rejects when the
 * child exits first or stays silent for `timeoutMs` (then it is killed). The pipes are read to
 * the end (a full pipe would stall the child).
 */
export function startListening(cmd, args, { onLine = () => {}, timeoutMs = 30_000, pattern = /listening on (http:\/\/\S+)/, ...opts } = {}) {
  const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const what = `${path.basename(cmd)} ${args.join(" ")}`.slice(0, 200);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${what} did not listen within ${timeoutMs} ms: ${log}`));
    }, timeoutMs);
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on("line", (line) => {
        log = (log + line + "\n").slice(-20_000);
        onLine(line);
        const m = line.match(pattern);
        if (m) {
          clearTimeout(timer);
          resolve({ child, url: m[1], tail: () => log });
        }
      });
    }
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${code}) before listening: ${log}`));
    });
  });
}

/**
 * `mcp-gen-ui ARGS` (ARGS holding `serve --http 127.0.0.1:0`), once it listens: `{ child, url,
 * tail }` with `url` the `http://…/mcp` endpoint. `env` is added to this process's environment,
 * with `MCP_GEN_UI_LOG=warn` unless it says otherwise; `bin` is another build to start (a
 * benchmark's release build) instead of `serveBinary()`. Every test or tool that starts `serve
 * --http` starts it here.
 */
export function startServeHttp(args, { env = {}, bin, ...opts } = {}) {
  return startListening(bin ?? serveBinary(), args, { ...opts, env: { ...process.env, MCP_GEN_UI_LOG: "warn", ...env } });
}

/** A TCP port on 127.0.0.1 that nothing listens on (now). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once `port` on 127.0.0.1 accepts a connection (servers that print no address, such
 * as nginx); rejects after `timeoutMs` with `what()` (say, the server's log) in the message.
 */
export async function waitForPort(port, { timeoutMs = 30_000, what = () => "" } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, "127.0.0.1", () => {
        c.destroy();
        resolve(true);
      });
      c.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
