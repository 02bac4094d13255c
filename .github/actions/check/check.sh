#!/usr/bin/env bash
# The script of the `check` action (action.yml beside it): installs mcp-gen-ui from npm unless
# INPUT_BINARY names one, runs `mcp-gen-ui check --format junit` in the current directory, writes
# the report to INPUT_JUNIT_FILE, prints each finding (and an annotation on GitHub) and exits with
# check's code: 0 clean, 1 findings, 2 error.
#
# With INPUT_REVIEW_BASE (a git revision, e.g. the pull request's base commit) it also runs
# `mcp-gen-ui diff --base REV --format markdown` (offline) and appends the change lines, escaped
# by mcp-gen-ui, to the job summary; a review that cannot run is a warning, never the job's fail.
# INPUT_REVIEW_VISUAL=true adds --visual: the pictures go to the `review-dir` output.
#
# Inputs come from the environment: INPUT_VERSION, INPUT_CONFIG, INPUT_JUNIT_FILE, INPUT_ONLINE,
# INPUT_BINARY, INPUT_REVIEW_BASE, INPUT_REVIEW_VISUAL, ACTION_REF (the action's own ref: a vX.Y.Z tag picks that version).
# MCP_GEN_UI_NPM_SPECS (space-separated) replaces the npm package to install, e.g. the tarballs
# built by .github/scripts/package.sh when testing this script without a registry.
set -euo pipefail

junit=${INPUT_JUNIT_FILE:-mcp-gen-ui-junit.xml}
case "$junit" in /*) ;; *) junit="$PWD/$junit" ;; esac

# --- install -------------------------------------------------------------------------------

bin=${INPUT_BINARY:-}
if [ -z "$bin" ]; then
  version=${INPUT_VERSION:-}
  if [ -z "$version" ]; then
    if [[ "${ACTION_REF:-}" =~ ^v?([0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?)$ ]]; then
      version=${BASH_REMATCH[1]}
    else
      version=latest
    fi
  fi
  command -v npm >/dev/null 2>&1 || {
    echo "::error title=mcp-gen-ui check::npm is needed to install mcp-gen-ui (add actions/setup-node), or pass the binary input"
    exit 2
  }
  prefix="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-gen-ui-action"
  rm -rf "$prefix" && mkdir -p "$prefix"
  # shellcheck disable=SC2206 # a list of npm specs on purpose
  specs=(${MCP_GEN_UI_NPM_SPECS:-"mcp-gen-ui@$version"})
  echo "installing ${specs[*]} from npm"
  (cd "$prefix" && echo '{"private":true}' >package.json &&
    npm install --no-audit --no-fund --loglevel=error "${specs[@]}")
  bin="$prefix/node_modules/.bin/mcp-gen-ui"
fi
"$bin" --version

# --- check ---------------------------------------------------------------------------------

args=()
[ -n "${INPUT_CONFIG:-}" ] && args+=(--config "$INPUT_CONFIG")
args+=(check --format junit)
[ "${INPUT_ONLINE:-false}" = "true" ] && args+=(--online)

mkdir -p "$(dirname "$junit")"
status=0
"$bin" "${args[@]}" >"$junit" || status=$?

# --- report --------------------------------------------------------------------------------

unxml() {
  local s=$1
  s=${s//&lt;/<}
  s=${s//&gt;/>}
  s=${s//&quot;/\"}
  s=${s//&apos;/\'}
  s=${s//&amp;/&}
  printf '%s' "$s"
}
# Workflow-command escaping (GitHub's rules for annotation data and properties).
escape_data() {
  local s=$1
  s=${s//'%'/%25}
  s=${s//$'\r'/%0D}
  s=${s//$'\n'/%0A}
  printf '%s' "$s"
}
escape_property() {
  local s
  s=$(escape_data "$1")
  s=${s//:/%3A}
  s=${s//,/%2C}
  printf '%s' "$s"
}

findings=0
re='<testcase classname="([^"]*)" name="([^"]*)"><failure message="([^"]*)"/></testcase>'
while IFS= read -r line; do
  [[ "$line" =~ $re ]] || continue
  findings=$((findings + 1))
  kind=${BASH_REMATCH[1]#mcp-gen-ui.}
  name=$(unxml "${BASH_REMATCH[2]}")
  message=$(unxml "${BASH_REMATCH[3]}")
  printf '%s: %s: %s\n' "$kind" "$name" "$message"
  if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    # The file, when the finding names one that exists: relative to the repository for GitHub.
    file="" path=""
    if [ -f "$name" ]; then path=$name; fi
    set -f
    for word in $message; do
      word=${word%[:,.]}
      case "$word" in */"$name") if [ -z "$path" ] && [ -f "$word" ]; then path=$word; fi ;; esac
    done
    set +f
    if [ -n "$path" ]; then
      file=",file=$(escape_property "$(realpath --relative-to="${GITHUB_WORKSPACE:-$PWD}" "$path")")"
    fi
    printf '::error title=%s%s::%s\n' "$(escape_property "mcp-gen-ui check: $kind")" "$file" \
      "$(escape_data "$name: $message")"
  fi
done <"$junit"

# --- review --------------------------------------------------------------------------------

review_base=${INPUT_REVIEW_BASE:-}
if [ -n "$review_base" ] && [ "$review_base" != "none" ]; then
  review_args=()
  [ -n "${INPUT_CONFIG:-}" ] && review_args+=(--config "$INPUT_CONFIG")
  review_args+=(diff --base "$review_base" --format markdown)
  review_dir=""
  if [ "${INPUT_REVIEW_VISUAL:-false}" = "true" ]; then
    review_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-gen-ui-review"
    review_args+=(--visual --review-dir "$review_dir")
  fi
  review_status=0
  review=$("$bin" "${review_args[@]}") || review_status=$?
  if [ "$review_status" -eq 0 ]; then
    printf '%s\n' "$review"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
      printf '%s\n\n' "$review" >>"$GITHUB_STEP_SUMMARY"
    fi
  else
    echo "::warning title=mcp-gen-ui review::could not compare ui/ with $(escape_data "$review_base") (exit $review_status): fetch the base commit (actions/checkout with fetch-depth: 0)"
  fi
fi

case "$status" in
  0) summary="mcp-gen-ui check: clean" ;;
  1) summary="mcp-gen-ui check: $findings finding(s); run \`mcp-gen-ui list\` and \`mcp-gen-ui generate\` locally, then commit ui/" ;;
  *) summary="mcp-gen-ui check could not run (exit $status): see the error above" ;;
esac
echo "$summary"
echo "JUnit report: $junit"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  printf '%s\n' "$summary" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "junit-file=$junit"
    echo "exit-code=$status"
    if [ -n "${review_dir:-}" ] && [ -d "$review_dir" ]; then echo "review-dir=$review_dir"; fi
  } >>"$GITHUB_OUTPUT"
fi
exit "$status"
