#!/usr/bin/env bash
# Builds mcp-gen-ui's release artefacts and, with --test, installs each one offline into a fresh
# environment and runs it on the weather example. The one packaging script of the project: the
# release workflow (.github/workflows/release.yml) runs it, and so can anyone from a clean clone.
#
#   .github/scripts/package.sh --test all                     # everything, built and tested here
#   .github/scripts/package.sh --binary target/release/mcp-gen-ui --test npm archive
#
# Parts (any number, in any order; `all` = crate archive npm python):
#   crate        `cargo package`: target/dist/crate/mcp-gen-ui-VERSION.crate (cargo builds the
#                unpacked crate to verify it). --test: builds the unpacked crate alone again and
#                runs it.
#   archive      target/dist/archive/mcp-gen-ui-vVERSION-TARGET.tar.gz: what `cargo binstall`
#                downloads from a GitHub release ([package.metadata.binstall] in Cargo.toml).
#   npm          target/dist/npm/: the platform package of TARGET (@mcp-gen-ui/linux-x64, …) and
#                the meta package `mcp-gen-ui` whose optionalDependencies name every platform
#                package found beside it (esbuild/Biome style: no download at install time).
#   npm-platform, npm-meta   the two halves of `npm` (the release workflow builds the platform
#                packages on their own runners and the meta package once).
#   python       target/dist/python/mcp_gen_ui-VERSION-*.whl, built by maturin (bindings = "bin")
#                from a generated pyproject.toml; maturin is installed from PyPI when missing.
#
# Options:
#   --binary PATH   package this prebuilt mcp-gen-ui (archive, npm) instead of building one with
#                   `cargo build --release --locked` (maturin always compiles: it reuses the
#                   release build's dependencies in target/)
#   --target TRIPLE the Rust target of the binary (default: this machine's); names the archive and
#                   picks the npm platform
#   --out DIR       where the artefacts go (default: target/dist)
#   --allow-dirty   let `cargo package` package uncommitted changes
#   --test          after building: install each artefact into a fresh temporary environment with no
#                   network (cargo --offline, npm --offline, pip --no-index) and run `--version`,
#                   `generate` against the weather example server, `check` (clean, then a tampered
#                   file) and `check` of the committed examples/weather/ui/
# Environment: MATURIN (a maturin to use), UVX (a uvx for --test python; else uvx on PATH, else
#   that run is skipped), MATURIN_ARGS (extra `maturin build` arguments, e.g.
#   "--zig --compatibility manylinux2014" in the release workflow), WEATHER_SERVER (the example
#   server binary for --test; default: built with cargo into target/debug/weather-server).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out="$root/target/dist"
binary=""
target=""
allow_dirty=()
run_tests=0
parts=()

# The project's public address (a placeholder until it has one; Cargo.toml's `repository`).
repo_url="https://github.com/mcp-gen-ui/mcp-gen-ui"
npm_scope="@mcp-gen-ui"
license="MIT OR Apache-2.0"
description="Compile UIs for MCP servers ahead of time: a reviewed, self-contained MCP App per tool, a lockfile, a CI gate and a static wrapper that serves them"

