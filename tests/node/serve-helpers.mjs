// Shared helpers for the serve tests: where the binaries are, and the tool_hash ingredients.
import { existsSync } from "node:fs";
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
