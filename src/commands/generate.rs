//! `generate`: discover → plan → generate → validate → write, incrementally.

use anyhow::Context as _;
use clap::Args;

use super::context::{Context, Outcome};
use crate::config::GeneratorKind;
use crate::pipeline::batch::{self, Action, BatchOptions, Row};
use crate::pipeline::{self, State};
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
    /// Call read-only tools (or those with `sample = true`) with an example input and show the
    /// real result to the llm generator
    #[arg(long)]
    pub sample: bool,
    /// LLM generations in flight at once (overrides [llm] jobs)
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Accept the hand edit of TOOL's file: record it as pinned (never regenerated until --force)
    #[arg(long, value_name = "TOOL")]
    pub adopt: Vec<String>,
    /// Output format of the summary
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `generate`. Success also when hand-edited files were kept (they are reported); findings
/// when a tool was left without a new page (named; its previous page and lock entry stay).
pub fn run(ctx: &Context, args: &GenerateArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    let generator = pipeline::load_generator(&cfg, args.generator, args.jobs)?;
    let discovery = super::discover(ctx, &cfg)?;
    // Hold the run lock from reading the state to writing it, so two runs cannot interleave.
    let _run_lock = if args.dry_run {
        None
    } else {
        let lock = RunLock::acquire(&cfg.out_dir)?;
        write::clean_temp_files(&cfg.out_dir);
        Some(lock)
    };
    let state = State::read(&cfg)?;
    let samples = if args.sample && generator.llm.is_some() {
        let plan = state.plan(&cfg, Some(&discovery.tools), &generator.fingerprint())?;
        let names: Vec<&str> = plan
            .tools
            .iter()
            .filter(|t| t.needs_generation() || args.force)
            .filter(|t| args.tools.is_empty() || args.tools.contains(&t.name))
            .map(|t| t.name.as_str())
            .collect();
        super::collect_samples(ctx, &cfg, &discovery.tools, &names)?
    } else {
        if args.sample {
            ctx.printer
                .warn("--sample only matters to the llm generator; ignored with the builtin one");
        }
        Default::default()
    };
    let pb = ctx.printer.progress(0, "Generating");
    let rt = ctx.runtime()?;
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
            samples,
            files: if args.dry_run {
                batch::FileSink::Discard
            } else {
                batch::FileSink::Stage(&cfg.out_dir)
            },
        },
        &pb,
        rt.handle(),
    )?;
    pb.finish_and_clear();
    let outcome = Outcome::findings_if(batch.failed().next().is_some());
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
    Ok(outcome)
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
    let failed = rows.iter().filter(|r| r.action == Action::Failed).count();
    if nothing_to_do && failed == 0 {
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
    let failed_note = if failed > 0 {
        format!(", {failed} failed")
    } else {
        String::new()
    };
    p.out(format!(
        "{} {verb}: {} generated, {} regenerated, {} removed, {} kept{failed_note}; {total} tool{} in the lock.",
        if args.dry_run { "Dry run," } else { "Done," },
        count(Action::Generated),
        count(Action::Regenerated),
        count(Action::Removed),
        kept,
        plural(total),
    ))?;
    if failed > 0 {
        p.warn(format!(
            "{failed} tool{} kept {} previous page (see the errors above); `mcp-gen-ui check` reports {} stale until a run succeeds",
            plural(failed),
            if failed == 1 { "its" } else { "their" },
            if failed == 1 { "it" } else { "them" },
        ));
    }
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
        if let Some(l) = &r.llm {
            for f in &l.fallbacks {
                ctx.printer.warn(format!(
                    "tool `{}`: the LLM's page was replaced by the builtin UI ({f})",
                    report::display_name(&r.tool)
                ));
            }
        }
        if r.action == Action::Failed {
            ctx.printer.error(format!(
                "no new page for tool `{}`: {}",
                report::display_name(&r.tool),
                r.error.as_deref().unwrap_or("unknown error")
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
                let why: Vec<&str> = r.reasons.iter().map(|x| x.label()).collect();
                format!(" ({})", why.join(", "))
            };
            let why = match &r.llm {
                Some(l) if !l.fallbacks.is_empty() => format!("{why} (builtin fallback)"),
                _ => why,
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
                r.llm
                    .as_ref()
                    .map(|l| {
                        format!(
                            "{} in / {} out tokens, {:.1} s",
                            l.input_tokens,
                            l.output_tokens,
                            l.elapsed_ms as f64 / 1000.0
                        )
                    })
                    .unwrap_or_default(),
            ]
        })
        .collect();
    if !table_rows.is_empty() {
        let llm = rows.iter().any(|r| r.llm.is_some());
        let header: &[&str] = if llm {
            &["TOOL", "ACTION", "FILES", "SIZE", "LLM"]
        } else {
            &["TOOL", "ACTION", "FILES", "SIZE"]
        };
        let table_rows: Vec<Vec<String>> = table_rows
            .into_iter()
            .map(|mut r| {
                r.truncate(header.len());
                r
            })
            .collect();
        ctx.printer.out(report::table(header, &table_rows))?;
    }
    Ok(())
}
