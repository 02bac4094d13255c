//! `refine TOOL "FEEDBACK"`: append to the tool's refinement history (in the lock), regenerate
//! that tool, and print the unified diff of what changed.

use anyhow::bail;
use clap::Args;
use serde::Serialize;

use super::Reporter;
use super::diff::{FileDiff, Pictures, file_diff, pictures, print_changes};
use crate::config::GeneratorKind;
use crate::context::{Context, Outcome};
use crate::generate::llm::pipeline::REPLACED;
use crate::pipeline::refine::{Change, RefineSettings, Refined, refine};
use crate::report::{self, Format, Printer, Render};

#[derive(Debug, Args)]
pub struct RefineArgs {
    /// The tool's name, exactly as the upstream spells it
    pub tool: String,
    /// What to change, e.g. "line chart of high and low by date", "hide field id, sort by date desc"
    pub feedback: Option<String>,
    /// Apply the feedback to this widget of a multi-widget tool only
    #[arg(long, value_name = "WIDGET")]
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
    /// With the llm generator: call each read-only tool (or one with `sample = true`) with an
    /// example input and show the model the real result
    #[arg(long)]
    pub sample: bool,
    #[command(flatten)]
    pub review: super::diff::ReviewArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `refine`. Feedback the builtin generator cannot read is kept and reported (success).
pub fn run(ctx: &Context, args: &RefineArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let settings = RefineSettings {
        tool: args.tool.clone(),
        change: change(args)?,
        generator: args.generator,
        sample: args.sample,
        // The review's --browser also runs the llm generator's pages.
        browser: args.review.browser.clone(),
    };
    let cfg = ctx.config()?;
    // Looked for before anything is done, so that a missing browser writes nothing.
    let visual = args.review.visual_setup(&cfg.out_dir)?;
    let p = &ctx.printer;
    let r = refine(&cfg, &settings, &Reporter::new(p), ctx.runtime()?)?;
    let pictures = match &visual {
        Some(v) => {
            let files: Vec<(String, Option<String>, Option<String>)> = r
                .files
                .iter()
                .map(|(path, before, after)| (path.clone(), before.clone(), Some(after.clone())))
                .collect();
            Some(pictures(p, v, &r.before, &r.after, &files)?)
        }
        None => None,
    };
    let shown = RefineOutput {
        r: &r,
        full_html: args.review.html,
        pictures,
    };
    p.render(&shown, args.format.into())?;
    shown.notes(p);
    Ok(Outcome::findings_if(!r.failed.is_empty()))
}

/// The change to the history the arguments ask for.
fn change(args: &RefineArgs) -> anyhow::Result<Change> {
    Ok(match (&args.feedback, args.undo, args.clear) {
        (Some(f), _, _) if !f.trim().is_empty() => Change::Add {
            feedback: f.trim().to_string(),
            widget: args.widget.clone(),
        },
        (_, true, _) => Change::Undo,
        (_, _, true) => Change::Clear,
        _ => bail!(
            "say what to change, e.g. mcp-gen-ui refine {} \"line chart\" (or use --undo / --clear)",
            shell_words::quote(&args.tool)
        ),
    })
}

/// `refine`'s output record.
pub struct RefineOutput<'a> {
    r: &'a Refined,
    /// `--html`: the full unified diff.
    full_html: bool,
    /// `--visual`.
    pictures: Option<Pictures>,
}

impl Serialize for RefineOutput<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self.r;
        let files: Vec<FileDiff> = r
            .files
            .iter()
            .map(|(path, before, after)| FileDiff {
                path,
                status: None,
                before: before.as_deref().unwrap_or(""),
                after,
                full: self.full_html,
            })
            .collect();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tool", &r.tool)?;
        m.serialize_entry("history", &r.history)?;
        m.serialize_entry("changes", &r.changes)?;
        m.serialize_entry("files", &files)?;
        m.serialize_entry("failed", &r.failed)?;
        m.serialize_entry(
            "pictures",
            &self.pictures.as_ref().map_or(&[][..], |p| &p.pages),
        )?;
        m.end()
    }
}

impl Render for RefineOutput<'_> {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        print_changes(p, &self.r.changes)?;
        for (path, before, after) in &self.r.files {
            let diff = file_diff(
                p,
                self.full_html,
                before.as_deref().unwrap_or(""),
                after,
                path,
            );
            if !diff.is_empty() {
                p.out(diff)?;
            }
        }
        if let Some(pictures) = &self.pictures {
            pictures.text(p)?;
        }
        Ok(())
    }
}

impl RefineOutput<'_> {
    /// What is said on stderr whatever the format: unreadable feedback, tools left without a new
    /// page, and the one-line summary.
    fn notes(&self, p: &Printer) {
        let r = self.r;
        let name = report::display_name(&r.tool);
        if let Some(e) = &r.unreadable {
            // Two lines, each under the 400 characters of the review output (book: reference/review.md).
            p.warn(format!(
                "{}: it is kept in the history and the llm generator will read it (`mcp-gen-ui refine {} ... --generator llm`).",
                crate::review::clean(e, 160),
                crate::review::clean(&shell_words::quote(&r.tool), 80)
            ));
            p.warn(
                "The builtin generator understands phrases such as \"line chart\", \"bar chart of revenue by month\", \"table\", \"cards\", \"dark theme\", \"compact\", \"hide field x\", \"rename x to y\", \"sort by date descending\"",
            );
        }
        for e in &r.failed {
            p.error(format!("no new page for tool `{name}`: {e}"));
        }
        if let Some(l) = &r.llm {
            for f in &l.fallbacks {
                p.warn(format!(
                    "tool `{name}`: the LLM's page was replaced by the builtin UI ({f})"
                ));
            }
            for w in l.warnings.iter().filter(|w| !w.starts_with(REPLACED)) {
                p.status(format!("tool `{name}`: {w}"));
            }
        }
        let changed = r.written;
        let n = r.history.len();
        p.status(format!(
            "Refined `{name}`: {n} refinement{} in the history, {changed} file{} changed.",
            if n == 1 { "" } else { "s" },
            if changed == 1 { "" } else { "s" }
        ));
    }
}
