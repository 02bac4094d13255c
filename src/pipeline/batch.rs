//! The batch: what `generate` would write now — per tool rendered, validated and compared with
//! the committed state — without writing it. `generate` writes it, `diff` shows it, `refine`
//! writes it for one tool with a new history.
//!
//! Two steps per tool: [`decide`] says from the plan alone what happens to it (a pure function,
//! table-tested below), then the apply step renders what must be rendered and assembles the new
//! lock entry, the file changes and the summary row. A tool whose page cannot be produced keeps
//! its previous page and lock entry and is reported as failed; every other tool is still written.

use std::collections::BTreeMap;

use anyhow::{Context as _, bail};
use serde::Serialize;

use super::State;
use super::progress::Progress;
use super::unknown::UnknownTool;
use crate::config::Config;
use crate::discover::Discovery;
use crate::generate::{Generator, UiType, WidgetRequest, builtin};
use crate::lock::{LOCK_VERSION, Lock, ToolEntry, WidgetEntry, snapshot_json};
use crate::model::{Tool, server_slug, sha256_hex};
use crate::plan::{Plan, StaleReason, Status, ToolPlan};
use crate::report;
use crate::validate;
use crate::write::Update;

/// What happened (or would happen) to one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    Generated,
    Regenerated,
    Unchanged,
    /// Edited by hand and left alone.
    Kept,
    Pinned,
    Adopted,
    Removed,
    /// No new page could be produced: the previous page and lock entry stay (book: reference/generate.md).
    Failed,
}

impl Action {
    pub fn label(self) -> &'static str {
        match self {
            Action::Generated => "generated",
            Action::Regenerated => "regenerated",
            Action::Unchanged => "unchanged",
            Action::Kept => "kept (edited)",
            Action::Pinned => "pinned",
            Action::Adopted => "adopted",
            Action::Removed => "removed",
            Action::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub tool: String,
    pub action: Action,
    pub status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<StaleReason>,
    pub files: Vec<String>,
    pub bytes: u64,
    /// Refinements dropped with a removed tool (git keeps them).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_refinements: usize,
    /// Why no new page could be produced (`Action::Failed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Tokens, time and fallbacks of the llm generator (never in the lock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmStats>,
}

/// What the llm generator spent on one tool.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LlmStats {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub elapsed_ms: u64,
    pub calls: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Where the pages that would be written go while the batch is computed.
#[derive(Debug, Clone, Copy, Default)]
pub enum FileSink<'a> {
    /// Kept in memory (`diff` shows them, `refine` diffs one tool's).
    #[default]
    Memory,
    /// Staged as temporary files in this output directory as they are rendered, so memory does
    /// not grow with the number of pages (`generate`; committed by `write::apply`).
    Stage(&'a std::path::Path),
    /// Dropped: only the paths are kept (`generate --dry-run`).
    Discard,
}

/// Which tools, and how.
#[derive(Debug, Default)]
pub struct BatchOptions<'a> {
    /// Only these tools (empty: all).
    pub tools: &'a [String],
    pub force: bool,
    pub adopt: &'a [String],
    /// A new refinement history for one tool (`refine`).
    pub history: Option<(String, Vec<String>)>,
    /// Real results of read-only tools (`--sample`), shown to the llm generator.
    pub samples: BTreeMap<String, serde_json::Value>,
    pub files: FileSink<'a>,
}

impl BatchOptions<'_> {
    fn selected(&self, name: &str) -> bool {
        self.tools.is_empty() || self.tools.iter().any(|t| t == name)
    }

    fn refining(&self, name: &str) -> bool {
        self.history.as_ref().is_some_and(|(n, _)| n == name)
    }

    /// What the batch was asked to do with one tool, for [`decide`].
    fn ask(&self, name: &str, revalidate: bool) -> Ask {
        Ask {
            selected: self.selected(name),
            adopt: self.adopt.iter().any(|a| a == name),
            force: self.force,
            refining: self.refining(name),
            revalidate,
        }
    }
}

