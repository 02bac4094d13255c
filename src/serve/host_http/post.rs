//! `POST /mcp`: reading the body under its limit, finding or opening the session, and shaping
//! the answer (one JSON body, or an event stream).

use super::app::*;
use super::era_headers::*;
use super::guard::*;
use super::options::*;
use super::prelude::*;
use super::sessions::*;
use super::stateless::*;

pub(super) async fn handle_post(
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
pub(super) async fn read_messages(
    app: &App,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: axum::body::Body,
) -> Result<(Vec<Value>, bool), Response> {
    if let Some(r) = check_request(&app.opts, headers, Some(peer.ip())) {
        return Err(r);
    }
    let body = read_body(body, headers, app.opts.max_body).await?;
    let (msgs, batch) = crate::serve::messages::parse(&body)
        .map_err(|answer| json_response(StatusCode::BAD_REQUEST, &answer))?;
    if let Some(r) = check_era_headers(headers, &msgs, batch) {
        return Err(r);
    }
    Ok((msgs, batch))
}

/// The session a POST belongs to (its `Mcp-Session-Id`), or a new one for an `initialize`
/// (with the id to send back).
pub(super) async fn session_for(
    app: &Arc<App>,
    headers: &HeaderMap,
    msgs: &[Value],
) -> Result<(Arc<HostSession>, Option<String>), Response> {
    if let Some(id) = session_id(headers) {
        return match app.sessions().get(&id).cloned() {
            Some(s) => Ok((s, None)),
            None => Err(refuse(
                StatusCode::NOT_FOUND,
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
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            -32600,
            "missing Mcp-Session-Id header: send initialize first".into(),
        ));
    };
    open_session(app, init_id).await
}

/// Hands messages to the session, in order; `Err` once the session has ended.
pub(super) async fn forward(session: &HostSession, msgs: Vec<Value>) -> Result<(), ()> {
    for m in msgs {
        session
            .to_router
            .send(HostMsg::Traced(m, tracing::Span::current()))
            .await
            .map_err(|_| ())?;
    }
    Ok(())
}

pub(super) fn session_ended() -> Response {
    refuse(
        StatusCode::NOT_FOUND,
        -32001,
        "the session has ended".into(),
    )
}

/// Routes the answers of the requests among `msgs` (and their progress, for an event stream) to
/// `tx`; the messages to forward. A request whose id is already in flight on the session is
/// answered here with an error, and not forwarded.
pub(super) fn expect_answers(
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
pub(super) struct Shape {
    /// The host takes an event stream.
    pub(super) sse: bool,
    /// The host takes a JSON body too.
    pub(super) json_too: bool,
    /// The POST was a JSON-RPC batch: a JSON body is an array of answers, even of one.
    pub(super) batch: bool,
}

/// The answer to a POST of requests: an event stream or one JSON body, with the `expected`
/// answers that arrive on `rx`. A single answer that comes before anything else is one JSON body
/// when the host takes that, as a stateless request's is: the revisions let the server choose,
/// and a body of known length costs both sides less than a stream (no framing, no keep-alive
/// timer, no chunked encoding). Whatever comes first otherwise (progress, a log, a server→client
/// request) starts the stream.
pub(super) async fn answers(
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
            .rev()
            .find_map(|r| r.status)
            .unwrap_or(StatusCode::OK);
        return json_response(
            status,
            &body(responses.into_iter().map(|r| r.msg).collect()),
        );
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
pub(super) async fn read_body(
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
            refuse(
                StatusCode::BAD_REQUEST,
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

pub(super) fn with_session_header(mut resp: Response, id: Option<&str>) -> Response {
    if let Some(id) = id
        && let Ok(v) = HeaderValue::from_str(id)
    {
        resp.headers_mut().insert(SESSION_HEADER, v);
    }
    resp
}

pub(super) fn event_stream<S: Stream<Item = Value> + Send + Unpin>(
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

pub(super) async fn collect_responses(
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
