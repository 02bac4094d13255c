//! Prints the CLI speed figures of SPEC 10: `check` on 500 tools (target under 100 ms), and what a
//! no-op `generate` adds to the upstream's own `tools/list` (target under 50 ms).
//!
//! cargo build --release --workspace --bins --example bench-cli
//! target/release/examples/bench-cli [TOOLS] [RUNS]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm the page cache
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn run(bin: &Path, dir: &Path, args: &[&str]) {
    let st = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !st {
        eprintln!("bench-cli: `mcp-gen-ui {}` failed", args.join(" "));
        std::process::exit(1);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tools: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(500);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let here = std::env::current_exe().unwrap_or_default();
    let examples = here.parent().map(Path::to_path_buf).unwrap_or_default();
    let bin: PathBuf = examples
        .parent()
        .map(|p| p.join("mcp-gen-ui"))
        .unwrap_or_default();
    let fixture = examples
        .parent()
        .map(|p| p.join("fixture-server"))
        .unwrap_or_default();
    let Ok(dir) = tempfile::tempdir() else {
        eprintln!("bench-cli: no temporary directory");
        std::process::exit(1);
    };
    let server = format!("{} --mode many {tools}", fixture.display());
    let t = Instant::now();
    run(
        &bin,
        dir.path(),
        &["generate", "--quiet", "--server", &server],
    );
    let first = t.elapsed();

    let check = time(runs, || run(&bin, dir.path(), &["check", "--quiet"]));
    let noop = time(runs, || {
        run(
            &bin,
            dir.path(),
            &["generate", "--quiet", "--server", &server],
        )
    });
    let list = time(runs, || {
        run(&bin, dir.path(), &["list", "--server", &server])
    });

    println!("tools: {tools}, runs: {runs} (medians)");
    println!(
        "first generate:        {:>8.1} ms ({:.3} ms per tool)",
        first.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3 / tools as f64
    );
    println!(
        "check (offline):       {:>8.1} ms   target < 100 ms",
        check.as_secs_f64() * 1e3
    );
    println!(
        "list --server:         {:>8.1} ms   (the upstream's tools/list plus planning)",
        list.as_secs_f64() * 1e3
    );
    println!(
        "no-op generate:        {:>8.1} ms",
        noop.as_secs_f64() * 1e3
    );
    println!(
        "no-op generate adds:   {:>8.1} ms   target < 50 ms over tools/list",
        (noop.as_secs_f64() - list.as_secs_f64()).max(0.0) * 1e3
    );
}
