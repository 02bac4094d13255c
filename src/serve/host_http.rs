//! The streamable HTTP host side (`serve --http ADDR`, endpoint `/mcp`): sessions, Host/Origin
//! checks against DNS rebinding, a body size limit, and a bearer token for non-loopback binds.
//!
//! Each 2025-era host session (opened by `initialize`) gets its own upstream connection and
//! router (`session`). Stateless (2026-07-28) requests need no session: they all share one
//! upstream connection and router, and each POST gets its own request id and progress token
//! there, so requests of different hosts never clash. What the router sends back is routed
//! here: a response to the POST stream that carried its request, a progress notification to the
//! stream of the request that asked for it, everything else to the session's GET stream (or,
//! while none is open, to an open POST stream, or a bounded backlog).
//!
//! The revision's HTTP rules are checked before anything is forwarded, as the SDK servers do:
//! an `MCP-Protocol-Version` header naming no version we know is refused with 400; for a
//! stateless request the header must be there and agree with the body's `_meta`, as must
//! `Mcp-Method` and `Mcp-Name` (400, `-32020`). A stateless request's error answer gets the
//! HTTP status the revision gives it (400 for `-32020`…`-32022`, 404 for an unknown method), or
//! the status an HTTP upstream answered with.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router as Axum;
use axum::extract::{ConnectInfo, DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::Stream;
use serde_json::Value;
use tokio::sync::mpsc;

use super::router::error_response;
use super::session::{self, HostMsg, HostOut, HostSink, Shared};
use crate::json::IdScanner;
use crate::mcp::era;

/// The environment variable holding the bearer token.
pub const TOKEN_ENV: &str = "MCP_GEN_UI_TOKEN";
/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// 2025-era host sessions open at once by default; more are refused with 503 rather than
/// exhausting the machine (`--max-sessions`, `[serve] max_sessions`).
pub const DEFAULT_MAX_SESSIONS: usize = 64;
/// Messages kept for a session that has no stream open to receive them.
const MAX_BACKLOG: usize = 1000;
const SESSION_HEADER: &str = "mcp-session-id";
const REQUEST_ID_HEADER: &str = "x-request-id";
/// A session with no open stream and no request for this long is closed by default
/// (`--session-idle-minutes`, `[serve] session_idle_minutes`).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// At the session cap, a session idle this long (nothing in flight, no open stream) may be
/// closed to make room for a new host by default (`--session-evict-seconds`,
/// `[serve] session_evict_seconds`). One second still keeps a host that is between two quick
/// calls from being closed, and lets the cap absorb up to 64 abandoned sessions a second: the
/// official conformance CLI opens about 30 sessions per 2.5 s run and never DELETEs them, so
/// with 10 s its third run in a row met 503s (tests/node/conformance.test.mjs).
pub const DEFAULT_EVICT_AFTER: Duration = Duration::from_secs(1);

/// At the cap: how long a new host waits for the session closed for it to shut its upstream
/// down (a stdio upstream gets its stdin closed, then SIGTERM, then SIGKILL: about 3 s at most).
const EVICT_WAIT: Duration = Duration::from_secs(10);

/// How long a SIGTERM or Ctrl-C waits for requests in flight before `serve` exits anyway.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// `/readyz` probes: the first retry after a failed probe, doubled up to the longest.
const PROBE_RETRY_MIN: Duration = Duration::from_secs(1);
const PROBE_RETRY_MAX: Duration = Duration::from_secs(30);
/// Probes after a session's upstream failed are at least this far apart.
const PROBE_SPACING: Duration = Duration::from_secs(1);

/// How the HTTP host side is set up.
#[derive(Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required on every request when set (never logged).
    pub token: Option<String>,
    pub max_body: usize,
    /// 2025-era host sessions open at once.
    pub max_sessions: usize,
    /// Idle time after which a 2025-era host session is closed.
    pub idle_timeout: Duration,
    /// At the cap: idle time after which a session may be closed for a new one.
    pub evict_after: Duration,
    /// Prefix of every session id (`<replica>.<32 hex digits>`), for routing by a load
    /// balancer (`--replica-id`, `[serve] replica_id`).
    pub replica_id: Option<String>,
    /// Peers whose `X-Forwarded-Host` is believed (`--trusted-proxy`, `[serve]
    /// trusted_proxies`).
    pub trusted_proxies: Vec<IpAddr>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("max_body", &self.max_body)
            .field("max_sessions", &self.max_sessions)
            .field("idle_timeout", &self.idle_timeout)
            .field("evict_after", &self.evict_after)
            .field("replica_id", &self.replica_id)
            .field("trusted_proxies", &self.trusted_proxies)
            .finish()
    }
}

impl HttpOptions {
    /// Parses `--http ADDR` and reads the token; a non-loopback bind without a token is refused.
    pub fn from_args(addr: &str, token: Option<String>) -> anyhow::Result<HttpOptions> {
        let addr: SocketAddr = addr.parse().map_err(|e| {
            anyhow::anyhow!(
                "--http {addr}: not an IP address and port ({e}); use e.g. --http 127.0.0.1:3000"
            )
        })?;
        let token = token.filter(|t| !t.is_empty());
        if !addr.ip().is_loopback() && token.is_none() {
            anyhow::bail!(
                "--http {addr} binds a non-loopback address: set a bearer token in the environment \
                 variable {TOKEN_ENV} (clients then send `Authorization: Bearer <token>`), or bind \
                 127.0.0.1"
            );
        }
        Ok(HttpOptions {
            addr,
            token,
            max_body: MAX_BODY_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            evict_after: DEFAULT_EVICT_AFTER,
            replica_id: None,
            trusted_proxies: Vec::new(),
        })
    }

    /// Sets the reverse proxies whose `X-Forwarded-Host` is believed. Requests through them
    /// are checked like those to a non-loopback bind, so a token is required.
    pub fn set_trusted_proxies(&mut self, list: &[String]) -> anyhow::Result<()> {
        let mut ips = Vec::with_capacity(list.len());
        for p in list {
            let ip: IpAddr = p.trim().parse().map_err(|e| {
                anyhow::anyhow!(
                    "--trusted-proxy / [serve] trusted_proxies {p:?}: not an IP address ({e}); \
                     name the address the proxy connects from, e.g. 127.0.0.1"
                )
            })?;
            ips.push(ip);
        }
        if !ips.is_empty() && self.token.is_none() {
            anyhow::bail!(
                "--trusted-proxy / [serve] trusted_proxies: requests through a reverse proxy \
                 come from anywhere; set a bearer token in the environment variable {TOKEN_ENV} \
                 (the proxy passes clients' `Authorization` header on)"
            );
        }
        self.trusted_proxies = ips;
        Ok(())
    }

    /// Sets the replica tag of session ids: 1 to 32 ASCII letters, digits, `_` or `-`, so that
    /// a load balancer can match it in `Mcp-Session-Id` (`<replica>.<hex>`).
    pub fn set_replica_id(&mut self, id: &str) -> anyhow::Result<()> {
        let ok = (1..=32).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        anyhow::ensure!(
            ok,
            "--replica-id / [serve] replica_id {id:?}: use 1 to 32 ASCII letters, digits, `_` or \
             `-` (it starts every session id, e.g. `r1.` in `r1.4f…`)"
        );
        self.replica_id = Some(id.to_string());
        Ok(())
    }
}

