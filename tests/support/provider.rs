//! A fake OpenAI-compatible provider on 127.0.0.1 (wiremock): the one faked part of the llm
//! generator's tests, answering the way a real chat-completions endpoint does.

use serde_json::json;
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A chat completion whose message is `text`, as OpenAI's API returns it.
pub fn completion(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1741569952, "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 900, "total_tokens": 2100}
    }))
}

/// Answers the classification call with "rich" (so a page is really generated) and every other
/// call with `page`.
pub async fn provider(page: &str) -> MockServer {
    let server = MockServer::start().await;
    answer_with(&server, page).await;
    server
}

/// Makes `server` answer as `provider` does, with `page` (after `server.reset()`, a new answer).
pub async fn answer_with(server: &MockServer, page: &str) {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_string_contains("rich or minimal"))
        .respond_with(completion("rich"))
        .with_priority(1)
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(completion(page))
        .with_priority(2)
        .mount(server)
        .await;
}
