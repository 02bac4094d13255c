//! The streamable HTTP transport (MCP 2025-06-18): one POST per message, answered by JSON or an
//! SSE stream, a session id, and an optional GET stream for server-initiated messages.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::era;
use super::spec::HttpSpec;
use super::transport::{
    ConnectError, ConnectOptions, Incoming, InvalidMessage, SendError, build_client, content_type,
    describe_error, error_reply, event_stream, header_map, parse_incoming, parse_url,
};
use crate::json::{IdScanner, Probe};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
/// How long a `notifications/initialized` send waits for the GET stream to be open.
const GET_STREAM_WAIT: Duration = Duration::from_secs(10);

pub(crate) struct Shared {
    client: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    max: usize,
    tx: mpsc::Sender<Incoming>,
    state: Mutex<State>,
    tasks: Mutex<Vec<AbortHandle>>,
    closed: AtomicBool,
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    protocol_version: Option<String>,
    /// The id of the `initialize` request in flight, to spot its result.
    init_id: Option<Value>,
    get_stream_started: bool,
    /// Ids of stateless `tools/list` requests in flight, to learn `x-mcp-header` annotations.
    tools_list_ids: std::collections::HashSet<String>,
    /// Tool name → `inputSchema`, for tools whose schema mirrors parameters into headers.
    header_schemas: std::collections::HashMap<String, Value>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Deliberately opaque: the headers may hold secrets.
        f.write_str("http::Shared")
    }
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn track(&self, handle: AbortHandle) {
        let mut tasks = match self.tasks.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        tasks.retain(|t| !t.is_finished());
        // A send racing with shutdown must not leave a reader behind.
        if self.closed.load(Ordering::SeqCst) {
            handle.abort();
            return;
        }
        tasks.push(handle);
    }

    /// Headers of a POST carrying `msg`: the session's, or for a stateless (2026-07-28)
    /// message the headers the revision requires (`MCP-Protocol-Version` from its `_meta`,
    /// `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` from the tool's `x-mcp-header`s).
    fn message_headers(&self, msg: &Value) -> HeaderMap {
        let Some(version) = era::claimed_version(msg).filter(|v| era::is_modern_version(v)) else {
            return self.request_headers();
        };
        let mut h = self.headers.clone();
        let mut put = |name: &str, value: &str| {
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                h.insert(n, v);
            }
        };
        put(era::HEADER_PROTOCOL_VERSION, version);
        if let Some(method) = msg.get("method").and_then(Value::as_str) {
            put(era::HEADER_METHOD, &era::header_value(method));
        }
        if let Some(name) = era::name_source(msg) {
            put(era::HEADER_NAME, &era::header_value(name));
        }
        if msg.get("method").and_then(Value::as_str) == Some("tools/call")
            && let Some(tool) = msg.pointer("/params/name").and_then(Value::as_str)
        {
            let st = self.state();
            if let Some(schema) = st.header_schemas.get(tool) {
                for (k, v) in era::param_headers(schema, msg.pointer("/params/arguments")) {
                    put(&k, &v);
                }
            }
        }
        h
    }

    /// Headers every request carries: configured ones, then the session's.
    fn request_headers(&self) -> HeaderMap {
        let mut h = self.headers.clone();
        let st = self.state();
        if let Some(sid) = &st.session_id
            && let Ok(v) = HeaderValue::from_str(sid)
        {
            h.insert(HeaderName::from_static(SESSION_HEADER), v);
        }
        if let Some(ver) = &st.protocol_version
            && let Ok(v) = HeaderValue::from_str(ver)
        {
            h.insert(HeaderName::from_static(VERSION_HEADER), v);
        }
        h
    }

    /// Learns the negotiated protocol version from the `initialize` result, and the
    /// `x-mcp-header` annotations of listed tools.
    fn observe(&self, msg: &Value) {
        let mut st = self.state();
        if !st.tools_list_ids.is_empty()
            && msg.get("method").is_none()
            && let Some(id) = msg.get("id")
            && st.tools_list_ids.remove(&id.to_string())
            && let Some(tools) = msg.pointer("/result/tools").and_then(Value::as_array)
        {
            for t in tools {
                if let (Some(name), Some(schema)) =
                    (t.get("name").and_then(Value::as_str), t.get("inputSchema"))
                    && schema.to_string().contains("x-mcp-header")
                {
                    st.header_schemas.insert(name.to_string(), schema.clone());
                }
            }
        }
        let Some(init_id) = &st.init_id else { return };
        if msg.get("id") != Some(init_id) {
            return;
        }
        if let Some(ver) = msg
            .get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            st.protocol_version = Some(ver.to_string());
        }
        st.init_id = None;
    }
}

