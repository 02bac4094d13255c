//! One widget, end to end: classify → generate → extract → post-process → validate → (repair)
//! → accept, or fall back to the builtin output with the reason recorded.

use std::time::Instant;

use super::budget::{Budget, RetryPolicy, call_with_retries};
use super::extract::extract_html;
use super::generator::{Backstop, Check};
use super::generator::{LlmGenerator, LlmOutcome, LlmRequest};
use super::postprocess::{Runtime, postprocess};
use super::prompts::{PromptData, tool_data};
use super::provider::{ChatRequest, ChatResponse, ProviderError, StopReason, Usage};
use crate::generate::request::{GenerateError, UiType};
use crate::model::header_comment;
use crate::origins::Origins;

/// How the warning of a page replaced by the builtin UI begins: the text output shows the
/// replacement once, from the fallback reason, and the run's other warnings as notes.
pub const REPLACED: &str = "used the builtin UI instead of the LLM's";

/// Tokens to allow the classification: one word, but reasoning models think first.
const CLASSIFY_MAX_TOKENS: u32 = 1024;

/// Why a page was not accepted, and the page itself when the model may be asked to fix it.
pub(super) struct Problem {
    pub(super) reason: String,
    pub(super) page: Option<String>,
    /// Every finding, located in the model's own page: what the repair prompt carries.
    pub(super) problems: Vec<String>,
}

pub(super) struct Run<'a> {
    started: Instant,
    pub(super) budget: Budget,
    usage: Usage,
    pub(super) warnings: Vec<String>,
    calls: u32,
    pub(super) req: &'a LlmRequest,
}

impl LlmGenerator {
    /// Generates one widget. Errors only when even the builtin fallback cannot be rendered.
    pub async fn generate_one(
        &self,
        req: &LlmRequest,
        backstop: &dyn Backstop,
    ) -> Result<LlmOutcome, GenerateError> {
        let mut run = Run {
            started: Instant::now(),
            budget: Budget::start(self.settings.timeout),
            usage: Usage::default(),
            warnings: Vec::new(),
            calls: 0,
            req,
        };
        let data = PromptData {
            tool: tool_data(&req.tool.raw),
            tool_name: req.tool.name.clone(),
            hints: (!req.hints.is_empty())
                .then(|| serde_json::to_value(&req.hints).ok())
                .flatten(),
            examples: req.tool_config.examples.clone(),
            sample: req.sample.clone(),
            widget: req.widget.clone(),
            refinements: req.refinements.clone(),
            current_page: req
                .current_page
                .as_deref()
                .map(super::postprocess::strip_injected),
        };
        let prompts = (|| {
            Ok::<_, super::prompts::PromptError>((
                self.prompts.system()?,
                self.prompts.classify(&data)?,
                self.prompts.generate(&data)?,
            ))
        })();
        let (system, classify, generate) = match prompts {
            Ok(p) => p,
            Err(e) => return self.fallback(run, backstop, format!("{e}"), false),
        };

        // Refinements are requests for this tool's own UI: only the model can follow them.
        if req.refinements.is_empty() {
            let ask = ChatRequest {
                system: system.clone(),
                user: classify,
                max_tokens: self.settings.max_tokens.min(CLASSIFY_MAX_TOKENS),
                temperature: 0.0,
            };
            let answer = match self.call(&mut run, &ask).await {
                Ok(a) => a,
                Err(e) => {
                    self.refuse_run(&e)?;
                    let transient = e.retryable();
                    return self.fallback(
                        run,
                        backstop,
                        format!("classification failed: {e}"),
                        transient,
                    );
                }
            };
            if classify_answer(&answer.text) == UiType::Minimal {
                return self.minimal(run, backstop);
            }
        }

        let ask = ChatRequest {
            system,
            user: generate,
            max_tokens: self.settings.max_tokens,
            temperature: self.settings.temperature,
        };
        let answer = match self.call(&mut run, &ask).await {
            Ok(a) => a,
            Err(e) => {
                self.refuse_run(&e)?;
                let transient = e.retryable();
                return self.fallback(run, backstop, format!("generation failed: {e}"), transient);
            }
        };
        let problem = match self.judged(&mut run, &answer, backstop).await {
            Ok(html) => return Ok(self.accepted(run, html)),
            Err(p) => p,
        };
        // One repair round: the model sees what was wrong with its page, if time allows (half
        // the budget, since a second page costs as much as the first).
        let Some(previous) = problem
            .page
            .filter(|_| run.budget.remaining() >= run.budget.total() / 2)
        else {
            return self.fallback(run, backstop, problem.reason, false);
        };
        let user = match self.prompts.repair(&ask.user, &previous, &problem.problems) {
            Ok(u) => u,
            Err(e) => return self.fallback(run, backstop, e.to_string(), false),
        };
        let ask = ChatRequest { user, ..ask };
        let answer = match self.call(&mut run, &ask).await {
            Ok(a) => a,
            Err(e) => {
                self.refuse_run(&e)?;
                let transient = e.retryable();
                let reason = format!("{}; the repair request failed: {e}", problem.reason);
                return self.fallback(run, backstop, reason, transient);
            }
        };
        match self.judged(&mut run, &answer, backstop).await {
            Ok(html) => {
                run.warnings.push(format!(
                    "the model repaired its page after: {}",
                    problem.reason
                ));
                Ok(self.accepted(run, html))
            }
            Err(p) => {
                let reason = format!("{} (also after one repair round)", p.reason);
                self.fallback(run, backstop, reason, false)
            }
        }
    }

