//! The two eras of MCP, as facts about messages: the 2025 handshake era (`initialize`, a session,
//! versions 2024-11-05 … 2025-11-25) and the stateless 2026-07-28 revision (the protocol version
//! and the client's capabilities in each request's `_meta`, `server/discover`, HTTP headers that
//! mirror the method and name). Shared by `serve` (which never translates between eras) and by
//! our own client (which negotiates the newest revision both sides speak).

use serde_json::Value;

/// Which era our own client speaks (`[upstream] protocol`, `--protocol`). serve never uses it:
/// each host request reaches the upstream in the host's own era.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    serde::Serialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    // (Plain comments, not doc comments: clap would print them as per-value help and switch
    // every command's help to the long layout.)
    // The newest revision both sides speak: the stateless 2026-07-28 revision when the server
    // offers it in `server/discover`, else the 2025 handshake.
    #[default]
    Auto,
    // Always the 2025 handshake (`initialize`), even with a server that offers 2026-07-28.
    Handshake,
    // Only the stateless 2026-07-28 revision; a server that does not offer it is an error.
    Stateless,
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::Auto => "auto",
            Protocol::Handshake => "handshake",
            Protocol::Stateless => "stateless",
        })
    }
}

/// The stateless revision this build speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Handshake-era versions, newest first. The first is what our own client asks for.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `_meta` key carrying a request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying a request's client capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key carrying a request's client identity.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of a result naming the server.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The revision's own error codes (`-32020` … `-32022`).
pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// HTTP headers of the revision (lowercase: header names are case-insensitive).
pub const HEADER_PROTOCOL_VERSION: &str = "mcp-protocol-version";
pub const HEADER_METHOD: &str = "mcp-method";
pub const HEADER_NAME: &str = "mcp-name";

/// Whether a version string belongs to the stateless era (revision ids are ISO dates, so they
/// order lexicographically).
pub fn is_modern_version(v: &str) -> bool {
    v >= MODERN_VERSION
}

/// Whether we know this handshake-era version.
pub fn is_legacy_version(v: &str) -> bool {
    LEGACY_VERSIONS.contains(&v)
}

/// The protocol version a message claims in its `params._meta`, if any.
pub fn claimed_version(msg: &Value) -> Option<&str> {
    msg.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
}

/// Whether a message is a stateless (2026-07-28 era) request or notification: it names a
/// modern protocol version in its `_meta`.
pub fn is_modern_message(msg: &Value) -> bool {
    claimed_version(msg).is_some_and(is_modern_version)
}

/// The client capabilities a stateless message carries in its `_meta`.
pub fn message_capabilities(msg: &Value) -> Option<&Value> {
    msg.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_CLIENT_CAPABILITIES))
}

/// The source of the `Mcp-Name` header for a method (`params.name` or `params.uri`).
pub fn name_source(msg: &Value) -> Option<&str> {
    let field = match msg.get("method").and_then(Value::as_str)? {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    msg.get("params")
        .and_then(|p| p.get(field))
        .and_then(Value::as_str)
}

/// Encodes a value for an `Mcp-Name` / `Mcp-Param-*` header: as is when it is plain visible
/// ASCII without leading or trailing whitespace, otherwise as `=?base64?…?=`.
pub fn header_value(v: &str) -> String {
    let sentinel = v.starts_with("=?base64?") && v.ends_with("?=");
    let safe = v.bytes().all(|b| (0x20..=0x7e).contains(&b) || b == b'\t')
        && !v.starts_with([' ', '\t'])
        && !v.ends_with([' ', '\t']);
    if safe && !sentinel {
        v.to_string()
    } else {
        format!("=?base64?{}?=", base64(v.as_bytes()))
    }
}

/// Decodes a header value written by [`header_value`]; `None` for a malformed sentinel.
pub fn decode_header_value(v: &str) -> Option<String> {
    let v = v.trim_matches([' ', '\t']);
    match v
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => String::from_utf8(unbase64(b64)?).ok(),
        None => Some(v.to_string()),
    }
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = B64.iter().position(|&x| x == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The `Mcp-Param-{Name}` headers a `tools/call` must carry, from the `x-mcp-header`
/// annotations of the tool's `inputSchema` (reached through `properties` only) and the call's
/// arguments. Values that are absent or null give no header.
pub fn param_headers(input_schema: &Value, arguments: Option<&Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    collect_param_headers(input_schema, arguments, 0, &mut out);
    out
}

fn collect_param_headers(
    schema: &Value,
    value: Option<&Value>,
    depth: usize,
    out: &mut Vec<(String, String)>,
) {
    if depth > 32 {
        return;
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, sub) in props {
        let v = value.and_then(|v| v.get(key));
        if let Some(name) = sub.get("x-mcp-header").and_then(Value::as_str) {
            let text = match v {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Bool(b)) => Some(b.to_string()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            if let Some(text) = text {
                out.push((
                    format!("mcp-param-{}", name.to_ascii_lowercase()),
                    header_value(&text),
                ));
            }
        }
        collect_param_headers(sub, v, depth + 1, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn eras_are_told_apart_by_the_meta_version() {
        let modern = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
            META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"x":1}}}});
        assert!(is_modern_message(&modern));
        assert_eq!(message_capabilities(&modern), Some(&json!({"x":1})));
        let legacy = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        assert!(!is_modern_message(&legacy));
        let old = json!({"method":"x","params":{"_meta":{META_PROTOCOL_VERSION:"2025-06-18"}}});
        assert!(!is_modern_message(&old));
        assert!(is_modern_version("2027-01-01") && !is_modern_version("1999-01-01"));
        assert!(is_legacy_version("2025-03-26") && !is_legacy_version("1999-01-01"));
    }

    #[test]
    fn header_values_follow_the_sentinel_rules() {
        for (raw, enc) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ] {
            assert_eq!(header_value(raw), enc, "{raw:?}");
            assert_eq!(decode_header_value(enc).as_deref(), Some(raw));
        }
        assert_eq!(decode_header_value("=?base64?!!?="), None);
    }

    #[test]
    fn param_headers_come_from_annotated_properties() {
        let schema = json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "n":{"type":"integer","x-mcp-header":"N"},
            "nested":{"type":"object","properties":{"flag":{"type":"boolean","x-mcp-header":"Flag"}}},
            "q":{"type":"string"}}});
        let args = json!({"region":"eu","n":42,"nested":{"flag":true},"q":"x"});
        let got = param_headers(&schema, Some(&args));
        assert_eq!(
            got,
            vec![
                ("mcp-param-region".to_string(), "eu".to_string()),
                ("mcp-param-n".to_string(), "42".to_string()),
                ("mcp-param-flag".to_string(), "true".to_string()),
            ]
        );
        assert!(param_headers(&schema, Some(&json!({"region":null}))).is_empty());
    }
}
