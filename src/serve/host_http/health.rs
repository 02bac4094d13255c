//! `/healthz`, `/readyz` and the probe that keeps readiness current, and the start of the drain
//! on SIGTERM (book: serve.md).

use super::app::*;
use super::options::*;
use super::prelude::*;

/// A signal came: `/readyz` says 503 from now on (a load balancer stops sending), and the
/// sessions' GET streams end (they would hold the graceful shutdown forever); requests in flight
/// are answered as usual.
pub(super) fn start_drain(app: &App) {
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
pub(super) async fn healthz() -> Response {
    plain(StatusCode::OK, "ok\n")
}

/// `GET /readyz`: 200 when the last probe could start and initialize the upstream and no signal
/// came; else 503. No token, no session, nothing about the upstream (the log says why).
pub(super) async fn readyz(State(app): State<Arc<App>>) -> Response {
    use std::sync::atomic::Ordering;
    if app.ready.load(Ordering::SeqCst) && !app.draining.load(Ordering::SeqCst) {
        plain(StatusCode::OK, "ready\n")
    } else {
        plain(StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}

pub(super) fn plain(status: StatusCode, body: &'static str) -> Response {
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
pub(super) async fn probe_loop(app: Arc<App>) {
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
