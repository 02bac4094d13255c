//! Integration tests of discovery and the upstream transports against real example servers,
//! broken fixture servers, and small HTTP servers written here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use mcp_gen_ui::discover::{DiscoverError, discover};
use mcp_gen_ui::mcp::negotiate::Era;
use mcp_gen_ui::mcp::{HttpSpec, HttpTransport, StdioSpec, UpstreamSpec};
use tokio::io::AsyncBufReadExt;

mod support;
use support::example;

fn stdio(name: &str, args: &[&str]) -> UpstreamSpec {
    UpstreamSpec::Stdio(StdioSpec {
        command: example(name).display().to_string(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
        inherit: Vec::new(),
        cwd: None,
    })
}

fn fixture(args: &[&str]) -> UpstreamSpec {
    let mut all = vec!["--mode"];
    all.extend_from_slice(args);
    stdio("fixture-server", &all)
}

const T: Duration = Duration::from_secs(10);

#[tokio::test]
async fn fixture_ok_is_discovered() {
    let d = discover(&fixture(&["ok"]), T).await.unwrap();
    assert_eq!(d.server_name, "fixture-ok");
    assert_eq!(d.tools.len(), 1);
    assert_eq!(d.tools[0].name, "echo");
    // A 2025-era server (it does not know `server/discover`): the handshake, at the newest
    // handshake version, which the fixture accepts.
    assert_eq!(d.era, Era::Handshake("2025-11-25".into()));
    assert_eq!(d.initialize_result["protocolVersion"], "2025-11-25");
}

#[tokio::test]
async fn crash_reports_status_and_stderr() {
    let err = discover(&fixture(&["crash"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Exited { .. }), "{msg}");
    assert!(msg.contains("status 3"), "{msg}");
    assert!(msg.contains("cannot open database"), "{msg}");
    assert!(msg.contains("fixture-server"), "{msg}");
}

#[tokio::test]
async fn not_mcp_quotes_the_first_output() {
    let err = discover(&fixture(&["not-mcp"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::NotMcp { .. }), "{msg}");
    assert!(msg.contains("not an MCP server"), "{msg}");
    assert!(msg.contains("hello world"), "{msg}");
}

#[tokio::test]
async fn command_not_found_names_the_setting() {
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: "/nonexistent/mcp-server-xyz".into(),
        ..Default::default()
    });
    let err = discover(&spec, T).await.unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, DiscoverError::CommandNotFound { .. }),
        "{msg}"
    );
    assert!(msg.contains("[upstream] command"), "{msg}");
    assert!(msg.contains("--server"), "{msg}");
}

/// An example server started with `--http 127.0.0.1:0`; killed on drop.
struct HttpServer {
    _child: tokio::process::Child,
    url: String,
}

async fn http_example(name: &str, extra: &[&str]) -> HttpServer {
    let mut child = tokio::process::Command::new(example(name))
        .args(["--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let url = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(i) = line.find("http://") {
                return line[i..].trim().to_string();
            }
        }
        panic!("{name} exited without printing its address");
    })
    .await
    .unwrap();
    // Keep draining stderr so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    HttpServer { _child: child, url }
}

fn http_spec(url: &str, transport: HttpTransport) -> UpstreamSpec {
    UpstreamSpec::Http(HttpSpec {
        url: url.to_string(),
        transport,
        headers: BTreeMap::new(),
    })
}

fn check_weather(d: &mcp_gen_ui::discover::Discovery) {
    assert_eq!(d.server_name, "weather");
    let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["get_current_conditions", "get_forecast"]);
    let forecast = &d.tools[1];
    assert_eq!(forecast.raw["annotations"]["readOnlyHint"], true);
    assert_eq!(forecast.raw["annotations"]["openWorldHint"], false);
    assert_eq!(forecast.raw["title"], "Weather forecast");
    assert_eq!(
        forecast.raw["inputSchema"]["properties"]["days"]["maximum"],
        14
    );
    assert!(forecast.raw["outputSchema"]["properties"]["forecast"].is_object());
}

#[tokio::test]
async fn weather_over_stdio() {
    let d = discover(&stdio("weather-server", &[]), T).await.unwrap();
    check_weather(&d);
    // rmcp serves both eras: the newest one both sides speak is the stateless revision.
    assert_eq!(d.era, Era::Stateless("2026-07-28".into()));
    assert!(
        d.initialize_result["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("2026-07-28"))
    );
}

#[tokio::test]
async fn weather_over_streamable_http_sse_responses() {
    let server = http_example("weather-server", &[]).await;
    let d = discover(&http_spec(&server.url, HttpTransport::StreamableHttp), T)
        .await
        .unwrap();
    check_weather(&d);
}

#[tokio::test]
async fn weather_over_streamable_http_json_responses() {
    let server = http_example("weather-server", &["--json-response"]).await;
    let d = discover(&http_spec(&server.url, HttpTransport::StreamableHttp), T)
        .await
        .unwrap();
    check_weather(&d);
}

#[tokio::test]
async fn db_server_over_stdio() {
    let d = discover(&stdio("db-server", &[]), T).await.unwrap();
    assert_eq!(d.server_name, "sqlite-db");
    let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["describe_table", "insert_row", "list_tables", "query"]
    );
    let query = &d.tools[3];
    assert_eq!(query.raw["annotations"]["readOnlyHint"], true);
    let insert = &d.tools[1];
    assert_eq!(insert.raw["annotations"]["destructiveHint"], true);
    assert_eq!(
        insert.raw["inputSchema"]["properties"]["values"]["type"],
        "object"
    );
}

