//! `list`: the status of every tool, offline from the lock unless asked to look upstream.

use clap::Args;

use super::context::{Context, Outcome};
use crate::pipeline::{self, ToolRow, tool_row};
use crate::report::{self, Format};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also compare with the upstream's tools (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `list`.
pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let upstream = if super::wants_online(ctx, &cfg, args.online) {
        Some(super::discover(ctx, &cfg)?.tools)
    } else {
        None
    };
    let (_, plan) = pipeline::look(&cfg, upstream.as_deref())?;
    let rows: Vec<ToolRow> = plan.tools.iter().map(|tp| tool_row(&cfg, tp)).collect();
    let p = &ctx.printer;
    if args.format == Format::Json {
        p.json(&rows)?;
        return Ok(Outcome::Success);
    }
    if rows.is_empty() {
        p.out(format!(
            "No tools in {}: run `mcp-gen-ui generate` first.",
            cfg.out_dir.display()
        ))?;
        return Ok(Outcome::Success);
    }
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                report::display_name(&r.tool),
                crate::plan::status_with_reasons(&r.status, &r.reasons),
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
    Ok(Outcome::Success)
}
