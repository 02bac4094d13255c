//! The other commands' exit codes and messages (book: reference/exit-codes.md): broken upstreams
//! and configs, `list`, `inspect`, `validate`, `refine`'s feedback, a signal during `initialize`
//! and I/O errors.

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::{Value, json};

mod support;
use support::cli::*;
use support::{Project, bin, example, exits_saying, fixture, process, toml_str};

#[test]
fn broken_upstreams_are_exit_2_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let run = |server: &str| {
        bin()
            .current_dir(dir.path())
            .args(["generate", "--server", server])
            .assert()
            .code(2)
    };
    run(&fixture("crash")).stderr(predicate::str::contains("exited"));
    run(&fixture("not-mcp")).stderr(predicate::str::contains("not an MCP server"));
    run("/nonexistent/mcp-server --stdio").stderr(predicate::str::contains("not found"));
    run(&fixture("endless")).stderr(predicate::str::contains("cursor"));

    // A hanging server: bounded by the configured timeout.
    let cfg = dir.path().join("hang.toml");
    let cmd = example("fixture-server");
    std::fs::write(
        &cfg,
        format!(
            "[upstream]\ncommand = {}\nargs = [\"--mode\", \"hang\"]\ntimeout_ms = 1500\n",
            toml_str(&cmd.display().to_string())
        ),
    )
    .unwrap();
    let start = std::time::Instant::now();
    exits_saying(
        dir.path(),
        &["--config", "hang.toml", "generate"],
        2,
        "timed out",
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    assert!(
        !dir.path().join("ui").exists(),
        "nothing written on failure"
    );
}

#[test]
fn bad_configs_are_exit_2_naming_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let write = |text: &str| std::fs::write(dir.path().join("mcp-gen-ui.toml"), text).unwrap();
    let run = || bin().current_dir(dir.path()).arg("list").assert().code(2);

    write("out_dir = \"ui\"\n[upstream]\ncomand = \"x\"\n");
    run().stderr(predicate::str::contains("line 3").and(predicate::str::contains("comand")));
    write("[llm]\nmax_tokens = \"many\"\n");
    run().stderr(predicate::str::contains("line 2").and(predicate::str::contains("max_tokens")));
    write("[llm]\napi_key = \"sk-secret-value\"\n");
    run().stderr(
        predicate::str::contains("ANTHROPIC_API_KEY")
            .and(predicate::str::contains("sk-secret-value").not()),
    );
    write("[upstream]\ncommand = \"a\"\nurl = \"http://x\"\n");
    run().stderr(predicate::str::contains("both `command` and `url`"));
    write("this is not toml");
    run().stderr(predicate::str::contains("mcp-gen-ui.toml"));
    write("[tools.echo]\nwidgets = [{ name = \"../evil\" }]\n");
    bin()
        .current_dir(dir.path())
        .args(["generate", "--server", &fixture("ok")])
        .assert()
        .code(2);

    // No config and no --server: say how to name an upstream.
    let empty = tempfile::tempdir().unwrap();
    exits_saying(empty.path(), &["generate"], 2, "--server");
    exits_saying(
        empty.path(),
        &["--config", "missing.toml", "list"],
        2,
        "missing.toml",
    );
    // Usage errors.
    bin().arg("--no-such-flag").assert().code(2);
    bin()
        .arg("generate")
        .arg("--server")
        .current_dir(empty.path())
        .assert()
        .code(2);
    bin().arg("--help").assert().success();
}

