//! `refine TOOL "FEEDBACK"`: append to the tool's refinement history (in the lock), regenerate
//! that tool, and print the unified diff of what changed.

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Args;

use crate::cli::Context;
use crate::config::GeneratorKind;
use crate::generate::batch::{self, BatchOptions};
use crate::generate::phrases;
use crate::plan::Status;
use crate::report;
use crate::write::{self, RunLock};

#[derive(Debug, Args)]
pub struct RefineArgs {
    /// The tool, exactly as the upstream names it
    pub tool: String,
    /// What to change, e.g. "line chart of high and low by date", "hide field id, sort by date desc"
    pub feedback: Option<String>,
    /// Apply the feedback to one widget of a multi-widget tool only
    #[arg(long, value_name = "W")]
    pub widget: Option<String>,
    /// Remove the last refinement instead
    #[arg(long, conflicts_with_all = ["clear", "feedback"])]
    pub undo: bool,
    /// Remove every refinement instead
    #[arg(long, conflicts_with = "feedback")]
    pub clear: bool,
    /// Override the configured generator
    #[arg(long, value_enum)]
    pub generator: Option<GeneratorKind>,
}

/// Runs `refine`. Feedback the builtin generator cannot read is kept and reported (exit 0).
pub fn run(ctx: &Context, args: &RefineArgs) -> anyhow::Result<ExitCode> {
    ctx.require_server_value()?;
    let feedback = match (&args.feedback, args.undo || args.clear) {
        (Some(f), _) if !f.trim().is_empty() => Some(f.trim().to_string()),
        (_, true) => None,
        _ => bail!(
            "say what to change, e.g. mcp-gen-ui refine {} \"line chart\" (or use --undo / --clear)",
            shell_words::quote(&args.tool)
        ),
    };
    let cfg = ctx.config()?;
    let generator = super::generate::load_generator(&cfg, args.generator)?;
    let discovery = super::discover(ctx, &cfg)?;
    let _run_lock = RunLock::acquire(&cfg.out_dir)?;
    write::clean_temp_files(&cfg.out_dir);
    let state = super::read_state(&cfg)?;
    let plan = super::make_plan(
        &cfg,
        &state,
        Some(&discovery.tools),
        &generator.fingerprint(),
    )?;
    let name = report::display_name(&args.tool);
    let Some(tp) = plan.tools.iter().find(|t| t.name == args.tool) else {
        bail!(
            "no tool named `{name}` upstream; available: {}",
            plan.tools
                .iter()
                .map(|t| report::display_name(&t.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    match tp.status {
        Status::Removed | Status::Disabled | Status::UpstreamUi => {
            bail!("tool `{name}` has no UI to refine ({})", tp.status.label())
        }
        Status::Edited => bail!(
            "{} was edited by hand: refining would overwrite the edit. Run `mcp-gen-ui generate --force {}` first, or keep the edit with --adopt",
            tp.widgets
                .iter()
                .map(|w| w.path.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            shell_words::quote(&args.tool)
        ),
        Status::Pinned => bail!(
            "tool `{name}` is pinned to a hand edit; `mcp-gen-ui generate --force {}` unpins it",
            shell_words::quote(&args.tool)
        ),
        _ => {}
    }
    if let Some(w) = &args.widget
        && !tp
            .widgets
            .iter()
            .any(|pw| pw.widget_name.as_deref() == Some(w.as_str()))
    {
        bail!(
            "tool `{name}` has no widget `{w}`; its widgets: {}",
            tp.widgets
                .iter()
                .map(|w| w.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }

    let mut history = tp
        .entry
        .as_ref()
        .map(|e| e.refinements.clone())
        .unwrap_or_default();
    if args.clear {
        history.clear();
    } else if args.undo {
        if history.pop().is_none() {
            bail!("tool `{name}` has no refinements to undo");
        }
    } else if let Some(f) = &feedback {
        history.push(phrases::scoped(args.widget.as_deref(), f));
    }

    let mut unreadable = None;
    if let Some(f) = &feedback
        && generator.kind == GeneratorKind::Builtin
        && let Err(e) = phrases::interpret(f)
    {
        unreadable = Some(e);
    }

    let old: Vec<(String, Option<String>)> = tp
        .widgets
        .iter()
        .map(|w| {
            (
                w.path.clone(),
                std::fs::read_to_string(cfg.out_dir.join(&w.path)).ok(),
            )
        })
        .collect();
    let tools = [args.tool.clone()];
    let batch = batch::build(
        &cfg,
        &generator,
        &discovery,
        &state,
        &BatchOptions {
            tools: &tools,
            force: false,
            adopt: &[],
            history: Some((args.tool.clone(), history.clone())),
        },
        &indicatif::ProgressBar::hidden(),
    )?;
    let new_files: Vec<(String, String)> = batch
        .update
        .files
        .iter()
        .map(|(p, b)| (p.clone(), String::from_utf8_lossy(b).into_owned()))
        .collect();
    if !batch.nothing_to_do {
        write::apply(&cfg.out_dir, batch.update, &batch.lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }

    let p = &ctx.printer;
    for (path, before) in &old {
        let Some((_, after)) = new_files.iter().find(|(np, _)| np == path) else {
            continue;
        };
        let before = before.as_deref().unwrap_or("");
        p.out(super::diff::unified(p, before, after, path))?;
    }
    if let Some(e) = unreadable {
        p.warn(format!(
            "{e}: it is kept in the history and the llm generator will read it (`mcp-gen-ui refine {} ... --generator llm`). The builtin generator understands phrases such as \"line chart\", \"bar chart of revenue by month\", \"table\", \"cards\", \"dark theme\", \"compact\", \"hide field x\", \"rename x to y\", \"sort by date descending\"",
            shell_words::quote(&args.tool)
        ));
    }
    let changed = new_files.len();
    p.status(format!(
        "Refined `{name}`: {} refinement{} in the history, {} file{} changed.",
        history.len(),
        if history.len() == 1 { "" } else { "s" },
        changed,
        if changed == 1 { "" } else { "s" }
    ));
    Ok(ExitCode::SUCCESS)
}
