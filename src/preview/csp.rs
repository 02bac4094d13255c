//! The Content-Security-Policy a previewed UI runs under: the MCP Apps default, widened only by
//! the origins the tool's `[tools.NAME] csp` declares, as a real host would.

use crate::config::CspConfig;

/// The host default when a resource declares no CSP (SEP-1865).
pub const DEFAULT_APP_CSP: &str = "default-src 'none'; script-src 'self' 'unsafe-inline'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; \
    connect-src 'none'";

/// The policy for one tool's UI, and a warning for each declared origin that was dropped.
pub fn app_csp(csp: &CspConfig) -> (String, Vec<String>) {
    if csp.is_empty() {
        return (DEFAULT_APP_CSP.to_string(), Vec::new());
    }
    let mut warnings = Vec::new();
    let mut clean = |key: &str, list: &[String]| -> String {
        let mut out = String::new();
        for d in list {
            if valid_source(d) {
                out.push(' ');
                out.push_str(d);
            } else {
                warnings.push(format!(
                    "csp.{key}: ignored {:?}: not an origin such as https://api.example.com or https://*.example.com",
                    crate::mcp::excerpt(d, 100)
                ));
            }
        }
        out
    };
    let res = clean("resource_domains", &csp.resource_domains);
    let connect = clean("connect_domains", &csp.connect_domains);
    let frame = clean("frame_domains", &csp.frame_domains);
    let base = clean("base_uri_domains", &csp.base_uri_domains);
    let or_none = |s: &str| {
        if s.is_empty() {
            " 'none'".to_string()
        } else {
            s.to_string()
        }
    };
    let policy = format!(
        "default-src 'none'; script-src 'self' 'unsafe-inline'{res}; \
         style-src 'self' 'unsafe-inline'{res}; img-src 'self' data:{res}; \
         font-src 'self'{res}; media-src 'self' data:{res}; connect-src{}; frame-src{}; \
         base-uri {}",
        or_none(&connect),
        or_none(&frame),
        if base.is_empty() {
            "'self'".to_string()
        } else {
            base.trim().to_string()
        },
    );
    (policy, warnings)
}

/// The same declaration as MCP Apps' `_meta.ui.csp` (camelCase), for the host context.
pub fn declared_json(csp: &CspConfig) -> serde_json::Value {
    serde_json::json!({
        "connectDomains": csp.connect_domains,
        "resourceDomains": csp.resource_domains,
        "frameDomains": csp.frame_domains,
        "baseUriDomains": csp.base_uri_domains,
    })
}

/// A CSP host-source: an http(s)/ws(s) origin, optionally with a `*.` subdomain wildcard and a
/// path, that `Origins` reads the same way the validator does. Anything else (keywords, `*`,
/// spaces, `;`) could rewrite the policy, so it is refused.
fn valid_source(s: &str) -> bool {
    if !crate::origins::Origins::parses(s) {
        return false;
    }
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    if !matches!(scheme, "http" | "https" | "ws" | "wss") {
        return false;
    }
    let host_port = rest.split('/').next().unwrap_or_default();
    let host = host_port.rsplit_once(':').map_or(host_port, |(h, port)| {
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            // Not a port: keep it in the host so the check below refuses it.
            host_port
        }
    });
    let host = host.strip_prefix("*.").unwrap_or(host);
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~/:*%".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_declaration_gives_the_spec_default() {
        let (p, w) = app_csp(&CspConfig::default());
        assert_eq!(p, DEFAULT_APP_CSP);
        assert!(w.is_empty());
        assert!(p.contains("connect-src 'none'"));
    }

    #[test]
    fn declared_origins_widen_only_their_directives() {
        let csp = CspConfig {
            connect_domains: vec!["https://api.example.com".into()],
            resource_domains: vec!["https://*.cdn.example".into()],
            ..Default::default()
        };
        let (p, w) = app_csp(&csp);
        assert!(w.is_empty(), "{w:?}");
        assert!(p.contains("connect-src https://api.example.com;"), "{p}");
        assert!(p.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example;"));
        assert!(p.contains("img-src 'self' data: https://*.cdn.example;"));
        assert!(p.contains("frame-src 'none'"));
        assert!(p.ends_with("base-uri 'self'"));
    }

    #[test]
    fn values_that_could_rewrite_the_policy_are_dropped() {
        let csp = CspConfig {
            connect_domains: vec![
                "https://ok.example:8443/api".into(),
                "https://x.example; script-src *".into(),
                "*".into(),
                "'unsafe-eval'".into(),
                "javascript://x".into(),
                "https://a b".into(),
            ],
            ..Default::default()
        };
        let (p, w) = app_csp(&csp);
        assert_eq!(w.len(), 5, "{w:?}");
        assert!(
            p.contains("connect-src https://ok.example:8443/api;"),
            "{p}"
        );
        assert!(!p.contains("unsafe-eval"));
        assert_eq!(p.matches("script-src").count(), 1);
    }
}
