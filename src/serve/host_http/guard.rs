//! Who may call `/mcp`: the bearer token (compared in constant time), the `Host` header against
//! DNS rebinding, and the `Origin` against other web pages (book: reference/serve.md).

use super::app::*;
use super::options::*;
use super::prelude::*;

/// The headers of a request that passed [`check_request`]: as a handler's argument, the guard runs
/// before the handler reads anything else (the answer is the guard's refusal otherwise).
pub(super) struct Guarded(pub(super) HeaderMap);

impl axum::extract::FromRequestParts<Arc<App>> for Guarded {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        app: &Arc<App>,
    ) -> Result<Guarded, Response> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>();
        match check_request(&app.opts, &parts.headers, peer.map(|p| p.0.ip())) {
            Some(refused) => Err(refused),
            None => Ok(Guarded(parts.headers.clone())),
        }
    }
}

/// Host name of a `Host` header or an origin URL, without port or brackets, lowercased.
pub(super) fn host_part(s: &str) -> String {
    let s = s.split("://").nth(1).unwrap_or(s);
    let s = s.split('/').next().unwrap_or(s);
    let host = if let Some(rest) = s.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        s.rsplit_once(':').map(|(h, _)| h).unwrap_or(s)
    };
    host.to_ascii_lowercase()
}

pub(super) fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Rejects requests a browser page could forge (DNS rebinding, cross-origin) and requests
/// without the bearer token.
///
/// `peer`: the address the request came from. From a trusted proxy, the host the client asked
/// for is `X-Forwarded-Host`, and it is checked like a request to a non-loopback bind (the token
/// is required then, see `set_trusted_proxies`): Origin must be a loopback or the same host.
pub(super) fn check_request(
    opts: &HttpOptions,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
) -> Option<Response> {
    if let Some(token) = &opts.token {
        // RFC 9110: the auth scheme is case-insensitive (`bearer` is as good as `Bearer`).
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim_start_matches(' '))
            .unwrap_or("");
        if !crate::token::constant_time_eq(given.as_bytes(), token.as_bytes()) {
            let mut r = refuse(
                StatusCode::UNAUTHORIZED,
                -32001,
                format!(
                    "missing or wrong bearer token (send `Authorization: Bearer` with the value of {TOKEN_ENV})"
                ),
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Some(r);
        }
    }
    let proxied = peer.is_some_and(|p| opts.trusted_proxies.contains(&p));
    let forwarded = proxied
        .then(|| headers.get("x-forwarded-host"))
        .flatten()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(str::trim);
    let host = forwarded
        .or_else(|| headers.get(header::HOST).and_then(|v| v.to_str().ok()))
        .map(host_part);
    let loopback_bind = opts.addr.ip().is_loopback();
    if loopback_bind && !proxied {
        let ok = host.as_deref().is_some_and(|h| {
            is_loopback_name(h) || h.parse::<IpAddr>().is_ok_and(|ip| ip == opts.addr.ip())
        });
        if !ok {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                -32001,
                "Host header is not a loopback name: refused (DNS rebinding protection)".into(),
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("null");
        let o = host_part(origin);
        let same_host = host.as_deref().is_some_and(|h| h == o);
        if origin == "null" || !(is_loopback_name(&o) || same_host) {
            return Some(refuse(
                StatusCode::FORBIDDEN,
                -32001,
                "Origin not allowed: only loopback and same-host origins may call this server"
                    .into(),
            ));
        }
    }
    None
}
