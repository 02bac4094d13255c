//! Prints the CLI figures of the book's performance.md: `check` on 500 tools (target under 100 ms),
//! what a no-op `generate` adds to the upstream's own `tools/list` (target under 50 ms), the first
//! `generate` per tool, and the peak memory of a first `generate` for 1,000 and 10,000 tools.
//!
//! The 500 tools are the real tool definitions of `tests/fixtures/corpus/` repeated under new
//! names (a no-op's cost grows with the size of the schemas, not only with their number); the
//! memory runs use the fixture server's small generated tools.
//!
//! cargo build --release --workspace --bins --example bench-cli
//! target/release/examples/bench-cli [TOOLS] [RUNS] [--rows]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("bench-cli: {msg}");
    std::process::exit(1);
}

/// Runs the binary and returns its wall time, user + system CPU time and peak RSS (KiB).
fn run(bin: &Path, dir: &Path, args: &[&str]) -> (Duration, Duration, u64) {
    let t = Instant::now();
    let child = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(format!("cannot start {}: {e}", bin.display())));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value for this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are valid for the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t.elapsed();
    std::mem::forget(child); // already reaped by wait4
    if waited != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        fail(format!("`mcp-gen-ui {}` failed", args.join(" ")));
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    let cpu = tv(usage.ru_utime) + tv(usage.ru_stime);
    (wall, cpu, usage.ru_maxrss as u64)
}

fn time(runs: usize, mut f: impl FnMut() -> (Duration, Duration, u64)) -> (Duration, Duration) {
    f(); // warm the page cache
    let (walls, cpus): (Vec<_>, Vec<_>) = (0..runs)
        .map(|_| {
            let (w, c, _) = f();
            (w, c)
        })
        .unzip();
    (median(walls), median(cpus))
}

/// The corpus tools repeated under new names up to `n` tools, as a JSON array.
fn corpus_tools(repo: &Path, n: usize) -> String {
    let mut all: Vec<serde_json::Value> = Vec::new();
    let dir = repo.join("tests/fixtures/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| fail(format!("{}: {e}", dir.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if let Ok(serde_json::Value::Array(tools)) = serde_json::from_str(&text) {
            all.extend(tools);
        }
    }
    if all.is_empty() {
        fail("no corpus tools in tests/fixtures/corpus");
    }
    let out: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let mut t = all[i % all.len()].clone();
            let name = format!("{}_{i}", t["name"].as_str().unwrap_or("tool"));
            t["name"] = serde_json::Value::String(name);
            t
        })
        .collect();
    serde_json::Value::Array(out).to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows = args.iter().any(|a| a == "--rows");
    let mut nums = args.iter().filter_map(|a| a.parse::<usize>().ok());
    let tools = nums.next().unwrap_or(500);
    let runs = nums.next().unwrap_or(10);
    let here = std::env::current_exe().unwrap_or_default();
    let profile = here
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let bin = profile.join("mcp-gen-ui");
    let fixture = profile.join("fixture-server");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(dir) = tempfile::tempdir() else {
        fail("no temporary directory");
    };
    let tools_file = dir.path().join("tools.json");
    if let Err(e) = std::fs::write(&tools_file, corpus_tools(repo, tools)) {
        fail(format!("{}: {e}", tools_file.display()));
    }
    let server = format!(
        "{} --mode changing --tools-file {}",
        fixture.display(),
        tools_file.display()
    );
    let d = dir.path();
    let (first, _, _) = run(&bin, d, &["generate", "--quiet", "--server", &server]);
    let (check, _) = time(runs, || run(&bin, d, &["check", "--quiet"]));
    let (noop, noop_cpu) = time(runs, || {
        run(&bin, d, &["generate", "--quiet", "--server", &server])
    });
    let (list, list_cpu) = time(runs, || run(&bin, d, &["list", "--server", &server]));
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut memory = Vec::new();
    for n in [1_000usize, 10_000] {
        let Ok(m) = tempfile::tempdir() else {
            fail("no temporary directory");
        };
        let many = format!("{} --mode many {n}", fixture.display());
        let (_, _, rss) = run(&bin, m.path(), &["generate", "--quiet", "--server", &many]);
        memory.push((n, rss));
    }

    if rows {
        println!(
            "| `check` on {tools} tools, offline | {:.1} ms | under 100 ms |",
            ms(check)
        );
        println!(
            "| no-op `generate` over `list --server` ({tools} tools) | {:.1} ms against {:.1} ms: {:+.1} ms wall, {:+.1} ms CPU | under 50 ms |",
            ms(noop),
            ms(list),
            ms(noop) - ms(list),
            ms(noop_cpu) - ms(list_cpu)
        );
        println!(
            "| first `generate`, including validation and fsync of every page | {:.2} ms per tool | — |",
            ms(first) / tools as f64
        );
        for (n, rss) in &memory {
            println!(
                "| peak memory of a first `generate`, {n} tools | {:.0} MiB | does not grow with pages written |",
                *rss as f64 / 1024.0
            );
        }
        return;
    }
    println!("tools: {tools} (the corpus's real definitions, repeated), runs: {runs} (medians)");
    println!(
        "first generate:        {:>8.1} ms ({:.3} ms per tool)",
        ms(first),
        ms(first) / tools as f64
    );
    println!(
        "check (offline):       {:>8.1} ms   target < 100 ms",
        ms(check)
    );
    println!(
        "list --server:         {:>8.1} ms   (the upstream's tools/list plus planning)",
        ms(list)
    );
    println!("no-op generate:        {:>8.1} ms", ms(noop));
    println!(
        "no-op generate adds:   {:>8.1} ms wall, {:.1} ms CPU   target < 50 ms over tools/list",
        (ms(noop) - ms(list)).max(0.0),
        (ms(noop_cpu) - ms(list_cpu)).max(0.0)
    );
    for (n, rss) in &memory {
        println!(
            "peak memory, first generate of {n} tools: {:.0} MiB",
            *rss as f64 / 1024.0
        );
    }
}