    /// [`process`](Self::process), then the page that passed runs in the browser (when there is
    /// one).
    async fn judged(
        &self,
        run: &mut Run<'_>,
        answer: &ChatResponse,
        backstop: &dyn Backstop,
    ) -> Result<String, Problem> {
        let (html, model_page) = self.process(run, answer, backstop)?;
        self.run_in_browser(run, html, &model_page).await
    }

    /// Turns an answer into a finished page (and the model's own page it came from), or says
    /// what is wrong with it and whether the model could fix it (`page` holds the page to send
    /// back).
    fn process(
        &self,
        run: &mut Run<'_>,
        answer: &ChatResponse,
        backstop: &dyn Backstop,
    ) -> Result<(String, String), Problem> {
        let req = run.req;
        let fatal = |reason: String| Problem {
            problems: vec![reason.clone()],
            reason,
            page: None,
        };
        if let StopReason::Other(r) = &answer.stop {
            run.warnings.push(format!("the model stopped with `{r}`"));
        }
        let truncated = answer.stop == StopReason::Truncated;
        let Some(page) = extract_html(&answer.text) else {
            return Err(fatal(if truncated {
                self.truncation_reason()
            } else {
                format!(
                    "the model's answer contains no HTML page (it began: {:?})",
                    super::provider::clip(answer.text.trim(), 80)
                )
            }));
        };
        if truncated || page.unterminated {
            if truncated && page.unterminated || !page.html.to_ascii_lowercase().contains("</html>")
            {
                // A second page would be cut at the same length: no repair round.
                return Err(fatal(if truncated {
                    self.truncation_reason()
                } else {
                    "the model's page is cut off (no closing </html>)".to_string()
                }));
            }
            // The page closed before the cut: only trailing prose was lost.
            run.warnings.push(
                "the answer hit max_tokens after the page was complete; kept the page".into(),
            );
        }
        if let Some(sign) = super::extract::injection_sign(&page.prose) {
            // Never ask a model that follows injected instructions to try again.
            return Err(fatal(format!(
                "the model's answer shows signs of prompt injection (\"{sign}\")"
            )));
        }
        if page.dropped_prose {
            run.warnings
                .push("dropped prose around the page in the model's answer".into());
        }

        let header = header_comment(&req.tool.name);
        let origins = Origins::from_csp(&req.tool_config.csp);
        let (js, css) = (backstop.runtime_js(), backstop.runtime_css());
        let tool = serde_json::json!({
            "name": req.tool.name,
            "inputSchema": req.tool.raw.get("inputSchema").cloned().unwrap_or(serde_json::Value::Null),
        });
        let tool_json = super::postprocess::script_json(&tool);
        let runtime = Runtime {
            js: &js,
            css: &css,
            tool_json: &tool_json,
        };
        let processed = postprocess(&page.html, &header, &runtime, &origins)
            .map_err(|e| fatal(e.to_string()))?;
        if !processed.unresolved_imports.is_empty() {
            let list: Vec<String> = processed
                .unresolved_imports
                .iter()
                .map(|s| format!("\"{}\"", super::provider::clip(s, 80)))
                .collect();
            let reason = format!(
                "the page imports modules no host can load: {}",
                list.join(", ")
            );
            return Err(Problem {
                problems: vec![reason.clone()],
                reason,
                page: Some(page.html),
            });
        }
        for r in &processed.repairs {
            run.warnings.push(format!("repaired: {r}"));
        }
        // Controls bound to a schema field get the accessible name the schema gives them.
        let mut html = processed.html;
        if let Some(schema) = req.tool.raw.get("inputSchema") {
            let (named, notes) = super::names::name_controls(&html, schema);
            html = named;
            run.warnings
                .extend(notes.into_iter().map(|n| format!("repaired: {n}")));
        }

        // Repair before judging (book: reference/llm.md): every finding with a mechanical repair is repaired,
        // then the page is validated again; only what is left decides.
        let mut checks = backstop.validate(&html, req);
        let mut repair_failures = Vec::new();
        if checks.iter().any(|c| c.error && has_repair(&c.rule)) {
            let repaired = backstop.repair(&html, &checks);
            if repaired.html != html {
                html = repaired.html;
                checks = backstop.validate(&html, req);
            }
            run.warnings
                .extend(repaired.changes.iter().map(|c| format!("repaired: {c}")));
            repair_failures = repaired.failed;
        }
        let errors: Vec<&Check> = checks.iter().filter(|c| c.error).collect();
        if !errors.is_empty() {
            let mut parts: Vec<String> = errors
                .iter()
                .take(3)
                .map(|c| format!("{}: {}", c.rule, c.message))
                .collect();
            if errors.len() > 3 {
                parts.push(format!("and {} more", errors.len() - 3));
            }
            let mut reason = format!("validation failed: {}", parts.join("; "));
            if errors.iter().any(|c| has_repair(&c.rule)) && !repair_failures.is_empty() {
                let mut why: Vec<&str> =
                    repair_failures.iter().take(3).map(String::as_str).collect();
                let more = format!("and {} more", repair_failures.len().saturating_sub(3));
                if repair_failures.len() > 3 {
                    why.push(&more);
                }
                reason.push_str(&format!(
                    " (the mechanical repair failed: {})",
                    why.join("; ")
                ));
            }
            let injected = errors
                .iter()
                .any(|c| crate::validate::is_injection_rule(&c.rule));
            let located = locate_findings(&errors, &html, &page.html, &repair_failures);
            return Err(Problem {
                reason,
                page: (!injected).then_some(page.html),
                problems: located,
            });
        }
        for c in checks.iter().filter(|c| !c.error) {
            run.warnings.push(format!("{}: {}", c.rule, c.message));
        }
        Ok((html, page.html))
    }

