//! `serve` killed with SIGKILL leaves nothing behind: its stdio upstream and everything that
//! started, even a grandchild that ignores SIGTERM (a parent-death signal on the direct child
//! would not reach it), are gone within a few seconds (book: reference/serve.md).
#![cfg(target_os = "linux")]

use std::process::Stdio;
use std::time::{Duration, Instant};

mod support;
use support::process;

/// Waits up to 30 s for `path` to hold a pid.
fn read_pid(path: &std::path::Path) -> i32 {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < until, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only probes whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn an_upstream_and_its_stubborn_grandchild_die_with_a_killed_serve() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fixture = support::fixture_file("servers/slow_exit.py");
    // The upstream: a child that ignores SIGTERM (sleep, started with TERM ignored), then the
    // MCP server itself in the shell's place.
    let script = format!(
        "trap '' TERM\nsleep 600 &\necho $! > '{gc}'\necho $$ > '{c}'\nexec python3 '{fixture}'\n",
        gc = d.join("grandchild").display(),
        c = d.join("child").display(),
    );
    std::fs::write(d.join("up.sh"), script).unwrap();
    let server = format!("sh {}", d.join("up.sh").display());
    let mut serve = support::bin()
        .args(["serve", "--server", &server, "--out-dir"])
        .arg(d)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = read_pid(&d.join("child"));
    let grandchild = read_pid(&d.join("grandchild"));
    assert!(alive(child) && alive(grandchild));
    // SIGKILL: no handler of serve runs.
    serve.kill().unwrap();
    let _ = serve.wait();
    assert!(
        process::gone(child),
        "the upstream {child} outlived a killed serve"
    );
    assert!(
        process::gone(grandchild),
        "the upstream's child {grandchild}, which ignores SIGTERM, outlived a killed serve"
    );
}
