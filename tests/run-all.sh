#!/usr/bin/env bash
# Every test of the project: Rust unit, CLI and integration tests (against the real example
# servers), the committed example's `check --server` gate, then the Node suites (real chromium,
# the real MCP Apps AppBridge, @modelcontextprotocol/server-everything).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --all-targets --quiet
cargo test --all-targets --quiet

# The committed weather example must be in sync with its server.
"${CARGO_TARGET_DIR:-target}/debug/mcp-gen-ui" --config examples/weather/mcp-gen-ui.toml check --server

if [ ! -d tests/node_modules ]; then (cd tests && npm ci --no-audit --no-fund --loglevel=error); fi
suites=()
for d in browser node; do
  if compgen -G "tests/$d/*.test.mjs" >/dev/null; then suites+=("$d/"); fi
done
if [ ${#suites[@]} -gt 0 ]; then
  (cd tests && node --test --test-concurrency=1 "${suites[@]}")
fi
