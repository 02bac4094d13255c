//! Integration tests of `mcp-gen-ui serve`: a real rmcp client against the wrapper around the
//! example servers and `@modelcontextprotocol/server-everything`, over stdio and HTTP on both
//! sides, plus faults (killed upstream, silent upstream, junk and huge messages, stale files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_gen_ui::lock::{LOCK_VERSION, Lock, ToolEntry, WidgetEntry};
use mcp_gen_ui::mcp::{StdioSpec, UpstreamSpec};
use mcp_gen_ui::model::sha256_hex;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
    ReadResourceRequestParams,
};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-gen-ui");
const MCP_APP: &str = "text/html;profile=mcp-app";

#[path = "support/examples.rs"]
mod examples;
#[path = "support/process.rs"]
mod process;
#[path = "support/python.rs"]
mod python;
use examples::example;

/// `@modelcontextprotocol/server-everything` from `tests/node_modules` (`npm ci` in tests/).
fn everything() -> PathBuf {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node_modules/.bin/mcp-server-everything");
    assert!(
        p.exists(),
        "{} is missing: run `npm ci` in tests/",
        p.display()
    );
    p
}

fn ui_client() -> ClientConfig {
    let mut caps = ClientCapabilities::default();
    let mut ext = BTreeMap::new();
    let mut ui = serde_json::Map::new();
    ui.insert("mimeTypes".into(), json!([MCP_APP]));
    ext.insert("io.modelcontextprotocol/ui".to_string(), ui);
    caps.extensions = Some(ext);
    ClientConfig::new(caps, Implementation::new("serve-test", "1.0"))
}

fn plain_client() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("serve-test", "1.0"),
    )
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

/// A `ui/` for weather-server: `get_forecast` with two widgets (table is the default) and
/// `get_current_conditions` with one, and a config naming the upstream.
struct WeatherUi {
    dir: tempfile::TempDir,
}

impl WeatherUi {
    async fn new() -> WeatherUi {
        let weather = example("weather-server");
        let spec = UpstreamSpec::Stdio(StdioSpec {
            command: weather.display().to_string(),
            ..StdioSpec::default()
        });
        let d = mcp_gen_ui::discover::discover(&spec, Duration::from_secs(30))
            .await
            .unwrap();
        let hash = |name: &str| {
            d.tools
                .iter()
                .find(|t| t.name == name)
                .unwrap_or_else(|| panic!("weather-server has no tool {name}"))
                .tool_hash()
        };
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("ui");
        std::fs::create_dir_all(out.join("get_forecast")).unwrap();
        let mut tools = BTreeMap::new();
        let widget = |name: &str, path: &str, default: bool| {
            let body = format!("<!doctype html><title>{path}</title><p>{name}</p>");
            std::fs::write(out.join(path), &body).unwrap();
            WidgetEntry {
                name: name.into(),
                path: path.into(),
                sha256: sha256_hex(&body),
                generator: "builtin".into(),
                template_version: "1".into(),
                ui_type: "rich".into(),
                default,
                ..WidgetEntry::default()
            }
        };
        tools.insert(
            "get_forecast".to_string(),
            ToolEntry {
                tool_hash: hash("get_forecast"),
                config_hash: "x".into(),
                widgets: vec![
                    widget("chart", "get_forecast/chart.html", false),
                    widget("table", "get_forecast/table.html", true),
                ],
                ..ToolEntry::default()
            },
        );
        tools.insert(
            "get_current_conditions".to_string(),
            ToolEntry {
                tool_hash: hash("get_current_conditions"),
                config_hash: "x".into(),
                widgets: vec![widget("default", "get_current_conditions.html", true)],
                ..ToolEntry::default()
            },
        );
        let lock = Lock {
            version: LOCK_VERSION,
            generator: "builtin".into(),
            fingerprint: "f".into(),
            validator_version: 1,
            server_name: "weather".into(),
            tools,
        };
        std::fs::write(Lock::path(&out), lock.to_toml()).unwrap();
        let config = format!(
            "out_dir = \"ui\"\n\n[upstream]\ncommand = {}\n\n[serve]\nprefers_border = true\n\n\
             [tools.get_forecast]\nwidgets = [{{ name = \"chart\" }}, {{ name = \"table\", default = true }}]\n\n\
             [tools.get_current_conditions]\ncsp = {{ connect_domains = [\"https://api.example.com\"] }}\n",
            toml::Value::String(weather.display().to_string())
        );
        std::fs::write(dir.path().join("mcp-gen-ui.toml"), config).unwrap();
        WeatherUi { dir }
    }

    fn config(&self) -> String {
        self.dir
            .path()
            .join("mcp-gen-ui.toml")
            .display()
            .to_string()
    }

    fn out_dir(&self) -> PathBuf {
        self.dir.path().join("ui")
    }
}

fn serve_cmd(args: &[&str]) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(BIN);
    c.arg("serve").args(args).env("MCP_GEN_UI_LOG", "warn");
    c
}

fn forecast_call() -> CallToolRequestParams {
    let mut args = serde_json::Map::new();
    args.insert("city".into(), json!("Paris"));
    args.insert("days".into(), json!(3));
    CallToolRequestParams::new("get_forecast").with_arguments(args)
}

