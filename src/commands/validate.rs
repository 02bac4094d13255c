//! `validate FILE…`: the validator on any HTML file, generated or hand-written.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use serde::Serialize;

use crate::context::{Context, Outcome};
use crate::report::{Format, Printer, Render};
use crate::validate::{self, Severity};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// HTML files to validate
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// An origin the page may load from, as declared in a tool's `csp` config (repeatable)
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Treat the files as LLM output: prompt-injection signs become errors
    #[arg(long)]
    pub llm: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `validate`: findings when any file has an error; an error when a file cannot be read.
pub fn run(ctx: &Context, args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let opts = validate::Options {
        allowed_origins: args.allow_origin.clone(),
        llm_output: args.llm,
    };
    let mut files = Vec::new();
    for file in &args.files {
        let bytes =
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let html = String::from_utf8_lossy(&bytes);
        let findings = validate::validate(&html, &opts);
        files.push(FileReport {
            file: file.display().to_string(),
            valid: !validate::has_errors(&findings),
            findings,
        });
    }
    let validated = Validated {
        valid: files.iter().all(|f| f.valid),
        files,
    };
    ctx.printer.render(&validated, args.format.into())?;
    Ok(Outcome::findings_if(!validated.valid))
}

/// `validate`'s output record.
#[derive(Debug, Serialize)]
pub struct Validated {
    /// No file has an error.
    pub valid: bool,
    pub files: Vec<FileReport>,
}

/// One file and what the validator found in it.
#[derive(Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    pub valid: bool,
    pub findings: Vec<validate::Finding>,
}

impl Render for Validated {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        for r in &self.files {
            for f in &r.findings {
                let line = f.line.map(|l| format!(":{l}")).unwrap_or_default();
                let sev = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                p.out(format!(
                    "{}{line}: {sev}[{}]: {}",
                    r.file, f.rule, f.message
                ))?;
            }
            let errors = r
                .findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            let warnings = r.findings.len() - errors;
            p.status(format!(
                "{}: {}",
                r.file,
                if errors == 0 && warnings == 0 {
                    "valid".to_string()
                } else {
                    format!("{errors} error(s), {warnings} warning(s)")
                }
            ));
        }
        Ok(())
    }
}
