//! What the browser judge's files share: a page to judge, and what the browser found.

use std::time::Instant;

use serde_json::Value;

/// The theme a finding was seen in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// Rendered text below AA: where, and the colours the browser computed.
#[derive(Debug, Clone, PartialEq)]
pub struct ContrastFix {
    pub selector: String,
    pub theme: Theme,
    pub fg: String,
    pub bg: String,
    pub need: f64,
}

/// One thing the browser saw wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserFinding {
    /// `browser-handshake`, `browser-console`, `browser-csp`, `browser-values`, `browser-run`,
    /// `browser-contrast`, `browser-size`, `browser-unavailable` (the browser failed, not the
    /// page), or `browser-guess` (the page failed on a guessed result: a note, not a finding).
    pub rule: &'static str,
    pub message: String,
    /// The line in the judged page, when the browser names one.
    pub line: Option<usize>,
    pub contrast: Option<ContrastFix>,
}

/// A page to judge and what to show it.
pub struct PageToJudge<'a> {
    pub html: &'a str,
    /// The tool's definition (`name`, `inputSchema`, `outputSchema`).
    pub tool: &'a Value,
    pub csp: &'a crate::config::CspConfig,
    /// Configured example inputs (the first is the tool-input).
    pub examples: &'a [Value],
    /// A sampled result (only under `--sample`'s rules), else one is built from the schemas.
    pub sample: Option<&'a Value>,
    pub deadline: Instant,
}