die() {
  echo "package.sh: error: $*" >&2
  exit 2
}
step() { printf '== %s\n' "$*"; }

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --binary) [ $# -ge 2 ] || die "--binary needs a path"; binary=$2; shift 2 ;;
    --target) [ $# -ge 2 ] || die "--target needs a Rust target triple"; target=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --allow-dirty) allow_dirty=(--allow-dirty); shift ;;
    --test) run_tests=1; shift ;;
    -h | --help) usage; exit 0 ;;
    all) parts+=(crate archive npm-platform npm-meta python); shift ;;
    npm) parts+=(npm-platform npm-meta); shift ;;
    crate | archive | npm-platform | npm-meta | python) parts+=("$1"); shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ ${#parts[@]} -gt 0 ] || die "name what to build: crate, archive, npm, npm-platform, npm-meta, python or all (see --help)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

want() {
  local p
  for p in "${parts[@]}"; do [ "$p" = "$1" ] && return 0; done
  return 1
}

# The package version: the first `version = "…"` of Cargo.toml, which is [package]'s.
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  die "cannot read the package version from $root/Cargo.toml (found '$version')"
# An explicit --target builds into target/TRIPLE/; this machine's target into target/release/.
target_args=()
if [ -n "$target" ]; then
  target_args=(--target "$target")
else
  target=$(rustc -vV | sed -n 's/^host: //p')
  [ -n "$target" ] || die "cannot tell this machine's Rust target: pass --target TRIPLE"
fi
binary_checked=0

# Rust target -> npm platform ("os cpu"), as Node's process.platform and process.arch name them.
npm_platform_of() {
  case "$1" in
    x86_64-unknown-linux-gnu | x86_64-unknown-linux-musl) echo "linux x64" ;;
    aarch64-unknown-linux-gnu | aarch64-unknown-linux-musl) echo "linux arm64" ;;
    x86_64-apple-darwin) echo "darwin x64" ;;
    aarch64-apple-darwin) echo "darwin arm64" ;;
    x86_64-pc-windows-msvc) echo "win32 x64" ;;
    aarch64-pc-windows-msvc) echo "win32 arm64" ;;
    *) return 1 ;;
  esac
}
exe_suffix=""
case "$target" in *-windows-*) exe_suffix=".exe" ;; esac

# --- the binary (archive, npm-platform) --------------------------------------------------------

checked_binary() {
  [ "$binary_checked" = 1 ] && return 0
  if [ -z "$binary" ]; then
    step "build: cargo build --release --locked --bin mcp-gen-ui ${target_args[*]}"
    (cd "$root" && cargo build --release --locked --bin mcp-gen-ui "${target_args[@]}")
    binary="$root/target/${target_args[*]:+$target/}release/mcp-gen-ui$exe_suffix"
  fi
  [ -f "$binary" ] || die "no binary at $binary"
  binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
  # A binary this machine can run must be the version being packaged (not a stale build).
  local got
  if [ -x "$binary" ] && got=$("$binary" --version 2>/dev/null); then
    [ "$got" = "mcp-gen-ui $version" ] ||
      die "$binary says '$got' but Cargo.toml is at $version: rebuild it or pass the right --binary"
  fi
  binary_checked=1
}

# --- crate ---------------------------------------------------------------------------------

build_crate() {
  step "crate: cargo package (builds the unpacked crate to verify it)"
  (cd "$root" && cargo package --locked -p mcp-gen-ui "${allow_dirty[@]}")
  mkdir -p "$out/crate"
  cp "$root/target/package/mcp-gen-ui-$version.crate" "$out/crate/"
  local listing
  listing=$(tar tzf "$out/crate/mcp-gen-ui-$version.crate")
  # What the binary embeds must be there; what only the repository needs must not.
  local f
  for f in templates/page.html templates/styles.css templates/min/runtime.js templates/min/app.js \
    prompts/system.md src/preview/assets/host.js .github/LICENSE-MIT .github/LICENSE-APACHE; do
    grep -qx "mcp-gen-ui-$version/$f" <<<"$listing" || die "the crate lacks $f"
  done
  if grep -E "^mcp-gen-ui-$version/(tests|examples|book)/" <<<"$listing" >/dev/null; then
    die "the crate holds tests, examples or the book: fix [package] include in Cargo.toml"
  fi
  echo "$out/crate/mcp-gen-ui-$version.crate: $(wc -l <<<"$listing") files, $(du -k "$out/crate/mcp-gen-ui-$version.crate" | cut -f1) KiB"
}

# --- archive (cargo binstall, GitHub releases) ---------------------------------------------

