//! One host session bound to one upstream connection: carries messages through the router, and
//! restarts the upstream with backoff when it dies while the host stays connected.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::router::{Out, Router, RouterOptions};
use super::ui_resources::Catalog;
use crate::mcp::{
    Closer, ConnectOptions, Connection, Incoming, InvalidMessage, MessageReceiver, MessageSender,
    SendError, UpstreamSpec, peek,
};

/// First restart delay; doubled after each failure up to `MAX_BACKOFF`.
const MIN_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// An upstream that stayed up this long earns a fresh backoff.
const STABLE_AFTER: Duration = Duration::from_secs(10);

/// How long answers still in flight are awaited after the host closed its side.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// What every session of one `serve` process shares.
pub struct Shared {
    pub spec: UpstreamSpec,
    pub connect: ConnectOptions,
    pub router: RouterOptions,
    pub catalog: watch::Receiver<Arc<Catalog>>,
    /// How long the upstream may take to answer `initialize`.
    pub init_timeout: Duration,
}

impl Shared {
    /// Opens a new upstream connection (one per host session).
    pub async fn connect(&self) -> Result<Connection, crate::mcp::ConnectError> {
        Connection::open(&self.spec, &self.connect).await
    }
}

/// A message from the host.
pub enum HostMsg {
    Value(Value),
    /// A plain `tools/call`, unparsed: forwarded as its bytes when the router agrees.
    Call(peek::Call),
}

/// A message for the host.
pub enum HostOut {
    Value(Value),
    /// A line of JSON text ending in a newline, to write as it is.
    Raw(Vec<u8>),
}

