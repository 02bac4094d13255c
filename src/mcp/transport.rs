//! What every transport shares, below `connection` (which dispatches to the transports): the
//! options a connection is opened with, what it delivers (`Incoming`), how it closes and fails,
//! and the HTTP plumbing both HTTP transports (streamable HTTP and legacy SSE) use — the client,
//! the configured headers, error bodies and SSE event streams. A leaf: it imports only other
//! leaves (`era`, `peek`, `sse`), so a transport never reaches back up into `connection`.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::Url;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::era::Protocol;
use super::peek;
use super::sse::{SseEvent, SseParser, SseTooLarge};
use crate::json::{IdScanner, Probe};

/// How many incoming messages may queue before the transport stops reading (backpressure).
pub(crate) const CHANNEL_CAPACITY: usize = 256;

/// The last stderr lines, shared between the reader task and whoever reports errors.
#[derive(Debug, Clone, Default)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
}

impl StderrTail {
    /// The lines kept so far, oldest first.
    pub fn lines(&self) -> Vec<String> {
        match self.lines.lock() {
            Ok(g) => g.iter().cloned().collect(),
            Err(p) => p.into_inner().iter().cloned().collect(),
        }
    }

    pub(crate) fn push(&self, line: String, keep: usize) {
        let mut g = match self.lines.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        g.push_back(line);
        while g.len() > keep {
            g.pop_front();
        }
    }
}

/// Knobs for [`Connection::open`]. `Default` is right for most uses.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Also copy each stderr line of a stdio child to our stderr (serve wants that; discover
    /// keeps it quiet and shows the tail only in errors).
    pub forward_stderr: bool,
    /// Prefix for forwarded stderr lines, e.g. `"[upstream] "`.
    pub stderr_prefix: String,
    /// How many trailing stderr lines to keep for error messages.
    pub stderr_tail_lines: usize,
    /// The largest single message accepted; bigger ones are skipped and reported.
    pub max_message_bytes: usize,
    /// How long shutdown waits for a stdio child to exit after closing its stdin before it
    /// signals the process group.
    pub shutdown_grace: Duration,
    /// TCP connect timeout for HTTP upstreams; for legacy SSE also how long to wait for the
    /// `endpoint` event.
    pub connect_timeout: Duration,
    /// Hand plain responses from a stdio child over unparsed ([`Incoming::Response`]): `serve`
    /// forwards them as bytes with only the id rewritten. Off for everyone else.
    pub raw_responses: bool,
    /// The era our own client speaks ([`negotiate::open`](super::negotiate::open)); the
    /// connection itself, and serve, ignore it.
    pub protocol: Protocol,
    /// Where a stdio child's last stderr lines go, shared with the caller: what an upstream
    /// that did not answer in time said is still there when the opening is abandoned (book:
    /// reference/security.md, "Secrets on a command line"). `None`: a tail of its own.
    pub stderr_sink: Option<StderrTail>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            forward_stderr: false,
            stderr_prefix: String::new(),
            stderr_tail_lines: 30,
            max_message_bytes: 64 * 1024 * 1024,
            shutdown_grace: Duration::from_secs(2),
            connect_timeout: Duration::from_secs(10),
            raw_responses: false,
            protocol: Protocol::Auto,
            stderr_sink: None,
        }
    }
}

/// One item read from the upstream.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A JSON value exactly as the upstream sent it (object, or array for a JSON-RPC batch).
    Message(Value),
    /// A successful response with no `_meta` in its result, to a numbered request, as the bytes
    /// the upstream wrote (only with [`ConnectOptions::raw_responses`]). Parsing `bytes` gives
    /// what `Message` would have held.
    Response(peek::Response),
    /// Something that is not a usable message; the connection stays open.
    Invalid(InvalidMessage),
    /// The connection is over; always the last item.
    Closed(CloseReason),
}

/// A piece of upstream output that could not be used as a message.
#[derive(Debug, Clone, PartialEq)]
pub enum InvalidMessage {
    /// Not JSON (or nested deeper than [`crate::json::MAX_DEPTH`]). `text` is the start of it
    /// (at most a few hundred characters); `probe` what could be found of its `id` and `method`.
    NotJson {
        text: String,
        error: String,
        probe: Probe,
    },
    /// Bigger than [`ConnectOptions::max_message_bytes`]; skipped without buffering it. `probe`
    /// holds its `id` and `method`, found while skipping it (or, for an HTTP response, the id of
    /// the request it answers).
    TooLarge {
        limit: usize,
        prefix: String,
        probe: Probe,
    },
}

impl InvalidMessage {
    /// What is known of the message's `id` and `method`.
    pub fn probe(&self) -> &Probe {
        match self {
            InvalidMessage::NotJson { probe, .. } | InvalidMessage::TooLarge { probe, .. } => probe,
        }
    }
}

/// Parses one message from the upstream; what is not JSON becomes [`InvalidMessage::NotJson`].
pub(crate) fn parse_incoming(bytes: &[u8]) -> Incoming {
    match crate::json::from_slice(bytes) {
        Ok(v) => Incoming::Message(v),
        Err(e) => Incoming::Invalid(InvalidMessage::NotJson {
            text: excerpt(&String::from_utf8_lossy(bytes), 300),
            error: e.to_string(),
            probe: IdScanner::scan(bytes),
        }),
    }
}

