//! The 2025-era session table: each session's routes (which stream gets which message), its
//! slot under the cap (taken before the upstream starts, given back once it is gone), eviction
//! at the cap, and the task that runs it (book: serve.md).

use super::app::*;
use super::options::*;
use super::prelude::*;

/// A fresh session id: 32 random hex digits, after `<replica>.` when the replica is named.
pub(super) fn new_session_id(replica: Option<&str>) -> String {
    let hex = crate::token::unique_hex(16);
    match replica {
        Some(r) => format!("{r}.{hex}"),
        None => hex,
    }
}

pub(super) async fn open_session(
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
pub(super) async fn take_slot(
    app: &Arc<App>,
    init_id: &Value,
) -> Result<tokio::sync::OwnedSemaphorePermit, Response> {
    let max = app.opts.max_sessions;
    if let Ok(slot) = Arc::clone(&app.slots).try_acquire_owned() {
        return Ok(slot);
    }
    let (evicted, live) = {
        let mut sessions = app.sessions();
        (
            evict_one(&mut sessions, app.opts.evict_after),
            sessions.len(),
        )
    };
    if evicted.is_none() && live < max {
        // Fewer sessions than slots taken: a session that was ended (DELETE, expiry, eviction)
        // is still stopping its upstream, or another host's session is starting. Its slot
        // comes back within the wait; a host that just ended a session can start a new one.
        if let Ok(Ok(slot)) =
            tokio::time::timeout(EVICT_WAIT, Arc::clone(&app.slots).acquire_owned()).await
        {
            return Ok(slot);
        }
    }
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
pub(super) fn at_the_cap(app: &App, init_id: Value) -> Response {
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
pub(super) fn evict_one(
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
pub(super) fn spawn_session(
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
pub(super) async fn connect_upstream(
    app: &Arc<App>,
    id: Value,
) -> Result<crate::mcp::Connection, Response> {
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
