//! The batch: what `generate` would write now — per tool rendered, validated and compared with
//! the committed state — without writing it. `generate` writes it, `diff` shows it, `refine`
//! writes it for one tool with a new history.

use std::collections::BTreeMap;

use anyhow::{Context as _, bail};
use serde::Serialize;

use crate::commands::State;
use crate::config::Config;
use crate::discover::Discovery;
use crate::generate::{Generator, UiType, WidgetRequest, builtin};
use crate::lock::{LOCK_VERSION, Lock, ToolEntry, WidgetEntry, snapshot_json};
use crate::model::{Tool, server_slug, sha256_hex};
use crate::plan::{Plan, Status, ToolPlan};
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
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub tool: String,
    pub action: Action,
    pub status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<&'static str>,
    pub files: Vec<String>,
    pub bytes: u64,
    /// Refinements dropped with a removed tool (git keeps them).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_refinements: usize,
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
}

/// The computed outcome: the new lock and the file changes that lead to it.
#[derive(Debug)]
pub struct Batch {
    pub lock: Lock,
    pub update: Update,
    pub snapshot: Vec<u8>,
    pub rows: Vec<Row>,
    /// Nothing would change on disk.
    pub nothing_to_do: bool,
    pub plan: Plan,
}

/// Computes the batch. Nothing is written.
pub fn build(
    cfg: &Config,
    generator: &Generator,
    discovery: &Discovery,
    state: &State,
    opts: &BatchOptions<'_>,
    pb: &indicatif::ProgressBar,
) -> anyhow::Result<Batch> {
    let fingerprint = generator.fingerprint();
    let plan = crate::commands::make_plan(cfg, state, Some(&discovery.tools), &fingerprint)?;
    let known: Vec<&str> = plan.tools.iter().map(|t| t.name.as_str()).collect();
    for name in opts.tools.iter().chain(opts.adopt.iter()) {
        if !known.contains(&name.as_str()) {
            bail!(
                "no tool named `{}` upstream or in the lock; available: {}",
                report::display_name(name),
                known
                    .iter()
                    .map(|n| report::display_name(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let selected = |name: &str| opts.tools.is_empty() || opts.tools.iter().any(|t| t == name);

    let server_name = cfg
        .file
        .server_name
        .clone()
        .map(|s| server_slug(&s))
        .unwrap_or_else(|| server_slug(&discovery.server_name));
    let old_lock = state.lock.as_ref();
    let mut new_tools: BTreeMap<String, ToolEntry> = BTreeMap::new();
    let mut update = Update::default();
    let mut rows = Vec::new();
    let mut snapshot_tools: BTreeMap<String, Tool> = BTreeMap::new();
    let old_snapshot: BTreeMap<&str, &Tool> = state
        .snapshot
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    let template_version = generator.template_version();

    let refinements_for = |tp: &ToolPlan| match &opts.history {
        Some((name, h)) if name == &tp.name => h.clone(),
        _ => tp
            .entry
            .as_ref()
            .map(|e| e.refinements.clone())
            .unwrap_or_default(),
    };
    // The llm generator is slow and not deterministic: it runs only for tools that need it, all
    // at once (bounded by `jobs`), before the per-tool decisions below.
    let wants_llm = |tp: &ToolPlan| {
        selected(&tp.name)
            && tp.tool.is_some()
            && !matches!(
                tp.status,
                Status::Removed | Status::Disabled | Status::UpstreamUi
            )
            && !opts.adopt.iter().any(|a| a == &tp.name)
            && (!matches!(tp.status, Status::Pinned | Status::Edited) || opts.force)
            && (tp.needs_generation()
                || opts.force
                || opts.history.as_ref().is_some_and(|(n, _)| n == &tp.name))
    };
    let mut llm_results = match &generator.llm {
        Some(llm) => run_llm(
            cfg,
            generator,
            llm,
            &plan,
            &wants_llm,
            &refinements_for,
            opts,
            &server_name,
            &template_version,
        )?,
        None => BTreeMap::new(),
    };

    let validator_changed =
        old_lock.is_some_and(|l| l.validator_version != validate::VALIDATOR_VERSION);
    pb.set_length(plan.tools.len() as u64);
    for tp in &plan.tools {
        pb.inc(1);
        let old_entry = tp.entry.clone();
        let keep_old = |new_tools: &mut BTreeMap<String, ToolEntry>,
                        snapshot_tools: &mut BTreeMap<String, Tool>| {
            if let Some(e) = &old_entry {
                let mut e = e.clone();
                if e.fingerprint.is_none()
                    && let Some(l) = old_lock
                {
                    e.fingerprint = Some(l.fingerprint.clone());
                }
                if e.fingerprint.as_deref() == Some(fingerprint.as_str()) {
                    e.fingerprint = None;
                }
                new_tools.insert(tp.name.clone(), e);
                if let Some(t) = old_snapshot
                    .get(tp.name.as_str())
                    .copied()
                    .or(tp.tool.as_ref())
                {
                    snapshot_tools.insert(tp.name.clone(), t.clone());
                }
            }
        };

        let removing = matches!(
            tp.status,
            Status::Removed | Status::Disabled | Status::UpstreamUi
        );
        if !selected(&tp.name) && !removing {
            keep_old(&mut new_tools, &mut snapshot_tools);
            continue;
        }
        if removing {
            if !tp.obsolete_files.is_empty() || old_entry.is_some() {
                update.remove.extend(tp.obsolete_files.iter().cloned());
                rows.push(row(tp, Action::Removed, tp.obsolete_files.clone(), 0));
            }
            continue;
        }
        let Some(tool) = tp.tool.as_ref() else {
            keep_old(&mut new_tools, &mut snapshot_tools);
            continue;
        };

        if opts.adopt.iter().any(|a| a == &tp.name) {
            let mut entry = adopt(cfg, tp)?;
            // The edit is accepted for the tool as it is now: no drift to report until it changes.
            entry.tool_hash = tool.tool_hash();
            entry.config_hash = tp.config_hash.clone();
            entry.fingerprint = None;
            let files = entry.widgets.iter().map(|w| w.path.clone()).collect();
            new_tools.insert(tp.name.clone(), entry);
            snapshot_tools.insert(tp.name.clone(), tool.clone());
            rows.push(row(tp, Action::Adopted, files, 0));
            continue;
        }
        if tp.status == Status::Pinned && !opts.force {
            keep_old(&mut new_tools, &mut snapshot_tools);
            rows.push(row(tp, Action::Pinned, Vec::new(), 0));
            continue;
        }

        // A fresh tool's bytes are already what this generator writes (its output is a function
        // of what the plan compared), so a no-op run renders nothing — unless the validator
        // changed, when every file is rendered and validated again once.
        let refining = opts.history.as_ref().is_some_and(|(n, _)| n == &tp.name);
        if tp.status == Status::Fresh && !opts.force && !refining && !validator_changed {
            keep_old(&mut new_tools, &mut snapshot_tools);
            continue;
        }
        let refinements = refinements_for(tp);
        let config_hash = crate::plan::config_hash(&tp.tool_config, &refinements);
        let mut llm_stats = None;
        let rendered = if generator.llm.is_some() {
            match llm_results.remove(&tp.name) {
                Some((rendered, stats)) => {
                    llm_stats = Some(stats);
                    rendered
                }
                None if tp.status == Status::Edited => Vec::new(),
                None => {
                    // Fresh: an llm page is never regenerated just to compare it.
                    keep_old(&mut new_tools, &mut snapshot_tools);
                    continue;
                }
            }
        } else {
            render_tool(
                generator,
                cfg,
                tp,
                tool,
                &refinements,
                &server_name,
                &template_version,
            )?
        };
        let on_disk_equal = !rendered.is_empty()
            && rendered.iter().all(|(w, bytes)| {
                std::fs::read(cfg.out_dir.join(&w.path)).is_ok_and(|b| b == *bytes)
            });
        if tp.status == Status::Edited && !opts.force && !on_disk_equal {
            // A file equal to what we would write now is never "edited"; anything else is.
            keep_old(&mut new_tools, &mut snapshot_tools);
            rows.push(row(
                tp,
                Action::Kept,
                tp.widgets.iter().map(|w| w.path.clone()).collect(),
                0,
            ));
            continue;
        }

        let entry = ToolEntry {
            tool_hash: tool.tool_hash(),
            config_hash,
            refinements,
            fingerprint: None,
            pinned: false,
            widgets: rendered.iter().map(|(w, _)| w.clone()).collect(),
        };
        let bytes: u64 = rendered.iter().map(|(_, b)| b.len() as u64).sum();
        let changed_files: Vec<String> = rendered
            .iter()
            .filter(|(w, b)| std::fs::read(cfg.out_dir.join(&w.path)).map_or(true, |d| d != *b))
            .map(|(w, _)| w.path.clone())
            .collect();
        let action = if old_entry.as_ref() == Some(&entry) && changed_files.is_empty() {
            Action::Unchanged
        } else if old_entry.is_none() {
            Action::Generated
        } else {
            Action::Regenerated
        };
        for (w, b) in rendered {
            if changed_files.contains(&w.path) {
                update.files.push((w.path, b));
            }
        }
        update.remove.extend(tp.obsolete_files.iter().cloned());
        if action != Action::Unchanged || opts.force || llm_stats.is_some() {
            let mut r = row(
                tp,
                action,
                entry.widgets.iter().map(|w| w.path.clone()).collect(),
                bytes,
            );
            r.llm = llm_stats;
            rows.push(r);
        }
        new_tools.insert(tp.name.clone(), entry);
        snapshot_tools.insert(tp.name.clone(), tool.clone());
    }

    let new_lock = Lock {
        version: LOCK_VERSION,
        generator: generator.id(),
        fingerprint: fingerprint.clone(),
        validator_version: validate::VALIDATOR_VERSION,
        server_name,
        tools: new_tools,
    };
    let snapshot: Vec<&Tool> = snapshot_tools.values().collect();
    let snapshot_bytes = snapshot_json(&snapshot);
    let lock_changed = old_lock.map(Lock::to_toml) != Some(new_lock.to_toml());
    let snapshot_changed = std::fs::read(cfg.out_dir.join(crate::lock::TOOLS_FILE))
        .map_or(true, |b| b != snapshot_bytes);
    let nothing_to_do = update.files.is_empty()
        && update.remove.is_empty()
        && !lock_changed
        && !snapshot_changed
        && state.pending.is_none();
    update.tools_json = Some(snapshot_bytes.clone());
    Ok(Batch {
        lock: new_lock,
        update,
        snapshot: snapshot_bytes,
        rows,
        nothing_to_do,
        plan,
    })
}

fn row(tp: &ToolPlan, action: Action, files: Vec<String>, bytes: u64) -> Row {
    let reasons = match &tp.status {
        Status::Stale(r) => r.iter().map(|r| r.describe()).collect(),
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
        llm: None,
    }
}

type Rendered = Vec<(WidgetEntry, Vec<u8>)>;

/// Runs the llm generator for every widget of every tool that needs it.
#[allow(clippy::too_many_arguments)]
fn run_llm(
    cfg: &Config,
    generator: &Generator,
    llm: &crate::generate::llm::LlmGenerator,
    plan: &Plan,
    wants: &dyn Fn(&ToolPlan) -> bool,
    refinements_for: &dyn Fn(&ToolPlan) -> Vec<String>,
    opts: &BatchOptions<'_>,
    server_name: &str,
    template_version: &str,
) -> anyhow::Result<BTreeMap<String, (Rendered, LlmStats)>> {
    use crate::generate::llm::LlmRequest;
    let mut reqs = Vec::new();
    let mut owners = Vec::new();
    for tp in plan.tools.iter().filter(|tp| wants(tp)) {
        let Some(tool) = &tp.tool else { continue };
        let refinements = refinements_for(tp);
        let refining = opts.history.as_ref().is_some_and(|(n, _)| n == &tp.name);
        for w in &tp.widgets {
            // When refining an llm page, the model edits it rather than starting over.
            let current_page = tp
                .entry
                .as_ref()
                .and_then(|e| e.widgets.iter().find(|ew| ew.path == w.path))
                .filter(|ew| {
                    refining && ew.generator.starts_with("llm:") && ew.fallback_reason.is_none()
                })
                .and_then(|ew| std::fs::read_to_string(cfg.out_dir.join(&ew.path)).ok());
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
                server_name: server_name.to_string(),
                sample: opts.samples.get(&tp.name).cloned(),
                current_page,
            });
            owners.push((tp.name.clone(), w.clone()));
        }
    }
    if reqs.is_empty() {
        return Ok(BTreeMap::new());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let outcomes = rt.block_on(llm.generate_many(reqs, &generator.templates));
    let mut out: BTreeMap<String, (Rendered, LlmStats)> = BTreeMap::new();
    for ((name, w), outcome) in owners.into_iter().zip(outcomes) {
        let o = outcome?;
        let bytes = o.html.into_bytes();
        let entry = WidgetEntry {
            name: w.name.clone(),
            path: w.path.clone(),
            sha256: sha256_hex(&bytes),
            generator: generator.id(),
            prompt_version: generator.prompt_version(),
            template_version: template_version.to_string(),
            ui_type: o.ui_type.as_str().to_string(),
            default: w.default,
            fallback_reason: o.fallback_reason.clone(),
            fallback_transient: o.fallback_reason.is_some() && o.transient,
        };
        let slot = out.entry(name).or_default();
        slot.0.push((entry, bytes));
        let s = &mut slot.1;
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

/// Renders and validates every widget of a tool. An invalid builtin file is a bug, not drift.
pub fn render_tool(
    generator: &Generator,
    cfg: &Config,
    tp: &ToolPlan,
    tool: &Tool,
    refinements: &[String],
    server_name: &str,
    template_version: &str,
) -> anyhow::Result<Vec<(WidgetEntry, Vec<u8>)>> {
    let mut out = Vec::new();
    for w in &tp.widgets {
        let req = WidgetRequest {
            tool,
            tool_config: &tp.tool_config,
            widget: w.widget_name.as_deref(),
            hints: crate::generate::phrases::effective_hints(
                &w.hints,
                refinements,
                w.widget_name.as_deref(),
            ),
            refinements,
            server_name,
        };
        let html = builtin::render(&req, &generator.templates)?;
        let findings = validate::validate(&html, &validate_options(cfg, &tp.name, false));
        if validate::has_errors(&findings) {
            let first = findings
                .iter()
                .filter(|f| f.severity == validate::Severity::Error)
                .map(|f| format!("{} ({})", f.message, f.rule))
                .collect::<Vec<_>>()
                .join("; ");
            bail!(
                "the builtin generator produced a UI for tool `{}` that fails validation: {first}. \
                 This is a bug in mcp-gen-ui (or in a templates_dir override); please report it",
                report::display_name(&tp.name)
            );
        }
        let bytes = html.into_bytes();
        out.push((
            WidgetEntry {
                name: w.name.clone(),
                path: w.path.clone(),
                sha256: sha256_hex(&bytes),
                generator: generator.id(),
                prompt_version: String::new(),
                template_version: template_version.to_string(),
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

/// The validator's options for a tool: the origins its CSP config declares.
pub fn validate_options(cfg: &Config, tool: &str, llm_output: bool) -> validate::Options {
    let csp = cfg.tool(tool).csp;
    let mut allowed_origins = Vec::new();
    allowed_origins.extend(csp.connect_domains);
    allowed_origins.extend(csp.resource_domains);
    allowed_origins.extend(csp.frame_domains);
    validate::Options {
        allowed_origins,
        llm_output,
    }
}

/// `--adopt`: record the current bytes of an edited file as pinned.
fn adopt(cfg: &Config, tp: &ToolPlan) -> anyhow::Result<ToolEntry> {
    let Some(mut entry) = tp.entry.clone() else {
        bail!(
            "cannot adopt `{}`: it has never been generated; run `mcp-gen-ui generate` first",
            report::display_name(&tp.name)
        );
    };
    for w in &mut entry.widgets {
        let path = cfg.out_dir.join(&w.path);
        let bytes = std::fs::read(&path)
            .with_context(|| format!("cannot adopt `{}`: reading {}", tp.name, path.display()))?;
        w.sha256 = sha256_hex(&bytes);
    }
    entry.pinned = true;
    Ok(entry)
}
