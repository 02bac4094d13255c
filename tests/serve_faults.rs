//! `serve` hardened: every host request is answered for its own id, whatever the host or the
//! upstream sends (oversized, unparseable, deep or lone-surrogate JSON, a crash loop, a signal).

use serde_json::{Value, json};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

mod support;
use support::host::*;
use support::serve::SpawnWith;
use support::serve::serve_cmd;
use support::{example, process, tokio_bin};

#[tokio::test]
async fn oversized_and_unparseable_messages_are_answered_for_their_own_id() {
    let (mut raw, _out) = raw_fixture("ok").await;
    // From the host: the id comes after 33 MB of payload.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{}"}}}},"id":"big-1"}}"#,
        "y".repeat(33 * 1024 * 1024)
    );
    raw.send(&huge).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "big-1", "{e}");
    assert_eq!(e["error"]["code"], -32600);
    let m = e["error"]["message"].as_str().unwrap();
    assert!(m.contains("33554432-byte limit"), "{m}");

    // Unparseable, but the id is there.
    raw.send(r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{oops"#)
        .await;
    let e = raw.recv().await;
    assert_error_code(&e, 9, -32700);

    // From the upstream: a 40 MB result (over serve's limit) with its id after the payload.
    raw.send(&call_line(json!(10), "huge", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], 10, "{e}");
    let m = e["error"]["message"].as_str().unwrap();
    assert!(m.contains("33554432-byte message limit"), "{m}");
    // An answer that is not JSON past its id.
    raw.send(&call_line(json!("j"), "junk", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "j", "{e}");
    assert_error_contains(&e, "not usable JSON");

    // The session goes on.
    raw.ping(11).await;
    assert!(raw.close().await.success());
}

/// A plain `tools/call` and its answer travel as the bytes their senders wrote (spaces, escapes,
/// key order); only the id is rewritten, each way.
#[tokio::test]
async fn plain_tool_calls_pass_as_their_bytes_with_only_the_id_changed() {
    let (mut raw, _out) = raw_fixture("ok").await;
    let line = r#"{ "jsonrpc" : "2.0", "method" : "tools/call", "id" : "call-\u0041", "params" : { "name" : "verbatim", "arguments" : { "q" : "caf\u00e9 \/ x" } } }"#;
    raw.send(line).await;
    let (got, v) = raw.recv_raw().await;
    assert_eq!(v["id"], "call-A", "{got}");
    // The upstream read the host's bytes; only the id is serve's own.
    let seen = v["result"]["content"][0]["text"].as_str().unwrap();
    let (head, tail) = line.split_once(r#""call-\u0041""#).unwrap();
    assert!(seen.starts_with(head) && seen.ends_with(tail), "{seen}");
    let uid = &seen[head.len()..seen.len() - tail.len()];
    assert!(uid.parse::<u64>().is_ok(), "{uid}");
    // The host reads the upstream's bytes; only the id is the host's own.
    assert!(
        got.starts_with(r#"{ "jsonrpc" : "2.0", "result" : { "content" : [ "#),
        "{got}"
    );
    assert!(got.contains(r#""note" : "caf\u00e9""#), "{got}");
    assert!(got.ends_with(r#", "id" : "call-A" }"#), "{got}");
    // The same call with `_meta` takes the ordinary path and still works.
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"verbatim","arguments":{},"_meta":{"progressToken":"p"}}}"#).await;
    let (_, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 2);
    assert!(
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("progressToken")
    );
    // A reused id in flight is still refused (the ordinary path decides).
    raw.send(&call_line(json!(3), "slow", json!({"ms": 400})))
        .await;
    raw.send(&call_line(json!(3), "echo", json!({"text": "x"})))
        .await;
    let (_, e) = raw.recv_raw().await;
    assert_eq!(e["id"], 3);
    assert_error_contains(&e, "already in use");
    let (_, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 3);
    assert!(v.get("result").is_some(), "{v}");
}

#[tokio::test]
async fn lone_surrogates_and_deep_json_pass_through_both_ways() {
    let (mut raw, _out) = raw_fixture("deep-tools").await;
    // A result with a lone surrogate reaches the host as the upstream sent it.
    raw.send(&call_line(json!(2), "surrogate", json!({}))).await;
    let (line, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 2, "{line:.300}");
    assert!(line.contains(r"lone \ud800 surrogate"), "{line}");
    // And one from the host reaches the upstream (the echo comes back with it).
    raw.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x\udc00y"}}}"#).await;
    let (line, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 3, "{line:.300}");
    assert!(line.contains(r#""text":"x\udc00y""#), "{line}");

    // A result nested 1,000 levels.
    raw.send(&call_line(json!(4), "deep", json!({"depth": 1000})))
        .await;
    let (line, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 4, "{line:.300}");
    assert!(mcp_gen_ui::json::depth(&v["result"]["structuredContent"]) >= 1000);
    // An argument nested 1,000 levels, there and back.
    let deep_arg = nested_array(1000);
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{deep_arg}}}}}}}"#
    ))
    .await;
    let (line, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 5, "{line:.300}");
    assert_eq!(
        mcp_gen_ui::json::depth(&v["result"]["structuredContent"]["arguments"]["text"]),
        1000
    );
    // A tools/list with a schema nested 1,000 levels and a lone surrogate.
    raw.send(r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#)
        .await;
    let (line, v) = raw.recv_raw().await;
    assert_eq!(v["id"], 6, "{line:.300}");
    assert_eq!(v["result"]["tools"].as_array().map(Vec::len), Some(2));
    assert!(line.contains(r"bad \ud800 text"));

    // Past the bound: a clear error for the right id, from either side.
    let too_deep = nested_array(mcp_gen_ui::json::MAX_DEPTH + 10);
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"echo","arguments":{{"text":{too_deep}}}}},"id":7}}"#
    ))
    .await;
    let e = raw.recv().await;
    assert_error_code(&e, 7, -32600);
    assert_error_contains(&e, "2048 levels");
    raw.send(&call_line(json!(8), "deep", json!({"depth": 5000})))
        .await;
    let e = raw.recv().await;
    assert_eq!(e["id"], 8, "{e}");
    assert_error_contains(&e, "2048 levels");
    // Far past it: no stack overflow anywhere (that would abort serve without a word).
    let absurd = nested_array(1_000_000);
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{absurd}}}"#
    ))
    .await;
    assert_eq!(raw.recv().await["id"], 9);
    raw.ping(10).await;
    assert!(raw.close().await.success());
}

