//! Plan stage: decide, for every tool, whether its files are fresh, stale (and why), missing,
//! edited by hand, new or gone. Shared by `generate`, `check`, `list` and `inspect`, so they can
//! never disagree about a tool's state.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use crate::config::{Config, ToolConfig};
use crate::lock::{DEFAULT_WIDGET, Lock, ToolEntry};
use crate::model::Hints;
use crate::model::{
    Tool, assign_stems, canonical_json, file_stem, is_managed_name, sha256_hex, stem_of_path,
    valid_widget_name, widget_path,
};

/// Why a tool must be regenerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StaleReason {
    /// The upstream definition (name, title, description, schemas, annotations) changed.
    ToolChanged,
    /// `[tools.NAME]` settings or the refinement history changed.
    ConfigChanged,
    /// The generator, its templates, prompts, model or settings changed.
    GeneratorChanged,
    /// The set of widgets changed.
    WidgetsChanged,
    /// The last LLM generation fell back after a transient failure: try again.
    TransientFallback,
}

impl StaleReason {
    /// The one wording of each reason a tool is stale, wherever it is printed.
    pub fn label(self) -> &'static str {
        match self {
            StaleReason::ToolChanged => "tool changed upstream",
            StaleReason::ConfigChanged => "tool settings or refinements changed",
            StaleReason::GeneratorChanged => "generator changed",
            StaleReason::WidgetsChanged => "widgets changed",
            StaleReason::TransientFallback => "last LLM attempt fell back after a transient error",
        }
    }
}

/// `stale (tool changed upstream, generator changed)`: a status label with its reasons.
pub fn status_with_reasons(status: &str, reasons: &[StaleReason]) -> String {
    if reasons.is_empty() {
        status.to_string()
    } else {
        let why: Vec<&str> = reasons.iter().map(|r| r.label()).collect();
        format!("{status} ({})", why.join(", "))
    }
}

/// The state of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status", content = "reasons")]
pub enum Status {
    /// Files match the lock and nothing that shapes them changed.
    Fresh,
    /// Upstream has it, the lock does not.
    New,
    Stale(Vec<StaleReason>),
    /// A file recorded in the lock is gone.
    Missing,
    /// A file's bytes differ from the lock: someone edited it.
    Edited,
    /// A hand edit accepted with `--adopt`; left alone until `--force`.
    Pinned,
    /// In the lock, no longer upstream.
    Removed,
    /// Upstream has it but the config disables it; any files of ours go.
    Disabled,
    /// The upstream ships its own UI for it; we leave it alone.
    UpstreamUi,
}

impl Status {
    pub fn label(&self) -> &'static str {
        match self {
            Status::Fresh => "fresh",
            Status::New => "new",
            Status::Stale(_) => "stale",
            Status::Missing => "missing",
            Status::Edited => "edited",
            Status::Pinned => "pinned",
            Status::Removed => "removed",
            Status::Disabled => "disabled",
            Status::UpstreamUi => "upstream-ui",
        }
    }
}

/// One widget the tool should have.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WidgetPlan {
    pub name: String,
    /// Relative to the output directory.
    pub path: String,
    pub default: bool,
    /// The widget's own hints laid over the tool's.
    #[serde(skip)]
    pub hints: Hints,
    /// `None` for a tool's single UI (`<stem>.html`).
    pub widget_name: Option<String>,
}

/// The plan for one tool.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPlan {
    pub name: String,
    #[serde(flatten)]
    pub status: Status,
    /// The widgets the tool should have now (empty for removed/disabled/upstream-ui tools).
    pub widgets: Vec<WidgetPlan>,
    /// Files of the lock entry that no longer belong to the tool (removed widgets or tool).
    pub obsolete_files: Vec<String>,
    /// The upstream definition, when known (online, or from the snapshot).
    #[serde(skip)]
    pub tool: Option<Tool>,
    #[serde(skip)]
    pub entry: Option<ToolEntry>,
    #[serde(skip)]
    pub config_hash: String,
    #[serde(skip)]
    pub tool_config: ToolConfig,
    /// Every file the lock records for the tool, checked once against its sha256.
    #[serde(skip)]
    pub files: Vec<(String, FileState)>,
}

impl ToolPlan {
    /// Whether `generate` (without `--force`) writes this tool.
    pub fn needs_generation(&self) -> bool {
        matches!(
            self.status,
            Status::New | Status::Stale(_) | Status::Missing
        )
    }
}

/// The whole plan.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub tools: Vec<ToolPlan>,
    /// Files in the output directory that nothing manages.
    pub stray: Vec<String>,
}