fn meta_of(tools: &[Value], name: &str) -> Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| t.get("_meta").cloned().unwrap_or(Value::Null))
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// What a UI-capable client must see, whatever the transports.
async fn check_ui_client(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ClientConfig>,
    ui: &WeatherUi,
) {
    let tools: Vec<Value> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    let fc = meta_of(&tools, "get_forecast");
    assert_eq!(fc["ui"]["resourceUri"], "ui://weather/get_forecast/table");
    assert_eq!(fc["ui/resourceUri"], "ui://weather/get_forecast/table");
    assert_eq!(
        fc["ui"]["resourceUris"],
        json!([
            "ui://weather/get_forecast/chart",
            "ui://weather/get_forecast/table"
        ])
    );
    let cc = meta_of(&tools, "get_current_conditions");
    assert_eq!(
        cc["ui"]["resourceUri"],
        "ui://weather/get_current_conditions"
    );
    assert!(cc["ui"].get("resourceUris").is_none());

    let resources: Vec<Value> = client
        .list_all_resources()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    let uris: Vec<&str> = resources.iter().filter_map(|r| r["uri"].as_str()).collect();
    for u in [
        "ui://weather/get_forecast/chart",
        "ui://weather/get_forecast/table",
        "ui://weather/get_current_conditions",
    ] {
        assert!(uris.contains(&u), "{u} missing from {uris:?}");
    }
    assert!(resources.iter().all(|r| r["mimeType"] == MCP_APP));

    let read = to_json(
        &client
            .read_resource(ReadResourceRequestParams::new(
                "ui://weather/get_current_conditions",
            ))
            .await
            .unwrap(),
    );
    let c = &read["contents"][0];
    let on_disk =
        std::fs::read_to_string(ui.out_dir().join("get_current_conditions.html")).unwrap();
    assert_eq!(c["text"], on_disk.as_str());
    assert_eq!(c["mimeType"], MCP_APP);
    assert_eq!(
        c["_meta"]["ui"]["csp"]["connectDomains"],
        json!(["https://api.example.com"])
    );
    assert_eq!(c["_meta"]["ui"]["prefersBorder"], true);

    let result = to_json(&client.call_tool(forecast_call()).await.unwrap());
    assert_eq!(
        result["structuredContent"]["forecast"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{result}"
    );
}

#[tokio::test]
async fn stdio_host_adds_uis_for_ui_clients() {
    let ui = WeatherUi::new().await;
    let mut cmd = serve_cmd(&["--config", &ui.config()]);
    cmd.stderr(Stdio::inherit());
    let client = ui_client()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let info = to_json(&client.peer_info().unwrap());
    assert_eq!(info["serverInfo"]["name"], "weather");
    // weather-server has no resources: the wrapper declares the capability for its own.
    assert!(info["capabilities"]["resources"].is_object(), "{info}");
    check_ui_client(&client, &ui).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_host_is_transparent_without_ui() {
    let ui = WeatherUi::new().await;
    let direct = plain_client()
        .serve(
            TokioChildProcess::new(tokio::process::Command::new(example("weather-server")))
                .unwrap(),
        )
        .await
        .unwrap();
    let wrapped = plain_client()
        .serve(TokioChildProcess::new(serve_cmd(&["--config", &ui.config()])).unwrap())
        .await
        .unwrap();
    assert_eq!(
        to_json(&direct.peer_info().unwrap()),
        to_json(&wrapped.peer_info().unwrap())
    );
    assert_eq!(
        to_json(&direct.list_all_tools().await.unwrap()),
        to_json(&wrapped.list_all_tools().await.unwrap())
    );
    assert_eq!(
        to_json(&direct.call_tool(forecast_call()).await.unwrap()),
        to_json(&wrapped.call_tool(forecast_call()).await.unwrap())
    );
    // Not a UI client: our resources are not there (the upstream has none at all).
    let r = wrapped.list_all_resources().await;
    assert!(r.as_ref().map(|l| l.is_empty()).unwrap_or(true), "{r:?}");
    direct.cancel().await.unwrap();
    wrapped.cancel().await.unwrap();
}

/// A child whose stderr announces `http://…`; killed on drop.
struct Listening {
    _child: tokio::process::Child,
    url: String,
}

async fn listening(mut cmd: tokio::process::Command, needle: &str) -> Listening {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(i) = line.find(needle) {
                return line[i..].trim().to_string();
            }
        }
        panic!("exited without printing {needle}");
    })
    .await
    .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Listening { _child: child, url }
}

async fn serve_http(args: &[&str]) -> Listening {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    listening(serve_cmd(&all), "http://").await
}

#[tokio::test]
async fn http_host_serves_ui_clients() {
    let ui = WeatherUi::new().await;
    let server = serve_http(&["--config", &ui.config()]).await;
    assert!(server.url.ends_with("/mcp"), "{}", server.url);
    let client = ui_client()
        .serve(StreamableHttpClientTransport::from_uri(server.url.clone()))
        .await
        .unwrap();
    check_ui_client(&client, &ui).await;
    // A second host session gets its own upstream and works independently.
    let other = plain_client()
        .serve(StreamableHttpClientTransport::from_uri(server.url.clone()))
        .await
        .unwrap();
    let tools: Vec<Value> = other
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    assert!(meta_of(&tools, "get_forecast").is_null());
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
}

