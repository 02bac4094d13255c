//! One host session bound to one upstream connection: carries messages through the router, and
//! restarts the upstream with backoff when it dies while the host stays connected.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tracing::Instrument as _;

use super::router::{Out, Router, RouterOptions};
use super::ui_resources::Catalog;
use crate::mcp::{
    Closer, ConnectOptions, Connection, Incoming, InvalidMessage, MessageReceiver, MessageSender,
    SendError, UpstreamSpec, peek,
};

/// First restart delay; doubled after each failure up to `MAX_BACKOFF`.
const MIN_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// An upstream that stayed up this long earns a fresh backoff (as does one that answered a
/// host request other than `initialize`: `Router::healthy`).
const STABLE_AFTER: Duration = Duration::from_secs(10);

/// How long answers still in flight are awaited after the host closed its side.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// How long a stdio upstream whose pipe broke has to report how it ended (its exit and stderr
/// arrive within milliseconds of the broken pipe; a child that closed stdin and lives on does not
/// hold its session longer than this).
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// What every session of one `serve` process shares.
pub struct Shared {
    pub spec: UpstreamSpec,
    pub connect: ConnectOptions,
    pub router: RouterOptions,
    pub catalog: watch::Receiver<Arc<Catalog>>,
    /// How long the upstream may take to answer `initialize`.
    pub init_timeout: Duration,
    /// Woken whenever a session's upstream dies or fails to start: `serve --http` probes
    /// whether the upstream can still be started (`/readyz`).
    pub upstream_failed: tokio::sync::Notify,
}

impl Shared {
    /// Opens a new upstream connection (one per host session).
    pub async fn connect(&self) -> Result<Connection, crate::mcp::ConnectError> {
        Connection::open(&self.spec, &self.connect).await
    }

    /// Starts the upstream on a connection of its own, negotiates as mcp-gen-ui's own client does,
    /// and closes it again.
    pub async fn probe(&self) -> Result<(), String> {
        use crate::mcp::negotiate;
        let sink = crate::mcp::StderrTail::default();
        let opts = crate::mcp::ConnectOptions {
            forward_stderr: false,
            raw_responses: false,
            stderr_sink: Some(sink.clone()),
            ..self.connect.clone()
        };
        let stage = std::sync::Mutex::new(String::new());
        let limit = self.init_timeout;
        let open = negotiate::open(&self.spec, &opts, "mcp-gen-ui-readyz", &stage);
        match tokio::time::timeout(limit, open).await {
            Ok(Ok((client, _))) => {
                client.shutdown().await;
                Ok(())
            }
            Ok(Err(e)) => Err(crate::discover::open_failure(&self.spec, e).await),
            Err(_) => {
                let stage = stage.lock().map(|s| s.clone()).unwrap_or_default();
                Err(format!(
                    "no answer to {stage} within {} ms ([upstream] timeout_ms){}",
                    limit.as_millis(),
                    stderr_note(&sink.lines())
                ))
            }
        }
    }
}

/// A message from the host.
pub enum HostMsg {
    Value(Value),
    /// A message that came with an HTTP request: what the session logs about it carries the
    /// request's span (its request id), like the HTTP layer's own lines.
    Traced(Value, tracing::Span),
    /// A plain `tools/call`, unparsed: forwarded as its bytes when the router agrees.
    Call(peek::Call),
}

/// Where a session's messages from the host come from: a channel that a transport's tasks fill
/// (HTTP), or the host's stdin read in the session's own task (`host_stdio::StdinSource`).
pub trait HostSource: Send {
    /// The next message; `Ready(None)` once the host has gone. Must be cancel-safe: the session
    /// polls it beside its other work and drops the poll when something else is ready.
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<HostMsg>>;
}

impl HostSource for mpsc::Receiver<HostMsg> {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<HostMsg>> {
        self.poll_recv(cx)
    }
}

