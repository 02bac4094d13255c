//! The registry suite, CLI half: popular servers installed from npm and PyPI at pinned versions
//! (tests/fixtures/registry-servers.json), started offline with dummy keys. For each one,
//! `generate` writes a page for every tool it lists, `check` and `check --online` pass, and the
//! dummy key reaches no file. A server whose registry was not installed is listed as SKIPPED;
//! one that was installed but fails is a failure. book: installation.md ("Servers we test against").

use std::path::Path;
use std::process::Output;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/registry.rs"]
mod registry;
mod support;
use registry::{Server, State, servers, shell_line};

/// A command of the CLI in the temp project `dir`, against `server` when `upstream` is given.
fn run(
    dir: &Path,
    server: &Server,
    upstream: Option<&[String]>,
    args: &[&str],
) -> Result<Output, String> {
    let mut c = support::cmd();
    c.current_dir(dir)
        .args(args)
        .args(["--out-dir", "ui"])
        .timeout(Duration::from_secs(180));
    if let Some(cmd) = upstream {
        // A Python server takes seconds to import on a loaded CI machine: more than the default
        // 10 s to answer `initialize`. The config holds only that; --server replaces the rest.
        c.args(["--config", TIMEOUT_CONFIG, "--server", &shell_line(cmd)]);
        for (k, v) in &server.env {
            c.arg("--env").arg(format!("{k}={v}"));
        }
    }
    let out = c.output().map_err(|e| format!("{args:?}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "`mcp-gen-ui {}` exited with {}:\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The project's config: only `[upstream] timeout_ms`.
const TIMEOUT_CONFIG: &str = "timeout.toml";

/// Every file under `dir` (the project: ui/ and whatever the CLI wrote beside it).
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// generate, then the checks; Err says what went wrong.
fn exercise(server: &Server, cmd: &[String]) -> Result<usize, String> {
    let project = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = project.path();
    std::fs::write(dir.join(TIMEOUT_CONFIG), "[upstream]\ntimeout_ms = 90000\n")
        .map_err(|e| e.to_string())?;
    run(dir, server, Some(cmd), &["generate"])?;

    // The tools the server listed, as the CLI recorded them.
    let snap = dir.join("ui/mcp-gen-ui.tools.json");
    let tools: Value = std::fs::read_to_string(&snap)
        .map_err(|e| format!("{}: {e}", snap.display()))
        .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{}: {e}", snap.display())))?;
    let names: Vec<&str> = tools
        .as_array()
        .ok_or("tools.json is not an array")?
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    if names.len() != server.expect_tools {
        return Err(format!(
            "listed {} tools, the manifest expects {} at this version",
            names.len(),
            server.expect_tools
        ));
    }
    for n in &server.expect_names {
        if !names.contains(&n.as_str()) {
            return Err(format!("tool {n} is missing from tools/list"));
        }
    }

    // One lock entry per tool, each with a default page that exists (its name read from the lock).
    let lock_path = dir.join("ui/mcp-gen-ui.lock");
    let lock: toml::Table = std::fs::read_to_string(&lock_path)
        .map_err(|e| format!("{}: {e}", lock_path.display()))?
        .parse()
        .map_err(|e| format!("{}: {e}", lock_path.display()))?;
    let entries = lock
        .get("tools")
        .and_then(|t| t.as_table())
        .ok_or("the lock has no [tools]")?;
    if entries.len() != names.len() {
        return Err(format!(
            "{} lock entries for {} tools",
            entries.len(),
            names.len()
        ));
    }
    for n in &names {
        let page = entries
            .get(*n)
            .and_then(|e| e.get("widgets"))
            .and_then(|w| w.as_array())
            .and_then(|w| w.first())
            .and_then(|w| w.get("path"))
            .and_then(|p| p.as_str())
            .ok_or_else(|| format!("tool {n} has no page in the lock"))?;
        let len = std::fs::metadata(dir.join("ui").join(page)).map_or(0, |m| m.len());
        if len == 0 {
            return Err(format!("tool {n}: its page ui/{page} is missing or empty"));
        }
    }

    // The offline gate (the lock and the files alone), then against the running server.
    run(dir, server, None, &["check"])?;
    run(dir, server, Some(cmd), &["check", "--online"])?;

    // The dummy keys were given with --env NAME=VALUE: no value may reach a file.
    let mut all = Vec::new();
    files(dir, &mut all);
    for f in &all {
        let text = String::from_utf8_lossy(&std::fs::read(f).unwrap_or_default()).into_owned();
        for (k, v) in &server.env {
            if text.contains(v.as_str()) {
                return Err(format!("the value of {k} is in {}", f.display()));
            }
        }
    }
    Ok(names.len())
}

/// One line for the summary: ok, SKIPPED or FAILED, naming the server and its pinned version.
fn outcome(server: &Server) -> String {
    let who = format!("{} ({})", server.name, server.pinned);
    match &server.state {
        State::Skipped(why) => format!("SKIPPED {who}: {why}"),
        State::Broken(why) => format!("FAILED {who}: {why}"),
        State::Ready(cmd) => {
            let t = Instant::now();
            match exercise(server, cmd) {
                Ok(n) => format!("ok {who}: {n} tools, {:.1} s", t.elapsed().as_secs_f64()),
                Err(e) => format!("FAILED {who}: {e}"),
            }
        }
    }
}

#[test]
fn registry_servers_generate_and_check() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let list = servers(scratch.path());
    assert!(!list.is_empty(), "the manifest lists no server");
    // Two at a time: most of a server's time is its start (Node or Python imports), and CI has
    // two cores.
    let next = AtomicUsize::new(0);
    let lines = Mutex::new(vec![String::new(); list.len()]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(server) = list.get(i) else { break };
                    let line = outcome(server);
                    if let Ok(mut l) = lines.lock() {
                        l[i] = line;
                    }
                }
            });
        }
    });
    let lines = lines.into_inner().unwrap_or_default();
    // Printed whatever happens, so a skip is never silent (cargo test shows it with --nocapture
    // or on failure; the Node half reports skips in its summary).
    for line in &lines {
        eprintln!("registry suite: {line}");
    }
    let failed: Vec<&String> = lines
        .iter()
        .filter(|l| !l.starts_with("ok ") && !l.starts_with("SKIPPED "))
        .collect();
    assert!(
        failed.is_empty(),
        "registry servers failing:\n{}",
        failed
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
