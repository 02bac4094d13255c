//! Where a URL points (inline data, relative, a remote origin, or script) and whether a remote
//! origin is one the tool declared in its `[tools.NAME] csp`: the one meaning of "allowed
//! origin" that `generate` (the llm post-processing), `validate`, `check` and `preview` share
//! (book: reference/validator.md, "Origins").
//!
//! A declared origin is `scheme://host[:port]` (any path is ignored), `scheme://*.host[:port]`
//! (any subdomain, not the host itself), `scheme://*` or a bare `host[:port]` (any scheme). A
//! port is matched exactly, the scheme's default port (80 for http/ws, 443 for https/wss) being
//! the same as none; `:*` allows any port.

use crate::config::CspConfig;

/// What a URL loads from, as far as the host's CSP is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `data:`/`blob:` or an in-page `#fragment`: nothing is fetched from the network.
    Inline,
    /// No scheme: resolves against nothing useful inside a sandboxed srcdoc frame.
    Relative,
    /// A fetch from this origin (`scheme://host[:port]`, lowercase, without a default port), or
    /// `scheme:` for a scheme that has no host.
    Remote(String),
    /// `javascript:`/`vbscript:`: runs code instead of loading anything.
    Script,
}

/// Applies the URL parser's own clean-up (strip C0/space at the ends, drop tabs and newlines
/// anywhere) so tricks like `java\tscript:` or ` JaVaScRiPt:` are seen as the browser sees them.
pub fn normalize(url: &str) -> String {
    url.trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect()
}

/// True for a URL the browser would execute as script.
pub fn is_script_url(url: &str) -> bool {
    matches!(classify(url), Target::Script)
}

/// Where `url` loads from.
pub fn classify(url: &str) -> Target {
    let url = normalize(url);
    if url.is_empty() || url.starts_with('#') {
        return Target::Inline;
    }
    if let Some(rest) = url.strip_prefix("//").or_else(|| url.strip_prefix("\\\\")) {
        // Protocol-relative: inside a srcdoc frame the scheme would be inherited; assume https.
        return Target::Remote(origin_of("https", rest));
    }
    let Some((scheme, rest)) = split_scheme(&url) else {
        return Target::Relative;
    };
    match scheme.as_str() {
        "data" | "blob" | "about" => Target::Inline,
        "javascript" | "vbscript" | "livescript" => Target::Script,
        "http" | "https" | "ws" | "wss" => {
            Target::Remote(origin_of(&scheme, rest.trim_start_matches(['/', '\\'])))
        }
        _ => Target::Remote(format!("{scheme}:")),
    }
}

/// `scheme:` per the URL standard (a letter, then letters, digits, `+`, `-`, `.`), lowercased.
fn split_scheme(url: &str) -> Option<(String, &str)> {
    let colon = url.find(':')?;
    let scheme = url.get(..colon)?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    if !first.is_ascii_alphabetic()
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    Some((
        scheme.to_ascii_lowercase(),
        url.get(colon + 1..).unwrap_or(""),
    ))
}

/// `scheme://host[:port]` from what follows `scheme://`: no userinfo, lowercase, and no port
/// when it is the scheme's default (the URL parser drops it too).
fn origin_of(scheme: &str, rest: &str) -> String {
    let (host, port) = host_port(authority(rest));
    match port {
        Some(p) if Some(p) != default_port(scheme) => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    }
}

/// The `host[:port]` of an authority, without userinfo, lowercased.
fn authority(rest: &str) -> String {
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let auth = rest.get(..end).unwrap_or(rest);
    let host = auth.rsplit('@').next().unwrap_or(auth);
    host.to_ascii_lowercase()
}

/// Splits `host:port` when the part after the last colon is a number (an IPv6 literal's colons
/// sit inside brackets).
fn host_port(auth: String) -> (String, Option<u32>) {
    if let Some((h, p)) = auth.rsplit_once(':')
        && !h.ends_with('[')
        && !p.is_empty()
        && p.len() <= 5
        && p.bytes().all(|b| b.is_ascii_digit())
        && (!h.starts_with('[') || h.ends_with(']'))
    {
        return (h.to_string(), p.parse().ok());
    }
    (auth, None)
}

fn default_port(scheme: &str) -> Option<u32> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