/// Where a session's messages for the host go: a channel that a transport's tasks drain
/// (HTTP), or the host's stdout (`host_stdio::StdoutSink`).
pub trait HostSink: Send {
    /// Hands one message on; false once the host has gone.
    fn put(&self, msg: HostOut) -> bool;
}

impl HostSink for mpsc::UnboundedSender<HostOut> {
    fn put(&self, msg: HostOut) -> bool {
        self.send(msg).is_ok()
    }
}

/// A message for the host.
pub enum HostOut {
    Value(Value),
    /// An answer to a request the upstream refused with this HTTP status (an HTTP host gets the
    /// same status; a stdio host just the message).
    Refused(Value, u16),
    /// A line of JSON text ending in a newline, to write as it is.
    Raw(Vec<u8>),
}

impl HostOut {
    /// The message as a value (a raw line is parsed back).
    pub fn into_value(self) -> Option<Value> {
        match self {
            HostOut::Value(v) | HostOut::Refused(v, _) => Some(v),
            HostOut::Raw(b) => crate::json::from_slice(&b).ok(),
        }
    }
}

/// A message for the upstream.
enum UpMsg {
    Value(Value),
    /// A line of JSON text ending in a newline, for a stdio upstream.
    Raw(Vec<u8>),
}

/// A send that failed, reported back to the session loop.
struct SendFailure {
    msg_id: Option<Value>,
    is_request: bool,
    /// A 2026-07-28 message: its HTTP errors are answers (404 is "method not found"), never
    /// a lost session.
    stateless: bool,
    error: SendError,
    /// The span the message was sent in (an HTTP request's), for the log line about it.
    span: tracing::Span,
}

struct Upstream {
    writer: mpsc::UnboundedSender<UpMsg>,
    /// Messages handed to the writer task and not yet sent: a message may be sent from the
    /// session itself only when this is 0, so that it never overtakes one of them.
    queued: Arc<AtomicUsize>,
    /// For the session's own sends (raw lines; requests over HTTP).
    sender: MessageSender,
    failures: mpsc::UnboundedSender<SendFailure>,
    /// A stdio upstream: raw lines can be written to it.
    takes_raw: bool,
    /// An HTTP upstream: a request's send lasts until it is answered, so each has a task.
    concurrent: bool,
    receiver: MessageReceiver,
    closer: Closer,
    since: Instant,
}

impl Upstream {
    fn start(conn: Connection, failures: mpsc::UnboundedSender<SendFailure>) -> Upstream {
        let (sender, receiver, closer) = conn.into_parts();
        let queued = Arc::new(AtomicUsize::new(0));
        Upstream {
            takes_raw: sender.takes_raw(),
            concurrent: sender.waits_for_answer(),
            writer: spawn_writer(sender.clone(), failures.clone(), Arc::clone(&queued)),
            queued,
            sender,
            failures,
            receiver,
            closer,
            since: Instant::now(),
        }
    }

    /// Sends a message on. When the writer task has nothing queued, a raw line is written at
    /// once if the pipe has room, and a request to an HTTP upstream gets its task at once: a
    /// task hop less on every plain tool call. Everything else, and whatever the pipe did not
    /// take, goes through the writer task, in order.
    fn send(&self, msg: UpMsg) {
        let idle = self.queued.load(Ordering::Acquire) == 0;
        let msg = match msg {
            UpMsg::Raw(mut line) if idle => {
                let written = self.sender.try_send_raw(&line);
                if written == line.len() {
                    return;
                }
                line.drain(..written);
                UpMsg::Raw(line)
            }
            UpMsg::Value(v) if idle && self.concurrent && own_task(&v) => {
                spawn_send(self.sender.clone(), self.failures.clone(), v);
                return;
            }
            other => other,
        };
        self.queued.fetch_add(1, Ordering::AcqRel);
        if self.writer.send(msg).is_err() {
            self.queued.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Hands messages to the upstream in order. Over HTTP, requests are sent on their own task: a
/// `send` lasts until the server starts answering, and one slow tool call must not hold up the
/// others. Notifications and responses go in line, so their order is kept. Over stdio every
/// send is in line: it returns once the line is written, and a task per request would only add
/// latency to each call.
fn spawn_writer(
    sender: MessageSender,
    failures: mpsc::UnboundedSender<SendFailure>,
    queued: Arc<AtomicUsize>,
) -> mpsc::UnboundedSender<UpMsg> {
    let (tx, mut rx) = mpsc::unbounded_channel::<UpMsg>();
    let concurrent = sender.waits_for_answer();
    tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            write_one(&sender, &failures, concurrent, msg).await;
            queued.fetch_sub(1, Ordering::AcqRel);
        }
    });
    tx
}

