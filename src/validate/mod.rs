//! TEMPORARY placeholder with the agreed API until the validator branch is merged.
pub const VALIDATOR_VERSION: u32 = 1;
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub rule: &'static str,
    pub message: String,
    pub line: Option<usize>,
}
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub allowed_origins: Vec<String>,
    pub llm_output: bool,
}
pub fn validate(_html: &str, _opts: &Options) -> Vec<Finding> {
    Vec::new()
}
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}