#[tokio::test]
async fn hang_times_out_naming_the_stage_and_setting() {
    let started = std::time::Instant::now();
    let err = discover(&fixture(&["hang"]), Duration::from_secs(2))
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Timeout { .. }), "{msg}");
    assert!(msg.contains("timed out after 2 s"), "{msg}");
    assert!(msg.contains("`initialize`"), "{msg}");
    assert!(msg.contains("timeout_ms"), "{msg}");
    // The child ignores a closed stdin; shutdown must still end it (grace, then signals).
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn garbage_json_is_not_json_rpc() {
    let err = discover(&fixture(&["garbage"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::NotMcp { .. }), "{msg}");
    assert!(msg.contains("answer"), "{msg}");
}

#[tokio::test]
async fn malformed_initialize_result_is_reported() {
    let err = discover(&fixture(&["malformed"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Malformed { .. }), "{msg}");
    assert!(msg.contains("serverInfo.name"), "{msg}");
    assert!(msg.contains("`initialize`"), "{msg}");
}

#[tokio::test]
async fn pagination_follows_every_cursor() {
    let d = discover(&fixture(&["paginated"]), T).await.unwrap();
    let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "page1_tool1",
            "page1_tool2",
            "page2_tool1",
            "page2_tool2",
            "page3_tool1",
            "page3_tool2"
        ]
    );
}

#[tokio::test]
async fn repeated_cursor_is_an_error_not_a_loop() {
    let err = discover(&fixture(&["endless"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Pagination { .. }), "{msg}");
    assert!(msg.contains("repeats the cursor"), "{msg}");
}

#[tokio::test]
async fn many_tools() {
    let d = discover(&fixture(&["many", "1500"]), T).await.unwrap();
    assert_eq!(d.tools.len(), 1500);
    assert_eq!(d.tools[1499].name, "tool_01499");
}

#[tokio::test]
async fn ten_megabyte_message_passes() {
    let d = discover(&fixture(&["big"]), T).await.unwrap();
    let desc = d.tools[0].raw["description"].as_str().unwrap();
    assert_eq!(desc.len(), 10 * 1024 * 1024);
}

#[tokio::test]
async fn hostile_names_arrive_verbatim() {
    let d = discover(&fixture(&["hostile"]), T).await.unwrap();
    let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
    for want in ["../../etc/x", "a/b", "CON", "Case", "case", "CASE", ""] {
        assert!(names.contains(&want), "{want:?} missing from {names:?}");
    }
    assert!(names.iter().any(|n| n.chars().count() == 300));
    assert!(
        d.tools[0].raw["description"]
            .as_str()
            .unwrap()
            .contains("</script><script>alert(1)</script>")
    );
}

#[tokio::test]
async fn lying_schemas_are_kept_raw() {
    let d = discover(&fixture(&["lying"]), T).await.unwrap();
    let by_name = |n: &str| d.tools.iter().find(|t| t.name == n).unwrap();
    assert_eq!(by_name("string_schema").raw["inputSchema"], "not a schema");
    assert!(by_name("no_schema").raw.get("inputSchema").is_none());
    assert_eq!(
        by_name("ref_cycle").raw["inputSchema"]["$defs"]["a"]["$ref"],
        "#/$defs/b"
    );
}

#[tokio::test]
async fn changing_tools_file_changes_the_hash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let tool = |desc: &str| serde_json::json!([{"name": "t", "description": desc, "inputSchema": {"type": "object"}}]);
    std::fs::write(&file, tool("first").to_string()).unwrap();
    let path = file.display().to_string();
    let spec = fixture(&["changing", "--tools-file", &path]);
    let a = discover(&spec, T).await.unwrap();
    std::fs::write(&file, tool("second").to_string()).unwrap();
    let b = discover(&spec, T).await.unwrap();
    assert_eq!(a.tools[0].raw["description"], "first");
    assert_eq!(b.tools[0].raw["description"], "second");
    assert_ne!(a.tools[0].tool_hash(), b.tools[0].tool_hash());
}

#[tokio::test]
async fn env_and_cwd_reach_the_child() {
    // `sh` prints what it sees, then execs the fixture; the crash message proves the exec.
    let dir = tempfile::tempdir().unwrap();
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            format!(
                "echo \"cwd=$(pwd) token=$MY_TOKEN\" >&2; exec {} --mode crash",
                example("fixture-server").display()
            ),
        ],
        env: BTreeMap::from([("MY_TOKEN".to_string(), "abc123".to_string())]),
        inherit: Vec::new(),
        cwd: Some(dir.path().to_path_buf()),
    });
    let err = discover(&spec, T).await.unwrap_err();
    let msg = err.to_string();
    let cwd = dir.path().canonicalize().unwrap();
    assert!(msg.contains(&format!("cwd={}", cwd.display())), "{msg}");
    assert!(msg.contains("token=abc123"), "{msg}");
}