pub(crate) fn open(
    spec: &HttpSpec,
    opts: &ConnectOptions,
    tx: mpsc::Sender<Incoming>,
) -> Result<Arc<Shared>, ConnectError> {
    Ok(Arc::new(Shared {
        client: build_client(opts)?,
        url: parse_url(&spec.url)?,
        headers: header_map(&spec.headers)?,
        max: opts.max_message_bytes,
        tx,
        state: Mutex::new(State::default()),
        tasks: Mutex::new(Vec::new()),
        closed: AtomicBool::new(false),
    }))
}

/// An answer still to be read: the body of a POST's 2xx response, and the request it answers.
struct Answer {
    resp: reqwest::Response,
    sse: bool,
    awaiting: Option<Value>,
}

impl Answer {
    async fn read(self, shared: &Shared) {
        if self.sse {
            read_sse(shared, self.resp, self.awaiting).await;
        } else {
            read_json(shared, self.resp, self.awaiting).await;
        }
    }
}

/// Sends `msg`; returns once the upstream has answered the POST's headers. Its answer body, if
/// any, is read on a task of its own and arrives on the receiver.
pub(crate) async fn send(shared: &Arc<Shared>, msg: &Value) -> Result<(), SendError> {
    if let Some(answer) = post(shared, msg).await? {
        let s = Arc::clone(shared);
        let task = tokio::spawn(async move { answer.read(&s).await });
        shared.track(task.abort_handle());
    }
    Ok(())
}

/// Sends a request on a task of its own, which then reads the answer too: one task per request
/// instead of one for the POST and another for its answer. A send that fails goes to
/// `on_error`. The task is stopped with the connection, like every reader.
pub(crate) fn spawn_request(
    shared: &Arc<Shared>,
    msg: Value,
    on_error: impl FnOnce(SendError) + Send + 'static,
) {
    use tracing::Instrument as _;
    let s = Arc::clone(shared);
    let task = tokio::spawn(
        async move {
            match post(&s, &msg).await {
                Ok(Some(answer)) => answer.read(&s).await,
                Ok(None) => {}
                Err(e) => on_error(e),
            }
        }
        .instrument(tracing::Span::current()),
    );
    shared.track(task.abort_handle());
}

/// One POST: `Some` answer to read when the upstream answered with a body (not 202).
async fn post(shared: &Arc<Shared>, msg: &Value) -> Result<Option<Answer>, SendError> {
    if shared.closed.load(Ordering::SeqCst) {
        return Err(SendError::Closed);
    }
    let method = msg.get("method").and_then(Value::as_str);
    if method == Some("initialize")
        && let Some(id) = msg.get("id")
    {
        shared.state().init_id = Some(id.clone());
    }
    if method == Some("tools/list")
        && era::is_modern_message(msg)
        && let Some(id) = msg.get("id")
    {
        shared.state().tools_list_ids.insert(id.to_string());
    }
    let body = crate::json::to_vec(msg);
    let resp = shared
        .client
        .post(shared.url.clone())
        .headers(shared.message_headers(msg))
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(body)
        .send()
        .await
        .map_err(|e| SendError::Request(describe_error(&e)))?;
    if let Some(sid) = resp
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        shared.state().session_id = Some(sid.to_string());
    }
    let status = resp.status();
    if !status.is_success() {
        if let Some(id) = msg.get("id") {
            shared.state().tools_list_ids.remove(&id.to_string());
        }
        let (body, rpc) = error_reply(resp).await;
        return Err(SendError::Http {
            status: status.as_u16(),
            body,
            rpc,
        });
    }
    let answer = (status != StatusCode::ACCEPTED).then(|| Answer {
        sse: content_type(&resp).starts_with("text/event-stream"),
        awaiting: msg
            .get("method")
            .and(msg.get("id"))
            .filter(|id| !id.is_null())
            .cloned(),
        resp,
    });
    if method == Some("notifications/initialized") {
        // The upstream may send a server→client request (sampling, elicitation, roots) on the
        // GET stream as soon as it gets our next request; an SDK server drops such a request
        // when no GET stream is open yet. So nothing more is sent until the stream is open (or
        // the server said it has none).
        let opened = start_get_stream(shared);
        let _ = tokio::time::timeout(GET_STREAM_WAIT, opened).await;
    }
    Ok(answer)
}

async fn deliver(shared: &Shared, item: Incoming) {
    if let Incoming::Message(m) = &item {
        shared.observe(m);
    }
    let _ = shared.tx.send(item).await;
}