/// The computed outcome: the new lock and the file changes that lead to it.
#[derive(Debug)]
pub struct Batch {
    pub lock: Lock,
    pub update: Update,
    pub rows: Vec<Row>,
    /// Nothing would change on disk.
    pub nothing_to_do: bool,
    pub plan: Plan,
}

impl Batch {
    /// Tools that were left without a new page (their previous page and lock entry stay).
    pub fn failed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.action == Action::Failed)
    }
}

/// What the batch was asked to do with one tool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ask {
    /// Named on the command line (or no tool was named).
    pub selected: bool,
    /// `--adopt TOOL`.
    pub adopt: bool,
    /// `--force`.
    pub force: bool,
    /// `refine` gave this tool a new history.
    pub refining: bool,
    /// The validator changed since the lock was written: fresh files are rendered and checked again.
    pub revalidate: bool,
}

/// What happens to one tool, decided from its plan alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Its entry stays as it is, and nothing is said about it.
    Keep,
    /// Its files go (gone upstream, disabled, or the upstream ships its own UI).
    Remove,
    /// The hand edit is accepted and pinned.
    Adopt,
    /// Pinned to a hand edit: left alone, and said so.
    KeepPinned,
    /// Rendered now (or taken from the llm generator), then compared with what is on disk.
    Render,
}

/// Decides what happens to one tool (see [`Decision`]).
pub fn decide(tp: &ToolPlan, ask: Ask) -> Decision {
    let removing = matches!(
        tp.status,
        Status::Removed | Status::Disabled | Status::UpstreamUi
    );
    if removing {
        // A tool that is gone takes its files with it, whichever tools were named.
        return if ask.selected || tp.entry.is_some() || !tp.obsolete_files.is_empty() {
            Decision::Remove
        } else {
            Decision::Keep
        };
    }
    if !ask.selected || tp.tool.is_none() {
        return Decision::Keep;
    }
    if ask.adopt {
        return Decision::Adopt;
    }
    if tp.status == Status::Pinned && !ask.force {
        return Decision::KeepPinned;
    }
    // A fresh tool's bytes are already what this generator writes (its output is a function of
    // what the plan compared), so a no-op run renders nothing — unless the validator changed,
    // when every file is rendered and validated again once.
    if tp.status == Status::Fresh && !ask.force && !ask.refining && !ask.revalidate {
        return Decision::Keep;
    }
    Decision::Render
}

/// Whether the llm generator must be asked for this tool's pages: a fresh page is never
/// regenerated just to be compared, and a hand edit is only overwritten with `--force`.
fn wants_llm(tp: &ToolPlan, ask: Ask) -> bool {
    decide(tp, ask) == Decision::Render
        && (!matches!(tp.status, Status::Pinned | Status::Edited) || ask.force)
        && (tp.needs_generation() || ask.force || ask.refining)
}

