//! Many widgets at once: at most `jobs` generations in flight, identical requests generated once.

use std::collections::HashMap;

use futures_util::stream::{self, StreamExt};

use super::generator::Backstop;
use super::generator::{LlmGenerator, LlmOutcome, LlmRequest};
use crate::generate::request::GenerateError;

impl LlmGenerator {
    /// Generates many widgets with at most `jobs` in flight; identical requests are generated
    /// once and share the outcome. Results come back in the order of `reqs`.
    pub async fn generate_many_with(
        &self,
        reqs: Vec<LlmRequest>,
        backstop: &dyn Backstop,
    ) -> Vec<Result<LlmOutcome, GenerateError>> {
        let keys: Vec<String> = reqs.iter().map(LlmRequest::dedup_key).collect();
        let mut first: HashMap<&str, usize> = HashMap::new();
        let mut unique: Vec<usize> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            if !first.contains_key(k.as_str()) {
                first.insert(k, i);
                unique.push(i);
            }
        }
        let jobs = self.settings.jobs.max(1);
        let reqs_ref = &reqs;
        let mut done: HashMap<usize, Result<LlmOutcome, GenerateError>> = stream::iter(unique)
            .map(|i| async move {
                let out = match reqs_ref.get(i) {
                    Some(r) => self.generate_one(r, backstop).await,
                    None => Err(GenerateError::Template {
                        tool: String::new(),
                        message: "internal: request index out of range".into(),
                    }),
                };
                (i, out)
            })
            .buffer_unordered(jobs)
            .collect()
            .await;
        // Errors are not Clone: a duplicate of a failed request gets the message.
        let mut failed: HashMap<usize, String> = HashMap::new();
        let mut out = Vec::with_capacity(reqs.len());
        for (i, (k, r)) in keys.iter().zip(reqs.iter()).enumerate() {
            let src = first.get(k.as_str()).copied().unwrap_or(i);
            let result = if src == i {
                match done.remove(&i) {
                    Some(Ok(o)) => {
                        done.insert(i, Ok(o.clone()));
                        Ok(o)
                    }
                    Some(Err(e)) => {
                        failed.insert(i, e.to_string());
                        Err(e)
                    }
                    None => Err(missing(r)),
                }
            } else {
                match (done.get(&src), failed.get(&src)) {
                    (Some(Ok(o)), _) => Ok(o.clone()),
                    (_, Some(m)) => Err(GenerateError::Template {
                        tool: r.tool.name.clone(),
                        message: m.clone(),
                    }),
                    _ => Err(missing(r)),
                }
            };
            out.push(result);
        }
        out
    }
}

fn missing(r: &LlmRequest) -> GenerateError {
    GenerateError::Template {
        tool: r.tool.name.clone(),
        message: "internal: no outcome for this request".into(),
    }
}
