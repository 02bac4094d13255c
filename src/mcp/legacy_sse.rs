//! The legacy HTTP+SSE transport (MCP 2024-11-05): GET an event stream, wait for its `endpoint`
//! event, POST every message there, read every message from the stream.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::spec::HttpSpec;
use super::transport::{
    CloseKind, CloseReason, ConnectError, ConnectOptions, Incoming, InvalidMessage, SendError,
    build_client, describe_error, error_body, error_reply, event_stream, excerpt, header_map,
    parse_incoming, parse_url,
};

pub(crate) struct Shared {
    client: reqwest::Client,
    headers: HeaderMap,
    endpoint: Mutex<Url>,
    tx: mpsc::Sender<Incoming>,
    reader: Mutex<Option<AbortHandle>>,
    closed: AtomicBool,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Deliberately opaque: the headers may hold secrets.
        f.write_str("legacy_sse::Shared")
    }
}

impl Shared {
    fn endpoint(&self) -> Url {
        match self.endpoint.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }
}

/// Resolve the `endpoint` event's data against the stream URL. It must stay on the same origin:
/// otherwise a hostile server could make us POST (with the configured secret headers) elsewhere.
fn resolve_endpoint(base: &Url, data: &str) -> Result<Url, String> {
    let url = base
        .join(data.trim())
        .map_err(|e| format!("bad endpoint {:?}: {e}", excerpt(data, 200)))?;
    if url.origin() != base.origin() {
        return Err(format!(
            "the endpoint {:?} is on another origin than {}; refusing to send messages there",
            excerpt(data, 200),
            base.origin().ascii_serialization()
        ));
    }
    Ok(url)
}

pub(crate) async fn open(
    spec: &HttpSpec,
    opts: &ConnectOptions,
    tx: mpsc::Sender<Incoming>,
) -> Result<Arc<Shared>, ConnectError> {
    let client = build_client(opts)?;
    let url = parse_url(&spec.url)?;
    let headers = header_map(&spec.headers)?;
    let get = client
        .get(url.clone())
        .headers(headers.clone())
        .header(ACCEPT, "text/event-stream")
        .send();
    let resp = tokio::time::timeout(opts.connect_timeout, get)
        .await
        .map_err(|_| {
            ConnectError::Request(format!(
                "no answer to GET {url} within {} s",
                opts.connect_timeout.as_secs_f64()
            ))
        })?
        .map_err(|e| ConnectError::Request(describe_error(&e)))?;
    let status = resp.status();
    if !status.is_success() {
        return Err(ConnectError::Http {
            status: status.as_u16(),
            body: error_body(resp).await,
        });
    }
    let ctype = resp
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !ctype.starts_with("text/event-stream") {
        return Err(ConnectError::NoEndpoint(format!(
            "GET {url} answered with content type {ctype:?}, not text/event-stream (is this a \
             streamable HTTP server? then use transport = \"streamable-http\")"
        )));
    }

    let (endpoint_tx, endpoint_rx) = oneshot::channel::<Result<Url, String>>();
    let max = opts.max_message_bytes;
    let shared_slot: Arc<Mutex<Option<Arc<Shared>>>> = Arc::new(Mutex::new(None));
    let slot = shared_slot.clone();
    let base = url.clone();
    let reader_tx = tx.clone();
    let reader = tokio::spawn(async move {
        let mut endpoint_tx = Some(endpoint_tx);
        let mut events = event_stream(resp, max);
        while let Some(ev) = events.next().await {
            let ev = match ev {
                Ok(ev) => ev,
                Err(e) => {
                    let _ = reader_tx
                        .send(Incoming::Invalid(InvalidMessage::TooLarge {
                            limit: e.limit,
                            prefix: String::new(),
                            probe: crate::json::Probe::default(),
                        }))
                        .await;
                    continue;
                }
            };
            if ev.kind() == "endpoint" {
                let resolved = resolve_endpoint(&base, &ev.data);
                if let Some(t) = endpoint_tx.take() {
                    let _ = t.send(resolved);
                } else if let Ok(u) = resolved
                    && let Some(shared) = lock_slot(&slot)
                    && let Ok(mut g) = shared.endpoint.lock()
                {
                    // A later endpoint event moves the session; follow it.
                    *g = u;
                }
                continue;
            }
            if ev.kind() != "message" || ev.data.trim().is_empty() {
                continue;
            }
            let item = parse_incoming(ev.data.as_bytes());
            if reader_tx.send(item).await.is_err() {
                return;
            }
        }
        let end = events.end_reason();
        if let Some(t) = endpoint_tx.take() {
            let _ = t.send(Err(format!("the stream ended first ({end})")));
            return;
        }
        let closed_by_us = lock_slot(&slot).is_some_and(|s| s.closed.load(Ordering::SeqCst));
        if !closed_by_us {
            let _ = reader_tx
                .send(Incoming::Closed(CloseReason {
                    kind: CloseKind::StreamEnded(end),
                    stderr_tail: Vec::new(),
                }))
                .await;
        }
    });
    let abort = reader.abort_handle();
    let endpoint = match tokio::time::timeout(opts.connect_timeout, endpoint_rx).await {
        Ok(Ok(Ok(u))) => u,
        Ok(Ok(Err(e))) => {
            abort.abort();
            return Err(ConnectError::NoEndpoint(e));
        }
        Ok(Err(_)) => {
            abort.abort();
            return Err(ConnectError::NoEndpoint("the stream reader stopped".into()));
        }
        Err(_) => {
            abort.abort();
            return Err(ConnectError::NoEndpoint(format!(
                "none within {} s",
                opts.connect_timeout.as_secs_f64()
            )));
        }
    };
    let shared = Arc::new(Shared {
        client,
        headers,
        endpoint: Mutex::new(endpoint),
        tx,
        reader: Mutex::new(Some(abort)),
        closed: AtomicBool::new(false),
    });
    if let Ok(mut g) = shared_slot.lock() {
        *g = Some(shared.clone());
    }
    Ok(shared)
}