/// What the planner looks at.
pub struct PlanInputs<'a> {
    pub cfg: &'a Config,
    pub lock: Option<&'a Lock>,
    /// The lock an interrupted run was about to write: files matching it are ours, not hand edits.
    pub pending: Option<&'a Lock>,
    /// The upstream's tools when online; `None` plans from the lock alone.
    pub upstream: Option<&'a [Tool]>,
    /// The snapshot of tool definitions (offline), to know each tool's definition.
    pub snapshot: Option<&'a [Tool]>,
    /// The fingerprint of the generator that would run now.
    pub fingerprint: &'a str,
}

/// Whether the upstream's definition of a tool differs from the one its files were generated
/// from (`locked_tool_hash`, the lock's `tool_hash`): the rule behind
/// [`StaleReason::ToolChanged`], which `serve` applies too, so that `check` and `serve` never
/// disagree about a tool's UI.
pub fn tool_changed(tool: &Tool, locked_tool_hash: &str) -> bool {
    tool.tool_hash() != locked_tool_hash
}

/// sha256 of everything per-tool that shapes output besides the tool itself: its config section
/// and its refinement history.
pub fn config_hash(tc: &ToolConfig, refinements: &[String]) -> String {
    let mut v = serde_json::to_value(tc).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        // `enabled` decides whether there is a UI and `sample` whether it may be called, not
        // what the UI looks like; `description_for_ui` is what serve tells UI clients.
        m.remove("enabled");
        m.remove("sample");
        // serve's business: the page does not show it.
        m.remove("description_for_ui");
    }
    sha256_hex(canonical_json(
        &json!({"config": v, "refinements": refinements}),
    ))
}

/// Validates widget names from the config and computes the widgets a tool should have; `stem`
/// is the tool's file stem (see [`file_stems`]).
pub fn widgets_for(
    tool_name: &str,
    stem: &str,
    tc: &ToolConfig,
) -> Result<Vec<WidgetPlan>, String> {
    if tc.widgets.is_empty() {
        return Ok(vec![WidgetPlan {
            name: DEFAULT_WIDGET.into(),
            path: widget_path(stem, None),
            default: true,
            hints: tc.hints.clone(),
            widget_name: None,
        }]);
    }
    let mut seen = BTreeSet::new();
    let has_default = tc.widgets.iter().any(|w| w.default);
    if tc.widgets.iter().filter(|w| w.default).count() > 1 {
        return Err(format!(
            "[tools.{tool_name}] marks more than one widget as `default = true`: keep one"
        ));
    }
    let mut out = Vec::new();
    for (i, w) in tc.widgets.iter().enumerate() {
        if !valid_widget_name(&w.name) {
            return Err(format!(
                "[tools.{tool_name}] widget name `{}` must match ^[a-z0-9_-]{{1,64}}$ (it becomes a file name)",
                w.name
            ));
        }
        if !seen.insert(w.name.clone()) {
            return Err(format!(
                "[tools.{tool_name}] has two widgets named `{}`",
                w.name
            ));
        }
        out.push(WidgetPlan {
            name: w.name.clone(),
            path: widget_path(stem, Some(&w.name)),
            default: w.default || (!has_default && i == 0),
            hints: tc.hints.overlaid_with(&w.hints),
            widget_name: Some(w.name.clone()),
        });
    }
    Ok(out)
}

/// Checks the on-disk state of a widget file against the lock (and the pending lock).
fn file_state(out_dir: &Path, path: &str, sha: &str, pending_sha: Option<&str>) -> FileState {
    match std::fs::read(out_dir.join(path)) {
        Ok(bytes) => {
            let actual = sha256_hex(&bytes);
            if actual == sha {
                FileState::Ok
            } else if pending_sha == Some(actual.as_str()) {
                FileState::FromInterruptedRun
            } else {
                FileState::Edited
            }
        }
        Err(_) => FileState::Missing,
    }
}

/// How a file recorded in the lock looks on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileState {
    Ok,
    Missing,
    Edited,
    /// Written by a run that was interrupted before it wrote the lock.
    FromInterruptedRun,
}

