//! How the HTTP host side is set up: the address, the bearer token, the limits, the replica
//! tag and the trusted proxies (book: reference/serve.md).

use super::prelude::*;

/// The environment variable holding the bearer token.
pub const TOKEN_ENV: &str = "MCP_GEN_UI_TOKEN";

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// 2025-era host sessions open at once by default; more are refused with 503 rather than
/// exhausting the machine (`--max-sessions`, `[serve] max_sessions`).
pub const DEFAULT_MAX_SESSIONS: usize = 64;

/// Messages kept for a session that has no stream open to receive them.
pub(super) const MAX_BACKLOG: usize = 1000;

pub(super) const SESSION_HEADER: &str = "mcp-session-id";

pub(super) const REQUEST_ID_HEADER: &str = "x-request-id";

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
pub(super) const EVICT_WAIT: Duration = Duration::from_secs(10);

/// How long a SIGTERM or Ctrl-C waits for requests in flight before `serve` exits anyway.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// `/readyz` probes: the first retry after a failed probe, doubled up to the longest.
pub(super) const PROBE_RETRY_MIN: Duration = Duration::from_secs(1);

pub(super) const PROBE_RETRY_MAX: Duration = Duration::from_secs(30);

/// Probes after a session's upstream failed are at least this far apart.
pub(super) const PROBE_SPACING: Duration = Duration::from_secs(1);

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
