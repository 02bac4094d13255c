//! `GET /mcp` (the session's event stream, with what was kept for it) and `DELETE /mcp` (the
//! host ends its session).

use super::app::*;
use super::era_headers::*;
use super::guard::*;
use super::prelude::*;

pub(super) async fn handle_get(State(app): State<Arc<App>>, Guarded(headers): Guarded) -> Response {
    if app.draining.load(std::sync::atomic::Ordering::SeqCst) {
        return refuse(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "mcp-gen-ui serve is stopping: no new event streams".into(),
        );
    }
    if let Some(r) = check_session_version(&headers) {
        return r;
    }
    if !accepts_sse(&headers) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            -32600,
            "GET /mcp opens an event stream: send `Accept: text/event-stream`".into(),
        );
    }
    let Some(id) = session_id(&headers) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            -32600,
            "missing Mcp-Session-Id header".into(),
        );
    };
    let Some(session) = app.sessions().get(&id).cloned() else {
        return refuse(
            StatusCode::NOT_FOUND,
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

pub(super) async fn handle_delete(
    State(app): State<Arc<App>>,
    Guarded(headers): Guarded,
) -> Response {
    if let Some(r) = check_session_version(&headers) {
        return r;
    }
    let Some(id) = session_id(&headers) else {
        return refuse(
            StatusCode::BAD_REQUEST,
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
        None => refuse(
            StatusCode::NOT_FOUND,
            -32001,
            "unknown or expired Mcp-Session-Id".into(),
        ),
    }
}
