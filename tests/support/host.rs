//! The host's side of `serve` for the `serve_*` test files: rmcp clients with and without the
//! UI extension, a `ui/` for weather-server, raw stdio and raw HTTP access for messages no SDK
//! would send, and the processes a test looks for.

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
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::examples::example;
use super::serve::{SpawnWith, serve_cmd};

pub const MCP_APP: &str = "text/html;profile=mcp-app";

/// `@modelcontextprotocol/server-everything` from `tests/node_modules` (`npm ci` in tests/).
pub fn everything() -> PathBuf {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node_modules/.bin/mcp-server-everything");
    assert!(
        p.exists(),
        "{} is missing: run `npm ci` in tests/",
        p.display()
    );
    p
}

pub fn ui_client() -> ClientConfig {
    let mut caps = ClientCapabilities::default();
    let mut ext = BTreeMap::new();
    let mut ui = serde_json::Map::new();
    ui.insert("mimeTypes".into(), json!([MCP_APP]));
    ext.insert("io.modelcontextprotocol/ui".to_string(), ui);
    caps.extensions = Some(ext);
    ClientConfig::new(caps, Implementation::new("serve-test", "1.0"))
}

pub fn plain_client() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("serve-test", "1.0"),
    )
}

pub fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

/// A connected rmcp client.
pub type Connected = rmcp::service::RunningService<rmcp::RoleClient, ClientConfig>;

/// Every tool `client` lists, as JSON.
pub async fn tools_of(client: &Connected) -> Vec<Value> {
    client
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect()
}

/// Every resource `client` lists, as JSON.
pub async fn resources_of(client: &Connected) -> Vec<Value> {
    client
        .list_all_resources()
        .await
        .unwrap()
        .iter()
        .map(to_json)
        .collect()
}

/// What `client` reads of the resource `uri`, as JSON.
pub async fn read_of(client: &Connected, uri: &str) -> Value {
    to_json(
        &client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap(),
    )
}