/// A message for the host, with the HTTP status the upstream refused its request with, if it
/// did (beside the message, never in it).
#[derive(Clone)]
struct Routed {
    msg: Value,
    status: Option<StatusCode>,
}

impl Routed {
    fn plain(msg: Value) -> Routed {
        Routed { msg, status: None }
    }
}

type Sink = mpsc::UnboundedSender<Routed>;

#[derive(Default)]
struct Routes {
    /// Host request id (JSON text) → the POST stream waiting for its response.
    by_request: HashMap<String, Sink>,
    /// Progress token (JSON text) → host request id (JSON text).
    by_progress: HashMap<String, String>,
    get_stream: Option<Sink>,
    backlog: VecDeque<Routed>,
}

/// Where the session task puts its messages for the host: straight onto the right stream, in
/// the session's own task (no channel and no second task between the router and the streams).
struct RouteSink(Arc<Mutex<Routes>>);

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

fn lock_routes(routes: &Mutex<Routes>) -> MutexGuard<'_, Routes> {
    match routes.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

struct HostSession {
    to_router: mpsc::Sender<HostMsg>,
    routes: Arc<Mutex<Routes>>,
    task: tokio::task::AbortHandle,
    /// Ends the session as if its host had gone: the upstream is shut down (and its slot given
    /// back) once answers in flight are in, for a short while at most.
    stop: Arc<StopSignal>,
    /// Last request seen, for reaping sessions whose host vanished without a DELETE.
    last_seen: Mutex<Instant>,
}

impl HostSession {
    /// Closes the session (evicted, expired, deleted): its task shuts the upstream down and
    /// then gives its slot back.
    fn close(&self) {
        self.stop.fire();
    }

    fn touch(&self) {
        match self.last_seen.lock() {
            Ok(mut g) => *g = Instant::now(),
            Err(p) => *p.into_inner() = Instant::now(),
        }
    }

    fn idle_for(&self) -> Duration {
        match self.last_seen.lock() {
            Ok(g) => g.elapsed(),
            Err(p) => p.into_inner().elapsed(),
        }
    }

    /// Nobody is listening and nothing was asked for `idle`.
    fn abandoned(&self, idle: Duration) -> bool {
        self.evictable_idle().is_some_and(|d| d > idle)
    }

    /// How long the session has been idle, when nobody is listening on it (no open stream, no
    /// request waiting for its answer); `None` while someone is.
    fn evictable_idle(&self) -> Option<Duration> {
        let r = self.routes();
        let listening = r.get_stream.as_ref().is_some_and(|s| !s.is_closed())
            || r.by_request.values().any(|s| !s.is_closed());
        drop(r);
        (!listening).then(|| self.idle_for())
    }

    fn routes(&self) -> MutexGuard<'_, Routes> {
        lock_routes(&self.routes)
    }
}

