//! `check`: the pre-commit / CI gate. Offline and fast by default: every file in the lock exists
//! and matches its hash, nothing stray, every file valid; online it also compares upstream tools.

use clap::Args;

use super::context::{Context, Outcome};
use crate::pipeline::check::{self, Finding};
use crate::pipeline::{self, State};

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

/// Runs `check`: clean, findings, or an error when it cannot check at all.
pub fn run(ctx: &Context, args: &CheckArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let state = State::read(&cfg)?;
    let tools = state.lock.as_ref().map_or(0, |l| l.tools.len());
    let findings = if state.lock.is_none() {
        // Nothing to plan against: the one finding says to generate.
        let empty = crate::plan::Plan {
            tools: Vec::new(),
            stray: Vec::new(),
        };
        check::findings(&cfg, &state, &empty, false)
    } else {
        let generator = pipeline::offline_generator(&cfg)?;
        let upstream = if super::wants_online(ctx, &cfg, args.online) {
            Some(super::discover(ctx, &cfg)?.tools)
        } else {
            None
        };
        let plan = state.plan(&cfg, upstream.as_deref(), &generator.fingerprint())?;
        check::findings(&cfg, &state, &plan, args.revalidate)
    };
    finish(ctx, args, &findings, tools)
}

/// Prints the findings in the asked format.
fn finish(
    ctx: &Context,
    args: &CheckArgs,
    findings: &[Finding],
    tools: usize,
) -> anyhow::Result<Outcome> {
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
    Ok(Outcome::findings_if(!findings.is_empty()))
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
