//! `check`: the pre-commit / CI gate. Offline and fast by default: every file in the lock exists
//! and matches its hash, nothing stray, every file valid; online it also compares upstream tools.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use crate::cli::{Context, EXIT_FINDINGS};
use crate::plan::{FileState, StaleReason, Status};
use crate::report;
use crate::validate;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Also compare the upstream's tools with the lock (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    /// Re-run the validator on every file even when the lock says this validator passed them
    #[arg(long)]
    pub revalidate: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: CheckFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CheckFormat {
    #[default]
    Text,
    Json,
    Junit,
}

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

/// Runs `check`: exit 0 clean, 1 with findings, 2 when it cannot check at all.
pub fn run(ctx: &Context, args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let cfg = ctx.config()?;
    let out = cfg.out_dir.display().to_string();
    let state = super::read_state(&cfg)?;
    let mut findings = Vec::new();
    let online = super::wants_online(ctx, &cfg, args.online);

    let Some(lock) = state.lock.as_ref() else {
        findings.push(Finding {
            kind: "no-lock",
            tool: None,
            path: Some(crate::lock::LOCK_FILE.into()),
            message: format!(
                "{out}/{} does not exist: run `mcp-gen-ui generate` and commit the result",
                crate::lock::LOCK_FILE
            ),
        });
        return finish(ctx, args, &findings, 0);
    };

    let generator = super::offline_generator(&cfg)?;
    let upstream = if online {
        Some(super::discover(ctx, &cfg)?.tools)
    } else {
        None
    };
    let plan = super::make_plan(&cfg, &state, upstream.as_deref(), &generator.fingerprint())?;

    if state.pending.is_some() {
        findings.push(Finding {
            kind: "interrupted-run",
            tool: None,
            path: Some(crate::write::PENDING_LOCK_FILE.into()),
            message:
                "a `generate` run was interrupted before it finished: run `mcp-gen-ui generate`"
                    .into(),
        });
    }

    // Files: the plan hashed each one once; only a validator upgrade reads them again.
    let revalidate = args.revalidate || lock.validator_version != validate::VALIDATOR_VERSION;
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
                    let opts = crate::generate::batch::validate_options(&cfg, &tp.name, llm);
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

    // The snapshot must describe exactly the tools of the lock, with the same hashes.
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
                path: Some(crate::lock::TOOLS_FILE.into()),
                message: format!(
                    "{out}/{} does not hold the definition tool `{}` was generated from: run `mcp-gen-ui generate`",
                    crate::lock::TOOLS_FILE,
                    report::display_name(name)
                ),
            });
        }
    }

    for tp in &plan.tools {
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
                    let (kind, what) = match r {
                        StaleReason::ToolChanged => ("tool-drift", "changed upstream"),
                        StaleReason::ConfigChanged => {
                            ("config-drift", "has settings or refinements that changed")
                        }
                        StaleReason::GeneratorChanged => (
                            "generator-drift",
                            "was generated by another generator version",
                        ),
                        StaleReason::WidgetsChanged => {
                            ("widgets-drift", "has a changed widget list")
                        }
                        StaleReason::TransientFallback => (
                            "transient-fallback",
                            "holds a fallback UI from a transient LLM failure",
                        ),
                    };
                    push(
                        kind,
                        format!("tool `{name}` {what}: run `mcp-gen-ui generate`"),
                    );
                }
            }
            Status::New => push(
                "new-tool",
                format!("tool `{name}` is new upstream and has no UI: run `mcp-gen-ui generate`"),
            ),
            Status::Removed => push(
                "removed-tool",
                format!(
                    "tool `{name}` is gone upstream but its UI remains: run `mcp-gen-ui generate`"
                ),
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
    finish(ctx, args, &findings, lock.tools.len())
}

fn finish(
    ctx: &Context,
    args: &CheckArgs,
    findings: &[Finding],
    tools: usize,
) -> anyhow::Result<ExitCode> {
    let p = &ctx.printer;
    match args.format {
        CheckFormat::Json => p.json(&serde_json::json!({
            "clean": findings.is_empty(),
            "tools": tools,
            "findings": findings,
        }))?,
        CheckFormat::Junit => p.out(junit(findings, tools))?,
        CheckFormat::Text => {
            for f in findings {
                p.out(format!("{}: {}", f.kind, f.message))?;
            }
            if findings.is_empty() {
                p.status(format!(
                    "ok: {tools} tool{} checked, no drift",
                    if tools == 1 { "" } else { "s" }
                ));
            } else {
                p.status(format!(
                    "{} finding{}",
                    findings.len(),
                    if findings.len() == 1 { "" } else { "s" }
                ));
            }
        }
    }
    Ok(if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FINDINGS)
    })
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// One JUnit test case per finding (or one passing case), for CI dashboards.
fn junit(findings: &[Finding], tools: usize) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    s.push_str(&format!(
        "<testsuites><testsuite name=\"mcp-gen-ui check\" tests=\"{}\" failures=\"{}\">\n",
        findings.len().max(1),
        findings.len()
    ));
    if findings.is_empty() {
        s.push_str(&format!(
            "  <testcase classname=\"mcp-gen-ui\" name=\"{tools} tools up to date\"/>\n"
        ));
    }
    for f in findings {
        let name = f
            .path
            .clone()
            .or_else(|| f.tool.clone())
            .unwrap_or_else(|| f.kind.to_string());
        s.push_str(&format!(
            "  <testcase classname=\"mcp-gen-ui.{}\" name=\"{}\"><failure message=\"{}\"/></testcase>\n",
            f.kind,
            xml_escape(&name),
            xml_escape(&f.message)
        ));
    }
    s.push_str("</testsuite></testsuites>");
    s
}
