//! Benchmark of the builtin generator: prints generation time per tool and file size for every
//! tool fixture, then the page sizes over a corpus of real servers' tools (the tools.json
//! snapshots in `tests/fixtures/corpus/`: the example servers and server-everything), whose
//! median is the "typical tool" (targets: under 5 ms and 40 KB). Not a test: numbers only.
//! `cargo run --release --example bench-builtin [N_ITERATIONS] [--rows]` (`--rows`: only the
//! summary, as rows of the table `tests/tools/bench-all.sh` prints)

use std::time::Instant;

use mcp_gen_ui::config::{Hints, ToolConfig};
use mcp_gen_ui::generate::WidgetRequest;
use mcp_gen_ui::generate::builtin::{Templates, render};
use mcp_gen_ui::model::Tool;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows = args.iter().any(|a| a == "--rows");
    let iterations: u32 = args
        .iter()
        .find_map(|a| a.parse().ok())
        .unwrap_or(200)
        .max(1);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools");
    let mut files: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let t0 = Instant::now();
    let templates = Templates::embedded();
    if !rows {
        println!(
            "templates loaded in {:.3} ms",
            t0.elapsed().as_secs_f64() * 1e3
        );
        println!("{:<24} {:>12} {:>10}", "tool", "ms/tool", "KB");
    }
    let mut times = Vec::new();
    for path in files {
        let raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let hints: Hints = raw
            .get("x-hints")
            .cloned()
            .map(serde_json::from_value)
            .transpose()?
            .unwrap_or_default();
        let tool = Tool::from_raw(raw)?;
        let mut size = 0;
        let start = Instant::now();
        for _ in 0..iterations {
            size = page_size(&tool, hints.clone(), &templates)?;
        }
        let per = start.elapsed().as_secs_f64() * 1e3 / f64::from(iterations);
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !rows {
            println!("{name:<24} {per:>12.3} {:>10.1}", size as f64 / 1024.0);
        }
        times.push(per);
    }
    times.sort_by(f64::total_cmp);
    if rows && let (Some(max), false) = (times.last(), times.is_empty()) {
        println!(
            "| builtin generation per tool ({} fixtures, median / slowest) | {:.2} / {:.2} ms | under 5 ms |",
            times.len(),
            times[times.len() / 2],
            max
        );
    }
    corpus(&templates, rows)
}

/// Page sizes for every tool of the corpus snapshots, and their spread.
fn corpus(templates: &Templates, rows: bool) -> anyhow::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut sizes = Vec::new();
    if !rows {
        println!("\n{:<48} {:>10} {:>10}", "corpus tool", "bytes", "KiB");
    }
    for path in files {
        let tools: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let server = path
            .file_name()
            .map(|s| s.to_string_lossy().replace(".tools.json", ""))
            .unwrap_or_default();
        for raw in tools {
            let tool = Tool::from_raw(raw)?;
            let size = page_size(&tool, Hints::default(), templates)?;
            let label = format!("{server}/{}", tool.name);
            if !rows {
                println!("{label:<48} {size:>10} {:>10.1}", size as f64 / 1024.0);
            }
            sizes.push(size);
        }
    }
    sizes.sort_unstable();
    if let (Some(min), Some(max)) = (sizes.first(), sizes.last()) {
        let median = sizes[sizes.len() / 2];
        if rows {
            println!(
                "| builtin page size over {} corpus tools (median / smallest / largest) | {:.1} / {:.1} / {:.1} KiB | median at most 56 KB, none over 80 KB |",
                sizes.len(),
                median as f64 / 1024.0,
                *min as f64 / 1024.0,
                *max as f64 / 1024.0
            );
            return Ok(());
        }
        println!(
            "{} tools: median {median} bytes ({:.1} KiB), min {min}, max {max}",
            sizes.len(),
            median as f64 / 1024.0
        );
    }
    Ok(())
}

/// The bytes of the builtin page for one tool, with default settings and these hints.
fn page_size(tool: &Tool, hints: Hints, templates: &Templates) -> anyhow::Result<usize> {
    let cfg = ToolConfig::default();
    let req = WidgetRequest {
        tool,
        tool_config: &cfg,
        widget: None,
        hints,
        refinements: &[],
        server_name: "bench",
    };
    Ok(render(&req, templates)?.len())
}
