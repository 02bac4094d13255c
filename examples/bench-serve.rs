//! Benchmark of `mcp-gen-ui serve` (prints figures; asserts nothing):
//! the stdio `tools/call` round trip through `serve` vs straight to the upstream (median ratio
//! and absolute difference), `resources/read` of a UI answered from memory, and the idle memory
//! of the `serve` process.
//!
//! Run: `cargo build --release --workspace --bins --example bench-serve &&
//! target/release/examples/bench-serve [ITERATIONS] [--rows]` (debug builds work too, the binaries are
//! looked up next to this one).

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl Peer {
    fn spawn(mut cmd: Command) -> std::io::Result<Peer> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        Ok(Peer {
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
            next_id: 1,
        })
    }

    async fn notify(&mut self, method: &str) -> std::io::Result<()> {
        let line = json!({"jsonrpc": "2.0", "method": method}).to_string() + "\n";
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.flush().await
    }

    /// One request and its response (notifications in between are skipped).
    async fn request(&mut self, method: &str, params: Value) -> std::io::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
            .to_string()
            + "\n";
        self.stdin.write_all(line.as_bytes()).await?;
        self.stdin.flush().await?;
        loop {
            let Some(l) = tokio::time::timeout(Duration::from_secs(30), self.stdout.next_line())
                .await
                .map_err(|_| std::io::Error::other(format!("no answer to {method}")))??
            else {
                return Err(std::io::Error::other("the peer closed stdout"));
            };
            let v: Value = serde_json::from_str(&l).map_err(std::io::Error::other)?;
            if v.get("id") == Some(&json!(id)) {
                return Ok(v);
            }
        }
    }

    async fn initialize(&mut self, ui: bool) -> std::io::Result<Value> {
        let mut caps = json!({});
        if ui {
            caps = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
        }
        let r = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": caps,
                       "clientInfo": {"name": "bench", "version": "1"}}),
            )
            .await?;
        self.notify("notifications/initialized").await?;
        Ok(r)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v.get(i).copied().unwrap_or_default()
}

async fn time_calls(peer: &mut Peer, n: usize) -> std::io::Result<Vec<Duration>> {
    let params = json!({"name": "get_current_conditions", "arguments": {"city": "Paris"}});
    for _ in 0..n / 10 + 10 {
        peer.request("tools/call", params.clone()).await?;
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let r = peer.request("tools/call", params.clone()).await?;
        out.push(t.elapsed());
        if r.get("result").is_none() {
            return Err(std::io::Error::other(format!("tools/call failed: {r}")));
        }
    }
    Ok(out)
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|k| k.parse().ok())
}

/// A `ui/` with one UI for `get_current_conditions` (a typical builtin file is ~30 KB).
fn write_ui(dir: &Path) -> std::io::Result<PathBuf> {
    let out = dir.join("ui");
    std::fs::create_dir_all(&out)?;
    let html = format!(
        "<!doctype html><title>bench</title>{}",
        "<p>row</p>".repeat(3000)
    );
    std::fs::write(out.join("get_current_conditions.html"), &html)?;
    let lock = format!(
        "version = 1\ngenerator = \"builtin\"\nfingerprint = \"bench\"\nvalidator_version = 1\n\
         server_name = \"weather\"\n\n[tools.get_current_conditions]\ntool_hash = \"stale-on-purpose\"\n\
         config_hash = \"bench\"\n\n[[tools.get_current_conditions.widgets]]\nname = \"default\"\n\
         path = \"get_current_conditions.html\"\nsha256 = \"{}\"\ngenerator = \"builtin\"\n\
         template_version = \"1\"\nui_type = \"rich\"\ndefault = true\n",
        mcp_gen_ui::model::sha256_hex(&html)
    );
    std::fs::write(out.join("mcp-gen-ui.lock"), lock)?;
    Ok(out)
}

