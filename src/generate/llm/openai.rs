//! OpenAI Chat Completions (`POST {base_url}/chat/completions`), which also serves every
//! OpenAI-compatible endpoint (vLLM, llama.cpp, LM Studio, OpenRouter, …) through `base_url`.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value, json};

use super::provider::{
    ChatRequest, ChatResponse, ErrorKind, Provider, ProviderError, Secret, StopReason, Usage,
    count, exchange, join_url, provider_impl,
};

/// The version path is part of the base URL, as with every OpenAI-compatible server.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const KEY_VAR: &str = "OPENAI_API_KEY";

pub struct OpenAi {
    client: reqwest::Client,
    base_url: String,
    model: String,
    key: Option<Secret>,
    /// OpenAI's newer models reject `max_tokens` and a non-default `temperature`, while many
    /// compatible servers know only `max_tokens`. We start with what the endpoint most likely
    /// takes and switch once if it names the parameter as unsupported.
    use_completion_tokens: AtomicBool,
    omit_temperature: AtomicBool,
}

impl OpenAi {
    pub fn new(
        client: reqwest::Client,
        base_url: Option<&str>,
        model: &str,
        key: Option<Secret>,
    ) -> Self {
        let official = base_url.is_none();
        OpenAi {
            client,
            base_url: base_url.unwrap_or(DEFAULT_BASE_URL).to_string(),
            model: model.to_string(),
            key,
            use_completion_tokens: AtomicBool::new(official),
            omit_temperature: AtomicBool::new(false),
        }
    }

    fn body(&self, req: &ChatRequest) -> Value {
        let mut m = Map::new();
        m.insert("model".into(), json!(self.model));
        m.insert(
            "messages".into(),
            json!([
                {"role": "system", "content": req.system},
                {"role": "user", "content": req.user},
            ]),
        );
        let tokens_key = if self.use_completion_tokens.load(Ordering::Relaxed) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        m.insert(tokens_key.into(), json!(req.max_tokens));
        if !self.omit_temperature.load(Ordering::Relaxed) {
            m.insert("temperature".into(), json!(req.temperature));
        }
        m.insert("stream".into(), json!(false));
        Value::Object(m)
    }

    async fn once(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let mut http = self
            .client
            .post(join_url(&self.base_url, "chat/completions"))
            .json(&self.body(req));
        if let Some(k) = &self.key {
            http = http.bearer_auth(k.expose());
        }
        parse(&exchange(http, "openai", self.key.as_ref()).await?)
    }

    async fn call(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let mut adapted = false;
        loop {
            match self.once(req).await {
                Err(e) if e.kind == ErrorKind::BadRequest && !adapted && self.adapt(&e.message) => {
                    adapted = true;
                    tracing::info!(
                        "openai endpoint rejected a parameter; retrying adapted: {}",
                        e.message
                    );
                }
                other => return other,
            }
        }
    }

    /// Learns from an "unsupported parameter" answer. True when the next request will differ.
    fn adapt(&self, message: &str) -> bool {
        let m = message.to_ascii_lowercase();
        if !(m.contains("unsupported") || m.contains("not supported") || m.contains("unrecognized"))
        {
            return false;
        }
        let mut changed = false;
        // The parameter named first is the rejected one ("… 'max_tokens' … Use
        // 'max_completion_tokens' instead").
        match (m.find("max_tokens"), m.find("max_completion_tokens")) {
            (Some(a), b) if b.is_none_or(|b| a < b) => {
                changed |= !self.use_completion_tokens.swap(true, Ordering::Relaxed);
            }
            (_, Some(_)) => {
                changed |= self.use_completion_tokens.swap(false, Ordering::Relaxed);
            }
            _ => {}
        }
        if m.contains("temperature") {
            changed |= !self.omit_temperature.swap(true, Ordering::Relaxed);
        }
        changed
    }
}

provider_impl!(OpenAi, "openai");

/// `{choices: [{message: {content}, finish_reason}], usage: {prompt_tokens, completion_tokens}}`.
fn parse(v: &Value) -> Result<ChatResponse, ProviderError> {
    let Some(choice) = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Err(ProviderError::new(
            ErrorKind::Malformed,
            "openai answered without `choices`",
        ));
    };
    let content = choice.pointer("/message/content");
    let text = match content {
        Some(Value::String(s)) => s.clone(),
        // Some compatible servers send content parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    };
    let stop = match choice.get("finish_reason").and_then(Value::as_str) {
        Some("stop") | None => StopReason::Complete,
        Some("length") => StopReason::Truncated,
        Some(other) => StopReason::Other(other.to_string()),
    };
    let usage = Usage {
        input_tokens: count(v.pointer("/usage/prompt_tokens")),
        output_tokens: count(v.pointer("/usage/completion_tokens")),
    };
    Ok(ChatResponse { text, stop, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_choices_and_usage() {
        let v = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "<html></html>"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
        });
        let r = parse(&v).unwrap();
        assert_eq!(r.text, "<html></html>");
        assert_eq!(r.stop, StopReason::Truncated);
        assert_eq!(r.usage.output_tokens, 7);
        let r = parse(&json!({"choices": [{"message": {"content": null}, "finish_reason": "content_filter"}]})).unwrap();
        assert_eq!(r.stop, StopReason::Other("content_filter".into()));
        assert!(parse(&json!({"choices": []})).is_err());
    }

    #[test]
    fn adapts_to_unsupported_parameters_once() {
        let p = OpenAi::new(
            reqwest::Client::new(),
            Some("http://127.0.0.1:9/v1"),
            "m",
            None,
        );
        let req = ChatRequest {
            system: "s".into(),
            user: "u".into(),
            max_tokens: 10,
            temperature: 0.2,
        };
        assert!(p.body(&req).get("max_tokens").is_some());
        let msg = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
        assert!(p.adapt(msg));
        assert!(p.body(&req).get("max_completion_tokens").is_some());
        assert!(!p.adapt(msg), "a second identical answer changes nothing");
        assert!(p.adapt("Unsupported value: 'temperature' does not support 0.2 with this model."));
        assert!(p.body(&req).get("temperature").is_none());
        assert!(!p.adapt("model not found"));
    }
}
