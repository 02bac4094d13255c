//! A host's bytes into JSON-RPC messages: one rule for both host transports (a stdio line, an
//! HTTP request body), so that they answer broken input alike.

use serde_json::Value;

use super::rpc_error::{Unusable, error_response, unusable_code, unusable_host_message};
use crate::json::IdScanner;

/// Parses one message or batch: the messages, and whether they came as a batch. Unusable
/// bytes become the error response the host gets (for the request's own id when it can be
/// found), except the host's unusable answer to a server→client request, which becomes an
/// error response for the upstream in its place (`Ok`, for the router).
pub fn parse(text: &[u8]) -> Result<(Vec<Value>, bool), Value> {
    match crate::json::from_slice(text) {
        Ok(Value::Array(batch)) if batch.is_empty() => Err(empty_batch()),
        Ok(Value::Array(batch)) => Ok((batch, true)),
        Ok(v) => Ok((vec![v], false)),
        Err(e) => {
            let code = unusable_code(&e);
            let message = match code {
                -32700 => format!("parse error: {e}"),
                _ => format!("invalid request: {e}"),
            };
            match unusable_host_message(&IdScanner::scan(text), code, message) {
                Unusable::Answer(v) => Err(v),
                Unusable::Forward(v) => Ok((vec![v], false)),
            }
        }
    }
}

/// JSON-RPC 2.0's answer to `[]`: one Invalid Request error with a null id.
fn empty_batch() -> Value {
    error_response(
        Value::Null,
        -32600,
        "invalid request: an empty batch (JSON-RPC 2.0 batches hold at least one message)".into(),
        None,
    )
}
