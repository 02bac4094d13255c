//! `refine TOOL "FEEDBACK"`: append to the tool's refinement history (in the lock), regenerate
//! that tool, and print the unified diff of what changed.

use anyhow::{Context as _, bail};
use clap::Args;

use super::context::{Context, Outcome};
use crate::config::GeneratorKind;
use crate::pipeline::refine::{Change, refine};
use crate::pipeline::{self, State};
use crate::report::{self, Format, Printer};
use crate::review::Side;
use crate::review::words::changes;
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
    /// With the llm generator: call the tool (only if read-only or `sample = true`) with an example
    /// input and show the model the real result
    #[arg(long)]
    pub sample: bool,
    #[command(flatten)]
    pub review: super::diff::ReviewArgs,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `refine`. Feedback the builtin generator cannot read is kept and reported (success).
pub fn run(ctx: &Context, args: &RefineArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let change = match (&args.feedback, args.undo, args.clear) {
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
    };
    let cfg = ctx.config()?;
    // Looked for before anything is done, so that a missing browser writes nothing.
    let visual = args.review.visual_setup(&cfg.out_dir)?;
    let generator = pipeline::load_generator(&cfg, args.generator, None)?;
    let discovery = super::discover(ctx, &cfg)?;
    let _run_lock = RunLock::acquire(&cfg.out_dir)?;
    write::clean_temp_files(&cfg.out_dir);
    let state = State::read(&cfg)?;
    let before_side = Side::new(
        state.lock.clone(),
        state.snapshot.as_deref().unwrap_or(&[]),
        |p| std::fs::read_to_string(cfg.out_dir.join(p)).ok(),
    );
    let samples = if args.sample && generator.llm.is_some() {
        super::collect_samples(ctx, &cfg, &discovery.tools, &[args.tool.as_str()])?
    } else {
        Default::default()
    };
    let rt = ctx.runtime()?;
    let r = refine(
        &cfg,
        &generator,
        &discovery,
        &state,
        &args.tool,
        &change,
        samples,
        rt.handle(),
    )?;
    let new_files: Vec<(String, String)> = r
        .batch
        .update
        .files
        .iter()
        .map(|(p, b)| (p.clone(), String::from_utf8_lossy(b).into_owned()))
        .collect();
    let failed: Vec<String> = r
        .batch
        .failed()
        .map(|row| row.error.clone().unwrap_or_default())
        .collect();
    let after_side = before_side.overlaid(
        Some(r.batch.lock.clone()),
        &discovery.tools,
        &r.batch.update.files,
        &r.batch.update.remove,
    );
    let words = changes(&before_side, &after_side, std::slice::from_ref(&args.tool));
    if !r.batch.nothing_to_do {
        write::apply(&cfg.out_dir, r.batch.update, &r.batch.lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }

    let p = &ctx.printer;
    let name = report::display_name(&args.tool);
    let plain = Printer {
        color: false,
        ..p.clone()
    };
    let mut files = Vec::new();
    for (path, before) in &r.before {
        let Some((_, after)) = new_files.iter().find(|(np, _)| np == path) else {
            continue;
        };
        let before = before.as_deref().unwrap_or("");
        let printer = if args.format == Format::Json {
            &plain
        } else {
            p
        };
        files.push((
            path.clone(),
            super::diff::file_diff(printer, args.review.html, before, after, path),
        ));
    }
    let pictured: Vec<(String, Option<String>, Option<String>)> = r
        .before
        .iter()
        .filter_map(|(path, before)| {
            let after = new_files.iter().find(|(np, _)| np == path)?;
            Some((path.clone(), before.clone(), Some(after.1.clone())))
        })
        .collect();
    let text = args.format == Format::Text;
    let mut shots = Vec::new();
    if let Some((browser, review)) = &visual
        && !text
    {
        shots = super::diff::pictures(
            p,
            review,
            browser,
            &before_side,
            &after_side,
            &pictured,
            false,
        )?;
    }
    if args.format == Format::Json {
        let files: Vec<serde_json::Value> = files
            .iter()
            .map(|(path, diff)| serde_json::json!({"path": path, "diff": diff}))
            .collect();
        p.json(&serde_json::json!({
            "tool": args.tool,
            "history": r.history,
            "changes": words,
            "files": files,
            "failed": failed,
            "pictures": shots,
        }))?;
    } else {
        super::diff::print_changes(p, &words)?;
        for (_, diff) in &files {
            if !diff.is_empty() {
                p.out(diff)?;
            }
        }
        if let Some((browser, review)) = &visual {
            super::diff::pictures(
                p,
                review,
                browser,
                &before_side,
                &after_side,
                &pictured,
                true,
            )?;
        }
    }
    if let Some(e) = &r.unreadable {
        // Two lines, each under the 400 characters of the review output (SPEC 14).
        p.warn(format!(
            "{}: it is kept in the history and the llm generator will read it (`mcp-gen-ui refine {} ... --generator llm`).",
            crate::review::clean(e, 160),
            crate::review::clean(&shell_words::quote(&args.tool), 80)
        ));
        p.warn(
            "The builtin generator understands phrases such as \"line chart\", \"bar chart of revenue by month\", \"table\", \"cards\", \"dark theme\", \"compact\", \"hide field x\", \"rename x to y\", \"sort by date descending\"",
        );
    }
    for e in &failed {
        p.error(format!("no new page for tool `{name}`: {e}"));
    }
    let changed = new_files.len();
    let n = r.history.len();
    p.status(format!(
        "Refined `{name}`: {n} refinement{} in the history, {changed} file{} changed.",
        if n == 1 { "" } else { "s" },
        if changed == 1 { "" } else { "s" }
    ));
    Ok(Outcome::findings_if(!failed.is_empty()))
}
