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

/// Every page URI the lock records: `ui://<server>/<file>?v=` and the first 8 hex digits of the
/// sha256 of the page's bytes (computed here from the file, not by the CLI).
#[test]
fn page_uris_follow_the_page_hash_and_stable_uris_is_a_lock_change_check_sees() {
    let p = Project::generated(&two_tools());
    let lock = p.lock();
    let widgets = |lock: &toml::Table| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for tool in lock["tools"].as_table().unwrap().values() {
            for w in tool["widgets"].as_array().unwrap() {
                let path = w["path"].as_str().unwrap().to_string();
                out.push((path, w["uri"].as_str().unwrap_or("").to_string()));
            }
        }
        out
    };
    let before = widgets(&lock);
    assert_eq!(before.len(), 2);
    for (path, uri) in &before {
        let bytes = std::fs::read(p.ui().join(path)).unwrap();
        let sha = mcp_gen_ui::model::sha256_hex(&bytes);
        let name = path.trim_end_matches(".html");
        assert_eq!(
            uri,
            &format!("ui://fixture-changing/{name}?v={}", &sha[..8])
        );
        // No circularity: a page never holds a URI, its own or another's.
        let page = String::from_utf8_lossy(&bytes);
        assert!(
            !page.contains("ui://") && !page.contains(&sha[..8]),
            "{path}"
        );
    }

    // The project registers its URIs with an app directory: check says the lock's URIs are no
    // longer the ones served, and generate fixes the lock without touching a page.
    let cfg = p.path().join("mcp-gen-ui.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("stable_uris = true\n{text}")).unwrap();
    let (code, v) = check_json(&p);
    assert_eq!(code, 1);
    assert_eq!(kinds(&v), ["stale-uri", "stale-uri"]);
    let said = v["findings"][0]["message"].as_str().unwrap();
    assert!(
        said.contains("?v=")
            && said.contains("ui://fixture-changing/")
            && said.contains("generate"),
        "{said}"
    );
    let pages = snapshot_dir(&p.ui());
    let out = p.run(&["generate"]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert_eq!(check_json(&p).0, 0);
    let after = widgets(&p.lock());
    for ((path, old), (_, new)) in before.iter().zip(&after) {
        assert_eq!(new, old.split('?').next().unwrap(), "{path}");
        assert!(!new.contains('?'));
    }
    let still: Vec<_> = snapshot_dir(&p.ui())
        .into_iter()
        .filter(|(n, ..)| n.ends_with(".html"))
        .collect();
    let was: Vec<_> = pages
        .into_iter()
        .filter(|(n, ..)| n.ends_with(".html"))
        .collect();
    assert_eq!(still, was, "a page was rewritten");
    p.cmd()
        .args(["inspect", "get_forecast"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "uri:        ui://fixture-changing/get_forecast\n",
        ));

    // A lock whose recorded hash was edited by hand (its URI no longer follows) is caught too.
    std::fs::write(&cfg, &text).unwrap();
    p.cmd().arg("generate").assert().success();
    assert_eq!(check_json(&p).0, 0);
    let lock_path = p.ui().join("mcp-gen-ui.lock");
    let lock_text = std::fs::read_to_string(&lock_path).unwrap();
    let (_, uri) = &before[0];
    let forged = uri
        .replace("?v=", "?v=0")
        .chars()
        .take(uri.len())
        .collect::<String>();
    std::fs::write(&lock_path, lock_text.replace(uri.as_str(), &forged)).unwrap();
    let (code, v) = check_json(&p);
    assert_eq!(code, 1);
    assert_eq!(kinds(&v), ["stale-uri"]);
}
