//! The one trait every LLM provider implements, and the error taxonomy that retries are decided on.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use reqwest::header::HeaderMap;
use serde::Serialize;
use serde_json::Value;

/// One chat turn: a system prompt and one user message. Every prompt this generator sends fits
/// this shape, so providers stay small.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub system: String,
    pub user: String,
    pub max_tokens: u32,
    pub temperature: f64,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It finished on its own (`end_turn`, `stop`, …).
    Complete,
    /// It hit `max_tokens` (`max_tokens`, `length`): the text is cut off.
    Truncated,
    /// Anything else the provider reported (`refusal`, `content_filter`, …), verbatim.
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub stop: StopReason,
    pub usage: Usage,
}

/// Token counts as the provider reported them (0 when it did not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(rhs.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(rhs.output_tokens);
    }
}

/// What went wrong, in the terms that decide whether trying again can help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 429: slow down, usually with Retry-After.
    RateLimited,
    /// 5xx, 529 (overloaded): the provider's problem, often passing.
    Server,
    /// The request took too long (408, or our own budget ran out).
    Timeout,
    /// Connection refused/reset, DNS: often passing.
    Network,
    /// 401/403: the key is wrong or lacks access.
    Auth,
    /// 404: wrong `base_url` or unknown model.
    NotFound,
    /// 400/413/422: the request itself is wrong; sending it again gives the same answer.
    BadRequest,
    /// A 2xx answer we could not understand.
    Malformed,
}

impl ErrorKind {
    /// Retrying helps only with failures that pass by themselves.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ErrorKind::RateLimited | ErrorKind::Server | ErrorKind::Timeout | ErrorKind::Network
        )
    }
}

/// A failed provider call. The message never contains the API key (see [`redact`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderError {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    pub message: String,
    /// The provider's Retry-After, when it sent one.
    pub retry_after: Option<Duration>,
}

