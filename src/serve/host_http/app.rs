//! What every part of the HTTP host side shares: the server's state (`App`), a session's
//! routes and stop signal, and the JSON-RPC error answers with their HTTP status.

use super::options::*;
use super::prelude::*;

pub(super) struct App {
    pub(super) shared: Arc<Shared>,
    pub(super) opts: HttpOptions,
    pub(super) sessions: Mutex<HashMap<String, Arc<HostSession>>>,
    /// One permit per 2025-era session, taken before its upstream starts and given back once
    /// that upstream is gone: sessions and their upstreams never outnumber the cap.
    pub(super) slots: Arc<tokio::sync::Semaphore>,
    /// The session every stateless (2026-07-28) request goes through, started on first use.
    pub(super) stateless: tokio::sync::Mutex<Option<Arc<HostSession>>>,
    /// Fresh request ids and progress tokens for stateless requests.
    pub(super) next_stateless: std::sync::atomic::AtomicU64,
    /// The last probe started and initialized the upstream (`/readyz`).
    pub(super) ready: std::sync::atomic::AtomicBool,
    /// A signal came: finishing what is in flight, then exiting.
    pub(super) draining: std::sync::atomic::AtomicBool,
}

impl App {
    pub(super) fn sessions(&self) -> MutexGuard<'_, HashMap<String, Arc<HostSession>>> {
        match self.sessions.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

pub(super) fn rpc_error(status: StatusCode, id: Value, code: i64, message: String) -> Response {
    json_response(status, &error_response(id, code, message, None))
}

/// An error that answers no request (the id is `null`): the guard's, the headers', the session's.
pub(super) fn refuse(status: StatusCode, code: i64, message: String) -> Response {
    rpc_error(status, Value::Null, code, message)
}

pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut resp = (status, crate::json::to_string(body)).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

impl Routed {
    pub(super) fn plain(msg: Value) -> Routed {
        Routed { msg, status: None }
    }
}

impl HostSink for RouteSink {
    fn put(&self, msg: HostOut) -> bool {
        let routed = match msg {
            HostOut::Refused(msg, status) => Routed {
                msg,
                status: StatusCode::from_u16(status).ok(),
            },
            other => match other.into_value() {
                Some(msg) => Routed::plain(msg),
                None => return true,
            },
        };
        lock_routes(&self.0).dispatch(routed);
        true
    }
}

impl HostSession {
    /// Closes the session (evicted, expired, deleted): its task shuts the upstream down and
    /// then gives its slot back.
    pub(super) fn close(&self) {
        self.stop.fire();
    }

    pub(super) fn touch(&self) {
        match self.last_seen.lock() {
            Ok(mut g) => *g = Instant::now(),
            Err(p) => *p.into_inner() = Instant::now(),
        }
    }

    pub(super) fn idle_for(&self) -> Duration {
        match self.last_seen.lock() {
            Ok(g) => g.elapsed(),
            Err(p) => p.into_inner().elapsed(),
        }
    }

    /// Nobody is listening and nothing was asked for `idle`.
    pub(super) fn abandoned(&self, idle: Duration) -> bool {
        self.evictable_idle().is_some_and(|d| d > idle)
    }

    /// How long the session has been idle, when nobody is listening on it (no open stream, no
    /// request waiting for its answer); `None` while someone is.
    pub(super) fn evictable_idle(&self) -> Option<Duration> {
        let r = self.routes();
        let listening = r.get_stream.as_ref().is_some_and(|s| !s.is_closed())
            || r.by_request.values().any(|s| !s.is_closed());
        drop(r);
        (!listening).then(|| self.idle_for())
    }

    pub(super) fn routes(&self) -> MutexGuard<'_, Routes> {
        lock_routes(&self.routes)
    }
}