/// What an oversized or unreadable answer to the request `awaiting` still tells: its own id if
/// it could be found, else the id of the request the POST carried.
fn probe_or_awaiting(mut probe: Probe, awaiting: Option<&Value>) -> Probe {
    if probe.id.is_none()
        && let Some(id) = awaiting
    {
        probe.id = Some(id.clone());
        probe.method = None;
        probe.response = true;
    }
    probe
}

async fn read_json(shared: &Shared, resp: reqwest::Response, awaiting: Option<Value>) {
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    let mut too_large: Option<IdScanner> = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(c) => {
                if let Some(scanner) = &mut too_large {
                    scanner.feed(&c);
                    continue;
                }
                if buf.len() + c.len() > shared.max {
                    let mut scanner = IdScanner::new();
                    scanner.feed(&buf);
                    scanner.feed(&c);
                    too_large = Some(scanner);
                    buf.truncate(200);
                } else {
                    buf.extend_from_slice(&c);
                }
            }
            Err(e) => {
                tracing::warn!(
                    "reading an HTTP response from the upstream failed: {}",
                    describe_error(&e)
                );
                return;
            }
        }
    }
    if let Some(scanner) = too_large {
        deliver(
            shared,
            Incoming::Invalid(InvalidMessage::TooLarge {
                limit: shared.max,
                prefix: String::from_utf8_lossy(&buf).into_owned(),
                probe: probe_or_awaiting(scanner.finish(), awaiting.as_ref()),
            }),
        )
        .await;
        return;
    }
    if buf.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    deliver(shared, parse_message(&buf, awaiting.as_ref())).await;
}

fn parse_message(bytes: &[u8], awaiting: Option<&Value>) -> Incoming {
    match parse_incoming(bytes) {
        Incoming::Invalid(InvalidMessage::NotJson { text, error, probe }) => {
            Incoming::Invalid(InvalidMessage::NotJson {
                text,
                error,
                probe: probe_or_awaiting(probe, awaiting),
            })
        }
        other => other,
    }
}

/// Give up resuming a stream after this many reconnections in a row that brought nothing.
const MAX_EMPTY_RESUMES: u32 = 3;

/// Reads an SSE stream: the answer to the request `awaiting`, or (with `None`) the GET stream.
/// If it ends before the answer came and the server gave event ids, it is resumed with a GET
/// carrying `Last-Event-ID`, as the spec allows servers to close streams early.
async fn read_sse(shared: &Shared, resp: reqwest::Response, awaiting: Option<Value>) {
    let mut resp = resp;
    let mut empty_resumes = 0;
    loop {
        let mut events = event_stream(resp, shared.max);
        let mut answered = false;
        let mut progressed = false;
        while let Some(ev) = events.next().await {
            progressed = true;
            match ev {
                Ok(ev) => {
                    // Priming events carry an id and empty data; only real payloads are messages.
                    if ev.data.trim().is_empty() {
                        continue;
                    }
                    let item =
                        parse_message(ev.data.as_bytes(), awaiting.as_ref().filter(|_| !answered));
                    if let (Incoming::Message(m), Some(id)) = (&item, &awaiting)
                        && m.get("method").is_none()
                        && m.get("id") == Some(id)
                    {
                        answered = true;
                    }
                    deliver(shared, item).await;
                }
                Err(e) => {
                    // The event is gone unread; on a POST's stream it most likely was the
                    // answer, and the request must not wait for it forever.
                    let probe = probe_or_awaiting(
                        Probe::default(),
                        awaiting.as_ref().filter(|_| !answered),
                    );
                    answered |= probe.id.is_some();
                    deliver(
                        shared,
                        Incoming::Invalid(InvalidMessage::TooLarge {
                            limit: e.limit,
                            prefix: String::new(),
                            probe,
                        }),
                    )
                    .await;
                }
            }
        }
        tracing::debug!("upstream SSE stream ended: {}", events.end_reason());
        let Some(last_id) = events.last_event_id().map(str::to_string) else {
            return;
        };
        if answered || shared.closed.load(Ordering::SeqCst) {
            return;
        }
        empty_resumes = if progressed { 0 } else { empty_resumes + 1 };
        if empty_resumes > MAX_EMPTY_RESUMES {
            tracing::warn!("gave up resuming an upstream SSE stream");
            return;
        }
        let delay = Duration::from_millis(events.retry().unwrap_or(1000).min(10_000));
        tokio::time::sleep(delay).await;
        let Ok(value) = HeaderValue::from_str(&last_id) else {
            return;
        };
        let next = shared
            .client
            .get(shared.url.clone())
            .headers(shared.request_headers())
            .header(ACCEPT, "text/event-stream")
            .header(HeaderName::from_static("last-event-id"), value)
            .send()
            .await;
        match next {
            Ok(r)
                if r.status().is_success() && content_type(&r).starts_with("text/event-stream") =>
            {
                resp = r;
            }
            Ok(r) => {
                tracing::debug!(
                    "upstream refused to resume an SSE stream: HTTP {}",
                    r.status()
                );
                return;
            }
            Err(e) => {
                tracing::debug!(
                    "resuming an upstream SSE stream failed: {}",
                    describe_error(&e)
                );
                return;
            }
        }
    }
}

