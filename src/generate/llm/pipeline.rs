//! One widget, end to end: classify → generate → extract → post-process → validate → (repair)
//! → accept, or fall back to the builtin output with the reason recorded.

use std::time::Instant;

use super::budget::{Budget, RetryPolicy, call_with_retries};
use super::extract::extract_html;
use super::postprocess::{Runtime, postprocess};
use super::prompts::{PromptData, tool_data};
use super::provider::{ChatRequest, ChatResponse, ProviderError, StopReason, Usage};
use super::{LlmGenerator, LlmOutcome, LlmRequest};
use crate::generate::{GenerateError, UiType};
use crate::model::header_comment;

/// A validator finding, reduced to what the pipeline needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub error: bool,
    pub rule: String,
    pub message: String,
}

/// What the llm generator borrows from the rest of the crate: the builtin generator (for minimal
/// UIs and fallbacks, and its runtime) and the validator.
pub trait Backstop: Sync {
    /// The inline runtime every page carries (defines `window.McpGenUi`).
    fn runtime_js(&self) -> String;
    /// The styles of the runtime's renderers (tables, charts, cards), injected with it.
    fn runtime_css(&self) -> String;
    /// The builtin generator's page for this request.
    fn builtin_page(&self, req: &LlmRequest) -> Result<String, GenerateError>;
    /// The validator's findings on an LLM-written page of this request.
    fn validate(&self, html: &str, req: &LlmRequest) -> Vec<Check>;
    /// The builtin generator's fingerprint (its output is part of ours).
    fn fingerprint(&self) -> String;
}

/// Tokens to allow the classification: one word, but reasoning models think first.
const CLASSIFY_MAX_TOKENS: u32 = 1024;

/// Why a page was not accepted, and the page itself when the model may be asked to fix it.
struct Problem {
    reason: String,
    page: Option<String>,
}

struct Run<'a> {
    started: Instant,
    budget: Budget,
    usage: Usage,
    warnings: Vec<String>,
    calls: u32,
    req: &'a LlmRequest,
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
        let problem = match self.process(&mut run, &answer, backstop) {
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
        let user = match self.prompts.repair(&ask.user, &previous, &problem.reason) {
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
        match self.process(&mut run, &answer, backstop) {
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

    /// Turns an answer into a finished page, or says what is wrong with it and whether the model
    /// could fix it (`page` holds the page to send back).
    fn process(
        &self,
        run: &mut Run<'_>,
        answer: &ChatResponse,
        backstop: &dyn Backstop,
    ) -> Result<String, Problem> {
        let req = run.req;
        let fatal = |reason: String| Problem { reason, page: None };
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
        let origins = allowed_origins(req);
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
            return Err(Problem {
                reason: format!(
                    "the page imports modules no host can load: {}",
                    list.join(", ")
                ),
                page: Some(page.html),
            });
        }
        for r in &processed.repairs {
            run.warnings.push(format!("repaired: {r}"));
        }

        let checks = backstop.validate(&processed.html, req);
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
            let injected = errors
                .iter()
                .any(|c| crate::validate::is_injection_rule(&c.rule));
            return Err(Problem {
                reason: format!("validation failed: {}", parts.join("; ")),
                page: (!injected).then_some(page.html),
            });
        }
        for c in checks.iter().filter(|c| !c.error) {
            run.warnings.push(format!("{}: {}", c.rule, c.message));
        }
        Ok(processed.html)
    }

    fn accepted(&self, run: Run<'_>, html: String) -> LlmOutcome {
        LlmOutcome {
            html,
            ui_type: UiType::Rich,
            fallback_reason: None,
            transient: false,
            usage: run.usage,
            elapsed: run.started.elapsed(),
            warnings: run.warnings,
            calls: run.calls,
        }
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

    /// An authentication or configuration error from the provider ends the whole run (SPEC 13):
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
        Ok(LlmOutcome {
            html,
            ui_type: UiType::Minimal,
            fallback_reason: None,
            transient: false,
            usage: run.usage,
            elapsed: run.started.elapsed(),
            warnings: run.warnings,
            calls: run.calls,
        })
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
            "used the builtin UI instead of the LLM's{}: {reason}",
            if transient {
                " (a passing failure: it is retried on the next run)"
            } else {
                ""
            }
        ));
        Ok(LlmOutcome {
            html,
            ui_type: UiType::Minimal,
            fallback_reason: Some(reason),
            transient,
            usage: run.usage,
            elapsed: run.started.elapsed(),
            warnings: run.warnings,
            calls: run.calls,
        })
    }
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
    let csp = &req.tool_config.csp;
    csp.connect_domains
        .iter()
        .chain(&csp.resource_domains)
        .chain(&csp.frame_domains)
        .cloned()
        .collect()
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
