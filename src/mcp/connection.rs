//! The transport-neutral `Connection` API: open, send, receive, shut down (see the module docs of
//! `crate::mcp` for the contract). It sits above the transports (`stdio`, `http`, `legacy_sse`)
//! and dispatches to them; the types they share with it live in the leaf `transport`.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::spec::{HttpTransport, UpstreamSpec};
use super::transport::{
    CHANNEL_CAPACITY, CloseKind, CloseReason, ConnectError, ConnectOptions, Incoming, SendError,
};
use super::{http, legacy_sse, stdio};

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

    /// Sends one request on a task of its own, so that a slow answer holds up nothing else; a
    /// send that fails goes to `on_error`. Over streamable HTTP the same task reads the answer.
    /// The task runs in the caller's tracing span.
    pub fn spawn_request(&self, msg: Value, on_error: impl FnOnce(SendError) + Send + 'static) {
        if let SenderInner::Http(h) = &self.inner {
            http::spawn_request(h, msg, on_error);
            return;
        }
        use tracing::Instrument as _;
        let sender = self.clone();
        tokio::spawn(
            async move {
                if let Err(e) = sender.send(&msg).await {
                    on_error(e);
                }
            }
            .instrument(tracing::Span::current()),
        );
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
        tail: super::transport::StderrTail,
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