/// `serve --out-dir (a new temp folder) ARGS` in front of fixture-server in `mode`, over raw
/// stdio; the folder goes when the test drops it.
pub fn raw_serve(mode: &str, args: &[&str]) -> (Raw, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode {mode}", example("fixture-server").display());
    let mut all = vec![
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    (Raw::start(&all), out)
}

/// `config` connected over stdio to the process `cmd` starts.
pub async fn over_stdio(config: ClientConfig, cmd: tokio::process::Command) -> Connected {
    config
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

/// `config` connected over streamable HTTP to `url`.
pub async fn over_http(config: ClientConfig, url: impl Into<std::sync::Arc<str>>) -> Connected {
    config
        .serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .unwrap()
}

/// A `ui/` for weather-server: `get_forecast` with two widgets (table is the default) and
/// `get_current_conditions` with one, and a config naming the upstream.
pub struct WeatherUi {
    pub dir: tempfile::TempDir,
}

impl WeatherUi {
    pub async fn new() -> WeatherUi {
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

    pub fn config(&self) -> String {
        self.dir
            .path()
            .join("mcp-gen-ui.toml")
            .display()
            .to_string()
    }

    pub fn out_dir(&self) -> PathBuf {
        self.dir.path().join("ui")
    }

    /// The URI hosts are given for the page at `path` (relative to `ui/`, without `.html`): its
    /// `ui://` name plus `?v=` and the first 8 hex digits of the sha256 of the file's bytes.
    pub fn uri(&self, path: &str) -> String {
        let bytes = std::fs::read(self.out_dir().join(format!("{path}.html"))).unwrap();
        format!("ui://weather/{path}?v={}", &sha256_hex(&bytes)[..8])
    }
}

pub fn forecast_call() -> CallToolRequestParams {
    let mut args = serde_json::Map::new();
    args.insert("city".into(), json!("Paris"));
    args.insert("days".into(), json!(3));
    CallToolRequestParams::new("get_forecast").with_arguments(args)
}

pub fn meta_of(tools: &[Value], name: &str) -> Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| t.get("_meta").cloned().unwrap_or(Value::Null))
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// What a UI-capable client must see, whatever the transports.
pub async fn check_ui_client(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ClientConfig>,
    ui: &WeatherUi,
) {
    let tools: Vec<Value> = tools_of(client).await;
    let (chart, table) = (ui.uri("get_forecast/chart"), ui.uri("get_forecast/table"));
    let current = ui.uri("get_current_conditions");
    let fc = meta_of(&tools, "get_forecast");
    assert_eq!(fc["ui"]["resourceUri"], table.as_str());
    assert_eq!(fc["ui/resourceUri"], table.as_str());
    assert_eq!(fc["ui"]["resourceUris"], json!([chart, table]));
    let cc = meta_of(&tools, "get_current_conditions");
    assert_eq!(cc["ui"]["resourceUri"], current.as_str());
    assert!(cc["ui"].get("resourceUris").is_none());

    let resources: Vec<Value> = resources_of(client).await;
    let uris: Vec<&str> = resources.iter().filter_map(|r| r["uri"].as_str()).collect();
    for u in [&chart, &table, &current] {
        assert!(uris.contains(&u.as_str()), "{u} missing from {uris:?}");
    }
    assert!(resources.iter().all(|r| r["mimeType"] == MCP_APP));

    let read = read_of(client, &current).await;
    let c = &read["contents"][0];
    assert_eq!(c["uri"], current.as_str());
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

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The pids of the direct children of `pid` (Linux /proc).
pub fn children(pid: u32) -> Vec<u32> {
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

/// Raw stdio access to `serve`, for messages no SDK would send.
pub struct Raw {
    pub child: tokio::process::Child,
    pub stdin: tokio::process::ChildStdin,
    pub stdout: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Raw {
    pub fn start(args: &[&str]) -> Raw {
        let mut child = serve_cmd(args).spawn_with(Stdio::piped(), Stdio::piped(), Stdio::null());
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    pub async fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).await.unwrap();
        self.stdin.write_all(b"\n").await.unwrap();
        self.stdin.flush().await.unwrap();
    }

    /// Closes stdin and waits for `serve` to exit: it then shuts its upstream down (killing
    /// `serve` instead would orphan an upstream that ignores a closed stdin).
    pub async fn close(self) -> std::process::ExitStatus {
        let Raw {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        tokio::time::timeout(Duration::from_secs(15), child.wait())
            .await
            .expect("serve must exit when stdin closes")
            .unwrap()
    }

    /// Sends a `ping` with `id` and checks that its answer comes next.
    pub async fn ping(&mut self, id: u64) {
        self.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#))
            .await;
        assert_eq!(self.recv().await["id"], id);
    }

    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.stdout.next_line())
            .await
            .expect("serve did not answer in time")
            .unwrap()
            .expect("serve closed stdout");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:.200}"))
    }
}

pub fn init_line(id: u64) -> String {
    super::serve::init(id).to_string()
}

/// `hang` never writes; `garbage` answers every line with JSON that is not JSON-RPC.
pub async fn upstream_without_answers(mode: &str) {
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

pub fn ui_init_line(id: u64) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18",
        "capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":[MCP_APP]}}},
        "clientInfo":{"name":"raw","version":"1"}}})
    .to_string()
}

// ---------------------------------------------------------------------------------------------
// Hardening: every host request is answered, whatever the host or the upstream sends.

impl Raw {
    /// The next stdout line, parsed the way serve parses (any depth, lone surrogates kept).
    pub async fn recv_raw(&mut self) -> (String, Value) {
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
pub async fn raw_fixture(mode: &str) -> (Raw, tempfile::TempDir) {
    let (mut raw, out) = raw_serve(mode, &[]);
    raw.send(&init_line(1)).await;
    assert_eq!(raw.recv().await["id"], 1);
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    (raw, out)
}

pub fn call_line(id: Value, name: &str, args: Value) -> String {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args}})
        .to_string()
}

pub fn nested_array(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// Sends raw bytes to `addr` and returns the status line and what came back within `wait`.
pub async fn raw_http(addr: &str, head: &str, body: &[u8], wait: Duration) -> String {
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

pub fn host_port(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string()
}

/// `e` is a JSON-RPC error whose message contains `needle`.
pub fn assert_error_contains(e: &Value, needle: &str) {
    let message = e["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{e}");
}

/// `e` answers request `id` with the JSON-RPC error `code`.
pub fn assert_error_code(e: &Value, id: i64, code: i64) {
    assert_eq!(
        (e["id"].as_i64(), e["error"]["code"].as_i64()),
        (Some(id), Some(code)),
        "{e}"
    );
}