#[tokio::test]
async fn http_host_refuses_forged_and_oversized_requests() {
    let ui = WeatherUi::new().await;
    let server = serve_http(&["--config", &ui.config()]).await;
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let post = |body: String| {
        http.post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
    };
    let r = post(init.to_string())
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = post(init.to_string())
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = post(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a request without a session");
    let r = post("{not json".into()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700);
    // Refused from its headers, before the body is sent (a client that writes the whole body
    // before reading finds the connection closed instead).
    let addr = host_port(&server.url);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        33 * 1024 * 1024
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
    assert!(got.contains("limit"), "{got:?}");
    // The server is still fine after all that. (A fresh client: the server closes the
    // connection whose oversized body it did not read, and a pooled one may race that.)
    let r = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_some());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["serverInfo"]["name"], "weather");
}

#[tokio::test]
async fn non_loopback_bind_needs_a_token() {
    let out = tokio::process::Command::new(BIN)
        .args(["serve", "--server", "true", "--http", "0.0.0.0:0"])
        .env_remove("MCP_GEN_UI_TOKEN")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MCP_GEN_UI_TOKEN"), "{err}");
}

#[tokio::test]
async fn upstream_over_streamable_http() {
    let ui = WeatherUi::new().await;
    let mut up = tokio::process::Command::new(example("weather-server"));
    up.args(["--http", "127.0.0.1:0"]);
    let upstream = listening(up, "http://").await;
    let mut cmd = serve_cmd(&[
        "--url",
        &upstream.url,
        "--out-dir",
        ui.out_dir().to_str().unwrap(),
    ]);
    cmd.stderr(Stdio::inherit());
    let client = ui_client()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let result = to_json(&client.call_tool(forecast_call()).await.unwrap());
    assert_eq!(
        result["structuredContent"]["forecast"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    let tools: Vec<Value> = client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    assert_eq!(
        meta_of(&tools, "get_forecast")["ui"]["resourceUri"],
        "ui://weather/get_forecast/table"
    );
    client.cancel().await.unwrap();
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn upstream_over_legacy_sse() {
    let port = free_port();
    let mut up = tokio::process::Command::new(everything());
    up.arg("sse").env("PORT", port.to_string());
    let _upstream = listening(up, "running on port").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    let out = tempfile::tempdir().unwrap();
    let cmd = serve_cmd(&[
        "--url",
        &url,
        "--transport",
        "sse",
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    let client = plain_client()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let mut args = serde_json::Map::new();
    args.insert("message".into(), json!("through sse"));
    let r = to_json(
        &client
            .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
            .await
            .unwrap(),
    );
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("through sse"),
        "{r}"
    );
    assert!(!client.list_all_prompts().await.unwrap().is_empty());
    client.cancel().await.unwrap();
}

/// The pids of the direct children of `pid` (Linux /proc).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …; comm may contain spaces, so split after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let ppid: Option<u32> = rest.split_whitespace().nth(1).and_then(|p| p.parse().ok());
        if ppid == Some(pid)
            && let Ok(child) = entry.file_name().to_string_lossy().parse()
        {
            out.push(child);
        }
    }
    out
}

#[tokio::test]
async fn upstream_killed_mid_call_fails_clearly_and_restarts() {
    let out = tempfile::tempdir().unwrap();
    let transport = TokioChildProcess::new(serve_cmd(&[
        "--server",
        everything().to_str().unwrap(),
        "--out-dir",
        out.path().to_str().unwrap(),
    ]))
    .unwrap();
    let serve_pid = transport.id().unwrap();
    let client = plain_client().serve(transport).await.unwrap();
    let mut args = serde_json::Map::new();
    args.insert("duration".into(), json!(30));
    args.insert("steps".into(), json!(30));
    let call = client.call_tool(
        CallToolRequestParams::new("trigger-long-running-operation").with_arguments(args),
    );
    let killer = async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        let kids = children(serve_pid);
        assert!(!kids.is_empty(), "serve has no upstream child");
        for k in kids {
            let _ = std::process::Command::new("kill")
                .args(["-9", &k.to_string()])
                .status();
        }
    };
    let started = Instant::now();
    let (result, ()) = tokio::join!(call, killer);
    let err = format!(
        "{:?}",
        result.expect_err("the call must fail when its upstream dies")
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the failure must be prompt"
    );
    assert!(err.contains("restarting"), "{err}");
    // The wrapper stays up, restarts the upstream and replays initialize.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut a = serde_json::Map::new();
        a.insert("message".into(), json!("again"));
        match client
            .call_tool(CallToolRequestParams::new("echo").with_arguments(a))
            .await
        {
            Ok(r) => {
                assert!(
                    to_json(&r)["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .contains("again")
                );
                break;
            }
            Err(e) if Instant::now() < deadline => {
                eprintln!("not yet: {e}");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(e) => panic!("the upstream never came back: {e}"),
        }
    }
    client.cancel().await.unwrap();
}

/// Raw stdio access to `serve`, for messages no SDK would send.
struct Raw {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Raw {
    fn start(args: &[&str]) -> Raw {
        let mut child = serve_cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Closes stdin and waits for `serve` to exit: it then shuts its upstream down (killing
    /// `serve` instead would orphan an upstream that ignores a closed stdin).
    async fn close(self) -> std::process::ExitStatus {
        let Raw {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        tokio::time::timeout(Duration::from_secs(15), child.wait())
            .await
            .expect("serve must exit when stdin closes")
            .unwrap()
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.stdout.next_line())
            .await
            .expect("serve did not answer in time")
            .unwrap()
            .expect("serve closed stdout");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.200}"))
    }
}

fn init_line(id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})
    .to_string()
}

#[tokio::test]
async fn junk_and_huge_messages_get_clear_errors_and_stdin_eof_exits() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let mut raw = Raw::start(&[
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    raw.send("this is not json").await;
    assert_eq!(raw.recv().await["error"]["code"], -32700);
    raw.send(&init_line(1)).await;
    assert_eq!(
        raw.recv().await["result"]["serverInfo"]["name"],
        "fixture-ok"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    raw.send(r#"{"jsonrpc":"2.0","id":2}"#).await;
    assert_eq!(raw.recv().await["error"]["code"], -32600);

    // A 10 MB argument goes through and comes back.
    let big = "x".repeat(10 * 1024 * 1024);
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":big}}});
    raw.send(&call.to_string()).await;
    let r = raw.recv().await;
    assert_eq!(r["id"], 3);
    assert_eq!(
        r["result"]["structuredContent"]["arguments"]["text"]
            .as_str()
            .map(str::len),
        Some(big.len())
    );

    // Over the limit: skipped with an error, and the session goes on.
    let huge = format!("{{\"pad\":\"{}\"}}", "y".repeat(33 * 1024 * 1024));
    raw.send(&huge).await;
    let e = raw.recv().await;
    assert_eq!(e["error"]["code"], -32600);
    assert!(
        e["error"]["message"].as_str().unwrap().contains("limit"),
        "{e}"
    );
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#)
        .await;
    assert_eq!(raw.recv().await["id"], 4);

    // Closing stdin ends the process (and its upstream).
    let status = raw.close().await;
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn upstream_that_never_answers_gets_a_clear_error() {
    for mode in ["hang", "garbage"] {
        upstream_without_answers(mode).await;
    }
}

/// `hang` never writes; `garbage` answers every line with JSON that is not JSON-RPC.
async fn upstream_without_answers(mode: &str) {
    let out = tempfile::tempdir().unwrap();
    let cfg = out.path().join("mcp-gen-ui.toml");
    std::fs::write(
        &cfg,
        format!(
            "[upstream]\ncommand = {}\nargs = [\"--mode\", \"{mode}\"]\ntimeout_ms = 1500\n",
            toml::Value::String(example("fixture-server").display().to_string())
        ),
    )
    .unwrap();
    let mut raw = Raw::start(&["--config", cfg.to_str().unwrap()]);
    let started = Instant::now();
    raw.send(&init_line(1)).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], 1);
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(msg.contains("did not answer initialize"), "{msg}");
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(raw.close().await.success());
}

#[tokio::test]
async fn files_that_do_not_match_the_lock_stop_start_up_unless_allowed() {
    let ui = WeatherUi::new().await;
    std::fs::write(ui.out_dir().join("get_forecast/chart.html"), "hand edit").unwrap();
    let out = tokio::process::Command::new(BIN)
        .args(["serve", "--config", &ui.config()])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("chart.html") && err.contains("--allow-stale"),
        "{err}"
    );

    let client = ui_client()
        .serve(
            TokioChildProcess::new(serve_cmd(&["--config", &ui.config(), "--allow-stale"]))
                .unwrap(),
        )
        .await
        .unwrap();
    let read = to_json(
        &client
            .read_resource(ReadResourceRequestParams::new(
                "ui://weather/get_forecast/chart",
            ))
            .await
            .unwrap(),
    );
    assert_eq!(read["contents"][0]["text"], "hand edit");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn print_config_is_a_claude_desktop_snippet() {
    let ui = WeatherUi::new().await;
    let out = tokio::process::Command::new(BIN)
        .args(["serve", "--print-config", "--config", &ui.config()])
        .output()
        .await
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    let entry = &v["mcpServers"]["weather"];
    assert!(Path::new(entry["command"].as_str().unwrap()).is_absolute());
    assert_eq!(entry["args"][0], "serve");
}

fn ui_init_line(id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18",
        "capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":[MCP_APP]}}},
        "clientInfo":{"name":"raw","version":"1"}}})
    .to_string()
}

