//! What a JSON-RPC line is, without building a `Value`: the two messages of a plain `tools/call`
//! (the request and its response), recognised by one validating pass over the line so that
//! `serve` can forward them as the bytes they are, with only the id rewritten. Anything the peek
//! is not sure of (a `_meta` anywhere it looks, duplicate or escaped keys where it looks, odd
//! ids, values nested deeper than [`MAX_NESTING`], anything that is not strict JSON) is `None`,
//! and the caller parses the line the ordinary way, which also applies the depth limit and its
//! errors. What the peek skips it validates but does not decode, so a lone surrogate in a result
//! passes through as the very bytes the upstream wrote.
//!
//! Hand-written rather than a `serde` peek: this runs on every message of every tool call, and a
//! derived deserializer with a separate depth scan cost about ten times as many instructions.

use std::ops::Range;

use serde_json::Value;

/// Lines nested deeper than this take the ordinary path (where [`crate::json::MAX_DEPTH`] is
/// enforced with a clear error).
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

/// The line as a plain `tools/call` request, if it is one; else the line, for the ordinary path.
pub fn call(line: Vec<u8>) -> Result<Call, Vec<u8>> {
    match peek_call(&line) {
        Some((text, id, id_span, tool)) => Ok(Call {
            bytes: keep(line, text),
            id,
            id_span,
            tool,
        }),
        None => Err(line),
    }
}

/// What makes `line` a plain `tools/call`: where its text is, its id, where that is in the
/// text, and the tool.
fn peek_call(line: &[u8]) -> Option<(Range<usize>, Value, Range<usize>, String)> {
    let range = trimmed(line)?;
    let text = line.get(range.clone())?;
    let mut sc = Scanner { b: text, i: 0 };
    let (mut method, mut id, mut params) = (None, None, None);
    let mut other = false;
    sc.members(1, |sc, key| match key {
        b"method" => set_once(&mut method, sc.string()?),
        b"id" => set_once(&mut id, sc.value(1)?),
        b"params" => {
            let mut name = None;
            sc.members(2, |sc, key| match key {
                b"name" => set_once(&mut name, sc.string()?),
                b"_meta" => None,
                _ => sc.value(2).map(drop),
            })?;
            set_once(&mut params, name)
        }
        b"result" | b"error" | b"_meta" => {
            other = true;
            sc.value(1).map(drop)
        }
        _ => sc.value(1).map(drop),
    })?;
    sc.end()?;
    if other || method.and_then(|m| text.get(m)) != Some(b"\"tools/call\"".as_slice()) {
        return None;
    }
    let id_span = id?;
    let id = match text.get(id_span.start)? {
        b'"' => Value::String(decode_string(text.get(id_span.clone())?)?),
        _ => integer(text.get(id_span.clone())?)?,
    };
    let tool = decode_string(text.get(params??)?)?;
    Some((range, id, id_span, tool))
}

/// The line as a plain response to one of our numbered requests, if it is one; else the line.
pub fn response(line: Vec<u8>) -> Result<Response, Vec<u8>> {
    match peek_response(&line) {
        Some((text, id, id_span)) => Ok(Response {
            bytes: keep(line, text),
            id,
            id_span,
        }),
        None => Err(line),
    }
}

/// What makes `line` a plain response: where its text is, its id, and where that is.
fn peek_response(line: &[u8]) -> Option<(Range<usize>, u64, Range<usize>)> {
    let range = trimmed(line)?;
    let text = line.get(range.clone())?;
    let mut sc = Scanner { b: text, i: 0 };
    let (mut id, mut result) = (None, None);
    let mut other = false;
    sc.members(1, |sc, key| match key {
        b"id" => set_once(&mut id, sc.value(1)?),
        b"result" => {
            sc.members(2, |sc, key| match key {
                b"_meta" => None,
                _ => sc.value(2).map(drop),
            })?;
            set_once(&mut result, ())
        }
        b"method" | b"error" | b"_meta" => {
            other = true;
            sc.value(1).map(drop)
        }
        _ => sc.value(1).map(drop),
    })?;
    sc.end()?;
    if other {
        return None;
    }
    result?;
    let id_span = id?;
    let digits = text.get(id_span.clone())?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let id = std::str::from_utf8(digits).ok()?.parse::<u64>().ok()?;
    Some((range, id, id_span))
}

