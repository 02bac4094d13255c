//! Who may talk to the preview server (book: reference/security.md, "preview"): the secret token, the `Host` header (against
//! DNS rebinding) and the `Origin` / `Sec-Fetch-Site` headers (against other web pages).
//!
//! The server calls tools on a live upstream, so any web page the user has open must not be able
//! to make it do so: it cannot know the token, a rebinding page has the wrong `Host`, and a
//! cross-origin POST carries a foreign `Origin`.

use axum::http::{HeaderMap, Method, header};

/// Why a request is refused. Everything that lacks the token is answered 404, so a scan learns
/// nothing about the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No token, or a wrong one.
    NoToken,
    /// A `Host` other than this server's loopback address (DNS rebinding).
    BadHost(String),
    /// An `Origin` (or fetch metadata) saying another site sent the request.
    CrossOrigin(String),
    /// A state-changing request without the headers only our own page sends.
    NotOurPage(&'static str),
}

impl Denied {
    /// A short reason for the server's log (never contains the token).
    pub fn describe(&self) -> String {
        match self {
            Denied::NoToken => "no valid token".into(),
            Denied::BadHost(h) => format!("foreign Host header {h:?}"),
            Denied::CrossOrigin(o) => format!("cross-origin request from {o:?}"),
            Denied::NotOurPage(why) => (*why).into(),
        }
    }
}

/// The checks, bound to one server's token and port.
#[derive(Clone)]
pub struct Guard {
    token: String,
    port: u16,
}