/// Whether a message to an HTTP upstream is sent on a task of its own: requests, except
/// `initialize` (nothing may overtake it).
fn own_task(msg: &Value) -> bool {
    msg.get("id").is_some()
        && msg
            .get("method")
            .is_some_and(|m| m.as_str() != Some("initialize"))
}

/// Sends one request on a task of its own; a failure is reported back to the session loop.
fn spawn_send(sender: MessageSender, failures: mpsc::UnboundedSender<SendFailure>, msg: Value) {
    let msg_id = msg.get("id").cloned();
    let is_request = msg.get("method").is_some() && msg_id.is_some();
    let stateless = crate::mcp::era::is_modern_message(&msg);
    sender.spawn_request(msg, move |error| {
        let _ = failures.send(SendFailure {
            msg_id,
            is_request,
            stateless,
            error,
            span: tracing::Span::current(),
        });
    });
}

/// Sends one message and waits for the send; a failure is reported back to the session loop.
async fn send_in_line(
    sender: &MessageSender,
    failures: &mpsc::UnboundedSender<SendFailure>,
    msg: Value,
) {
    if let Err(error) = sender.send(&msg).await {
        let _ = failures.send(SendFailure {
            msg_id: msg.get("id").cloned(),
            is_request: msg.get("method").is_some() && msg.get("id").is_some(),
            stateless: crate::mcp::era::is_modern_message(&msg),
            error,
            span: tracing::Span::current(),
        });
    }
}

/// The writer task's handling of one message.
async fn write_one(
    sender: &MessageSender,
    failures: &mpsc::UnboundedSender<SendFailure>,
    concurrent: bool,
    msg: UpMsg,
) {
    let msg = match msg {
        UpMsg::Value(v) => v,
        UpMsg::Raw(line) => match sender.send_raw(&line).await {
            Some(Ok(())) => return,
            Some(Err(error)) => {
                // Only requests take the raw path; its id is in the bytes.
                let _ = failures.send(SendFailure {
                    msg_id: crate::json::IdScanner::scan(&line).id,
                    is_request: true,
                    stateless: false,
                    error,
                    span: tracing::Span::current(),
                });
                return;
            }
            // Not a stdio upstream (cannot happen: the session checks): parse and send.
            None => match crate::json::from_slice(&line) {
                Ok(v) => v,
                Err(_) => return,
            },
        },
    };
    if concurrent && own_task(&msg) {
        spawn_send(sender.clone(), failures.clone(), msg);
    } else {
        send_in_line(sender, failures, msg).await;
    }
}