    fn accepted(&self, run: Run<'_>, html: String) -> LlmOutcome {
        outcome(run, html, UiType::Rich, None, false)
    }

    async fn call(
        &self,
        run: &mut Run<'_>,
        ask: &ChatRequest,
    ) -> Result<super::provider::ChatResponse, ProviderError> {
        let policy = RetryPolicy::new(self.settings.max_retries);
        let called = call_with_retries(self.provider.as_ref(), ask, &run.budget, &policy).await;
        run.usage += called.usage;
        run.calls += called.attempts;
        run.warnings.extend(called.notes);
        called.result
    }

    /// An authentication or configuration error from the provider ends the whole run (book: reference/exit-codes.md):
    /// a fallback page would look like success, and the next run with the right key would say
    /// "up to date".
    fn refuse_run(&self, e: &ProviderError) -> Result<(), GenerateError> {
        use super::provider::ErrorKind;
        let provider = self.provider.name();
        let check = match e.kind {
            ErrorKind::Auth => match provider {
                "anthropic" => format!("the API key in {}", super::anthropic::KEY_VAR),
                "openai" => format!("the API key in {}", super::openai::KEY_VAR),
                _ => "the provider's credentials and [llm] base_url".to_string(),
            },
            ErrorKind::NotFound => "[llm] base_url and model".to_string(),
            _ => return Ok(()),
        };
        Err(GenerateError::Provider {
            provider: provider.to_string(),
            check,
            message: e.to_string(),
        })
    }

    fn truncation_reason(&self) -> String {
        format!(
            "the answer was truncated at max_tokens = {}: raise [llm] max_tokens",
            self.settings.max_tokens
        )
    }

