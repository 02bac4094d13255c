//! Stateless (2026-07-28) requests: one shared upstream session, each request under a fresh id
//! and progress token, and the HTTP status the revision gives each answer.

use super::app::*;
use super::prelude::*;
use super::sessions::*;

/// The shared session of stateless requests, started (again) when needed.
pub(super) async fn stateless_session(
    app: &Arc<App>,
    id: &Value,
) -> Result<Arc<HostSession>, Response> {
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
pub(super) async fn handle_stateless(
    app: &Arc<App>,
    headers: &HeaderMap,
    mut msg: Value,
) -> Response {
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
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
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
pub(super) fn stateless_status(msg: &Value) -> StatusCode {
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
