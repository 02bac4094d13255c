//! The JSON-RPC error answers serve makes itself, shared by the router and both host
//! transports: the codes, the error response, and what becomes of a host message that could not
//! be used.

use serde_json::{Value, json};

/// JSON-RPC error code for "the upstream is down and being restarted" (implementation range).
pub const UPSTREAM_UNAVAILABLE: i64 = -32000;
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error response.
pub fn error_response(id: Value, code: i64, message: String, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let (Some(d), Some(e)) = (data, error.as_object_mut()) {
        e.insert("data".into(), d);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// The parse-error response for a line that is not JSON.
pub fn parse_error(detail: &str) -> Value {
    error_response(Value::Null, -32700, format!("parse error: {detail}"), None)
}

/// What becomes of a host message that could not be used (larger than the limit, not JSON,
/// nested too deep).
#[derive(Debug, Clone, PartialEq)]
pub enum Unusable {
    /// An error response for the host: for the request's own id when it could be found.
    Answer(Value),
    /// The host's answer to a server→client request: an error response in its place, to go
    /// through the router (which maps the id) to the upstream, so it does not wait forever.
    Forward(Value),
}

/// The JSON-RPC error code for a message that is not JSON (-32700) or is unusable (-32600).
pub fn unusable_code(err: &crate::json::ParseError) -> i64 {
    match err {
        crate::json::ParseError::Syntax { .. } => -32700,
        crate::json::ParseError::TooDeep => INVALID_REQUEST,
    }
}

/// Decides how to answer an unusable host message, from what `probe` found in it.
pub fn unusable_host_message(probe: &crate::json::Probe, code: i64, message: String) -> Unusable {
    if let Some(id) = probe.response_id()
        && probe.response
    {
        return Unusable::Forward(error_response(
            id.clone(),
            INTERNAL_ERROR,
            format!("the client's answer could not be used: {message}"),
            None,
        ));
    }
    let id = probe.request_id().cloned().unwrap_or(Value::Null);
    Unusable::Answer(error_response(id, code, message, None))
}
