//! What `check` finds: every file of the lock present and matching its hash, nothing stray, every
//! file valid (re-validated only when the validator changed: book, reference/validator.md), the snapshot in step with
//! the lock, and — online — every tool in step with the upstream.

use std::collections::BTreeMap;

use serde::Serialize;

use super::State;
use super::generator::offline_generator;
use super::progress::Progress;
use super::upstream;
use crate::config::Config;
use crate::lock::Lock;
use crate::plan::{FileState, Plan, StaleReason, Status, ToolPlan};
use crate::report;
use crate::validate;

/// One reason the check fails.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Stable identifier for scripts: `missing-file`, `hash-mismatch`, `stray-file`, …
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
}

/// What `check` found: the command's output record.
#[derive(Debug, Serialize)]
pub struct Checked {
    pub clean: bool,
    /// Tools in the lock.
    pub tools: usize,
    pub findings: Vec<Finding>,
}

/// Runs `check`: offline against the lock, or `online` against the upstream's tools too (the
/// runtime is only built then). With no lock there is nothing to plan: the one finding says to
/// generate.
pub fn check<'r>(
    cfg: &Config,
    online: bool,
    revalidate: bool,
    progress: &dyn Progress,
    runtime: impl FnOnce() -> anyhow::Result<&'r tokio::runtime::Runtime>,
) -> anyhow::Result<Checked> {
    let state = State::read(cfg)?;
    let tools = state.lock.as_ref().map_or(0, |l| l.tools.len());
    let findings = if state.lock.is_none() {
        let empty = Plan {
            tools: Vec::new(),
            stray: Vec::new(),
        };
        findings(cfg, &state, &empty, false)
    } else {
        let generator = offline_generator(cfg)?;
        let upstream = if online {
            Some(upstream::discover(cfg, progress, runtime()?)?.tools)
        } else {
            None
        };
        let plan = state.plan(cfg, upstream.as_deref(), &generator.fingerprint())?;
        findings(cfg, &state, &plan, revalidate)
    };
    Ok(Checked {
        clean: findings.is_empty(),
        tools,
        findings,
    })
}

/// Everything wrong with the committed output directory. `plan` was made from `state` (online
/// when it was given the upstream's tools); `revalidate` re-runs the validator on every file.
pub fn findings(cfg: &Config, state: &State, plan: &Plan, revalidate: bool) -> Vec<Finding> {
    let out = cfg.out_dir.display().to_string();
    let mut findings = Vec::new();
    let Some(lock) = state.lock.as_ref() else {
        findings.push(Finding {
            kind: "no-lock",
            tool: None,
            path: Some(crate::model::LOCK_FILE.into()),
            message: format!(
                "{out}/{} does not exist: run `mcp-gen-ui generate` and commit the result",
                crate::model::LOCK_FILE
            ),
        });
        return findings;
    };
    if state.pending.is_some() {
        findings.push(Finding {
            kind: "interrupted-run",
            tool: None,
            path: Some(crate::model::PENDING_LOCK_FILE.into()),
            message:
                "a `generate` run was interrupted before it finished: run `mcp-gen-ui generate`"
                    .into(),
        });
    }
    // Files: the plan hashed each one once; only a validator upgrade reads them again.
    let revalidate = revalidate || lock.validator_version != validate::VALIDATOR_VERSION;
    file_findings(cfg, plan, revalidate, &mut findings);
    for rel in &plan.stray {
        findings.push(Finding {
            kind: "stray-file",
            tool: None,
            path: Some(rel.clone()),
            message: format!(
                "{out}/{rel} is not in the lock: delete it, or run `mcp-gen-ui generate` if it should be generated"
            ),
        });
    }
    snapshot_findings(cfg, state, lock, &mut findings);
    uri_findings(cfg, lock, &mut findings);
    for tp in &plan.tools {
        status_findings(tp, &mut findings);
    }
    findings
}

