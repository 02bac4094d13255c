//! `serve --http` as a long-running service: sessions at the cap, restarts of an upstream that
//! crashes, health endpoints, shutdown, replicas and logs. Real processes: the binary in front
//! of the deliberately broken `fixture-server` (examples/).

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

mod support;
#[cfg(unix)]
use support::process;
use support::serve::SpawnWith;
use support::serve::{Listening, Log, init, listening, rpc_post};
use support::{example, tokio_bin};

/// `serve --http 127.0.0.1:0` in front of fixture-server in `mode`; killed on drop.
struct Serve {
    child: tokio::process::Child,
    url: String,
    log: Log,
    _out: tempfile::TempDir,
}

impl Serve {
    async fn start(mode: &str, args: &[&str]) -> Serve {
        Serve::start_with(mode, args, &[]).await
    }

    async fn start_with(mode: &str, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let fixture = format!("{} --mode {mode}", example("fixture-server").display());
        Serve::start_server(&fixture, args, env).await
    }

    /// `serve --http` in front of the `--server` command line `server`.
    async fn start_server(server: &str, args: &[&str], env: &[(&str, &str)]) -> Serve {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = tokio_bin();
        cmd.args(["serve", "--http", "127.0.0.1:0", "--server", server])
            .args(["--out-dir", out.path().to_str().unwrap()])
            .args(args)
            .env("MCP_GEN_UI_LOG", "info");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let Listening { child, url, log } = listening(cmd, "listening on http://").await;
        Serve {
            child,
            url,
            log,
            _out: out,
        }
    }

    fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }
}

fn call(id: u64, name: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args}})
}

/// POSTs one message; the status, the session header and the JSON body.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (u16, Option<String>, Value) {
    let req = rpc_post(http, url, session, "application/json", body);
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let sid = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, sid, v)
}

/// Opens a 2025-era session (initialize + initialized); its id.
async fn open(http: &reqwest::Client, url: &str, id: u64) -> String {
    let (status, sid, body) = post(http, url, None, &init(id)).await;
    assert_eq!(status, 200, "{body}");
    let sid = sid.unwrap();
    let (status, _, _) = post(
        http,
        url,
        Some(&sid),
        &json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
    )
    .await;
    assert_eq!(status, 202);
    sid
}