fn lock_slot(slot: &Mutex<Option<Arc<Shared>>>) -> Option<Arc<Shared>> {
    match slot.lock() {
        Ok(g) => g.clone(),
        Err(p) => p.into_inner().clone(),
    }
}

pub(crate) async fn send(shared: &Arc<Shared>, msg: &Value) -> Result<(), SendError> {
    if shared.closed.load(Ordering::SeqCst) {
        return Err(SendError::Closed);
    }
    let body = crate::json::to_vec(msg);
    let resp = shared
        .client
        .post(shared.endpoint())
        .headers(shared.headers.clone())
        .header(CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| SendError::Request(describe_error(&e)))?;
    let status = resp.status();
    if !status.is_success() {
        let (body, rpc) = error_reply(resp).await;
        return Err(SendError::Http {
            status: status.as_u16(),
            body,
            rpc,
        });
    }
    Ok(())
}

fn stop_reader(shared: &Shared) {
    let handle = match shared.reader.lock() {
        Ok(mut g) => g.take(),
        Err(p) => p.into_inner().take(),
    };
    if let Some(h) = handle {
        h.abort();
    }
}

pub(crate) async fn shutdown(shared: &Arc<Shared>) {
    if shared.closed.swap(true, Ordering::SeqCst) {
        return;
    }
    stop_reader(shared);
    super::transport::report_shutdown(&shared.tx).await;
}

pub(crate) fn abort(shared: &Arc<Shared>) {
    if shared.closed.swap(true, Ordering::SeqCst) {
        return;
    }
    stop_reader(shared);
    super::transport::try_report_shutdown(&shared.tx);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_resolves_relative_and_absolute_same_origin() {
        let base = Url::parse("http://127.0.0.1:9000/sse").unwrap();
        assert_eq!(
            resolve_endpoint(&base, "/messages?sessionId=abc")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9000/messages?sessionId=abc"
        );
        assert_eq!(
            resolve_endpoint(&base, " messages?x=1\n").unwrap().as_str(),
            "http://127.0.0.1:9000/messages?x=1"
        );
        assert_eq!(
            resolve_endpoint(&base, "http://127.0.0.1:9000/m")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9000/m"
        );
    }

    #[test]
    fn endpoint_on_another_origin_is_refused() {
        let base = Url::parse("http://127.0.0.1:9000/sse").unwrap();
        for bad in [
            "http://evil.example/steal",
            "//evil.example/x",
            "https://127.0.0.1:9000/m",
        ] {
            let err = resolve_endpoint(&base, bad).unwrap_err();
            assert!(err.contains("another origin"), "{bad}: {err}");
        }
    }
}