/// Each file of the lock: missing, edited, or (when `revalidate`) no longer valid.
fn file_findings(cfg: &Config, plan: &Plan, revalidate: bool, findings: &mut Vec<Finding>) {
    let out = cfg.out_dir.display().to_string();
    for tp in &plan.tools {
        let Some(entry) = &tp.entry else { continue };
        for (path, state) in &tp.files {
            let f = |kind, message: String| Finding {
                kind,
                tool: Some(tp.name.clone()),
                path: Some(path.clone()),
                message,
            };
            match state {
                FileState::Missing => findings.push(f(
                    "missing-file",
                    format!("{out}/{path} is missing: run `mcp-gen-ui generate`"),
                )),
                FileState::Edited | FileState::FromInterruptedRun => findings.push(f(
                    "hash-mismatch",
                    format!(
                        "{out}/{path} does not match its hash in the lock (edited by hand?): `mcp-gen-ui generate --force {}` restores it, `--adopt` keeps the edit",
                        shell_words::quote(&tp.name)
                    ),
                )),
                FileState::Ok if revalidate => {
                    let Ok(bytes) = std::fs::read(cfg.out_dir.join(path)) else {
                        continue;
                    };
                    let html = String::from_utf8_lossy(&bytes);
                    let llm = entry
                        .widgets
                        .iter()
                        .any(|w| &w.path == path && w.generator.starts_with("llm"));
                    let opts = super::validate_options(cfg, &tp.name, llm);
                    for v in validate::validate(&html, &opts) {
                        if v.severity == validate::Severity::Error {
                            let line = v.line.map(|l| format!(":{l}")).unwrap_or_default();
                            findings.push(f(
                                "invalid-file",
                                format!("{out}/{path}{line}: {} [{}]", v.message, v.rule),
                            ));
                        }
                    }
                }
                FileState::Ok => {}
            }
        }
    }
}

/// The snapshot must describe exactly the tools of the lock, with the same hashes.
fn snapshot_findings(cfg: &Config, state: &State, lock: &Lock, findings: &mut Vec<Finding>) {
    let out = cfg.out_dir.display().to_string();
    let snap: BTreeMap<&str, String> = state
        .snapshot
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|t| (t.name.as_str(), t.tool_hash()))
        .collect();
    for (name, entry) in &lock.tools {
        if snap.get(name.as_str()) != Some(&entry.tool_hash) {
            findings.push(Finding {
                kind: "snapshot-mismatch",
                tool: Some(name.clone()),
                path: Some(crate::model::TOOLS_FILE.into()),
                message: format!(
                    "{out}/{} does not hold the definition tool `{}` was generated from: run `mcp-gen-ui generate`",
                    crate::model::TOOLS_FILE,
                    report::display_name(name)
                ),
            });
        }
    }
}

/// Each page URI the lock records must be the one hosts are given now: from the page's recorded
/// hash, `server_name` and `stable_uris` (a lock without URIs predates them and is not judged).
fn uri_findings(cfg: &Config, lock: &Lock, findings: &mut Vec<Finding>) {
    let out = cfg.out_dir.display().to_string();
    let (configured, stable) = (cfg.file.server_name.as_deref(), cfg.file.stable_uris);
    for (name, w) in lock.files() {
        let now = lock.page_uri(configured, w, stable);
        if !w.uri.is_empty() && w.uri != now {
            findings.push(Finding {
                kind: "stale-uri",
                tool: Some(name.to_string()),
                path: Some(crate::model::LOCK_FILE.into()),
                message: format!(
                    "{out}/{} records the URI {} for {}, but serve gives hosts {now} (from its hash, `server_name` and `stable_uris`): run `mcp-gen-ui generate` to update the lock",
                    crate::model::LOCK_FILE,
                    w.uri,
                    w.path
                ),
            });
        }
    }
}

/// A tool out of step with the upstream or the config: stale, new, removed, disabled.
fn status_findings(tp: &ToolPlan, findings: &mut Vec<Finding>) {
    let name = report::display_name(&tp.name);
    let mut push = |kind, message: String| {
        findings.push(Finding {
            kind,
            tool: Some(tp.name.clone()),
            path: None,
            message,
        })
    };
    match &tp.status {
        Status::Stale(reasons) => {
            for r in reasons {
                push(
                    drift_kind(*r),
                    format!(
                        "tool `{name}` is stale ({}): run `mcp-gen-ui generate`",
                        r.label()
                    ),
                );
            }
        }
        Status::New => push(
            "new-tool",
            format!("tool `{name}` is new upstream and has no UI: run `mcp-gen-ui generate`"),
        ),
        Status::Removed => push(
            "removed-tool",
            format!("tool `{name}` is gone upstream but its UI remains: run `mcp-gen-ui generate`"),
        ),
        Status::Disabled | Status::UpstreamUi if tp.entry.is_some() => push(
            "disabled-tool",
            format!(
                "tool `{name}` is disabled (or ships its own UI) but our UI remains: run `mcp-gen-ui generate`"
            ),
        ),
        _ => {}
    }
}

/// The finding kind of each stale reason (stable identifiers for scripts).
fn drift_kind(r: StaleReason) -> &'static str {
    match r {
        StaleReason::ToolChanged => "tool-drift",
        StaleReason::ConfigChanged => "config-drift",
        StaleReason::GeneratorChanged => "generator-drift",
        StaleReason::WidgetsChanged => "widgets-drift",
        StaleReason::TransientFallback => "transient-fallback",
    }
}
