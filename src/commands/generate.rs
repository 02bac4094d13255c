//! `generate`: discover → plan → generate → validate → write, incrementally.

use std::collections::BTreeMap;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Args;
use serde::Serialize;

use crate::cli::Context;
use crate::config::{Config, GeneratorKind};
use crate::generate::{Generator, UiType, WidgetRequest, builtin};
use crate::lock::{LOCK_VERSION, Lock, ToolEntry, WidgetEntry, snapshot_json};
use crate::model::{Tool, server_slug, sha256_hex};
use crate::plan::{Status, ToolPlan};
use crate::report::{self, Format};
use crate::validate;
use crate::write::{self, RunLock, Update};

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

/// What happened to one tool.
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
    Skipped,
}

#[derive(Debug, Serialize)]
struct Row {
    tool: String,
    action: Action,
    status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    reasons: Vec<&'static str>,
    files: Vec<String>,
    bytes: u64,
}

/// Runs `generate`. Returns 0 also when hand-edited files were kept (they are reported).
pub fn run(ctx: &Context, args: &GenerateArgs) -> anyhow::Result<ExitCode> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    let kind = args.generator.unwrap_or(cfg.file.generator);
    if kind == GeneratorKind::Llm {
        bail!(
            "the llm generator is not part of this build yet; use --generator builtin (the default)"
        );
    }
    let generator = Generator::new(kind, cfg.templates_dir().as_deref())?;
    let fingerprint = generator.fingerprint();

    let discovery = super::discover(ctx, &cfg)?;
    // Hold the run lock from reading the state to writing it, so two runs cannot interleave.
    let _run_lock = if args.dry_run {
        None
    } else {
        Some(RunLock::acquire(&cfg.out_dir)?)
    };
    if !args.dry_run {
        write::clean_temp_files(&cfg.out_dir);
    }
    let state = super::read_state(&cfg)?;
    let plan = super::make_plan(&cfg, &state, Some(&discovery.tools), &fingerprint)?;

    let known: Vec<&str> = plan.tools.iter().map(|t| t.name.as_str()).collect();
    for name in args.tools.iter().chain(&args.adopt) {
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
    let selected = |name: &str| args.tools.is_empty() || args.tools.iter().any(|t| t == name);

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

    let pb = ctx.printer.progress(plan.tools.len() as u64, "Generating");
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

        if args.adopt.iter().any(|a| a == &tp.name) {
            let mut entry = adopt(&cfg, tp)?;
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
        if tp.status == Status::Pinned && !args.force {
            keep_old(&mut new_tools, &mut snapshot_tools);
            rows.push(row(tp, Action::Pinned, Vec::new(), 0));
            continue;
        }

        let rendered = render_tool(&generator, &cfg, tp, tool, &server_name, &template_version)?;
        let on_disk_equal = rendered
            .iter()
            .all(|(w, bytes)| std::fs::read(cfg.out_dir.join(&w.path)).is_ok_and(|b| b == *bytes));
        if tp.status == Status::Edited && !args.force && !on_disk_equal {
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
            config_hash: tp.config_hash.clone(),
            refinements: old_entry
                .as_ref()
                .map(|e| e.refinements.clone())
                .unwrap_or_default(),
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
        if action != Action::Unchanged || args.force {
            rows.push(row(
                tp,
                action,
                entry.widgets.iter().map(|w| w.path.clone()).collect(),
                bytes,
            ));
        }
        new_tools.insert(tp.name.clone(), entry);
        snapshot_tools.insert(tp.name.clone(), tool.clone());
    }
    pb.finish_and_clear();

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

    if !args.dry_run && !nothing_to_do {
        update.tools_json = Some(snapshot_bytes);
        write::apply(&cfg.out_dir, update, &new_lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }
    summarize(ctx, &cfg, args, &rows, new_lock.tools.len(), nothing_to_do)?;
    Ok(ExitCode::SUCCESS)
}

fn row(tp: &ToolPlan, action: Action, files: Vec<String>, bytes: u64) -> Row {
    let reasons = match &tp.status {
        Status::Stale(r) => r.iter().map(|r| r.describe()).collect(),
        _ => Vec::new(),
    };
    Row {
        tool: tp.name.clone(),
        action,
        status: tp.status.label().to_string(),
        reasons,
        files,
        bytes,
    }
}

/// Renders and validates every widget of a tool. An invalid builtin file is a bug, not drift.
fn render_tool(
    generator: &Generator,
    cfg: &Config,
    tp: &ToolPlan,
    tool: &Tool,
    server_name: &str,
    template_version: &str,
) -> anyhow::Result<Vec<(WidgetEntry, Vec<u8>)>> {
    let refinements = tp
        .entry
        .as_ref()
        .map(|e| e.refinements.clone())
        .unwrap_or_default();
    let mut out = Vec::new();
    for w in &tp.widgets {
        let req = WidgetRequest {
            tool,
            tool_config: &tp.tool_config,
            widget: w.widget_name.as_deref(),
            hints: w.hints.clone(),
            refinements: &refinements,
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

fn summarize(
    ctx: &Context,
    cfg: &Config,
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
    for r in rows.iter().filter(|r| r.action == Action::Kept) {
        p.warn(format!(
            "{} was edited by hand and was left alone; `mcp-gen-ui generate --force {}` overwrites it, `mcp-gen-ui generate --adopt {}` keeps it for good",
            r.files.join(", "),
            shell_words::quote(&r.tool),
            shell_words::quote(&r.tool)
        ));
    }
    let kept = rows.iter().filter(|r| r.action == Action::Kept).count();
    if nothing_to_do {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
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
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let action = match r.action {
                Action::Generated => "generated",
                Action::Regenerated => "regenerated",
                Action::Unchanged => "unchanged",
                Action::Kept => "kept (edited)",
                Action::Pinned => "pinned",
                Action::Adopted => "adopted",
                Action::Removed => "removed",
                Action::Skipped => "skipped",
            };
            let why = if r.reasons.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.reasons.join(", "))
            };
            vec![
                report::display_name(&r.tool),
                format!("{action}{why}"),
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
        p.out(report::table(
            &["TOOL", "ACTION", "FILES", "SIZE"],
            &table_rows,
        ))?;
    }
    let count = |a: Action| rows.iter().filter(|r| r.action == a).count();
    let verb = if args.dry_run { "would write" } else { "wrote" };
    p.out(format!(
        "{} {verb}: {} generated, {} regenerated, {} removed, {} kept; {total} tool{} in the lock.",
        if args.dry_run { "Dry run," } else { "Done," },
        count(Action::Generated),
        count(Action::Regenerated),
        count(Action::Removed),
        count(Action::Kept),
        if total == 1 { "" } else { "s" },
    ))?;
    Ok(())
}