#[tokio::test]
async fn watch_reloads_changed_files_and_notifies() {
    let ui = WeatherUi::new().await;
    let mut raw = Raw::start(&["--config", &ui.config(), "--watch"]);
    raw.send(&ui_init_line(1)).await;
    let init = raw.recv().await;
    assert_eq!(
        init["result"]["capabilities"]["resources"]["listChanged"], true,
        "{init}"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    // Let the watcher take its first look before the edit.
    tokio::time::sleep(Duration::from_millis(800)).await;
    std::fs::write(
        ui.out_dir().join("get_current_conditions.html"),
        "<p>edited live</p>",
    )
    .unwrap();
    let note = raw.recv().await;
    assert_eq!(note["method"], "notifications/resources/updated", "{note}");
    assert_eq!(note["params"]["uri"], "ui://weather/get_current_conditions");
    raw.send(
        &json!({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"ui://weather/get_current_conditions"}})
            .to_string(),
    )
    .await;
    let read = raw.recv().await;
    assert_eq!(read["result"]["contents"][0]["text"], "<p>edited live</p>");
    assert!(raw.close().await.success());
}

// ---------------------------------------------------------------------------------------------
// Hardening: every host request is answered, whatever the host or the upstream sends.

impl Raw {
    /// The next stdout line, parsed the way serve parses (any depth, lone surrogates kept).
    async fn recv_raw(&mut self) -> (String, Value) {
        let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
            .await
            .expect("serve did not answer in time")
            .unwrap()
            .expect("serve closed stdout");
        let v = mcp_gen_ui::json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.200}"));
        (line, v)
    }
}

