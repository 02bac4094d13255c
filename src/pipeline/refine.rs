//! What `refine` does to one tool: checks that it has a UI that may be refined, computes its new
//! refinement history (append, undo, clear), regenerates it and writes the result.

use anyhow::{Context as _, bail};

use super::State;
use super::batch::{self, BatchOptions};
use super::generator::{load_generator, unused_llm_options};
use super::progress::{Progress, Silent};
use super::unknown::UnknownTool;
use super::upstream;
use crate::config::{Config, GeneratorKind};
use crate::generate::{Generator, phrases};
use crate::plan::{Plan, Status, ToolPlan};
use crate::report;
use crate::review::Side;
use crate::review::words::{ChangeLine, changes};
use crate::write::{self, RunLock};

/// What to do to the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Append feedback (for one widget when `widget` is set).
    Add {
        feedback: String,
        widget: Option<String>,
    },
    /// Remove the last refinement.
    Undo,
    /// Remove every refinement.
    Clear,
}

/// The history after `change`, or why it cannot be applied.
pub fn next_history(
    mut history: Vec<String>,
    change: &Change,
    tool: &str,
) -> anyhow::Result<Vec<String>> {
    match change {
        Change::Clear => history.clear(),
        Change::Undo => {
            if history.pop().is_none() {
                bail!(
                    "tool `{}` has no refinements to undo",
                    report::display_name(tool)
                );
            }
        }
        Change::Add { feedback, widget } => {
            history.push(phrases::scoped(widget.as_deref(), feedback));
        }
    }
    Ok(history)
}

/// What `refine` was asked to do, resolved from its arguments once.
#[derive(Debug, Clone)]
pub struct RefineSettings {
    pub tool: String,
    pub change: Change,
    pub generator: Option<GeneratorKind>,
    pub sample: bool,
    /// `--browser`: the browser that runs llm pages (else the usual lookup).
    pub browser: Option<std::path::PathBuf>,
}

/// What a `refine` run did: the new history, the words and the pages before and after.
pub struct Refined {
    pub tool: String,
    /// The tool's history after the change.
    pub history: Vec<String>,
    /// Why the builtin generator could not read the feedback (it is kept for an llm generator).
    pub unreadable: Option<String>,
    /// What changes for the person, in words (book: reference/review.md).
    pub changes: Vec<ChangeLine>,
    /// Each page that was written: its path, its text before (`None` when new) and after.
    pub files: Vec<(String, Option<String>, String)>,
    /// How many files the run wrote.
    pub written: usize,
    /// Why no new page could be produced (the previous page and lock entry stay).
    pub failed: Vec<String>,
    /// The llm generator's fallbacks and notes for the tool (`None` with the builtin generator).
    pub llm: Option<batch::LlmStats>,
    /// The state before and after (for `--visual`).
    pub before: Side,
    pub after: Side,
}

