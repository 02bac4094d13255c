//! Integration tests of discovery and the upstream transports against real example servers,
//! broken fixture servers, and small HTTP servers written here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_gen_ui::discover::{DiscoverError, discover};
use mcp_gen_ui::mcp::{HttpSpec, HttpTransport, StdioSpec, UpstreamSpec};
use tokio::io::AsyncBufReadExt;

/// The example binaries, built once per test run (cargo does not build examples for `--test`).
fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "--example", "fixture-server"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .map_err(|e| e.to_string())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("cargo build --examples failed: {status}"))
        }
    });
    if let Err(e) = built {
        panic!("{e}");
    }
    // The test binary lives in <target>/debug/deps/; examples in <target>/debug/examples/.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    profile_dir.join("examples").join(name)
}

fn stdio(name: &str, args: &[&str]) -> UpstreamSpec {
    UpstreamSpec::Stdio(StdioSpec {
        command: example(name).display().to_string(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: BTreeMap::new(),
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
    assert_eq!(d.initialize_result["protocolVersion"], "2025-06-18");
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
    assert_eq!(d.initialize_result["protocolVersion"], "2025-06-18");
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