impl Routes {
    /// Sends one message from the router to the right stream.
    fn dispatch(&mut self, routed: Routed) {
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

/// Set once to close a session; wakes its task.
#[derive(Default)]
struct StopSignal {
    fired: std::sync::atomic::AtomicBool,
    waker: futures_util::task::AtomicWaker,
}

impl StopSignal {
    fn fire(&self) {
        self.fired.store(true, std::sync::atomic::Ordering::SeqCst);
        self.waker.wake();
    }
}

/// A session's messages from its host, ending early when the session is closed: the session
/// then winds down as when a host goes (answers in flight, briefly; the upstream shut down).
struct Stoppable {
    rx: mpsc::Receiver<HostMsg>,
    stop: Arc<StopSignal>,
}

impl session::HostSource for Stoppable {
    fn poll_next(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<HostMsg>> {
        self.stop.waker.register(cx.waker());
        if self.stop.fired.load(std::sync::atomic::Ordering::SeqCst) {
            return std::task::Poll::Ready(None);
        }
        self.rx.poll_recv(cx)
    }
}

struct App {
    shared: Arc<Shared>,
    opts: HttpOptions,
    sessions: Mutex<HashMap<String, Arc<HostSession>>>,
    /// One permit per 2025-era session, taken before its upstream starts and given back once
    /// that upstream is gone: sessions and their upstreams never outnumber the cap.
    slots: Arc<tokio::sync::Semaphore>,
    /// The session every stateless (2026-07-28) request goes through, started on first use.
    stateless: tokio::sync::Mutex<Option<Arc<HostSession>>>,
    /// Fresh request ids and progress tokens for stateless requests.
    next_stateless: std::sync::atomic::AtomicU64,
    /// The last probe started and initialized the upstream (`/readyz`).
    ready: std::sync::atomic::AtomicBool,
    /// A signal came: finishing what is in flight, then exiting.
    draining: std::sync::atomic::AtomicBool,
}

impl App {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Arc<HostSession>>> {
        match self.sessions.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

/// Serves `/mcp` on `opts.addr` until Ctrl-C. Logs the bound address (port 0 picks one).
pub async fn run(shared: Arc<Shared>, opts: HttpOptions) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr()?;
    tracing::info!(target: "serve", "serving streamable HTTP at http://{local}/mcp");
    eprintln!("mcp-gen-ui serve: listening on http://{local}/mcp");
    let max_body = opts.max_body;
    let max_sessions = opts.max_sessions;
    let app = Arc::new(App {
        shared,
        opts,
        sessions: Mutex::new(HashMap::new()),
        slots: Arc::new(tokio::sync::Semaphore::new(max_sessions)),
        stateless: tokio::sync::Mutex::new(None),
        next_stateless: std::sync::atomic::AtomicU64::new(1),
        ready: std::sync::atomic::AtomicBool::new(false),
        draining: std::sync::atomic::AtomicBool::new(false),
    });
    let prober = tokio::spawn(probe_loop(Arc::clone(&app)));
    let reaper = {
        let app = Arc::clone(&app);
        let idle = app.opts.idle_timeout;
        let every = (idle / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let gone: Vec<(String, Arc<HostSession>)> = {
                    let mut map = app.sessions();
                    let ids: Vec<String> = map
                        .iter()
                        .filter(|(_, s)| s.abandoned(idle))
                        .map(|(id, _)| id.clone())
                        .collect();
                    ids.into_iter()
                        .filter_map(|id| map.remove(&id).map(|s| (id, s)))
                        .collect()
                };
                for (id, s) in gone {
                    tracing::info!(target: "serve", session = %id, idle_secs = idle.as_secs(), "closing an idle host session");
                    s.close();
                }
            }
        })
    };
    let router = Axum::new()
        .route(
            "/mcp",
            post(handle_post).get(handle_get).delete(handle_delete),
        )
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(with_request_id))
        .with_state(Arc::clone(&app));
    // TCP_NODELAY for the same reason as the upstream client: small responses must not wait for
    // the host's delayed ACK.
    use axum::serve::ListenerExt as _;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let (signalled_tx, signalled_rx) = tokio::sync::oneshot::channel::<()>();
    let drain_app = Arc::clone(&app);
    let service = router.into_make_service_with_connect_info::<SocketAddr>();
    let server = axum::serve(listener, service).with_graceful_shutdown(async move {
        super::shutdown::signal().await;
        start_drain(&drain_app);
        let _ = signalled_tx.send(());
    });
    let mut server = std::pin::pin!(server.into_future());
    tokio::select! {
        r = &mut server => r?,
        Ok(()) = signalled_rx => {
            // New connections are refused now; requests in flight get their answers, for a
            // while.
            match tokio::time::timeout(DRAIN_TIMEOUT, &mut server).await {
                Ok(r) => r?,
                Err(_) => tracing::warn!(target: "serve", secs = DRAIN_TIMEOUT.as_secs(),
                    "requests still in flight after the drain time: closing them"),
            }
        }
    }
    tracing::info!(target: "serve", "stopped");
    prober.abort();
    reaper.abort();
    let all: Vec<Arc<HostSession>> = app.sessions().drain().map(|(_, s)| s).collect();
    for s in all {
        s.task.abort();
    }
    if let Some(s) = app.stateless.lock().await.take() {
        s.task.abort();
    }
    Ok(())
}

/// Gives every HTTP request a request id: the `X-Request-Id` it came with when that is 1 to 64
/// letters, digits, `.`, `_` or `-` (a proxy's, e.g. nginx's `$request_id`), else a fresh one.
/// Every log line about the request carries it (`http{req=…}`), and so does the answer.
async fn with_request_id(req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    use tracing::Instrument as _;
    let given = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            (1..=64).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
        .map(str::to_owned);
    let id = given.unwrap_or_else(fresh_request_id);
    let span =
        tracing::info_span!("http", req = %id, method = %req.method(), path = %req.uri().path());
    let started = Instant::now();
    let mut resp = next.run(req).instrument(span.clone()).await;
    span.in_scope(|| {
        tracing::debug!(target: "serve", status = resp.status().as_u16(),
            us = started.elapsed().as_micros() as u64, "answered");
    });
    if let Ok(v) = HeaderValue::from_str(&id) {
        resp.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    resp
}

/// 16 hex digits: 8 random ones drawn once per process, then a counter (no system call per
/// request, and ids of different replicas do not collide).
fn fresh_request_id() -> String {
    static PREFIX: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let prefix = PREFIX.get_or_init(|| crate::token::unique_hex(4));
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{prefix}{n:08x}")
}

/// A signal came: `/readyz` says 503 from now on (a load balancer stops sending), and the
/// sessions' GET streams end (they would hold the graceful shutdown forever); requests in flight
/// are answered as usual.
fn start_drain(app: &App) {
    app.draining
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let n = {
        let map = app.sessions();
        for s in map.values() {
            s.routes().get_stream = None;
        }
        map.len()
    };
    tracing::info!(target: "serve", sessions = n, secs = DRAIN_TIMEOUT.as_secs(),
        "stopping: no new connections; finishing the requests in flight");
}

/// `GET /healthz`: 200 while the process serves. No token, no session, nothing about the
/// upstream.
async fn healthz() -> Response {
    plain(StatusCode::OK, "ok\n")
}

/// `GET /readyz`: 200 when the last probe could start and initialize the upstream and no signal
/// came; else 503. No token, no session, nothing about the upstream (the log says why).
async fn readyz(State(app): State<Arc<App>>) -> Response {
    use std::sync::atomic::Ordering;
    if app.ready.load(Ordering::SeqCst) && !app.draining.load(Ordering::SeqCst) {
        plain(StatusCode::OK, "ready\n")
    } else {
        plain(StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}

fn plain(status: StatusCode, body: &'static str) -> Response {
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Keeps `App::ready` current: probes the upstream at start, again soon after a session's
/// upstream failed, and, while the probe fails, again with a doubling delay.
async fn probe_loop(app: Arc<App>) {
    use std::sync::atomic::Ordering;
    let mut retry = PROBE_RETRY_MIN;
    loop {
        let started = Instant::now();
        let outcome = app.shared.probe().await;
        let was = app.ready.swap(outcome.is_ok(), Ordering::SeqCst);
        match outcome {
            Ok(()) => {
                if !was {
                    tracing::info!(target: "serve", upstream = %app.shared.router.upstream, "ready: the upstream starts and initializes");
                }
                retry = PROBE_RETRY_MIN;
                app.shared.upstream_failed.notified().await;
            }
            Err(e) => {
                tracing::warn!(target: "serve", upstream = %app.shared.router.upstream, retry_ms = retry.as_millis() as u64,
                    "not ready (/readyz answers 503): the upstream could not be started and initialized: {e}");
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(PROBE_RETRY_MAX);
            }
        }
        if let Some(wait) = PROBE_SPACING.checked_sub(started.elapsed()) {
            tokio::time::sleep(wait).await;
        }
    }
}

fn rpc_error(status: StatusCode, id: Value, code: i64, message: String) -> Response {
    json_response(status, &error_response(id, code, message, None))
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut resp = (status, crate::json::to_string(body)).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// Host name of a `Host` header or an origin URL, without port or brackets, lowercased.
fn host_part(s: &str) -> String {
    let s = s.split("://").nth(1).unwrap_or(s);
    let s = s.split('/').next().unwrap_or(s);
    let host = if let Some(rest) = s.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        s.rsplit_once(':').map(|(h, _)| h).unwrap_or(s)
    };
    host.to_ascii_lowercase()
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Rejects requests a browser page could forge (DNS rebinding, cross-origin) and requests
/// without the bearer token.
///
/// `peer`: the address the request came from. From a trusted proxy, the host the client asked
/// for is `X-Forwarded-Host`, and it is checked like a request to a non-loopback bind (the token
/// is required then, see `set_trusted_proxies`): Origin must be a loopback or the same host.
fn check_request(
    opts: &HttpOptions,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
) -> Option<Response> {
    if let Some(token) = &opts.token {
        // RFC 9110: the auth scheme is case-insensitive (`bearer` is as good as `Bearer`).
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim_start_matches(' '))
            .unwrap_or("");
        if !crate::token::constant_time_eq(given.as_bytes(), token.as_bytes()) {
            let mut r = rpc_error(
                StatusCode::UNAUTHORIZED,
                Value::Null,
                -32001,
                format!(
                    "missing or wrong bearer token (send `Authorization: Bearer` with the value of {TOKEN_ENV})"
                ),
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Some(r);
        }
    }
    let proxied = peer.is_some_and(|p| opts.trusted_proxies.contains(&p));
    let forwarded = proxied
        .then(|| headers.get("x-forwarded-host"))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(str::trim);
    let host = forwarded
        .or_else(|| headers.get(header::HOST).and_then(|v| v.to_str().ok()))
        .map(host_part);
    let loopback_bind = opts.addr.ip().is_loopback();
    if loopback_bind && !proxied {
        let ok = host.as_deref().is_some_and(|h| {
            is_loopback_name(h) || h.parse::<IpAddr>().is_ok_and(|ip| ip == opts.addr.ip())
        });
        if !ok {
            return Some(rpc_error(
                StatusCode::FORBIDDEN,
                Value::Null,
                -32001,
                "Host header is not a loopback name: refused (DNS rebinding protection)".into(),
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("null");
        let o = host_part(origin);
        let same_host = host.as_deref().is_some_and(|h| h == o);
        if origin == "null" || !(is_loopback_name(&o) || same_host) {
            return Some(rpc_error(
                StatusCode::FORBIDDEN,
                Value::Null,
                -32001,
                "Origin not allowed: only loopback and same-host origins may call this server"
                    .into(),
            ));
        }
    }
    None
}

fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A fresh session id: 32 random hex digits, after `<replica>.` when the replica is named.
fn new_session_id(replica: Option<&str>) -> String {
    let hex = crate::token::unique_hex(16);
    match replica {
        Some(r) => format!("{r}.{hex}"),
        None => hex,
    }
}

fn accepts_sse(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"))
}

/// The host takes a JSON body too (every client of the 2025 revisions must list both types; a
/// client that lists only `text/event-stream` keeps getting streams).
fn accepts_json(headers: &HeaderMap) -> bool {
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

async fn handle_post(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let (msgs, batch) = match read_messages(&app, peer, &headers, body).await {
        Ok(read) => read,
        Err(r) => return r,
    };
    if !batch && msgs.first().is_some_and(era::is_modern_message) {
        let Some(msg) = msgs.into_iter().next() else {
            return StatusCode::ACCEPTED.into_response();
        };
        return handle_stateless(&app, &headers, msg).await;
    }
    // A batch member that is not an object cannot be routed: answered here (counted below).
    let (msgs, not_objects): (Vec<Value>, Vec<Value>) =
        msgs.into_iter().partition(Value::is_object);
    let requests = msgs
        .iter()
        .filter(|m| m.get("method").is_some() && m.get("id").is_some())
        .count();
    let (session, new_id) = match session_for(&app, &headers, &msgs).await {
        Ok(pair) => pair,
        Err(r) => return r,
    };
    session.touch();
    if requests == 0 && not_objects.is_empty() {
        if forward(&session, msgs).await.is_err() {
            return session_ended();
        }
        return with_session_header(StatusCode::ACCEPTED.into_response(), new_id.as_deref());
    }
    let sse = accepts_sse(&headers);
    let (tx, rx) = mpsc::unbounded_channel::<Routed>();
    let msgs = expect_answers(&session, msgs, sse, &tx);
    for _ in &not_objects {
        let _ = tx.send(Routed::plain(error_response(
            Value::Null,
            -32600,
            "invalid request: a batch member is not a JSON-RPC object".into(),
            None,
        )));
    }
    drop(tx);
    if forward(&session, msgs).await.is_err() {
        return session_ended();
    }
    let shape = Shape {
        sse,
        json_too: accepts_json(&headers),
        batch,
    };
    let resp = answers(rx, shape, requests + not_objects.len()).await;
    with_session_header(resp, new_id.as_deref())
}

/// Everything that can be decided from the headers is, before a byte of the body is read (an
/// unauthenticated or forged request must not make us buffer anything); then the body, its
/// messages, and the revision's header rules for them.
async fn read_messages(
    app: &App,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<(Vec<Value>, bool), Response> {
    if let Some(r) = check_request(&app.opts, headers, Some(peer.ip())) {
        return Err(r);
    }
    let body = read_body(body, headers, app.opts.max_body).await?;
    let (msgs, batch) = super::messages::parse(&body)
        .map_err(|answer| json_response(StatusCode::BAD_REQUEST, &answer))?;
    if let Some(r) = check_era_headers(headers, &msgs, batch) {
        return Err(r);
    }
    Ok((msgs, batch))
}

/// The session a POST belongs to (its `Mcp-Session-Id`), or a new one for an `initialize`
/// (with the id to send back).
async fn session_for(
    app: &Arc<App>,
    headers: &HeaderMap,
    msgs: &[Value],
) -> Result<(Arc<HostSession>, Option<String>), Response> {
    if let Some(id) = session_id(headers) {
        return match app.sessions().get(&id).cloned() {
            Some(s) => Ok((s, None)),
            None => Err(rpc_error(
                StatusCode::NOT_FOUND,
                Value::Null,
                -32001,
                "unknown or expired Mcp-Session-Id: start a new session with initialize".into(),
            )),
        };
    }
    let init_id = msgs
        .iter()
        .find(|m| m.get("method").and_then(Value::as_str) == Some("initialize"))
        .and_then(|m| m.get("id").cloned());
    let Some(init_id) = init_id else {
        return Err(rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "missing Mcp-Session-Id header: send initialize first".into(),
        ));
    };
    open_session(app, init_id).await
}

/// Hands messages to the session, in order; `Err` once the session has ended.
async fn forward(session: &HostSession, msgs: Vec<Value>) -> Result<(), ()> {
    for m in msgs {
        session
            .to_router
            .send(HostMsg::Traced(m, tracing::Span::current()))
            .await
            .map_err(|_| ())?;
    }
    Ok(())
}

fn session_ended() -> Response {
    rpc_error(
        StatusCode::NOT_FOUND,
        Value::Null,
        -32001,
        "the session has ended".into(),
    )
}

/// Routes the answers of the requests among `msgs` (and their progress, for an event stream) to
/// `tx`; the messages to forward. A request whose id is already in flight on the session is
/// answered here with an error, and not forwarded.
fn expect_answers(
    session: &HostSession,
    msgs: Vec<Value>,
    sse: bool,
    tx: &mpsc::UnboundedSender<Routed>,
) -> Vec<Value> {
    let mut forward = Vec::with_capacity(msgs.len());
    let mut r = session.routes();
    for m in msgs {
        let (Some(id), true) = (m.get("id"), m.get("method").is_some()) else {
            forward.push(m);
            continue;
        };
        let key = id.to_string();
        if r.by_request.get(&key).is_some_and(|s| !s.is_closed()) {
            // Its answer could not be told apart from the other one's: refuse it, and
            // leave the request already in flight alone.
            let _ = tx.send(Routed::plain(error_response(
                id.clone(),
                -32600,
                format!(
                    "request id {key} is already in use by a request in flight on this session; use a different id"
                ),
                None,
            )));
            continue;
        }
        if sse && let Some(tok) = m.pointer("/params/_meta/progressToken") {
            r.by_progress.insert(tok.to_string(), key.clone());
        }
        r.by_request.insert(key, tx.clone());
        forward.push(m);
    }
    forward
}

/// What a POST's answer may look like.
#[derive(Clone, Copy)]
struct Shape {
    /// The host takes an event stream.
    sse: bool,
    /// The host takes a JSON body too.
    json_too: bool,
    /// The POST was a JSON-RPC batch: a JSON body is an array of answers, even of one.
    batch: bool,
}

/// The answer to a POST of requests: an event stream or one JSON body, with the `expected`
/// answers that arrive on `rx`. A single answer that comes before anything else is one JSON body
/// when the host takes that, as a stateless request's is: the revisions let the server choose,
/// and a body of known length costs both sides less than a stream (no framing, no keep-alive
/// timer, no chunked encoding). Whatever comes first otherwise (progress, a log, a server→client
/// request) starts the stream.
async fn answers(
    mut rx: mpsc::UnboundedReceiver<Routed>,
    shape: Shape,
    expected: usize,
) -> Response {
    let body = |mut answers: Vec<Value>| match answers.len() {
        1 if !shape.batch => answers.pop().unwrap_or(Value::Null),
        _ => Value::Array(answers),
    };
    if !shape.sse {
        let responses = collect_responses(rx, expected).await;
        let status = responses
            .iter()
            .filter_map(|r| r.status)
            .last()
            .unwrap_or(StatusCode::OK);
        return json_response(status, &body(responses.into_iter().map(|r| r.msg).collect()));
    }
    let mut first = None;
    if expected == 1 {
        // An answer that comes first and carries the upstream's HTTP error status
        // (`router::Out::HostRefused`) goes back as the upstream sent it: a JSON body with
        // that status, not an event in a 200 stream.
        match rx.recv().await {
            Some(r) if r.msg.get("method").is_none() => {
                if let Some(status) = r.status {
                    return json_response(status, &body(vec![r.msg]));
                }
                if shape.json_too {
                    return json_response(StatusCode::OK, &body(vec![r.msg]));
                }
                first = Some(r.msg);
            }
            other => first = other.map(|r| r.msg),
        }
    }
    let head = futures_util::stream::iter(first);
    let rest = futures_util::stream::unfold(rx, |mut rx| async move {
        let m = rx.recv().await?;
        Some((m.msg, rx))
    });
    use futures_util::StreamExt as _;
    Sse::new(event_stream(Box::pin(head.chain(rest)), expected))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// Reads a request body of at most `max` bytes. A declared `Content-Length` over the limit is
/// refused from the headers; a chunked body that turns out too large is read to its end
/// without keeping it, to find the request's id for the error.
async fn read_body(
    body: axum::body::Body,
    headers: &HeaderMap,
    max: usize,
) -> Result<Vec<u8>, Response> {
    let too_large = |id: Value, size: String| {
        rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            id,
            -32600,
            format!(
                "request body {size}is larger than the {max}-byte limit of mcp-gen-ui serve; it was refused"
            ),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(n) = declared
        && n > max as u64
    {
        return Err(too_large(Value::Null, format!("of {n} bytes ")));
    }
    use futures_util::StreamExt as _;
    let mut stream = body.into_data_stream();
    let mut buf = Vec::with_capacity(declared.map_or(8 * 1024, |n| n.min(1 << 20) as usize));
    let mut scanner: Option<IdScanner> = None;
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            rpc_error(
                StatusCode::BAD_REQUEST,
                Value::Null,
                -32600,
                format!("reading the request body failed: {e}"),
            )
        })?;
        total = total.saturating_add(chunk.len());
        if let Some(s) = &mut scanner {
            s.feed(&chunk);
        } else if buf.len() + chunk.len() > max {
            let mut s = IdScanner::new();
            s.feed(&buf);
            s.feed(&chunk);
            scanner = Some(s);
            buf = Vec::new();
        } else {
            buf.extend_from_slice(&chunk);
        }
    }
    match scanner {
        Some(s) => {
            let probe = s.finish();
            let id = probe.request_id().cloned().unwrap_or(Value::Null);
            Err(too_large(id, format!("of {total} bytes ")))
        }
        None => Ok(buf),
    }
}

fn with_session_header(mut resp: Response, id: Option<&str>) -> Response {
    if let Some(id) = id
        && let Ok(v) = HeaderValue::from_str(id)
    {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}

async fn open_session(
    app: &Arc<App>,
    init_id: Value,
) -> Result<(Arc<HostSession>, Option<String>), Response> {
    let slot = take_slot(app, &init_id).await?;
    let conn = connect_upstream(app, init_id).await?;
    let id = new_session_id(app.opts.replica_id.as_deref());
    let host = spawn_session(app, conn, Some(id.clone()), Some(slot));
    app.sessions().insert(id.clone(), Arc::clone(&host));
    Ok((host, Some(id)))
}

/// A session slot for a new host: a free one, or, at the cap, the one the least recently used
/// idle session gives back once its upstream is gone (book: reference/serve.md). The slot is
/// taken before the upstream starts, so no burst of `initialize` requests can start more
/// upstreams than the cap.
async fn take_slot(
    app: &Arc<App>,
    init_id: &Value,
) -> Result<tokio::sync::OwnedSemaphorePermit, Response> {
    let max = app.opts.max_sessions;
    if let Ok(slot) = Arc::clone(&app.slots).try_acquire_owned() {
        return Ok(slot);
    }
    let evicted = evict_one(&mut app.sessions(), app.opts.evict_after);
    let Some((id, s)) = evicted else {
        tracing::warn!(target: "serve", max, "refused a new host session: the limit is reached and no session has been idle long enough to close");
        return Err(at_the_cap(app, init_id.clone()));
    };
    tracing::info!(target: "serve", session = %id, idle_secs = s.idle_for().as_secs(), max,
        "the session limit is reached: closed the least recently used idle host session for a new one (its host gets 404 and initializes again)");
    s.close();
    match tokio::time::timeout(EVICT_WAIT, Arc::clone(&app.slots).acquire_owned()).await {
        Ok(Ok(slot)) => Ok(slot),
        _ => Err(at_the_cap(app, init_id.clone())),
    }
}

/// The 503 answer of an `initialize` at the session cap.
fn at_the_cap(app: &App, init_id: Value) -> Response {
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        init_id,
        -32001,
        format!(
            "too many open sessions: the limit is {} (--max-sessions or [serve] max_sessions \
             raises it), and every one is in use or was used in the last {} s \
             (--session-evict-seconds or [serve] session_evict_seconds). End sessions you no \
             longer use with HTTP DELETE; idle ones are closed after {} min \
             (--session-idle-minutes or [serve] session_idle_minutes)",
            app.opts.max_sessions,
            app.opts.evict_after.as_secs(),
            app.opts.idle_timeout.as_secs().div_ceil(60)
        ),
    )
}

/// Removes the least recently used session that nobody listens on and that has been idle for
/// at least `min_idle`; `None` when no session qualifies.
fn evict_one(
    map: &mut HashMap<String, Arc<HostSession>>,
    min_idle: Duration,
) -> Option<(String, Arc<HostSession>)> {
    let id = map
        .iter()
        .filter_map(|(id, s)| Some((id, s.evictable_idle()?)))
        .filter(|(_, idle)| *idle >= min_idle)
        .max_by_key(|(_, idle)| *idle)
        .map(|(id, _)| id.clone())?;
    map.remove_entry(&id)
}

/// Starts the task of one host session (`sid` None: the shared stateless one, in no map). The
/// task holds the session's `slot` until its upstream is shut down.
fn spawn_session(
    app: &Arc<App>,
    conn: crate::mcp::Connection,
    sid: Option<String>,
    slot: Option<tokio::sync::OwnedSemaphorePermit>,
) -> Arc<HostSession> {
    let (to_router, from_host) = mpsc::channel::<HostMsg>(256);
    let stop = Arc::new(StopSignal::default());
    let from_host = Stoppable {
        rx: from_host,
        stop: Arc::clone(&stop),
    };
    let routes = Arc::new(Mutex::new(Routes::default()));
    let to_host = RouteSink(Arc::clone(&routes));
    let shared = Arc::clone(&app.shared);
    let app2 = Arc::clone(app);
    let task = tokio::spawn(async move {
        let label = sid.clone().unwrap_or_else(|| "stateless".into());
        let span = tracing::info_span!("session", id = %label);
        let _entered = span.enter();
        tracing::info!(target: "serve", "host session opened");
        drop(_entered);
        session::run(shared, conn, from_host, to_host, false).await;
        if let Some(sid) = &sid {
            app2.sessions().remove(sid);
        }
        tracing::info!(target: "serve", session = %label, "host session closed");
        // Only now: the upstream is gone (`session::run` shut it down).
        drop(slot);
    });
    Arc::new(HostSession {
        to_router,
        routes,
        task: task.abort_handle(),
        stop,
        last_seen: Mutex::new(Instant::now()),
    })
}

/// A new upstream connection; when it cannot start, the error (logged) answers the request `id`.
async fn connect_upstream(app: &Arc<App>, id: Value) -> Result<crate::mcp::Connection, Response> {
    app.shared.connect().await.map_err(|e| {
        tracing::error!(target: "serve", upstream = %app.shared.router.upstream, "cannot start the upstream: {e}");
        rpc_error(
            StatusCode::BAD_GATEWAY,
            id,
            -32000,
            format!(
                "cannot start the upstream MCP server {}: {e}",
                app.shared.router.upstream
            ),
        )
    })
}

/// The shared session of stateless requests, started (again) when needed.
async fn stateless_session(app: &Arc<App>, id: &Value) -> Result<Arc<HostSession>, Response> {
    let mut slot = app.stateless.lock().await;
    if let Some(s) = slot.as_ref()
        && !s.task.is_finished()
    {
        return Ok(Arc::clone(s));
    }
    let conn = connect_upstream(app, id.clone()).await?;
    let host = spawn_session(app, conn, None, None);
    *slot = Some(Arc::clone(&host));
    Ok(host)
}

/// One stateless (2026-07-28) request or notification. It reaches the shared router under a
/// fresh id (and progress token), and the host gets its own back.
async fn handle_stateless(app: &Arc<App>, headers: &HeaderMap, mut msg: Value) -> Response {
    use std::sync::atomic::Ordering;
    let host_id = msg.get("id").cloned();
    let session = match stateless_session(app, host_id.as_ref().unwrap_or(&Value::Null)).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    session.touch();
    let Some(host_id) = host_id else {
        let _ = session
            .to_router
            .send(HostMsg::Traced(msg, tracing::Span::current()))
            .await;
        return StatusCode::ACCEPTED.into_response();
    };
    let wire_id = app.next_stateless.fetch_add(1, Ordering::Relaxed);
    if let Some(slot) = msg.get_mut("id") {
        *slot = Value::from(wire_id);
    }
    let key = Value::from(wire_id).to_string();
    let mut token: Option<(Value, String)> = None;
    if let Some(t) = msg.pointer_mut("/params/_meta/progressToken") {
        let ours = format!("p{}", app.next_stateless.fetch_add(1, Ordering::Relaxed));
        let original = std::mem::replace(t, Value::from(ours.clone()));
        token = Some((original, Value::from(ours).to_string()));
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<Routed>();
    {
        let mut r = session.routes();
        if let Some((_, ours)) = &token {
            r.by_progress.insert(ours.clone(), key.clone());
        }
        r.by_request.insert(key.clone(), tx);
    }
    let traced = HostMsg::Traced(msg, tracing::Span::current());
    if session.to_router.send(traced).await.is_err() {
        return rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            host_id,
            -32000,
            "the upstream connection of stateless requests has ended; retry the request".into(),
        );
    }
    let original_token = token.map(|(t, _)| t);
    let restore = move |mut m: Value| -> Value {
        if m.get("method").is_none() {
            if let Some(slot) = m.get_mut("id") {
                *slot = host_id.clone();
            }
        } else if let (Some(t), Some(slot)) = (
            original_token.as_ref(),
            m.pointer_mut("/params/progressToken"),
        ) {
            *slot = t.clone();
        }
        m
    };
    let sse = accepts_sse(headers);
    // The answer decides the shape: an answer that comes first is one JSON body with the
    // status it deserves; anything before it (progress, logs) starts an event stream.
    loop {
        let Some(first) = rx.recv().await else {
            return rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                Value::Null,
                -32000,
                "the upstream connection of stateless requests has ended; retry the request".into(),
            );
        };
        let refused = first.status;
        let first = restore(first.msg);
        if first.get("method").is_none() {
            let status = refused.unwrap_or_else(|| stateless_status(&first));
            return json_response(status, &first);
        }
        if !sse {
            continue;
        }
        let head = futures_util::stream::once(async move { first });
        let tail = futures_util::stream::unfold(rx, |mut rx| async move {
            let m = rx.recv().await?;
            Some((m.msg, rx))
        });
        use futures_util::StreamExt as _;
        let mut done = false;
        let stream = head
            .chain(tail)
            .map(restore)
            .take_while(move |m| {
                let go = !done;
                if m.get("method").is_none() {
                    done = true;
                }
                std::future::ready(go)
            })
            .map(|m| {
                Ok::<_, Infallible>(
                    Event::default()
                        .event("message")
                        .data(crate::json::to_string(&m)),
                )
            });
        return Sse::new(stream)
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
            .into_response();
    }
}

/// The HTTP status of a stateless answer, as the revision gives it: 400 for its own errors,
/// 404 for an unknown method, 200 for everything else (results, and errors of the request's
/// own processing, which are in-band).
fn stateless_status(msg: &Value) -> StatusCode {
    match msg.pointer("/error/code").and_then(Value::as_i64) {
        Some(
            era::HEADER_MISMATCH
            | era::MISSING_CLIENT_CAPABILITY
            | era::UNSUPPORTED_PROTOCOL_VERSION,
        ) => StatusCode::BAD_REQUEST,
        Some(-32601) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// The header rules of the revision, checked before anything is forwarded (see the module
/// docs). `None`: go on.
fn check_era_headers(headers: &HeaderMap, msgs: &[Value], batch: bool) -> Option<Response> {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if batch && msgs.iter().any(era::is_modern_message) {
        return Some(rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later".into(),
        ));
    }
    let version = header(era::HEADER_PROTOCOL_VERSION);
    let modern = if batch {
        None
    } else {
        msgs.first().filter(|m| era::is_modern_message(m))
    };
    let Some(msg) = modern else {
        // A 2025-era message (or batch).
        return match version {
            Some(v) if era::is_modern_version(v) => {
                let id = msgs
                    .first()
                    .and_then(|m| m.get("id"))
                    .cloned()
                    .unwrap_or(Value::Null);
                Some(rpc_error(
                    StatusCode::BAD_REQUEST,
                    id,
                    -32602,
                    format!(
                        "MCP-Protocol-Version {v} needs `_meta[\"{}\"]` and `_meta[\"{}\"]` in the request",
                        era::META_PROTOCOL_VERSION,
                        era::META_CLIENT_CAPABILITIES
                    ),
                ))
            }
            Some(v) if !era::is_legacy_version(v) => Some(unsupported_version_header(v)),
            _ => None,
        };
    };
    let is_request = msg.get("id").is_some();
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let body_version = era::claimed_version(msg).unwrap_or_default();
    let mismatch = |detail: String| {
        Some(rpc_error(
            StatusCode::BAD_REQUEST,
            id.clone(),
            era::HEADER_MISMATCH,
            format!("Header mismatch: {detail}"),
        ))
    };
    match version {
        Some(v) if v != body_version => {
            return mismatch(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            ));
        }
        None if is_request => {
            return mismatch(format!(
                "the body names protocol version {body_version} but the required MCP-Protocol-Version header is absent"
            ));
        }
        _ => {}
    }
    if !is_request {
        return None;
    }
    let method = msg
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match header(era::HEADER_METHOD) {
        None => {
            return mismatch(format!(
                "the body names method {method} but the required Mcp-Method header is absent"
            ));
        }
        Some(m) if m.trim_matches([' ', '\t']) != method => {
            return mismatch(format!(
                "Mcp-Method header value '{m}' does not match body value '{method}'"
            ));
        }
        _ => {}
    }
    if let Some(body_name) = era::name_source(msg) {
        match header(era::HEADER_NAME).map(era::decode_header_value) {
            None => {
                return mismatch(format!(
                    "the body names '{body_name}' but the required Mcp-Name header is absent"
                ));
            }
            Some(None) => {
                return mismatch(
                    "the Mcp-Name header carries an invalid Base64 sentinel value".into(),
                );
            }
            Some(Some(n)) if n != body_name => {
                return mismatch(format!(
                    "Mcp-Name header value '{n}' does not match body value '{body_name}'"
                ));
            }
            _ => {}
        }
    }
    None
}

fn unsupported_version_header(v: &str) -> Response {
    let mut supported: Vec<&str> = vec![era::MODERN_VERSION];
    supported.extend(era::LEGACY_VERSIONS);
    rpc_error(
        StatusCode::BAD_REQUEST,
        Value::Null,
        -32000,
        format!(
            "Bad Request: Unsupported protocol version: {v} (supported versions: {})",
            supported.join(", ")
        ),
    )
}

fn event_stream<S: Stream<Item = Value> + Send + Unpin>(
    rx: S,
    expected: usize,
) -> impl Stream<Item = Result<Event, Infallible>> {
    use futures_util::StreamExt as _;
    futures_util::stream::unfold((rx, expected), |(mut rx, remaining)| async move {
        if remaining == 0 {
            return None;
        }
        let msg = rx.next().await?;
        let is_response = msg.get("method").is_none();
        let left = if is_response {
            remaining.saturating_sub(1)
        } else {
            remaining
        };
        let ev = Event::default()
            .event("message")
            .data(crate::json::to_string(&msg));
        Some((Ok(ev), (rx, left)))
    })
}

async fn collect_responses(
    mut rx: mpsc::UnboundedReceiver<Routed>,
    expected: usize,
) -> Vec<Routed> {
    let mut out = Vec::with_capacity(expected);
    while out.len() < expected {
        let Some(r) = rx.recv().await else { break };
        if r.msg.get("method").is_none() {
            out.push(r);
        }
    }
    out
}

/// GET and DELETE are 2025-era session operations: an `MCP-Protocol-Version` header must name
/// one of that era's versions.
fn check_session_version(headers: &HeaderMap) -> Option<Response> {
    let v = headers.get(era::HEADER_PROTOCOL_VERSION)?;
    let v = v.to_str().unwrap_or("\u{fffd}");
    (!era::is_legacy_version(v)).then(|| unsupported_version_header(v))
}

async fn handle_get(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if let Some(r) = check_request(&app.opts, &headers, Some(peer.ip())) {
        return r;
    }
    if app.draining.load(std::sync::atomic::Ordering::SeqCst) {
        return rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            Value::Null,
            -32000,
            "mcp-gen-ui serve is stopping: no new event streams".into(),
        );
    }
    if let Some(r) = check_session_version(&headers) {
        return r;
    }
    if !accepts_sse(&headers) {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            Value::Null,
            -32600,
            "GET /mcp opens an event stream: send `Accept: text/event-stream`".into(),
        );
    }
    let Some(id) = session_id(&headers) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "missing Mcp-Session-Id header".into(),
        );
    };
    let Some(session) = app.sessions().get(&id).cloned() else {
        return rpc_error(
            StatusCode::NOT_FOUND,
            Value::Null,
            -32001,
            "unknown or expired Mcp-Session-Id".into(),
        );
    };
    let (tx, rx) = mpsc::unbounded_channel::<Routed>();
    {
        let mut r = session.routes();
        for m in r.backlog.drain(..) {
            let _ = tx.send(m);
        }
        r.get_stream = Some(tx);
    }
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let msg = rx.recv().await?.msg;
        Some((
            Ok::<_, Infallible>(
                Event::default()
                    .event("message")
                    .data(crate::json::to_string(&msg)),
            ),
            rx,
        ))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

async fn handle_delete(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if let Some(r) = check_request(&app.opts, &headers, Some(peer.ip())) {
        return r;
    }
    if let Some(r) = check_session_version(&headers) {
        return r;
    }
    let Some(id) = session_id(&headers) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "missing Mcp-Session-Id header".into(),
        );
    };
    let removed = app.sessions().remove(&id);
    match removed {
        Some(s) => {
            // The session's task stops the child (or DELETEs the upstream's HTTP session).
            s.close();
            StatusCode::OK.into_response()
        }
        None => rpc_error(
            StatusCode::NOT_FOUND,
            Value::Null,
            -32001,
            "unknown or expired Mcp-Session-Id".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(addr: &str, token: Option<&str>) -> HttpOptions {
        HttpOptions {
            addr: addr.parse().unwrap(),
            token: token.map(String::from),
            max_body: 10,
            max_sessions: DEFAULT_MAX_SESSIONS,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            evict_after: DEFAULT_EVICT_AFTER,
            replica_id: None,
            trusted_proxies: Vec::new(),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn host_and_origin_checks() {
        let o = opts("127.0.0.1:3000", None);
        assert!(check_request(&o, &headers(&[("host", "127.0.0.1:3000")]), None).is_none());
        assert!(check_request(&o, &headers(&[("host", "localhost:3000")]), None).is_none());
        assert!(check_request(&o, &headers(&[("host", "[::1]:3000")]), None).is_none());
        assert!(check_request(&o, &headers(&[("host", "evil.example:3000")]), None).is_some());
        assert!(check_request(&o, &headers(&[]), None).is_some());
        let ok_origin = [
            ("host", "127.0.0.1:3000"),
            ("origin", "http://localhost:6274"),
        ];
        assert!(check_request(&o, &headers(&ok_origin), None).is_none());
        let bad_origin = [
            ("host", "127.0.0.1:3000"),
            ("origin", "https://evil.example"),
        ];
        let r = check_request(&o, &headers(&bad_origin), None).unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let null_origin = [("host", "127.0.0.1:3000"), ("origin", "null")];
        assert!(check_request(&o, &headers(&null_origin), None).is_some());
    }

    #[test]
    fn token_is_required_when_set() {
        let o = opts("0.0.0.0:3000", Some("s3cret"));
        let r = check_request(&o, &headers(&[("host", "10.0.0.1:3000")]), None).unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let wrong = [("host", "h"), ("authorization", "Bearer nope")];
        assert!(check_request(&o, &headers(&wrong), None).is_some());
        let right = [("host", "h"), ("authorization", "Bearer s3cret")];
        assert!(check_request(&o, &headers(&right), None).is_none());
        for scheme in ["bearer", "BEARER", "beArer"] {
            let v = format!("{scheme} s3cret");
            let lower = [("host", "h"), ("authorization", v.as_str())];
            assert!(
                check_request(&o, &headers(&lower), None).is_none(),
                "{scheme}"
            );
        }
        let other = [("host", "h"), ("authorization", "Basic s3cret")];
        assert!(check_request(&o, &headers(&other), None).is_some());
    }

    #[test]
    fn non_loopback_bind_needs_a_token() {
        let e = HttpOptions::from_args("0.0.0.0:0", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(TOKEN_ENV), "{e}");
        assert!(HttpOptions::from_args("0.0.0.0:0", Some("t".into())).is_ok());
        assert!(HttpOptions::from_args("127.0.0.1:0", None).is_ok());
        assert!(HttpOptions::from_args("nonsense", None).is_err());
        let dbg = format!(
            "{:?}",
            HttpOptions::from_args("0.0.0.0:0", Some("hidden".into())).unwrap()
        );
        assert!(!dbg.contains("hidden"), "{dbg}");
    }

    fn modern(method: &str, params: serde_json::Value) -> Value {
        let mut p = params;
        p["_meta"] = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":method,"params":p})
    }

    fn era_check(h: &[(&'static str, &str)], msgs: &[Value], batch: bool) -> Option<(u16, i64)> {
        let r = check_era_headers(&headers(h), msgs, batch)?;
        let status = r.status().as_u16();
        let body =
            futures_util::FutureExt::now_or_never(axum::body::to_bytes(r.into_body(), 1 << 20))
                .and_then(Result::ok)
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64))
                .unwrap_or(0);
        Some((status, body))
    }

    #[test]
    fn protocol_version_and_mirrored_headers_are_checked() {
        let call = modern(
            "tools/call",
            serde_json::json!({"name":"get weather ☀","arguments":{}}),
        );
        let enc = era::header_value("get weather ☀");
        let good = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", enc.as_str()),
        ];
        assert_eq!(era_check(&good, std::slice::from_ref(&call), false), None);
        // Missing or disagreeing headers: 400 with HeaderMismatch.
        for bad in [
            &good[1..],
            &[good[0], good[2]][..],
            &good[..2],
            &[good[0], ("mcp-method", "tools/list"), good[2]][..],
            &[("mcp-protocol-version", "2025-06-18"), good[1], good[2]][..],
            &[good[0], good[1], ("mcp-name", "other")][..],
            &[good[0], good[1], ("mcp-name", "=?base64?***?=")][..],
        ] {
            assert_eq!(
                era_check(bad, std::slice::from_ref(&call), false),
                Some((400, era::HEADER_MISMATCH)),
                "{bad:?}"
            );
        }
        // 2025-era traffic: unknown versions are refused, known ones and none pass.
        let legacy = serde_json::json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        let one = std::slice::from_ref(&legacy);
        assert_eq!(
            era_check(&[("mcp-protocol-version", "1999-01-01")], one, false),
            Some((400, -32000))
        );
        assert_eq!(
            era_check(&[("mcp-protocol-version", "2025-06-18")], one, false),
            None
        );
        assert_eq!(era_check(&[], one, false), None);
        // A modern header without the body's envelope.
        assert_eq!(
            era_check(&[("mcp-protocol-version", "2026-07-28")], one, false),
            Some((400, -32602))
        );
        // No modern request in a batch.
        assert_eq!(
            era_check(&good, &[legacy.clone(), call.clone()], true),
            Some((400, -32600))
        );
    }

    #[test]
    fn stateless_errors_get_the_revisions_status() {
        let err = |code: i64| serde_json::json!({"jsonrpc":"2.0","id":1,"error":{"code":code,"message":"x"}});
        assert_eq!(stateless_status(&err(-32022)), StatusCode::BAD_REQUEST);
        assert_eq!(stateless_status(&err(-32020)), StatusCode::BAD_REQUEST);
        assert_eq!(stateless_status(&err(-32021)), StatusCode::BAD_REQUEST);
        assert_eq!(stateless_status(&err(-32601)), StatusCode::NOT_FOUND);
        assert_eq!(stateless_status(&err(-32602)), StatusCode::OK);
        assert_eq!(
            stateless_status(&serde_json::json!({"jsonrpc":"2.0","id":1,"result":{}})),
            StatusCode::OK
        );
    }

    #[test]
    fn forwarded_host_is_believed_only_from_a_trusted_proxy() {
        let mut o = opts("127.0.0.1:3000", None);
        let e = o
            .set_trusted_proxies(&["127.0.0.1".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains(TOKEN_ENV), "{e}");
        let mut o = opts("127.0.0.1:3000", Some("t"));
        assert!(o.set_trusted_proxies(&["nginx".into()]).is_err());
        o.set_trusted_proxies(&["127.0.0.1".into(), "::1".into()])
            .unwrap();
        let proxy: Option<IpAddr> = Some("127.0.0.1".parse().unwrap());
        let stranger: Option<IpAddr> = Some("10.0.0.5".parse().unwrap());
        let base = [
            ("authorization", "Bearer t"),
            ("host", "mcp.example.com"),
            ("x-forwarded-host", "mcp.example.com, inner"),
        ];
        let same = [
            base[0],
            base[1],
            base[2],
            ("origin", "https://mcp.example.com"),
        ];
        let evil = [
            base[0],
            base[1],
            base[2],
            ("origin", "https://evil.example"),
        ];
        assert!(check_request(&o, &headers(&base), proxy).is_none());
        assert!(check_request(&o, &headers(&same), proxy).is_none());
        let r = check_request(&o, &headers(&evil), proxy).unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // From anyone else the forwarded host means nothing: a loopback bind wants a loopback
        // Host.
        let r = check_request(&o, &headers(&base), stranger).unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // The token is still required through the proxy.
        let r = check_request(&o, &headers(&base[1..]), proxy).unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn replica_ids_tag_session_ids() {
        let mut o = opts("127.0.0.1:3000", None);
        o.set_replica_id("r-1_a").unwrap();
        let id = new_session_id(o.replica_id.as_deref());
        let (r, hex) = id.split_once('.').unwrap();
        assert_eq!(r, "r-1_a");
        assert_eq!(hex.len(), 32);
        assert!(hex.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(!new_session_id(None).contains('.'));
        for bad in ["", "a.b", "a b", "é", &"x".repeat(33)] {
            let e = o.set_replica_id(bad).unwrap_err().to_string();
            assert!(e.contains("--replica-id"), "{e}");
        }
    }

    #[test]
    fn json_bodies_only_for_hosts_that_take_them() {
        let takes = |accept: Option<&str>| {
            let mut h = HeaderMap::new();
            if let Some(a) = accept {
                h.insert(header::ACCEPT, HeaderValue::from_str(a).unwrap());
            }
            accepts_json(&h)
        };
        assert!(takes(Some("application/json, text/event-stream")));
        assert!(takes(Some("text/event-stream;q=0.9, Application/JSON;q=1")));
        assert!(takes(Some("*/*")));
        assert!(takes(None));
        assert!(!takes(Some("text/event-stream")));
        assert!(!takes(Some("application/jsonl, text/event-stream")));
    }

    #[test]
    fn host_part_parses_forms() {
        assert_eq!(host_part("127.0.0.1:80"), "127.0.0.1");
        assert_eq!(host_part("[::1]:80"), "::1");
        assert_eq!(host_part("http://LOCALHOST:1/x"), "localhost");
        assert_eq!(host_part("example.com"), "example.com");
    }
}