/// Computes the batch from `plan` (planned against `discovery`'s tools with this generator's
/// fingerprint). Nothing is written. `rt` runs the llm generator's requests.
#[allow(clippy::too_many_arguments)]
pub fn build(
    cfg: &Config,
    generator: &Generator,
    discovery: &Discovery,
    state: &State,
    plan: Plan,
    opts: &BatchOptions<'_>,
    progress: &dyn Progress,
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<Batch> {
    let fingerprint = generator.fingerprint();
    let known = plan.tools.iter().map(|t| t.name.as_str());
    for name in opts.tools.iter().chain(opts.adopt.iter()) {
        UnknownTool::check(name, true, known.clone())?;
    }
    let server_name = cfg
        .file
        .server_name
        .clone()
        .map(|s| server_slug(&s))
        .unwrap_or_else(|| server_slug(&discovery.server_name));
    let revalidate = state
        .lock
        .as_ref()
        .is_some_and(|l| l.validator_version != validate::VALIDATOR_VERSION);
    let ctx = ApplyContext {
        cfg,
        generator,
        opts,
        state,
        committed: state
            .snapshot
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|t| (t.name.as_str(), t))
            .collect(),
        fingerprint: &fingerprint,
        server_name: &server_name,
        template_version: generator.template_version(),
    };

    progress.start(plan.tools.len());
    // The llm generator is slow and not deterministic: it runs only for tools that need it, all
    // at once (bounded by `jobs`), before the per-tool steps below.
    let mut llm_results = match &generator.llm {
        Some(llm) => {
            let wanted: Vec<&ToolPlan> = plan
                .tools
                .iter()
                .filter(|tp| wants_llm(tp, opts.ask(&tp.name, revalidate)))
                .collect();
            if let Some(note) = llm.browser_note().filter(|_| !wanted.is_empty()) {
                progress.note(&note);
            }
            run_llm(&ctx, llm, &wanted, rt)?
        }
        None => BTreeMap::new(),
    };

    let mut out = Assembly::default();
    // `plan` is moved into the batch at the end; the assembly only borrows its tools until then.
    let plan_ref = &plan;
    for tp in &plan_ref.tools {
        progress.tool_started(&tp.name);
        let ask = opts.ask(&tp.name, revalidate);
        match decide(tp, ask) {
            Decision::Keep => out.keep(&ctx, tp),
            Decision::Remove => {
                out.update.remove.extend(tp.obsolete_files.iter().cloned());
                out.rows
                    .push(row(tp, Action::Removed, tp.obsolete_files.clone(), 0));
            }
            Decision::KeepPinned => {
                out.keep(&ctx, tp);
                out.rows.push(row(tp, Action::Pinned, Vec::new(), 0));
            }
            Decision::Adopt => out.adopt(&ctx, tp)?,
            Decision::Render => {
                warn_unchecked(tp, progress);
                out.render(&ctx, tp, &mut llm_results)?
            }
        }
    }
    progress.finish();
    let (lock, update, rows, nothing_to_do) = out.finish(&ctx);
    Ok(Batch {
        lock,
        update,
        rows,
        nothing_to_do,
        plan,
    })
}

/// What the tool's page cannot check before a call (book: reference/pages.md, "What a page
/// checks before a call"): named, never passed over silently.
fn warn_unchecked(tp: &ToolPlan, progress: &dyn Progress) {
    let Some(schema) = tp.tool.as_ref().and_then(|t| t.input_schema()) else {
        return;
    };
    for what in builtin::unchecked(schema) {
        progress.warn(&format!(
            "tool `{}`: its page cannot check {what} before a call; only the server checks it",
            tp.name
        ));
    }
}

/// What every per-tool step reads.
struct ApplyContext<'a> {
    cfg: &'a Config,
    generator: &'a Generator,
    opts: &'a BatchOptions<'a>,
    state: &'a State,
    /// The committed snapshot by tool name.
    committed: BTreeMap<&'a str, &'a Tool>,
    fingerprint: &'a str,
    server_name: &'a str,
    template_version: String,
}

impl ApplyContext<'_> {
    /// The URI of a page written to `path` with these bytes.
    fn page_uri(&self, path: &str, bytes: &[u8]) -> String {
        let sha = sha256_hex(bytes);
        crate::model::page_uri(self.server_name, path, &sha, self.cfg.file.stable_uris)
    }

    fn refinements_for(&self, tp: &ToolPlan) -> Vec<String> {
        match &self.opts.history {
            Some((name, h)) if name == &tp.name => h.clone(),
            _ => tp
                .entry
                .as_ref()
                .map(|e| e.refinements.clone())
                .unwrap_or_default(),
        }
    }
}

/// The new lock, snapshot, file changes and rows, assembled tool by tool. The snapshot borrows
/// the definitions (thousands of large schemas are not copied), and is serialised only when it
/// differs from the committed one: a no-op run neither copies nor writes it.
#[derive(Default)]
struct Assembly<'a> {
    tools: BTreeMap<String, ToolEntry>,
    snapshot: BTreeMap<&'a str, &'a Tool>,
    /// Some definition differs from the committed snapshot.
    snapshot_dirty: bool,
    update: Update,
    rows: Vec<Row>,
}

