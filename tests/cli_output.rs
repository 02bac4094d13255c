//! The CLI's output pinned by snapshots (uv-style): `--help` of every command, the generate
//! summary, `check` in text, JSON and JUnit, `diff`, `list` and `inspect`, run as a user would
//! against the real fixture server. Temporary paths are replaced by `[TMP]`, the example
//! server's path by `[FIXTURE]`, page sizes by `[SIZE]`, template versions by `[VERSION]`, page
//! URIs' versions by `[PAGE]` and page hashes by `[PAGE-SHA256]`, so the snapshots pin what the CLI says, not the bytes of the pages
//! (the builtin snapshots do that). Review changes with `cargo insta review` (or accept them with
//! `INSTA_UPDATE=always`).

use std::path::Path;

use serde_json::{Value, json};

mod support;
use support::{bin, example};

/// Runs the binary in `dir` and returns its exit code, stdout and stderr as one reviewable text.
fn run(dir: &Path, args: &[&str]) -> String {
    let out = bin()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = format!(
        "exit: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).trim_end(),
        String::from_utf8_lossy(&out.stderr).trim_end()
    );
    let dir = dir.display().to_string();
    let canonical = std::fs::canonicalize(&dir)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| dir.clone());
    let text = text
        .replace(&canonical, "[TMP]")
        .replace(&dir, "[TMP]")
        .replace(
            &example("fixture-server").display().to_string(),
            "[FIXTURE]",
        );
    redact_uri_versions(&redact_page_hashes(&redact_versions(&redact_sizes(&text))))
}

/// A page URI's `?v=` and 8 hex digits → `?v=[PAGE]`: the version is the page's hash, which
/// moves with every template change (the URI's form stays pinned).
fn redact_uri_versions(text: &str) -> String {
    redact_hex_after(text, "?v=", 8, "[PAGE]")
}

/// A page's `"sha256": "…"` → `"sha256": "[PAGE-SHA256]"`: it moves with every template change,
/// which the builtin snapshots pin already (tool and config hashes stay: they are the CLI's).
fn redact_page_hashes(text: &str) -> String {
    redact_hex_after(text, "\"sha256\": \"", 64, "[PAGE-SHA256]")
}

/// Every run of exactly `len` hex digits right after `key` → `mask`.
fn redact_hex_after(text: &str, key: &str, len: usize, mask: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        let end = rest
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len());
        if end == len {
            out.push_str(mask);
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// `38.6 KB` → `[SIZE]`, and the `"bytes": 39526` of JSON output → `"bytes": [SIZE]`.
fn redact_sizes(text: &str) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let mut line = line.to_string();
        while let Some(at) = line.find(" KB") {
            let start = line[..at]
                .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(0, |i| i + 1);
            line.replace_range(start..at + 3, "[SIZE]");
        }
        if let Some(at) = line.find("\"bytes\": ") {
            let from = at + "\"bytes\": ".len();
            let end = line[from..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(line.len(), |i| from + i);
            line.replace_range(from..end, "[SIZE]");
        }
        out.push_str(&line);
    }
    out
}

/// `builtin-3+41599c46cb15` → `builtin-[VERSION]`.
fn redact_versions(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("builtin-") {
        out.push_str(&rest[..at + "builtin-".len()]);
        rest = &rest[at + "builtin-".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_hexdigit() || c == '+'))
            .unwrap_or(rest.len());
        if end > 0 {
            out.push_str("[VERSION]");
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// A project whose upstream is the `changing` fixture serving `tools`.
fn project(tools: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    set_tools(dir.path(), tools);
    let cmd = serde_json::to_string(&example("fixture-server").display().to_string()).unwrap();
    std::fs::write(
        dir.path().join("mcp-gen-ui.toml"),
        format!(
            "[upstream]\ncommand = {cmd}\nargs = [\"--mode\", \"changing\", \"--tools-file\", \"tools.json\"]\ncwd = \".\"\n\n[tools.forecast]\nhints = {{ view = \"line\", x = \"date\", y = [\"high\"] }}\n"
        ),
    )
    .unwrap();
    dir
}

fn set_tools(dir: &Path, tools: &Value) {
    std::fs::write(dir.join("tools.json"), tools.to_string()).unwrap();
}

fn tools(days_max: u32) -> Value {
    json!([
        {"name": "forecast", "title": "Forecast", "description": "Daily forecast for a city.",
         "inputSchema": {"type": "object", "required": ["city"], "properties": {
             "city": {"type": "string"},
             "days": {"type": "integer", "minimum": 1, "maximum": days_max}}},
         "annotations": {"readOnlyHint": true}},
        {"name": "delete_city", "description": "Forget a city.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
         "annotations": {"destructiveHint": true}}
    ])
}

#[test]
fn help_of_every_command() {
    let dir = tempfile::tempdir().unwrap();
    insta::assert_snapshot!("help", run(dir.path(), &["--help"]));
    for cmd in [
        "init", "generate", "refine", "diff", "check", "list", "inspect", "validate", "hook",
        "serve", "preview",
    ] {
        insta::assert_snapshot!(format!("help-{cmd}"), run(dir.path(), &[cmd, "--help"]));
    }
}

#[test]
fn the_generate_check_diff_loop() {
    let p = project(&tools(14));
    let d = p.path();
    insta::assert_snapshot!("check-before-generate", run(d, &["check"]));
    insta::assert_snapshot!("generate-first", run(d, &["generate"]));
    insta::assert_snapshot!("generate-noop", run(d, &["generate"]));
    insta::assert_snapshot!("check-clean", run(d, &["check"]));
    insta::assert_snapshot!("list", run(d, &["list"]));
    insta::assert_snapshot!("inspect", run(d, &["inspect", "forecast"]));
    insta::assert_snapshot!(
        "inspect-json",
        run(d, &["inspect", "forecast", "--format", "json"])
    );

    // The upstream changes a maximum and a file is edited by hand.
    set_tools(d, &tools(30));
    let page = d.join("ui/delete_city.html");
    let mut html = std::fs::read_to_string(&page).unwrap();
    html.push_str("<!-- edited -->\n");
    std::fs::write(&page, html).unwrap();
    insta::assert_snapshot!("check-drift", run(d, &["check", "--online"]));
    insta::assert_snapshot!(
        "check-drift-json",
        run(d, &["check", "--online", "--format", "json"])
    );
    insta::assert_snapshot!(
        "check-drift-junit",
        run(d, &["check", "--online", "--format", "junit"])
    );
    insta::assert_snapshot!(
        "list-online",
        run(d, &["list", "--online", "--format", "json"])
    );
    // The definition drift and the file header; the page's own lines are the builtin snapshots'.
    let diff = run(d, &["diff", "--exit-code", "forecast"]);
    let head: Vec<&str> = diff.lines().take(6).collect();
    insta::assert_snapshot!("diff-head", head.join("\n"));
    insta::assert_snapshot!("generate-after-drift", run(d, &["generate", "--dry-run"]));
    insta::assert_snapshot!(
        "generate-after-drift-json",
        run(d, &["generate", "--dry-run", "--format", "json"])
    );
}