impl HostOut {
    /// The message as a value (a raw line is parsed back).
    pub fn into_value(self) -> Option<Value> {
        match self {
            HostOut::Value(v) => Some(v),
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
}

struct Upstream {
    writer: mpsc::UnboundedSender<UpMsg>,
    /// A stdio upstream: raw lines can be written to it.
    takes_raw: bool,
    receiver: MessageReceiver,
    closer: Closer,
    since: Instant,
}

impl Upstream {
    fn start(conn: Connection, failures: mpsc::UnboundedSender<SendFailure>) -> Upstream {
        let (sender, receiver, closer) = conn.into_parts();
        Upstream {
            takes_raw: sender.takes_raw(),
            writer: spawn_writer(sender, failures),
            receiver,
            closer,
            since: Instant::now(),
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
) -> mpsc::UnboundedSender<UpMsg> {
    let (tx, mut rx) = mpsc::unbounded_channel::<UpMsg>();
    let concurrent = sender.waits_for_answer();
    tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            let msg = match msg {
                UpMsg::Value(v) => v,
                UpMsg::Raw(line) => match sender.send_raw(&line).await {
                    Some(Ok(())) => continue,
                    Some(Err(error)) => {
                        // Only requests take the raw path; its id is in the bytes.
                        let _ = failures.send(SendFailure {
                            msg_id: crate::json::IdScanner::scan(&line).id,
                            is_request: true,
                            stateless: false,
                            error,
                        });
                        continue;
                    }
                    // Not a stdio upstream (cannot happen: the session checks): parse and send.
                    None => match crate::json::from_slice(&line) {
                        Ok(v) => v,
                        Err(_) => continue,
                    },
                },
            };
            let is_request = msg.get("method").is_some() && msg.get("id").is_some();
            if concurrent
                && is_request
                && !matches!(
                    msg.get("method").and_then(Value::as_str),
                    Some("initialize")
                )
            {
                let sender = sender.clone();
                let failures = failures.clone();
                tokio::spawn(async move {
                    if let Err(error) = sender.send(&msg).await {
                        let _ = failures.send(SendFailure {
                            msg_id: msg.get("id").cloned(),
                            is_request,
                            stateless: crate::mcp::era::is_modern_message(&msg),
                            error,
                        });
                    }
                });
            } else if let Err(error) = sender.send(&msg).await {
                let _ = failures.send(SendFailure {
                    msg_id: msg.get("id").cloned(),
                    is_request,
                    stateless: crate::mcp::era::is_modern_message(&msg),
                    error,
                });
            }
        }
    });
    tx
}

/// Runs one session until the host goes away (`from_host` closes or `to_host` is dropped).
/// `first` is the already-open upstream connection.
///
/// `raw_host`: the host takes raw lines (stdio): plain `tools/call` responses are forwarded as
/// their bytes with the id rewritten, and plain calls from the host likewise (`mcp::peek`).
pub async fn run(
    shared: Arc<Shared>,
    first: Connection,
    mut from_host: mpsc::Receiver<HostMsg>,
    to_host: mpsc::UnboundedSender<HostOut>,
    raw_host: bool,
) {
    let mut catalog_rx = shared.catalog.clone();
    let catalog = catalog_rx.borrow_and_update().clone();
    let mut router = Router::new(shared.router.clone(), catalog);
    let (fail_tx, mut fail_rx) = mpsc::unbounded_channel::<SendFailure>();
    let mut upstream = Some(Upstream::start(first, fail_tx.clone()));
    let mut backoff = MIN_BACKOFF;
    // Failures in a row (deaths, failed starts) since the upstream last stayed up a while.
    let mut crashes: u32 = 0;
    let mut restart_at: Option<tokio::time::Instant> = None;
    let mut watching = true;

    let deliver = |outs: Vec<Out>, up: &Option<Upstream>| -> bool {
        for o in outs {
            match o {
                Out::Host(v) => {
                    if to_host.send(HostOut::Value(v)).is_err() {
                        return false;
                    }
                }
                Out::Upstream(v) => {
                    if let Some(u) = up {
                        let _ = u.writer.send(UpMsg::Value(v));
                    }
                }
            }
        }
        true
    };
    if !deliver(router.upstream_ready(), &upstream) {
        return;
    }

    // Once the host has closed its side, answers already on their way are still delivered, for
    // a short while: a host that writes requests and closes stdin still gets its responses.
    let mut host_closed_at: Option<tokio::time::Instant> = None;
    'session: loop {
        if let Some(t) = host_closed_at
            && (router.in_flight() == 0 || upstream.is_none() || t.elapsed() > DRAIN_GRACE)
        {
            break 'session;
        }
        let sleep_until = restart_at;
        tokio::select! {
            msg = from_host.recv(), if host_closed_at.is_none() => {
                let Some(msg) = msg else {
                    host_closed_at = Some(tokio::time::Instant::now());
                    continue 'session;
                };
                let outs = match msg {
                    HostMsg::Value(v) => router.from_host(v),
                    HostMsg::Call(call) => {
                        let raw = upstream.as_ref().filter(|u| u.takes_raw);
                        match raw.and_then(|u| Some((u, router.fast_call(&call.id, &call.tool)?))) {
                            Some((u, uid)) => {
                                let _ = u.writer.send(UpMsg::Raw(peek::with_id(&call.bytes, &call.id_span, &Value::from(uid))));
                                continue 'session;
                            }
                            // The peek read it as JSON, so the parser does too.
                            None => match crate::json::from_slice(&call.bytes) {
                                Ok(v) => router.from_host(v),
                                Err(_) => continue 'session,
                            },
                        }
                    }
                };
                if !deliver(outs, &upstream) { break 'session; }
            }
            item = recv_upstream(&mut upstream) => {
                match item {
                    Some(Incoming::Message(Value::Array(batch))) => {
                        for m in batch {
                            if !deliver(router.from_upstream(m), &upstream) { break 'session; }
                        }
                    }
                    Some(Incoming::Message(m)) => {
                        if !deliver(router.from_upstream(m), &upstream) { break 'session; }
                    }
                    Some(Incoming::Response(r)) => {
                        if raw_host && let Some(host_id) = router.fast_response(r.id) {
                            if to_host.send(HostOut::Raw(peek::with_id(&r.bytes, &r.id_span, &host_id))).is_err() { break 'session; }
                            continue 'session;
                        }
                        let outs = match crate::json::from_slice(&r.bytes) {
                            Ok(m) => router.from_upstream(m),
                            Err(_) => Vec::new(),
                        };
                        if !deliver(outs, &upstream) { break 'session; }
                    }
                    Some(Incoming::Invalid(bad)) => {
                        tracing::warn!(target: "serve", upstream = %shared.router.upstream, id = ?bad.probe().id, "upstream sent {bad}; skipped");
                        if !deliver(router.upstream_unusable(bad.probe(), &unusable_reason(&bad)), &upstream) { break 'session; }
                    }
                    Some(Incoming::Closed(reason)) => {
                        let reason = reason.to_string();
                        if let Some(u) = upstream.take() && u.since.elapsed() > STABLE_AFTER {
                            backoff = MIN_BACKOFF;
                            crashes = 0;
                        }
                        crashes += 1;
                        let delay = next_delay(&mut backoff);
                        log_restart(&shared, &format!("upstream {reason}"), crashes, delay);
                        let outs = router.upstream_lost(&reason);
                        if !deliver(outs, &upstream) { break 'session; }
                        router.set_restart_delay(crashes, delay);
                        restart_at = Some(tokio::time::Instant::now() + delay);
                    }
                    None => {
                        // Receiver finished without a Closed (cannot happen); treat as closed.
                        upstream = None;
                        crashes += 1;
                        let delay = next_delay(&mut backoff);
                        let outs = router.upstream_lost("closed the connection");
                        if !deliver(outs, &upstream) { break 'session; }
                        router.set_restart_delay(crashes, delay);
                        restart_at = Some(tokio::time::Instant::now() + delay);
                    }
                }
            }
            () = sleep_opt(host_closed_at.map(|t| t + DRAIN_GRACE)) => {}
            () = sleep_opt(router.initialize_deadline(shared.init_timeout).map(tokio::time::Instant::from_std)) => {
                let outs = router.overdue_initialize(shared.init_timeout);
                if !deliver(outs, &upstream) { break 'session; }
            }
            Some(f) = fail_rx.recv() => {
                let desc = f.error.to_string();
                // Lost sessions and refused connections mean the upstream is gone: restart it.
                let fatal = matches!(f.error, SendError::Closed | SendError::Io(_) | SendError::Request(_))
                    || (!f.stateless && matches!(f.error, SendError::Http { status: 404, .. }));
                if fatal && upstream.is_some() {
                    if let Some(mut u) = upstream.take() {
                        if u.since.elapsed() > STABLE_AFTER {
                            backoff = MIN_BACKOFF;
                            crashes = 0;
                        }
                        tokio::spawn(async move { u.closer.shutdown().await });
                    }
                    crashes += 1;
                    let delay = next_delay(&mut backoff);
                    log_restart(&shared, &format!("sending to the upstream failed: {desc}"), crashes, delay);
                    let outs = router.upstream_lost(&format!("could not be reached ({desc})"));
                    if !deliver(outs, &upstream) { break 'session; }
                    router.set_restart_delay(crashes, delay);
                    restart_at = Some(tokio::time::Instant::now() + delay);
                } else if f.is_request && let Some(id) = f.msg_id {
                    tracing::warn!(target: "serve", upstream = %shared.router.upstream, "the upstream refused a request: {desc}");
                    let (status, rpc) = match &f.error {
                        SendError::Http { status, rpc, .. } => (Some(*status), rpc.as_deref()),
                        _ => (None, None),
                    };
                    if !deliver(router.send_failed(&id, &desc, status, rpc), &upstream) { break 'session; }
                }
            }
            () = sleep_opt(sleep_until) => {
                restart_at = None;
                match shared.connect().await {
                    Ok(conn) => {
                        tracing::info!(target: "serve", upstream = %shared.router.upstream, "upstream restarted");
                        upstream = Some(Upstream::start(conn, fail_tx.clone()));
                        if !deliver(router.upstream_ready(), &upstream) { break 'session; }
                    }
                    Err(e) => {
                        crashes += 1;
                        let delay = next_delay(&mut backoff);
                        log_restart(&shared, &format!("restarting the upstream failed: {e}"), crashes, delay);
                        let outs = router.restart_failed(&format!("could not be restarted ({e})"));
                        if !deliver(outs, &upstream) { break 'session; }
                        router.set_restart_delay(crashes, delay);
                        restart_at = Some(tokio::time::Instant::now() + delay);
                    }
                }
            }
            changed = catalog_rx.changed(), if watching => {
                if changed.is_err() {
                    watching = false;
                    continue;
                }
                let newer = catalog_rx.borrow_and_update().clone();
                if !deliver(router.catalog_changed(newer), &upstream) { break 'session; }
            }
        }
    }
    if let Some(mut u) = upstream.take() {
        drop(u.writer);
        u.closer.shutdown().await;
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
            "{what}; it failed {crashes} times in a row: restarting it in {ms} ms (backing off; requests are answered with an error meanwhile)");
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

async fn recv_upstream(up: &mut Option<Upstream>) -> Option<Incoming> {
    match up {
        Some(u) => u.receiver.recv().await,
        None => std::future::pending().await,
    }
}

async fn sleep_opt(at: Option<tokio::time::Instant>) {
    match at {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}