impl<'a> Assembly<'a> {
    /// Records `tool` as the definition the tool's pages are generated from.
    fn snapshot(&mut self, ctx: &ApplyContext<'a>, tool: &'a Tool) {
        if ctx.committed.get(tool.name.as_str()) != Some(&tool) {
            self.snapshot_dirty = true;
        }
        self.snapshot.insert(&tool.name, tool);
    }

    /// The tool's lock entry and snapshot definition stay as they were.
    fn keep(&mut self, ctx: &ApplyContext<'a>, tp: &'a ToolPlan) {
        let Some(e) = &tp.entry else { return };
        let mut e = e.clone();
        let old_lock = ctx.state.lock.as_ref();
        if e.fingerprint.is_none()
            && let Some(l) = old_lock
        {
            e.fingerprint = Some(l.fingerprint.clone());
        }
        if e.fingerprint.as_deref() == Some(ctx.fingerprint) {
            e.fingerprint = None;
        }
        self.tools.insert(tp.name.clone(), e);
        let committed = ctx.committed.get(tp.name.as_str()).copied();
        if let Some(t) = committed.or(tp.tool.as_ref()) {
            self.snapshot(ctx, t);
        }
    }

    /// `--adopt`: the current bytes of an edited file are recorded as pinned.
    fn adopt(&mut self, ctx: &ApplyContext<'a>, tp: &'a ToolPlan) -> anyhow::Result<()> {
        let Some(tool) = &tp.tool else { return Ok(()) };
        let Some(mut entry) = tp.entry.clone() else {
            bail!(
                "cannot adopt `{}`: it has never been generated; run `mcp-gen-ui generate` first",
                report::display_name(&tp.name)
            );
        };
        for w in &mut entry.widgets {
            let path = ctx.cfg.out_dir.join(&w.path);
            let bytes = std::fs::read(&path).with_context(|| {
                format!(
                    "cannot adopt `{}`: reading {}",
                    report::display_name(&tp.name),
                    path.display()
                )
            })?;
            w.sha256 = sha256_hex(&bytes);
        }
        entry.pinned = true;
        // The edit is accepted for the tool as it is now: no drift to report until it changes.
        entry.tool_hash = tool.tool_hash();
        entry.config_hash = tp.config_hash.clone();
        entry.fingerprint = None;
        let files = entry.widgets.iter().map(|w| w.path.clone()).collect();
        self.tools.insert(tp.name.clone(), entry);
        self.snapshot(ctx, tool);
        self.rows.push(row(tp, Action::Adopted, files, 0));
        Ok(())
    }

    /// A tool to render: its pages come from the llm generator's results (computed before) or
    /// the builtin generator now; a tool whose pages cannot be produced fails alone.
    fn render(
        &mut self,
        ctx: &ApplyContext<'a>,
        tp: &'a ToolPlan,
        llm_results: &mut LlmResults,
    ) -> anyhow::Result<()> {
        let rendered = if ctx.generator.llm.is_some() {
            match llm_results.remove(&tp.name) {
                Some(Ok((pages, stats))) => Ok((pages, Some(stats))),
                Some(Err(e)) => Err(e),
                // Edited and not forced: nothing new to compare, so it is kept by `apply`.
                None if tp.status == Status::Edited => Ok((Vec::new(), None)),
                // Fresh: an llm page is never regenerated just to compare it.
                None => {
                    self.keep(ctx, tp);
                    return Ok(());
                }
            }
        } else {
            render_tool(ctx, tp).map(|pages| (pages, None))
        };
        match rendered {
            Ok((pages, stats)) => self.apply(ctx, tp, pages, stats),
            Err(e) => {
                self.fail(ctx, tp, &e);
                Ok(())
            }
        }
    }