/// Runs one session until the host goes away (`from_host` ends or `to_host` is dropped).
/// `first` is the already-open upstream connection.
///
/// `raw_host`: the host takes raw lines (stdio): plain `tools/call` responses are forwarded as
/// their bytes with the id rewritten, and plain calls from the host likewise (`mcp::peek`).
pub async fn run(
    shared: Arc<Shared>,
    first: Connection,
    from_host: impl HostSource,
    to_host: impl HostSink,
    raw_host: bool,
) {
    let mut catalog_rx = shared.catalog.clone();
    let catalog = catalog_rx.borrow_and_update().clone();
    let (fail_tx, fail_rx) = mpsc::unbounded_channel::<SendFailure>();
    let mut events = Events::new(from_host, fail_rx, catalog_rx, shared.router.watch);
    let mut s = Session {
        router: Router::new(shared.router.clone(), catalog),
        upstream: Some(Upstream::start(first, fail_tx.clone())),
        fail_tx,
        backoff: MIN_BACKOFF,
        crashes: 0,
        restart_at: None,
        to_host,
        raw_host,
        shared,
    };
    let outs = s.router.upstream_ready();
    if !s.deliver(outs) {
        return;
    }
    // Once the host has closed its side, answers already on their way are still delivered, for
    // a short while: a host that writes requests and closes stdin still gets its responses.
    let mut host_closed_at: Option<tokio::time::Instant> = None;
    loop {
        if let Some(t) = host_closed_at
            && (s.router.in_flight() == 0 || s.upstream.is_none() || t.elapsed() >= DRAIN_GRACE)
        {
            break;
        }
        let init_deadline = s
            .router
            .initialize_deadline(s.shared.init_timeout)
            .map(tokio::time::Instant::from_std);
        let queue_deadline = s
            .router
            .queue_deadline()
            .map(tokio::time::Instant::from_std);
        let deadline = [
            host_closed_at.map(|t| t + DRAIN_GRACE),
            init_deadline,
            queue_deadline,
            s.restart_at,
        ]
        .into_iter()
        .flatten()
        .min();
        let event = events
            .next(&mut s.upstream, host_closed_at.is_none(), deadline)
            .await;
        let go_on = match event {
            Event::Host(None) => {
                host_closed_at = Some(tokio::time::Instant::now());
                true
            }
            Event::Host(Some(msg)) => s.host_sent(msg),
            Event::Upstream(item) => s.upstream_sent(item),
            Event::Failure(f) => s.send_failed(f).await,
            Event::Catalog(newer) => {
                let outs = s.router.catalog_changed(newer);
                s.deliver(outs)
            }
            // The drain deadline is checked at the top of the loop.
            Event::Deadline => s.deadline_passed(init_deadline, queue_deadline).await,
        };
        if !go_on {
            break;
        }
    }
    if let Some(mut u) = s.upstream.take() {
        drop(u.writer);
        u.closer.shutdown().await;
    }
}

/// One session's state between events. Each handler returns false once the host has gone.
struct Session<S> {
    shared: Arc<Shared>,
    router: Router,
    upstream: Option<Upstream>,
    /// For each new upstream's writer, to report failed sends back to the loop.
    fail_tx: mpsc::UnboundedSender<SendFailure>,
    backoff: Duration,
    /// Failures in a row (deaths, failed starts) since the upstream last stayed up a while.
    crashes: u32,
    restart_at: Option<tokio::time::Instant>,
    to_host: S,
    raw_host: bool,
}

impl<S: HostSink> Session<S> {
    /// Hands the router's output on: to the host, or to the upstream when there is one.
    fn deliver(&self, outs: Vec<Out>) -> bool {
        for o in outs {
            match o {
                Out::Host(v) => {
                    if !self.to_host.put(HostOut::Value(v)) {
                        return false;
                    }
                }
                Out::HostRefused(v, status) => {
                    if !self.to_host.put(HostOut::Refused(v, status)) {
                        return false;
                    }
                }
                Out::Upstream(v) => {
                    if let Some(u) = &self.upstream {
                        u.send(UpMsg::Value(v));
                    }
                }
            }
        }
        true
    }

