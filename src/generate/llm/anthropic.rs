//! The Anthropic Messages API (`POST {base_url}/v1/messages`).

use serde_json::{Value, json};

use super::provider::{
    ChatRequest, ChatResponse, ErrorKind, Provider, ProviderError, Secret, StopReason, Usage,
    count, exchange, join_url, provider_impl,
};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const KEY_VAR: &str = "ANTHROPIC_API_KEY";
const API_VERSION: &str = "2023-06-01";

pub struct Anthropic {
    client: reqwest::Client,
    base_url: String,
    model: String,
    key: Secret,
}

impl Anthropic {
    pub fn new(client: reqwest::Client, base_url: Option<&str>, model: &str, key: Secret) -> Self {
        // The API path carries its own version; accept a base URL that repeats it.
        let base = base_url.unwrap_or(DEFAULT_BASE_URL).trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        Anthropic {
            client,
            base_url: base.to_string(),
            model: model.to_string(),
            key,
        }
    }

    async fn call(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let body = json!({
            "model": self.model,
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
            "system": req.system,
            "messages": [{"role": "user", "content": req.user}],
        });
        let http = self
            .client
            .post(join_url(&self.base_url, "v1/messages"))
            .header("x-api-key", self.key.header_value()?)
            .header("anthropic-version", API_VERSION)
            .json(&body);
        parse(&exchange(http, "anthropic", Some(&self.key)).await?)
    }
}

provider_impl!(Anthropic, "anthropic");

/// `{content: [{type: "text", text}…], stop_reason, usage: {input_tokens, output_tokens}}`.
fn parse(v: &Value) -> Result<ChatResponse, ProviderError> {
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        return Err(ProviderError::new(
            ErrorKind::Malformed,
            "anthropic answered without a `content` array",
        ));
    };
    // Thinking and tool-use blocks are not part of the page; only text blocks are.
    let text: String = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    let stop = match v.get("stop_reason").and_then(Value::as_str) {
        Some("end_turn") | Some("stop_sequence") | None => StopReason::Complete,
        Some("max_tokens") | Some("model_context_window_exceeded") => StopReason::Truncated,
        Some(other) => StopReason::Other(other.to_string()),
    };
    let usage = Usage {
        input_tokens: count(v.pointer("/usage/input_tokens")),
        output_tokens: count(v.pointer("/usage/output_tokens")),
    };
    Ok(ChatResponse { text, stop, usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_blocks_stop_and_usage() {
        let v = json!({
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "<html>"}, {"type": "text", "text": "</html>"}],
            "stop_reason": "max_tokens", "usage": {"input_tokens": 12, "output_tokens": 34}
        });
        let r = parse(&v).unwrap();
        assert_eq!(r.text, "<html></html>");
        assert_eq!(r.stop, StopReason::Truncated);
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 34
            }
        );
        let r = parse(&json!({"content": [], "stop_reason": "refusal"})).unwrap();
        assert_eq!(r.stop, StopReason::Other("refusal".into()));
        assert!(parse(&json!({"error": "x"})).is_err());
    }

    #[test]
    fn a_base_url_with_the_version_is_accepted() {
        let k = Secret::new("k".into());
        for b in [
            "http://127.0.0.1:9/v1",
            "http://127.0.0.1:9/v1/",
            "http://127.0.0.1:9/",
        ] {
            let a = Anthropic::new(reqwest::Client::new(), Some(b), "m", k.clone());
            assert_eq!(a.base_url, "http://127.0.0.1:9", "{b}");
        }
    }
}