impl ProviderError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ProviderError {
            kind,
            status: None,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn retryable(&self) -> bool {
        self.kind.retryable()
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(s) => write!(f, "HTTP {s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ProviderError {}

/// A chat-completion API. Object safe so the generator can hold `Arc<dyn Provider>`.
pub trait Provider: Send + Sync {
    /// `anthropic`, `openai` or `ollama`: recorded in the lock.
    fn name(&self) -> &'static str;
    fn model(&self) -> &str;
    /// One HTTP request, no retries: the caller owns the time budget and cancels by dropping the
    /// future, which drops the connection.
    fn chat<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ChatResponse, ProviderError>>;
}

/// An API key that cannot leak through `Debug` or `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: String) -> Self {
        Secret(s)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The key as a header value marked sensitive, so that no HTTP-level debug output shows it.
    pub fn header_value(&self) -> Result<reqwest::header::HeaderValue, ProviderError> {
        let mut v = reqwest::header::HeaderValue::from_str(&self.0).map_err(|_| {
            ProviderError::new(
                ErrorKind::Auth,
                "the API key contains characters that cannot be sent in an HTTP header",
            )
        })?;
        v.set_sensitive(true);
        Ok(v)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// Providers echo parts of a bad key back in error bodies; never let a key reach a message.
pub fn redact(message: &str, key: Option<&Secret>) -> String {
    match key {
        Some(k) if k.0.len() >= 4 => message.replace(&k.0, "[redacted]"),
        _ => message.to_string(),
    }
}

/// Largest response body we read. A full UI is well under 1 MB; more is a broken or hostile
/// server, and reading it all would only waste memory.
const MAX_BODY: usize = 8 * 1024 * 1024;

/// The parts of an HTTP answer that providers look at.
pub struct RawResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// Sends a prepared request and returns its JSON body: a transport failure, a status outside
/// 2xx and a body that is not JSON become the provider's error the same way for every provider.
pub async fn exchange(
    req: reqwest::RequestBuilder,
    provider: &str,
    key: Option<&Secret>,
) -> Result<Value, ProviderError> {
    let raw = send(req, provider, key).await?;
    if !(200..300).contains(&raw.status) {
        return Err(status_error(&raw, provider, key));
    }
    json_body(&raw, provider)
}

/// The [`Provider`] impl of a provider type that has a `model` field and an async
/// `call(&self, &ChatRequest)`: written once for every provider.
macro_rules! provider_impl {
    ($ty:ty, $name:literal) => {
        impl Provider for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn model(&self) -> &str {
                &self.model
            }
            fn chat<'a>(
                &'a self,
                req: &'a ChatRequest,
            ) -> futures_util::future::BoxFuture<'a, Result<ChatResponse, ProviderError>> {
                Box::pin(self.call(req))
            }
        }
    };
}
pub(crate) use provider_impl;

/// Sends a prepared request and reads the body with a size cap. Transport failures are mapped
/// here so that every provider classifies them the same way.
pub async fn send(
    req: reqwest::RequestBuilder,
    provider: &str,
    key: Option<&Secret>,
) -> Result<RawResponse, ProviderError> {
    let mut resp = req
        .send()
        .await
        .map_err(|e| transport_error(&e, provider, key))?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let mut body = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| transport_error(&e, provider, key))?
    {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(ProviderError::new(
                ErrorKind::Malformed,
                format!("{provider} sent a response larger than {MAX_BODY} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(RawResponse {
        status,
        headers,
        body,
    })
}

fn transport_error(e: &reqwest::Error, provider: &str, key: Option<&Secret>) -> ProviderError {
    // reqwest's Display includes the URL (never the key, which travels in a header), but redact
    // anyway in case a user put a key into base_url.
    let text = redact(&error_chain(e), key);
    let kind = if e.is_timeout() {
        ErrorKind::Timeout
    } else {
        ErrorKind::Network
    };
    ProviderError::new(kind, format!("cannot reach {provider}: {text}"))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        let t = s.to_string();
        if !out.contains(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
        src = s.source();
    }
    out
}

/// Maps a non-2xx answer onto the taxonomy, keeping the provider's own explanation.
pub fn status_error(raw: &RawResponse, provider: &str, key: Option<&Secret>) -> ProviderError {
    let kind = match raw.status {
        429 => ErrorKind::RateLimited,
        408 => ErrorKind::Timeout,
        401 | 403 => ErrorKind::Auth,
        404 => ErrorKind::NotFound,
        s if s >= 500 => ErrorKind::Server,
        _ => ErrorKind::BadRequest,
    };
    let detail = redact(&error_detail(&raw.body), key);
    let hint = match kind {
        ErrorKind::Auth => " (check the API key in the environment)",
        ErrorKind::NotFound => " (check [llm] base_url and model)",
        _ => "",
    };
    ProviderError {
        kind,
        status: Some(raw.status),
        message: format!("{provider} refused the request: {detail}{hint}"),
        retry_after: retry_after(&raw.headers),
    }
}

/// The human part of an error body: `{"error":{"message"}}` (Anthropic, OpenAI),
/// `{"error":"…"}` (Ollama), or the start of whatever else came back.
fn error_detail(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        let candidates = [
            v.pointer("/error/message"),
            v.get("error"),
            v.get("message"),
            v.get("detail"),
        ];
        for c in candidates.into_iter().flatten() {
            if let Some(s) = c.as_str() {
                return clip(s, 500);
            }
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        "(empty body)".into()
    } else {
        clip(text, 500)
    }
}

/// `Retry-After` in seconds (the form every LLM API uses), or OpenAI's `retry-after-ms`.
/// The HTTP-date form is rare here and ignored (the normal backoff applies).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        // Bounded like the seconds form: a huge value would overflow `Duration`.
        return Some(Duration::from_secs_f64((ms / 1000.0).min(86_400.0)));
    }
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0 && *s < 86_400.0)
        .map(Duration::from_secs_f64)
}