    fn host_sent(&mut self, msg: HostMsg) -> bool {
        let outs = match msg {
            HostMsg::Value(v) => self.router.from_host(v),
            HostMsg::Traced(v, span) => {
                let _in = span.enter();
                let outs = self.router.from_host(v);
                return self.deliver(outs);
            }
            HostMsg::Call(call) => {
                let raw = self.upstream.as_ref().filter(|u| u.takes_raw);
                match raw.and_then(|u| Some((u, self.router.fast_call(&call.id, &call.tool)?))) {
                    Some((u, uid)) => {
                        u.send(UpMsg::Raw(peek::with_id(
                            &call.bytes,
                            &call.id_span,
                            &Value::from(uid),
                        )));
                        return true;
                    }
                    // The peek read it as JSON, so the parser does too.
                    None => match crate::json::from_slice(&call.bytes) {
                        Ok(v) => self.router.from_host(v),
                        Err(_) => return true,
                    },
                }
            }
        };
        self.deliver(outs)
    }

    fn upstream_sent(&mut self, item: Option<Incoming>) -> bool {
        match item {
            Some(Incoming::Message(Value::Array(batch))) => {
                for m in batch {
                    let outs = self.router.from_upstream(m);
                    if !self.deliver(outs) {
                        return false;
                    }
                }
                true
            }
            Some(Incoming::Message(m)) => {
                let outs = self.router.from_upstream(m);
                self.deliver(outs)
            }
            Some(Incoming::Response(r)) => {
                if self.raw_host
                    && let Some(host_id) = self.router.fast_response(r.id)
                {
                    return self
                        .to_host
                        .put(HostOut::Raw(peek::with_id(&r.bytes, &r.id_span, &host_id)));
                }
                let outs = match crate::json::from_slice(&r.bytes) {
                    Ok(m) => self.router.from_upstream(m),
                    Err(_) => Vec::new(),
                };
                self.deliver(outs)
            }
            Some(Incoming::Invalid(bad)) => {
                tracing::warn!(target: "serve", upstream = %self.shared.router.upstream, id = ?bad.probe().id, "upstream sent {bad}; skipped");
                let outs = self
                    .router
                    .upstream_unusable(bad.probe(), &unusable_reason(&bad));
                self.deliver(outs)
            }
            Some(Incoming::Closed(reason)) => {
                // A stdio upstream that names a variable we withheld from it: say which and
                // how to pass it (book: reference/security.md), in the log and in the error the host gets.
                let hint = match &self.shared.spec {
                    UpstreamSpec::Stdio(s) => {
                        crate::secrets::withheld_hint(s.child_env(), &reason.stderr_tail, false)
                    }
                    UpstreamSpec::Http(_) => String::new(),
                };
                let reason = format!("{reason}{hint}");
                self.retire();
                self.lost(Some(&format!("upstream {reason}")), |r| {
                    r.upstream_lost(&reason)
                })
            }
            None => {
                // Receiver finished without a Closed (cannot happen); treat as closed.
                self.upstream = None;
                self.lost(None, |r| r.upstream_lost("closed the connection"))
            }
        }
    }

    async fn send_failed(&mut self, f: SendFailure) -> bool {
        // Lost sessions and refused connections mean the upstream is gone: restart it.
        let fatal = matches!(
            f.error,
            SendError::Closed | SendError::Io(_) | SendError::Request(_)
        ) || (!f.stateless && matches!(f.error, SendError::Http { status: 404, .. }));
        // A stdio child whose pipe broke is exiting: its own `Closed` (how it ended, its stderr,
        // where a withheld variable is named) tells the host more than the write error, and it
        // follows at once.
        if fatal
            && matches!(f.error, SendError::Closed | SendError::Io(_))
            && matches!(self.shared.spec, UpstreamSpec::Stdio(_))
            && let Some(go_on) = self.until_closed().instrument(f.span.clone()).await
        {
            return go_on;
        }
        let span = f.span.clone();
        let _in = span.enter();
        let desc = f.error.to_string();
        if fatal && self.upstream.is_some() {
            if let Some(mut u) = self.retire() {
                tokio::spawn(async move { u.closer.shutdown().await });
            }
            let what = format!("sending to the upstream failed: {desc}");
            self.lost(Some(&what), |r| {
                r.upstream_lost(&format!("could not be reached ({desc})"))
            })
        } else if f.is_request
            && let Some(id) = f.msg_id
        {
            tracing::warn!(target: "serve", upstream = %self.shared.router.upstream, "the upstream refused a request: {desc}");
            let (status, rpc) = match &f.error {
                SendError::Http { status, rpc, .. } => (Some(*status), rpc.as_deref()),
                _ => (None, None),
            };
            let outs = self.router.send_failed(&id, &desc, status, rpc);
            self.deliver(outs)
        } else {
            true
        }
    }

