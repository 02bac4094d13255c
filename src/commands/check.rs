//! `check`: the pre-commit / CI gate. Offline and fast by default: every file in the lock exists
//! and matches its hash, nothing stray, every file valid; online it also compares upstream tools.

use clap::Args;

use super::Reporter;
use crate::context::{Context, Outcome};
use crate::pipeline::check::{Checked, Finding, check};
use crate::report::{Printer, Render, Style};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Also compare with the upstream's tools (contacts the configured upstream)
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

impl From<CheckFormat> for Style {
    fn from(f: CheckFormat) -> Style {
        match f {
            CheckFormat::Text => Style::Text,
            CheckFormat::Json => Style::Json,
            CheckFormat::Junit => Style::Junit,
        }
    }
}

/// Runs `check`: clean, findings, or an error when it cannot check at all.
pub fn run(ctx: &Context, args: &CheckArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let online = super::wants_online(ctx, &cfg, args.online);
    let checked = check(
        &cfg,
        online,
        args.revalidate,
        &Reporter::new(&ctx.printer),
        || ctx.runtime(),
    )?;
    ctx.printer.render(&checked, args.format.into())?;
    Ok(Outcome::findings_if(!checked.clean))
}

impl Render for Checked {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        for f in &self.findings {
            p.out(format!("{}: {}", f.kind, f.message))?;
        }
        let tools = self.tools;
        if self.findings.is_empty() {
            p.status(format!(
                "ok: {tools} tool{} checked, no drift",
                if tools == 1 { "" } else { "s" }
            ));
        } else {
            p.status(format!(
                "{} finding{}",
                self.findings.len(),
                if self.findings.len() == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    }

    fn other(&self, style: Style) -> Option<String> {
        (style == Style::Junit).then(|| junit(&self.findings, self.tools))
    }
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