#[tokio::test]
async fn missing_cwd_is_not_reported_as_missing_command() {
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: "sh".into(),
        inherit: Vec::new(),
        cwd: Some("/nonexistent/dir/for/test".into()),
        ..Default::default()
    });
    let err = discover(&spec, T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Start { .. }), "{msg}");
    assert!(msg.contains("/nonexistent/dir/for/test"), "{msg}");
}

// ---- HTTP servers written here: status errors, headers, sessions, legacy SSE ----

use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{Value, json};

/// A minimal MCP responder shared by the hand-written HTTP servers.
fn respond(msg: &Value) -> Option<Value> {
    let id = msg.get("id")?.clone();
    let result = match msg.get("method")?.as_str()? {
        "initialize" => json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hand-written", "version": "1"},
        }),
        "tools/list" => json!({"tools": [{
            "name": "greet",
            "description": "Says hello.\nOn two lines.",
            "inputSchema": {"type": "object"},
            "x-unknown-field": {"kept": true},
        }]}),
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("no {other}")}}));
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

async fn serve_router(router: axum::Router) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    (format!("http://{addr}"), task)
}

#[tokio::test]
async fn http_404_suggests_checking_the_path() {
    let (base, task) = serve_router(axum::Router::new()).await;
    let err = discover(
        &http_spec(&format!("{base}/wrong"), HttpTransport::StreamableHttp),
        T,
    )
    .await
    .unwrap_err();
    task.abort();
    let msg = err.to_string();
    assert!(
        matches!(err, DiscoverError::Http { status: 404, .. }),
        "{msg}"
    );
    assert!(msg.contains("HTTP 404"), "{msg}");
    assert!(msg.contains("/mcp"), "{msg}");
}

/// Streamable HTTP with a bearer token and a session id, answering with JSON bodies.
fn authed_router(
    seen_session_on_list: std::sync::Arc<std::sync::Mutex<Option<String>>>,
) -> axum::Router {
    axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let seen = seen_session_on_list.clone();
            async move {
                if headers.get("authorization").and_then(|v| v.to_str().ok())
                    != Some("Bearer s3cret")
                {
                    return (StatusCode::UNAUTHORIZED, "missing or wrong token").into_response();
                }
                let msg: Value = serde_json::from_str(&body).unwrap();
                if msg.get("method").and_then(Value::as_str) == Some("tools/list") {
                    let sid = headers.get("mcp-session-id").and_then(|v| v.to_str().ok());
                    let ver = headers
                        .get("mcp-protocol-version")
                        .and_then(|v| v.to_str().ok());
                    *seen.lock().unwrap() = Some(format!("{sid:?} {ver:?}"));
                }
                match respond(&msg) {
                    None => StatusCode::ACCEPTED.into_response(),
                    Some(reply) => (
                        [
                            ("content-type", "application/json"),
                            ("mcp-session-id", "sess-42"),
                        ],
                        reply.to_string(),
                    )
                        .into_response(),
                }
            }
        }),
    )
}

#[tokio::test]
async fn http_401_suggests_checking_headers() {
    let seen = Default::default();
    let (base, task) = serve_router(authed_router(seen)).await;
    let err = discover(
        &http_spec(&format!("{base}/mcp"), HttpTransport::StreamableHttp),
        T,
    )
    .await
    .unwrap_err();
    task.abort();
    let msg = err.to_string();
    assert!(
        matches!(err, DiscoverError::Http { status: 401, .. }),
        "{msg}"
    );
    assert!(msg.contains("headers"), "{msg}");
    assert!(msg.contains("missing or wrong token"), "{msg}");
}

#[tokio::test]
async fn http_headers_session_and_version_are_sent() {
    let seen: std::sync::Arc<std::sync::Mutex<Option<String>>> = Default::default();
    let (base, task) = serve_router(authed_router(seen.clone())).await;
    let spec = UpstreamSpec::Http(HttpSpec {
        url: format!("{base}/mcp"),
        transport: HttpTransport::StreamableHttp,
        headers: BTreeMap::from([("Authorization".to_string(), "Bearer s3cret".to_string())]),
    });
    let d = discover(&spec, T).await.unwrap();
    task.abort();
    assert_eq!(d.server_name, "hand-written");
    assert_eq!(d.tools[0].raw["x-unknown-field"]["kept"], true);
    assert_eq!(
        seen.lock().unwrap().as_deref(),
        Some(r#"Some("sess-42") Some("2025-06-18")"#)
    );
}

#[tokio::test]
async fn unreachable_http_server_is_reported() {
    // Bind then drop to get a port with nothing listening.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let err = discover(
        &http_spec(
            &format!("http://127.0.0.1:{port}/mcp"),
            HttpTransport::StreamableHttp,
        ),
        T,
    )
    .await
    .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Unreachable { .. }), "{msg}");
    assert!(msg.to_lowercase().contains("refused"), "{msg}");
}