    async fn deadline_passed(
        &mut self,
        init_deadline: Option<tokio::time::Instant>,
        queue_deadline: Option<tokio::time::Instant>,
    ) -> bool {
        let now = tokio::time::Instant::now();
        if init_deadline.is_some_and(|t| t <= now) {
            // What the upstream said on stderr is often why it hangs (a host it cannot reach).
            let said = self
                .upstream
                .as_ref()
                .map(|u| stderr_note(&u.closer.stderr_tail()))
                .unwrap_or_default();
            let outs = self
                .router
                .overdue_initialize(self.shared.init_timeout, &said);
            if !self.deliver(outs) {
                return false;
            }
        }
        if queue_deadline.is_some_and(|t| t <= now) {
            let outs = self.router.overdue_queue();
            if !self.deliver(outs) {
                return false;
            }
        }
        if self.restart_at.is_some_and(|t| t <= now) {
            self.restart_at = None;
            return self.restart().await;
        }
        true
    }

    /// Handles what an upstream whose pipe broke still sends, up to its `Closed`: `None` when
    /// that does not come within [`PIPE_GRACE`] (then the write error is what the host hears).
    async fn until_closed(&mut self) -> Option<bool> {
        let deadline = tokio::time::Instant::now() + PIPE_GRACE;
        loop {
            let u = self.upstream.as_mut()?;
            let item = tokio::time::timeout_at(deadline, u.receiver.recv())
                .await
                .ok()?;
            let closed = matches!(item, Some(Incoming::Closed(_)) | None);
            let go_on = self.upstream_sent(item);
            if closed || !go_on {
                return Some(go_on);
            }
        }
    }

    /// Starts the upstream again (its restart delay passed).
    async fn restart(&mut self) -> bool {
        match self.shared.connect().await {
            Ok(conn) => {
                tracing::info!(target: "serve", upstream = %self.shared.router.upstream, "upstream restarted");
                self.upstream = Some(Upstream::start(conn, self.fail_tx.clone()));
                let outs = self.router.upstream_ready();
                self.deliver(outs)
            }
            Err(e) => self.lost(Some(&format!("restarting the upstream failed: {e}")), |r| {
                r.restart_failed(&format!("could not be restarted ({e})"))
            }),
        }
    }

    /// Takes the upstream out of service; one that stayed up a while (or answered the host)
    /// earns a fresh backoff.
    fn retire(&mut self) -> Option<Upstream> {
        let u = self.upstream.take()?;
        if u.since.elapsed() > STABLE_AFTER || self.router.healthy() {
            self.backoff = MIN_BACKOFF;
            self.crashes = 0;
        }
        Some(u)
    }

    /// The upstream is gone or did not start: counts the failure, logs `what` (when given),
    /// tells the host what `answer` says, and schedules the restart.
    fn lost(&mut self, what: Option<&str>, answer: impl FnOnce(&mut Router) -> Vec<Out>) -> bool {
        self.crashes += 1;
        self.shared.upstream_failed.notify_one();
        let delay = next_delay(&mut self.backoff);
        if let Some(what) = what {
            log_restart(&self.shared, what, self.crashes, delay);
        }
        let outs = answer(&mut self.router);
        if !self.deliver(outs) {
            return false;
        }
        self.router.set_restart_delay(self.crashes, delay);
        self.restart_at = Some(tokio::time::Instant::now() + delay);
        true
    }
}