/// `serve` in front of fixture-server in `mode`, initialized.
async fn raw_fixture(mode: &str) -> (Raw, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode {mode}", example("fixture-server").display());
    let mut raw = Raw::start(&[
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    raw.send(&init_line(1)).await;
    assert_eq!(raw.recv().await["id"], 1);
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    (raw, out)
}

fn call_line(id: Value, name: &str, args: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args}})
        .to_string()
}

fn nested_array(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

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
    assert_eq!(
        (e["id"].as_i64(), e["error"]["code"].as_i64()),
        (Some(9), Some(-32700)),
        "{e}"
    );

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
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not usable JSON"),
        "{e}"
    );

    // The session goes on.
    raw.send(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#)
        .await;
    assert_eq!(raw.recv().await["id"], 11);
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
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already in use"),
        "{e}"
    );
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
    assert_eq!(
        (e["id"].as_i64(), e["error"]["code"].as_i64()),
        (Some(7), Some(-32600)),
        "{e}"
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2048 levels"),
        "{e}"
    );
    raw.send(&call_line(json!(8), "deep", json!({"depth": 5000})))
        .await;
    let e = raw.recv().await;
    assert_eq!(e["id"], 8, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2048 levels"),
        "{e}"
    );
    // Far past it: no stack overflow anywhere (that would abort serve without a word).
    let absurd = nested_array(1_000_000);
    raw.send(&format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{absurd}}}"#
    ))
    .await;
    assert_eq!(raw.recv().await["id"], 9);
    raw.send(r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#)
        .await;
    assert_eq!(raw.recv().await["id"], 10);
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
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .kill_on_drop(true)
    .spawn()
    .unwrap();
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

/// Sends raw bytes to `addr` and returns the status line and what came back within `wait`.
async fn raw_http(addr: &str, head: &str, body: &[u8], wait: Duration) -> String {
    use tokio::io::AsyncReadExt;
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(head.as_bytes()).await.unwrap();
    let _ = s.write_all(body).await;
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(wait, async {
        let mut chunk = [0u8; 4096];
        loop {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    if buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.ends_with(b"}") {
                        break;
                    }
                }
            }
        }
    })
    .await;
    String::from_utf8_lossy(&buf).into_owned()
}

fn host_port(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string()
}