/// Parses a 2xx body as JSON, or says what came back instead.
pub fn json_body(raw: &RawResponse, provider: &str) -> Result<Value, ProviderError> {
    serde_json::from_slice(&raw.body).map_err(|e| {
        ProviderError::new(
            ErrorKind::Malformed,
            format!(
                "{provider} answered HTTP {} with a body that is not JSON ({e}): {}",
                raw.status,
                clip(&String::from_utf8_lossy(&raw.body), 200)
            ),
        )
    })
}

/// Cuts text to at most `max` characters, marking the cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// `u64` from a JSON number, 0 when absent (usage is informational).
pub fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// Joins a base URL and a path without doubling or dropping the slash.
pub fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn only_passing_failures_are_retryable() {
        for k in [
            ErrorKind::RateLimited,
            ErrorKind::Server,
            ErrorKind::Timeout,
            ErrorKind::Network,
        ] {
            assert!(k.retryable(), "{k:?}");
        }
        for k in [
            ErrorKind::Auth,
            ErrorKind::NotFound,
            ErrorKind::BadRequest,
            ErrorKind::Malformed,
        ] {
            assert!(!k.retryable(), "{k:?}");
        }
    }

    fn raw(status: u16, headers: &[(&'static str, &str)], body: &str) -> RawResponse {
        let mut h = HeaderMap::new();
        for (k, v) in headers {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        RawResponse {
            status,
            headers: h,
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn statuses_map_onto_the_taxonomy() {
        let cases = [
            (429, ErrorKind::RateLimited),
            (529, ErrorKind::Server),
            (500, ErrorKind::Server),
            (503, ErrorKind::Server),
            (408, ErrorKind::Timeout),
            (401, ErrorKind::Auth),
            (403, ErrorKind::Auth),
            (404, ErrorKind::NotFound),
            (400, ErrorKind::BadRequest),
            (413, ErrorKind::BadRequest),
        ];
        for (status, kind) in cases {
            assert_eq!(
                status_error(&raw(status, &[], "{}"), "p", None).kind,
                kind,
                "{status}"
            );
        }
    }

    #[test]
    fn retry_after_seconds_and_ms() {
        let r = raw(429, &[("retry-after", "2")], "");
        assert_eq!(retry_after(&r.headers), Some(Duration::from_secs(2)));
        let r = raw(429, &[("retry-after-ms", "1500"), ("retry-after", "9")], "");
        assert_eq!(retry_after(&r.headers), Some(Duration::from_millis(1500)));
        let r = raw(429, &[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")], "");
        assert_eq!(retry_after(&r.headers), None);
        let r = raw(429, &[("retry-after", "-3")], "");
        assert_eq!(retry_after(&r.headers), None);
        // A value from the network that would overflow `Duration` (it used to panic).
        for huge in ["1e300", "1.8e19", "18446744073709551615000"] {
            let r = raw(429, &[("retry-after-ms", huge)], "");
            assert_eq!(retry_after(&r.headers), Some(Duration::from_secs(86_400)));
        }
    }

    #[test]
    fn error_bodies_of_each_api_are_understood_and_keys_redacted() {
        let key = Secret::new("sk-test-SECRET-123".into());
        let anthropic = r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-test-SECRET-123"}}"#;
        let e = status_error(&raw(401, &[], anthropic), "anthropic", Some(&key));
        assert!(e.message.contains("invalid x-api-key"), "{e}");
        assert!(!e.message.contains("SECRET"), "{e}");
        let ollama = r#"{"error":"model \"llama9\" not found, try pulling it first"}"#;
        let e = status_error(&raw(404, &[], ollama), "ollama", None);
        assert!(e.message.contains("not found, try pulling"), "{e}");
        let e = status_error(&raw(502, &[], "<html>Bad gateway</html>"), "openai", None);
        assert!(e.message.contains("Bad gateway"), "{e}");
        assert!(format!("{key:?}").contains("redacted"));
    }

    #[test]
    fn join_url_handles_slashes() {
        assert_eq!(
            join_url("http://h:1/v1/", "/chat/completions"),
            "http://h:1/v1/chat/completions"
        );
        assert_eq!(
            join_url("http://h:1", "v1/messages"),
            "http://h:1/v1/messages"
        );
    }
}
