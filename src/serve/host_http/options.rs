//! How the HTTP host side is set up: the address, the bearer token, the limits, the replica
//! tag and the trusted proxies (book: reference/serve.md).

use super::*;

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
