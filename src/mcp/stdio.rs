//! The stdio transport: a child process in its own process group, newline-delimited JSON on its
//! stdin/stdout, stderr kept in a ring buffer.

use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

use super::framing::{Frame, LineReader};
use super::spec::StdioSpec;
use super::transport::{
    CloseKind, CloseReason, ConnectError, ConnectOptions, Incoming, InvalidMessage, SendError,
    StderrTail, excerpt, parse_incoming,
};

/// Longest stderr line kept in the tail (a child may print megabytes on one line).
const STDERR_LINE_MAX: usize = 2000;

/// The child's stdin, shared by every sender; `None` once shutdown closed it.
pub(crate) struct Writer {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
}

impl Writer {
    /// Writes one line that is already JSON text ending in a newline (the raw path of `serve`).
    pub(crate) async fn send_raw(&self, line: &[u8]) -> Result<(), SendError> {
        let mut guard = self.stdin.lock().await;
        let Some(stdin) = guard.as_mut() else {
            return Err(SendError::Closed);
        };
        let res = async {
            stdin.write_all(line).await?;
            stdin.flush().await
        }
        .await;
        res.map_err(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                SendError::Closed
            } else {
                SendError::Io(e.to_string())
            }
        })
    }

    /// Writes what of `line` the pipe takes now, without waiting: the bytes written (0 when
    /// another send holds the pipe, it is full, closed or broken; the caller then sends the rest
    /// with [`send_raw`](Self::send_raw), which reports any error).
    pub(crate) fn try_send_raw(&self, line: &[u8]) -> usize {
        let Ok(mut guard) = self.stdin.try_lock() else {
            return 0;
        };
        let Some(stdin) = guard.as_mut() else {
            return 0;
        };
        // One poll without a waker to keep: a pipe with room takes the line at once; when it
        // would wait, `send_raw` polls again with a real one.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut written = 0;
        while written < line.len() {
            match std::pin::Pin::new(&mut *stdin).poll_write(&mut cx, &line[written..]) {
                std::task::Poll::Ready(Ok(n)) if n > 0 => written += n,
                _ => break,
            }
        }
        written
    }

    /// Writes one message as one line.
    pub(crate) async fn send(&self, msg: &Value) -> Result<(), SendError> {
        // serde_json never emits a raw newline inside a value, so one value is one line.
        let mut line = crate::json::to_vec(msg);
        line.push(b'\n');
        self.send_raw(&line).await
    }
}

pub(crate) struct StdioParts {
    pub(crate) writer: Arc<Writer>,
    /// The child's stdout, read by whoever receives (see [`StdoutReader`]).
    pub(crate) stdout: StdoutReader,
    pub(crate) shutdown: oneshot::Sender<()>,
    pub(crate) done: oneshot::Receiver<()>,
    pub(crate) tail: StderrTail,
}