/// Runs `refine`: discovers, checks the tool may be refined, computes its new history, regenerates
/// it (planned once) and writes the result under the run lock.
pub fn refine(
    cfg: &Config,
    settings: &RefineSettings,
    progress: &dyn Progress,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<Refined> {
    let tool = settings.tool.as_str();
    let generator = load_generator(cfg, settings.generator, None, settings.browser.as_deref())?;
    // The review's --browser is also for --visual, so only --sample is named here.
    if let Some(note) = unused_llm_options(&generator, None, settings.sample) {
        progress.warn(&note);
    }
    let discovery = upstream::discover(cfg, progress, rt)?;
    let _run_lock = RunLock::acquire(&cfg.out_dir)?;
    write::clean_temp_files(&cfg.out_dir);
    let state = State::read(cfg)?;
    let before_side = Side::new(
        state.lock.clone(),
        state.snapshot.as_deref().unwrap_or(&[]),
        |p| std::fs::read_to_string(cfg.out_dir.join(p)).ok(),
    );
    let samples = if settings.sample && generator.llm.is_some() {
        upstream::samples(cfg, &discovery.tools, &[tool], progress, rt)?
    } else {
        Default::default()
    };
    let plan = state.plan(cfg, Some(&discovery.tools), &generator.fingerprint())?;
    let next = next_refinement(cfg, &generator, &plan, tool, &settings.change)?;
    let tools = [tool.to_string()];
    let batch = batch::build(
        cfg,
        &generator,
        &discovery,
        &state,
        plan,
        &BatchOptions {
            tools: &tools,
            force: false,
            adopt: &[],
            history: Some((tool.to_string(), next.history.clone())),
            samples,
            files: batch::FileSink::Memory,
        },
        &Silent,
        rt.handle(),
    )?;
    let written = batch.update.files.len();
    let files = next
        .before
        .into_iter()
        .filter_map(|(path, before)| {
            let (_, after) = batch.update.files.iter().find(|(p, _)| *p == path)?;
            Some((path, before, String::from_utf8_lossy(after).into_owned()))
        })
        .collect();
    let failed = batch
        .failed()
        .map(|row| row.error.clone().unwrap_or_default())
        .collect();
    let llm = batch
        .rows
        .iter()
        .find(|row| row.tool == tool)
        .and_then(|row| row.llm.clone());
    let after_side = before_side.overlaid(
        Some(batch.lock.clone()),
        &discovery.tools,
        &batch.update.files,
        &batch.update.remove,
    );
    let changes = changes(&before_side, &after_side, &tools);
    if !batch.nothing_to_do {
        write::apply(&cfg.out_dir, batch.update, &batch.lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }
    Ok(Refined {
        tool: tool.to_string(),
        history: next.history,
        unreadable: next.unreadable,
        changes,
        files,
        written,
        failed,
        llm,
        before: before_side,
        after: after_side,
    })
}

/// The tool's next history, checked against its plan, and its pages as they are now.
struct NextRefinement {
    history: Vec<String>,
    unreadable: Option<String>,
    /// Each widget's file and its text before the change (`None` when it did not exist).
    before: Vec<(String, Option<String>)>,
}

fn next_refinement(
    cfg: &Config,
    generator: &Generator,
    plan: &Plan,
    tool: &str,
    change: &Change,
) -> anyhow::Result<NextRefinement> {
    let name = report::display_name(tool);
    let Some(tp) = plan.tools.iter().find(|t| t.name == tool) else {
        let known = plan.tools.iter().map(|t| t.name.as_str());
        UnknownTool::check(tool, true, known)?;
        bail!("no tool named `{name}`");
    };
    refinable(tp)?;
    if let Change::Add {
        widget: Some(w), ..
    } = change
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
    let old = tp
        .entry
        .as_ref()
        .map(|e| e.refinements.clone())
        .unwrap_or_default();
    let history = next_history(old, change, tool)?;
    let unreadable = match change {
        Change::Add { feedback, .. } if generator.kind == GeneratorKind::Builtin => {
            phrases::interpret(feedback).err().map(|e| e.to_string())
        }
        _ => None,
    };
    let before = tp
        .widgets
        .iter()
        .map(|w| {
            (
                w.path.clone(),
                std::fs::read_to_string(cfg.out_dir.join(&w.path)).ok(),
            )
        })
        .collect();
    Ok(NextRefinement {
        history,
        unreadable,
        before,
    })
}

/// Refuses tools whose UI must not be regenerated by a refinement.
fn refinable(tp: &ToolPlan) -> anyhow::Result<()> {
    let name = report::display_name(&tp.name);
    let quoted = shell_words::quote(&tp.name);
    match tp.status {
        Status::Removed | Status::Disabled | Status::UpstreamUi => {
            bail!("tool `{name}` has no UI to refine ({})", tp.status.label())
        }
        Status::Edited => bail!(
            "{} was edited by hand: refining would overwrite the edit. Run `mcp-gen-ui generate --force {quoted}` first, or keep the edit with --adopt",
            tp.widgets
                .iter()
                .map(|w| w.path.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Status::Pinned => bail!(
            "tool `{name}` is pinned to a hand edit; `mcp-gen-ui generate --force {quoted}` unpins it"
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_changes() {
        let h = vec!["line chart".to_string()];
        let add = Change::Add {
            feedback: "hide field id".into(),
            widget: None,
        };
        assert_eq!(
            next_history(h.clone(), &add, "t").unwrap(),
            vec!["line chart", "hide field id"]
        );
        assert!(
            next_history(h.clone(), &Change::Undo, "t")
                .unwrap()
                .is_empty()
        );
        assert!(next_history(Vec::new(), &Change::Undo, "t").is_err());
        assert!(next_history(h, &Change::Clear, "t").unwrap().is_empty());
    }
}
