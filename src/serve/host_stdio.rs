//! The stdio host side (what Claude Desktop launches): newline-delimited JSON-RPC on stdin and
//! stdout, nothing else on stdout, and exit as soon as stdin closes.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};

use anyhow::Context as _;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use super::messages;
use super::rpc_error::{Unusable, unusable_host_message};
use super::session::{self, HostMsg, HostOut, HostSink, HostSource, Shared};
use crate::json::{IdScanner, Probe};

/// The largest message accepted from the host; a 10 MB tool argument must pass.
pub const MAX_MESSAGE_BYTES: usize = 32 * 1024 * 1024;

/// One line read from the host.
#[derive(Debug, PartialEq)]
pub enum Line {
    Text(Vec<u8>),
    /// Longer than the limit; skipped without keeping it (its length, and its id and method,
    /// found while skipping it).
    TooLarge {
        bytes: usize,
        probe: Probe,
    },
}

/// The host's lines, each of at most `max` bytes. An over-long line is consumed to its end but
/// never buffered whole, so a hostile host cannot exhaust memory. Cancel-safe: a line read in
/// part stays here for the next poll.
pub struct HostLines<R> {
    inner: R,
    max: usize,
    buf: Vec<u8>,
    /// Bytes of the current over-long line skipped so far.
    skipped: usize,
    /// Set while skipping an over-long line: finds its id and method on the way.
    scanner: Option<IdScanner>,
}

impl<R: AsyncBufRead + Unpin> HostLines<R> {
    pub fn new(inner: R, max: usize) -> Self {
        HostLines {
            inner,
            max,
            buf: Vec::new(),
            skipped: 0,
            scanner: None,
        }
    }

    /// The next `\n`-terminated line; `None` at end of input.
    pub fn poll_line(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<Option<Line>>> {
        let HostLines {
            inner,
            max,
            buf,
            skipped,
            scanner,
        } = self;
        loop {
            let avail = match Pin::new(&mut *inner).poll_fill_buf(cx) {
                Poll::Ready(Ok(a)) => a,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            if avail.is_empty() {
                let line = match (scanner.take(), buf.is_empty()) {
                    (None, true) => None,
                    (None, false) => Some(Line::Text(std::mem::take(buf))),
                    (Some(s), _) => Some(Line::TooLarge {
                        bytes: std::mem::take(skipped),
                        probe: s.finish(),
                    }),
                };
                return Poll::Ready(Ok(line));
            }
            let (chunk, done) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (&avail[..i], Some(i + 1)),
                None => (avail, None),
            };
            if scanner.is_some() || buf.len() + chunk.len() > *max {
                let s = scanner.get_or_insert_with(IdScanner::new);
                s.feed(buf);
                s.feed(chunk);
                *skipped += buf.len() + chunk.len();
                *buf = Vec::new();
            } else if buf.is_empty() && done.is_some() {
                // A whole line in the buffer (the usual case): one allocation of its size.
                *buf = chunk.to_vec();
            } else {
                buf.extend_from_slice(chunk);
            }
            let used = done.unwrap_or(avail.len());
            Pin::new(&mut *inner).consume(used);
            if done.is_some() {
                let line = match scanner.take() {
                    Some(s) => Line::TooLarge {
                        bytes: std::mem::take(skipped),
                        probe: s.finish(),
                    },
                    None => Line::Text(std::mem::take(buf)),
                };
                return Poll::Ready(Ok(Some(line)));
            }
        }
    }

    /// [`poll_line`](Self::poll_line) as a future.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        std::future::poll_fn(|cx| self.poll_line(cx)).await
    }
}

/// The host's stdin as the session's source of messages, read in the session's own task: a
/// reader task and a channel in between cost as much time as the read itself. Lines are split
/// into messages here; a plain `tools/call` stays bytes (`mcp::peek`); a line that is not JSON
/// or is too long is answered from here. Ends at end of input, on a read error, or on Ctrl-C or
/// SIGTERM.
pub struct StdinSource {
    lines: HostLines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>,
    /// The rest of a batch.
    pending: VecDeque<HostMsg>,
    out: StdoutSink,
    /// Set on Ctrl-C or SIGTERM (a task waits for the signals: polling them here on every
    /// message would cost more than reading the message).
    shutdown: Arc<ShutdownFlag>,
    lines_since_signal: u32,
    ended: bool,
}

