//! The browser judge (book: reference/llm.md, "Pages run before they are kept"): each candidate
//! llm page is loaded in a local Chromium or Chrome inside the review host, with a tool-input and
//! a result, and judged on what really happens there.
//!
//! Files: `launch` starts the browser (fresh profile, DevTools on a pipe), `cdp` speaks the
//! protocol, `host` serves the host page and the page under judgment, `session` is one page's
//! tab (requests outside the local host blocked, console heard), `run` does the checks,
//! `probe.js` is what runs inside the page's frame, `args` checks a call against the schema,
//! `fix` repairs what can be repaired without a model.

mod args;
mod cdp;
mod fix;
mod host;
mod launch;
mod run;
mod session;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use args::errors as argument_errors;
pub use fix::repair_contrast;
pub use run::shown_values;

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
    /// `browser-contrast`, `browser-size`, or `browser-unavailable` (the browser failed, not the
    /// page).
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

/// A browser and a local host, started once per run and shared by every page.
pub struct Judge {
    browser: launch::Browser,
    host: host::HostServer,
    seq: AtomicU64,
}

impl Judge {
    /// Starts the browser at `exe` and the local host.
    pub fn start(exe: &Path) -> Result<Judge, String> {
        let host =
            host::HostServer::start().map_err(|e| format!("cannot start the local host: {e}"))?;
        let local = host.origin().trim_start_matches("http://").to_string();
        let browser = launch::Browser::start(exe, &local, Duration::from_secs(20))?;
        Ok(Judge {
            browser,
            host,
            seq: AtomicU64::new(1),
        })
    }

    fn next_id(&self) -> String {
        let n = self.seq.fetch_add(1, Ordering::Relaxed);
        let rnd = crate::token::random_hex(6).unwrap_or_default();
        format!("{n}-{rnd}")
    }

    /// Judges one page (blocking; at most until its deadline, plus the browser's last answers).
    pub fn judge(&self, page: &PageToJudge<'_>) -> Vec<BrowserFinding> {
        run::judge_page(self, page)
    }
}
