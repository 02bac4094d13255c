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

mod app;
mod era_headers;
mod guard;
mod health;
mod options;
mod post;
mod prelude;
mod sessions;
mod stateless;
mod streams;

use app::App;
use app::HostSession;
use health::{healthz, probe_loop, readyz, start_drain};
pub use options::*;
use post::handle_post;
use prelude::*;
use streams::{handle_delete, handle_get};

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

#[cfg(test)]
mod tests {
    use super::app::*;
    use super::era_headers::*;
    use super::guard::*;
    use super::sessions::*;
    use super::stateless::*;
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
