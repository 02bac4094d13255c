//! Integration tests of discovery and the upstream transports against real example servers,
//! broken fixture servers, and small HTTP servers written here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_gen_ui::discover::{DiscoverError, discover};
use mcp_gen_ui::mcp::{StdioSpec, UpstreamSpec};

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