impl fmt::Display for InvalidMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidMessage::NotJson { text, error, .. } => {
                write!(f, "output that is not JSON ({error}): {text:?}")
            }
            InvalidMessage::TooLarge { limit, prefix, .. } => write!(
                f,
                "a message larger than {limit} bytes (skipped), starting {prefix:?}"
            ),
        }
    }
}

/// Why a connection ended, with what is known about the upstream's last words.
#[derive(Debug, Clone, PartialEq)]
pub struct CloseReason {
    pub kind: CloseKind,
    /// The last stderr lines of a stdio child (empty for HTTP).
    pub stderr_tail: Vec<String>,
}

impl CloseReason {
    /// An HTTP connection's end after a shutdown asked for (there is no stderr to tell of).
    fn shutdown() -> Incoming {
        Incoming::Closed(CloseReason {
            kind: CloseKind::Shutdown,
            stderr_tail: Vec::new(),
        })
    }
}

/// Tells the receiver of an HTTP connection that it was shut down, waiting up to a second for
/// room in the channel.
pub(crate) async fn report_shutdown(tx: &tokio::sync::mpsc::Sender<Incoming>) {
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        tx.send(CloseReason::shutdown()),
    )
    .await;
}

/// As [`report_shutdown`], without waiting (from `Drop`): dropped when the channel is full.
pub(crate) fn try_report_shutdown(tx: &tokio::sync::mpsc::Sender<Incoming>) {
    let _ = tx.try_send(CloseReason::shutdown());
}

#[derive(Debug, Clone, PartialEq)]
pub enum CloseKind {
    /// [`Closer::shutdown`] was called (or the closer dropped).
    Shutdown,
    /// The child process exited on its own.
    Exited {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// The child closed its stdout but did not exit; it was killed.
    StdoutClosed,
    /// Reading from the upstream failed.
    ReadError(String),
    /// An HTTP event stream (legacy SSE) ended or failed.
    StreamEnded(String),
}

impl CloseKind {
    /// "exit status 3", "killed by signal 9", … for messages.
    pub fn describe(&self) -> String {
        match self {
            CloseKind::Shutdown => "shut down".into(),
            CloseKind::Exited {
                code: Some(c),
                signal: _,
            } => format!("exited with status {c}"),
            CloseKind::Exited {
                code: None,
                signal: Some(s),
            } => format!("was killed by signal {s}"),
            CloseKind::Exited { .. } => "exited".into(),
            CloseKind::StdoutClosed => "closed its stdout".into(),
            CloseKind::ReadError(e) => format!("could not be read from: {e}"),
            CloseKind::StreamEnded(e) => format!("event stream ended: {e}"),
        }
    }
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind.describe())?;
        if !self.stderr_tail.is_empty() {
            write!(
                f,
                "; last stderr lines:\n  {}",
                self.stderr_tail.join("\n  ")
            )?;
        }
        Ok(())
    }
}

/// Failure to open a connection. Messages never contain header or env values.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConnectError {
    #[error("command `{command}` not found")]
    CommandNotFound { command: String },
    #[error("command `{command}` is not executable (permission denied)")]
    PermissionDenied { command: String },
    #[error("working directory {cwd} is not usable: {reason}")]
    BadCwd { cwd: String, reason: String },
    #[error("cannot start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("invalid URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("invalid header `{name}` (name or value not allowed in HTTP)")]
    InvalidHeader { name: String },
    #[error("HTTP {status}{}", body_suffix(.body))]
    Http { status: u16, body: String },
    #[error("{0}")]
    Request(String),
    #[error("the SSE stream did not announce an `endpoint` event: {0}")]
    NoEndpoint(String),
}

/// Failure to hand one message to the upstream.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SendError {
    #[error("the connection is closed")]
    Closed,
    #[error("writing to the upstream failed: {0}")]
    Io(String),
    /// The upstream answered with an HTTP error status. `rpc` is the JSON-RPC error response
    /// its body held, if it held one (a 2026-07-28 server answers e.g. an unsupported protocol
    /// version with 400 and a `-32022` error): a proxy passes it on as the upstream meant it.
    #[error("HTTP {status}{}", body_suffix(.body))]
    Http {
        status: u16,
        body: String,
        rpc: Option<Box<Value>>,
    },
    #[error("{0}")]
    Request(String),
}

fn body_suffix(body: &str) -> String {
    if body.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", body.trim())
    }
}

/// How much of an error body goes into a message.
const ERROR_BODY_MAX: usize = 300;
/// How much of an error body is read to find a JSON-RPC error in it.
const ERROR_RPC_MAX: usize = 64 * 1024;

/// The first `max` characters of `s`, with an ellipsis when cut (for messages about junk).
pub(crate) fn excerpt(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Build the configured header map; a bad name or value is named (never the value itself).
pub(crate) fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HeaderMap, ConnectError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let bad = || ConnectError::InvalidHeader { name: k.clone() };
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad())?;
        let mut value = HeaderValue::from_str(v).map_err(|_| bad())?;
        value.set_sensitive(true);
        map.insert(name, value);
    }
    Ok(map)
}