/// Ctrl-C or SIGTERM arrived: set by the task that waits for them, looked at by the reader of
/// stdin, which it wakes. Cheaper to look at than a channel (the reader's waker seldom changes).
#[derive(Default)]
pub struct ShutdownFlag {
    fired: AtomicBool,
    waker: std::sync::Mutex<Option<std::task::Waker>>,
}

impl ShutdownFlag {
    fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Whether it fired; if not, `cx` is woken when it does.
    fn poll_fired(&self, cx: &Context<'_>) -> bool {
        if self.fired.load(Ordering::Acquire) {
            return true;
        }
        {
            let mut slot = self
                .waker
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !slot.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *slot = Some(cx.waker().clone());
            }
        }
        // It may have fired while the waker was being stored.
        self.fired.load(Ordering::Acquire)
    }
}

/// How many lines may be read in a row before the shutdown signal is looked at again.
const SIGNAL_EVERY_LINES: u32 = 64;

impl StdinSource {
    pub fn new(
        stdin: Box<dyn AsyncRead + Unpin + Send>,
        out: StdoutSink,
        shutdown: Arc<ShutdownFlag>,
    ) -> Self {
        StdinSource {
            lines: HostLines::new(
                BufReader::with_capacity(256 * 1024, stdin),
                MAX_MESSAGE_BYTES,
            ),
            pending: VecDeque::new(),
            out,
            shutdown,
            lines_since_signal: 0,
            ended: false,
        }
    }

    /// True once Ctrl-C or SIGTERM arrived (then the source ends).
    fn signalled(&mut self, cx: &mut Context<'_>) -> bool {
        self.lines_since_signal = 0;
        if self.shutdown.poll_fired(cx) {
            tracing::info!(target: "serve", "signal received: shutting down");
            self.ended = true;
            return true;
        }
        false
    }

    /// Turns one line into messages for the session, or answers it.
    fn take_line(&mut self, line: Line) {
        match line {
            Line::Text(bytes) => {
                // A plain tools/call is forwarded as its bytes (mcp::peek); the rest is parsed.
                let bytes = match crate::mcp::peek::call(bytes) {
                    Ok(call) => {
                        self.pending.push_back(HostMsg::Call(call));
                        return;
                    }
                    Err(bytes) => bytes,
                };
                match parse_line(&bytes) {
                    Ok(msgs) => self.pending.extend(msgs.into_iter().map(HostMsg::Value)),
                    Err(resp) => {
                        tracing::warn!(target: "serve", "host sent a line that is not JSON");
                        self.out.put(HostOut::Value(resp));
                    }
                }
            }
            Line::TooLarge { bytes: n, probe } => {
                tracing::warn!(target: "serve", bytes = n, id = ?probe.id, "host sent an over-long message; skipped");
                let message = format!(
                    "message of {n} bytes is larger than the {MAX_MESSAGE_BYTES}-byte limit of mcp-gen-ui serve; it was skipped"
                );
                match unusable_host_message(&probe, -32600, message) {
                    Unusable::Answer(v) => {
                        self.out.put(HostOut::Value(v));
                    }
                    Unusable::Forward(v) => self.pending.push_back(HostMsg::Value(v)),
                }
            }
        }
    }
}

impl HostSource for StdinSource {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<HostMsg>> {
        loop {
            if let Some(m) = self.pending.pop_front() {
                return Poll::Ready(Some(m));
            }
            if self.ended {
                return Poll::Ready(None);
            }
            // Looked at whenever stdin is quiet, and now and then while it is busy.
            self.lines_since_signal += 1;
            if self.lines_since_signal >= SIGNAL_EVERY_LINES && self.signalled(cx) {
                continue;
            }
            match self.lines.poll_line(cx) {
                Poll::Pending => {
                    if self.signalled(cx) {
                        continue;
                    }
                    return Poll::Pending;
                }
                Poll::Ready(Ok(Some(line))) => self.take_line(line),
                Poll::Ready(Ok(None)) => {
                    tracing::info!(target: "serve", "stdin closed: shutting down");
                    self.ended = true;
                }
                Poll::Ready(Err(e)) => {
                    tracing::error!(target: "serve", "reading stdin failed: {e}");
                    self.ended = true;
                }
            }
        }
    }
}

/// One message as one line of JSON text (an HTTP status the upstream refused a request with
/// has no place on stdio).
fn encode(msg: HostOut) -> Vec<u8> {
    match msg {
        HostOut::Raw(raw) => raw,
        HostOut::Value(msg) | HostOut::Refused(msg, _) => {
            let mut line = crate::json::to_vec(&msg);
            line.push(b'\n');
            line
        }
    }
}

