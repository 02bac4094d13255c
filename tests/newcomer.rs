//! The first hour with a real server, with the real binary and the example servers: the first
//! `generate --server`/`--url` leaves a project the next commands use; secrets given on a command
//! line never reach a file or an output line; an upstream that hangs says why; file names a
//! person can read (book: getting-started.md, reference/names.md, reference/security.md).

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod support;
use support::example;

use support::bin;

fn quoted(p: &Path) -> String {
    shell_words::quote(&p.display().to_string()).into_owned()
}

fn weather() -> String {
    quoted(&example("weather-server"))
}

fn fixture(args: &str) -> String {
    format!("{} {args}", quoted(&example("fixture-server")))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn run(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

/// Starts `serve` (stdio) with `args` in `dir`, sends `initialize` and `tools/list`, and returns
/// both answers and what it logged, after closing it.
fn serve_once(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Vec<Value>, String) {
    let mut c = bin();
    c.current_dir(dir).arg("serve").args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}},
        "clientInfo": {"name": "t", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answers = Vec::new();
    if let Some(Ok(line)) = lines.next() {
        let first: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let ok = first.get("result").is_some();
        answers.push(first);
        if ok {
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            .unwrap();
            writeln!(
                stdin,
                "{}",
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
            )
            .unwrap();
            if let Some(Ok(line)) = lines.next() {
                answers.push(serde_json::from_str(&line).unwrap_or(Value::Null));
            }
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (answers, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_first_run_leaves_a_project_that_the_next_commands_use() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(d, &["generate", "--server", &weather()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let config = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap();
    assert!(config.contains("weather-server"), "{config}");
    assert!(config.contains("out_dir = \"ui\""), "{config}");
    let said = text(&out);
    assert_eq!(said.matches("Wrote mcp-gen-ui.toml").count(), 1, "{said}");

    // The next commands reach the same server with no flag.
    let out = run(d, &["list", "--online", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("get_forecast"), "{}", text(&out));
    let out = run(d, &["check", "--server"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = run(d, &["serve", "--print-config"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let args = snippet["mcpServers"]
        .as_object()
        .and_then(|m| m.values().next())
        .map(|s| s["args"].to_string())
        .unwrap_or_default();
    assert!(
        args.contains("--config") && args.contains("mcp-gen-ui.toml"),
        "{snippet}"
    );
    let (answers, log) = serve_once(d, &[], &[]);
    assert_eq!(answers.len(), 2, "{answers:?}\n{log}");
    let tools = answers[1]["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        tools.iter().any(|t| t["_meta"]["ui"]["resourceUri"]
            .as_str()
            .is_some_and(|u| u.starts_with("ui://weather/get_forecast?v="))),
        "{tools:?}"
    );

    // A folder that has a config keeps it: another --server is for that run only.
    let out = run(
        d,
        &["generate", "--dry-run", "--server", &fixture("--mode ok")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("mcp-gen-ui.toml"), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap(),
        config
    );
}

#[test]
fn dry_runs_failed_runs_and_explicit_paths() {
    // --dry-run writes nothing, and says what it would write.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(d, &["generate", "--dry-run", "--server", &weather()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("would write mcp-gen-ui.toml"),
        "{}",
        text(&out)
    );
    assert!(!d.join("mcp-gen-ui.toml").exists() && !d.join("ui").exists());

    // A run that cannot connect writes nothing.
    let out = run(
        d,
        &["generate", "--server", "/nonexistent/mcp-server --flag"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!d.join("mcp-gen-ui.toml").exists());
    let out = run(d, &["generate", "--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!d.join("mcp-gen-ui.toml").exists());

    // --out-dir is written; the next command finds the pages there.
    let out = run(
        d,
        &["generate", "--out-dir", "gen/ui", "--server", &weather()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let config = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap();
    assert!(config.contains("out_dir = \"gen/ui\""), "{config}");
    assert!(d.join("gen/ui/get_forecast.html").exists());
    let out = run(d, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // --config FILE names the file to leave; its paths are right from anywhere.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("conf")).unwrap();
    let out = run(
        d,
        &[
            "generate",
            "--config",
            "conf/ui.toml",
            "--server",
            &weather(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!d.join("mcp-gen-ui.toml").exists());
    let config = std::fs::read_to_string(d.join("conf/ui.toml")).unwrap();
    let out = run(&d.join("conf"), &["check", "--config", "ui.toml"]);
    assert_eq!(out.status.code(), Some(0), "{config}\n{}", text(&out));
    let out = run(
        &d.join("conf"),
        &["list", "--online", "--config", "ui.toml"],
    );
    assert_eq!(out.status.code(), Some(0), "{config}\n{}", text(&out));
}

#[test]
fn the_first_run_over_http_names_the_url() {
    let mut server = Command::new(example("weather-server"))
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(server.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().unwrap().unwrap();
        if let Some(i) = line.find("http://") {
            break line[i..].trim().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A key in the URL: this run uses it, the file names a variable for it.
    let keyed = format!("{url}?api_key=k-url-secret-456");
    let out = run(d, &["generate", "--url", &keyed]);
    let said = text(&out);
    let config = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap_or_default();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        config.contains(&format!("url = \"{url}?api_key=${{API_KEY}}\"")),
        "{config}"
    );
    assert!(
        !said.contains("k-url-secret-456") && !config.contains("k-url-secret-456"),
        "{said}"
    );
    assert!(
        said.contains("Kept API_KEY out of mcp-gen-ui.toml"),
        "{said}"
    );
}

/// The shapes of a secret on a command line: none reaches the file or any output.
#[test]
fn secrets_on_the_command_line_never_reach_a_file_or_an_output_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let secrets = ["ghp_x", "u:pass@", "sk-first-run-123", "tok-first-run-456"];
    let server = format!(
        "env GITHUB_PAT=ghp_x DATABASE_URL=postgres://u:pass@h/db {} --api-key sk-first-run-123 \
         --token=tok-first-run-456",
        fixture("--mode ok --require-env GITHUB_PAT --echo-env DATABASE_URL --echo-argv")
    );
    let out = run(d, &["generate", "--server", &server]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let config = std::fs::read_to_string(d.join("mcp-gen-ui.toml")).unwrap();
    let lock = std::fs::read_to_string(d.join("ui/mcp-gen-ui.lock")).unwrap();
    for s in secrets {
        assert!(!config.contains(s), "{s} in the config:\n{config}");
        assert!(!said.contains(s), "{s} in the output:\n{said}");
        assert!(!lock.contains(s), "{s} in the lock");
    }
    let refs = [
        "GITHUB_PAT = \"${GITHUB_PAT}\"",
        "DATABASE_URL = \"${DATABASE_URL}\"",
        "\"--api-key\", \"${API_KEY}\"",
        "\"--token=${TOKEN}\"",
    ];
    support::assert_holds(&config, &refs);
    assert_eq!(
        said.matches("Kept GITHUB_PAT, DATABASE_URL, API_KEY, TOKEN out of mcp-gen-ui.toml")
            .count(),
        1,
        "{said}"
    );

    // The next run passes them from the environment; a missing one is named.
    let env = [
        ("GITHUB_PAT", "ghp_x"),
        ("DATABASE_URL", "postgres://u:pass@h/db"),
        ("API_KEY", "sk-first-run-123"),
        ("TOKEN", "tok-first-run-456"),
    ];
    let mut c = bin();
    c.current_dir(d).args(["list", "--online"]);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let mut c = bin();
    c.current_dir(d).args(["list", "--online"]);
    for (k, v) in &env[1..] {
        c.env(k, v);
    }
    let out = c.env_remove("GITHUB_PAT").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`GITHUB_PAT`"), "{}", text(&out));
    // Offline commands do not need them.
    let out = bin()
        .current_dir(d)
        .env_remove("GITHUB_PAT")
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // serve's log (text and JSON) and --print-config, with the secrets on the command line.
    let other = tempfile::tempdir().unwrap();
    for format in ["text", "json"] {
        let (answers, log) = serve_once(
            other.path(),
            &["--log-format", format, "--allow-stale", "--server", &server],
            &[("MCP_GEN_UI_LOG", "debug")],
        );
        assert!(
            answers.first().is_some_and(|a| a.get("result").is_some()),
            "{answers:?}\n{log}"
        );
        assert!(log.contains("fixture-server: started with"), "{log}");
        for s in secrets {
            assert!(!log.contains(s), "{s} in serve's {format} log:\n{log}");
        }
    }
    let out = run(
        other.path(),
        &["serve", "--print-config", "--server", &server],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    for s in secrets {
        assert!(!said.contains(s), "{s} in --print-config:\n{said}");
    }
    for name in ["GITHUB_PAT", "DATABASE_URL", "API_KEY", "TOKEN"] {
        assert!(said.contains(name), "{name} not named:\n{said}");
    }
}

/// An upstream that fails and echoes its command line: the error shows the line, not the keys.
#[test]
fn an_error_that_echoes_the_command_line_is_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let server = format!(
        "env SHORT_PAT=ab1 {} --api-key sk-echo-secret-9 --token=tok-echo-secret-8",
        fixture("--mode crash --echo-argv")
    );
    let out = run(dir.path(), &["generate", "--server", &server]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("fixture-server: started with"), "{said}");
    for s in ["sk-echo-secret-9", "tok-echo-secret-8"] {
        assert!(!said.contains(s), "{s}:\n{said}");
    }
    assert!(!dir.path().join("mcp-gen-ui.toml").exists());
    // Credentials in a URL that cannot be reached.
    let out = run(
        dir.path(),
        &[
            "generate",
            "--url",
            "http://user:pw-secret-123@127.0.0.1:9/mcp?token=t-secret-456",
        ],
    );
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        !said.contains("pw-secret-123") && !said.contains("t-secret-456"),
        "{said}"
    );
}

/// An upstream that prints why it cannot work and hangs: its last stderr lines (5, redacted)
/// are in the error of every command that starts it, and in serve's log.
#[test]
fn a_hang_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let says: Vec<String> = (1..=6)
        .map(|i| format!("--say 'relay: line {i}'"))
        .chain([
            "--say 'relay: using api_key=sk-hang-secret-5'".to_string(),
            "--say 'getaddrinfo EAI_AGAIN api.example.com'".to_string(),
        ])
        .collect();
    let args = shell_words::split(&format!("--mode hang {}", says.join(" "))).unwrap();
    let args: Vec<String> = args.iter().map(|a| toml_str(a)).collect();
    std::fs::write(
        d.join("mcp-gen-ui.toml"),
        format!(
            "[upstream]\ncommand = {}\nargs = [{}]\ntimeout_ms = 1500\n",
            toml_str(&example("fixture-server").display().to_string()),
            args.join(", ")
        ),
    )
    .unwrap();
    let check = |said: &str| {
        assert!(!said.contains("sk-hang-secret-5"), "{said}");
        // The lines quoted, not the command line that names them.
        let said = said.split("last stderr lines").nth(1).unwrap_or_default();
        let said = said.split(" upstream=").next().unwrap_or_default();
        assert!(
            said.contains("getaddrinfo EAI_AGAIN api.example.com"),
            "{said}"
        );
        assert!(
            said.contains("relay: line 4") && !said.contains("relay: line 3"),
            "{said}"
        );
        assert!(!said.contains("sk-hang-secret-5"), "{said}");
    };
    for cmd in [&["generate"][..], &["list", "--online"]] {
        let out = run(d, cmd);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}: {said}");
        assert!(said.contains("timed out"), "{said}");
        check(&said);
    }
    // serve: the host's error and the log (pages generated from a server that works).
    let out = run(
        d,
        &[
            "generate",
            "--server",
            &fixture("--mode ok"),
            "--out-dir",
            "ui",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let (answers, log) = serve_once(d, &["--allow-stale"], &[]);
    let message = answers
        .first()
        .map(|a| a["error"]["message"].to_string())
        .unwrap_or_default();
    if !message.is_empty() && message != "null" {
        check(&message);
    }
    check(&log);
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A project whose tools the `changing` fixture reads from `tools.json`.
fn tools_project(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    set_tools(dir.path(), names);
    std::fs::write(
        dir.path().join("mcp-gen-ui.toml"),
        format!(
            "[upstream]\ncommand = {}\nargs = [\"--mode\", \"changing\", \"--tools-file\", \"tools.json\"]\n",
            toml_str(&example("fixture-server").display().to_string())
        ),
    )
    .unwrap();
    dir
}

fn set_tools(d: &Path, names: &[&str]) {
    let tools: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    std::fs::write(d.join("tools.json"), Value::Array(tools).to_string()).unwrap();
}

fn hash8(name: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(name.as_bytes()))[..8].to_string()
}

fn lock_paths(d: &Path) -> Vec<(String, String)> {
    let lock: toml::Table = std::fs::read_to_string(d.join("ui/mcp-gen-ui.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let mut out = Vec::new();
    for (name, entry) in lock["tools"].as_table().unwrap() {
        for w in entry["widgets"].as_array().unwrap() {
            out.push((name.clone(), w["path"].as_str().unwrap().to_string()));
        }
    }
    out
}

/// Tool names whose files a person should still read: separators, case, scripts, reserved names.
const READABLE: [&str; 6] = [
    "API-get-self",
    "user.create",
    "GetData",
    "日本語",
    "CON",
    "a__b",
];

#[test]
fn file_names_a_person_can_read() {
    let dir = tools_project(&READABLE);
    let d = dir.path();
    let out = run(d, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let ui = d.join("ui");
    for f in [
        "api-get-self.html",
        "user-create.html",
        "getdata.html",
        "a__b.html",
    ] {
        assert!(ui.join(f).exists(), "{f}: {:?}", lock_paths(d));
    }
    assert!(ui.join(format!("tool-{}.html", hash8("日本語"))).exists());
    assert!(ui.join(format!("con-{}.html", hash8("CON"))).exists());
    // URIs follow the file names.
    let (answers, log) = serve_once(d, &[], &[]);
    let tools = answers
        .get(1)
        .map(|a| a["result"]["tools"].to_string())
        .unwrap_or_default();
    assert!(
        tools.contains("ui://fixture-changing/user-create?v="),
        "{tools}\n{log}"
    );

    // A newcomer that collides gets the hash; the file that exists keeps its name and bytes.
    let before = std::fs::read(ui.join("user-create.html")).unwrap();
    set_tools(
        d,
        &[&READABLE[..], &["user-create", "User.Create"]].concat(),
    );
    let out = run(d, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(std::fs::read(ui.join("user-create.html")).unwrap(), before);
    assert!(
        ui.join(format!("user-create-{}.html", hash8("user-create")))
            .exists()
    );
    assert!(
        ui.join(format!("user-create-{}.html", hash8("User.Create")))
            .exists()
    );
    let paths = lock_paths(d);
    assert!(
        paths.contains(&("user.create".into(), "user-create.html".into())),
        "{paths:?}"
    );
}

#[test]
fn projects_generated_before_keep_their_names_until_they_opt_in() {
    let dir = tools_project(&["API-get-self", "plain_name"]);
    let d = dir.path();
    let out = run(d, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // What an older version wrote: the hashed name, recorded in the lock.
    let old = format!("api-get-self-{}.html", hash8("API-get-self"));
    let ui = d.join("ui");
    std::fs::rename(ui.join("api-get-self.html"), ui.join(&old)).unwrap();
    let lock_path = ui.join("mcp-gen-ui.lock");
    let lock = std::fs::read_to_string(&lock_path).unwrap();
    let old_uri = format!("ui://fixture-changing/{}?", old.trim_end_matches(".html"));
    std::fs::write(
        &lock_path,
        lock.replace("\"api-get-self.html\"", &format!("\"{old}\""))
            .replace("ui://fixture-changing/api-get-self?", &old_uri),
    )
    .unwrap();

    let out = run(d, &["generate"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Up to date"), "{}", text(&out));
    assert!(ui.join(&old).exists() && !ui.join("api-get-self.html").exists());
    let out = run(d, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    // Opting in renames the file and says which URI changes.
    let out = run(d, &["generate", "--rename-files"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        ui.join("api-get-self.html").exists() && !ui.join(&old).exists(),
        "{said}"
    );
    assert!(
        said.contains(&format!("renamed {old} → api-get-self.html"))
            && said.contains("ui://fixture-changing/api-get-self?v=")
            && said.contains(&format!(
                "ui://fixture-changing/{}?v=",
                old.trim_end_matches(".html")
            )),
        "{said}"
    );
    assert!(ui.join("plain_name.html").exists());
    let out = run(d, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}