pub(crate) fn open(
    spec: &StdioSpec,
    opts: &ConnectOptions,
    tx: mpsc::Sender<Incoming>,
) -> Result<StdioParts, ConnectError> {
    if let Some(cwd) = &spec.cwd {
        // Checked up front: a missing cwd makes spawn fail with NotFound, which would be
        // misreported as "command not found".
        match std::fs::metadata(cwd) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(ConnectError::BadCwd {
                    cwd: cwd.display().to_string(),
                    reason: "not a directory".into(),
                });
            }
            Err(e) => {
                return Err(ConnectError::BadCwd {
                    cwd: cwd.display().to_string(),
                    reason: e.to_string(),
                });
            }
        }
    }
    let mut cmd = Command::new(&spec.command);
    // Not our whole environment: a short allow-list (plus `env_inherit`), never our secrets, then
    // the config's `env` (book: reference/security.md).
    cmd.args(&spec.args)
        .env_clear()
        .envs(crate::secrets::child_environment(&spec.inherit))
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so shutdown reaches grandchildren (`cargo run` → the real server).
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound if resolve_command(spec).is_some() => ConnectError::Spawn {
            command: spec.command.clone(),
            reason: "the file exists, but the interpreter named on its `#!` line was not found \
                     (is e.g. node or python installed and on PATH?)"
                .into(),
        },
        std::io::ErrorKind::NotFound => ConnectError::CommandNotFound {
            command: spec.command.clone(),
        },
        std::io::ErrorKind::PermissionDenied => ConnectError::PermissionDenied {
            command: spec.command.clone(),
        },
        _ => ConnectError::Spawn {
            command: spec.command.clone(),
            reason: e.to_string(),
        },
    })?;
    let pgid = child.id().and_then(|id| i32::try_from(id).ok());
    if let Some(g) = pgid {
        groups::add(g);
    }
    let guard = GroupGuard { pgid, armed: true };
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ConnectError::Spawn {
            command: spec.command.clone(),
            reason: "stdio pipes were not created".into(),
        });
    };
    let writer = Arc::new(Writer {
        stdin: tokio::sync::Mutex::new(Some(stdin)),
    });
    let tail = opts.stderr_sink.clone().unwrap_or_default();

    let (ended_tx, ended_rx) = oneshot::channel();
    let stdout = StdoutReader {
        lines: LineReader::new(
            BufReader::with_capacity(64 * 1024, stdout),
            opts.max_message_bytes,
        ),
        max: opts.max_message_bytes,
        raw: opts.raw_responses,
        ended: Some(ended_tx),
    };
    let stderr_task = tokio::spawn(read_stderr(
        stderr,
        tail.clone(),
        opts.stderr_tail_lines,
        opts.forward_stderr.then(|| opts.stderr_prefix.clone()),
    ));
    let (shutdown_tx, shutdown_rx) = oneshot::channel();
    let (done_tx, done_rx) = oneshot::channel();
    tokio::spawn(supervise(Supervisor {
        child,
        guard,
        writer: writer.clone(),
        tail: tail.clone(),
        tx,
        stdout_ended: ended_rx,
        stderr_task,
        shutdown_rx,
        done_tx,
        grace: opts.shutdown_grace,
    }));
    Ok(StdioParts {
        writer,
        stdout,
        shutdown: shutdown_tx,
        done: done_rx,
        tail,
    })
}

/// Where the command would be found, if anywhere: spawn's ENOENT also means "the script's
/// interpreter is missing", which deserves a different message.
fn resolve_command(spec: &StdioSpec) -> Option<std::path::PathBuf> {
    let cmd = std::path::Path::new(&spec.command);
    if spec.command.contains('/') {
        let full = match &spec.cwd {
            Some(cwd) if cmd.is_relative() => cwd.join(cmd),
            _ => cmd.to_path_buf(),
        };
        return full.is_file().then_some(full);
    }
    let path = spec
        .env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(cmd))
        .find(|p| p.is_file())
}

/// A child's stdout as messages, read in the task of whoever receives them, when it asks:
/// a reader task and a channel in between would cost as much as the read on every message
/// (serve forwards each answer of a tool call this way). It tells the supervisor when stdout
/// ends, and with what error; the supervisor's `Closed` follows it on the receiver's channel.
pub(crate) struct StdoutReader {
    lines: LineReader<BufReader<tokio::process::ChildStdout>>,
    max: usize,
    raw: bool,
    /// Told once, at the end of stdout: the read error, if that is what ended it.
    ended: Option<oneshot::Sender<Option<String>>>,
}

impl StdoutReader {
    /// The next item; `Ready(None)` once stdout has ended (the supervisor was told).
    pub(crate) fn poll_item(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Incoming>> {
        use std::task::Poll;
        loop {
            let frame = match self.lines.poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(Some(f))) => f,
                Poll::Ready(end) => {
                    let error = end.err().map(|e| e.to_string());
                    if let Some(tx) = self.ended.take() {
                        let _ = tx.send(error);
                    }
                    return Poll::Ready(None);
                }
            };
            let item = match frame {
                Frame::Line(mut bytes) => {
                    if bytes.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    // Some runtimes start their stdout with a UTF-8 byte order mark.
                    if bytes.starts_with(b"\xEF\xBB\xBF") {
                        bytes.drain(..3);
                    }
                    if !self.raw {
                        parse_incoming(&bytes)
                    } else {
                        match super::peek::response(bytes) {
                            Ok(r) => Incoming::Response(r),
                            Err(bytes) => parse_incoming(&bytes),
                        }
                    }
                }
                Frame::TooLarge { prefix, probe } => Incoming::Invalid(InvalidMessage::TooLarge {
                    limit: self.max,
                    prefix: String::from_utf8_lossy(&prefix).into_owned(),
                    probe,
                }),
            };
            return Poll::Ready(Some(item));
        }
    }
}