/// The host's stdout, shared by the session, which writes a message itself when nothing is
/// waiting and the pipe or socket has room (a task hop less on every response), and the writer
/// task, which writes the rest in order, waiting for room.
pub struct HostStdout {
    out: std::sync::Mutex<Box<dyn AsyncWrite + Unpin + Send>>,
    /// Writes may be tried at once: a reactor-driven pipe or socket takes bytes or refuses
    /// them without waiting. tokio's own stdout (a file, a terminal) hands writes to a thread.
    direct: bool,
    /// Messages handed to the writer task and not yet written.
    queued: AtomicUsize,
}

impl HostStdout {
    pub fn new(out: Box<dyn AsyncWrite + Unpin + Send>, direct: bool) -> Arc<Self> {
        Arc::new(HostStdout {
            out: std::sync::Mutex::new(out),
            direct,
            queued: AtomicUsize::new(0),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn AsyncWrite + Unpin + Send>> {
        self.out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes what of `bytes` the stream takes now: the number of bytes written (0 when it is
    /// full, broken, or busy; the writer task then sends the rest and meets any error).
    fn try_write(&self, bytes: &[u8]) -> usize {
        let Ok(mut out) = self.out.try_lock() else {
            return 0;
        };
        // A waker that is not kept: when the stream would wait, the writer task polls again
        // with its own.
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut written = 0;
        while written < bytes.len() {
            match Pin::new(&mut **out).poll_write(&mut cx, &bytes[written..]) {
                Poll::Ready(Ok(n)) if n > 0 => written += n,
                _ => break,
            }
        }
        written
    }

    async fn write_all(&self, bytes: &[u8]) -> std::io::Result<()> {
        let mut written = 0;
        while written < bytes.len() {
            let n = std::future::poll_fn(|cx| {
                Pin::new(&mut **self.lock()).poll_write(cx, &bytes[written..])
            })
            .await?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            written += n;
        }
        Ok(())
    }

    async fn flush(&self) -> std::io::Result<()> {
        std::future::poll_fn(|cx| Pin::new(&mut **self.lock()).poll_flush(cx)).await
    }
}

/// Where a stdio session's messages for the host go: written at once when nothing is queued
/// and the stream has room, else queued for the writer task ([`write_lines`]), so their order
/// is kept either way.
#[derive(Clone)]
pub struct StdoutSink {
    stdout: Arc<HostStdout>,
    tx: mpsc::UnboundedSender<HostOut>,
}

impl StdoutSink {
    pub fn new(stdout: Arc<HostStdout>, tx: mpsc::UnboundedSender<HostOut>) -> Self {
        StdoutSink { stdout, tx }
    }
}

impl HostSink for StdoutSink {
    fn put(&self, msg: HostOut) -> bool {
        let msg = if self.stdout.direct && self.stdout.queued.load(Ordering::Acquire) == 0 {
            let mut line = encode(msg);
            let written = self.stdout.try_write(&line);
            if written == line.len() {
                return true;
            }
            line.drain(..written);
            HostOut::Raw(line)
        } else {
            msg
        };
        self.stdout.queued.fetch_add(1, Ordering::AcqRel);
        if self.tx.send(msg).is_err() {
            self.stdout.queued.fetch_sub(1, Ordering::AcqRel);
            return false;
        }
        true
    }
}

/// The writer task: writes each queued message as one line, flushing when no more are
/// waiting; ends when the queue closes or the host stops reading (a write fails).
pub async fn write_lines(stdout: Arc<HostStdout>, mut rx: mpsc::UnboundedReceiver<HostOut>) {
    while let Some(msg) = rx.recv().await {
        let written = stdout.write_all(&encode(msg)).await;
        stdout.queued.fetch_sub(1, Ordering::AcqRel);
        if written.is_err() || (rx.is_empty() && stdout.flush().await.is_err()) {
            return;
        }
    }
    let _ = stdout.flush().await;
}

// tokio's `stdin()`/`stdout()` hand every read and write to a blocking thread, which costs tens
// of microseconds and several futex wake-ups per message. When they are pipes (a Rust or Python
// host) or Unix sockets (Node.js and Electron hosts such as Claude Desktop: libuv gives children
// socketpairs, not pipes) they are driven by the reactor instead.

/// What a standard stream is connected to.
#[cfg(unix)]
enum StreamKind {
    Pipe,
    Socket,
    Other,
}

#[cfg(unix)]
fn stream_kind(fd: std::os::fd::BorrowedFd<'_>) -> StreamKind {
    use std::os::unix::fs::FileTypeExt;
    let Ok(owned) = fd.try_clone_to_owned() else {
        return StreamKind::Other;
    };
    match std::fs::File::from(owned).metadata().map(|m| m.file_type()) {
        Ok(t) if t.is_fifo() => StreamKind::Pipe,
        Ok(t) if t.is_socket() => StreamKind::Socket,
        _ => StreamKind::Other,
    }
}

/// A Unix socket standard stream, non-blocking and registered with the reactor.
#[cfg(unix)]
fn socket_stream(fd: std::os::fd::BorrowedFd<'_>) -> Option<tokio::net::UnixStream> {
    let std_stream = std::os::unix::net::UnixStream::from(fd.try_clone_to_owned().ok()?);
    std_stream.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(std_stream).ok()
}

#[cfg(unix)]
fn reactor_stdin() -> Option<Box<dyn AsyncRead + Unpin + Send>> {
    use std::os::fd::AsFd;
    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    match stream_kind(fd) {
        StreamKind::Pipe => {
            let owned = fd.try_clone_to_owned().ok()?;
            let rx = tokio::net::unix::pipe::Receiver::from_owned_fd(owned).ok()?;
            Some(Box::new(rx))
        }
        StreamKind::Socket => Some(Box::new(socket_stream(fd)?)),
        StreamKind::Other => None,
    }
}

#[cfg(unix)]
fn reactor_stdout() -> Option<Box<dyn AsyncWrite + Unpin + Send>> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    let out = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let err = std::fs::File::from(std::io::stderr().as_fd().try_clone_to_owned().ok()?);
    let (o, e) = (out.metadata().ok()?, err.metadata().ok()?);
    // Non-blocking mode is shared by every descriptor of the stream: if stderr is the same pipe
    // or socket, logging could fail with EAGAIN, so keep the blocking path then.
    if o.dev() == e.dev() && o.ino() == e.ino() {
        return None;
    }
    match stream_kind(fd) {
        StreamKind::Pipe => Some(Box::new(
            tokio::net::unix::pipe::Sender::from_file(out).ok()?,
        )),
        StreamKind::Socket => Some(Box::new(SocketOut::new(fd)?)),
        StreamKind::Other => None,
    }
}

/// A Unix socket stdout that writes at once and waits on the reactor only when the socket is
/// full. A socket registered for writability wakes its writer every time the host reads a
/// message from it (the kernel reports the freed space): one needless process wake-up per
/// response, right when the host starts working on it. Pipes only report space when they were
/// full, so tokio's pipe sender has no such cost.
#[cfg(unix)]
struct SocketOut {
    /// The socket, non-blocking.
    sock: std::os::unix::net::UnixStream,
    /// A registration of a duplicate descriptor, held only while a write waits for space.
    waiting: Option<tokio::io::unix::AsyncFd<std::os::unix::net::UnixStream>>,
}

#[cfg(unix)]
impl SocketOut {
    fn new(fd: std::os::fd::BorrowedFd<'_>) -> Option<SocketOut> {
        let sock = std::os::unix::net::UnixStream::from(fd.try_clone_to_owned().ok()?);
        sock.set_nonblocking(true).ok()?;
        Some(SocketOut {
            sock,
            waiting: None,
        })
    }
}

#[cfg(unix)]
impl AsyncWrite for SocketOut {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::io::{ErrorKind, Write};
        use std::task::Poll;
        let this = self.get_mut();
        loop {
            match (&this.sock).write(buf) {
                Ok(n) => {
                    this.waiting = None;
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
            let fd = match &mut this.waiting {
                Some(fd) => fd,
                slot => {
                    // Registering reports space that appeared since the failed write at once.
                    let dup = this.sock.try_clone()?;
                    // SAFETY: the AsyncFd owns `dup`, an open descriptor that nothing else
                    // closes or replaces while it is registered.
                    let reg = unsafe {
                        tokio::io::unix::AsyncFd::register_with_interest(
                            dup,
                            tokio::io::Interest::WRITABLE,
                        )
                    };
                    slot.insert(reg.map_err(std::io::Error::from)?)
                }
            };
            match fd.poll_write_ready(cx) {
                Poll::Ready(Ok(mut guard)) => guard.clear_ready(),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[cfg(not(unix))]
fn reactor_stdin() -> Option<Box<dyn AsyncRead + Unpin + Send>> {
    None
}

#[cfg(not(unix))]
fn reactor_stdout() -> Option<Box<dyn AsyncWrite + Unpin + Send>> {
    None
}

/// Parses one host line into messages (a JSON-RPC batch is split; a blank line is none); see
/// [`messages::parse`].
pub fn parse_line(bytes: &[u8]) -> Result<Vec<Value>, Value> {
    let text = bytes.trim_ascii();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    messages::parse(text).map(|(msgs, _)| msgs)
}

/// Serves one host on stdin/stdout until stdin closes.
pub async fn run(shared: Arc<Shared>) -> anyhow::Result<()> {
    let conn = shared.connect().await.with_context(|| {
        format!(
            "cannot start the upstream MCP server {} (check [upstream] in the config or --server)",
            shared.router.upstream
        )
    })?;
    let (out_tx, out_rx) = mpsc::unbounded_channel::<HostOut>();
    let stdout = match reactor_stdout() {
        Some(out) => HostStdout::new(out, true),
        None => HostStdout::new(Box::new(tokio::io::stdout()), false),
    };
    let stdin: Box<dyn AsyncRead + Unpin + Send> =
        reactor_stdin().unwrap_or_else(|| Box::new(tokio::io::stdin()));
    let writer = tokio::spawn(write_lines(Arc::clone(&stdout), out_rx));
    let sink = StdoutSink::new(stdout, out_tx);
    let flag = Arc::new(ShutdownFlag::default());
    let signals = tokio::spawn({
        let flag = Arc::clone(&flag);
        async move {
            super::shutdown::signal().await;
            flag.fire();
        }
    });
    let source = StdinSource::new(stdin, sink.clone(), flag);
    session::run(shared, conn, source, sink, true).await;
    signals.abort();
    let _ = writer.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = HostLines::new(BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().await.unwrap() {
            out.push(l);
        }
        out
    }

    #[tokio::test]
    async fn lines_are_bounded() {
        let got = lines(b"ab\n0123456789\ncd", 5).await;
        assert_eq!(
            got,
            vec![
                Line::Text(b"ab".to_vec()),
                Line::TooLarge {
                    bytes: 10,
                    probe: Probe::default()
                },
                Line::Text(b"cd".to_vec())
            ]
        );
        assert_eq!(lines(b"", 5).await, vec![]);
        assert_eq!(lines(b"\n", 5).await, vec![Line::Text(vec![])]);
    }

    #[test]
    fn parse_splits_batches_and_reports_junk() {
        assert_eq!(
            parse_line(b" {\"a\":1}\r").unwrap(),
            vec![serde_json::json!({"a":1})]
        );
        assert_eq!(parse_line(b"[1,2]").unwrap().len(), 2);
        assert!(parse_line(b"").unwrap().is_empty());
        let e = parse_line(b"{nope").unwrap_err();
        assert_eq!(e["error"]["code"], -32700);
        assert_eq!(e["id"], Value::Null);
        let e =
            parse_line(br#"{"jsonrpc":"2.0","id":"a","method":"x","params":{nope"#).unwrap_err();
        assert_eq!(
            (e["id"].as_str(), e["error"]["code"].as_i64()),
            (Some("a"), Some(-32700))
        );
        let e = parse_line(b"[]").unwrap_err();
        assert_eq!(
            (&e["id"], e["error"]["code"].as_i64()),
            (&Value::Null, Some(-32600))
        );
        // A broken answer to a server→client request goes on as an error answer.
        let fwd = parse_line(br#"{"jsonrpc":"2.0","id":5,"result":{"x":tru}}"#).unwrap();
        assert_eq!(fwd[0]["id"], 5);
        assert!(
            fwd[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("could not be used")
        );
    }

    #[tokio::test]
    async fn writer_emits_one_line_per_message() {
        use tokio::io::AsyncReadExt;
        let (ours, mut theirs) = tokio::io::duplex(1 << 16);
        let stdout = HostStdout::new(Box::new(ours), false);
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = StdoutSink::new(Arc::clone(&stdout), tx);
        assert!(sink.put(HostOut::Value(serde_json::json!({"a":"x\ny"}))));
        assert!(sink.put(HostOut::Raw(b"{\"raw\":1}\n".to_vec())));
        assert!(sink.put(HostOut::Value(serde_json::json!(2))));
        drop(sink);
        write_lines(stdout, rx).await;
        let mut buf = Vec::new();
        theirs.read_to_end(&mut buf).await.unwrap();
        assert_eq!(buf, b"{\"a\":\"x\\ny\"}\n{\"raw\":1}\n2\n");
    }

    /// A message the session could only write in part leaves its rest queued; a message put
    /// after it must queue behind it even when the socket has room again by then.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_message_put_after_a_partial_write_waits_behind_its_rest() {
        use std::io::Read;
        use std::os::fd::AsFd;
        let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let stdout = HostStdout::new(Box::new(SocketOut::new(ours.as_fd()).unwrap()), true);
        drop(ours);
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = StdoutSink::new(Arc::clone(&stdout), tx);
        let big = "y".repeat(4 * 1024 * 1024);
        assert!(sink.put(HostOut::Value(serde_json::json!({"big": &big}))));
        assert_eq!(
            stdout.queued.load(Ordering::Acquire),
            1,
            "the socket took it all"
        );
        // The host reads all there is: there is room again, but the rest of the first waits.
        theirs.set_nonblocking(true).unwrap();
        let mut first = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match theirs.read(&mut chunk) {
                Ok(n) if n > 0 => first.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                other => panic!("reading the socket: {other:?}"),
            }
        }
        theirs.set_nonblocking(false).unwrap();
        let first_len = first.len();
        assert!(first_len > 0 && first_len < big.len());
        assert!(sink.put(HostOut::Value(serde_json::json!({"small": 1}))));
        assert_eq!(stdout.queued.load(Ordering::Acquire), 2);
        drop(sink);
        let writer = tokio::spawn(write_lines(Arc::clone(&stdout), rx));
        let total = r#"{"big":""}"#.len() + big.len() + 1 + r#"{"small":1}"#.len() + 1;
        let reading = tokio::task::spawn_blocking(move || {
            let mut rest = Vec::new();
            let mut chunk = vec![0u8; 64 * 1024];
            while first_len + rest.len() < total {
                let n = theirs.read(&mut chunk).unwrap();
                assert!(n > 0, "the socket closed early");
                rest.extend_from_slice(&chunk[..n]);
            }
            rest
        });
        let rest = tokio::time::timeout(std::time::Duration::from_secs(60), reading)
            .await
            .expect("every byte within a minute")
            .unwrap();
        writer.await.unwrap();
        first.extend_from_slice(&rest);
        let lines: Vec<Value> = first
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("whole lines"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0]["big"].as_str().map(str::len),
            Some(4 * 1024 * 1024)
        );
        assert_eq!(lines[1]["small"], 1);
    }

    /// A host that reads slowly fills the socket: messages the session could not write at once
    /// wait in the writer task, later ones queue behind them, and once the queue is empty the
    /// session writes directly again; nothing is lost or reordered.
    #[cfg(unix)]
    #[tokio::test]
    async fn socket_stdout_waits_for_a_slow_reader_and_keeps_every_byte() {
        use std::os::fd::AsFd;
        use tokio::io::AsyncReadExt;
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let stdout = HostStdout::new(Box::new(SocketOut::new(ours.as_fd()).unwrap()), true);
        drop(ours);
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = StdoutSink::new(Arc::clone(&stdout), tx);
        let writer = tokio::spawn(write_lines(Arc::clone(&stdout), rx));
        // Far more than a socket buffer holds, so writes must wait for the reader.
        let text = "x".repeat(64 * 1024);
        let producer = tokio::spawn(async move {
            for i in 0..64 {
                assert!(sink.put(HostOut::Value(serde_json::json!({"n": i, "text": text}))));
                if i % 8 == 7 {
                    // Let the reader and writer drain, so later messages go direct again.
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            }
        });
        theirs.set_nonblocking(true).unwrap();
        let mut reader = tokio::net::UnixStream::from_std(theirs).unwrap();
        let mut got = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        // Until every byte has come (the test keeps a handle on the socket: no end of file).
        let want = 64 * (64 * 1024 + r#"{"n":00,"text":""}"#.len() + 1) - 10;
        let read = async {
            while got.len() < want {
                let n = reader.read(&mut chunk).await.unwrap();
                assert!(n > 0, "the socket closed early");
                got.extend_from_slice(&chunk[..n]);
                // Slow: give the writer time to fill the socket again.
                tokio::time::sleep(std::time::Duration::from_micros(200)).await;
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(60), read)
            .await
            .expect("every byte within a minute");
        producer.await.unwrap();
        writer.await.unwrap();
        assert_eq!(stdout.queued.load(Ordering::Acquire), 0);
        let lines: Vec<Value> = got
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 64);
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(l["n"], i);
            assert_eq!(l["text"].as_str().map(str::len), Some(64 * 1024));
        }
    }
}