/// Builds the plan. Errors are configuration errors (bad widget names, file name collisions).
pub fn plan(inputs: &PlanInputs<'_>) -> Result<Plan, String> {
    let empty = BTreeMap::new();
    let locked = inputs.lock.map(|l| &l.tools).unwrap_or(&empty);
    let upstream: BTreeMap<&str, &Tool> = inputs
        .upstream
        .unwrap_or(&[])
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    let snapshot: BTreeMap<&str, &Tool> = inputs
        .snapshot
        .unwrap_or(&[])
        .iter()
        .map(|t| (t.name.as_str(), t))
        .collect();
    // Every tool name we know of: upstream (online) or the lock (offline), in a stable order.
    let mut names: BTreeSet<String> = locked.keys().cloned().collect();
    names.extend(upstream.keys().map(|s| s.to_string()));
    let stems = file_stems(&names, locked, inputs.cfg.rename_files)?;
    let mut tools = Vec::new();
    for name in names {
        let tool = upstream.get(name.as_str()).copied();
        let committed = snapshot.get(name.as_str()).copied();
        let stem = stems
            .get(&name)
            .cloned()
            .unwrap_or_else(|| file_stem(&name));
        let found = plan_tool(inputs, &name, &stem, locked.get(&name), tool, committed)?;
        if let Some(tp) = found {
            tools.push(tp);
        }
    }
    let stray = stray_files(&inputs.cfg.out_dir, inputs.lock, inputs.pending);
    Ok(Plan { tools, stray })
}

/// The file stem of every tool (book: reference/names.md): a tool in the lock keeps the files
/// the lock records, so its `ui://` URI never changes behind a host's back — unless `rename`
/// (`generate --rename-files`) asks for today's readable names (a pinned tool keeps its files
/// even then). Two tools never share a file.
pub fn file_stems(
    names: &BTreeSet<String>,
    locked: &BTreeMap<String, ToolEntry>,
    rename: bool,
) -> Result<BTreeMap<String, String>, String> {
    let kept: BTreeMap<String, String> = locked
        .iter()
        .filter(|(_, e)| !rename || e.pinned)
        .filter_map(|(n, e)| {
            let first = e.widgets.first()?;
            Some((n.clone(), stem_of_path(&first.path).to_string()))
        })
        .collect();
    assign_stems(names, &kept)
}

/// One tool's plan: `upstream_tool` is its upstream definition (online), `committed` the one in
/// the snapshot. `None` for a tool that is disabled, offline, and was never generated.
fn plan_tool(
    inputs: &PlanInputs<'_>,
    name: &str,
    stem: &str,
    entry: Option<&ToolEntry>,
    upstream_tool: Option<&Tool>,
    committed: Option<&Tool>,
) -> Result<Option<ToolPlan>, String> {
    let cfg = inputs.cfg;
    let tc = cfg.tool(name);
    let refinements = entry.map(|e| e.refinements.clone()).unwrap_or_default();
    let online = inputs.upstream.is_some();
    let mut tp = ToolPlan {
        name: name.to_string(),
        status: Status::Fresh,
        widgets: Vec::new(),
        obsolete_files: Vec::new(),
        tool: upstream_tool.or(committed).cloned(),
        entry: entry.cloned(),
        config_hash: config_hash(&tc, &refinements),
        tool_config: tc,
        files: Vec::new(),
    };
    // Each locked file is read and hashed exactly once per run: `check` on hundreds of tools
    // stays fast.
    let pending_entry = inputs.pending.and_then(|p| p.tools.get(name));
    if let Some(e) = entry {
        for w in &e.widgets {
            let pending_sha = pending_entry
                .and_then(|p| p.widgets.iter().find(|pw| pw.path == w.path))
                .map(|pw| pw.sha256.as_str());
            tp.files.push((
                w.path.clone(),
                file_state(&cfg.out_dir, &w.path, &w.sha256, pending_sha),
            ));
        }
    }
    let locked_files: Vec<String> = entry
        .map(|e| e.widgets.iter().map(|w| w.path.clone()).collect())
        .unwrap_or_default();

    let gone = online && upstream_tool.is_none();
    let upstream_ui = upstream_tool.is_some_and(Tool::has_upstream_ui);
    if gone || upstream_ui || !cfg.tool_enabled(name) {
        tp.status = if gone {
            Status::Removed
        } else if upstream_ui {
            Status::UpstreamUi
        } else {
            Status::Disabled
        };
        tp.obsolete_files = locked_files;
        return Ok((entry.is_some() || online).then_some(tp));
    }

    tp.widgets = widgets_for(name, stem, &tp.tool_config)?;
    let wanted: BTreeSet<&str> = tp.widgets.iter().map(|w| w.path.as_str()).collect();
    tp.obsolete_files = locked_files
        .iter()
        .filter(|p| !wanted.contains(p.as_str()))
        .cloned()
        .collect();
    tp.status = match entry {
        None => Status::New,
        Some(e) if e.pinned => Status::Pinned,
        Some(e) => {
            let interrupted = pending_entry.is_some_and(|p| p != e);
            let reasons = stale_reasons(inputs, &tp, e, upstream_tool, interrupted);
            generated_status(&tp.files, reasons)
        }
    };
    Ok(Some(tp))
}

