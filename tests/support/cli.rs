//! Helpers of the `cli_*` test files: tools to serve, a folder's files with their times, what
//! `check --format json` says, and mcp-gen-ui started with secrets in its environment to show
//! that none of them leaks.

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::context::{Project, bin, toml_str};
use super::examples::example;

pub fn two_tools() -> Value {
    json!([
        {"name": "get_forecast", "title": "Forecast", "description": "Daily forecast.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}, "required": ["city"]},
         "annotations": {"readOnlyHint": true}},
        {"name": "add_note", "description": "Adds a note.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
         "annotations": {"destructiveHint": true}}
    ])
}

pub fn snapshot_dir(dir: &Path) -> Vec<(String, Vec<u8>, std::time::SystemTime)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let meta = e.metadata().unwrap();
            out.push((
                e.path().display().to_string(),
                std::fs::read(e.path()).unwrap(),
                meta.modified().unwrap(),
            ));
        }
    }
    out
}

pub fn check_json(p: &Project) -> (i32, Value) {
    let out = p
        .cmd()
        .args(["check", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

/// `check` finds the project drifted (exit 1) with findings of exactly these kinds.
pub fn assert_drift(p: &Project, want: &[&str]) {
    let (code, v) = check_json(p);
    assert_eq!(
        (code, kinds(&v)),
        (1, want.iter().map(|k| k.to_string()).collect()),
        "{v}"
    );
}

pub fn kinds(v: &Value) -> Vec<String> {
    v["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["kind"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Secrets: what mcp-gen-ui holds and must never pass on or print.

pub const TOKEN_SECRET: &str = "tok-mcp-gen-ui-SECRET-4711";

pub const OPENAI_SECRET: &str = "sk-openai-SECRET-0815";

pub const ANTHROPIC_SECRET: &str = "sk-ant-SECRET-1234";

pub const UPSTREAM_SECRET: &str = "upstream-SECRET-9999";

/// mcp-gen-ui with its own secrets in the environment, plus a secret only the config names.
pub fn bin_with_secrets() -> Command {
    let mut c = bin();
    c.env("MCP_GEN_UI_TOKEN", TOKEN_SECRET)
        .env("OPENAI_API_KEY", OPENAI_SECRET)
        .env("ANTHROPIC_API_KEY", ANTHROPIC_SECRET)
        .env("MY_UPSTREAM_SECRET", UPSTREAM_SECRET)
        .env("EXTRA_SETTING", "extra-value")
        .env("UNLISTED_VAR", "unlisted-value");
    c
}

pub fn wait_for_file(path: &Path, secs: u64) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Ok(s) = std::fs::read_to_string(path) {
            return s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

pub fn assert_no_secret(what: &str, text: &str) {
    for s in [
        TOKEN_SECRET,
        OPENAI_SECRET,
        ANTHROPIC_SECRET,
        UPSTREAM_SECRET,
    ] {
        assert!(!text.contains(s), "{what} contains the secret {s}: {text}");
    }
}

// ---------------------------------------------------------------------------------------------
// What a newcomer trips on: withheld variables, --env, --protocol, check --server.

/// Writes `dir/mcp-gen-ui.toml` with the example `fixture-server` as the upstream's command,
/// then `rest` (more `[upstream]` keys, other tables).
pub fn fixture_server_config(dir: &Path, rest: &str) {
    let command = toml_str(&example("fixture-server").display().to_string());
    std::fs::write(
        dir.join("mcp-gen-ui.toml"),
        format!("[upstream]\ncommand = {command}\n{rest}"),
    )
    .unwrap();
}

/// Runs [`bin_with_secrets`] in `dir` with `args` to the end.
pub fn run_with_secrets(dir: &Path, args: &[&str]) -> std::process::Output {
    bin_with_secrets()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

pub fn all_output(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Running a command to its end, checking its exit code first.
pub trait OutputExits {
    /// Runs the command and asserts it exits with `code`; its stdout and stderr, together.
    fn output_exits(&mut self, code: i32) -> String;
}

impl OutputExits for Command {
    fn output_exits(&mut self, code: i32) -> String {
        let out = self.output().unwrap();
        let text = all_output(&out);
        assert_eq!(out.status.code(), Some(code), "{text}");
        text
    }
}