impl Routes {
    /// Sends one message from the router to the right stream.
    pub(super) fn dispatch(&mut self, routed: Routed) {
        let msg = &routed.msg;
        let r = self;
        let is_response = msg.get("method").is_none();
        if is_response && let Some(id) = msg.get("id") {
            let key = id.to_string();
            if let Some(sink) = r.by_request.remove(&key) {
                r.by_progress.retain(|_, req| *req != key);
                if sink.send(routed).is_err() {
                    tracing::warn!(target: "serve", id = %key, "the host closed the stream before its response arrived; dropped");
                }
                return;
            }
        }
        if msg.get("method").and_then(Value::as_str) == Some("notifications/progress")
            && let Some(token) = msg.pointer("/params/progressToken")
            && let Some(req) = r.by_progress.get(&token.to_string())
            && let Some(sink) = r.by_request.get(req)
            && sink.send(routed.clone()).is_ok()
        {
            return;
        }
        if let Some(get) = &r.get_stream {
            if get.send(routed.clone()).is_ok() {
                return;
            }
            r.get_stream = None;
        }
        if let Some(sink) = r.by_request.values().find(|s| !s.is_closed())
            && sink.send(routed.clone()).is_ok()
        {
            return;
        }
        if r.backlog.len() >= MAX_BACKLOG {
            r.backlog.pop_front();
        }
        r.backlog.push_back(routed);
    }
}

impl StopSignal {
    pub(super) fn fire(&self) {
        self.fired.store(true, std::sync::atomic::Ordering::SeqCst);
        self.waker.wake();
    }
}

impl session::HostSource for Stoppable {
    fn poll_next(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<HostMsg>> {
        self.stop.waker.register(cx.waker());
        if self.stop.fired.load(std::sync::atomic::Ordering::SeqCst) {
            return std::task::Poll::Ready(None);
        }
        self.rx.poll_recv(cx)
    }
}

pub(super) fn accepts_sse(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"))
}

/// The host takes a JSON body too (every client of the 2025 revisions must list both types; a
/// client that lists only `text/event-stream` keeps getting streams).
pub(super) fn accepts_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|a| {
            a.split(',').any(|t| {
                let t = t.split(';').next().unwrap_or("").trim();
                t.eq_ignore_ascii_case("application/json")
                    || t == "*/*"
                    || t.eq_ignore_ascii_case("application/*")
            })
        })
}

pub(super) fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A message for the host, with the HTTP status the upstream refused its request with, if it
/// did (beside the message, never in it).
#[derive(Clone)]
pub(super) struct Routed {
    pub(super) msg: Value,
    pub(super) status: Option<StatusCode>,
}

pub(super) type Sink = mpsc::UnboundedSender<Routed>;

#[derive(Default)]
pub(super) struct Routes {
    /// Host request id (JSON text) → the POST stream waiting for its response.
    pub(super) by_request: HashMap<String, Sink>,
    /// Progress token (JSON text) → host request id (JSON text).
    pub(super) by_progress: HashMap<String, String>,
    pub(super) get_stream: Option<Sink>,
    pub(super) backlog: VecDeque<Routed>,
}

/// Where the session task puts its messages for the host: straight onto the right stream, in
/// the session's own task (no channel and no second task between the router and the streams).
pub(super) struct RouteSink(pub(super) Arc<Mutex<Routes>>);

pub(super) struct HostSession {
    pub(super) to_router: mpsc::Sender<HostMsg>,
    pub(super) routes: Arc<Mutex<Routes>>,
    pub(super) task: tokio::task::AbortHandle,
    /// Ends the session as if its host had gone: the upstream is shut down (and its slot given
    /// back) once answers in flight are in, for a short while at most.
    pub(super) stop: Arc<StopSignal>,
    /// Last request seen, for reaping sessions whose host vanished without a DELETE.
    pub(super) last_seen: Mutex<Instant>,
}

/// Set once to close a session; wakes its task.
#[derive(Default)]
pub(super) struct StopSignal {
    pub(super) fired: std::sync::atomic::AtomicBool,
    pub(super) waker: futures_util::task::AtomicWaker,
}

/// A session's messages from its host, ending early when the session is closed: the session
/// then winds down as when a host goes (answers in flight, briefly; the upstream shut down).
pub(super) struct Stoppable {
    pub(super) rx: mpsc::Receiver<HostMsg>,
    pub(super) stop: Arc<StopSignal>,
}

pub(super) fn lock_routes(routes: &Mutex<Routes>) -> MutexGuard<'_, Routes> {
    match routes.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}