#[tokio::test]
async fn http_refuses_from_the_headers_before_reading_a_body() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let mut cmd = serve_cmd(&[
        "--http",
        "127.0.0.1:0",
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    cmd.env("MCP_GEN_UI_TOKEN", "tok-123");
    let server = listening(cmd, "http://").await;
    let addr = host_port(&server.url);
    // No token, a huge declared body, none of it sent: refused at once.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 500000000\r\n\r\n"
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 401"), "{got:?}");
    // With the token (lowercase scheme), a huge Content-Length is refused from the headers.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: bearer tok-123\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n"
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
    assert!(got.contains("limit"), "{got:?}");

    // A chunked body (no Content-Length) over the limit: 413 for the request's own id, found
    // after the payload.
    {
        use tokio::io::AsyncReadExt;
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer tok-123\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let chunk = |data: &[u8]| {
            let mut c = format!("{:x}\r\n", data.len()).into_bytes();
            c.extend_from_slice(data);
            c.extend_from_slice(b"\r\n");
            c
        };
        s.write_all(&chunk(
            br#"{"jsonrpc":"2.0","method":"ping","params":{"pad":""#,
        ))
        .await
        .unwrap();
        let pad = vec![b'y'; 1024 * 1024];
        for _ in 0..33 {
            s.write_all(&chunk(&pad)).await.unwrap();
        }
        s.write_all(&chunk(br#""},"id":"c1"}"#)).await.unwrap();
        s.write_all(b"0\r\n\r\n").await.unwrap();
        let mut got = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(30), async {
            let mut buf = [0u8; 4096];
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                if got.ends_with(b"}") {
                    break;
                }
            }
        })
        .await;
        let got = String::from_utf8_lossy(&got);
        assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
        assert!(got.contains(r#""id":"c1""#), "{got:?}");
    }

    // Unauthenticated clients streaming large bodies at once: serve's memory stays flat.
    let pid = server._child.id().unwrap();
    let mut senders = Vec::new();
    for _ in 0..6 {
        let addr = addr.clone();
        senders.push(tokio::spawn(async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 31000000\r\n\r\n"
            );
            s.write_all(head.as_bytes()).await.unwrap();
            let chunk = vec![b' '; 1024 * 1024];
            for _ in 0..30 {
                if s.write_all(&chunk).await.is_err() {
                    break;
                }
            }
        }));
    }
    for s in senders {
        let _ = tokio::time::timeout(Duration::from_secs(30), s).await;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let hwm_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        hwm_kb < 100 * 1024,
        "serve's peak memory grew to {hwm_kb} kB"
    );

    // Authorized with the lowercase scheme: works.
    let r = reqwest::Client::new()
        .post(&server.url)
        .header("authorization", "bearer tok-123")
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init_line(1))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn http_same_id_twice_and_empty_batches_are_answered() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let server = serve_http(&[
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ])
    .await;
    let http = reqwest::Client::new();
    let r = http
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init_line(1))
        .send()
        .await
        .unwrap();
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let post = |body: String| {
        http.post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-session-id", &sid)
            .body(body)
    };
    assert_eq!(
        post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
            .send()
            .await
            .unwrap()
            .status(),
        202
    );
    // A slow call with id 7, then another request with id 7 while it is in flight.
    let slow = post(call_line(json!(7), "slow", json!({"ms": 1500}))).send();
    let second = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        post(json!({"jsonrpc":"2.0","id":7,"method":"ping"}).to_string())
            .send()
            .await
            .unwrap()
    };
    let (first, second) = tokio::join!(slow, second);
    let first: Value = first.unwrap().json().await.unwrap();
    assert_eq!(first["id"], 7, "{first}");
    assert_eq!(
        first["result"]["content"][0]["text"], "slow done",
        "{first}"
    );
    let second: Value = second.json().await.unwrap();
    assert_eq!(second["id"], 7, "{second}");
    assert!(
        second["error"]["message"]
            .as_str()
            .unwrap()
            .contains("request id 7"),
        "{second}"
    );
    // An empty batch: JSON-RPC's one Invalid Request error.
    let r = post("[]".into()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].as_i64()),
        (Value::Null, Some(-32600)),
        "{e}"
    );
    // Unparseable with a recoverable id.
    let r = post(r#"{"jsonrpc":"2.0","id":"q","method":"ping","params":[nope"#.into())
        .send()
        .await
        .unwrap();
    let e: Value = r.json().await.unwrap();
    assert_eq!(
        (e["id"].as_str(), e["error"]["code"].as_i64()),
        (Some("q"), Some(-32700)),
        "{e}"
    );
    // A deep argument and a lone surrogate over HTTP.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{},"s":"\ud800"}}}}}}"#,
        nested_array(1000)
    );
    let text = post(body).send().await.unwrap().text().await.unwrap();
    let v = mcp_gen_ui::json::from_str(&text).unwrap();
    assert_eq!(v["id"], 8, "{text:.300}");
    assert!(text.contains(r#""s":"\ud800""#), "{text:.300}");
}

/// A POST whose only answer comes first is answered as one JSON body when the host takes JSON
/// (cheaper for both sides than a stream); anything before the answer (progress) starts an event
/// stream, and so does a host that takes only streams.
#[tokio::test]
async fn http_answers_alone_are_json_bodies_and_progress_makes_a_stream() {
    const BOTH: &str = "application/json, text/event-stream";
    let content_type = |r: &reqwest::Response| {
        r.headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let http = reqwest::Client::new();
    // Opens a session through a serve in front of `upstream`; a POST builder for it.
    let open = async |upstream: &str, out: &Path| {
        let server = serve_http(&["--server", upstream, "--out-dir", out.to_str().unwrap()]).await;
        let r = http
            .post(&server.url)
            .header("content-type", "application/json")
            .header("accept", BOTH)
            .body(init_line(1))
            .send()
            .await
            .unwrap();
        assert_eq!(content_type(&r), "application/json");
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let post = {
            let (http, url) = (http.clone(), server.url.clone());
            move |accept: &'static str, body: String| {
                http.post(&url)
                    .header("content-type", "application/json")
                    .header("accept", accept)
                    .header("mcp-session-id", &sid)
                    .header("mcp-protocol-version", "2025-06-18")
                    .body(body)
            }
        };
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let r = post(BOTH, note.into()).send().await.unwrap();
        assert_eq!(r.status(), 202);
        (server, post)
    };
    let events = |text: &str| -> Vec<Value> {
        text.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    };

    // An upstream that sends nothing unasked (the fixture).
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let (_server, post) = open(&fixture, out.path()).await;
    let r = post(BOTH, call_line(json!(2), "echo", json!({"text": "hi"})))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (r.status().as_u16(), content_type(&r)),
        (200, "application/json".into())
    );
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["id"], 2, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["arguments"]["text"], "hi",
        "{v}"
    );
    // A host that takes only streams gets the same answer as an event.
    let r = post(
        "text/event-stream",
        call_line(json!(3), "echo", json!({"text": "sse"})),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(content_type(&r), "text/event-stream");
    let got = events(&r.text().await.unwrap());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], 3, "{got:?}");
    assert_eq!(
        got[0]["result"]["structuredContent"]["arguments"]["text"], "sse",
        "{got:?}"
    );

    // A batch is answered by an array, even of one answer, whatever the host takes.
    let batch = format!(
        r#"[{},{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":99}}}}]"#,
        call_line(json!(5), "echo", json!({"text": "b"}))
    );
    for accept in [BOTH, "application/json"] {
        let r = post(accept, batch.clone()).send().await.unwrap();
        assert_eq!(content_type(&r), "application/json", "{accept}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(1), "{accept}: {v}");
        assert_eq!(v[0]["id"], 5, "{accept}: {v}");
    }

    // Progress before the answer (server-everything): a stream with the progress, then the
    // answer.
    let out = tempfile::tempdir().unwrap();
    let (_server, post) = open(everything().to_str().unwrap(), out.path()).await;
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "trigger-long-running-operation",
        "arguments": {"duration": 0.2, "steps": 2},
        "_meta": {"progressToken": "p4"}}});
    let r = post(BOTH, body.to_string()).send().await.unwrap();
    assert_eq!(content_type(&r), "text/event-stream");
    let text = r.text().await.unwrap();
    let got = events(&text);
    let progress: Vec<&Value> = got
        .iter()
        .filter(|e| e["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 2, "{text}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p4"),
        "{text}"
    );
    assert_eq!(
        got.last().map(|e| e["id"].clone()),
        Some(json!(4)),
        "{text}"
    );
}

