//! Upstreams a newcomer meets: a broken stateless HTTP path and `--protocol`, and a Python SDK
//! server that answers with plain dicts.

use assert_cmd::prelude::*;
use serde_json::{Value, json};
use std::path::Path;

mod support;
use support::cli::*;
use support::{bin, fixture, python, toml_str};

/// A server whose stateless (2026-07-28) path fails with -32603 while its handshake works (a
/// Python SDK 2.3 low-level server returning plain dicts): the error says so and names the
/// setting; `--protocol handshake` / `[upstream] protocol` make it work.
#[test]
fn a_broken_stateless_path_is_named_and_protocol_pins_the_era() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let broken = fixture("stateless-broken");
    let text = bin()
        .current_dir(d)
        .args(["generate", "--server", &broken])
        .output_exits(2);
    for part in [
        "`tools/list` with JSON-RPC error -32603",
        "Handler returned an invalid result",
        "2025 handshake",
        "--protocol handshake",
        "protocol = \"handshake\"",
        "[upstream]",
    ] {
        assert!(text.contains(part), "no `{part}` in {text}");
    }
    assert!(!d.join("ui").exists(), "nothing is written on exit 2");

    bin()
        .current_dir(d)
        .args(["generate", "--server", &broken, "--protocol", "handshake"])
        .assert()
        .success();
    assert!(d.join("ui/echo.html").is_file());
    // The first run left a project that keeps the era it needed.
    let written = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap();
    assert!(written.contains("protocol = \"handshake\""), "{written}");
    std::fs::remove_file(d.join("mcp-gen-ui.toml")).unwrap();
    // preview names the setting too.
    let text = bin()
        .current_dir(d)
        .args(["preview", "--no-open", "--server", &broken])
        .output_exits(2);
    assert!(text.contains("--protocol handshake"), "{text}");

    // The same from the config file; --protocol on the command line wins over it.
    fixture_server_config(
        d,
        "args = [\"--mode\", \"stateless-broken\"]\nprotocol = \"handshake\"\n",
    );
    bin().current_dir(d).arg("generate").assert().success();
    bin()
        .current_dir(d)
        .args(["check", "--online"])
        .assert()
        .success();
    let out = bin()
        .current_dir(d)
        .args(["diff", "--protocol", "auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", all_output(&out));
    std::fs::write(
        d.join("mcp-gen-ui.toml"),
        "[upstream]\ncommand = \"x\"\nprotocol = \"2025\"\n",
    )
    .unwrap();
    let out = bin().current_dir(d).arg("list").output().unwrap();
    let text = all_output(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("protocol"), "{text}");
    std::fs::remove_file(d.join("mcp-gen-ui.toml")).unwrap();

    // A server slow to start answers `server/discover` after the probe gave up, then refuses
    // `initialize` on that connection (-32022, like the Python SDK): still the stateless path,
    // and still the error that names the setting.
    fixture_server_config(
        d,
        "args = [\"--mode\", \"stateless-broken\", \"--discover-delay\", \"4000\"]\ntimeout_ms = 6000\n",
    );
    let text = bin()
        .current_dir(d)
        .args(["list", "--online"])
        .output_exits(2);
    assert!(
        text.contains("-32603")
            && text.contains("--protocol handshake")
            && !text.contains("-32022"),
        "{text}"
    );
    std::fs::remove_file(d.join("mcp-gen-ui.toml")).unwrap();

    // `stateless` refuses a server that does not speak 2026-07-28.
    let text = bin()
        .current_dir(d)
        .args([
            "list",
            "--server",
            &fixture("ok"),
            "--protocol",
            "stateless",
        ])
        .output_exits(2);
    assert!(
        text.contains("does not speak the stateless revision 2026-07-28"),
        "{text}"
    );

    // serve never translates eras, whatever --protocol says: a host's stateless request reaches
    // the upstream as a stateless request (and its failure comes back unchanged).
    let mut serve = bin()
        .current_dir(d)
        .env("MCP_GEN_UI_LOG", "warn")
        .args(["serve", "--protocol", "handshake", "--server", &broken])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    {
        use std::io::Write;
        let stdin = serve.stdin.as_mut().unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}})
        )
        .unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}})
        )
        .unwrap();
    }
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(serve.stdout.take().unwrap()));
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let line = lines.next().unwrap().unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v.get("id").is_some() {
            answers.push(v);
        }
    }
    drop(serve.stdin.take());
    let _ = serve.kill();
    let _ = serve.wait();
    answers.sort_by_key(|v| v["id"].as_i64());
    assert!(
        answers[0]["result"]["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28")),
        "{answers:?}"
    );
    assert_eq!(answers[1]["error"]["code"], -32603, "{answers:?}");
}

/// The same against a real server outside this repository: the official Python SDK's low-level
/// API with plain dicts (tests/fixtures/python/dict_server.py, run by the venv tests/run-all.sh
/// installs). With SDK 2.3 its stateless path fails: the error must name the setting; should a
/// later SDK fix that, `auto` simply works. The handshake always does.
#[test]
fn a_python_sdk_server_with_plain_dicts_works_with_protocol_handshake() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = python::python_with("mcp.server.lowlevel") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Python starts slowly on a busy machine (twice here: the stateless try, then the handshake).
    std::fs::write(
        dir.path().join("mcp-gen-ui.toml"),
        format!(
            "[upstream]\ncommand = {}\nargs = [{}]\ntimeout_ms = 120000\n",
            toml_str(&python.display().to_string()),
            toml_str(
                &root
                    .join("tests/fixtures/python/dict_server.py")
                    .display()
                    .to_string()
            )
        ),
    )
    .unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["list", "--online"])
        .output()
        .unwrap();
    let text = all_output(&out);
    match out.status.code() {
        Some(0) => assert!(text.contains("lookup"), "{text}"),
        _ => {
            assert_eq!(out.status.code(), Some(2), "{text}");
            assert!(
                text.contains("-32603")
                    && text.contains("--protocol handshake")
                    && text.contains("protocol = \"handshake\""),
                "{text}"
            );
        }
    }
    bin()
        .current_dir(dir.path())
        .args(["generate", "--protocol", "handshake"])
        .assert()
        .success();
    assert!(dir.path().join("ui/lookup.html").is_file());
}
