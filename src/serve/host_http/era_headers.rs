//! The revision's HTTP header rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), checked
//! before anything is forwarded (book: reference/serve.md, eras).

use super::app::*;
use super::prelude::*;

/// The header rules of the revision, checked before anything is forwarded (see the module
/// docs). `None`: go on.
pub(super) fn check_era_headers(
    headers: &HeaderMap,
    msgs: &[Value],
    batch: bool,
) -> Option<Response> {
    let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if batch && msgs.iter().any(era::is_modern_message) {
        return Some(refuse(StatusCode::BAD_REQUEST, -32600,
            "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later".into(),
        ));
    }
    let version = header(era::HEADER_PROTOCOL_VERSION);
    let modern = if batch {
        None
    } else {
        msgs.first().filter(|m| era::is_modern_message(m))
    };
    let Some(msg) = modern else {
        // A 2025-era message (or batch).
        return match version {
            Some(v) if era::is_modern_version(v) => {
                let id = msgs
                    .first()
                    .and_then(|m| m.get("id"))
                    .cloned()
                    .unwrap_or(Value::Null);
                Some(rpc_error(
                    StatusCode::BAD_REQUEST,
                    id,
                    -32602,
                    format!(
                        "MCP-Protocol-Version {v} needs `_meta[\"{}\"]` and `_meta[\"{}\"]` in the request",
                        era::META_PROTOCOL_VERSION,
                        era::META_CLIENT_CAPABILITIES
                    ),
                ))
            }
            Some(v) if !era::is_legacy_version(v) => Some(unsupported_version_header(v)),
            _ => None,
        };
    };
    let is_request = msg.get("id").is_some();
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let body_version = era::claimed_version(msg).unwrap_or_default();
    let mismatch = |detail: String| {
        Some(rpc_error(
            StatusCode::BAD_REQUEST,
            id.clone(),
            era::HEADER_MISMATCH,
            format!("Header mismatch: {detail}"),
        ))
    };
    match version {
        Some(v) if v != body_version => {
            return mismatch(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            ));
        }
        None if is_request => {
            return mismatch(format!(
                "the body names protocol version {body_version} but the required MCP-Protocol-Version header is absent"
            ));
        }
        _ => {}
    }
    if !is_request {
        return None;
    }
    let method = msg
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    match header(era::HEADER_METHOD) {
        None => {
            return mismatch(format!(
                "the body names method {method} but the required Mcp-Method header is absent"
            ));
        }
        Some(m) if m.trim_matches([' ', '\t']) != method => {
            return mismatch(format!(
                "Mcp-Method header value '{m}' does not match body value '{method}'"
            ));
        }
        _ => {}
    }
    if let Some(body_name) = era::name_source(msg) {
        match header(era::HEADER_NAME).map(era::decode_header_value) {
            None => {
                return mismatch(format!(
                    "the body names '{body_name}' but the required Mcp-Name header is absent"
                ));
            }
            Some(None) => {
                return mismatch(
                    "the Mcp-Name header carries an invalid Base64 sentinel value".into(),
                );
            }
            Some(Some(n)) if n != body_name => {
                return mismatch(format!(
                    "Mcp-Name header value '{n}' does not match body value '{body_name}'"
                ));
            }
            _ => {}
        }
    }
    None
}

pub(super) fn unsupported_version_header(v: &str) -> Response {
    let mut supported: Vec<&str> = vec![era::MODERN_VERSION];
    supported.extend(era::LEGACY_VERSIONS);
    refuse(
        StatusCode::BAD_REQUEST,
        -32000,
        format!(
            "Bad Request: Unsupported protocol version: {v} (supported versions: {})",
            supported.join(", ")
        ),
    )
}

/// GET and DELETE are 2025-era session operations: an `MCP-Protocol-Version` header must name
/// one of that era's versions.
pub(super) fn check_session_version(headers: &HeaderMap) -> Option<Response> {
    let v = headers.get(era::HEADER_PROTOCOL_VERSION)?;
    let v = v.to_str().unwrap_or("\u{fffd}");
    (!era::is_legacy_version(v)).then(|| unsupported_version_header(v))
}
