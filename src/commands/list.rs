//! `list`: the status of every tool, offline from the lock unless asked to look upstream.

use clap::Args;
use serde::Serialize;

use super::Reporter;
use crate::context::{Context, Outcome};
use crate::pipeline::{self, ToolRow, tool_row};
use crate::report::{self, Format, Printer, Render};

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also compare with the upstream's tools (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `list`.
pub fn run(ctx: &Context, args: &ListArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let online = super::wants_online(ctx, &cfg, args.online);
    let (_, plan) = pipeline::look(&cfg, online, &Reporter::new(&ctx.printer), || ctx.runtime())?;
    let listed = Listed {
        out_dir: cfg.out_dir.display().to_string(),
        rows: plan.tools.iter().map(|tp| tool_row(&cfg, tp)).collect(),
    };
    ctx.printer.render(&listed, args.format.into())?;
    Ok(Outcome::Success)
}

/// `list`'s output record: one row per tool (JSON: the bare array).
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct Listed {
    #[serde(skip)]
    pub out_dir: String,
    pub rows: Vec<ToolRow>,
}

impl Render for Listed {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        if self.rows.is_empty() {
            p.out(format!(
                "No tools in {}: run `mcp-gen-ui generate` first.",
                self.out_dir
            ))?;
            return Ok(());
        }
        let table: Vec<Vec<String>> = self
            .rows
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
        Ok(())
    }
}
