//! Ollama's native chat API (`POST {base_url}/api/chat`, no key).

use serde_json::{Value, json};

use super::provider::{
    ChatRequest, ChatResponse, ErrorKind, Provider, ProviderError, StopReason, Usage, count,
    exchange, join_url, provider_impl,
};

pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:11434";

pub struct Ollama {
    client: reqwest::Client,
    base_url: String,
    model: String,
}

impl Ollama {
    pub fn new(client: reqwest::Client, base_url: Option<&str>, model: &str) -> Self {
        // Accept the API root as well as the server root (`…/api` is a common way to write it).
        let base = base_url.unwrap_or(DEFAULT_BASE_URL).trim_end_matches('/');
        let base = base.strip_suffix("/api").unwrap_or(base);
        Ollama {
            client,
            base_url: base.to_string(),
            model: model.to_string(),
        }
    }

    async fn call(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let body = json!({
            "model": self.model,
            "stream": false,
            "messages": [
                {"role": "system", "content": req.system},
                {"role": "user", "content": req.user},
            ],
            // Ollama's default context (2–4 k tokens) silently cuts a long prompt; a UI prompt
            // plus a full page needs more.
            "options": {"temperature": req.temperature, "num_predict": req.max_tokens, "num_ctx": 16384},
        });
        let http = self
            .client
            .post(join_url(&self.base_url, "api/chat"))
            .json(&body);
        parse(&exchange(http, "ollama", None).await?)
    }
}

provider_impl!(Ollama, "ollama");

/// `{message: {content}, done, done_reason, prompt_eval_count, eval_count}`.
fn parse(v: &Value) -> Result<ChatResponse, ProviderError> {
    if let Some(e) = v.get("error").and_then(Value::as_str) {
        return Err(ProviderError::new(
            ErrorKind::Server,
            format!("ollama: {e}"),
        ));
    }
    let Some(text) = v.pointer("/message/content").and_then(Value::as_str) else {
        return Err(ProviderError::new(
            ErrorKind::Malformed,
            "ollama answered without `message.content`",
        ));
    };
    let stop = match v.get("done_reason").and_then(Value::as_str) {
        Some("stop") | None => StopReason::Complete,
        Some("length") => StopReason::Truncated,
        Some(other) => StopReason::Other(other.to_string()),
    };
    let usage = Usage {
        input_tokens: count(v.get("prompt_eval_count")),
        output_tokens: count(v.get("eval_count")),
    };
    Ok(ChatResponse {
        text: text.to_string(),
        stop,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_message_and_counts() {
        let v = json!({"model": "qwen2.5-coder", "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "hi"}, "done": true, "done_reason": "length",
            "prompt_eval_count": 3, "eval_count": 4});
        let r = parse(&v).unwrap();
        assert_eq!(r.text, "hi");
        assert_eq!(r.stop, StopReason::Truncated);
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 3,
                output_tokens: 4
            }
        );
        assert!(parse(&json!({"error": "boom"})).is_err());
        assert!(parse(&json!({"done": true})).is_err());
    }

    #[test]
    fn a_base_url_with_the_api_path_is_accepted() {
        for b in [
            "http://127.0.0.1:11434/api",
            "http://127.0.0.1:11434/",
            "http://127.0.0.1:11434",
        ] {
            let o = Ollama::new(reqwest::Client::new(), Some(b), "m");
            assert_eq!(o.base_url, "http://127.0.0.1:11434", "{b}");
        }
    }
}
