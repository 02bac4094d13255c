//! Pages run before they are kept (book: reference/llm.md): the pipeline's use of the browser
//! judge. One browser per run, started when the first page needs it and shared by every page;
//! its findings are repaired mechanically where they can be (contrast), else they go to the
//! model's repair round like the validator's, located in the model's own page. Without a browser,
//! pages are judged statically and the run says so once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::browser_slot::BrowserSlot;

use super::generator::{Check, LlmGenerator};
use super::pipeline::{Problem, Run, locate_findings};
use crate::validate::browser::{BrowserFinding, PageToJudge, repair_contrast};

/// Judging needs at least this much of the tool's budget; with less, the page is judged
/// statically (and the run says why).
const MIN_BUDGET: Duration = Duration::from_secs(4);

impl LlmGenerator {
    /// Judges pages in the browser at `exe` (`None`: statically only).
    pub fn with_browser(mut self, exe: Option<PathBuf>) -> Self {
        self.browser = Arc::new(BrowserSlot::at(exe));
        self
    }

    /// Whether this run started a browser.
    pub fn browser_started(&self) -> bool {
        self.browser.started()
    }

    /// The run's one line when pages cannot be run in a browser.
    pub fn browser_note(&self) -> Option<String> {
        self.browser.exe().is_none().then(|| {
            "llm pages were not run in a browser (judged statically only): install Chromium or Chrome, or name one with MCP_GEN_UI_BROWSER=PATH".to_string()
        })
    }

    /// Runs a page that passed the static judgment in the browser; returns the page to keep
    /// (mechanically repaired when that sufficed) or the problem for the repair round.
    pub(super) async fn run_in_browser(
        &self,
        run: &mut Run<'_>,
        html: String,
        model_page: &str,
    ) -> Result<String, Problem> {
        if self.browser.exe().is_none() {
            return Ok(html);
        }
        if run.budget.remaining() < MIN_BUDGET {
            run.warnings.push(
                "not run in the browser: too little of the time budget was left ([llm] timeout_ms)"
                    .into(),
            );
            return Ok(html);
        }
        let findings = match self.judge_blocking(run, &html).await {
            Ok(f) => only_findings(run, f),
            Err(e) => {
                run.warnings
                    .push(format!("not run in the browser (judged statically): {e}"));
                return Ok(html);
            }
        };
        if findings.is_empty() {
            return Ok(html);
        }
        // Mechanical repair first: colours, then judge the repaired page again.
        let (repaired, changes, failed) = repair_contrast(&html, &findings);
        let (html, findings) = if changes.is_empty() || run.budget.remaining() < MIN_BUDGET {
            (html, findings)
        } else {
            match self.judge_blocking(run, &repaired).await {
                Ok(again) => {
                    run.warnings
                        .extend(changes.iter().map(|c| format!("repaired: {c}")));
                    (repaired, only_findings(run, again))
                }
                Err(_) => (html, findings),
            }
        };
        if findings.is_empty() {
            return Ok(html);
        }
        Err(problem(&findings, &failed, &html, model_page))
    }

    async fn judge_blocking(
        &self,
        run: &Run<'_>,
        html: &str,
    ) -> Result<Vec<BrowserFinding>, String> {
        let slot = Arc::clone(&self.browser);
        let req = run.req;
        let tool = serde_json::Value::Object(req.tool.raw.clone());
        let csp = req.tool_config.csp.clone();
        let examples = req.tool_config.examples.clone();
        let sample = req.sample.clone();
        let deadline = Instant::now() + run.budget.remaining();
        let html = html.to_string();
        let joined = tokio::task::spawn_blocking(move || {
            let judge = slot.judge().ok_or("no browser")??;
            let findings = judge.judge(&PageToJudge {
                html: &html,
                tool: &tool,
                csp: &csp,
                examples: &examples,
                sample: sample.as_ref(),
                deadline,
            });
            if let Some(f) = findings.iter().find(|f| f.rule == "browser-unavailable") {
                return Err(f.message.clone());
            }
            Ok(findings)
        })
        .await;
        joined.map_err(|e| format!("the browser judge failed: {e}"))?
    }
}

/// The findings that count; what the page did with a guessed result becomes the run's note.
fn only_findings(run: &mut Run<'_>, all: Vec<BrowserFinding>) -> Vec<BrowserFinding> {
    let (guess, findings): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|f| f.rule == "browser-guess");
    if let Some(g) = guess.first() {
        let note = format!(
            "the page failed on a guessed result (the tool declares no outputSchema; --sample shows it a real one): {}",
            g.message
        );
        if !run.warnings.contains(&note) {
            run.warnings.push(note);
        }
    }
    findings
}

/// The findings as the fallback reason and the repair prompt give them: each quoted, located in
/// the model's own page where the browser names a line or the colour can be found there.
fn problem(
    findings: &[BrowserFinding],
    failed: &[String],
    judged: &str,
    model_page: &str,
) -> Problem {
    let mut parts: Vec<String> = findings
        .iter()
        .take(3)
        .map(|f| format!("{}: {}", f.rule, f.message))
        .collect();
    if findings.len() > 3 {
        parts.push(format!("and {} more", findings.len() - 3));
    }
    let reason = format!("the page failed in the browser: {}", parts.join("; "));
    let checks: Vec<Check> = findings
        .iter()
        .map(|f| Check {
            error: true,
            rule: f.rule.to_string(),
            message: f.message.clone(),
            line: f.line.or_else(|| colour_line(f, judged)),
        })
        .collect();
    let refs: Vec<&Check> = checks.iter().collect();
    Problem {
        reason,
        page: Some(model_page.to_string()),
        problems: locate_findings(&refs, judged, model_page, failed),
    }
}

/// The line of the judged page that sets a failing colour, when one does.
fn colour_line(f: &BrowserFinding, judged: &str) -> Option<usize> {
    let c = f.contrast.as_ref()?;
    let want = c.fg.to_ascii_lowercase();
    judged
        .lines()
        .position(|l| l.to_ascii_lowercase().contains(&want))
        .map(|i| i + 1)
}