/// A legacy HTTP+SSE server: GET /sse announces `/messages?sessionId=…`, replies go on the
/// stream as `message` events — pretty-printed over several `data:` lines, CRLF line ends,
/// with comments, to exercise the parser for real.
fn legacy_sse_router() -> axum::Router {
    use std::sync::{Arc, Mutex};
    type Streams = Arc<Mutex<Option<tokio::sync::mpsc::UnboundedSender<String>>>>;
    let stream: Streams = Default::default();
    let for_get = stream.clone();
    axum::Router::new()
        .route(
            "/sse",
            axum::routing::get(move || {
                let slot = for_get.clone();
                async move {
                    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<String>();
                    let _ = tx.send(
                        ": welcome\r\n\r\nevent: endpoint\r\ndata: /messages?sessionId=s1\r\n\r\n"
                            .into(),
                    );
                    *slot.lock().unwrap() = Some(tx);
                    let body = futures_util::stream::unfold(rx, |mut rx| async move {
                        rx.recv().await.map(|s| (Ok::<_, std::io::Error>(s), rx))
                    });
                    (
                        [("content-type", "text/event-stream")],
                        axum::body::Body::from_stream(body),
                    )
                }
            }),
        )
        .route(
            "/messages",
            axum::routing::post(move |body: String| {
                let slot = stream.clone();
                async move {
                    let msg: Value = serde_json::from_str(&body).unwrap();
                    if let Some(reply) = respond(&msg) {
                        let pretty = serde_json::to_string_pretty(&reply).unwrap();
                        let mut event = String::from("event: message\r\n");
                        for line in pretty.lines() {
                            event.push_str(&format!("data: {line}\r\n"));
                        }
                        event.push_str(": keep-alive\r\n\r\n");
                        if let Some(tx) = slot.lock().unwrap().as_ref() {
                            let _ = tx.send(event);
                        }
                    }
                    StatusCode::ACCEPTED
                }
            }),
        )
}

#[tokio::test]
async fn legacy_sse_transport() {
    let (base, task) = serve_router(legacy_sse_router()).await;
    let d = discover(&http_spec(&format!("{base}/sse"), HttpTransport::Sse), T)
        .await
        .unwrap();
    task.abort();
    assert_eq!(d.server_name, "hand-written");
    assert_eq!(d.tools[0].raw["description"], "Says hello.\nOn two lines.");
}

#[tokio::test]
async fn sse_against_a_streamable_server_explains_the_mismatch() {
    let server = http_example("weather-server", &[]).await;
    let err = discover(&http_spec(&server.url, HttpTransport::Sse), T)
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("streamable-http") || msg.contains("HTTP 4"),
        "{msg}"
    );
}

// ---- The raw Connection API (what `serve` builds on) ----

use mcp_gen_ui::mcp::{CloseKind, ConnectOptions, Connection, Incoming, InvalidMessage};

async fn next_item(conn: &mut Connection) -> Incoming {
    tokio::time::timeout(T, conn.recv()).await.unwrap().unwrap()
}

fn init_msg(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}})
}

#[tokio::test]
async fn connection_reports_stdout_noise_and_keeps_going() {
    let mut conn = Connection::open(&fixture(&["stdout-noise"]), &ConnectOptions::default())
        .await
        .unwrap();
    conn.sender().send(&init_msg(1)).await.unwrap();
    match next_item(&mut conn).await {
        Incoming::Invalid(InvalidMessage::NotJson { text, .. }) => {
            assert_eq!(text, "LOG: handling a request")
        }
        other => panic!("expected the noise first, got {other:?}"),
    }
    match next_item(&mut conn).await {
        Incoming::Message(m) => {
            assert_eq!(m["result"]["serverInfo"]["name"], "fixture-stdout-noise")
        }
        other => panic!("expected the answer, got {other:?}"),
    }
    let reason = conn.shutdown().await;
    assert_eq!(reason.kind, CloseKind::Shutdown);
}

