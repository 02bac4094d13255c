//! `check`: each kind of drift with exit 1, a missing or broken lock, a tool that changes
//! upstream, and `check --server` against another server.

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::{Value, json};

mod support;
use support::cli::*;
use support::{Project, fixture};

#[test]
fn check_reports_each_kind_of_drift_with_exit_1() {
    let p = Project::generated(&two_tools());
    assert_eq!(check_json(&p).0, 0);

    // A hand edit.
    let path = p.ui().join("get_forecast.html");
    let original = std::fs::read(&path).unwrap();
    std::fs::write(&path, [original.as_slice(), b"<!-- mine -->"].concat()).unwrap();
    assert_drift(&p, &["hash-mismatch"]);
    std::fs::write(&path, &original).unwrap();

    // A deleted file.
    std::fs::remove_file(p.ui().join("add_note.html")).unwrap();
    assert_drift(&p, &["missing-file"]);
    p.ok(&["generate"]);

    // A stray file.
    std::fs::write(p.ui().join("notes.txt"), "hello").unwrap();
    assert_drift(&p, &["stray-file"]);
    p.cmd()
        .arg("check")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("notes.txt"));
    std::fs::remove_file(p.ui().join("notes.txt")).unwrap();

    // A configuration change that shapes output.
    let cfg = p.path().join("mcp-gen-ui.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(
        &cfg,
        format!("{text}\n[tools.get_forecast]\nhints = {{ view = \"table\" }}\n"),
    )
    .unwrap();
    assert_drift(&p, &["config-drift"]);
    p.ok(&["generate"])
        .stdout(predicate::str::contains("regenerated"));
    assert_eq!(check_json(&p).0, 0);

    // JUnit output for CI dashboards.
    std::fs::write(p.ui().join("stray.html"), "x").unwrap();
    p.cmd()
        .args(["check", "--format", "junit"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("<testsuite").and(predicate::str::contains("stray.html")));
}

#[test]
fn check_without_lock_and_with_broken_lock() {
    let p = Project::new(&two_tools());
    assert_drift(&p, &["no-lock"]);
    p.ok(&["generate"]);
    std::fs::write(p.ui().join("mcp-gen-ui.lock"), "version = [").unwrap();
    p.exits_saying(&["check"], 2, "mcp-gen-ui.lock");
}

#[test]
fn tool_changing_upstream_is_drift_then_regenerated() {
    let p = Project::generated(&two_tools());
    let mut tools = two_tools();
    tools[0]["description"] = json!("Daily forecast, now with wind.");
    p.set_tools(&tools);

    // Offline check cannot know; online check can.
    p.ok(&["check"]);
    let out = p
        .cmd()
        .args(["check", "--server", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(kinds(&v), ["tool-drift"]);
    assert_eq!(v["findings"][0]["tool"], "get_forecast");

    p.ok(&["list", "--online"])
        .stdout(predicate::str::contains("tool changed upstream"));
    p.ok(&["generate"]).stdout(
        predicate::str::contains("get_forecast")
            .and(predicate::str::contains("tool changed upstream")),
    );
    p.ok(&["check", "--online"]);

    // A new tool and a removed one.
    let tools = json!([tools[0].clone(), {"name": "brand_new", "inputSchema": {"type": "object"}}]);
    p.set_tools(&tools);
    let (_, _) = check_json(&p);
    let v = p.json(&["check", "--online", "--format", "json"]);
    let mut k = kinds(&v);
    k.sort();
    assert_eq!(k, ["new-tool", "removed-tool"]);
    p.ok(&["generate"])
        .stdout(predicate::str::contains("removed").and(predicate::str::contains("brand_new")));
    assert!(!p.ui().join("add_note.html").exists());
    assert!(p.ui().join("brand_new.html").exists());
    assert!(!p.read("mcp-gen-ui.lock").contains("add_note"));
    p.ok(&["check", "--online"]);
}

/// `check --server CMD` compares the lock with that server, not the configured one.
#[test]
fn check_with_a_server_compares_with_that_server() {
    let p = Project::generated(&two_tools());
    p.cmd().arg("check").assert().code(0);
    p.cmd().args(["check", "--online"]).assert().code(0);
    // Another server (one `echo` tool): the configured one's two tools are gone there.
    let out = p
        .cmd()
        .args(["check", "--format", "json", "--server", &fixture("ok")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(
        text.contains("get_forecast") && text.contains("add_note") && text.contains("echo"),
        "{text}"
    );
    // The same command line as the configured server: clean.
    let tools_file = p.path().join("tools.json");
    let same = format!(
        "{} --tools-file {}",
        fixture("changing"),
        shell_words::quote(&tools_file.display().to_string())
    );
    p.cmd().args(["check", "--server", &same]).assert().code(0);
}
