//! Benchmark of the builtin generator: prints generation time per tool and file size for every
//! tool fixture (targets: under 5 ms and 40 KB for a typical tool). Not a test: numbers only.
//! `cargo run --release --example bench-builtin [N_ITERATIONS]`

use std::time::Instant;

use mcp_gen_ui::config::{Hints, ToolConfig};
use mcp_gen_ui::generate::WidgetRequest;
use mcp_gen_ui::generate::builtin::{Templates, render};
use mcp_gen_ui::model::Tool;

fn main() -> anyhow::Result<()> {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
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
    println!(
        "templates loaded in {:.3} ms",
        t0.elapsed().as_secs_f64() * 1e3
    );
    println!("{:<24} {:>12} {:>10}", "tool", "ms/tool", "KB");
    for path in files {
        let raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let hints: Hints = raw
            .get("x-hints")
            .cloned()
            .map(serde_json::from_value)
            .transpose()?
            .unwrap_or_default();
        let tool = Tool::from_raw(raw)?;
        let cfg = ToolConfig::default();
        let req = WidgetRequest {
            tool: &tool,
            tool_config: &cfg,
            widget: None,
            hints,
            refinements: &[],
            server_name: "bench",
        };
        let mut size = 0;
        let start = Instant::now();
        for _ in 0..iterations {
            size = render(&req, &templates)?.len();
        }
        let per = start.elapsed().as_secs_f64() * 1e3 / f64::from(iterations);
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("{name:<24} {per:>12.3} {:>10.1}", size as f64 / 1024.0);
    }
    Ok(())
}