/// Hosts that never DELETE fill the cap; a new host still gets in once one of them has been
/// idle long enough, and the one closed for it gets 404 (a client then initializes again).
#[tokio::test]
async fn at_the_cap_the_least_recently_used_idle_session_makes_room() {
    let serve = Serve::start(
        "ok",
        &["--max-sessions", "2", "--session-evict-seconds", "2"],
    )
    .await;
    let http = reqwest::Client::new();
    let a = open(&http, &serve.url, 1).await;
    let b = open(&http, &serve.url, 2).await;
    // Both were used just now: none qualifies, so the cap holds with 503.
    for s in [&a, &b] {
        let ping = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
        assert_eq!(post(&http, &serve.url, Some(s), &ping).await.0, 202);
    }
    let (status, _, body) = post(&http, &serve.url, None, &init(3)).await;
    assert_eq!(status, 503, "{body}");
    let m = body["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("limit is 2") && m.contains("session_evict_seconds"),
        "{m}"
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // `b` is used again: `a` is now the least recently used.
    let (status, _, body) = post(&http, &serve.url, Some(&b), &call(4, "echo", json!({}))).await;
    assert_eq!(status, 200, "{body}");
    let c = open(&http, &serve.url, 5).await;
    assert!(c != a && c != b);
    let (status, _, body) = post(&http, &serve.url, Some(&a), &call(6, "echo", json!({}))).await;
    assert_eq!(status, 404, "the evicted session: {body}");
    for s in [&b, &c] {
        let (status, _, body) = post(&http, &serve.url, Some(s), &call(7, "echo", json!({}))).await;
        assert_eq!(status, 200, "{body}");
        assert!(body["result"].is_object(), "{body}");
    }
    // The evicted host initializes again (once `b` or `c` has been idle 2 s) and is served.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let a2 = open(&http, &serve.url, 8).await;
    let (status, _, body) = post(&http, &serve.url, Some(&a2), &call(9, "echo", json!({}))).await;
    assert_eq!(status, 200, "{body}");
    let log = serve.log.text();
    assert_eq!(
        serve
            .log
            .count("closed the least recently used idle host session"),
        2,
        "{log}"
    );
    assert!(log.contains(&a), "the eviction names the session: {log}");
}

/// An upstream that crashes on one call is healthy again once it has answered another: each
/// crash starts a fresh backoff, and the call after it waits for the restart and is served.
#[tokio::test]
async fn an_upstream_that_crashes_on_one_call_serves_the_next_one_every_time() {
    let serve = Serve::start("ok", &[]).await;
    let http = reqwest::Client::new();
    let s = open(&http, &serve.url, 1).await;
    for round in 0..5u64 {
        let (_, _, body) = post(
            &http,
            &serve.url,
            Some(&s),
            &call(10 + 2 * round, "crash_now", json!({})),
        )
        .await;
        let m = body["error"]["message"].as_str().unwrap_or_default();
        assert!(m.contains("restarting"), "round {round}: {body}");
        // Sent at once, during the backoff: it waits for the restart.
        let (status, _, body) = post(
            &http,
            &serve.url,
            Some(&s),
            &call(11 + 2 * round, "echo", json!({"round": round})),
        )
        .await;
        assert_eq!(status, 200, "round {round}: {body}");
        assert_eq!(
            body["result"]["structuredContent"]["arguments"]["round"],
            round,
            "round {round}: {body}\n{}",
            serve.log.text()
        );
    }
    let log = serve.log.text();
    assert_eq!(serve.log.count("restarting it in 100 ms"), 5, "{log}");
    assert!(!log.contains("times in a row"), "{log}");
}

/// An upstream that fails at every start is still started with a doubling backoff while hosts
/// keep asking, and every request gets an answer.
#[tokio::test]
async fn an_upstream_that_fails_at_every_start_backs_off() {
    let out = tempfile::tempdir().unwrap();
    let starts = out.path().join("starts");
    let quoted = shell_words::quote(&starts.display().to_string()).into_owned();
    let fixture = support::fixture(&format!("die-at-start --log-starts {quoted}"));
    let mut child = tokio_bin()
        .args(["serve", "--server", &fixture, "--out-dir"])
        .arg(out.path().join("ui"))
        .env("MCP_GEN_UI_LOG", "warn")
        .spawn_with(Stdio::piped(), Stdio::piped(), Stdio::null());
    let started = Instant::now();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let answers = tokio::spawn(async move {
        let mut ids = Vec::new();
        while let Ok(Some(line)) = stdout.next_line().await {
            let v: Value = serde_json::from_str(&line).unwrap();
            assert!(v["error"].is_object(), "{line}");
            ids.push(v["id"].as_u64().unwrap());
            if ids.len() == 25 {
                break;
            }
        }
        ids
    });
    // A host that keeps asking for 5 s.
    for id in 1..=25u64 {
        let msg = if id == 1 {
            init(1)
        } else {
            json!({"jsonrpc":"2.0","id":id,"method":"ping"})
        };
        stdin
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let at = started.elapsed();
    let count = std::fs::read_to_string(&starts).unwrap().lines().count();
    assert!(
        (2..=8).contains(&count),
        "{count} starts in {at:?} (at least 5 s)"
    );
    let mut ids = tokio::time::timeout(Duration::from_secs(40), answers)
        .await
        .expect("every request is answered")
        .unwrap();
    ids.sort_unstable();
    assert_eq!(ids, (1..=25).collect::<Vec<_>>());
    drop(stdin);
}

async fn get(url: &str) -> (u16, String) {
    let r = reqwest::Client::new().get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.text().await.unwrap())
}

/// Polls `url` until it answers `want`; the statuses seen on the way.
async fn until_status(url: &str, want: u16, within: Duration) -> Vec<u16> {
    let start = Instant::now();
    let mut seen = Vec::new();
    loop {
        let (status, _) = get(url).await;
        seen.push(status);
        if status == want {
            return seen;
        }
        assert!(
            start.elapsed() < within,
            "{url} never answered {want} within {within:?}: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `/healthz` and `/readyz` need no token and no session, say nothing about the upstream, and
/// are not counted against the session cap.
#[tokio::test]
async fn health_endpoints_need_no_token_and_say_nothing_about_the_upstream() {
    let serve = Serve::start_with(
        "ok",
        &["--max-sessions", "1"],
        &[("MCP_GEN_UI_TOKEN", "tok-health")],
    )
    .await;
    let base = serve.base();
    let (status, body) = get(&format!("{base}/healthz")).await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    until_status(&format!("{base}/readyz"), 200, Duration::from_secs(30)).await;
    let (_, body) = get(&format!("{base}/readyz")).await;
    assert_eq!(body, "ready\n");
    // /mcp still wants the token.
    let http = reqwest::Client::new();
    let (status, _, _) = post(&http, &serve.url, None, &init(1)).await;
    assert_eq!(status, 401);
    // The one session slot is taken: health still answers.
    let r = http
        .post(&serve.url)
        .header("authorization", "Bearer tok-health")
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init(2).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    for path in ["healthz", "readyz"] {
        let (status, body) = get(&format!("{base}/{path}")).await;
        assert_eq!(status, 200, "{path}");
        assert!(!body.contains("fixture"), "{path}: {body}");
    }
}

/// An upstream that cannot start: the process is healthy, not ready.
#[tokio::test]
async fn readyz_is_503_while_the_upstream_cannot_start() {
    let serve = Serve::start("die-at-start", &[]).await;
    let base = serve.base();
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let (status, body) = get(&format!("{base}/readyz")).await;
        assert_eq!((status, body.as_str()), (503, "not ready\n"));
        assert_eq!(get(&format!("{base}/healthz")).await.0, 200);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        serve.log.text().contains("not ready (/readyz answers 503)"),
        "the log says why: {}",
        serve.log.text()
    );
}

/// Readiness is probed again after a session's upstream failed, and while it fails.
#[cfg(unix)]
#[tokio::test]
async fn readyz_follows_the_upstream_after_failures() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("can-start");
    std::fs::write(&flag, "").unwrap();
    // Starts only while the flag file exists.
    let server = format!(
        "sh -c {}",
        shell_words::quote(&format!(
            "test -e {} && exec {} --mode ok",
            shell_words::quote(&flag.display().to_string()),
            example("fixture-server").display()
        ))
    );
    let mut cmd = tokio_bin();
    cmd.args(["serve", "--http", "127.0.0.1:0", "--server", &server])
        .args(["--out-dir", dir.path().join("ui").to_str().unwrap()])
        .env("MCP_GEN_UI_LOG", "warn");
    let serving = listening(cmd, "listening on http://").await;
    let url = serving.url.clone();
    let readyz = format!("{}/readyz", url.trim_end_matches("/mcp"));
    until_status(&readyz, 200, Duration::from_secs(30)).await;
    // The upstream cannot start any more, and a session finds out.
    let http = reqwest::Client::new();
    let s = open(&http, &url, 1).await;
    std::fs::remove_file(&flag).unwrap();
    let (_, _, body) = post(&http, &url, Some(&s), &call(2, "crash_now", json!({}))).await;
    assert!(body["error"].is_object(), "{body}");
    until_status(&readyz, 503, Duration::from_secs(30)).await;
    // It can again: the retries find out.
    std::fs::write(&flag, "").unwrap();
    until_status(&readyz, 200, Duration::from_secs(60)).await;
    drop(serving);
}

/// SIGTERM: requests in flight get their answers, open event streams end, `/readyz` turns 503,
/// and serve exits 0.
#[cfg(unix)]
#[tokio::test]
async fn sigterm_drains_requests_in_flight_then_exits_0() {
    let reports = tempfile::tempdir().unwrap();
    let report = reports.path().join("env.json");
    let mode = format!(
        "ok --report-env {}",
        shell_words::quote(&report.display().to_string())
    );
    let mut serve = Serve::start(&mode, &[]).await;
    // Ready: the readiness probe's upstream has come and gone...
    until_status(
        &format!("{}/readyz", serve.base()),
        200,
        Duration::from_secs(30),
    )
    .await;
    std::fs::remove_file(&report).unwrap();
    let http = reqwest::Client::new();
    let s = open(&http, &serve.url, 1).await;
    // ...and this one is the session's.
    let upstream: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let upstream = i32::try_from(upstream["pid"].as_u64().unwrap()).unwrap();
    // An event stream that never ends by itself.
    let stream = http
        .get(&serve.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &s)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let slow = {
        let (http, url, s) = (http.clone(), serve.url.clone(), s.clone());
        tokio::spawn(async move {
            post(&http, &url, Some(&s), &call(2, "slow", json!({"ms": 2000}))).await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = i32::try_from(serve.child.id().unwrap()).unwrap();
    // SAFETY: signalling a child process of this test.
    unsafe {
        libc::kill(pid, libc::SIGTERM);
    }
    let (status, _, body) = slow.await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["result"]["content"][0]["text"],
        "slow done",
        "{body}\n{}",
        serve.log.text()
    );
    let exit = tokio::time::timeout(Duration::from_secs(30), serve.child.wait())
        .await
        .unwrap_or_else(|_| panic!("serve did not exit: {}", serve.log.text()))
        .unwrap();
    assert_eq!(exit.code(), Some(0), "{}", serve.log.text());
    // The event stream ended rather than being cut.
    let rest = tokio::time::timeout(Duration::from_secs(5), stream.bytes()).await;
    assert!(rest.is_ok(), "the event stream was still open");
    assert!(
        serve
            .log
            .text()
            .contains("finishing the requests in flight")
    );
    assert!(
        process::gone(upstream),
        "the upstream {upstream} outlived serve"
    );
}

/// Session ids start with the replica id, for a load balancer to route by.
#[tokio::test]
async fn session_ids_carry_the_replica_id() {
    let serve = Serve::start("ok", &["--replica-id", "r2"]).await;
    let http = reqwest::Client::new();
    let s = open(&http, &serve.url, 1).await;
    let (r, hex) = s.split_once('.').unwrap();
    assert_eq!(r, "r2");
    assert_eq!(hex.len(), 32, "{s}");
    let (status, _, body) = post(&http, &serve.url, Some(&s), &call(2, "echo", json!({}))).await;
    assert_eq!(status, 200, "{body}");
    // A bad id is refused before anything starts.
    let out = tokio_bin()
        .args(["serve", "--server", "true", "--http", "127.0.0.1:0"])
        .args(["--replica-id", "r 2"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--replica-id"));
}

/// Both log formats carry a request id per host request and redact secrets.
#[tokio::test]
async fn logs_carry_request_ids_and_redact_secrets_in_both_formats() {
    const SECRET: &str = "tok-secret-4242-xyz";
    for format in ["text", "json"] {
        // The token also stands in the upstream's command line, which is logged.
        let server = format!(
            "sh -c {} {SECRET}",
            shell_words::quote(&format!(
                "exec {} --mode ok",
                example("fixture-server").display()
            ))
        );
        let serve = Serve::start_server(
            &server,
            &["--log-format", format],
            &[("MCP_GEN_UI_TOKEN", SECRET), ("MCP_GEN_UI_LOG", "debug")],
        )
        .await;
        let http = reqwest::Client::new();
        let send = |rid: Option<&str>| {
            let mut r = http
                .post(&serve.url)
                .header("authorization", format!("Bearer {SECRET}"))
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .body(init(1).to_string());
            if let Some(rid) = rid {
                r = r.header("x-request-id", rid);
            }
            r.send()
        };
        let r = send(Some("req-from-proxy-42")).await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["x-request-id"], "req-from-proxy-42");
        let r = send(None).await.unwrap();
        let fresh = r.headers()["x-request-id"].to_str().unwrap().to_string();
        assert_eq!(fresh.len(), 16, "{fresh}");
        // The log lines arrive on their own time: wait for both ids.
        let start = Instant::now();
        while !(serve.log.text().contains("req-from-proxy-42") && serve.log.text().contains(&fresh))
            && start.elapsed() < Duration::from_secs(20)
        {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let log = serve.log.text();
        assert!(!log.contains(SECRET), "{format}: {log}");
        assert!(log.contains("[redacted]"), "{format}: {log}");
        for rid in ["req-from-proxy-42", fresh.as_str()] {
            assert!(log.contains(rid), "{format}: {rid} in {log}");
        }
        if format == "json" {
            let mut tagged = 0;
            // The session's own line about each request carries that request's id too.
            let mut initialize_ids = Vec::new();
            for line in log.lines() {
                if line.starts_with("mcp-gen-ui serve: listening") || line.starts_with("[upstream]")
                {
                    continue;
                }
                let v: Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
                if v["span"]["req"] == "req-from-proxy-42" {
                    tagged += 1;
                }
                if v["fields"]["message"] == "host initialize" {
                    initialize_ids.push(v["span"]["req"].clone());
                }
            }
            assert!(tagged >= 1, "{log}");
            assert_eq!(
                initialize_ids,
                [json!("req-from-proxy-42"), json!(fresh)],
                "{log}"
            );
        }
    }
}