impl Guard {
    pub fn new(token: String, port: u16) -> Guard {
        Guard { token, port }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Checks one request. `state_changing` marks the endpoints that reach the upstream: they
    /// also need an `Origin` of our own (browsers always send one on POST) and a JSON body.
    pub fn check(
        &self,
        method: &Method,
        query: Option<&str>,
        headers: &HeaderMap,
        state_changing: bool,
    ) -> Result<(), Denied> {
        let host = header_str(headers, header::HOST.as_str()).unwrap_or_default();
        if !self.is_our_host(host) {
            return Err(Denied::BadHost(crate::mcp::excerpt(host, 100)));
        }
        let given = query
            .map(parse_query)
            .and_then(|q| q.into_iter().find(|(k, _)| k == "token").map(|(_, v)| v))
            .unwrap_or_default();
        if !crate::token::constant_time_eq(given.as_bytes(), self.token.as_bytes()) {
            return Err(Denied::NoToken);
        }
        if let Some(origin) = header_str(headers, header::ORIGIN.as_str())
            && !self.is_our_origin(origin)
        {
            return Err(Denied::CrossOrigin(crate::mcp::excerpt(origin, 100)));
        }
        // Fetch metadata: `none` is a typed URL or bookmark; `same-origin` is our own page.
        if let Some(site) = header_str(headers, "sec-fetch-site")
            && site != "same-origin"
            && site != "none"
        {
            return Err(Denied::CrossOrigin(format!("Sec-Fetch-Site: {site}")));
        }
        if state_changing {
            if method != Method::POST {
                return Err(Denied::NotOurPage("this endpoint only accepts POST"));
            }
            if header_str(headers, header::ORIGIN.as_str()).is_none() {
                return Err(Denied::NotOurPage("a POST without an Origin header"));
            }
            // A cross-site form or `no-cors` fetch cannot send application/json.
            let ct = header_str(headers, header::CONTENT_TYPE.as_str()).unwrap_or_default();
            let mime = ct.split(';').next().unwrap_or_default().trim();
            if !mime.eq_ignore_ascii_case("application/json") {
                return Err(Denied::NotOurPage("the body must be application/json"));
            }
        }
        Ok(())
    }

    fn is_our_host(&self, host: &str) -> bool {
        let port = self.port;
        host.eq_ignore_ascii_case(&format!("127.0.0.1:{port}"))
            || host.eq_ignore_ascii_case(&format!("localhost:{port}"))
    }

    fn is_our_origin(&self, origin: &str) -> bool {
        let port = self.port;
        origin.eq_ignore_ascii_case(&format!("http://127.0.0.1:{port}"))
            || origin.eq_ignore_ascii_case(&format!("http://localhost:{port}"))
    }
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// A fresh random token: 128 bits from the OS, as lowercase hex.
pub fn new_token() -> Result<String, getrandom::Error> {
    crate::token::random_hex(16)
}

/// Splits a query string into decoded pairs (`+` is a space, `%XX` a byte; bad escapes are kept
/// as they are, invalid UTF-8 becomes U+FFFD).
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(v) = hex {
                    out.push(v);
                    i += 3;
                    continue;
                }
                out.push(b'%');
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn guard() -> Guard {
        Guard::new("a".repeat(32), 4242)
    }

    #[test]
    fn tokens_are_random_hex() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn the_token_is_required() {
        let g = guard();
        let h = headers(&[("host", "127.0.0.1:4242")]);
        let ok = format!("token={}", "a".repeat(32));
        assert_eq!(g.check(&Method::GET, Some(&ok), &h, false), Ok(()));
        for bad in [
            None,
            Some(""),
            Some("token="),
            Some("token=aaaa"),
            Some("x=1"),
        ] {
            assert_eq!(
                g.check(&Method::GET, bad, &h, false),
                Err(Denied::NoToken),
                "{bad:?}"
            );
        }
        let wrong = format!("token={}b", "a".repeat(31));
        assert_eq!(
            g.check(&Method::GET, Some(&wrong), &h, false),
            Err(Denied::NoToken)
        );
    }

    #[test]
    fn foreign_hosts_and_origins_are_refused() {
        let g = guard();
        let q = format!("tool=x&token={}", "a".repeat(32));
        let rebinding = headers(&[("host", "evil.example:4242")]);
        assert!(matches!(
            g.check(&Method::GET, Some(&q), &rebinding, false),
            Err(Denied::BadHost(_))
        ));
        let other_port = headers(&[("host", "127.0.0.1:4243")]);
        assert!(g.check(&Method::GET, Some(&q), &other_port, false).is_err());
        let no_host = HeaderMap::new();
        assert!(g.check(&Method::GET, Some(&q), &no_host, false).is_err());
        for origin in ["http://evil.example", "null", "http://127.0.0.1:4243"] {
            let h = headers(&[("host", "127.0.0.1:4242"), ("origin", origin)]);
            assert!(
                matches!(
                    g.check(&Method::GET, Some(&q), &h, false),
                    Err(Denied::CrossOrigin(_))
                ),
                "{origin}"
            );
        }
        let h = headers(&[("host", "localhost:4242"), ("sec-fetch-site", "cross-site")]);
        assert!(g.check(&Method::GET, Some(&q), &h, false).is_err());
    }

    #[test]
    fn tool_calls_need_a_json_post_from_our_page() {
        let g = guard();
        let q = format!("token={}", "a".repeat(32));
        let ours = [
            ("host", "127.0.0.1:4242"),
            ("origin", "http://127.0.0.1:4242"),
            ("content-type", "application/json; charset=utf-8"),
            ("sec-fetch-site", "same-origin"),
        ];
        assert_eq!(
            g.check(&Method::POST, Some(&q), &headers(&ours), true),
            Ok(())
        );
        assert!(
            g.check(&Method::GET, Some(&q), &headers(&ours), true)
                .is_err()
        );
        let no_origin = headers(&[
            ("host", "127.0.0.1:4242"),
            ("content-type", "application/json"),
        ]);
        assert!(g.check(&Method::POST, Some(&q), &no_origin, true).is_err());
        let form = headers(&[
            ("host", "127.0.0.1:4242"),
            ("origin", "http://127.0.0.1:4242"),
            ("content-type", "text/plain"),
        ]);
        assert!(g.check(&Method::POST, Some(&q), &form, true).is_err());
    }

    #[test]
    fn queries_are_decoded() {
        assert_eq!(
            parse_query("tool=a%2Fb+c&widget=%E2%9C%93&bad=%zz&token"),
            vec![
                ("tool".to_string(), "a/b c".to_string()),
                ("widget".to_string(), "✓".to_string()),
                ("bad".to_string(), "%zz".to_string()),
                ("token".to_string(), String::new()),
            ]
        );
        assert_eq!(parse_query("x=%"), vec![("x".into(), "%".into())]);
        assert_eq!(parse_query("x=%F"), vec![("x".into(), "%F".into())]);
    }
}
