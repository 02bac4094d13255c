//! `generate`: discover → plan → generate → validate → write, incrementally.

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Args;

use crate::cli::Context;
use crate::config::GeneratorKind;
use crate::generate::Generator;
use crate::generate::batch::{self, Action, BatchOptions, Row};
use crate::report::{self, Format};
use crate::write::{self, RunLock};

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Only these tools (default: every enabled tool)
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
    /// Regenerate even fresh, hand-edited and pinned files
    #[arg(long)]
    pub force: bool,
    /// Show what would be written, write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Override the configured generator
    #[arg(long, value_enum)]
    pub generator: Option<GeneratorKind>,
    /// Accept the hand edit of TOOL's file: record it as pinned (never regenerated until --force)
    #[arg(long, value_name = "TOOL")]
    pub adopt: Vec<String>,
    /// Output format of the summary
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Loads the generator a command should use (`--generator` over the config).
pub fn load_generator(
    cfg: &crate::config::Config,
    kind: Option<GeneratorKind>,
) -> anyhow::Result<Generator> {
    let kind = kind.unwrap_or(cfg.file.generator);
    if kind == GeneratorKind::Llm {
        bail!(
            "the llm generator is not part of this build yet; use --generator builtin (the default)"
        );
    }
    Ok(Generator::new(kind, cfg.templates_dir().as_deref())?)
}

/// Runs `generate`. Returns 0 also when hand-edited files were kept (they are reported).
pub fn run(ctx: &Context, args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    let generator = load_generator(&cfg, args.generator)?;
    let discovery = super::discover(ctx, &cfg)?;
    // Hold the run lock from reading the state to writing it, so two runs cannot interleave.
    let _run_lock = if args.dry_run {
        None
    } else {
        let lock = RunLock::acquire(&cfg.out_dir)?;
        write::clean_temp_files(&cfg.out_dir);
        Some(lock)
    };
    let state = super::read_state(&cfg)?;
    let pb = ctx.printer.progress(0, "Generating");
    let batch = batch::build(
        &cfg,
        &generator,
        &discovery,
        &state,
        &BatchOptions {
            tools: &args.tools,
            force: args.force,
            adopt: &args.adopt,
            history: None,
        },
        &pb,
    )?;
    pb.finish_and_clear();
    if !args.dry_run && !batch.nothing_to_do {
        write::apply(&cfg.out_dir, batch.update, &batch.lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }
    summarize(
        ctx,
        &cfg,
        args,
        &batch.rows,
        batch.lock.tools.len(),
        batch.nothing_to_do,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the warnings for kept and dropped things, then the summary table.
pub fn summarize(
    ctx: &Context,
    cfg: &crate::config::Config,
    args: &GenerateArgs,
    rows: &[Row],
    total: usize,
    nothing_to_do: bool,
) -> anyhow::Result<()> {
    let p = &ctx.printer;
    if args.format == Format::Json {
        p.json(&serde_json::json!({
            "out_dir": cfg.out_dir.display().to_string(),
            "dry_run": args.dry_run,
            "up_to_date": nothing_to_do,
            "tools": rows,
        }))?;
        return Ok(());
    }
    warn_rows(ctx, rows);
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let kept = rows.iter().filter(|r| r.action == Action::Kept).count();
    if nothing_to_do {
        if kept == 0 {
            p.out(format!(
                "Up to date: {total} tool{} in {}, nothing to generate.",
                plural(total),
                cfg.out_dir.display()
            ))?;
        } else {
            p.out(format!(
                "Nothing generated: {kept} hand-edited tool{} left alone (see the warning above), the other {} up to date.",
                plural(kept),
                total.saturating_sub(kept)
            ))?;
        }
        return Ok(());
    }
    print_rows(ctx, rows)?;
    let count = |a: Action| rows.iter().filter(|r| r.action == a).count();
    let verb = if args.dry_run { "would write" } else { "wrote" };
    p.out(format!(
        "{} {verb}: {} generated, {} regenerated, {} removed, {} kept; {total} tool{} in the lock.",
        if args.dry_run { "Dry run," } else { "Done," },
        count(Action::Generated),
        count(Action::Regenerated),
        count(Action::Removed),
        kept,
        plural(total),
    ))?;
    Ok(())
}

/// Warnings for hand edits left alone and refinement histories dropped with removed tools.
pub fn warn_rows(ctx: &Context, rows: &[Row]) {
    for r in rows {
        let q = shell_words::quote(&r.tool);
        if r.action == Action::Kept {
            ctx.printer.warn(format!(
                "{} was edited by hand and was left alone; `mcp-gen-ui generate --force {q}` overwrites it, `mcp-gen-ui generate --adopt {q}` keeps it for good",
                r.files.join(", ")
            ));
        }
        if r.dropped_refinements > 0 {
            ctx.printer.warn(format!(
                "tool `{}` is gone: its {} refinement{} went with it (git history keeps them)",
                report::display_name(&r.tool),
                r.dropped_refinements,
                if r.dropped_refinements == 1 { "" } else { "s" }
            ));
        }
    }
}

/// The summary table.
pub fn print_rows(ctx: &Context, rows: &[Row]) -> anyhow::Result<()> {
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let why = if r.reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.reasons.join(", "))
            };
            vec![
                report::display_name(&r.tool),
                format!("{}{why}", r.action.label()),
                r.files.join(" "),
                if r.bytes > 0 {
                    report::human_size(r.bytes)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    if !table_rows.is_empty() {
        ctx.printer.out(report::table(
            &["TOOL", "ACTION", "FILES", "SIZE"],
            &table_rows,
        ))?;
    }
    Ok(())
}
