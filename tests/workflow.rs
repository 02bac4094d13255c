//! The developer loop against a real server: refine (builtin phrase grammar), diff, init, and the
//! pre-commit hook blocking a tampered UI in a real git repository.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::{Value, json};

mod support;
use support::cli::all_output;
use support::context::forecast_tools as tools;
use support::{BIN, Project, bin, cleared, exits_saying, lock_toml};

fn project() -> Project {
    Project::generated(&tools())
}

fn lock(dir: &Path) -> toml::Table {
    lock_toml(dir)
}

fn refinements(dir: &Path) -> Vec<String> {
    lock(dir)["tools"]["get_forecast"]["refinements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn refine_records_history_regenerates_and_prints_the_diff() {
    let dir = project();
    let d = dir.path();
    let before = std::fs::read_to_string(d.join("ui/get_forecast.html")).unwrap();
    bin()
        .current_dir(d)
        .args([
            "refine",
            "get_forecast",
            "line chart of high and low by date",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("--- a/get_forecast.html")
                .and(predicate::str::contains("+++ b/get_forecast.html")),
        );
    assert_eq!(refinements(d), ["line chart of high and low by date"]);
    let after = std::fs::read_to_string(d.join("ui/get_forecast.html")).unwrap();
    assert_ne!(before, after, "the refinement must change the UI");
    bin().current_dir(d).arg("check").assert().success();
    // A second run has nothing to do: the refinement is part of the tool's state.
    bin()
        .current_dir(d)
        .arg("generate")
        .assert()
        .success()
        .stdout(predicate::str::contains("Up to date"));

    // Unreadable feedback is kept and reported, exit 0.
    exits_saying(
        d,
        &["refine", "get_forecast", "make it sparkle like a unicorn"],
        0,
        "llm",
    );
    assert_eq!(refinements(d).len(), 2);

    bin()
        .current_dir(d)
        .args(["refine", "get_forecast", "--undo"])
        .assert()
        .success();
    assert_eq!(refinements(d), ["line chart of high and low by date"]);
    bin()
        .current_dir(d)
        .args(["refine", "get_forecast", "--clear"])
        .assert()
        .success();
    assert!(refinements(d).is_empty());
    assert_eq!(
        std::fs::read_to_string(d.join("ui/get_forecast.html")).unwrap(),
        before,
        "clearing the history restores the original UI"
    );
    bin().current_dir(d).arg("check").assert().success();

    // Errors.
    exits_saying(d, &["refine", "nope", "table"], 2, "get_forecast");
    bin()
        .current_dir(d)
        .args(["refine", "get_forecast"])
        .assert()
        .code(2);
    exits_saying(
        d,
        &["refine", "get_forecast", "--undo"],
        2,
        "no refinements",
    );
}

#[test]
fn diff_shows_upstream_drift_and_file_changes() {
    let dir = project();
    let d = dir.path();
    exits_saying(d, &["diff", "--exit-code"], 0, "No differences");

    let mut t = tools();
    t[0]["description"] = json!("Daily forecast, with wind.");
    t[0]["inputSchema"]["properties"]["days"] = json!({"type": "integer", "maximum": 14});
    t.as_array_mut()
        .unwrap()
        .push(json!({"name": "new_tool", "inputSchema": {"type": "object"}}));
    std::fs::write(d.join("tools.json"), t.to_string()).unwrap();

    bin()
        .current_dir(d)
        .args(["diff", "--exit-code"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("tool `new_tool` (new upstream)")
                .and(predicate::str::contains("/description"))
                .and(predicate::str::contains("/inputSchema/properties/days"))
                .and(predicate::str::contains("+++ b/new_tool.html"))
                .and(predicate::str::contains("--- a/get_forecast.html")),
        );
    // Without --exit-code a difference is not a failure.
    bin().current_dir(d).arg("diff").assert().success();

    let out = bin()
        .current_dir(d)
        .args(["diff", "--format", "json", "get_forecast"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["differs"], true);
    assert!(
        v["upstream"]["added"].as_array().unwrap().is_empty(),
        "filtered to get_forecast"
    );
    assert_eq!(v["files"][0]["path"], "get_forecast.html");
    assert_eq!(v["files"][0]["status"], "modified");
    // diff writes nothing.
    bin().current_dir(d).arg("check").assert().success();
}

#[test]
fn init_non_interactive_writes_config_and_gitattributes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = support::fixture("ok");
    bin()
        .current_dir(d)
        .args(["init", "--server", &server, "--out-dir", "gen ui"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Wrote mcp-gen-ui.toml"));
    let text = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap();
    assert!(text.contains("out_dir = \"gen ui\""), "{text}");
    let attrs = std::fs::read_to_string(d.join(".gitattributes")).unwrap();
    assert_eq!(attrs, "gen ui/** linguist-generated=true -text\n");
    // The written config works as is.
    bin().current_dir(d).arg("generate").assert().success();
    assert!(d.join("gen ui/echo.html").exists());
    bin().current_dir(d).arg("check").assert().success();
    // Never clobbered without --force; the attribute line is not duplicated.
    exits_saying(d, &["init", "--server", &server], 2, "already exists");
    bin()
        .current_dir(d)
        .args([
            "init",
            "--server",
            &server,
            "--out-dir",
            "gen ui",
            "--force",
        ])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(d.join(".gitattributes")).unwrap(),
        attrs
    );
    // Not a terminal and no upstream: say what to pass.
    let empty = tempfile::tempdir().unwrap();
    exits_saying(empty.path(), &["init"], 2, "--server");
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    support::context::git(dir, args)
}

#[test]
fn the_hook_blocks_a_commit_with_a_tampered_ui() {
    let dir = project();
    let d = dir.path();
    assert!(git(d, &["init", "-q"]).status.success());
    bin()
        .current_dir(d)
        .args(["hook", "install"])
        .assert()
        .success();
    let hook = std::fs::read_to_string(d.join(".git/hooks/pre-commit")).unwrap();
    assert!(hook.contains("check"));

    git(d, &["add", "-A"]);
    let ok = git(d, &["commit", "-qm", "generated UIs"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let f = d.join("ui/get_forecast.html");
    let tampered = std::fs::read_to_string(&f)
        .unwrap()
        .replace("<body", "<body data-x=\"1\"");
    std::fs::write(&f, tampered).unwrap();
    git(d, &["add", "-A"]);
    let blocked = git(d, &["commit", "-qm", "tampered"]);
    assert!(!blocked.status.success(), "the hook must refuse the commit");
    let all = all_output(&blocked);
    assert!(all.contains("hash-mismatch"), "{all}");

    // Re-installing our own hook is fine; a foreign hook is never clobbered.
    bin()
        .current_dir(d)
        .args(["hook", "install"])
        .assert()
        .success();
    std::fs::write(d.join(".git/hooks/pre-commit"), "#!/bin/sh\necho mine\n").unwrap();
    exits_saying(d, &["hook", "install"], 2, "not written by mcp-gen-ui");
    assert_eq!(
        std::fs::read_to_string(d.join(".git/hooks/pre-commit")).unwrap(),
        "#!/bin/sh\necho mine\n"
    );
    // Outside a repository: a clear error.
    let nogit = tempfile::tempdir().unwrap();
    exits_saying(nogit.path(), &["hook", "install"], 2, "git");
}

#[test]
fn init_interactive_under_a_pseudo_terminal() {
    // A person at a terminal: the upstream is tried live and its tools listed, the defaults taken.
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/init_pty.py");
    let server = support::fixture("ok");
    // The kit's cleared environment without `CI`: init asks only outside CI.
    let out = cleared(Command::new("python3"))
        .arg(&script)
        .arg(BIN)
        .arg(dir.path())
        .arg(&server)
        .output()
        .expect("python3 is needed to drive a pseudo-terminal");
    let transcript = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{transcript}");
    assert!(
        transcript.contains("Found 1 tool on `fixture-ok`: echo"),
        "{transcript}"
    );
    let cfg = std::fs::read_to_string(dir.path().join("mcp-gen-ui.toml")).unwrap();
    assert!(cfg.contains("args = [\"--mode\", \"ok\"]"), "{cfg}");
    assert!(cfg.contains("generator = \"builtin\""), "{cfg}");
    bin()
        .current_dir(dir.path())
        .arg("generate")
        .assert()
        .success();
}