/// Opens the optional GET stream once; a 405 means the server has none, which is fine. The
/// returned receiver fires once the server answered the GET (stream open, or refused).
fn start_get_stream(shared: &Arc<Shared>) -> tokio::sync::oneshot::Receiver<()> {
    let (opened_tx, opened_rx) = tokio::sync::oneshot::channel();
    {
        let mut st = shared.state();
        if st.get_stream_started {
            let _ = opened_tx.send(());
            return opened_rx;
        }
        st.get_stream_started = true;
    }
    let s = shared.clone();
    let task = tokio::spawn(async move {
        let resp = s
            .client
            .get(s.url.clone())
            .headers(s.request_headers())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await;
        let _ = opened_tx.send(());
        match resp {
            Ok(r)
                if r.status().is_success() && content_type(&r).starts_with("text/event-stream") =>
            {
                read_sse(&s, r, None).await;
            }
            Ok(r) if r.status() == StatusCode::METHOD_NOT_ALLOWED => {}
            Ok(r) => tracing::debug!("upstream GET stream not available: HTTP {}", r.status()),
            Err(e) => tracing::debug!("upstream GET stream failed: {}", describe_error(&e)),
        }
    });
    shared.track(task.abort_handle());
    opened_rx
}

fn abort_tasks(shared: &Shared) {
    let tasks = match shared.tasks.lock() {
        Ok(mut g) => std::mem::take(&mut *g),
        Err(p) => std::mem::take(&mut *p.into_inner()),
    };
    for t in tasks {
        t.abort();
    }
}

pub(crate) async fn shutdown(shared: &Arc<Shared>) {
    if shared.closed.swap(true, Ordering::SeqCst) {
        return;
    }
    abort_tasks(shared);
    let sid = shared.state().session_id.clone();
    if sid.is_some() {
        // A courtesy: the server may free the session now. 405 means it doesn't support it.
        let req = shared
            .client
            .delete(shared.url.clone())
            .headers(shared.request_headers())
            .send();
        let _ = tokio::time::timeout(Duration::from_secs(2), req).await;
    }
    super::transport::report_shutdown(&shared.tx).await;
}

/// The synchronous part of shutdown, for `Drop`: stop reading, and DELETE the session in the
/// background when a runtime is still there.
pub(crate) fn abort(shared: &Arc<Shared>) {
    if shared.closed.swap(true, Ordering::SeqCst) {
        return;
    }
    abort_tasks(shared);
    super::transport::try_report_shutdown(&shared.tx);
    if shared.state().session_id.is_some()
        && let Ok(handle) = tokio::runtime::Handle::try_current()
    {
        let req = shared
            .client
            .delete(shared.url.clone())
            .headers(shared.request_headers())
            .send();
        handle.spawn(async move {
            let _ = tokio::time::timeout(Duration::from_secs(2), req).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_bad_header_is_named_without_its_value() {
        let headers = BTreeMap::from([(
            "Authorization".to_string(),
            "Bearer sk-secret\nInjected: yes".to_string(),
        )]);
        let err = header_map(&headers).unwrap_err().to_string();
        assert!(err.contains("Authorization"), "{err}");
        assert!(!err.contains("sk-secret"), "{err}");
    }

    #[test]
    fn header_values_are_marked_sensitive_and_not_debug_printed() {
        let headers = BTreeMap::from([("X-Api-Key".to_string(), "sk-secret".to_string())]);
        let map = header_map(&headers).unwrap();
        assert!(map.values().all(HeaderValue::is_sensitive));
        assert!(!format!("{map:?}").contains("sk-secret"));
    }

    #[test]
    fn only_http_urls_are_accepted() {
        assert!(parse_url("http://127.0.0.1:1/mcp").is_ok());
        assert!(parse_url("https://example.com/mcp").is_ok());
        for bad in ["ftp://x/mcp", "file:///etc/passwd", "not a url", ""] {
            assert!(parse_url(bad).is_err(), "{bad}");
        }
    }
}