/// The port part of a declared origin.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Port {
    /// None written: the scheme's default port only (any port of a scheme without a default).
    Default,
    Exact(u32),
    /// `:*`.
    Any,
}

/// One declared origin, parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Declared {
    /// `None` for a bare host: any scheme.
    scheme: Option<String>,
    /// `*` (any host), `*.suffix` (any subdomain of `suffix`), or a host.
    host: String,
    port: Port,
}

impl Declared {
    /// Parses `https://cdn.example.com[:port][/path]`, `https://*.example.com`, or a bare host.
    fn parse(text: &str) -> Option<Declared> {
        let text = text.trim().to_ascii_lowercase();
        let (scheme, rest) = match text.split_once("://") {
            Some((s, r)) => (Some(s.to_string()), r),
            None => (None, text.as_str()),
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let auth = rest.get(..end).unwrap_or(rest);
        let (host, port) = match auth.rsplit_once(':') {
            Some((h, "*")) => (h, Port::Any),
            Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                (h, Port::Exact(p.parse().ok()?))
            }
            _ => (auth, Port::Default),
        };
        let port = match (&port, scheme.as_deref().and_then(default_port)) {
            (Port::Exact(p), Some(d)) if *p == d => Port::Default,
            _ => port,
        };
        if host.is_empty() || scheme.as_deref().is_some_and(str::is_empty) {
            return None;
        }
        Some(Declared {
            scheme,
            host: host.to_string(),
            port,
        })
    }

    /// Does this declaration allow `origin` (a `Target::Remote` value)?
    fn allows(&self, origin: &str) -> bool {
        let Some((o_scheme, o_auth)) = origin.split_once("://") else {
            return false;
        };
        if self.scheme.as_deref().is_some_and(|s| s != o_scheme) {
            return false;
        }
        let (o_host, o_port) = host_port(o_auth.to_string());
        let port_ok = match self.port {
            Port::Any => true,
            Port::Exact(p) => o_port == Some(p),
            // `origin` carries no default port (`classify` drops it).
            Port::Default => o_port.is_none() || default_port(o_scheme).is_none(),
        };
        if !port_ok {
            return false;
        }
        if self.host == "*" {
            return true;
        }
        if let Some(suffix) = self.host.strip_prefix("*.") {
            return o_host.len() > suffix.len() + 1
                && o_host.ends_with(suffix)
                && o_host.as_bytes().get(o_host.len() - suffix.len() - 1) == Some(&b'.');
        }
        self.host == o_host
    }
}

/// The origins a tool declared (its csp connect, resource and frame domains, or `validate
/// --allow-origin`), and the one judgement of whether a URL's origin is among them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    declared: Vec<Declared>,
}

impl Origins {
    /// From declared origins as written; one that does not parse allows nothing.
    pub fn new<S: AsRef<str>>(declared: impl IntoIterator<Item = S>) -> Origins {
        Origins {
            declared: declared
                .into_iter()
                .filter_map(|d| Declared::parse(d.as_ref()))
                .collect(),
        }
    }

    /// What a tool's csp config lets its page load from or reach: connect, resource and frame
    /// domains (`base_uri_domains` governs `<base>`, not fetches).
    pub fn from_csp(csp: &CspConfig) -> Origins {
        Origins::new(csp.fetch_origins())
    }

    /// Whether one declared origin, as written, means anything to this type.
    pub fn parses(declared: &str) -> bool {
        Declared::parse(declared).is_some()
    }

    /// Does a declared origin allow `origin` (as `classify` returns it in `Target::Remote`)?
    pub fn allows(&self, origin: &str) -> bool {
        self.declared.iter().any(|d| d.allows(origin))
    }

