//! `validate FILE…`: the validator on any HTML file, generated or hand-written.

use anyhow::Context as _;
use clap::Args;
use serde_json::json;
use std::path::PathBuf;

use super::context::{Context, Outcome};
use crate::report::Format;
use crate::validate::{self, Severity};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// HTML files to validate
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// An origin the page may load from (as declared in the tool's CSP config); repeatable
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Treat the files as LLM output: prompt-injection signs become errors
    #[arg(long)]
    pub llm: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `validate`: findings when any file has an error; an error when a file cannot be read.
pub fn run(ctx: &Context, args: &ValidateArgs) -> anyhow::Result<Outcome> {
    let opts = validate::Options {
        allowed_origins: args.allow_origin.clone(),
        llm_output: args.llm,
    };
    let mut any_error = false;
    let mut results = Vec::new();
    for file in &args.files {
        let bytes =
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        let html = String::from_utf8_lossy(&bytes);
        let findings = validate::validate(&html, &opts);
        any_error |= validate::has_errors(&findings);
        results.push((file, findings));
    }
    let p = &ctx.printer;
    if args.format == Format::Json {
        let files: Vec<_> = results
            .iter()
            .map(|(f, findings)| json!({"file": f.display().to_string(), "valid": !validate::has_errors(findings), "findings": findings}))
            .collect();
        p.json(&json!({"valid": !any_error, "files": files}))?;
    } else {
        for (file, findings) in &results {
            for f in findings {
                let line = f.line.map(|l| format!(":{l}")).unwrap_or_default();
                let sev = match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                p.out(format!(
                    "{}{line}: {sev}[{}]: {}",
                    file.display(),
                    f.rule,
                    f.message
                ))?;
            }
            let errors = findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            let warnings = findings.len() - errors;
            p.status(format!(
                "{}: {}",
                file.display(),
                if errors == 0 && warnings == 0 {
                    "valid".to_string()
                } else {
                    format!("{errors} error(s), {warnings} warning(s)")
                }
            ));
        }
    }
    Ok(Outcome::findings_if(any_error))
}