#[tokio::test]
async fn connection_skips_an_oversized_message_and_continues() {
    let opts = ConnectOptions {
        max_message_bytes: 1024 * 1024,
        ..Default::default()
    };
    let mut conn = Connection::open(&fixture(&["big"]), &opts).await.unwrap();
    let tx = conn.sender();
    tx.send(&init_msg(1)).await.unwrap();
    tx.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await
        .unwrap();
    tx.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await
        .unwrap();
    assert!(matches!(next_item(&mut conn).await, Incoming::Message(m) if m["id"] == 1));
    match next_item(&mut conn).await {
        Incoming::Invalid(InvalidMessage::TooLarge { limit, prefix, .. }) => {
            assert_eq!(limit, 1024 * 1024);
            assert!(prefix.starts_with("{\"jsonrpc\""), "{prefix}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(matches!(next_item(&mut conn).await, Incoming::Message(m) if m["id"] == 3));
    conn.shutdown().await;
}

#[tokio::test]
async fn connection_close_reason_has_exit_status_and_stderr() {
    let mut conn = Connection::open(&fixture(&["crash"]), &ConnectOptions::default())
        .await
        .unwrap();
    conn.sender().send(&init_msg(1)).await.unwrap();
    match next_item(&mut conn).await {
        Incoming::Closed(reason) => {
            assert_eq!(
                reason.kind,
                CloseKind::Exited {
                    code: Some(3),
                    signal: None
                }
            );
            assert!(
                reason
                    .stderr_tail
                    .iter()
                    .any(|l| l.contains("simulated crash"))
            );
            assert!(reason.to_string().contains("exited with status 3"));
        }
        other => panic!("expected Closed, got {other:?}"),
    }
    // Nothing after Closed; sending now fails instead of hanging.
    assert!(conn.recv().await.is_none());
    assert!(conn.sender().send(&init_msg(2)).await.is_err());
}

fn process_gone(pid: u32) -> bool {
    // A zombie (state Z) is dead too; a container's PID 1 may be slow to reap it.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[tokio::test]
async fn shutdown_kills_grandchildren() {
    // Like `cargo run`: the child (sh) starts the real server as a grandchild. The server
    // ignores stdin EOF, so only signalling the process group ends it.
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: "sh".into(),
        args: vec![
            "-c".into(),
            format!(
                "{} --mode hang & echo \"grandchild=$!\" >&2; wait",
                example("fixture-server").display()
            ),
        ],
        ..Default::default()
    });
    let opts = ConnectOptions {
        shutdown_grace: Duration::from_millis(200),
        ..Default::default()
    };
    let conn = Connection::open(&spec, &opts).await.unwrap();
    let pid = tokio::time::timeout(T, async {
        loop {
            if let Some(pid) = conn.stderr_tail().iter().find_map(|l| {
                l.strip_prefix("grandchild=")
                    .and_then(|p| p.parse::<u32>().ok())
            }) {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap();
    assert!(!process_gone(pid), "the grandchild should be running");
    conn.shutdown().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !process_gone(pid) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(process_gone(pid), "grandchild {pid} outlived shutdown");
}

#[tokio::test]
async fn server_to_client_requests_are_answered_during_discovery() {
    // The fixture asks `ping` and `roots/list` before it answers `initialize`, and exits
    // with status 4 if the answers are wrong.
    let d = discover(&fixture(&["server-requests"]), T).await.unwrap();
    assert_eq!(d.server_name, "fixture-server-requests");
}

/// Streamable HTTP server that records requests, pushes a notification on the GET stream,
/// and accepts DELETE.
/// `open_after`: how long the GET takes to answer (it logs "GET open" then).
fn get_stream_router(
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    open_after: Duration,
) -> axum::Router {
    use futures_util::StreamExt as _;
    let post_log = log.clone();
    let get_log = log.clone();
    axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: String| {
            let log = post_log.clone();
            async move {
                let msg: Value = serde_json::from_str(&body).unwrap();
                log.lock().unwrap().push(format!(
                    "POST {}",
                    msg["method"].as_str().unwrap_or("reply")
                ));
                match respond(&msg) {
                    None => StatusCode::ACCEPTED.into_response(),
                    Some(reply) => (
                        [
                            ("content-type", "text/event-stream"),
                            ("mcp-session-id", "S1"),
                        ],
                        format!("id: 1\ndata:\n\nevent: message\ndata: {reply}\n\n"),
                    )
                        .into_response(),
                }
            }
        })
        .get(move |headers: HeaderMap| {
            let log = get_log.clone();
            async move {
                let sid = headers
                    .get("mcp-session-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                log.lock().unwrap().push(format!("GET {sid}"));
                if !open_after.is_zero() {
                    tokio::time::sleep(open_after).await;
                    log.lock().unwrap().push("GET open".into());
                }
                let note = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
                let body = futures_util::stream::iter([Ok::<_, std::io::Error>(format!(
                    "data: {note}\n\n"
                ))])
                .chain(futures_util::stream::pending());
                (
                    [("content-type", "text/event-stream")],
                    axum::body::Body::from_stream(body),
                )
            }
        })
        .delete(move |headers: HeaderMap| {
            let log = log.clone();
            async move {
                let sid = headers
                    .get("mcp-session-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-");
                log.lock().unwrap().push(format!("DELETE {sid}"));
                StatusCode::OK
            }
        }),
    )
}

#[tokio::test]
async fn http_get_stream_delivers_server_messages_and_shutdown_deletes_the_session() {
    let log: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let (base, task) = serve_router(get_stream_router(log.clone(), Duration::ZERO)).await;
    let spec = http_spec(&format!("{base}/mcp"), HttpTransport::StreamableHttp);
    let mut conn = Connection::open(&spec, &ConnectOptions::default())
        .await
        .unwrap();
    let tx = conn.sender();
    tx.send(&init_msg(1)).await.unwrap();
    assert!(matches!(next_item(&mut conn).await, Incoming::Message(m) if m["id"] == 1));
    tx.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .unwrap();
    match next_item(&mut conn).await {
        Incoming::Message(m) => assert_eq!(m["method"], "notifications/tools/list_changed"),
        other => panic!("expected the GET stream's notification, got {other:?}"),
    }
    let reason = conn.shutdown().await;
    assert_eq!(reason.kind, CloseKind::Shutdown);
    task.abort();
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log,
        [
            "POST initialize",
            "POST notifications/initialized",
            "GET S1",
            "DELETE S1"
        ]
    );
}

/// A server→client request the upstream sends on its GET stream while handling the next request
/// must find the stream open: nothing is sent after `notifications/initialized` until the
/// server has answered the GET.
#[tokio::test]
async fn no_request_overtakes_the_get_stream() {
    let log: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let slow = Duration::from_millis(400);
    let (base, task) = serve_router(get_stream_router(log.clone(), slow)).await;
    let spec = http_spec(&format!("{base}/mcp"), HttpTransport::StreamableHttp);
    let mut conn = Connection::open(&spec, &ConnectOptions::default())
        .await
        .unwrap();
    let tx = conn.sender();
    tx.send(&init_msg(1)).await.unwrap();
    assert!(matches!(next_item(&mut conn).await, Incoming::Message(m) if m["id"] == 1));
    tx.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .unwrap();
    tx.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await
        .unwrap();
    conn.shutdown().await;
    task.abort();
    let log = log.lock().unwrap().clone();
    assert_eq!(
        log[..5],
        [
            "POST initialize",
            "POST notifications/initialized",
            "GET S1",
            "GET open",
            "POST tools/list"
        ]
    );
}

#[tokio::test]
async fn a_web_page_is_not_an_mcp_server() {
    let router = axum::Router::new().route(
        "/",
        axum::routing::post(|| async {
            (
                [("content-type", "text/html")],
                "<!doctype html><title>Welcome</title>",
            )
        }),
    );
    let (base, task) = serve_router(router).await;
    let err = discover(
        &http_spec(&format!("{base}/"), HttpTransport::StreamableHttp),
        T,
    )
    .await
    .unwrap_err();
    task.abort();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::NotMcp { .. }), "{msg}");
    assert!(msg.contains("<!doctype html>"), "{msg}");
    assert!(msg.contains("check the URL"), "{msg}");
}

/// A server that closes the POST stream of `tools/list` right after a priming event and
/// delivers the answer only when the client resumes with `Last-Event-ID` (SSE polling).
fn resuming_router(held: std::sync::Arc<std::sync::Mutex<Option<Value>>>) -> axum::Router {
    let for_get = held.clone();
    axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: String| {
            let held = held.clone();
            async move {
                let msg: Value = serde_json::from_str(&body).unwrap();
                let Some(reply) = respond(&msg) else {
                    return StatusCode::ACCEPTED.into_response();
                };
                if msg["method"] == "tools/list" {
                    *held.lock().unwrap() = Some(reply);
                    return (
                        [("content-type", "text/event-stream")],
                        "id: prime-7\nretry: 50\ndata:\n\n",
                    )
                        .into_response();
                }
                ([("content-type", "application/json")], reply.to_string()).into_response()
            }
        })
        .get(move |headers: HeaderMap| {
            let held = for_get.clone();
            async move {
                let last = headers.get("last-event-id").and_then(|v| v.to_str().ok());
                if last != Some("prime-7") {
                    return StatusCode::METHOD_NOT_ALLOWED.into_response();
                }
                let reply = held.lock().unwrap().take().unwrap();
                (
                    [("content-type", "text/event-stream")],
                    format!("id: 8\ndata: {reply}\n\n"),
                )
                    .into_response()
            }
        }),
    )
}

