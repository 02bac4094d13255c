//! The stdio host side (what Claude Desktop launches): newline-delimited JSON-RPC on stdin and
//! stdout, nothing else on stdout, and exit as soon as stdin closes.

use std::sync::Arc;

use anyhow::Context as _;
use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::router::{Unusable, error_response, unusable_code, unusable_host_message};
use super::session::{self, HostMsg, HostOut, Shared};
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

/// Reads one `\n`-terminated line of at most `max` bytes; `None` at end of input. An over-long
/// line is consumed to its end but never buffered whole, so a hostile host cannot exhaust memory.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut skipped = 0usize;
    let mut scanner: Option<IdScanner> = None;
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(match (scanner, buf.is_empty()) {
                (None, true) => None,
                (None, false) => Some(Line::Text(buf)),
                (Some(s), _) => Some(Line::TooLarge {
                    bytes: skipped,
                    probe: s.finish(),
                }),
            });
        }
        let (chunk, done) = match avail.iter().position(|&b| b == b'\n') {
            Some(i) => (&avail[..i], Some(i + 1)),
            None => (avail, None),
        };
        if scanner.is_some() || buf.len() + chunk.len() > max {
            let s = scanner.get_or_insert_with(IdScanner::new);
            s.feed(&buf);
            s.feed(chunk);
            skipped += buf.len() + chunk.len();
            buf = Vec::new();
        } else {
            buf.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(avail.len());
        r.consume(used);
        if done.is_some() {
            return Ok(Some(match scanner {
                Some(s) => Line::TooLarge {
                    bytes: skipped,
                    probe: s.finish(),
                },
                None => Line::Text(buf),
            }));
        }
    }
}

