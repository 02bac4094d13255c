//! What a JSON-RPC line is, without building a `Value`: the two messages of a plain `tools/call`
//! (the request and its response), recognised with a borrowed `serde` peek so that `serve` can
//! forward them as the bytes they are, with only the id rewritten. Anything the peek is not sure
//! of (a `_meta` anywhere it looks, duplicate keys, odd ids, values nested deeper than
//! [`MAX_NESTING`]) is `None`, and the caller parses the line the ordinary way, which also applies
//! the depth limit and its errors. What the peek skips it does not decode, so a lone surrogate in a
//! result passes through as the very bytes the upstream wrote.

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

/// Lines nested deeper than this take the ordinary path (where [`crate::json::MAX_DEPTH`] is
/// enforced with a clear error): the peek skips values without counting their depth.
pub const MAX_NESTING: usize = 64;

/// A `tools/call` request without `_meta` (so of the 2025 handshake era), as the host wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The line, without its line ending.
    pub bytes: Vec<u8>,
    /// The request id (a number or a string).
    pub id: Value,
    /// Where the id's JSON text is in `bytes`.
    pub id_span: Range<usize>,
    /// `params.name`.
    pub tool: String,
}

/// A successful response without `_meta` in its result, to a request with a numeric id.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The line, without its line ending.
    pub bytes: Vec<u8>,
    pub id: u64,
    /// Where the id's JSON text is in `bytes`.
    pub id_span: Range<usize>,
}

#[derive(Deserialize)]
struct CallPeek<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    params: Option<ParamsPeek<'a>>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ParamsPeek<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ResponsePeek<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: Option<IgnoredAny>,
    result: Option<ResultPeek>,
    error: Option<IgnoredAny>,
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct ResultPeek {
    #[serde(rename = "_meta")]
    meta: Option<IgnoredAny>,
}

/// The line as a plain `tools/call` request, if it is one.
pub fn call(line: &[u8]) -> Option<Call> {
    let text = trimmed(line)?;
    let peek: CallPeek<'_> = serde_json::from_str(text).ok()?;
    if peek.method.as_deref() != Some("tools/call")
        || peek.result.is_some()
        || peek.error.is_some()
        || peek.meta.is_some()
    {
        return None;
    }
    let params = peek.params?;
    if params.meta.is_some() {
        return None;
    }
    let raw = peek.id?;
    let id: Value = serde_json::from_str(raw.get()).ok()?;
    if !(id.is_u64() || id.is_i64() || id.is_string()) {
        return None;
    }
    Some(Call {
        id_span: span_in(text, raw.get())?,
        id,
        tool: params.name?.into_owned(),
        bytes: text.as_bytes().to_vec(),
    })
}

/// The line as a plain response to one of our numbered requests, if it is one.
pub fn response(line: &[u8]) -> Option<Response> {
    let text = trimmed(line)?;
    let peek: ResponsePeek<'_> = serde_json::from_str(text).ok()?;
    if peek.method.is_some() || peek.error.is_some() || peek.meta.is_some() {
        return None;
    }
    if peek.result?.meta.is_some() {
        return None;
    }
    let raw = peek.id?;
    let id = raw.get().parse::<u64>().ok()?;
    Some(Response {
        id_span: span_in(text, raw.get())?,
        id,
        bytes: text.as_bytes().to_vec(),
    })
}

/// `bytes` with the id at `span` replaced by `id` as JSON, and a line ending.
pub fn with_id(bytes: &[u8], span: &Range<usize>, id: &Value) -> Vec<u8> {
    let (Some(head), Some(tail)) = (bytes.get(..span.start), bytes.get(span.end..)) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(bytes.len() + 24);
    out.extend_from_slice(head);
    crate::json::write(id, &mut out);
    out.extend_from_slice(tail);
    out.push(b'\n');
    out
}