/// Why a generated tool's files are no longer what it would get now.
fn stale_reasons(
    inputs: &PlanInputs<'_>,
    tp: &ToolPlan,
    entry: &ToolEntry,
    upstream_tool: Option<&Tool>,
    interrupted: bool,
) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    if let Some(t) = upstream_tool
        && tool_changed(t, &entry.tool_hash)
    {
        reasons.push(StaleReason::ToolChanged);
    }
    if entry.config_hash != tp.config_hash {
        reasons.push(StaleReason::ConfigChanged);
    }
    if inputs
        .lock
        .is_some_and(|l| l.tool_fingerprint(entry) != inputs.fingerprint)
    {
        reasons.push(StaleReason::GeneratorChanged);
    }
    let wanted: BTreeSet<&str> = tp.widgets.iter().map(|w| w.path.as_str()).collect();
    let locked_paths: BTreeSet<&str> = entry.widgets.iter().map(|w| w.path.as_str()).collect();
    if locked_paths != wanted {
        reasons.push(StaleReason::WidgetsChanged);
    }
    if entry.widgets.iter().any(|w| w.fallback_transient) {
        reasons.push(StaleReason::TransientFallback);
    }
    if interrupted && reasons.is_empty() {
        reasons.push(StaleReason::GeneratorChanged);
    }
    reasons
}

/// A generated tool's status from its files and stale reasons: a hand edit first, then a missing
/// file, then staleness.
fn generated_status(files: &[(String, FileState)], reasons: Vec<StaleReason>) -> Status {
    let mut missing = false;
    let mut edited = false;
    for (_, state) in files {
        match state {
            FileState::Ok => {}
            FileState::Missing => missing = true,
            FileState::Edited => edited = true,
            // The interrupted run's output is regenerated, never mistaken for a hand edit.
            FileState::FromInterruptedRun => {}
        }
    }
    if edited {
        Status::Edited
    } else if missing {
        Status::Missing
    } else if !reasons.is_empty() {
        Status::Stale(reasons)
    } else {
        Status::Fresh
    }
}

/// Files under the output directory that neither the lock nor mcp-gen-ui's bookkeeping explain.
fn stray_files(out_dir: &Path, lock: Option<&Lock>, pending: Option<&Lock>) -> Vec<String> {
    let mut known: BTreeSet<String> = BTreeSet::new();
    for l in lock.into_iter().chain(pending) {
        known.extend(l.files().map(|(_, w)| w.path.clone()));
    }
    let mut stray = Vec::new();
    for entry in walkdir::WalkDir::new(out_dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(out_dir) else {
            continue;
        };
        let rel = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let base = rel.rsplit('/').next().unwrap_or(&rel);
        if is_managed_name(&rel) || is_managed_name(base) || known.contains(&rel) {
            continue;
        }
        stray.push(rel);
    }
    stray
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::WidgetConfig;

    #[test]
    fn config_hash_covers_hints_and_refinements_but_not_enabled() {
        let mut tc = ToolConfig::default();
        let h0 = config_hash(&tc, &[]);
        assert_ne!(h0, config_hash(&tc, &["line chart".into()]));
        tc.enabled = Some(true);
        assert_eq!(h0, config_hash(&tc, &[]));
        tc.hints.x = Some("date".into());
        assert_ne!(h0, config_hash(&tc, &[]));
    }

    #[test]
    fn widgets_default_to_one_file_and_validate_names() {
        let tc = ToolConfig::default();
        let w = widgets_for("get_forecast", "get_forecast", &tc).unwrap();
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].path, "get_forecast.html");
        assert!(w[0].default);

        let mut tc = ToolConfig {
            widgets: vec![
                WidgetConfig {
                    name: "chart".into(),
                    ..Default::default()
                },
                WidgetConfig {
                    name: "table".into(),
                    default: true,
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let w = widgets_for("Get Forecast", "get-forecast", &tc).unwrap();
        assert!(w[0].path.ends_with("/chart.html"));
        assert!(!w[0].default && w[1].default);

        tc.widgets[0].name = "../x".into();
        assert!(widgets_for("t", "t", &tc).is_err());
    }
}