/// Writes each message as one line, flushing when no more are waiting.
pub async fn write_lines<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::UnboundedReceiver<HostOut>,
) {
    let mut line = Vec::with_capacity(4096);
    while let Some(msg) = rx.recv().await {
        let bytes = match msg {
            HostOut::Raw(raw) => raw,
            HostOut::Value(mut msg) => {
                if let Some(obj) = msg.as_object_mut()
                    && obj.contains_key(super::router::HTTP_STATUS_KEY)
                {
                    obj.shift_remove(super::router::HTTP_STATUS_KEY);
                }
                line.clear();
                crate::json::write(&msg, &mut line);
                line.push(b'\n');
                std::mem::take(&mut line)
            }
        };
        if w.write_all(&bytes).await.is_err() {
            return;
        }
        line = bytes;
        if rx.is_empty() && w.flush().await.is_err() {
            return;
        }
    }
    let _ = w.flush().await;
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

/// Parses one host line into messages (a JSON-RPC batch is split); errors become responses
/// (for the request's own id when it can be found). The host's unusable answer to a
/// server→client request becomes an error response in its place (`Ok`), for the router.
pub fn parse_line(bytes: &[u8]) -> Result<Vec<Value>, Value> {
    let text = bytes.trim_ascii();
    if text.is_empty() {
        return Ok(Vec::new());
    }
    match crate::json::from_slice(text) {
        Ok(Value::Array(batch)) if batch.is_empty() => Err(empty_batch()),
        Ok(Value::Array(batch)) => Ok(batch),
        Ok(v) => Ok(vec![v]),
        Err(e) => {
            let code = unusable_code(&e);
            let message = match code {
                -32700 => format!("parse error: {e}"),
                _ => format!("invalid request: {e}"),
            };
            match unusable_host_message(&IdScanner::scan(text), code, message) {
                Unusable::Answer(v) => Err(v),
                Unusable::Forward(v) => Ok(vec![v]),
            }
        }
    }
}

/// JSON-RPC 2.0's answer to `[]`: one Invalid Request error with a null id.
pub fn empty_batch() -> Value {
    error_response(
        Value::Null,
        -32600,
        "invalid request: an empty batch (JSON-RPC 2.0 batches hold at least one message)".into(),
        None,
    )
}

/// Serves one host on stdin/stdout until stdin closes.
pub async fn run(shared: Arc<Shared>) -> anyhow::Result<()> {
    let conn = shared.connect().await.with_context(|| {
        format!(
            "cannot start the upstream MCP server {} (check [upstream] in the config or --server)",
            shared.router.upstream
        )
    })?;
    let (host_tx, host_rx) = mpsc::channel::<HostMsg>(256);
    let (out_tx, out_rx) = mpsc::unbounded_channel::<HostOut>();
    let stdout: Box<dyn AsyncWrite + Unpin + Send> =
        reactor_stdout().unwrap_or_else(|| Box::new(tokio::io::stdout()));
    let stdin: Box<dyn AsyncRead + Unpin + Send> =
        reactor_stdin().unwrap_or_else(|| Box::new(tokio::io::stdin()));
    let writer = tokio::spawn(write_lines(stdout, out_rx));
    let mut session = tokio::spawn(session::run(shared, conn, host_rx, out_tx.clone(), true));
    let mut stdin = BufReader::with_capacity(256 * 1024, stdin);
    let mut session_done = false;
    let shutdown = super::shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        let line = tokio::select! {
            line = read_line(&mut stdin, MAX_MESSAGE_BYTES) => line,
            _ = &mut session => { session_done = true; break; }
            () = &mut shutdown => {
                tracing::info!(target: "serve", "signal received: shutting down");
                break;
            }
        };
        match line {
            Ok(None) => {
                tracing::info!(target: "serve", "stdin closed: shutting down");
                break;
            }
            Ok(Some(Line::Text(bytes))) => {
                // A plain tools/call is forwarded as its bytes (mcp::peek); the rest is parsed.
                if let Some(call) = crate::mcp::peek::call(&bytes) {
                    if host_tx.send(HostMsg::Call(call)).await.is_err() {
                        break;
                    }
                    continue;
                }
                match parse_line(&bytes) {
                    Ok(msgs) => {
                        for m in msgs {
                            if host_tx.send(HostMsg::Value(m)).await.is_err() {
                                break;
                            }
                        }
                    }
                    Err(resp) => {
                        tracing::warn!(target: "serve", "host sent a line that is not JSON");
                        let _ = out_tx.send(HostOut::Value(resp));
                    }
                }
            }
            Ok(Some(Line::TooLarge { bytes: n, probe })) => {
                tracing::warn!(target: "serve", bytes = n, id = ?probe.id, "host sent an over-long message; skipped");
                let message = format!(
                    "message of {n} bytes is larger than the {MAX_MESSAGE_BYTES}-byte limit of mcp-gen-ui serve; it was skipped"
                );
                match unusable_host_message(&probe, -32600, message) {
                    Unusable::Answer(v) => {
                        let _ = out_tx.send(HostOut::Value(v));
                    }
                    Unusable::Forward(v) => {
                        if host_tx.send(HostMsg::Value(v)).await.is_err() {
                            break;
                        }
                    }
                }
            }
            Err(e) => {
                tracing::error!(target: "serve", "reading stdin failed: {e}");
                break;
            }
        }
    }
    drop(host_tx);
    if !session_done {
        let _ = session.await;
    }
    drop(out_tx);
    let _ = writer.await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        while let Some(l) = read_line(&mut r, max).await.unwrap() {
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
        let (tx, rx) = mpsc::unbounded_channel();
        tx.send(HostOut::Value(serde_json::json!({"a":"x\ny"})))
            .unwrap();
        tx.send(HostOut::Raw(b"{\"raw\":1}\n".to_vec())).unwrap();
        tx.send(HostOut::Value(serde_json::json!(2))).unwrap();
        drop(tx);
        let mut buf = Vec::new();
        write_lines(&mut buf, rx).await;
        assert_eq!(buf, b"{\"a\":\"x\\ny\"}\n{\"raw\":1}\n2\n");
    }

    /// A host that reads slowly fills the socket: the writer waits for space and loses nothing.
    #[cfg(unix)]
    #[tokio::test]
    async fn socket_stdout_waits_for_a_slow_reader_and_keeps_every_byte() {
        use std::os::fd::AsFd;
        use tokio::io::AsyncReadExt;
        let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let out = SocketOut::new(ours.as_fd()).unwrap();
        drop(ours);
        let (tx, rx) = mpsc::unbounded_channel();
        // Far more than a socket buffer holds, so writes must wait for the reader.
        let text = "x".repeat(64 * 1024);
        for i in 0..64 {
            tx.send(HostOut::Value(serde_json::json!({"n": i, "text": text})))
                .unwrap();
        }
        drop(tx);
        let writer = tokio::spawn(write_lines(out, rx));
        theirs.set_nonblocking(true).unwrap();
        let mut reader = tokio::net::UnixStream::from_std(theirs).unwrap();
        let mut got = Vec::new();
        let mut chunk = vec![0u8; 8 * 1024];
        loop {
            let n = reader.read(&mut chunk).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&chunk[..n]);
            // Slow: give the writer time to fill the socket again.
            tokio::time::sleep(std::time::Duration::from_micros(200)).await;
        }
        writer.await.unwrap();
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