pub(crate) fn parse_url(url: &str) -> Result<Url, ConnectError> {
    let parsed = Url::parse(url).map_err(|e| ConnectError::InvalidUrl {
        url: url.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ConnectError::InvalidUrl {
            url: url.to_string(),
            reason: "only http:// and https:// URLs are supported".into(),
        });
    }
    Ok(parsed)
}

pub(crate) fn build_client(opts: &ConnectOptions) -> Result<reqwest::Client, ConnectError> {
    // No overall timeout: event streams live as long as the session. No redirects: a POST
    // turned into a GET fails obscurely, and configured secret headers must not follow a
    // redirect to another host; the error names the new location instead.
    // TCP_NODELAY: a JSON-RPC request is one small write; Nagle's algorithm would hold it until
    // the peer's delayed ACK (up to 40 ms) whenever a previous segment is unacknowledged.
    reqwest::Client::builder()
        .connect_timeout(opts.connect_timeout)
        .tcp_nodelay(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ConnectError::Request(describe_error(&e)))
}

pub(crate) fn content_type(resp: &reqwest::Response) -> String {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The start of an error response's body for a message, and the JSON-RPC error response it
/// holds, if any.
pub(crate) async fn error_reply(resp: reqwest::Response) -> (String, Option<Box<Value>>) {
    if resp.status().is_redirection() {
        return (error_body(resp).await, None);
    }
    let is_sse = content_type(&resp).starts_with("text/event-stream");
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buf.extend_from_slice(&chunk);
        if buf.len() > ERROR_RPC_MAX {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let json_text = if is_sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| !d.is_empty())
            .unwrap_or("")
            .to_string()
    } else {
        text.trim().to_string()
    };
    let rpc = crate::json::from_str(&json_text)
        .ok()
        .filter(|v| v.pointer("/error/code").is_some_and(Value::is_i64))
        .map(Box::new);
    (excerpt(text.trim(), ERROR_BODY_MAX), rpc)
}

/// The start of an error response's body, for the message.
pub(crate) async fn error_body(resp: reqwest::Response) -> String {
    if resp.status().is_redirection() {
        let to = resp
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("?");
        return format!(
            "redirects to {}; configure that URL instead",
            excerpt(to, 200)
        );
    }
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        buf.extend_from_slice(&chunk);
        if buf.len() > ERROR_BODY_MAX * 4 {
            break;
        }
    }
    excerpt(String::from_utf8_lossy(&buf).trim(), ERROR_BODY_MAX)
}

/// What went wrong, without the URL (callers name the upstream already, and a URL may carry a
/// token in its query): reqwest's Display stops at "error sending request", the cause
/// ("Connection refused") is in the source chain.
pub(crate) fn describe_error(e: &reqwest::Error) -> String {
    let mut msg = String::from(if e.is_connect() {
        "cannot connect"
    } else if e.is_timeout() {
        "timed out"
    } else if e.is_body() || e.is_decode() {
        "reading the response failed"
    } else if e.is_redirect() {
        "too many redirects"
    } else {
        "the HTTP request failed"
    });
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        src = s.source();
    }
    msg
}

/// An SSE response body as a sequence of events.
pub(crate) struct EventStream<S> {
    parser: SseParser,
    body: std::pin::Pin<Box<S>>,
    ready: std::collections::VecDeque<Result<SseEvent, SseTooLarge>>,
    ended: Option<String>,
}

/// Wraps a response body; the stream type stays unnamed (it is `bytes::Bytes` inside).
pub(crate) fn event_stream(
    resp: reqwest::Response,
    max: usize,
) -> EventStream<impl futures_util::Stream<Item = reqwest::Result<impl AsRef<[u8]>>>> {
    EventStream {
        parser: SseParser::new(max),
        body: Box::pin(resp.bytes_stream()),
        ready: std::collections::VecDeque::new(),
        ended: None,
    }
}

impl<S, B> EventStream<S>
where
    S: futures_util::Stream<Item = reqwest::Result<B>>,
    B: AsRef<[u8]>,
{
    /// The next event; `None` at the end, after which [`EventStream::end_reason`] says why.
    pub(crate) async fn next(&mut self) -> Option<Result<SseEvent, SseTooLarge>> {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return Some(ev);
            }
            if self.ended.is_some() {
                return None;
            }
            match self.body.next().await {
                Some(Ok(chunk)) => self.ready.extend(self.parser.push(chunk.as_ref())),
                Some(Err(e)) => self.ended = Some(describe_error(&e)),
                None => {
                    self.parser.finish();
                    self.ended = Some("the server closed the stream".into());
                }
            }
        }
    }

    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.parser.last_event_id()
    }

    pub(crate) fn retry(&self) -> Option<u64> {
        self.parser.retry()
    }

    pub(crate) fn end_reason(&self) -> String {
        self.ended.clone().unwrap_or_default()
    }
}