#[tokio::test]
async fn a_crash_loop_backs_off_and_answers_every_request() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!(
        "{} --mode die-at-start",
        example("fixture-server").display()
    );
    let mut child = serve_cmd(&[
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ])
    .spawn_with(Stdio::piped(), Stdio::piped(), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log2 = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(l)) = stderr.next_line().await {
            log2.lock().unwrap().push(l);
        }
    });
    let started = Instant::now();
    let mut answered = 0;
    for id in 1..=6u64 {
        let line = if id == 1 {
            init_line(1)
        } else {
            json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string()
        };
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
        let got = tokio::time::timeout(Duration::from_secs(40), stdout.next_line())
            .await
            .unwrap_or_else(|_| panic!("request {id} was never answered"))
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(&got).unwrap();
        assert_eq!(v["id"], id, "{got}");
        let m = v["error"]["message"].as_str().unwrap_or_default();
        assert!(m.contains("restart"), "{got}");
        answered += 1;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(answered, 6);
    let elapsed = started.elapsed();
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(15), child.wait()).await;
    let log = log.lock().unwrap().join("\n");
    let restarts: Vec<u64> = log
        .lines()
        .filter_map(|l| {
            let rest = l.split("restarting it in ").nth(1)?;
            rest.split(" ms").next()?.parse().ok()
        })
        .collect();
    assert!(restarts.len() >= 3, "{log}");
    // Exponential: each delay doubles (up to the cap), so a few seconds see few restarts.
    for w in restarts.windows(2) {
        assert!(w[1] == w[0] * 2 || w[1] == 30_000, "{restarts:?}\n{log}");
    }
    let bound = (elapsed.as_millis() as f64 / 100.0).log2() as usize + 3;
    assert!(
        restarts.len() <= bound,
        "{} restarts in {elapsed:?}: {log}",
        restarts.len()
    );
    assert!(log.contains("times in a row"), "{log}");
}

/// generate and serve agree on the tool_hash of tools they can only read with `crate::json`
/// (a schema nested 1,000 levels, a lone surrogate): their UIs are served, not "stale".
#[tokio::test]
async fn deep_and_surrogate_tools_get_pages_and_are_served_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let ui = dir.path().join("ui");
    let fixture = format!("{} --mode deep-tools", example("fixture-server").display());
    let gen_out = tokio_bin()
        .args([
            "generate",
            "--server",
            &fixture,
            "--out-dir",
            ui.to_str().unwrap(),
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(
        gen_out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&gen_out.stderr)
    );
    let page = std::fs::read_to_string(ui.join("surrogate_tool.html")).unwrap();
    assert!(page.contains("bad \u{FFFD} text") && !page.contains('\u{FDD0}'));
    let mut raw = Raw::start(&["--server", &fixture, "--out-dir", ui.to_str().unwrap()]);
    raw.send(&ui_init_line(1)).await;
    assert_eq!(raw.recv().await["id"], 1);
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await;
    let (line, v) = raw.recv_raw().await;
    let tools = v["result"]["tools"].as_array().unwrap();
    for t in tools {
        assert!(t["_meta"]["ui"]["resourceUri"].is_string(), "{line:.300}");
    }
    assert!(line.contains(r"bad \ud800 text"));
    assert!(raw.close().await.success());
}

/// Ctrl-C and SIGTERM end `serve` on stdio while the host still holds stdin open, and take the
/// upstream with it.
#[cfg(unix)]
#[tokio::test]
async fn a_signal_ends_serve_and_its_upstream() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let reports = tempfile::tempdir().unwrap();
        let report = reports.path().join("env.json");
        let mode = format!(
            "ok --report-env {}",
            shell_words::quote(&report.display().to_string())
        );
        let (mut raw, _out) = raw_fixture(&mode).await;
        raw.send(&call_line(json!(2), "echo", json!({"text": "hi"})))
            .await;
        assert_eq!(raw.recv().await["id"], 2);
        let upstream: Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        let upstream = i32::try_from(upstream["pid"].as_u64().unwrap()).unwrap();
        let pid = i32::try_from(raw.child.id().unwrap()).unwrap();
        // SAFETY: signalling a child process of this test.
        unsafe {
            libc::kill(pid, sig);
        }
        let status = tokio::time::timeout(Duration::from_secs(15), raw.child.wait())
            .await
            .unwrap_or_else(|_| panic!("signal {sig}: serve must exit with stdin still open"))
            .unwrap();
        assert!(status.code().is_some(), "signal {sig}: {status:?}");
        assert!(
            process::gone(upstream),
            "signal {sig}: the upstream {upstream} outlived serve"
        );
    }
}