/// generate and serve agree on the tool_hash of tools they can only read with `crate::json`
/// (a schema nested 1,000 levels, a lone surrogate): their UIs are served, not "stale".
#[tokio::test]
async fn deep_and_surrogate_tools_get_pages_and_are_served_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let ui = dir.path().join("ui");
    let fixture = format!("{} --mode deep-tools", example("fixture-server").display());
    let gen_out = tokio::process::Command::new(BIN)
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

/// `[serve] embed_ui`, `[serve] apps_sdk` and `description_for_ui`, through the real binary: each
/// client gets what its kind of host needs, decided by the capabilities it advertised.
#[tokio::test]
async fn host_options_are_applied_per_client() {
    let ui = WeatherUi::new().await;
    let text = std::fs::read_to_string(ui.config()).unwrap();
    let text = text
        .replace(
            "[serve]\nprefers_border = true\n",
            "[serve]\nprefers_border = true\nembed_ui = true\napps_sdk = true\n",
        )
        .replace(
            "[tools.get_forecast]\n",
            "[tools.get_forecast]\ndescription_for_ui = \"Shows an interactive forecast table\"\n",
        );
    let config = ui.dir.path().join("hosts.toml");
    std::fs::write(&config, text).unwrap();
    let config = config.display().to_string();
    let direct = plain_client()
        .serve(
            TokioChildProcess::new(tokio::process::Command::new(example("weather-server")))
                .unwrap(),
        )
        .await
        .unwrap();
    let upstream_tools: Vec<Value> = direct
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    let upstream_description = |name: &str| {
        upstream_tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["description"].clone())
            .unwrap()
    };

    // With the extension: the UI description, MCP Apps metadata only, results untouched.
    let with_ui = ui_client()
        .serve(TokioChildProcess::new(serve_cmd(&["--config", &config])).unwrap())
        .await
        .unwrap();
    let tools: Vec<Value> = with_ui
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    let fc = tools.iter().find(|t| t["name"] == "get_forecast").unwrap();
    assert_eq!(fc["description"], "Shows an interactive forecast table");
    assert!(fc["_meta"].get("openai/outputTemplate").is_none());
    let cc = tools
        .iter()
        .find(|t| t["name"] == "get_current_conditions")
        .unwrap();
    assert_eq!(
        cc["description"],
        upstream_description("get_current_conditions")
    );
    assert_eq!(
        to_json(&with_ui.call_tool(forecast_call()).await.unwrap()),
        to_json(&direct.call_tool(forecast_call()).await.unwrap())
    );

    // Without it: the upstream's description, the Apps SDK's keys, the page in results.
    let plain = plain_client()
        .serve(TokioChildProcess::new(serve_cmd(&["--config", &config])).unwrap())
        .await
        .unwrap();
    let tools: Vec<Value> = plain
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    let fc = tools.iter().find(|t| t["name"] == "get_forecast").unwrap();
    assert_eq!(fc["description"], upstream_description("get_forecast"));
    assert_eq!(
        fc["_meta"]["openai/outputTemplate"],
        "ui://weather/get_forecast/table"
    );
    assert_eq!(fc["_meta"]["openai/widgetAccessible"], true);
    assert!(fc["_meta"].get("ui").is_none());
    let resources: Vec<Value> = plain
        .list_all_resources()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect();
    assert_eq!(resources.len(), 3);
    assert!(
        resources
            .iter()
            .all(|r| r["mimeType"] == "text/html+skybridge")
    );
    let read = to_json(
        &plain
            .read_resource(ReadResourceRequestParams::new(
                "ui://weather/get_current_conditions",
            ))
            .await
            .unwrap(),
    );
    assert_eq!(read["contents"][0]["mimeType"], "text/html+skybridge");
    assert_eq!(
        read["contents"][0]["_meta"]["openai/widgetCSP"]["connect_domains"],
        json!(["https://api.example.com"])
    );
    let wrapped = to_json(&plain.call_tool(forecast_call()).await.unwrap());
    let direct_result = to_json(&direct.call_tool(forecast_call()).await.unwrap());
    let content = wrapped["content"].as_array().unwrap();
    let (embedded, rest): (Vec<&Value>, Vec<&Value>) =
        content.iter().partition(|c| c["type"] == "resource");
    assert_eq!(embedded.len(), 1, "{wrapped}");
    assert_eq!(
        embedded[0]["resource"]["uri"],
        "ui://weather/get_forecast/table"
    );
    assert_eq!(embedded[0]["resource"]["mimeType"], "text/html");
    let html = embedded[0]["resource"]["text"].as_str().unwrap();
    assert!(html.contains("id=\"mcp-gen-ui-embedded\""), "{html}");
    assert!(html.contains("\"city\":\"Paris\""), "{html}");
    assert_eq!(json!(rest), direct_result["content"]);
    assert_eq!(
        wrapped["structuredContent"],
        direct_result["structuredContent"]
    );
    for c in [direct, with_ui, plain] {
        c.cancel().await.unwrap();
    }
}