    /// No tool can break a run (book: reference/generate.md): a tool whose pages could not be produced keeps its previous page and lock entry;
    /// the run goes on and ends with exit 1, naming it.
    fn fail(&mut self, ctx: &ApplyContext<'a>, tp: &'a ToolPlan, e: &anyhow::Error) {
        self.keep(ctx, tp);
        // The snapshot records the definition it failed on, so that `check` (offline, against
        // the snapshot) reports the tool stale until a run succeeds.
        if let Some(t) = &tp.tool {
            self.snapshot(ctx, t);
        }
        let mut r = row(
            tp,
            Action::Failed,
            tp.widgets.iter().map(|w| w.path.clone()).collect(),
            0,
        );
        r.error = Some(report::error_chain(e));
        self.rows.push(r);
    }

    /// A rendered tool: kept when it overwrites a hand edit without `--force`, else written
    /// where its bytes differ from the disk.
    fn apply(
        &mut self,
        ctx: &ApplyContext<'a>,
        tp: &'a ToolPlan,
        pages: Rendered,
        llm: Option<LlmStats>,
    ) -> anyhow::Result<()> {
        let Some(tool) = &tp.tool else { return Ok(()) };
        let on_disk = |w: &WidgetEntry| std::fs::read(ctx.cfg.out_dir.join(&w.path)).ok();
        let on_disk_equal =
            !pages.is_empty() && pages.iter().all(|(w, b)| on_disk(w).as_ref() == Some(b));
        if tp.status == Status::Edited && !ctx.opts.force && !on_disk_equal {
            // A file equal to what we would write now is never "edited"; anything else is.
            self.keep(ctx, tp);
            self.rows.push(row(
                tp,
                Action::Kept,
                tp.widgets.iter().map(|w| w.path.clone()).collect(),
                0,
            ));
            return Ok(());
        }
        let refinements = ctx.refinements_for(tp);
        let entry = ToolEntry {
            tool_hash: tool.tool_hash(),
            config_hash: crate::plan::config_hash(&tp.tool_config, &refinements),
            refinements,
            fingerprint: None,
            pinned: false,
            widgets: pages.iter().map(|(w, _)| w.clone()).collect(),
        };
        let bytes: u64 = pages.iter().map(|(_, b)| b.len() as u64).sum();
        let changed: Vec<(WidgetEntry, Vec<u8>)> = pages
            .into_iter()
            .filter(|(w, b)| on_disk(w).as_ref() != Some(b))
            .collect();
        // A URI that changed with a setting alone (`stable_uris`, or a lock written before
        // URIs carried a version) is not a regenerated page: `finish` rewrites the lock.
        let same_entry = tp.entry.as_ref().is_some_and(|old| {
            let mut old = old.clone();
            for (o, n) in old.widgets.iter_mut().zip(&entry.widgets) {
                o.uri.clone_from(&n.uri);
            }
            old == entry
        });
        let action = if same_entry && changed.is_empty() {
            Action::Unchanged
        } else if tp.entry.is_none() {
            Action::Generated
        } else {
            Action::Regenerated
        };
        for (w, b) in changed {
            match ctx.opts.files {
                FileSink::Memory => self.update.files.push((w.path, b)),
                FileSink::Stage(dir) => {
                    let staged = crate::write::stage(&dir.join(&w.path), &b)?;
                    self.update.staged.push((w.path, staged));
                }
                FileSink::Discard => self.update.discarded.push(w.path),
            }
        }
        self.update.remove.extend(tp.obsolete_files.iter().cloned());
        if action != Action::Unchanged || ctx.opts.force || llm.is_some() {
            let files = entry.widgets.iter().map(|w| w.path.clone()).collect();
            let mut r = row(tp, action, files, bytes);
            r.llm = llm;
            self.rows.push(r);
        }
        self.tools.insert(tp.name.clone(), entry);
        self.snapshot(ctx, tool);
        Ok(())
    }