impl std::fmt::Debug for StdoutReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StdoutReader")
    }
}

async fn read_stderr(
    stderr: tokio::process::ChildStderr,
    tail: StderrTail,
    keep: usize,
    forward: Option<String>,
) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Bounded by hand: `read_until` alone would buffer an endless line.
        let n = match read_line_capped(&mut reader, &mut buf, STDERR_LINE_MAX * 4).await {
            Ok(n) => n,
            Err(_) => return,
        };
        if n == 0 {
            return;
        }
        let text = String::from_utf8_lossy(&buf);
        let line = text.trim_end_matches(['\n', '\r']);
        if let Some(prefix) = &forward {
            eprintln!("{prefix}{}", crate::secrets::redact(line));
        }
        tail.push(excerpt(line, STDERR_LINE_MAX), keep);
    }
}

/// Like `read_until(b'\n')`, but stops storing after `cap` bytes (the rest of the line is read
/// and dropped). Returns the number of bytes consumed.
async fn read_line_capped<R: tokio::io::AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let available = r.fill_buf().await?;
        if available.is_empty() {
            return Ok(consumed);
        }
        let (take, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(available.get(..take.min(room)).unwrap_or_default());
        r.consume(take);
        consumed += take;
        if done {
            return Ok(consumed);
        }
    }
}

/// Signals the child's process group when dropped, unless disarmed after a clean end: the
/// last line of defence against leaked grandchildren if our runtime goes away mid-flight.
struct GroupGuard {
    pgid: Option<i32>,
    armed: bool,
}

impl GroupGuard {
    fn signal(&self, sig: i32) {
        if let Some(pgid) = self.pgid
            && pgid > 1
        {
            // SAFETY: kill(2) with a negative pid only sends a signal to that process group;
            // it touches no memory of ours.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
    }

    /// Whether any process of the group is still alive.
    fn group_alive(&self) -> bool {
        match self.pgid {
            // SAFETY: signal 0 only checks for existence and permission.
            Some(pgid) if pgid > 1 => unsafe { libc::kill(-pgid, 0) == 0 },
            _ => false,
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            self.signal(libc::SIGKILL);
        }
        if let Some(g) = self.pgid {
            groups::remove(g);
        }
    }
}

/// The process groups of the children alive now, so that a signal or a panic that ends
/// mcp-gen-ui can end them too (they are in groups of their own, out of reach of the terminal's
/// Ctrl-C). A fixed table of atomics: readable from anywhere, without locks.
mod groups {
    use std::sync::atomic::{AtomicI32, Ordering};

    const SLOTS: usize = 256;
    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

    pub(super) fn add(pgid: i32) {
        // If mcp-gen-ui is killed outright, the guardian stops the group.
        super::super::guardian::watch(pgid);
        for slot in &GROUPS {
            if slot
                .compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return;
            }
        }
    }

    pub(super) fn remove(pgid: i32) {
        for slot in &GROUPS {
            let _ = slot.compare_exchange(pgid, 0, Ordering::SeqCst, Ordering::SeqCst);
        }
        super::super::guardian::forget(pgid);
    }

    pub(super) fn live() -> Vec<i32> {
        GROUPS
            .iter()
            .map(|s| s.load(Ordering::SeqCst))
            .filter(|g| *g > 1)
            .collect()
    }
}

/// Stops every child process group still running: SIGTERM, up to `grace` for them to go, then
/// SIGKILL. For a process that is about to end abnormally (a signal, a panic); a normal end
/// shuts each connection down instead.
pub fn stop_all_children(grace: Duration) {
    let live = groups::live();
    if live.is_empty() {
        return;
    }
    let alive = |g: i32| {
        // SAFETY: signal 0 only checks for existence and permission.
        unsafe { libc::kill(-g, 0) == 0 }
    };
    for g in &live {
        // SAFETY: kill(2) on a process group of our own children; touches no memory.
        unsafe {
            libc::kill(-g, libc::SIGTERM);
        }
    }
    let deadline = std::time::Instant::now() + grace;
    while live.iter().any(|g| alive(*g)) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for g in live {
        if alive(g) {
            // SAFETY: as above.
            unsafe {
                libc::kill(-g, libc::SIGKILL);
            }
        }
        groups::remove(g);
    }
}

