//! `generate`: discover → plan → generate → validate → write, incrementally (the pipeline runs
//! it; this prints the summary).

use clap::Args;

use super::Reporter;
use crate::config::GeneratorKind;
use crate::context::{Context, Outcome};
use crate::generate::llm::pipeline::REPLACED;
use crate::pipeline::batch::{Action, Row};
use crate::pipeline::generate::{GenerateSettings, Generated, generate};
use crate::report::{self, Format, Printer, Render};

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Only these tools [default: every enabled tool]
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
    /// With the llm generator: call each read-only tool (or one with `sample = true`) with an
    /// example input and show the model the real result
    #[arg(long)]
    pub sample: bool,
    /// With the llm generator: the Chromium or Chrome that runs each page before it is kept
    /// [default: $MCP_GEN_UI_BROWSER (`off`: none), else chromium or chrome on the PATH]
    #[arg(long, value_name = "PATH")]
    pub browser: Option<std::path::PathBuf>,
    /// LLM generations in flight at once (overrides [llm] jobs)
    #[arg(long, value_name = "COUNT")]
    pub jobs: Option<usize>,
    /// Accept the hand edit of TOOL's file: record it as pinned (never regenerated until --force)
    #[arg(long, value_name = "TOOL")]
    pub adopt: Vec<String>,
    /// Rename files named by the older rule to readable names (`user.create` →
    /// user-create.html) and print each `ui://` URI that changes; pinned tools keep theirs
    #[arg(long)]
    pub rename_files: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `generate`. Success also when hand-edited files were kept (they are reported); findings
/// when a tool was left without a new page (named; its previous page and lock entry stay).
pub fn run(ctx: &Context, args: &GenerateArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let mut cfg = ctx.config()?;
    cfg.rename_files = args.rename_files;
    let before = args
        .rename_files
        .then(|| crate::lock::Lock::read(&cfg.out_dir).ok().flatten())
        .flatten();
    let settings = GenerateSettings {
        tools: args.tools.clone(),
        force: args.force,
        dry_run: args.dry_run,
        generator: args.generator,
        sample: args.sample,
        browser: args.browser.clone(),
        jobs: args.jobs,
        adopt: args.adopt.clone(),
    };
    let generated = generate(
        &cfg,
        &settings,
        &Reporter::new(&ctx.printer),
        ctx.runtime()?,
    )?;
    ctx.printer.render(&generated, args.format.into())?;
    if let Some(before) = before {
        report_renames(ctx, &cfg, &before, args.dry_run);
    }
    super::first_run::leave_project(ctx, &cfg, args.generator, args.dry_run)?;
    Ok(Outcome::findings_if(generated.failed()))
}

/// `--rename-files`: each file that moved, with the `ui://` URI that changed (book:
/// reference/names.md).
fn report_renames(
    ctx: &Context,
    cfg: &crate::config::Config,
    before: &crate::lock::Lock,
    dry_run: bool,
) {
    let after = match crate::lock::Lock::read(&cfg.out_dir) {
        Ok(Some(l)) if !dry_run => l,
        _ => return,
    };
    let (configured, stable) = (cfg.file.server_name.as_deref(), cfg.file.stable_uris);
    let mut n = 0;
    for (name, old) in &before.tools {
        let Some(new) = after.tools.get(name) else {
            continue;
        };
        for w in &old.widgets {
            let Some(nw) = new.widgets.iter().find(|x| x.name == w.name) else {
                continue;
            };
            if nw.path != w.path {
                n += 1;
                ctx.printer.status(format!(
                    "renamed {} → {}: its URI is now {} (was {})",
                    w.path,
                    nw.path,
                    after.page_uri(configured, nw, stable),
                    before.page_uri(configured, w, stable),
                ));
            }
        }
    }
    if n == 0 {
        ctx.printer
            .status("--rename-files: every file already has its readable name.");
    }
}

impl Render for Generated {
    /// The warnings for kept and dropped things, then the summary table.
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        let rows = &self.rows;
        let total = self.total;
        warn_rows(p, rows);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let kept = rows.iter().filter(|r| r.action == Action::Kept).count();
        let failed = rows.iter().filter(|r| r.action == Action::Failed).count();
        if self.nothing_to_do && failed == 0 {
            if kept == 0 {
                p.out(format!(
                    "Up to date: {total} tool{} in {}, nothing to generate.",
                    plural(total),
                    self.out_dir
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
        print_rows(p, rows)?;
        let count = |a: Action| rows.iter().filter(|r| r.action == a).count();
        let verb = if self.dry_run { "would write" } else { "wrote" };
        let failed_note = if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        };
        p.out(format!(
            "{} {verb}: {} generated, {} regenerated, {} removed, {} kept{failed_note}; {total} tool{} in the lock.",
            if self.dry_run { "Dry run," } else { "Done," },
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
}

/// Warnings for hand edits left alone and refinement histories dropped with removed tools.
fn warn_rows(p: &Printer, rows: &[Row]) {
    for r in rows {
        let q = shell_words::quote(&r.tool);
        if r.action == Action::Kept {
            p.warn(format!(
                "{} was edited by hand and was left alone; `mcp-gen-ui generate --force {q}` overwrites it, `mcp-gen-ui generate --adopt {q}` keeps it for good",
                r.files.join(", ")
            ));
        }
        if let Some(l) = &r.llm {
            for f in &l.fallbacks {
                p.warn(format!(
                    "tool `{}`: the LLM's page was replaced by the builtin UI ({f})",
                    report::display_name(&r.tool)
                ));
            }
            // What the run noticed or repaired on the way (`--quiet` hides it; `--format json`
            // lists it under the row's `llm.warnings`).
            for w in l.warnings.iter().filter(|w| !w.starts_with(REPLACED)) {
                p.status(format!("tool `{}`: {w}", report::display_name(&r.tool)));
            }
        }
        if r.action == Action::Failed {
            p.error(format!(
                "no new page for tool `{}`: {}",
                report::display_name(&r.tool),
                r.error.as_deref().unwrap_or("unknown error")
            ));
        }
        if r.dropped_refinements > 0 {
            p.warn(format!(
                "tool `{}` is gone: its {} refinement{} went with it (git history keeps them)",
                report::display_name(&r.tool),
                r.dropped_refinements,
                if r.dropped_refinements == 1 { "" } else { "s" }
            ));
        }
    }
}

/// The summary table.
fn print_rows(p: &Printer, rows: &[Row]) -> anyhow::Result<()> {
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
        p.out(report::table(header, &table_rows))?;
    }
    Ok(())
}