    /// The new lock, the file changes (with the snapshot when it changed), the rows, and
    /// whether anything would change on disk.
    fn finish(mut self, ctx: &ApplyContext<'_>) -> (Lock, Update, Vec<Row>, bool) {
        let mut lock = Lock {
            version: LOCK_VERSION,
            generator: ctx.generator.id(),
            fingerprint: ctx.fingerprint.to_string(),
            validator_version: validate::VALIDATOR_VERSION,
            server_name: ctx.server_name.to_string(),
            tools: self.tools,
        };
        // A setting that changes URIs (`stable_uris`, `server_name`) changes the lock alone.
        lock.fill_uris(ctx.cfg.file.stable_uris);
        let lock_changed = ctx.state.lock.as_ref() != Some(&lock);
        let same_tools = ctx.state.snapshot.is_some()
            && self.snapshot.len() == ctx.committed.len()
            && self.snapshot.keys().all(|k| ctx.committed.contains_key(k));
        let snapshot_file = ctx.cfg.out_dir.join(crate::model::TOOLS_FILE);
        let snapshot_changed = if self.snapshot_dirty || !same_tools || !snapshot_file.is_file() {
            let tools: Vec<&Tool> = self.snapshot.into_values().collect();
            let bytes = snapshot_json(&tools);
            let changed = std::fs::read(&snapshot_file).map_or(true, |b| b != bytes);
            self.update.tools_json = Some(bytes);
            changed
        } else {
            false
        };
        let nothing_to_do = self.update.writes_no_file()
            && !lock_changed
            && !snapshot_changed
            && ctx.state.pending.is_none();
        (lock, self.update, self.rows, nothing_to_do)
    }
}

fn row(tp: &ToolPlan, action: Action, files: Vec<String>, bytes: u64) -> Row {
    let reasons = match &tp.status {
        Status::Stale(r) => r.clone(),
        _ => Vec::new(),
    };
    let dropped_refinements = if action == Action::Removed {
        tp.entry.as_ref().map_or(0, |e| e.refinements.len())
    } else {
        0
    };
    Row {
        tool: tp.name.clone(),
        action,
        status: tp.status.label().to_string(),
        reasons,
        files,
        bytes,
        dropped_refinements,
        error: None,
        llm: None,
    }
}

/// A tool's pages: each widget's lock entry and bytes.
type Rendered = Vec<(WidgetEntry, Vec<u8>)>;

/// Per tool: its pages and what they cost, or why it got none.
type LlmResults = BTreeMap<String, anyhow::Result<(Rendered, LlmStats)>>;