struct Supervisor {
    child: Child,
    guard: GroupGuard,
    writer: Arc<Writer>,
    tail: StderrTail,
    tx: mpsc::Sender<Incoming>,
    /// Fires when the receiver has read stdout to its end (with the read error, if any), or
    /// dropped it.
    stdout_ended: oneshot::Receiver<Option<String>>,
    stderr_task: tokio::task::JoinHandle<()>,
    shutdown_rx: oneshot::Receiver<()>,
    done_tx: oneshot::Sender<()>,
    grace: Duration,
}

/// Owns the child: waits for it to exit, stdout to end, or a shutdown request, then stops the
/// whole process group and reports one `Closed`.
async fn supervise(mut s: Supervisor) {
    let mut stdout_ended = s.stdout_ended;
    let mut stdout_error = None;
    let mut stdout_done = false;
    let mut requested = false;
    let status: Option<ExitStatus> = tokio::select! {
        st = s.child.wait() => st.ok(),
        res = &mut stdout_ended => {
            stdout_done = true;
            stdout_error = res.ok().flatten();
            // stdout is gone: a well-behaved server is exiting; give it a moment.
            match tokio::time::timeout(s.grace, s.child.wait()).await {
                Ok(st) => st.ok(),
                Err(_) => None,
            }
        }
        // Also fires when the Closer is dropped (sender dropped).
        _ = &mut s.shutdown_rx => {
            requested = true;
            None
        }
    };
    let status = match status {
        Some(st) => Some(st),
        None => stop_child(&mut s.child, &s.writer, &s.guard, s.grace).await,
    };
    // Leftover group members (grandchildren) must not outlive the child.
    if s.guard.group_alive() {
        s.guard.signal(libc::SIGTERM);
        let deadline = tokio::time::Instant::now() + Duration::from_millis(500);
        while s.guard.group_alive() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if s.guard.group_alive() {
            s.guard.signal(libc::SIGKILL);
        }
    }
    s.guard.armed = false;
    // Close stdin so senders get `Closed` from now on.
    close_stdin(&s.writer).await;
    // What the child wrote before it went is read by the receiver: give it a moment to reach
    // the end, so that `Closed` comes after the last message (a shutdown asked for needs none,
    // and nobody may be reading then).
    if !stdout_done
        && !requested
        && let Ok(res) = tokio::time::timeout(Duration::from_secs(1), &mut stdout_ended).await
    {
        stdout_error = res.ok().flatten();
    }
    // Let the last stderr lines (often the reason for a crash) land in the tail.
    let mut stderr_task = s.stderr_task;
    if tokio::time::timeout(Duration::from_millis(500), &mut stderr_task)
        .await
        .is_err()
    {
        stderr_task.abort();
    }
    let kind = if requested {
        CloseKind::Shutdown
    } else if let Some(e) = stdout_error {
        CloseKind::ReadError(e)
    } else {
        match status {
            Some(st) => exit_kind(st),
            None => CloseKind::StdoutClosed,
        }
    };
    let reason = CloseReason {
        kind,
        stderr_tail: s.tail.lines(),
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), s.tx.send(Incoming::Closed(reason))).await;
    let _ = s.done_tx.send(());
}

/// Close stdin, wait `grace`, then SIGTERM and finally SIGKILL the group. Returns the status.
async fn stop_child(
    child: &mut Child,
    writer: &Writer,
    guard: &GroupGuard,
    grace: Duration,
) -> Option<ExitStatus> {
    close_stdin(writer).await;
    if let Ok(st) = tokio::time::timeout(grace, child.wait()).await {
        return st.ok();
    }
    guard.signal(libc::SIGTERM);
    if let Ok(st) = tokio::time::timeout(Duration::from_secs(1), child.wait()).await {
        return st.ok();
    }
    guard.signal(libc::SIGKILL);
    let _ = child.start_kill();
    child.wait().await.ok()
}

/// Drops the child's stdin. A sender blocked on a full pipe holds the lock; the child is being
/// stopped anyway, so don't wait for it forever.
async fn close_stdin(writer: &Writer) {
    if let Ok(mut g) = tokio::time::timeout(Duration::from_millis(200), writer.stdin.lock()).await {
        g.take();
    }
}

fn exit_kind(st: ExitStatus) -> CloseKind {
    use std::os::unix::process::ExitStatusExt;
    CloseKind::Exited {
        code: st.code(),
        signal: st.signal(),
    }
}
