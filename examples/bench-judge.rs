//! Prints what running a page in the browser adds per tool for the llm generator (book:
//! reference/llm.md, "Pages run before they are kept"): the browser's start (once per run) and
//! the judgment of each page (median, p90), over the corpus's tools (their builtin pages, which
//! pass every check, so each judgment runs every check to the end). No timed assertions.
//!
//! `cargo run --release --example bench-judge [ROUNDS]` (a Chromium or Chrome on the PATH, or
//! MCP_GEN_UI_BROWSER).

use std::time::{Duration, Instant};

use mcp_gen_ui::config::{CspConfig, ToolConfig};
use mcp_gen_ui::generate::WidgetRequest;
use mcp_gen_ui::generate::builtin::{Templates, render};
use mcp_gen_ui::model::Tool;
use mcp_gen_ui::validate::browser::{Judge, PageToJudge};
use serde_json::Value;

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2);
    let exe = mcp_gen_ui::review::visual::find_browser(None)?;
    let tools: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/llm/corpus/tools.json"
        ))?)?;
    let templates = Templates::embedded();
    let cfg = ToolConfig::default();
    let mut pages = Vec::new();
    let built = Instant::now();
    for raw in tools.values() {
        let tool = Tool::from_raw(raw.clone())?;
        let req = WidgetRequest {
            tool: &tool,
            tool_config: &cfg,
            widget: None,
            hints: Default::default(),
            refinements: &[],
            server_name: "bench",
        };
        pages.push((raw.clone(), render(&req, &templates)?));
    }
    let builtin = built.elapsed() / pages.len() as u32;
    let start = Instant::now();
    let judge = Judge::start(&exe)?;
    let started = start.elapsed();
    let csp = CspConfig::default();
    let mut times = Vec::new();
    let mut findings = 0;
    for _ in 0..rounds {
        for (tool, html) in &pages {
            let t = Instant::now();
            let f = judge.judge(&PageToJudge {
                html,
                tool,
                csp: &csp,
                examples: &[],
                sample: None,
                deadline: Instant::now() + Duration::from_secs(60),
            });
            times.push(t.elapsed());
            findings += f.len();
        }
    }
    times.sort();
    println!("browser: {}", exe.display());
    println!(
        "browser start (once per run): {:.0} ms",
        started.as_secs_f64() * 1e3
    );
    println!(
        "judgment per tool over {} pages: median {:.0} ms, p90 {:.0} ms, max {:.0} ms ({findings} findings)",
        times.len(),
        pct(&times, 0.5).as_secs_f64() * 1e3,
        pct(&times, 0.9).as_secs_f64() * 1e3,
        pct(&times, 1.0).as_secs_f64() * 1e3,
    );
    println!(
        "the builtin path: {:.2} ms per page, no browser (the builtin generator has no browser in it; \
         the llm generator starts one only for a page the model wrote)",
        builtin.as_secs_f64() * 1e3
    );
    Ok(())
}