/// An HTTP upstream whose answers serve cannot use (over the size limit, not JSON): the host's
/// request gets an error for its own id instead of waiting forever.
#[tokio::test]
async fn unusable_answers_from_an_http_upstream_fail_their_request() {
    async fn upstream(body: String) -> axum::response::Response {
        use axum::response::IntoResponse;
        let msg: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let id = msg["id"].clone();
        let json = |text: String| {
            (
                [
                    ("content-type", "application/json"),
                    ("mcp-session-id", "s1"),
                ],
                text,
            )
                .into_response()
        };
        match msg["method"].as_str() {
            Some("initialize") => json(
                json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-06-18",
                    "capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}})
                .to_string(),
            ),
            Some("tools/call") if msg["params"]["name"] == "huge" => json(format!(
                r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{}"}}]}},"id":{id}}}"#,
                "h".repeat(40 * 1024 * 1024)
            )),
            Some("tools/call") => json("<html>oops</html>".into()),
            _ => axum::http::StatusCode::ACCEPTED.into_response(),
        }
    }
    let router = axum::Router::new().route("/mcp", axum::routing::post(upstream));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let out = tempfile::tempdir().unwrap();
    let mut raw = Raw::start(&["--url", &url, "--out-dir", out.path().to_str().unwrap()]);
    raw.send(&init_line(1)).await;
    assert_eq!(raw.recv().await["id"], 1);
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    raw.send(&call_line(json!("u1"), "huge", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "u1", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("33554432-byte message limit"),
        "{e}"
    );
    raw.send(&call_line(json!("u2"), "junk", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "u2", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not usable JSON"),
        "{e}"
    );
    assert!(raw.close().await.success());
    task.abort();
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

/// A host on the official Python SDK (`mcp` 2.x, the venv tests/run-all.sh installs with
/// mcp-server-time) through `serve --http`, in both of its modes, against two upstreams: the
/// rmcp weather server (which speaks 2026-07-28, so `auto` goes stateless) and server-everything
/// (2025 only). It sees the upstream's tools, the UI metadata and `ui://` pages it advertised the
/// extension for, the tool's own answer (now a JSON body), and every progress step of a long
/// call (an event stream) before its answer.
#[tokio::test]
async fn a_python_sdk_host_works_through_serve_http_in_both_eras() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = python::python_with("mcp.client.extension") else {
        return;
    };
    let script = root.join("tests/fixtures/python/http_client.py");
    let weather = example("weather-server").display().to_string();
    let everything = everything().display().to_string();
    /// An upstream, the tool called, and a long call whose progress is watched.
    struct Case<'a> {
        upstream: &'a str,
        tool: &'a str,
        args: Value,
        progress: Option<(&'a str, Value)>,
        auto_era: &'a str,
    }
    let cases = [
        Case {
            upstream: &weather,
            tool: "get_current_conditions",
            args: json!({"city": "Paris"}),
            progress: None,
            auto_era: "2026-07-28",
        },
        Case {
            upstream: &everything,
            tool: "echo",
            args: json!({"message": "hi from python"}),
            progress: Some((
                "trigger-long-running-operation",
                json!({"duration": 1, "steps": 3}),
            )),
            auto_era: "2025-11-25",
        },
    ];
    for Case {
        upstream,
        tool,
        args,
        progress,
        auto_era,
    } in cases
    {
        let dir = tempfile::tempdir().unwrap();
        let ui = dir.path().join("ui");
        let generated = tokio::process::Command::new(BIN)
            .args(["generate", "--quiet", "--server", upstream])
            .args(["--out-dir", ui.to_str().unwrap()])
            .output()
            .await
            .unwrap();
        assert!(
            generated.status.success(),
            "{}",
            String::from_utf8_lossy(&generated.stderr)
        );
        let server = serve_http(&["--server", upstream, "--out-dir", ui.to_str().unwrap()]).await;
        for (mode, era) in [("legacy", "2025-11-25"), ("auto", auto_era)] {
            let mut cmd = tokio::process::Command::new(&python);
            cmd.arg(&script)
                .args([&server.url, mode, tool, &args.to_string(), "--ui"]);
            if let Some((long, long_args)) = &progress {
                cmd.args(["--progress", long, &long_args.to_string()]);
            }
            let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
                .await
                .unwrap()
                .unwrap();
            let what = format!(
                "{mode} against {upstream}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "{what}");
            let seen: Value = serde_json::from_slice(&out.stdout).expect(&what);
            assert_eq!(seen["protocol"], era, "{what}");
            assert!(
                seen["tools"].as_array().unwrap().contains(&json!(tool)),
                "{what}"
            );
            let uri = seen["ui_meta"]["resourceUri"].as_str().expect(&what);
            assert!(uri.starts_with("ui://"), "{what}");
            assert!(
                seen["ui_resources"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(uri)),
                "{what}"
            );
            assert_eq!(seen["ui_read"]["mime"], MCP_APP, "{what}");
            let page = std::fs::read(ui.join(format!("{tool}.html"))).unwrap();
            assert_eq!(seen["ui_read"]["bytes"], page.len(), "{what}");
            assert_eq!(seen["call"]["is_error"], false, "{what}");
            let text = seen["call"]["text"][0].as_str().expect(&what);
            if tool == "echo" {
                assert_eq!(text, "Echo: hi from python", "{what}");
            } else {
                assert!(text.contains("\"city\":\"Paris\""), "{what}");
            }
            if progress.is_some() {
                assert_eq!(seen["progress"], json!([1.0, 2.0, 3.0]), "{what}");
                assert_eq!(seen["progress_call"]["is_error"], false, "{what}");
                assert!(
                    seen["progress_call"]["text"][0]
                        .as_str()
                        .is_some_and(|t| t.contains("Steps: 3")),
                    "{what}"
                );
            }
        }
    }
}