/// Where the line is without surrounding whitespace, if it is UTF-8 and starts like an object.
fn trimmed(line: &[u8]) -> Option<Range<usize>> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace())? + 1;
    let text = line.get(start..end)?;
    if text.first() != Some(&b'{') {
        return None;
    }
    std::str::from_utf8(text).ok()?;
    Some(start..end)
}

/// `text` of `line`, reusing the line's buffer (there is usually nothing to trim).
fn keep(mut line: Vec<u8>, text: Range<usize>) -> Vec<u8> {
    line.truncate(text.end);
    line.drain(..text.start);
    line
}

/// Records a member seen for the first time; a second one (a duplicate key) is `None`.
fn set_once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value);
    Some(())
}

/// The JSON text of a whole number that fits an `i64` or a `u64`, as a value.
fn integer(text: &[u8]) -> Option<Value> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    match text.first() {
        // Rare: let serde_json say what it is (`-0` is a float to it, not the integer 0).
        Some(b'-') => serde_json::from_slice::<Value>(text)
            .ok()
            .filter(|v| v.is_i64()),
        _ => std::str::from_utf8(text)
            .ok()?
            .parse::<u64>()
            .ok()
            .map(Value::from),
    }
}

/// A JSON string's value. Plain text is taken as it is; escapes go through `serde_json`, which
/// refuses lone surrogates (as a `Value` would).
fn decode_string(quoted: &[u8]) -> Option<String> {
    let inner = quoted.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(str::to_owned);
    }
    serde_json::from_slice(quoted).ok()
}

/// Appends the decimal digits of `n` (what `format!("{n}")` writes, without the formatting
/// machinery: this runs for every tool call).
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Bytes that end a run of plain string content: `"`, `\` and the control characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Where the first `"`, `\` or control character is.
#[inline]
fn string_stop(s: &[u8]) -> Option<usize> {
    s.iter().position(|&c| STRING_STOP[usize::from(c)])
}

