//! mcp-gen-ui's secrets and an upstream's environment (book: reference/security.md): children
//! never inherit our secrets, `${VAR}` headers, withheld variables named, `--env NAME=VALUE`.

use assert_cmd::prelude::*;
use serde_json::{Value, json};

mod support;
use support::cli::*;
use support::{bin, fixture};

#[test]
fn upstream_children_never_inherit_our_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fixture_server_config(
        d,
        "args = [\"--mode\", \"ok\", \"--report-env\", \"env.json\"]\n\
         cwd = \".\"\nenv = { PASSED_KEY = \"${MY_UPSTREAM_SECRET}\", PLAIN = \"plain\" }\n\
         env_inherit = [\"EXTRA_*\"]\n",
    );
    let out = run_with_secrets(d, &["generate"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_no_secret("output", &format!("{stdout}{stderr}"));
    let report: Value = serde_json::from_str(&wait_for_file(&d.join("env.json"), 10)).unwrap();
    let env = report["env"].as_object().unwrap();
    // The config's `env` is passed, `${VAR}` expanded from ours; nothing else of ours leaks.
    assert_eq!(env["PASSED_KEY"], UPSTREAM_SECRET);
    assert_eq!(env["PLAIN"], "plain");
    assert_eq!(env["EXTRA_SETTING"], "extra-value", "env_inherit pattern");
    for gone in [
        "MCP_GEN_UI_TOKEN",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "MY_UPSTREAM_SECRET",
        "UNLISTED_VAR",
    ] {
        assert!(!env.contains_key(gone), "{gone} was inherited: {env:?}");
    }
    assert!(env.contains_key("PATH"), "PATH is inherited: {env:?}");
    let leaked: Vec<_> = env
        .iter()
        .filter(|(k, v)| *k != "PASSED_KEY" && v.as_str().is_some_and(|v| v.contains("SECRET")))
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
    // No secret in any file of the output directory.
    for e in walkdir::WalkDir::new(d.join("ui")).into_iter().flatten() {
        if e.file_type().is_file() {
            assert_no_secret(
                &e.path().display().to_string(),
                &String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()),
            );
        }
    }

    // `--server` (no config) and `serve` start their upstream the same way.
    let report_path = d.join("env-server.json");
    let server = format!(
        "{} --report-env {}",
        fixture("ok"),
        shell_words::quote(&report_path.display().to_string())
    );
    bin_with_secrets()
        .current_dir(d)
        .args(["--out-dir", "ui2", "generate", "--server", &server])
        .assert()
        .success();
    let report: Value = serde_json::from_str(&wait_for_file(&report_path, 10)).unwrap();
    let text = report["env"].to_string();
    assert_no_secret("the --server child's environment", &text);
    assert!(!text.contains("unlisted-value"), "{text}");

    let serve_report = d.join("env-serve.json");
    let mut serve = bin_with_secrets()
        .current_dir(d)
        .env("MCP_GEN_UI_LOG", "warn")
        .args(["serve", "--out-dir", "ui2", "--server"])
        .arg(format!(
            "{} --report-env {}",
            fixture("ok"),
            shell_words::quote(&serve_report.display().to_string())
        ))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let stdin = serve.stdin.as_mut().unwrap();
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}}})
        )
        .unwrap();
    }
    let text = wait_for_file(&serve_report, 20);
    drop(serve.stdin.take());
    let _ = serve.kill();
    let _ = serve.wait();
    assert_no_secret("serve's child's environment", &text);
}