    fn minimal(&self, run: Run<'_>, backstop: &dyn Backstop) -> Result<LlmOutcome, GenerateError> {
        let html = backstop.builtin_page(run.req)?;
        Ok(outcome(run, html, UiType::Minimal, None, false))
    }

    fn fallback(
        &self,
        mut run: Run<'_>,
        backstop: &dyn Backstop,
        reason: String,
        transient: bool,
    ) -> Result<LlmOutcome, GenerateError> {
        let html = backstop.builtin_page(run.req)?;
        tracing::warn!(tool = %run.req.tool.name, transient, "llm output replaced by the builtin UI: {reason}");
        run.warnings.push(format!(
            "{REPLACED}{}: {reason}",
            if transient {
                " (a passing failure: it is retried on the next run)"
            } else {
                ""
            }
        ));
        Ok(outcome(run, html, UiType::Minimal, Some(reason), transient))
    }
}

/// What a run ends with: the page, how it was made, and what the run spent and noticed.
fn outcome(
    run: Run<'_>,
    html: String,
    ui_type: UiType,
    fallback_reason: Option<String>,
    transient: bool,
) -> LlmOutcome {
    LlmOutcome {
        html,
        ui_type,
        fallback_reason,
        transient,
        usage: run.usage,
        elapsed: run.started.elapsed(),
        warnings: run.warnings,
        calls: run.calls,
    }
}

/// Rules whose findings the pipeline repairs itself before judging a page.
fn has_repair(rule: &str) -> bool {
    rule == "low-contrast" || rule == "module-scoped-call"
}

/// Every finding as the repair prompt gives it: numbered, with the line of the model's own page
/// (the page it is shown, before the runtime was injected) and the offending snippet there.
pub(super) fn locate_findings(
    errors: &[&Check],
    processed: &str,
    model_page: &str,
    repair_failures: &[String],
) -> Vec<String> {
    let processed_lines: Vec<&str> = processed.lines().collect();
    let model_lines: Vec<&str> = model_page.lines().collect();
    // The runtime is injected near the top: a line moves down by about the difference.
    let shift = processed_lines.len().saturating_sub(model_lines.len());
    let mut out = Vec::new();
    for (i, c) in errors.iter().enumerate() {
        let found = c.line.and_then(|l| {
            let text = processed_lines.get(l.checked_sub(1)?)?.trim();
            if text.is_empty() {
                return None;
            }
            let guess = l.saturating_sub(shift);
            model_lines
                .iter()
                .enumerate()
                .filter(|(_, m)| m.trim() == text)
                .min_by_key(|(k, _)| (k + 1).abs_diff(guess))
                .map(|(k, m)| (k + 1, m.trim().to_string()))
        });
        let at = match found {
            Some((line, snippet)) => {
                format!("line {line}: `{}`", super::provider::clip(&snippet, 160))
            }
            None => "(whole page)".to_string(),
        };
        out.push(format!("{}. [{}] {at}: {}", i + 1, c.rule, c.message));
    }
    for f in repair_failures {
        out.push(format!("- could not be repaired automatically: {f}"));
    }
    out
}

/// "rich" only when the model clearly said so; anything else (an essay, "minimal", nothing) is
/// minimal, as the classification is biased to.
pub fn classify_answer(text: &str) -> UiType {
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| *w == "rich" || *w == "minimal")
        .collect();
    match words.as_slice() {
        [first, ..] if *first == "rich" && !words.contains(&"minimal") => UiType::Rich,
        _ => UiType::Minimal,
    }
}

/// Origins the tool's CSP config declares (remote resources from them are allowed).
pub fn allowed_origins(req: &LlmRequest) -> Vec<String> {
    req.tool_config.csp.fetch_origins()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_is_biased_to_minimal() {
        assert_eq!(classify_answer("rich"), UiType::Rich);
        assert_eq!(classify_answer("  Rich.\n"), UiType::Rich);
        assert_eq!(classify_answer("minimal"), UiType::Minimal);
        assert_eq!(classify_answer("rich or minimal? minimal"), UiType::Minimal);
        assert_eq!(classify_answer(""), UiType::Minimal);
        assert_eq!(
            classify_answer("I think a table would be nice"),
            UiType::Minimal
        );
        assert_eq!(classify_answer("enrich"), UiType::Minimal);
    }
}