async fn run(n: usize, rows: bool) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let examples = exe
        .parent()
        .ok_or_else(|| std::io::Error::other("no exe dir"))?;
    let profile = examples
        .parent()
        .ok_or_else(|| std::io::Error::other("no profile dir"))?;
    let serve_bin = profile.join("mcp-gen-ui");
    let weather = profile.join("weather-server");
    for p in [&serve_bin, &weather] {
        if !p.exists() {
            return Err(std::io::Error::other(format!(
                "{} is missing: cargo build [--release] --workspace --bins --examples",
                p.display()
            )));
        }
    }
    let tmp = std::env::temp_dir().join(format!("bench-serve-{}", std::process::id()));
    let out_dir = write_ui(&tmp)?;

    let mut direct = Peer::spawn(Command::new(&weather))?;
    direct.initialize(false).await?;
    let mut cmd = Command::new(&serve_bin);
    cmd.args(["serve", "--server"])
        .arg(&weather)
        .arg("--out-dir")
        .arg(&out_dir)
        .env("MCP_GEN_UI_LOG", "error");
    let mut through = Peer::spawn(cmd)?;
    through.initialize(true).await?;

    // Interleave the two so that machine noise hits both alike.
    let mut d_all = Vec::new();
    let mut t_all = Vec::new();
    for _ in 0..5 {
        d_all.extend(time_calls(&mut direct, n / 5).await?);
        t_all.extend(time_calls(&mut through, n / 5).await?);
    }
    let (dm, tm) = (median(d_all.clone()), median(t_all.clone()));
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    if rows {
        println!(
            "| `serve` over stdio, Rust client with real pipes (weather-server `tools/call`, median / p90) | {:.0} / {:.0} µs direct, {:.0} / {:.0} µs through serve: +{:.0} µs, ratio {:.2} | at most +100 µs |",
            us(dm),
            us(percentile(d_all.clone(), 0.9)),
            us(tm),
            us(percentile(t_all.clone(), 0.9)),
            us(tm) - us(dm),
            us(tm) / us(dm).max(1e-9)
        );
    } else {
        println!(
            "tools/call round trip over stdio ({} calls each):",
            d_all.len()
        );
        println!(
            "  direct       median {:>8.1} µs   p90 {:>8.1} µs",
            dm.as_secs_f64() * 1e6,
            percentile(d_all, 0.9).as_secs_f64() * 1e6
        );
        println!(
            "  through serve median {:>7.1} µs   p90 {:>8.1} µs",
            tm.as_secs_f64() * 1e6,
            percentile(t_all, 0.9).as_secs_f64() * 1e6
        );
        println!(
            "  ratio {:.3} (target ≤ 1.10), added {:.1} µs at the median (target ≤ 100 µs)",
            tm.as_secs_f64() / dm.as_secs_f64().max(1e-9),
            (tm.as_secs_f64() - dm.as_secs_f64()) * 1e6
        );
    }
    let mut reads = Vec::with_capacity(n);
    let params = json!({"uri": "ui://weather/get_current_conditions"});
    for _ in 0..n {
        let t = Instant::now();
        let r = through.request("resources/read", params.clone()).await?;
        reads.push(t.elapsed());
        if r.pointer("/result/contents/0/text").is_none() {
            return Err(std::io::Error::other(format!("resources/read failed: {r}")));
        }
    }
    if rows {
        println!(
            "| `serve`: `resources/read` of a 30 KB UI (median / p90) | {:.0} / {:.0} µs, from memory | — |",
            us(median(reads.clone())),
            us(percentile(reads.clone(), 0.9))
        );
    } else {
        println!(
            "resources/read of a 30 KB UI from memory: median {:.1} µs, p90 {:.1} µs",
            median(reads.clone()).as_secs_f64() * 1e6,
            percentile(reads, 0.9).as_secs_f64() * 1e6
        );
    }

    tokio::time::sleep(Duration::from_millis(500)).await;
    if let Some(pid) = through.child.id() {
        match (rss_kib(pid), rows) {
            (Some(k), true) => println!(
                "| `serve`: idle memory (RSS, upstream excluded) | {:.1} MiB | — |",
                k as f64 / 1024.0
            ),
            (Some(k), false) => println!(
                "idle memory of serve (RSS, upstream excluded): {:.1} MiB",
                k as f64 / 1024.0
            ),
            (None, _) => println!("idle memory of serve: unavailable (no /proc)"),
        }
    }
    drop(direct);
    drop(through);
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows = args.iter().any(|a| a == "--rows");
    let n: usize = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000)
        .max(50);
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bench-serve: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(run(n, rows)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-serve: {e}");
            ExitCode::from(2)
        }
    }
}