    /// True when `url` fetches from the network and its origin is not declared: the host would
    /// block it. Inline, relative and script URLs are not remote fetches.
    pub fn blocks(&self, url: &str) -> bool {
        match classify(url) {
            Target::Remote(o) => !self.allows(&o),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_urls() {
        assert_eq!(classify("data:image/png;base64,AAAA"), Target::Inline);
        assert_eq!(classify("#top"), Target::Inline);
        assert_eq!(classify("img/a.png"), Target::Relative);
        assert_eq!(classify("/a.png"), Target::Relative);
        assert_eq!(
            classify("https://CDN.example.com:8443/x.js?y"),
            Target::Remote("https://cdn.example.com:8443".into())
        );
        assert_eq!(
            classify("https://cdn.example.com:443/x.js"),
            Target::Remote("https://cdn.example.com".into())
        );
        assert_eq!(
            classify("//evil.example/x.js"),
            Target::Remote("https://evil.example".into())
        );
        assert_eq!(
            classify("https://user@evil.example/x"),
            Target::Remote("https://evil.example".into())
        );
        assert_eq!(
            classify("http://[::1]:8080/x"),
            Target::Remote("http://[::1]:8080".into())
        );
        assert_eq!(classify("ftp://x.example/a"), Target::Remote("ftp:".into()));
    }

    #[test]
    fn script_urls_survive_evasion() {
        for url in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "  javascript:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "\u{1}javascript:alert(1)",
            "vbscript:msgbox(1)",
        ] {
            assert!(is_script_url(url), "{url:?}");
        }
        for url in [
            "https://x.example/javascript:",
            "./javascript.html",
            "#javascript:",
        ] {
            assert!(!is_script_url(url), "{url:?}");
        }
    }

    #[test]
    fn origin_matching() {
        let allowed = Origins::new([
            "https://cdn.example.com/",
            "https://*.img.example",
            "fonts.example",
            "https://api.example:8443",
            "wss://live.example:*",
        ]);
        assert!(allowed.allows("https://cdn.example.com"));
        assert!(!allowed.allows("http://cdn.example.com"));
        assert!(!allowed.allows("https://evilcdn.example.com"));
        assert!(!allowed.allows("https://cdn.example.com:8443"));
        assert!(allowed.allows("https://a.img.example"));
        assert!(allowed.allows("https://a.b.img.example"));
        assert!(!allowed.allows("https://img.example"));
        assert!(!allowed.allows("https://aimg.example"));
        assert!(allowed.allows("http://fonts.example"));
        assert!(allowed.allows("https://api.example:8443"));
        assert!(!allowed.allows("https://api.example"));
        assert!(!allowed.allows("https://api.example:8444"));
        assert!(allowed.allows("wss://live.example:9000"));
        assert!(allowed.allows("wss://live.example"));
        assert!(!Origins::default().allows("https://cdn.example.com"));
    }

    #[test]
    fn urls_are_judged_by_their_origin() {
        let allowed = Origins::new(["https://cdn.example.com", "https://x.example:443"]);
        assert!(!allowed.blocks("https://cdn.example.com/a.css"));
        assert!(!allowed.blocks("https://CDN.example.com:443/a"));
        assert!(!allowed.blocks("https://x.example/a"));
        assert!(allowed.blocks("https://cdn.example.com:8443/a"));
        assert!(allowed.blocks("https://cdn.example.com.evil.example/a"));
        assert!(allowed.blocks("https://cdn.example.com@evil.example/a"));
        assert!(allowed.blocks("//evil.example/a"));
        assert!(allowed.blocks("ftp://cdn.example.com/a"));
        assert!(!allowed.blocks("img/a.png"));
        assert!(!allowed.blocks("data:,"));
        // A multi-byte character where a declared origin ends splits nothing.
        assert!(Origins::new(["https://e"]).blocks("https://éxample.com/a.css"));
    }

    #[test]
    fn declarations_that_mean_nothing_allow_nothing() {
        for bad in ["", "   ", "https://", "://x.example"] {
            assert!(!Origins::parses(bad), "{bad:?}");
            assert!(Origins::new([bad]).blocks("https://x.example/a"), "{bad:?}");
        }
        assert!(Origins::parses("https://*.example.com:8443/path"));
    }

    #[test]
    fn from_csp_takes_the_fetching_directives() {
        let csp = CspConfig {
            connect_domains: vec!["https://api.example".into()],
            resource_domains: vec!["https://*.cdn.example".into()],
            frame_domains: vec!["https://embed.example".into()],
            base_uri_domains: vec!["https://base.example".into()],
        };
        let o = Origins::from_csp(&csp);
        assert!(o.allows("https://api.example"));
        assert!(o.allows("https://a.cdn.example"));
        assert!(o.allows("https://embed.example"));
        assert!(!o.allows("https://base.example"));
    }
}