#[tokio::test]
async fn http_stream_closed_early_is_resumed_with_last_event_id() {
    let held = Default::default();
    let (base, task) = serve_router(resuming_router(held)).await;
    let d = discover(
        &http_spec(&format!("{base}/mcp"), HttpTransport::StreamableHttp),
        T,
    )
    .await
    .unwrap();
    task.abort();
    assert_eq!(d.tools[0].name, "greet");
}

#[tokio::test]
async fn json_rpc_error_names_method_code_and_message() {
    let err = discover(&fixture(&["rpc-error"]), T).await.unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, DiscoverError::Rpc { code: -32603, .. }),
        "{msg}"
    );
    assert!(msg.contains("`tools/list`"), "{msg}");
    assert!(msg.contains("-32603: database unavailable"), "{msg}");
    // The escape sequence the server sent is shown, not executed by the terminal.
    assert!(!msg.contains('\u{1b}'), "{msg:?}");
    assert!(msg.contains("\\u{1b}[31m"), "{msg}");
}

// ---- Interop with the official TypeScript SDK server (npm `@modelcontextprotocol/server-everything`) ----

fn everything_bin() -> PathBuf {
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/node_modules/.bin/mcp-server-everything");
    assert!(
        bin.exists(),
        "{} is missing: run `npm ci` in tests/ first",
        bin.display()
    );
    bin
}

fn check_everything(d: &mcp_gen_ui::discover::Discovery) {
    assert_eq!(d.server_name, "mcp-servers/everything");
    assert!(d.tools.len() >= 5, "{} tools", d.tools.len());
    assert!(d.tools.iter().any(|t| t.name == "echo"));
}

/// Starts server-everything in an HTTP mode on a free port and waits until it accepts.
async fn everything_http(mode: &str) -> (tokio::process::Child, u16) {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let child = tokio::process::Command::new(everything_bin())
        .arg(mode)
        .env("PORT", port.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything did not start"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, port)
}

const SLOW: Duration = Duration::from_secs(30);

#[tokio::test]
async fn everything_server_over_stdio() {
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: everything_bin().display().to_string(),
        ..Default::default()
    });
    check_everything(&discover(&spec, SLOW).await.unwrap());
}

#[tokio::test]
async fn everything_server_over_streamable_http() {
    let (_child, port) = everything_http("streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    check_everything(
        &discover(&http_spec(&url, HttpTransport::StreamableHttp), SLOW)
            .await
            .unwrap(),
    );
}