/// A strict JSON reader over already-validated UTF-8 that checks syntax and nesting and hands
/// back where values are, without building them.
struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    /// Nothing but whitespace is left.
    fn end(&mut self) -> Option<()> {
        self.ws();
        (self.i == self.b.len()).then_some(())
    }

    /// The members of an object at nesting `depth` (the top-level object is 1): `member` gets
    /// each key (keys with escapes are refused) and must read its value.
    fn members(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, &[u8]) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_NESTING {
            return None;
        }
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string()?;
            let raw = self.b.get(key.start + 1..key.end - 1)?;
            if raw.contains(&b'\\') {
                return None;
            }
            self.eat(b':')?;
            member(self, raw)?;
            self.ws();
            match self.b.get(self.i)? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string token (escapes and control characters checked); its span, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        self.ws();
        let start = self.i;
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        loop {
            // Most bytes of a string need no look: skip to the next quote, backslash or control.
            self.i += string_stop(self.b.get(self.i..)?)?;
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(start..self.i);
                }
                b'\\' => {
                    self.i += 1;
                    match self.b.get(self.i)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 1,
                        b'u' => {
                            let hex = self.b.get(self.i + 1..self.i + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.i += 5;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// A number token (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`).
    fn number(&mut self) -> Option<()> {
        let digits = |sc: &mut Self| {
            let from = sc.i;
            while sc.b.get(sc.i).is_some_and(u8::is_ascii_digit) {
                sc.i += 1;
            }
            (sc.i > from).then_some(())
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => digits(self)?,
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            digits(self)?;
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            digits(self)?;
        }
        Some(())
    }

    /// One value of any kind inside a container at nesting `depth`, checked and skipped without
    /// recursion; its span.
    fn value(&mut self, depth: usize) -> Option<Range<usize>> {
        self.ws();
        let start = self.i;
        // Containers open inside this value, innermost in bit 0: 1 for an object, 0 for an
        // array (at most MAX_NESTING of them, so they fit in a u64).
        let (mut open, mut n) = (0u64, 0usize);
        loop {
            // A value is expected here.
            self.ws();
            match *self.b.get(self.i)? {
                c @ (b'{' | b'[') => {
                    self.i += 1;
                    if depth + n + 1 > MAX_NESTING {
                        return None;
                    }
                    let object = c == b'{';
                    self.ws();
                    if self.b.get(self.i) == Some(if object { &b'}' } else { &b']' }) {
                        self.i += 1;
                    } else {
                        open = open << 1 | u64::from(object);
                        n += 1;
                        if object {
                            self.string()?;
                            self.eat(b':')?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return None,
            }
            // After a value: close containers, or go on to the next element or member.
            loop {
                if n == 0 {
                    return Some(start..self.i);
                }
                let object = open & 1 == 1;
                self.ws();
                match *self.b.get(self.i)? {
                    b',' => {
                        self.i += 1;
                        if object {
                            self.string()?;
                            self.eat(b':')?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                self.i += 1;
                open >>= 1;
                n -= 1;
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        (self.b.get(self.i..self.i + word.len())? == word).then(|| self.i += word.len())
    }
}

/// `bytes` with the id at `span` replaced by `id` as JSON, and a line ending.
pub fn with_id(bytes: &[u8], span: &Range<usize>, id: &Value) -> Vec<u8> {
    let (Some(head), Some(tail)) = (bytes.get(..span.start), bytes.get(span.end..)) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(bytes.len() + 24);
    out.extend_from_slice(head);
    match id.as_u64() {
        // The usual case (serve's own upstream ids), without a serializer.
        Some(n) => push_u64(&mut out, n),
        None => crate::json::write(id, &mut out),
    }
    out.extend_from_slice(tail);
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The peeks over borrowed lines, as the tests write them.
    fn call(line: &[u8]) -> Option<Call> {
        super::call(line.to_vec()).ok()
    }

    fn response(line: &[u8]) -> Option<Response> {
        super::response(line.to_vec()).ok()
    }

    #[test]
    fn negative_ids_are_what_serde_json_makes_of_them() {
        for id in ["-7", "-0", "-9223372036854775808", "-9223372036854775809"] {
            let line = format!(r#"{{"id":{id},"method":"tools/call","params":{{"name":"x"}}}}"#);
            assert_eq!(call(line.as_bytes()), oracle::call(line.as_bytes()), "{id}");
        }
        assert_eq!(
            call(br#"{"id":-7,"method":"tools/call","params":{"name":"x"}}"#)
                .unwrap()
                .id,
            json!(-7)
        );
    }

    #[test]
    fn a_refused_line_comes_back_whole_and_a_padded_one_is_trimmed() {
        let junk = b"  {\"id\":1,\"method\":\"tools/list\"} ".to_vec();
        assert_eq!(super::call(junk.clone()), Err(junk));
        let padded =
            b" \t{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\r\n".to_vec();
        let c = super::call(padded).unwrap();
        assert_eq!(
            c.bytes,
            br#"{"id":1,"method":"tools/call","params":{"name":"x"}}"#
        );
        assert_eq!(&c.bytes[c.id_span.clone()], b"1");
    }

    /// The `serde` peek this module used before, kept as the oracle of the property test: the
    /// hand-written peek must never say yes where it said no, nor differ in what it found.
    mod oracle {
        use super::super::{Call, MAX_NESTING, Response};
        use serde::Deserialize;
        use serde::de::IgnoredAny;
        use serde_json::Value;
        use serde_json::value::RawValue;
        use std::borrow::Cow;
        use std::ops::Range;

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
        pub(super) fn call(line: &[u8]) -> Option<Call> {
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
        pub(super) fn response(line: &[u8]) -> Option<Response> {
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
    }

    #[test]
    fn digits_are_written_like_format() {
        for n in [0, 7, 10, 99, 12345, u64::from(u32::MAX) + 1, u64::MAX] {
            let mut out = b"x".to_vec();
            push_u64(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes());
        }
    }

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

    /// Realistic plain messages, then the same with random changes: values of any shape where
    /// the peek skips, keys it must notice, escapes, and damaged bytes.
    fn lines() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let atom = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("-0.5e+3".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            "\"([a-z {}\\[\\]:,]|\\\\[\"\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}|\\\\ud800|é|\\x{1F600})*\"",
        ];
        let value = atom.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                proptest::collection::vec(
                    ("\"[a-z_]{0,5}\"|\"_meta\"|\"\\\\u005fmeta\"", inner),
                    0..4
                )
                .prop_map(|v| format!(
                    "{{{}}}",
                    v.into_iter()
                        .map(|(k, v)| format!("{k}:{v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                )),
            ]
        });
        let id = prop_oneof![
            6 => any::<u32>().prop_map(|n| n.to_string()),
            1 => Just("-7".to_string()),
            1 => Just("-0".to_string()),
            1 => Just("1.0".to_string()),
            1 => Just("\"a\\\"b\"".to_string()),
            1 => Just("\"\\ud800\"".to_string()),
            1 => Just("null".to_string()),
        ];
        let extra = prop_oneof![
            8 => Just(String::new()),
            1 => Just(",\"_meta\":{}".to_string()),
            1 => Just(",\"jsonrpc\":\"2.0\"".to_string()),
            1 => Just(",\"id\":3".to_string()),
            1 => Just(",\"error\":null".to_string()),
            1 => Just(",\"method\":\"x\"".to_string()),
            1 => Just(",\"result\":{}".to_string()),
            1 => Just(",\"\\u0069d\":1".to_string()),
        ];
        let message = (id, value.clone(), value, extra.clone(), extra, any::<bool>()).prop_map(
            |(id, args, result, e1, e2, is_call)| {
                if is_call {
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{args}{e1}}}{e2}}}"#)
                } else {
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":{result}{e1}}}{e2}}}"#)
                }
            },
        );
        (
            message,
            proptest::option::weighted(
                0.3,
                (any::<proptest::sample::Index>(), "[ -~]|\\x{0}|\\x{1}|é"),
            ),
            any::<bool>(),
        )
            .prop_map(|(m, damage, cut)| {
                let Some((at, what)) = damage else { return m };
                let mut chars: Vec<char> = m.chars().collect();
                let i = at.index(chars.len());
                if cut {
                    chars.remove(i);
                } else {
                    chars.splice(i..i, what.chars());
                }
                chars.into_iter().collect()
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn the_scanner_agrees_with_the_serde_peek(line in lines()) {
            let (new, old) = (call(line.as_bytes()), oracle::call(line.as_bytes()));
            proptest::prop_assert!(new.is_none() || new == old, "call: {} -> {:?} / {:?}", line, new, old);
            let (new, old) = (response(line.as_bytes()), oracle::response(line.as_bytes()));
            proptest::prop_assert!(new.is_none() || new == old, "response: {} -> {:?} / {:?}", line, new, old);
        }

        /// Where the serde peek said yes to a message with no escaped or null keys of its own,
        /// the scanner does too: being careful must not cost the fast path.
        #[test]
        fn plain_messages_keep_the_fast_path(line in lines()) {
            // (Keys spelled with escapes, `"\u0069d"`, are refused by design; lines with no
            // backslash at all have none.)
            let own_keys_plain = !line.contains('\\') && !line.contains(r#""error":null"#);
            if own_keys_plain && oracle::call(line.as_bytes()).is_some() {
                proptest::prop_assert!(call(line.as_bytes()).is_some(), "{}", line);
            }
            if own_keys_plain && oracle::response(line.as_bytes()).is_some() {
                proptest::prop_assert!(response(line.as_bytes()).is_some(), "{}", line);
            }
        }
    }
}