/// What woke the session.
enum Event {
    /// A message from the host; `None` once it has gone.
    Host(Option<HostMsg>),
    /// An item from the upstream; `None` if its receiver ended without `Closed`.
    Upstream(Option<Incoming>),
    Failure(SendFailure),
    /// The UI files changed (`--watch`).
    Catalog(Arc<Catalog>),
    /// The earliest deadline passed (a restart, an overdue `initialize`, the end of the drain).
    Deadline,
}

/// The session's sources of work, polled by hand. A `select!` over them would build (and
/// drop) a future for each source on every message, registering and unregistering the timer
/// and the catalog watch each time; this keeps one of each and polls what is already there.
struct Events<H> {
    host: H,
    failures: mpsc::UnboundedReceiver<SendFailure>,
    /// Waits for the next catalog change, owning the receiver while it waits (`--watch` only).
    catalog: Option<Pin<Box<CatalogChange>>>,
    sleep: Pin<Box<tokio::time::Sleep>>,
    /// The deadline `sleep` is set to, if any.
    armed: Option<tokio::time::Instant>,
    /// Whose turn it is to be looked at first, so a busy side cannot starve the other.
    host_first: bool,
}

type CatalogChange =
    dyn Future<Output = Option<(watch::Receiver<Arc<Catalog>>, Arc<Catalog>)>> + Send;

fn catalog_change(mut rx: watch::Receiver<Arc<Catalog>>) -> Pin<Box<CatalogChange>> {
    Box::pin(async move {
        rx.changed().await.ok()?;
        let newer = rx.borrow_and_update().clone();
        Some((rx, newer))
    })
}

impl<H: HostSource> Events<H> {
    fn new(
        host: H,
        failures: mpsc::UnboundedReceiver<SendFailure>,
        catalog: watch::Receiver<Arc<Catalog>>,
        watching: bool,
    ) -> Self {
        Events {
            host,
            failures,
            catalog: watching.then(|| catalog_change(catalog)),
            sleep: Box::pin(tokio::time::sleep_until(tokio::time::Instant::now())),
            armed: None,
            host_first: true,
        }
    }

    /// The next thing to do. `read_host`: whether the host is still read from; `deadline`: when
    /// to return [`Event::Deadline`] if nothing else happened first.
    async fn next(
        &mut self,
        upstream: &mut Option<Upstream>,
        read_host: bool,
        deadline: Option<tokio::time::Instant>,
    ) -> Event {
        if deadline != self.armed {
            match deadline {
                Some(at) => self.sleep.as_mut().reset(at),
                // A timer left in the runtime's wheel would still be looked at each time the
                // session waits: a fresh one is not registered until it is polled.
                None => {
                    self.sleep = Box::pin(tokio::time::sleep_until(tokio::time::Instant::now()))
                }
            }
            self.armed = deadline;
        }
        std::future::poll_fn(|cx| self.poll(cx, upstream, read_host)).await
    }

    fn poll(
        &mut self,
        cx: &mut Context<'_>,
        upstream: &mut Option<Upstream>,
        read_host: bool,
    ) -> Poll<Event> {
        self.host_first = !self.host_first;
        for host_turn in [self.host_first, !self.host_first] {
            if host_turn {
                if read_host && let Poll::Ready(m) = self.host.poll_next(cx) {
                    return Poll::Ready(Event::Host(m));
                }
            } else if let Some(u) = upstream
                && let Poll::Ready(item) = u.receiver.poll_recv(cx)
            {
                return Poll::Ready(Event::Upstream(item));
            }
        }
        if let Poll::Ready(Some(f)) = self.failures.poll_recv(cx) {
            return Poll::Ready(Event::Failure(f));
        }
        if let Some(change) = &mut self.catalog
            && let Poll::Ready(got) = change.as_mut().poll(cx)
        {
            // A closed watch never changes again: stop looking.
            self.catalog = None;
            if let Some((rx, newer)) = got {
                self.catalog = Some(catalog_change(rx));
                return Poll::Ready(Event::Catalog(newer));
            }
        }
        if self.armed.is_some() && self.sleep.as_mut().poll(cx).is_ready() {
            self.armed = None;
            return Poll::Ready(Event::Deadline);
        }
        Poll::Pending
    }
}

