//! The report types every validator rule produces: severities and findings.

use serde::Serialize;

/// How bad a finding is; `Error` blocks writing a file, `Warning` is advisory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// One rule violation in one HTML file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// Kebab-case rule id, e.g. `inline-event-handler`.
    pub rule: &'static str,
    /// Says what is wrong and how to fix it.
    pub message: String,
    /// 1-based line in the HTML file, when known.
    pub line: Option<usize>,
}

impl Finding {
    pub fn error(rule: &'static str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            rule,
            message: message.into(),
            line,
        }
    }

    pub fn warning(rule: &'static str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            rule,
            message: message.into(),
            line,
        }
    }
}

/// Keeps hostile attribute values from flooding a message.
pub(super) fn clip(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.escape_debug().to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{}…", head.escape_debug())
    }
}