#[tokio::test]
async fn everything_server_over_legacy_sse() {
    let (_child, port) = everything_http("sse").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    check_everything(
        &discover(&http_spec(&url, HttpTransport::Sse), SLOW)
            .await
            .unwrap(),
    );
}

#[tokio::test]
async fn missing_interpreter_is_not_reported_as_missing_command() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server.js");
    std::fs::write(&script, "#!/nonexistent/bin/node\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spec = UpstreamSpec::Stdio(StdioSpec {
        command: script.display().to_string(),
        ..Default::default()
    });
    let err = discover(&spec, T).await.unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Start { .. }), "{msg}");
    assert!(msg.contains("interpreter"), "{msg}");
}

#[tokio::test]
async fn redirects_are_reported_not_followed() {
    let router = axum::Router::new().route(
        "/mcp",
        axum::routing::post(|| async {
            (
                StatusCode::TEMPORARY_REDIRECT,
                [("location", "http://elsewhere.invalid/mcp")],
            )
        }),
    );
    let (base, task) = serve_router(router).await;
    let err = discover(
        &http_spec(&format!("{base}/mcp"), HttpTransport::StreamableHttp),
        T,
    )
    .await
    .unwrap_err();
    task.abort();
    let msg = err.to_string();
    assert!(
        matches!(err, DiscoverError::Http { status: 307, .. }),
        "{msg}"
    );
    assert!(msg.contains("http://elsewhere.invalid/mcp"), "{msg}");
}

#[tokio::test]
async fn duplicate_tool_names_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.json");
    let t = serde_json::json!({"name": "dup", "inputSchema": {"type": "object"}});
    std::fs::write(&file, serde_json::json!([t, t]).to_string()).unwrap();
    let path = file.display().to_string();
    let err = discover(&fixture(&["changing", "--tools-file", &path]), T)
        .await
        .unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, DiscoverError::Tools { .. }), "{msg}");
    assert!(msg.contains("`dup` twice"), "{msg}");
}

// ---- The example servers' behaviour (other suites and the docs rely on it) ----

use mcp_gen_ui::mcp::Client;

async fn client_for(spec: &UpstreamSpec) -> Client {
    let client = Client::new(
        Connection::open(spec, &ConnectOptions::default())
            .await
            .unwrap(),
    );
    client
        .request("initialize", Some(init_msg(0)["params"].clone()), T)
        .await
        .unwrap();
    client
        .notify("notifications/initialized", None)
        .await
        .unwrap();
    client
}