#[test]
fn list_and_inspect_in_text_and_json() {
    let p = Project::generated(&two_tools());
    let out = p.cmd().args(["list", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert!(v.as_array().unwrap().iter().all(|t| t["status"] == "fresh"));

    p.ok(&["inspect", "get_forecast"]).stdout(
        predicate::str::contains("ui://fixture-changing/get_forecast?v=")
            .and(predicate::str::contains("city"))
            .and(predicate::str::contains("fresh")),
    );
    let v = p.json(&["inspect", "get_forecast", "--format", "json"]);
    assert_eq!(v["widgets"][0]["path"], "get_forecast.html");
    assert_eq!(v["definition"]["title"], "Forecast");
    p.exits_saying(&["inspect", "nope"], 2, "get_forecast");
}

#[test]
fn validate_command_exit_codes() {
    let p = Project::generated(&two_tools());
    p.ok(&["validate", "ui/get_forecast.html"]);
    let bad = p.path().join("bad.html");
    std::fs::write(
        &bad,
        "<!doctype html><html><body><button onclick=\"alert(1)\">x</button><script src=\"https://cdn.example.com/x.js\"></script></body></html>",
    )
    .unwrap();
    p.cmd()
        .args(["validate", "bad.html"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error"));
    p.cmd().args(["validate", "missing.html"]).assert().code(2);
}

/// Feedback pasted from a chat or a document: quotes of any kind around the whole and
/// a final `.`/`!`/`?` are not part of it, so the builtin generator reads it and the page changes.
#[test]
fn refine_reads_feedback_in_quotes_of_any_kind() {
    let tools = json!([
        {"name": "get_forecast", "description": "Daily forecast.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
         "annotations": {"readOnlyHint": true}}
    ]);
    let p = Project::generated(&tools);
    let plain = p.read("get_forecast.html");
    for (feedback, view) in [
        ("“bar chart”", "bar"),
        ("«line chart»!", "line"),
        ("\"table\".", "table"),
        ("`cards`", "cards"),
        ("„bar chart“?", "bar"),
    ] {
        let out = p
            .cmd()
            .args(["refine", "get_forecast", feedback])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{feedback}: {stdout}\n{stderr}");
        assert!(
            !format!("{stdout}{stderr}").contains("cannot interpret"),
            "{feedback}: {stdout}\n{stderr}"
        );
        let page = p.read("get_forecast.html");
        assert_ne!(page, plain, "{feedback}: the page did not change");
        assert!(
            page.contains(&format!("\"view\":\"{view}\"")),
            "{feedback}: no {view} view in the page"
        );
    }
    // The history keeps the words as they were given.
    let lock = p.read("mcp-gen-ui.lock");
    assert!(lock.contains("“bar chart”"), "{lock}");
    // Quoted field names inside the feedback keep working, wrapped or not.
    p.ok(&["refine", "get_forecast", "“hide \"city\"”."])
        .stdout(predicate::str::contains("cannot interpret").not())
        .stderr(predicate::str::contains("cannot interpret").not());
    assert!(
        p.read("get_forecast.html")
            .contains("\"hidden\":[\"city\"]"),
        "{}",
        p.read("get_forecast.html")
    );
    // Feedback it cannot read is still reported, with the words and not the quotes.
    let text = p
        .cmd()
        .args(["refine", "get_forecast", "“make it sparkle”."])
        .output_exits(0);
    assert!(
        text.contains("cannot interpret \"make it sparkle\""),
        "{text}"
    );
}

#[test]
fn refine_feedback_with_typographic_quotes_and_accents_never_panics() {
    let p = Project::generated(&two_tools());
    for feedback in [
        "“line” chart",
        "é",
        "‘as’ table",
        "rename city to “Stadt” please",
        "hide field ç",
        "show «days» as slider",
    ] {
        let out = p
            .cmd()
            .args(["refine", "get_forecast", feedback])
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{feedback}: {code:?} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_signal_during_initialize_stops_the_hanging_upstream() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("env.json");
        let server = format!(
            "{} --report-env {}",
            fixture("hang"),
            shell_words::quote(&report.display().to_string())
        );
        let mut child = bin()
            .current_dir(dir.path())
            .args(["generate", "--server", &server])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let v: Value = serde_json::from_str(&wait_for_file(&report, 20)).unwrap();
        let upstream = i32::try_from(v["pid"].as_u64().unwrap()).unwrap();
        // The upstream is hanging in `initialize` now.
        std::thread::sleep(std::time::Duration::from_millis(300));
        unsafe {
            libc::kill(i32::try_from(child.id()).unwrap(), sig);
        }
        let status = child.wait().unwrap();
        assert!(!status.success(), "{status:?}");
        let gone = process::gone(upstream);
        if !gone {
            unsafe {
                libc::kill(upstream, libc::SIGKILL);
            }
        }
        assert!(
            gone,
            "signal {sig}: the upstream {upstream} outlived mcp-gen-ui"
        );
    }
}

#[test]
fn io_errors_name_their_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("cfg.toml")).unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--config", "cfg.toml", "list"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");

    std::fs::write(dir.path().join("afile"), "x").unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["--out-dir", "afile", "generate", "--server", &fixture("ok")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("afile is not a directory"), "{stderr}");
    assert!(!stderr.contains("File exists"), "{stderr}");
}