/// The line as text without surrounding whitespace, if it is UTF-8, one JSON object and nested
/// at most [`MAX_NESTING`] deep.
fn trimmed(line: &[u8]) -> Option<&str> {
    let bytes = line.trim_ascii();
    if bytes.first() != Some(&b'{') || !nesting_within(bytes, MAX_NESTING) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Whether no array or object in the JSON text is nested more than `max` deep (strings skipped).
fn nesting_within(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// Where `part` (a slice of `whole`) lies in `whole`.
fn span_in(whole: &str, part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start + part.len();
    (end <= whole.len() && whole.get(start..end) == Some(part)).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_calls_are_recognised_with_their_id_span() {
        let line = br#"  {"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"m":"x"}}}"#;
        let c = call(line).unwrap();
        assert_eq!(c.id, json!(7));
        assert_eq!(c.tool, "echo");
        assert_eq!(&c.bytes[c.id_span.clone()], b"7");
        let out = with_id(&c.bytes, &c.id_span, &json!(1234));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 1234);
        assert_eq!(v["params"]["arguments"]["m"], "x");
        assert!(out.ends_with(b"}\n"));
        // A string id, spaces and escapes are kept as they are.
        let line =
            br#"{ "method" : "tools/call", "id" : "a\"b", "params" : {"name":"\u0065cho"} }"#;
        let c = call(line).unwrap();
        assert_eq!(c.id, json!("a\"b"));
        assert_eq!(c.tool, "echo");
        assert_eq!(&c.bytes[c.id_span.clone()], br#""a\"b""#);
    }

    #[test]
    fn anything_unusual_takes_the_ordinary_path() {
        for line in [
            // Other methods, notifications, responses.
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.as_slice(),
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            // _meta anywhere the router looks (also spelled with an escape).
            br#"{"id":1,"method":"tools/call","params":{"name":"x","_meta":{}}}"#,
            br#"{"id":1,"method":"tools/call","params":{"name":"x","\u005fmeta":{}}}"#,
            br#"{"id":1,"method":"tools/call","_meta":{},"params":{"name":"x"}}"#,
            // Duplicate keys, odd ids, no name, not an object, batches, lone surrogates.
            br#"{"id":1,"id":2,"method":"tools/call","params":{"name":"x"}}"#,
            br#"{"id":null,"method":"tools/call","params":{"name":"x"}}"#,
            br#"{"id":1.5,"method":"tools/call","params":{"name":"x"}}"#,
            br#"{"id":{"a":1},"method":"tools/call","params":{"name":"x"}}"#,
            br#"{"id":1,"method":"tools/call","params":{}}"#,
            br#"{"id":1,"method":"tools/call","params":[1]}"#,
            br#"[{"id":1,"method":"tools/call","params":{"name":"x"}}]"#,
            br#"{"id":"\ud800","method":"tools/call","params":{"name":"x"}}"#,
            br#"{"id":1,"method":"tools/call","params":{"name":"x"}"#,
            b"\xff",
        ] {
            assert_eq!(call(line), None, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn deep_lines_take_the_ordinary_path_and_strings_do_not_count() {
        let deep = |n: usize| {
            format!(
                r#"{{"id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        assert!(call(deep(MAX_NESTING - 3).as_bytes()).is_some());
        assert!(call(deep(MAX_NESTING).as_bytes()).is_none());
        let brackets = format!(
            r#"{{"id":1,"method":"tools/call","params":{{"name":"x","arguments":{{"a":"{}\"{}"}}}}}}"#,
            "[".repeat(500),
            "{".repeat(500)
        );
        assert!(call(brackets.as_bytes()).is_some());
        let response_deep = format!(
            r#"{{"id":1,"result":{{"a":{}{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(response(response_deep.as_bytes()).is_none());
    }

    #[test]
    fn plain_responses_are_recognised_and_others_are_not() {
        let r = response(br#"{"result":{"content":[{"type":"text","text":"Echo: hi"}]},"jsonrpc":"2.0","id":8598}"#).unwrap();
        assert_eq!(r.id, 8598);
        assert_eq!(&r.bytes[r.id_span.clone()], b"8598");
        let out = with_id(&r.bytes, &r.id_span, &json!("host-1"));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], "host-1");
        assert_eq!(v["result"]["content"][0]["text"], "Echo: hi");
        // What the peek skips it does not decode: a lone surrogate stays the upstream's bytes.
        let lone = br#"{"jsonrpc":"2.0","id":1,"result":{"text":"a\udc00b"}}"#;
        let r = response(lone).unwrap();
        let out = with_id(&r.bytes, &r.id_span, &json!(9));
        assert_eq!(
            out,
            br#"{"jsonrpc":"2.0","id":9,"result":{"text":"a\udc00b"}}"#
                .iter()
                .chain(b"\n")
                .copied()
                .collect::<Vec<u8>>()
        );
        for line in [
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"ui":{}}}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
            br#"{"jsonrpc":"2.0","id":"1","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":-1,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":[]}"#,
            br#"{"jsonrpc":"2.0","id":1,"id":2,"result":{}}"#,
        ] {
            assert_eq!(response(line), None, "{}", String::from_utf8_lossy(line));
        }
    }
}
