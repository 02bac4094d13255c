//! The real backstop: the builtin generator (minimal UIs, fallbacks, the runtime) and the
//! validator, behind the [`Backstop`] seam the pipeline is written against.

use super::generator::{Backstop, Check, Repaired};
use super::generator::{LlmGenerator, LlmOutcome, LlmRequest};
use super::pipeline::allowed_origins;
use crate::generate::builtin::{self, Templates};
use crate::generate::request::GenerateError;
use crate::validate::{self, Options, Severity};

/// The builtin generator with its templates, plus the validator.
pub struct Builtin<'a> {
    pub templates: &'a Templates,
}

impl Backstop for Builtin<'_> {
    fn runtime_js(&self) -> String {
        builtin::runtime_js().to_string()
    }

    fn runtime_css(&self) -> String {
        // The builtin page's stylesheet styles the renderers' classes; the llm generator layers
        // it under the page's own styles.
        include_str!("../../../templates/styles.css").to_string()
    }

    fn builtin_page(&self, req: &LlmRequest) -> Result<String, GenerateError> {
        builtin::render(&req.widget_request(), self.templates)
    }

    fn validate(&self, html: &str, req: &LlmRequest) -> Vec<Check> {
        let opts = Options {
            allowed_origins: allowed_origins(req),
            llm_output: true,
        };
        validate::validate(html, &opts)
            .into_iter()
            .map(|f| Check {
                error: f.severity == Severity::Error,
                rule: f.rule.to_string(),
                // Line numbers count the injected runtime: the pipeline maps them back to the
                // model's own page for the repair prompt.
                message: f.message,
                line: f.line,
            })
            .collect()
    }

    fn repair(&self, html: &str, checks: &[Check]) -> Repaired {
        let mut out = Repaired {
            html: html.to_string(),
            ..Repaired::default()
        };
        if checks.iter().any(|c| c.rule == "module-scoped-call") {
            let (page, changes) = validate::expose_module_names(&out.html);
            out.html = page;
            out.changes.extend(changes);
        }
        if checks.iter().any(|c| c.rule == "low-contrast") {
            let r = validate::repair_contrast(&out.html);
            out.html = r.html;
            out.changes.extend(r.changes);
            out.failed = r.unrepaired;
        }
        out
    }

    fn fingerprint(&self) -> String {
        self.templates.fingerprint()
    }
}

impl LlmGenerator {
    /// sha256 hex over prompts, provider, model, temperature, max_tokens, runtime and the builtin
    /// fingerprint: part of the lock fingerprint.
    pub fn fingerprint(&self, builtin: &Templates) -> String {
        self.fingerprint_with(&Builtin { templates: builtin })
    }

    /// Generates many widgets with at most `jobs` in flight, identical requests de-duplicated.
    /// An `Err` only when even the builtin fallback could not be rendered.
    pub async fn generate_many(
        &self,
        reqs: Vec<LlmRequest>,
        builtin: &Templates,
    ) -> Vec<Result<LlmOutcome, GenerateError>> {
        self.generate_many_with(reqs, &Builtin { templates: builtin })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command layer may spawn generations on a multi-threaded runtime.
    #[test]
    fn generation_futures_are_send() {
        fn is_send<T: Send>(_: &T) {}
        fn is_sync<T: Sync>() {}
        is_sync::<LlmGenerator>();
        let cfg = crate::config::LlmConfig {
            provider: "ollama".into(),
            ..Default::default()
        };
        let g = LlmGenerator::from_config_with_env(&cfg, None, &|_| None).unwrap();
        let t = Templates::embedded();
        let fut = g.generate_many(Vec::new(), &t);
        is_send(&fut);
    }
}
