#!/usr/bin/env bash
# Every release benchmark, printed as one Markdown table (the book's performance chapter shows
# it): serve over stdio and HTTP as hosts see it, resources/read, check, the no-op generate,
# builtin generation per tool and page sizes, and memory for 1,000 and 10,000 tools.
#
#   bash tests/tools/bench-all.sh
#
# Builds in release mode first (several minutes on 2 cores the first time). Figures, not
# assertions: run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
target="${CARGO_TARGET_DIR:-target}/release"

echo "building (release) …" >&2
cargo build --release --quiet --workspace --bins --examples
if [ ! -d tests/node_modules ]; then (cd tests && npm ci --no-audit --no-fund --loglevel=error); fi

cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
echo "Machine: $(nproc) cores${cpu:+, $cpu}, $(free -g 2>/dev/null | awk '/^Mem:/ {print $2 " GiB"}'), $(uname -sr); mcp-gen-ui $("$target/mcp-gen-ui" --version | cut -d' ' -f2) at $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
echo
echo "| what | measured | target |"
echo "| --- | --- | --- |"
node tests/tools/bench-host.mjs 2000 --bin "$target/mcp-gen-ui" --rows 2>/dev/null | grep '^|'
"$target/examples/bench-serve" 2000 --rows
"$target/examples/bench-cli" 500 10 --rows
"$target/examples/bench-builtin" --rows
