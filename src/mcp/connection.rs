//! The transport-neutral `Connection` API: open, send, receive, shut down (see the module docs of
//! `crate::mcp` for the contract).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::{HttpTransport, UpstreamSpec, http, legacy_sse, stdio};
use crate::json::{IdScanner, Probe};

/// How many incoming messages may queue before the transport stops reading (backpressure).
pub(crate) const CHANNEL_CAPACITY: usize = 256;

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
    pub protocol: super::negotiate::Protocol,
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
            protocol: super::negotiate::Protocol::Auto,
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
    Response(super::peek::Response),
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

/// The sending half; clone it freely.
#[derive(Clone)]
pub struct MessageSender {
    inner: SenderInner,
}

#[derive(Clone)]
enum SenderInner {
    Stdio(Arc<stdio::Writer>),
    Http(Arc<http::Shared>),
    Sse(Arc<legacy_sse::Shared>),
}

impl MessageSender {
    /// Sends one line of JSON text, ending in a newline, as it is. `None` when the upstream is
    /// not a stdio child (only stdio takes raw lines; the caller parses and sends instead).
    pub async fn send_raw(&self, line: &[u8]) -> Option<Result<(), SendError>> {
        match &self.inner {
            SenderInner::Stdio(w) => Some(w.send_raw(line).await),
            _ => None,
        }
    }

    /// Writes what of a raw line a stdio upstream takes at once, without waiting; the bytes
    /// written (always 0 for other transports). The rest goes through
    /// [`send_raw`](Self::send_raw), which also reports errors.
    pub fn try_send_raw(&self, line: &[u8]) -> usize {
        match &self.inner {
            SenderInner::Stdio(w) => w.try_send_raw(line),
            _ => 0,
        }
    }

    /// Whether raw lines can be sent ([`send_raw`](Self::send_raw)).
    pub fn takes_raw(&self) -> bool {
        matches!(self.inner, SenderInner::Stdio(_))
    }

    /// Whether [`send`](Self::send) lasts until the upstream answers (HTTP: the POST's response
    /// headers). A stdio send returns once the line is written, so callers need not give it a
    /// task of its own.
    pub fn waits_for_answer(&self) -> bool {
        !matches!(self.inner, SenderInner::Stdio(_))
    }

    /// Send one message (or batch) unchanged. Returns when the upstream has it: written and
    /// flushed to stdin, or the HTTP POST answered with a 2xx status (the response body, if any,
    /// is read in the background and arrives on the receiver).
    pub async fn send(&self, msg: &Value) -> Result<(), SendError> {
        match &self.inner {
            SenderInner::Stdio(w) => w.send(msg).await,
            SenderInner::Http(h) => http::send(h, msg).await,
            SenderInner::Sse(s) => legacy_sse::send(s, msg).await,
        }
    }
}

impl fmt::Debug for MessageSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MessageSender")
    }
}

/// The receiving half: every message the upstream sends, then one `Closed`.
#[derive(Debug)]
pub struct MessageReceiver {
    rx: mpsc::Receiver<Incoming>,
    done: bool,
    /// A stdio child's stdout, read here until it ends; then `rx` brings the `Closed`.
    stdout: Option<stdio::StdoutReader>,
}

impl MessageReceiver {
    pub(crate) fn new(rx: mpsc::Receiver<Incoming>) -> Self {
        MessageReceiver {
            rx,
            done: false,
            stdout: None,
        }
    }

    /// The next item; `None` after `Closed` was delivered.
    pub async fn recv(&mut self) -> Option<Incoming> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// [`recv`](Self::recv) for callers that poll by hand (cancel-safe).
    pub fn poll_recv(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Incoming>> {
        if self.done {
            return std::task::Poll::Ready(None);
        }
        if let Some(stdout) = &mut self.stdout {
            match stdout.poll_item(cx) {
                std::task::Poll::Ready(Some(item)) => return std::task::Poll::Ready(Some(item)),
                std::task::Poll::Ready(None) => self.stdout = None,
                // The supervisor may end the connection while stdout is still open.
                std::task::Poll::Pending => {}
            }
        }
        let item = std::task::ready!(self.rx.poll_recv(cx));
        if matches!(item, Some(Incoming::Closed(_))) {
            self.stdout = None;
        }
        match &item {
            Some(Incoming::Closed(_)) => self.done = true,
            None => {
                // The transport vanished without a word (it cannot, but never hang a caller).
                self.done = true;
                return std::task::Poll::Ready(Some(Incoming::Closed(CloseReason {
                    kind: CloseKind::ReadError("transport task ended".into()),
                    stderr_tail: Vec::new(),
                })));
            }
            _ => {}
        }
        std::task::Poll::Ready(item)
    }
}

/// Ends the connection. Dropping it has the same effect (without waiting).
#[derive(Debug)]
pub struct Closer {
    inner: CloserInner,
}

#[derive(Debug)]
enum CloserInner {
    Stdio {
        shutdown: Option<oneshot::Sender<()>>,
        done: Option<oneshot::Receiver<()>>,
        tail: stdio::StderrTail,
    },
    Http(Arc<http::Shared>),
    Sse(Arc<legacy_sse::Shared>),
}

impl Closer {
    /// Shut the upstream down and wait until it is gone (child reaped and its process group
    /// signalled; HTTP session deleted). Idempotent.
    pub async fn shutdown(&mut self) {
        match &mut self.inner {
            CloserInner::Stdio { shutdown, done, .. } => {
                if let Some(tx) = shutdown.take() {
                    let _ = tx.send(());
                }
                if let Some(rx) = done.take() {
                    let _ = rx.await;
                }
            }
            CloserInner::Http(h) => http::shutdown(h).await,
            CloserInner::Sse(s) => legacy_sse::shutdown(s).await,
        }
    }

