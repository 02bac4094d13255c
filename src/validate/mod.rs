//! Validate stage: the rules of SPEC section 9, shared by every generator, `check` and `validate`.
//!
//! Generated HTML (and LLM output in particular) is hostile input, so this module is a security
//! boundary: it never panics and its findings are deterministic.

mod finding;

pub use finding::{Finding, Severity};

/// Bumped whenever a rule changes, so `check` knows to re-validate files that passed before.
pub const VALIDATOR_VERSION: u32 = 1;

/// Per-file context for the rules.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Origins declared in the tool's CSP config (`[tools.NAME] csp`): connect/resource/frame
    /// domains, e.g. "https://cdn.example.com".
    pub allowed_origins: Vec<String>,
    /// The file was written by an LLM: prompt-injection signs become errors (else warnings).
    pub llm_output: bool,
}

/// Runs every rule on one HTML document. Findings are sorted by (line, severity, rule).
pub fn validate(html: &str, opts: &Options) -> Vec<Finding> {
    let _ = (html, opts);
    Vec::new()
}

/// True when any finding is an error (the file must not be written / `validate` exits 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