build_archive() {
  checked_binary
  local name="mcp-gen-ui-v$version-$target"
  step "archive: $name.tar.gz"
  local stage="$out/archive/stage/$name"
  rm -rf "$out/archive/stage" && mkdir -p "$stage"
  cp "$binary" "$stage/mcp-gen-ui$exe_suffix"
  cp "$root/README.md" "$root/.github/LICENSE-MIT" "$root/.github/LICENSE-APACHE" "$stage/"
  tar -C "$out/archive/stage" --owner=0 --group=0 --numeric-owner -czf "$out/archive/$name.tar.gz" "$name"
  (cd "$out/archive" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
  rm -rf "$out/archive/stage"
  echo "$out/archive/$name.tar.gz"
}

# --- npm -----------------------------------------------------------------------------------

npm_readme() {
  cat <<EOF
# mcp-gen-ui

Compile UIs for MCP servers ahead of time: \`mcp-gen-ui\` connects to an MCP server, lists its
tools and writes a self-contained HTML [MCP App](https://github.com/modelcontextprotocol/ext-apps)
for each into \`ui/\` with a lockfile; \`mcp-gen-ui serve\` serves them to hosts such as Claude
Desktop; \`mcp-gen-ui check\` is the CI gate.

\`\`\`sh
$1
mcp-gen-ui generate --server "npx -y @modelcontextprotocol/server-everything"
mcp-gen-ui check
\`\`\`

This package holds the native \`mcp-gen-ui\` binary (Rust); nothing is downloaded at install time.
Documentation: $repo_url (the book in \`book/\`). License: $license.
EOF
}

build_npm_platform() {
  checked_binary
  local os cpu
  read -r os cpu <<<"$(npm_platform_of "$target")" || die "no npm platform for the Rust target $target"
  local pkg="$npm_scope/$os-$cpu" stage="$out/npm/stage/$os-$cpu"
  step "npm: $pkg@$version"
  rm -rf "$stage" && mkdir -p "$stage/bin"
  cp "$binary" "$stage/bin/mcp-gen-ui$exe_suffix"
  chmod 755 "$stage/bin/mcp-gen-ui$exe_suffix"
  cp "$root/.github/LICENSE-MIT" "$root/.github/LICENSE-APACHE" "$stage/"
  cat >"$stage/README.md" <<EOF
# $pkg

The $os-$cpu binary of [mcp-gen-ui](https://www.npmjs.com/package/mcp-gen-ui). Install
\`mcp-gen-ui\` itself: it depends on this package on $os-$cpu and runs the binary.
EOF
  cat >"$stage/package.json" <<EOF
{
  "name": "$pkg",
  "version": "$version",
  "description": "The $os-$cpu binary of mcp-gen-ui",
  "license": "$license",
  "repository": { "type": "git", "url": "git+$repo_url.git" },
  "homepage": "$repo_url",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
  "preferUnplugged": true
}
EOF
  (cd "$out/npm" && npm pack --silent "$stage" >/dev/null)
  echo "$out/npm/${npm_scope#@}-$os-$cpu-$version.tgz"
}

build_npm_meta() {
  step "npm: mcp-gen-ui@$version"
  # Every platform package built beside it becomes an optional dependency.
  local platforms=() f base
  for f in "$out/npm/${npm_scope#@}"-*-"$version".tgz; do
    [ -e "$f" ] || continue
    base=$(basename "$f" "-$version.tgz")
    platforms+=("${base#"${npm_scope#@}"-}")
  done
  [ ${#platforms[@]} -gt 0 ] || die "no platform package in $out/npm: build npm-platform first"
  local stage="$out/npm/stage/meta" deps="" table="" p
  rm -rf "$stage" && mkdir -p "$stage/bin"
  for p in "${platforms[@]}"; do
    deps+="${deps:+,
}    \"$npm_scope/$p\": \"$version\""
    table+="  \"$p\": \"$npm_scope/$p\",
"
  done
  cp "$root/.github/LICENSE-MIT" "$root/.github/LICENSE-APACHE" "$stage/"
  npm_readme "npx mcp-gen-ui --version            # or: npm install -D mcp-gen-ui" >"$stage/README.md"
  cat >"$stage/package.json" <<EOF
{
  "name": "mcp-gen-ui",
  "version": "$version",
  "description": "$description",
  "license": "$license",
  "repository": { "type": "git", "url": "git+$repo_url.git" },
  "homepage": "$repo_url",
  "keywords": ["mcp", "model-context-protocol", "mcp-apps", "ui", "codegen", "cli"],
  "bin": { "mcp-gen-ui": "bin/mcp-gen-ui.js" },
  "files": ["bin/", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
  "engines": { "node": ">=18" },
  "optionalDependencies": {
$deps
  }
}
EOF
  cat >"$stage/bin/mcp-gen-ui.js" <<EOF
#!/usr/bin/env node
// Runs the native mcp-gen-ui binary from this platform's package, which npm installed as one of
// the optionalDependencies (only the one whose "os" and "cpu" match). MCP_GEN_UI_BINARY overrides.
"use strict";
const { spawn } = require("node:child_process");

const PACKAGES = {
$table};

function fail(message) {
  process.stderr.write("mcp-gen-ui: error: " + message + "\n");
  process.exit(2);
}

function binaryPath() {
  if (process.env.MCP_GEN_UI_BINARY) return process.env.MCP_GEN_UI_BINARY;
  const key = process.platform + "-" + process.arch;
  const pkg = PACKAGES[key];
  if (!pkg) {
    fail(
      "no prebuilt binary for " + key + " on npm (there are: " + Object.keys(PACKAGES).join(", ") +
        "). Build it with Rust instead: cargo install mcp-gen-ui",
    );
  }
  const exe = process.platform === "win32" ? "mcp-gen-ui.exe" : "mcp-gen-ui";
  try {
    return require.resolve(pkg + "/bin/" + exe);
  } catch {
    return fail(
      "the package " + pkg + " (the mcp-gen-ui binary for " + key + ") is not installed. It is an " +
        "optional dependency of mcp-gen-ui: reinstall without --omit=optional / --no-optional, " +
        "or install it directly: npm install " + pkg + "@$version",
    );
  }
}

const bin = binaryPath();
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
// A host stopping \`npx mcp-gen-ui serve\` signals this process: pass it on to the binary.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on("error", (err) => fail("cannot run " + bin + ": " + err.message));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 2 : code);
  }
});
EOF
  chmod 755 "$stage/bin/mcp-gen-ui.js"
  (cd "$out/npm" && npm pack --silent "$stage" >/dev/null)
  echo "$out/npm/mcp-gen-ui-$version.tgz (optionalDependencies: ${platforms[*]})"
}

# --- python --------------------------------------------------------------------------------

find_maturin() {
  if [ -n "${MATURIN:-}" ]; then echo "$MATURIN"; return; fi
  if command -v maturin >/dev/null 2>&1; then command -v maturin; return; fi
  local venv="$root/target/dist-tools"
  if [ ! -x "$venv/bin/maturin" ]; then
    step "python: installing maturin from PyPI into $venv" >&2
    python3 -m venv "$venv" >&2 || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet "maturin>=1.9,<2" >&2
  fi
  echo "$venv/bin/maturin"
}

build_python() {
  local maturin
  maturin=$(find_maturin)
  step "python: wheel with $("$maturin" --version) (bindings = \"bin\")"
  local stage="$out/python/stage"
  rm -rf "$stage" && mkdir -p "$stage"
  cp "$root/.github/LICENSE-MIT" "$root/.github/LICENSE-APACHE" "$stage/"
  npm_readme "uvx mcp-gen-ui --version            # or: pipx install mcp-gen-ui / pip install mcp-gen-ui" >"$stage/README.md"
  # Generated, not committed: the pyproject points maturin at the repository's Cargo.toml.
  cat >"$stage/pyproject.toml" <<EOF
[build-system]
requires = ["maturin>=1.9,<2"]
build-backend = "maturin"

[project]
name = "mcp-gen-ui"
dynamic = ["version"]
description = "$description"
readme = "README.md"
license = "$license"
license-files = ["LICENSE-MIT", "LICENSE-APACHE"]
requires-python = ">=3.8"
keywords = ["mcp", "model-context-protocol", "mcp-apps", "ui", "codegen"]
classifiers = [
    "Development Status :: 4 - Beta",
    "Environment :: Console",
    "Intended Audience :: Developers",
    "Programming Language :: Rust",
    "Topic :: Software Development :: Code Generators",
]

[project.urls]
Homepage = "$repo_url"
Repository = "$repo_url"
Documentation = "$repo_url/tree/main/book/src"

[tool.maturin]
bindings = "bin"
manifest-path = "$root/Cargo.toml"
locked = true
EOF
  local extra=()
  # shellcheck disable=SC2206 # MATURIN_ARGS is a list of words on purpose
  [ -n "${MATURIN_ARGS:-}" ] && extra=(${MATURIN_ARGS})
  rm -f "$out/python/"*.whl
  (cd "$stage" && "$maturin" build --release "${target_args[@]}" --out "$out/python" "${extra[@]}")
  ls "$out/python/"*.whl
}

# --- tests ---------------------------------------------------------------------------------

tmp_root=""
cleanup() { [ -z "$tmp_root" ] || rm -rf "$tmp_root"; }
trap cleanup EXIT

weather_server() {
  if [ -n "${WEATHER_SERVER:-}" ]; then echo "$WEATHER_SERVER"; return; fi
  (cd "$root" && cargo build --quiet -p mcp-gen-ui-examples --bin weather-server) >&2
  echo "$root/target/debug/weather-server"
}

# smoke NAME DIR CMD…: in the project directory DIR (made if missing), CMD is the installed
# mcp-gen-ui.
smoke() {
  local name=$1 proj=$2
  shift 2
  local got status
  mkdir -p "$proj"
  # The committed example's settings (its view hints), pointed at the example server's binary.
  grep -v '^#' "$root/examples/weather/mcp-gen-ui.toml" >"$proj/mcp-gen-ui.toml"
  got=$(cd "$proj" && "$@" --version)
  echo "$name: --version: $got"
  [ "$got" = "mcp-gen-ui $version" ] || die "$name: --version said '$got', expected 'mcp-gen-ui $version'"
  (cd "$proj" && "$@" generate --server "$weather") || die "$name: generate failed"
  local pages
  pages=$(cd "$proj/ui" && printf '%s ' ./*.html)
  echo "$name: generate wrote ui/: $pages"
  if [ ! -f "$proj/ui/get_forecast.html" ] || [ ! -f "$proj/ui/mcp-gen-ui.lock" ]; then
    die "$name: generate did not write ui/get_forecast.html and ui/mcp-gen-ui.lock"
  fi
  (cd "$proj" && "$@" check) || die "$name: check of a fresh generate failed"
  (cd "$proj" && "$@" check --format junit >"$proj/junit.xml") || die "$name: check --format junit failed"
  grep -q 'failures="0"' "$proj/junit.xml" || die "$name: the JUnit report of a clean check has failures"
  # The same pages as the committed example (same generator, same settings).
  (cd "$proj" && "$@" --config "$root/examples/weather/mcp-gen-ui.toml" check) ||
    die "$name: check of the committed examples/weather/ui/ failed"
  # A hand edit is found and named.
  printf '<!-- edited by hand -->\n' >>"$proj/ui/get_forecast.html"
  status=0
  (cd "$proj" && "$@" check --format junit >"$proj/junit.xml") || status=$?
  [ "$status" = 1 ] || die "$name: check of a tampered page exited $status, expected 1"
  grep -q 'get_forecast.html' "$proj/junit.xml" || die "$name: the JUnit report does not name the tampered page"
  echo "$name: check: clean -> 0, tampered ui/get_forecast.html -> 1 (named in the JUnit report)"
}

# print_config NAME DIR EXPECTED CMD…: `serve --print-config` of the installed mcp-gen-ui names
# the launcher of its ecosystem with the version pinned (EXPECTED, a fixed string of the JSON).
print_config() {
  local name=$1 proj=$2 expected=$3 snippet
  shift 3
  snippet=$(cd "$proj" && "$@" serve --print-config --server "$weather") ||
    die "$name: serve --print-config failed"
  grep -qF "$expected" <<<"$snippet" ||
    die "$name: serve --print-config does not start with $expected: $snippet"
  echo "$name: serve --print-config: $expected"
}

test_crate() {
  step "test crate: the unpacked crate alone, built offline (cargo install --path, --debug; several minutes), run"
  local dir="$tmp_root/crate"
  mkdir -p "$dir/src"
  tar -C "$dir/src" -xzf "$out/crate/mcp-gen-ui-$version.crate"
  # A target directory of its own: nothing compiled from the repository is reused (a shared one
  # would take `cargo package`'s verification build of the same files as fresh).
  if ! cargo install --offline --locked --debug --path "$dir/src/mcp-gen-ui-$version" \
    --root "$dir/root" --target-dir "$dir/target" >"$dir/build.log" 2>&1; then
    tail -n 40 "$dir/build.log" >&2
    die "crate: cargo install of the unpacked crate failed"
  fi
  grep -E '^ *(Compiling mcp-gen-ui |Finished|Installed)' "$dir/build.log" || true
  smoke crate "$dir/project" "$dir/root/bin/mcp-gen-ui"
}

test_archive() {
  step "test archive: the layout cargo-binstall expects (bin-dir in Cargo.toml)"
  local dir="$tmp_root/archive" name="mcp-gen-ui-v$version-$target"
  mkdir -p "$dir"
  tar -C "$dir" -xzf "$out/archive/$name.tar.gz"
  (cd "$out/archive" && sha256sum --quiet -c "$name.tar.gz.sha256")
  smoke archive "$dir/project" "$dir/$name/mcp-gen-ui"
}

test_npm() {
  step "test npm: npm install --offline of the two tarballs into a new project, run with npx"
  local dir="$tmp_root/npm" os cpu
  read -r os cpu <<<"$(npm_platform_of "$target")"
  mkdir -p "$dir"
  (
    cd "$dir"
    npm init -y >/dev/null
    npm install --offline --no-audit --no-fund --loglevel=error \
      "$out/npm/mcp-gen-ui-$version.tgz" "$out/npm/${npm_scope#@}-$os-$cpu-$version.tgz"
  )
  smoke npm "$dir" npx --offline --yes=false mcp-gen-ui
  print_config npm "$dir" "\"command\":\"npx\",\"args\":[\"-y\",\"mcp-gen-ui@$version\",\"serve\"" \
    npx --offline --yes=false mcp-gen-ui
  # As from the registry: `npm install mcp-gen-ui` with an empty cache, from a registry on
  # 127.0.0.1 that serves the two packages only, so npm itself picks the platform package out of
  # the optionalDependencies by its "os" and "cpu".
  local reg="$tmp_root/npm-registry" port="" server_pid
  mkdir -p "$reg"
  node - "$reg/port" "$out/npm/stage/meta" "$out/npm/mcp-gen-ui-$version.tgz" \
    "$out/npm/stage/$os-$cpu" "$out/npm/${npm_scope#@}-$os-$cpu-$version.tgz" <<'JS' &
const http = require("node:http"), fs = require("node:fs"), crypto = require("node:crypto");
const [portFile, ...pairs] = process.argv.slice(2);
const packages = {}, tarballs = {};
for (let i = 0; i < pairs.length; i += 2) {
  const manifest = JSON.parse(fs.readFileSync(pairs[i] + "/package.json", "utf8"));
  const bytes = fs.readFileSync(pairs[i + 1]);
  const file = manifest.name.replace("/", "-").replace("@", "") + "-" + manifest.version + ".tgz";
  tarballs["/-/" + file] = bytes;
  packages[manifest.name] = { manifest, file, bytes };
}
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split("?")[0]);
  if (tarballs[url]) return res.end(tarballs[url]);
  const pkg = packages[url.slice(1)];
  if (!pkg) return res.writeHead(404).end("{}");
  const base = "http://127.0.0.1:" + server.address().port;
  const dist = {
    tarball: base + "/-/" + pkg.file,
    integrity: "sha512-" + crypto.createHash("sha512").update(pkg.bytes).digest("base64"),
    shasum: crypto.createHash("sha1").update(pkg.bytes).digest("hex"),
  };
  const v = pkg.manifest.version;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ name: pkg.manifest.name, "dist-tags": { latest: v },
    versions: { [v]: { ...pkg.manifest, _id: pkg.manifest.name + "@" + v, dist } } }));
});
server.listen(0, "127.0.0.1", () => fs.writeFileSync(portFile, String(server.address().port)));
setTimeout(() => process.exit(0), 300000).unref();
process.on("SIGTERM", () => process.exit(0));
JS
  server_pid=$!
  for _ in $(seq 100); do
    [ -s "$reg/port" ] && port=$(cat "$reg/port") && break
    sleep 0.1
  done
  [ -n "$port" ] || die "npm: the local registry did not start"
  mkdir -p "$reg/project"
  local status=0
  (cd "$reg/project" && npm init -y >/dev/null &&
    npm install --registry "http://127.0.0.1:$port/" --cache "$reg/cache" --no-audit --no-fund \
      --loglevel=error mcp-gen-ui) || status=$?
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  [ "$status" = 0 ] || die "npm: npm install mcp-gen-ui from the local registry failed"
  [ -x "$reg/project/node_modules/$npm_scope/$os-$cpu/bin/mcp-gen-ui" ] ||
    die "npm: installing mcp-gen-ui did not bring $npm_scope/$os-$cpu"
  local got
  got=$(cd "$reg/project" && npx --offline --yes=false mcp-gen-ui --version)
  [ "$got" = "mcp-gen-ui $version" ] || die "npm: from the registry, --version said '$got'"
  echo "npm: npm install mcp-gen-ui from a registry on 127.0.0.1 brought $npm_scope/$os-$cpu; npx mcp-gen-ui --version: $got"
  # Without the platform package the launcher says what is missing (and exits 2).
  local bare="$tmp_root/npm-bare" status=0 msg
  mkdir -p "$bare"
  (cd "$bare" && npm init -y >/dev/null && npm install --offline --no-audit --no-fund --loglevel=error \
    --omit=optional "$out/npm/mcp-gen-ui-$version.tgz")
  msg=$(cd "$bare" && npx --offline --yes=false mcp-gen-ui --version 2>&1) || status=$?
  if [ "$status" != 2 ] || ! grep -q "$npm_scope/$os-$cpu" <<<"$msg"; then
    die "npm: without the platform package: exit $status, '$msg'"
  fi
  echo "npm: without the platform package: exit 2, $msg"
}

test_python() {
  step "test python: pip install --no-index of the wheel into a new virtualenv"
  local dir="$tmp_root/python" wheel
  wheel=$(ls "$out/python/"*.whl)
  python3 -m venv "$dir/venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  "$dir/venv/bin/pip" install --quiet --no-index --no-deps "$wheel"
  smoke python "$dir/project" "$dir/venv/bin/mcp-gen-ui"
  print_config python "$dir/project" "\"command\":\"uvx\",\"args\":[\"mcp-gen-ui@$version\",\"serve\"" \
    "$dir/venv/bin/mcp-gen-ui"
  # uvx, the way the README runs it, when uv is there (UVX names one; pip install uv).
  local uvx=${UVX:-uvx}
  if command -v "$uvx" >/dev/null 2>&1; then
    step "test python: uvx --offline --from the wheel"
    UV_CACHE_DIR="$dir/uv-cache" smoke uvx "$dir/uvx-project" "$uvx" --offline --quiet --from "$wheel" mcp-gen-ui
  else
    echo "python: no uvx here (pip install uv, or UVX=/path/to/uvx): the uvx run is skipped"
  fi
}

# --- run -----------------------------------------------------------------------------------

want crate && build_crate
want archive && build_archive
want npm-platform && build_npm_platform
want npm-meta && build_npm_meta
want python && build_python

if [ "$run_tests" = 1 ]; then
  tmp_root=$(mktemp -d "${TMPDIR:-/tmp}/mcp-gen-ui-package.XXXXXX")
  weather=$(weather_server)
  want crate && test_crate
  want archive && test_archive
  want npm-platform && want npm-meta && test_npm
  want python && test_python
  step "all artefacts passed"
fi