#[test]
fn env_references_in_headers_are_never_refused_and_secrets_are_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |text: &str| std::fs::write(d.join("mcp-gen-ui.toml"), text).unwrap();

    // A `${VAR}` reference is the recommended form, whatever the header is called.
    for header in ["X-Api-Key", "api_key", "Authorization", "Private-Token"] {
        write(&format!(
            "[upstream]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = {{ {header:?} = \"${{MY_UPSTREAM_SECRET}}\" }}\n"
        ));
        let out = run_with_secrets(d, &["list"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("looks like an API key"),
            "{header}: {stderr}"
        );
    }

    // A TOML syntax error on a line holding a literal key: the line is quoted, the key is not.
    write(
        "[upstream]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Authorization = \"Bearer sk-literal-SECRET-77\" \n",
    );
    let out = bin().current_dir(d).arg("list").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 3"), "{stderr}");
    assert!(!stderr.contains("sk-literal-SECRET-77"), "{stderr}");
    write("[llm]\napi_key = \"sk-literal-SECRET-78\"\nbroken = [\n");
    let out = bin().current_dir(d).arg("list").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("sk-literal-SECRET-78"), "{stderr}");

    // An upstream whose error page echoes the request headers, Authorization included.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let echo = std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { break };
            let mut buf = vec![0u8; 65536];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let headers = req.split("\r\n\r\n").next().unwrap_or("").to_string();
            let body = format!("unauthorized; you sent:\n{headers}");
            let _ = write!(
                s,
                "HTTP/1.1 401 Unauthorized\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    write(&format!(
        "[upstream]\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders = {{ Authorization = \"Bearer ${{MY_UPSTREAM_SECRET}}\" }}\n"
    ));
    let text = bin_with_secrets()
        .current_dir(d)
        .arg("generate")
        .output_exits(2);
    assert!(text.contains("401"), "{text}");
    assert_no_secret("the error of an upstream echoing headers", &text);
    drop(echo);
}

/// A server that needs a variable of ours fails with its own stderr; the error names the
/// withheld variable it mentions (never its value) and how to pass it, and `--env` passes it.
#[test]
fn a_withheld_variable_is_named_and_env_passes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let value = "postgres://me:hunter2-SECRET@db.internal/app";
    let server = format!("{} --require-env DATABASE_URL", fixture("ok"));

    let text = bin()
        .current_dir(d)
        .env("DATABASE_URL", value)
        .args(["generate", "--server", &server])
        .output_exits(2);
    assert!(
        text.contains("DATABASE_URL is not set"),
        "its own stderr: {text}"
    );
    assert!(
        text.contains("`DATABASE_URL` is set in mcp-gen-ui's environment but withheld"),
        "{text}"
    );
    for how in [
        "--env DATABASE_URL",
        "env_inherit = [\"DATABASE_URL\"]",
        "[upstream] env",
    ] {
        assert!(text.contains(how), "no `{how}` in {text}");
    }
    assert!(!text.contains("hunter2"), "a value was printed: {text}");

    // A program outside this repository: Python dies with `KeyError: 'DATABASE_URL'`.
    let python = r#"python3 -c 'import os; print(os.environ["DATABASE_URL"])'"#;
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let text = bin()
            .current_dir(d)
            .env("DATABASE_URL", value)
            .args(["generate", "--server", python])
            .output_exits(2);
        assert!(text.contains("KeyError"), "{text}");
        assert!(
            text.contains("`DATABASE_URL` is set") && text.contains("--env DATABASE_URL"),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
    }

    // Not set here either: the error says what the upstream got and how to pass more.
    let text = bin()
        .current_dir(d)
        .env_remove("DATABASE_URL")
        .args(["generate", "--server", &server])
        .output_exits(2);
    assert!(text.contains("only the allow-listed environment"), "{text}");
    assert!(
        text.contains("--env NAME") && text.contains("env_inherit"),
        "{text}"
    );

    // --env NAME passes it (before or after the subcommand), like env_inherit.
    let report = d.join("env.json");
    let server = format!(
        "{server} --report-env {}",
        shell_words::quote(&report.display().to_string())
    );
    bin()
        .current_dir(d)
        .env("DATABASE_URL", value)
        .args(["--env", "DATABASE_URL", "generate", "--server", &server])
        .assert()
        .success();
    let env: Value = serde_json::from_str(&wait_for_file(&report, 10)).unwrap();
    assert_eq!(env["env"]["DATABASE_URL"], value);
    std::fs::remove_file(&report).unwrap();
    bin()
        .current_dir(d)
        .env("DATABASE_URL", value)
        .env("APP_MODE", "staging")
        .args([
            "list",
            "--server",
            &server,
            "--env",
            "DATABASE_URL",
            "--env",
            "APP_*",
        ])
        .assert()
        .success();
    let env: Value = serde_json::from_str(&wait_for_file(&report, 10)).unwrap();
    assert_eq!(env["env"]["DATABASE_URL"], value);
    assert_eq!(env["env"]["APP_MODE"], "staging", "a PREFIX* pattern");

    // preview and serve start the upstream the same way and say the same.
    let text = bin()
        .current_dir(d)
        .env("DATABASE_URL", value)
        .args(["preview", "--no-open", "--server", &server])
        .output_exits(2);
    assert!(text.contains("--env DATABASE_URL"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    let mut serve = bin()
        .current_dir(d)
        .env("DATABASE_URL", value)
        .env("MCP_GEN_UI_LOG", "off")
        .args(["serve", "--server", &server])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        writeln!(
            serve.stdin.as_mut().unwrap(),
            "{}",
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"}}})
        )
        .unwrap();
    }
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(serve.stdout.take().unwrap()));
    let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    drop(serve.stdin.take());
    let _ = serve.kill();
    let _ = serve.wait();
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`DATABASE_URL` is set") && message.contains("--env DATABASE_URL"),
        "{answer}"
    );
    assert!(!message.contains("hunter2"), "{answer}");
}

