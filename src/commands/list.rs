//! `list`: the status of every tool, offline from the lock unless asked to look upstream.

use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::cli::Context;
use crate::generate::Generator;
use crate::plan::{Status, ToolPlan};
use crate::report::{self, Format};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also compare with the upstream's tools (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Serialize)]
pub struct ToolRow {
    pub tool: String,
    pub status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<&'static str>,
    pub generator: String,
    pub ui_type: String,
    pub refinements: usize,
    pub files: Vec<String>,
    pub bytes: u64,
}

/// Summarises one planned tool (shared with `inspect`).
pub fn tool_row(cfg: &crate::config::Config, tp: &ToolPlan) -> ToolRow {
    let entry = tp.entry.as_ref();
    let first = entry.and_then(|e| e.widgets.first());
    let files: Vec<String> = entry
        .map(|e| e.widgets.iter().map(|w| w.path.clone()).collect())
        .unwrap_or_default();
    let bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(cfg.out_dir.join(f)).ok())
        .map(|m| m.len())
        .sum();
    ToolRow {
        tool: tp.name.clone(),
        status: tp.status.label().into(),
        reasons: match &tp.status {
            Status::Stale(r) => r.iter().map(|r| r.describe()).collect(),
            _ => Vec::new(),
        },
        generator: first.map(|w| w.generator.clone()).unwrap_or_default(),
        ui_type: first.map(|w| w.ui_type.clone()).unwrap_or_default(),
        refinements: entry.map_or(0, |e| e.refinements.len()),
        files,
        bytes,
    }
}

/// Runs `list`.
pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<ExitCode> {
    let cfg = ctx.config()?;
    let state = super::read_state(&cfg)?;
    let generator = Generator::new(cfg.file.generator, cfg.templates_dir().as_deref())?;
    let upstream = if super::wants_online(ctx, &cfg, args.online) {
        Some(super::discover(ctx, &cfg)?.tools)
    } else {
        None
    };
    let plan = super::make_plan(&cfg, &state, upstream.as_deref(), &generator.fingerprint())?;
    let rows: Vec<ToolRow> = plan.tools.iter().map(|tp| tool_row(&cfg, tp)).collect();
    let p = &ctx.printer;
    if args.format == Format::Json {
        p.json(&rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        p.out(format!(
            "No tools in {}: run `mcp-gen-ui generate` first.",
            cfg.out_dir.display()
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                report::display_name(&r.tool),
                if r.reasons.is_empty() {
                    r.status.clone()
                } else {
                    format!("{} ({})", r.status, r.reasons.join(", "))
                },
                r.generator.clone(),
                r.ui_type.clone(),
                r.refinements.to_string(),
                if r.bytes > 0 {
                    report::human_size(r.bytes)
                } else {
                    "-".into()
                },
            ]
        })
        .collect();
    p.out(report::table(
        &["TOOL", "STATUS", "GENERATOR", "UI", "REFINEMENTS", "SIZE"],
        &table,
    ))?;
    Ok(ExitCode::SUCCESS)
}
