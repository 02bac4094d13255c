#!/usr/bin/env bash
# Installs the registry suite's servers (tests/fixtures/registry-servers.json) once into this
# folder: the npm ones from package-lock.json into node_modules/, the PyPI ones from
# requirements.txt into .venv/ (both git-ignored), skipping each when it is up to date. Writes
# .status, one line per registry ("npm=ok" or "npm=skip: why"), which the suite reads: a server
# whose registry is skipped is reported as SKIPPED by name, never as passed. A registry that
# answers but whose install fails stops this script (exit 1): that is a broken pin, not an
# offline machine. book: installation.md ("Servers we test against").
set -uo pipefail
cd "$(dirname "$0")"
status=.status
: >"$status.new"

note() { printf '%s\n' "$*" >>"$status.new"; }
loud() { printf 'warning: registry suite: %s\n' "$*" >&2; }

# --- npm ---------------------------------------------------------------------------------------
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.mcp-gen-ui-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ]; then
  echo "npm servers: up to date"
  note "npm=ok"
elif ! command -v npm >/dev/null 2>&1; then
  loud "npm is missing; the npm servers will be SKIPPED"
  note "npm=skip: npm is not installed"
elif out=$(npm ci --no-audit --no-fund --loglevel=error 2>&1); then
  echo "$lock_sum" >"$stamp"
  echo "npm servers: installed"
  note "npm=ok"
elif npm ping >/dev/null 2>&1; then
  printf '%s\n' "$out" >&2
  echo "error: registry suite: npm ci failed in tests/registry although the npm registry answers (a broken pin?)" >&2
  exit 1
else
  loud "the npm registry is not reachable; the npm servers will be SKIPPED ($(printf '%s' "$out" | grep -v 'complete log' | tail -1))"
  note "npm=skip: the npm registry was not reachable when tests/registry/install.sh ran"
fi

# --- PyPI --------------------------------------------------------------------------------------
req_sum=$(sha256sum requirements.txt | cut -d' ' -f1)
pstamp=.venv/.mcp-gen-ui-installed
if [ -f "$pstamp" ] && [ "$(cat "$pstamp")" = "$req_sum" ]; then
  echo "PyPI servers: up to date"
  note "pypi=ok"
elif ! command -v python3 >/dev/null 2>&1 || ! { rm -rf .venv && python3 -m venv .venv >/dev/null 2>&1; }; then
  loud "python3 with venv is missing; the PyPI servers will be SKIPPED"
  note "pypi=skip: python3 with the venv module is not installed"
elif out=$(.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt 2>&1); then
  echo "$req_sum" >"$pstamp"
  echo "PyPI servers: installed"
  note "pypi=ok"
elif .venv/bin/pip download -q --no-deps --disable-pip-version-check -d .venv/probe \
  "$(grep -m1 '^mcp-server-' requirements.txt)" >/dev/null 2>&1; then
  printf '%s\n' "$out" >&2
  echo "error: registry suite: pip install -r tests/registry/requirements.txt failed although PyPI answers (a broken pin?)" >&2
  exit 1
else
  loud "PyPI is not reachable; the PyPI servers will be SKIPPED ($(printf '%s' "$out" | grep -v 'complete log' | tail -1))"
  note "pypi=skip: PyPI was not reachable when tests/registry/install.sh ran"
fi

mv "$status.new" "$status"

# --- The world-schemas suite's packages (a sibling install with its own status) ----------------
bash ../world/install.sh || exit 1