/// `--env NAME=VALUE` sets a variable whose value never reaches any output; mcp-gen-ui's own
/// secrets are refused on the command line with a pointer to `[upstream] env`.
#[test]
fn env_name_value_is_set_and_redacted_and_our_secrets_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let value = "eu-west-SECRET-region-42";
    let report = d.join("env.json");
    let server = format!(
        "{} --require-env API_REGION --report-env {}",
        fixture("ok"),
        shell_words::quote(&report.display().to_string())
    );
    let out = bin()
        .current_dir(d)
        .env_remove("API_REGION")
        .args(["generate", "--server", &server, "--env"])
        .arg(format!("API_REGION={value}"))
        .output()
        .unwrap();
    let text = all_output(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains(value), "{text}");
    let env: Value = serde_json::from_str(&wait_for_file(&report, 10)).unwrap();
    assert_eq!(env["env"]["API_REGION"], value);

    // An upstream that prints it and dies: the error's stderr lines are redacted.
    let text = bin()
        .current_dir(d)
        .args(["generate", "--server"])
        .arg(format!("{} --echo-env API_REGION", fixture("die-at-start")))
        .arg("--env")
        .arg(format!("API_REGION={value}"))
        .output_exits(2);
    assert!(text.contains("API_REGION=[redacted]"), "{text}");
    assert!(!text.contains(value), "{text}");

    // serve --print-config: the names, never the values.
    let out = bin()
        .current_dir(d)
        .args([
            "serve",
            "--print-config",
            "--server",
            "node srv.js",
            "--env",
        ])
        .arg(format!("API_REGION={value}"))
        .args(["--env", "DATABASE_URL"])
        .output()
        .unwrap();
    let text = all_output(&out);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains(value), "{text}");
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = snippet["mcpServers"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let envs: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "--env")
        .map(|w| w[1].as_str())
        .collect();
    assert_eq!(envs, ["API_REGION", "DATABASE_URL"], "{text}");

    // Our own secrets, by name or with a value, on any command: refused, pointing at the config.
    for (secret, cmd) in [
        ("OPENAI_API_KEY", "generate"),
        ("ANTHROPIC_API_KEY=sk-ant-literal-SECRET", "diff"),
        ("MCP_GEN_UI_TOKEN", "serve"),
    ] {
        let out = bin()
            .current_dir(d)
            .args([cmd, "--server", &fixture("ok"), "--env", secret])
            .output()
            .unwrap();
        let text = all_output(&out);
        let name = secret.split('=').next().unwrap();
        assert_eq!(out.status.code(), Some(2), "{secret}: {text}");
        assert!(text.contains("one of mcp-gen-ui's own secrets"), "{text}");
        assert!(
            text.contains(&format!("env.{name} = \"${{{name}}}\"")) && text.contains("[upstream]"),
            "{text}"
        );
        assert!(!text.contains("literal-SECRET"), "{text}");
    }
    // A variable the config reads through `${VAR}` is a secret too: only `env` passes it.
    fixture_server_config(d, "env = { KEY = \"${MY_SERVICE_KEY}\" }\n");
    let text = bin()
        .current_dir(d)
        .env("MY_SERVICE_KEY", "service-key-SECRET-31")
        .args(["list", "--online", "--env", "MY_SERVICE_KEY"])
        .output_exits(2);
    assert!(text.contains("`${VAR}` reference"), "{text}");
    assert!(!text.contains("service-key-SECRET-31"), "{text}");
    std::fs::remove_file(d.join("mcp-gen-ui.toml")).unwrap();

    // An HTTP upstream is not started by us.
    let out = bin()
        .current_dir(d)
        .args(["list", "--url", "http://127.0.0.1:9/mcp", "--env", "X"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(all_output(&out).contains("not to one reached by URL"));
}
