#!/usr/bin/env bash
# Every test of the project, from a fresh clone: first installs what the tests need (the npm
# packages of tests/, and Debian's chromium and nginx when they are missing and can be installed), then runs
# the Rust unit, CLI and integration tests (against the real example servers), the committed
# example's `check --server` gate, and the Node suites (real chromium, the real MCP Apps AppBridge,
# @modelcontextprotocol/server-everything, the official @modelcontextprotocol/conformance server
# suite through one `serve --http`). `.ci/run` calls exactly this after its lints.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step() { printf '== %s\n' "$*"; }

# --- What the tests need ---------------------------------------------------------------------

step "node and npm"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is missing; install Node.js 20 or newer (Debian: apt-get install nodejs npm)" >&2
    exit 2
  fi
done
node --version

step "npm packages (tests/)"
# Reinstall exactly when tests/package-lock.json changed since the last install.
lock_sum=$(sha256sum tests/package-lock.json | cut -d' ' -f1)
stamp=tests/node_modules/.mcp-gen-ui-installed
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  (cd tests && npm ci --no-audit --no-fund --loglevel=error)
  echo "$lock_sum" >"$stamp"
else
  echo "up to date"
fi

step "mcp-server-time (PyPI, for the browser suite)"
# The official MCP time server, in a venv under tests/ (gitignored). The browser suite skips it,
# saying why, only when python3 or PyPI is not available here.
if [ ! -x tests/.venv-time/bin/mcp-server-time ]; then
  if command -v python3 >/dev/null 2>&1 && python3 -m venv tests/.venv-time >/dev/null 2>&1 \
    && tests/.venv-time/bin/pip install -q --disable-pip-version-check mcp-server-time; then
    echo "installed"
  else
    echo "warning: could not install mcp-server-time (python3 with venv and PyPI access are needed); its browser tests will be skipped" >&2
  fi
else
  echo "up to date"
fi

step "registry servers (tests/registry: popular npm and PyPI servers at pinned versions)"
# One cached install for every suite that tests against them (tests/fixtures/registry-servers.json);
# a registry that cannot be reached is recorded, and its servers are reported as SKIPPED by name.
bash tests/registry/install.sh

# Installs Debian's package $1 (its program at $2) when missing: as root, or through sudo without
# a password; otherwise says how and stops. $3 names the suites that need it.
apt_need() {
  local pkg=$1 bin=$2 who=$3
  if command -v "$pkg" >/dev/null 2>&1 || [ -x "$bin" ]; then return 0; fi
  local install=(apt-get install -y -qq --no-install-recommends "$pkg")
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    "${install[@]}" >/dev/null
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then
    sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo -n env DEBIAN_FRONTEND=noninteractive "${install[@]}" >/dev/null
  else
    echo "error: $who need Debian's $pkg at $bin; install it with:" >&2
    echo "  sudo apt-get install --no-install-recommends $pkg" >&2
    exit 2
  fi
}

step "chromium"
apt_need chromium /usr/bin/chromium "the browser suites"
/usr/bin/chromium --version

step "nginx"
apt_need nginx /usr/sbin/nginx "the replica suite"
"$(command -v nginx || echo /usr/sbin/nginx)" -v

# --- The tests -------------------------------------------------------------------------------

step "build (the CLI, the example servers, the tests, the benches)"
cargo build --workspace --all-targets --all-features --quiet

step "cargo tests"
# The llm corpus is replayed once (with a browser, a few minutes): the Rust test writes every page
# it kept or replaced there, and the browser suite checks those pages instead of replaying again.
corpus_pages="$(mktemp -d "${TMPDIR:-/tmp}/mcp-gen-ui-corpus-XXXXXX")"
trap 'rm -rf "$corpus_pages"' EXIT
MCP_GEN_UI_LLM_CORPUS_OUT="$corpus_pages" cargo test --workspace --all-targets --all-features --quiet

step "the committed weather example is in sync with its server"
"${CARGO_TARGET_DIR:-target}/debug/mcp-gen-ui" --config examples/weather/mcp-gen-ui.toml check --server

step "node suites (browser, protocol)"
suites=()
for d in browser node; do
  if compgen -G "tests/$d/*.test.mjs" >/dev/null; then suites+=("$d/"); fi
done
(cd tests && MCP_GEN_UI_LLM_CORPUS_DIR="$corpus_pages" node --test --test-concurrency=1 "${suites[@]}")