    /// Whether this is a child process (stdio) rather than an HTTP upstream.
    pub fn is_stdio(&self) -> bool {
        matches!(self.inner, CloserInner::Stdio { .. })
    }

    /// The last stderr lines of a stdio child so far (empty for HTTP).
    pub fn stderr_tail(&self) -> Vec<String> {
        match &self.inner {
            CloserInner::Stdio { tail, .. } => tail.lines(),
            _ => Vec::new(),
        }
    }
}

impl Drop for Closer {
    fn drop(&mut self) {
        match &mut self.inner {
            // Dropping the shutdown sender tells the supervisor to stop the child.
            CloserInner::Stdio { .. } => {}
            CloserInner::Http(h) => http::abort(h),
            CloserInner::Sse(s) => legacy_sse::abort(s),
        }
    }
}

/// An open connection to one upstream. Split it with [`Connection::into_parts`].
#[derive(Debug)]
pub struct Connection {
    sender: MessageSender,
    receiver: MessageReceiver,
    closer: Closer,
}

impl Connection {
    /// Start (stdio) or reach (HTTP) the upstream. For stdio this spawns the child; for
    /// streamable HTTP nothing goes over the network until the first `send`; for legacy SSE the
    /// event stream is opened and its `endpoint` event awaited.
    pub async fn open(spec: &UpstreamSpec, opts: &ConnectOptions) -> Result<Self, ConnectError> {
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let mut receiver = MessageReceiver::new(rx);
        match spec {
            UpstreamSpec::Stdio(s) => {
                let parts = stdio::open(s, opts, tx)?;
                receiver.stdout = Some(parts.stdout);
                Ok(Connection {
                    sender: MessageSender {
                        inner: SenderInner::Stdio(parts.writer),
                    },
                    receiver,
                    closer: Closer {
                        inner: CloserInner::Stdio {
                            shutdown: Some(parts.shutdown),
                            done: Some(parts.done),
                            tail: parts.tail,
                        },
                    },
                })
            }
            UpstreamSpec::Http(h) => match h.transport {
                HttpTransport::StreamableHttp => {
                    let shared = http::open(h, opts, tx)?;
                    Ok(Connection {
                        sender: MessageSender {
                            inner: SenderInner::Http(shared.clone()),
                        },
                        receiver,
                        closer: Closer {
                            inner: CloserInner::Http(shared),
                        },
                    })
                }
                HttpTransport::Sse => {
                    let shared = legacy_sse::open(h, opts, tx).await?;
                    Ok(Connection {
                        sender: MessageSender {
                            inner: SenderInner::Sse(shared.clone()),
                        },
                        receiver,
                        closer: Closer {
                            inner: CloserInner::Sse(shared),
                        },
                    })
                }
            },
        }
    }

    /// A clone of the sending half.
    pub fn sender(&self) -> MessageSender {
        self.sender.clone()
    }

    /// The next incoming item (see [`MessageReceiver::recv`]).
    pub async fn recv(&mut self) -> Option<Incoming> {
        self.receiver.recv().await
    }

    /// The last stderr lines of a stdio child so far.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.closer.stderr_tail()
    }

    pub fn into_parts(self) -> (MessageSender, MessageReceiver, Closer) {
        (self.sender, self.receiver, self.closer)
    }

    /// Shut down and drain the receiver; returns the close reason.
    pub async fn shutdown(self) -> CloseReason {
        let (_sender, mut receiver, mut closer) = self.into_parts();
        closer.shutdown().await;
        let mut reason = None;
        while let Some(item) = receiver.recv().await {
            if let Incoming::Closed(r) = item {
                reason = Some(r);
            }
        }
        reason.unwrap_or(CloseReason {
            kind: CloseKind::Shutdown,
            stderr_tail: closer.stderr_tail(),
        })
    }
}

/// The first `max` characters of `s`, with an ellipsis when cut (for messages about junk).
pub(crate) fn excerpt(s: &str, max: usize) -> String {
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}