async fn call(client: &Client, tool: &str, args: Value) -> Value {
    client
        .request(
            "tools/call",
            Some(json!({"name": tool, "arguments": args})),
            T,
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn weather_results_are_structured_and_deterministic() {
    let client = client_for(&stdio("weather-server", &[])).await;
    let a = call(&client, "get_forecast", json!({"city": "Berlin"})).await;
    let b = call(&client, "get_forecast", json!({"city": "berlin"})).await;
    assert_eq!(a, b, "same city, same weather");
    let days = a["structuredContent"]["forecast"].as_array().unwrap();
    assert_eq!(days.len(), 7, "default days");
    assert_eq!(days[0]["date"], "2025-06-01");
    assert!(days.iter().all(|d| d["high"].as_f64() >= d["low"].as_f64()));
    let f = call(
        &client,
        "get_forecast",
        json!({"city": "Tokyo", "days": 3, "units": "imperial"}),
    )
    .await;
    assert_eq!(f["structuredContent"]["units"], "imperial");
    assert_eq!(
        f["structuredContent"]["forecast"].as_array().unwrap().len(),
        3
    );
    let unknown = call(
        &client,
        "get_current_conditions",
        json!({"city": "Atlantis"}),
    )
    .await;
    assert_eq!(unknown["isError"], true);
    assert!(
        unknown["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Berlin")
    );
    let now = call(&client, "get_current_conditions", json!({"city": "Cairo"})).await;
    assert_eq!(now["structuredContent"]["country"], "EG");
    client.shutdown().await;
}

#[tokio::test]
async fn db_server_enforces_read_only_queries_and_inserts_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db").display().to_string();
    let client = client_for(&stdio("db-server", &["--db", &db])).await;
    let tables = call(&client, "list_tables", json!({})).await;
    assert_eq!(
        tables["structuredContent"]["tables"][0]["name"],
        "customers"
    );
    for sql in [
        "DELETE FROM customers",
        "DROP TABLE orders",
        "ATTACH DATABASE 'x.db' AS x",
        "SELECT 1; DELETE FROM customers",
    ] {
        let r = call(&client, "query", json!({"sql": sql})).await;
        assert_eq!(r["isError"], true, "{sql} must be refused: {r}");
    }
    let bad = call(&client, "query", json!({"sql": "SELEC nonsense"})).await;
    assert_eq!(bad["isError"], true);
    assert!(
        bad["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("SQL error")
    );
    let ins = call(
        &client,
        "insert_row",
        json!({"table": "customers", "values": {"name": "Margaret Hamilton",
            "email": "margaret@example.com", "created_at": "2025-06-01"}}),
    )
    .await;
    assert_eq!(ins["isError"], false, "{ins}");
    assert_eq!(ins["structuredContent"]["row"]["name"], "Margaret Hamilton");
    let q = call(
        &client,
        "query",
        json!({"sql": "SELECT name FROM customers ORDER BY id", "limit": 2}),
    )
    .await;
    assert_eq!(q["structuredContent"]["row_count"], 2);
    assert_eq!(q["structuredContent"]["truncated"], true);
    let desc = call(&client, "describe_table", json!({"table": "orders"})).await;
    let cols = desc["structuredContent"]["columns"].as_array().unwrap();
    assert!(
        cols.iter()
            .any(|c| c["name"] == "customer_id" && c["not_null"] == true)
    );
    client.shutdown().await;
    // The file keeps the inserted row for the next server.
    let client = client_for(&stdio("db-server", &["--db", &db])).await;
    let n = call(
        &client,
        "query",
        json!({"sql": "SELECT count(*) AS n FROM customers"}),
    )
    .await;
    assert_eq!(n["structuredContent"]["rows"][0]["n"], 6);
    client.shutdown().await;
}

#[tokio::test]
async fn db_server_over_http() {
    let server = http_example("db-server", &[]).await;
    let d = discover(&http_spec(&server.url, HttpTransport::StreamableHttp), T)
        .await
        .unwrap();
    assert_eq!(d.server_name, "sqlite-db");
    assert_eq!(d.tools.len(), 4);
}

#[tokio::test]
async fn example_servers_exit_when_stdin_closes() {
    for (name, args) in [
        ("weather-server", &[][..]),
        ("db-server", &[][..]),
        ("fixture-server", &["--mode", "ok"][..]),
    ] {
        let mut child = tokio::process::Command::new(example(name))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        drop(child.stdin.take());
        let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .unwrap_or_else(|_| panic!("{name} kept running after stdin closed"))
            .unwrap();
        assert!(status.success(), "{name}: {status}");
    }
}

/// A tools/list with a schema nested 1,000 levels and a lone surrogate is read (a JavaScript or
/// Python client would read it), and tool_hash follows the documented rule: the canonical JSON
/// writes the lone surrogate as `\ud800`, as ECMAScript's JSON.stringify does.
#[tokio::test]
async fn deep_schemas_and_lone_surrogates_are_read_and_hashed() {
    let d = discover(&fixture(&["deep-tools"]), T).await.unwrap();
    assert_eq!(d.tools.len(), 2);
    let deep = d.tools.iter().find(|t| t.name == "deep_schema").unwrap();
    assert!(mcp_gen_ui::json::depth(&deep.raw["inputSchema"]) >= 1000);
    let odd = d.tools.iter().find(|t| t.name == "surrogate_tool").unwrap();
    let canonical = mcp_gen_ui::model::canonical_json(&odd.hashed_definition());
    assert_eq!(
        canonical,
        r#"{"description":"bad \ud800 text","inputSchema":{"type":"object"},"name":"surrogate_tool"}"#
    );
    assert_eq!(odd.tool_hash(), mcp_gen_ui::model::sha256_hex(&canonical));
    assert_eq!(deep.tool_hash().len(), 64);
}

// ---- Both protocol eras, with the official 2.x TypeScript server package ----
// (tests/node/fixtures/era-server.mjs: a two-era, a 2026-07-28-only and a 2025-only server.)

fn era_fixture() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/node/fixtures/era-server.mjs")
        .display()
        .to_string()
}

fn era_stdio(eras: &str) -> UpstreamSpec {
    UpstreamSpec::Stdio(StdioSpec {
        command: "node".into(),
        args: vec![era_fixture(), "stdio".into(), eras.into()],
        ..Default::default()
    })
}

/// Starts the fixture over streamable HTTP; its URL once it listens.
async fn era_http(eras: &str) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new("node")
        .args([era_fixture(), "http".into(), eras.into()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(SLOW, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = line.rsplit(' ').next().unwrap().to_string();
    (child, url)
}

fn check_era_fixture(d: &mcp_gen_ui::discover::Discovery, era: Era) {
    assert_eq!(d.server_name, "era-fixture");
    assert_eq!(d.era, era);
    let names: Vec<&str> = d.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "regional", "slow"]);
}

#[tokio::test]
async fn both_eras_and_each_alone_are_discovered() {
    let modern = Era::Stateless("2026-07-28".into());
    let legacy = Era::Handshake("2025-11-25".into());
    let mut hashes = Vec::new();
    for (eras, era) in [("both", &modern), ("modern", &modern), ("legacy", &legacy)] {
        let d = discover(&era_stdio(eras), SLOW).await.unwrap();
        check_era_fixture(&d, era.clone());
        hashes.push(d.tools.iter().map(|t| t.tool_hash()).collect::<Vec<_>>());
        let (_child, url) = era_http(eras).await;
        let d = discover(&http_spec(&url, HttpTransport::StreamableHttp), SLOW)
            .await
            .unwrap();
        check_era_fixture(&d, era.clone());
        hashes.push(d.tools.iter().map(|t| t.tool_hash()).collect::<Vec<_>>());
    }
    // A tool hashes the same whichever era listed it.
    assert!(hashes.windows(2).all(|w| w[0] == w[1]), "{hashes:?}");
}