/// Runs the llm generator for every widget of `tools`.
fn run_llm(
    ctx: &ApplyContext<'_>,
    llm: &crate::generate::llm::LlmGenerator,
    tools: &[&ToolPlan],
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<LlmResults> {
    use crate::generate::llm::LlmRequest;
    let mut reqs = Vec::new();
    let mut owners = Vec::new();
    for tp in tools {
        let Some(tool) = &tp.tool else { continue };
        let refinements = ctx.refinements_for(tp);
        let refining = ctx.opts.refining(&tp.name);
        for w in &tp.widgets {
            // When refining an llm page, the model edits it rather than starting over.
            let current_page = tp
                .entry
                .as_ref()
                .and_then(|e| e.widgets.iter().find(|ew| ew.path == w.path))
                .filter(|ew| {
                    refining && ew.generator.starts_with("llm:") && ew.fallback_reason.is_none()
                })
                .and_then(|ew| std::fs::read_to_string(ctx.cfg.out_dir.join(&ew.path)).ok());
            reqs.push(LlmRequest {
                tool: tool.clone(),
                tool_config: tp.tool_config.clone(),
                widget: w.widget_name.clone(),
                hints: crate::generate::phrases::effective_hints(
                    &w.hints,
                    &refinements,
                    w.widget_name.as_deref(),
                ),
                refinements: refinements.clone(),
                server_name: ctx.server_name.to_string(),
                sample: ctx.opts.samples.get(&tp.name).cloned(),
                current_page,
            });
            owners.push((tp.name.clone(), w.clone()));
        }
    }
    if reqs.is_empty() {
        return Ok(BTreeMap::new());
    }
    let outcomes = rt.block_on(llm.generate_many(reqs, &ctx.generator.templates));
    let mut out: LlmResults = BTreeMap::new();
    for ((name, w), outcome) in owners.into_iter().zip(outcomes) {
        let o = match outcome {
            Ok(o) => o,
            Err(e) if e.aborts_run() => return Err(e.into()),
            Err(e) => {
                out.insert(name, Err(e.into()));
                continue;
            }
        };
        let slot = out
            .entry(name)
            .or_insert_with(|| Ok((Vec::new(), LlmStats::default())));
        // One failed widget leaves the whole tool without new pages.
        let Ok((pages, s)) = slot else { continue };
        // Lone surrogates from the upstream (kept encoded in memory, see `crate::json`) show as
        // U+FFFD in pages.
        let bytes = crate::json::display_lossy(&o.html)
            .into_owned()
            .into_bytes();
        pages.push((
            WidgetEntry {
                name: w.name.clone(),
                path: w.path.clone(),
                uri: ctx.page_uri(&w.path, &bytes),
                sha256: sha256_hex(&bytes),
                generator: ctx.generator.id(),
                prompt_version: ctx.generator.prompt_version(),
                template_version: ctx.template_version.clone(),
                ui_type: o.ui_type.as_str().to_string(),
                default: w.default,
                fallback_reason: o.fallback_reason.clone(),
                fallback_transient: o.fallback_reason.is_some() && o.transient,
            },
            bytes,
        ));
        s.input_tokens += o.usage.input_tokens;
        s.output_tokens += o.usage.output_tokens;
        s.elapsed_ms += u64::try_from(o.elapsed.as_millis()).unwrap_or(u64::MAX);
        s.calls += o.calls;
        if let Some(r) = o.fallback_reason {
            s.fallbacks.push(format!("{}: {r}", w.path));
        }
        s.warnings.extend(o.warnings);
    }
    Ok(out)
}

/// Renders and validates every widget of a tool with the builtin generator.
fn render_tool(ctx: &ApplyContext<'_>, tp: &ToolPlan) -> anyhow::Result<Rendered> {
    let Some(tool) = &tp.tool else {
        return Ok(Vec::new());
    };
    let refinements = ctx.refinements_for(tp);
    let mut out = Vec::new();
    for w in &tp.widgets {
        let mut hints = crate::generate::phrases::effective_hints(
            &w.hints,
            &refinements,
            w.widget_name.as_deref(),
        );
        hints.max_file_bytes = hints
            .max_file_bytes
            .or(ctx.cfg.file.generate.max_file_bytes);
        let req = WidgetRequest {
            tool,
            tool_config: &tp.tool_config,
            widget: w.widget_name.as_deref(),
            hints,
            refinements: &refinements,
            server_name: ctx.server_name,
        };
        let html = builtin::render(&req, &ctx.generator.templates)?;
        let html = crate::json::display_lossy(&html).into_owned();
        let findings =
            validate::validate(&html, &super::validate_options(ctx.cfg, &tp.name, false));
        if validate::has_errors(&findings) {
            let first = findings
                .iter()
                .filter(|f| f.severity == validate::Severity::Error)
                .map(|f| format!("{} ({})", f.message, f.rule))
                .collect::<Vec<_>>()
                .join("; ");
            let only_size = findings
                .iter()
                .filter(|f| f.severity == validate::Severity::Error)
                .all(|f| f.rule == "file-too-large");
            if only_size {
                // Not a bug: the definition itself (enums, names, schema structure, which are
                // kept exactly) is too large for one page even with its prose left out.
                bail!(
                    "the tool's definition is too large for a page: {first}, even with its \
                     descriptions left out; shorten its schema (e.g. fewer enum values)"
                );
            }
            bail!(
                "the builtin page of `{}` fails validation: {first}. This is a bug in mcp-gen-ui \
                 (or in a templates_dir override); please report it with the tool's definition",
                w.path
            );
        }
        let bytes = html.into_bytes();
        out.push((
            WidgetEntry {
                name: w.name.clone(),
                path: w.path.clone(),
                uri: ctx.page_uri(&w.path, &bytes),
                sha256: sha256_hex(&bytes),
                generator: ctx.generator.id(),
                prompt_version: String::new(),
                template_version: ctx.template_version.clone(),
                ui_type: UiType::Minimal.as_str().to_string(),
                default: w.default,
                fallback_reason: None,
                fallback_transient: false,
            },
            bytes,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolConfig;

    fn plan_with(status: Status, entry: bool, tool: bool) -> ToolPlan {
        ToolPlan {
            name: "t".into(),
            status,
            widgets: Vec::new(),
            obsolete_files: Vec::new(),
            tool: tool.then(|| Tool::from_raw(serde_json::json!({"name": "t"})).unwrap()),
            entry: entry.then(|| ToolEntry {
                tool_hash: String::new(),
                config_hash: String::new(),
                refinements: Vec::new(),
                fingerprint: None,
                pinned: false,
                widgets: Vec::new(),
            }),
            config_hash: String::new(),
            tool_config: ToolConfig::default(),
            files: Vec::new(),
        }
    }

    const ALL: Ask = Ask {
        selected: true,
        adopt: false,
        force: false,
        refining: false,
        revalidate: false,
    };

    #[test]
    fn what_happens_to_each_kind_of_tool() {
        use Decision::*;
        let stale = Status::Stale(vec![StaleReason::ToolChanged]);
        let force = Ask { force: true, ..ALL };
        let refine = Ask {
            refining: true,
            ..ALL
        };
        let revalidate = Ask {
            revalidate: true,
            ..ALL
        };
        let unselected = Ask {
            selected: false,
            ..ALL
        };
        let adopt = Ask { adopt: true, ..ALL };
        // (status, has lock entry, known definition, ask) → decision
        let table: Vec<(Status, bool, bool, Ask, Decision)> = vec![
            (Status::New, false, true, ALL, Render),
            (stale.clone(), true, true, ALL, Render),
            (Status::Missing, true, true, ALL, Render),
            (Status::Edited, true, true, ALL, Render),
            (Status::Fresh, true, true, ALL, Keep),
            (Status::Fresh, true, true, force, Render),
            (Status::Fresh, true, true, refine, Render),
            (Status::Fresh, true, true, revalidate, Render),
            (Status::Pinned, true, true, ALL, KeepPinned),
            (Status::Pinned, true, true, force, Render),
            (Status::Edited, true, true, adopt, Adopt),
            (stale.clone(), true, true, unselected, Keep),
            (Status::Removed, true, false, ALL, Remove),
            (Status::Removed, true, false, unselected, Remove),
            (Status::Disabled, false, true, unselected, Keep),
            (Status::UpstreamUi, true, true, ALL, Remove),
            (stale, true, false, ALL, Keep),
        ];
        for (status, entry, tool, ask, want) in table {
            let tp = plan_with(status.clone(), entry, tool);
            assert_eq!(
                decide(&tp, ask),
                want,
                "{status:?} entry={entry} tool={tool} {ask:?}"
            );
        }
    }

    #[test]
    fn the_llm_is_asked_only_for_pages_that_need_it() {
        let fresh = plan_with(Status::Fresh, true, true);
        assert!(!wants_llm(
            &fresh,
            Ask {
                revalidate: true,
                ..ALL
            }
        ));
        assert!(wants_llm(&fresh, Ask { force: true, ..ALL }));
        let edited = plan_with(Status::Edited, true, true);
        assert!(!wants_llm(&edited, ALL));
        assert!(wants_llm(&edited, Ask { force: true, ..ALL }));
        assert!(wants_llm(&plan_with(Status::New, false, true), ALL));
    }
}
