#!/usr/bin/env bash
# Installs the world-schemas suite's npm packages (tests/world/package.json: a form library's
# example schemas and zod, at pinned versions) once into tests/world/node_modules (git-ignored),
# skipping when it is up to date. Writes tests/world/.status ("npm=ok" or "npm=skip: why"), which
# the suite reads: a source whose packages are missing is reported as SKIPPED by name, never as
# passed. Called by tests/registry/install.sh; the Pydantic models run with the Pydantic of the
# registry venv (tests/registry/requirements.txt). book: installation.md ("Schemas written by others").
set -uo pipefail
cd "$(dirname "$0")"
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.mcp-gen-ui-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_sum" ]; then
  echo "world schemas (npm): up to date"
  echo "npm=ok" >.status
elif ! command -v npm >/dev/null 2>&1; then
  echo "warning: world schemas: npm is missing; the form library's and Zod's schemas will be SKIPPED" >&2
  echo "npm=skip: npm is not installed" >.status
elif out=$(npm ci --no-audit --no-fund --loglevel=error 2>&1); then
  echo "$lock_sum" >"$stamp"
  echo "world schemas (npm): installed"
  echo "npm=ok" >.status
elif npm ping >/dev/null 2>&1; then
  printf '%s\n' "$out" >&2
  echo "error: world schemas: npm ci failed in tests/world although the npm registry answers (a broken pin?)" >&2
  exit 1
else
  echo "warning: world schemas: the npm registry is not reachable; the form library's and Zod's schemas will be SKIPPED" >&2
  echo "npm=skip: the npm registry was not reachable when tests/world/install.sh ran" >.status
fi