/// The last stderr lines of an upstream that did not answer in time, for its error and the log:
/// bounded and redacted (`secrets::stderr_excerpt`); empty when it said nothing.
fn stderr_note(lines: &[String]) -> String {
    let lines = crate::secrets::stderr_excerpt(lines);
    if lines.is_empty() {
        String::new()
    } else {
        format!("; last stderr lines: {}", lines.join(" | "))
    }
}

/// The delay before the next restart; doubles the one after it (up to `MAX_BACKOFF`).
fn next_delay(backoff: &mut Duration) -> Duration {
    let delay = *backoff;
    *backoff = (*backoff * 2).min(MAX_BACKOFF);
    delay
}

/// Says on stderr (the log) that the upstream will be restarted, and when.
fn log_restart(shared: &Shared, what: &str, crashes: u32, delay: Duration) {
    let ms = delay.as_millis();
    if crashes > 1 {
        tracing::error!(target: "serve", upstream = %shared.router.upstream,
            "{what}; it failed {crashes} times in a row: restarting it in {ms} ms (backing off; requests wait for the restart within [upstream] timeout_ms)");
    } else {
        tracing::error!(target: "serve", upstream = %shared.router.upstream, "{what}; restarting it in {ms} ms");
    }
}

/// Why a message from the upstream was skipped, for the error its request gets.
fn unusable_reason(bad: &InvalidMessage) -> String {
    match bad {
        InvalidMessage::TooLarge { limit, .. } => {
            format!("larger than the {limit}-byte message limit of mcp-gen-ui serve")
        }
        InvalidMessage::NotJson { error, .. } => format!("not usable JSON ({error})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{StdioSpec, UpstreamSpec};

    /// A raw line the session could write at once still goes behind a message that waits in
    /// the writer task.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_raw_line_never_overtakes_a_queued_message() {
        let dir = tempfile::tempdir().unwrap();
        let got = dir.path().join("got");
        let spec = UpstreamSpec::Stdio(StdioSpec {
            command: "sh".into(),
            args: vec!["-c".into(), format!("cat > '{}'", got.display())],
            ..Default::default()
        });
        let conn = Connection::open(&spec, &ConnectOptions::default())
            .await
            .unwrap();
        let (fail_tx, _fail_rx) = mpsc::unbounded_channel();
        let mut up = Upstream::start(conn, fail_tx);
        let settle = async |up: &Upstream| {
            while up.queued.load(Ordering::Acquire) > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        // The first write goes through the writer task (the pipe's room is not known yet).
        up.send(UpMsg::Raw(b"{\"method\":\"zeroth\"}\n".to_vec()));
        settle(&up).await;
        up.send(UpMsg::Value(serde_json::json!({"method": "first"})));
        up.send(UpMsg::Raw(b"{\"method\":\"second\"}\n".to_vec()));
        assert_eq!(up.queued.load(Ordering::Acquire), 2);
        settle(&up).await;
        // Nothing waits: written at once.
        up.send(UpMsg::Raw(b"{\"method\":\"third\"}\n".to_vec()));
        assert_eq!(up.queued.load(Ordering::Acquire), 0);
        drop(up.writer);
        up.closer.shutdown().await;
        assert_eq!(
            std::fs::read_to_string(&got).unwrap(),
            "{\"method\":\"zeroth\"}\n{\"method\":\"first\"}\n{\"method\":\"second\"}\n{\"method\":\"third\"}\n"
        );
    }
}
