//! Untrusted JSON in and out: how mcp-gen-ui reads every MCP message (serve in both directions,
//! and the client used by discover/generate) and writes it back.
//!
//! * **Depth.** Anything nested up to [`MAX_DEPTH`] levels parses; deeper input is refused with
//!   [`ParseError::TooDeep`] instead of overflowing the stack. The parser for deep input is
//!   iterative; everything downstream that recurses over a `Value` (drop, clone, serialisation,
//!   canonical JSON) stays well inside the stack at that depth.
//! * **Lone surrogates.** `"\ud800"` is valid JSON (RFC 8259 allows any `\uXXXX` escape; Python
//!   and JavaScript accept it) but cannot live in a Rust `String`. A lone surrogate escape is kept
//!   as two characters: the noncharacter U+FDD0 ([`MARK`], reserved by Unicode for exactly this
//!   kind of internal use) followed by U+E000 + (surrogate − 0xD800); a U+FDD0 the sender really
//!   sent is kept as U+FDD0 U+FDD0. [`to_vec`] and friends turn both back into what was sent (a
//!   lone surrogate is written as a lowercase `\udxxx` escape), so such messages pass through
//!   serve unchanged in meaning.
//! * **Hashing.** Canonical JSON (and so `tool_hash`) writes a lone surrogate as the lowercase
//!   escape `\udxxx`, exactly as ECMAScript's `JSON.stringify` does, and sorts keys by their
//!   UTF-16 code units with the surrogate as its own code unit.
//! * **Speed.** Ordinary messages (no U+FDD0 anywhere, depth ≤ 128) take serde_json's fast path;
//!   only the rest go through the iterative parser, and writing scans the output for U+FDD0 once.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

/// The deepest nesting accepted (objects and arrays, the outermost counting as 1).
pub const MAX_DEPTH: usize = 2048;

/// U+FDD0, the escape character of the lone-surrogate encoding (see the module docs).
pub const MARK: char = '\u{FDD0}';
const MARK_UTF8: &[u8] = "\u{FDD0}".as_bytes();
const SURROGATE_BASE: u32 = 0xE000;

/// Why bytes are not a usable JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseError {
    Syntax { offset: usize, message: String },
    TooDeep,
}

// (No thiserror here: the module has no dependency but serde_json, so that the test servers
// in examples/ can include it.)
impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Syntax { offset, message } => {
                write!(f, "invalid JSON at byte {offset}: {message}")
            }
            ParseError::TooDeep => {
                write!(f, "JSON nested deeper than {MAX_DEPTH} levels (the limit)")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON value (see the module docs for depth and lone surrogates).
pub fn from_slice(bytes: &[u8]) -> Result<Value, ParseError> {
    if !mentions_mark(bytes)
        && let Ok(v) = serde_json::from_slice::<Value>(bytes)
    {
        return Ok(v);
    }
    Parser { b: bytes, i: 0 }.parse()
}

/// [`from_slice`] for text.
pub fn from_str(text: &str) -> Result<Value, ParseError> {
    from_slice(text.as_bytes())
}

/// Whether the bytes contain U+FDD0, raw or as a `\ufdd0` escape (any case): then serde_json's
/// result would be ambiguous with our encoding, and the iterative parser is used.
fn mentions_mark(bytes: &[u8]) -> bool {
    let mut i = 0;
    while let Some(p) = bytes
        .get(i..)
        .and_then(|r| r.iter().position(|b| *b == 0xEF || *b == b'\\'))
    {
        let at = i + p;
        let rest = bytes.get(at..).unwrap_or_default();
        if rest.starts_with(MARK_UTF8) {
            return true;
        }
        if rest.len() >= 6
            && rest[0] == b'\\'
            && rest[1] == b'u'
            && rest[2..6].eq_ignore_ascii_case(b"fdd0")
        {
            return true;
        }
        // Skip the escaped character so `\\ufdd0` (a backslash, then text) is not a match.
        i = at + if rest.first() == Some(&b'\\') { 2 } else { 1 };
    }
    false
}

/// Serialises a value compactly, restoring lone surrogates and U+FDD0 (module docs).
pub fn to_vec(v: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    write(v, &mut out);
    out
}

/// Appends the compact serialisation of `v` to `out`.
pub fn write(v: &Value, out: &mut Vec<u8>) {
    let start = out.len();
    // Writing a `Value` into a Vec cannot fail (keys are strings).
    let _ = serde_json::to_writer(&mut *out, v);
    restore_in_place(out, start);
}

/// [`to_vec`] as a `String`.
pub fn to_string(v: &Value) -> String {
    String::from_utf8(to_vec(v)).unwrap_or_default()
}

/// Pretty-printed, otherwise like [`to_string`].
pub fn to_string_pretty(v: &Value) -> String {
    let mut out = serde_json::to_vec_pretty(v).unwrap_or_default();
    restore_in_place(&mut out, 0);
    String::from_utf8(out).unwrap_or_default()
}

/// Rewrites encoded lone surrogates and doubled marks in serialised JSON from `start` on. Raw
/// non-ASCII bytes only occur inside strings in serde_json's output, so this is safe on bytes.
fn restore_in_place(out: &mut Vec<u8>, start: usize) {
    let tail = out.get(start..).unwrap_or_default();
    if !contains(tail, MARK_UTF8) {
        return;
    }
    let fixed = restore(tail).into_owned();
    out.truncate(start);
    out.extend_from_slice(&fixed);
}

/// Whether `hay` contains the 3-byte `needle` (a byte search for its first byte, which the
/// compiler vectorises, then a comparison: this runs on every message written).
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else {
        return true;
    };
    let mut i = 0;
    while let Some(p) = hay
        .get(i..)
        .and_then(|r| r.iter().position(|b| *b == first))
    {
        if hay.get(i + p..).is_some_and(|r| r.starts_with(needle)) {
            return true;
        }
        i += p + 1;
    }
    false
}

/// The text of a JSON string body (or any serialised JSON) with the encoding undone.
fn restore(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !contains(bytes, MARK_UTF8) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(MARK_UTF8) {
            let next = &rest[3..];
            if next.starts_with(MARK_UTF8) {
                out.extend_from_slice(MARK_UTF8);
                i += 6;
                continue;
            }
            if let Some(unit) = encoded_unit(next) {
                out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                i += 6;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Cow::Owned(out)
}

/// The surrogate encoded by the UTF-8 character at the start of `b`, if it is one of ours.
fn encoded_unit(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..3)?).ok()?;
    let c = s.chars().next()? as u32;
    (SURROGATE_BASE..SURROGATE_BASE + 0x800)
        .contains(&c)
        .then(|| 0xD800 + c - SURROGATE_BASE)
}

/// A string's UTF-16 code units, a lone surrogate counting as itself (for JCS key order).
pub fn utf16_units(s: &str) -> Vec<u16> {
    if !s.contains(MARK) {
        return s.encode_utf16().collect();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == MARK {
            match chars.peek().copied() {
                Some(MARK) => {
                    chars.next();
                    out.push(0xFDD0);
                    continue;
                }
                Some(n) if (SURROGATE_BASE..SURROGATE_BASE + 0x800).contains(&(n as u32)) => {
                    chars.next();
                    out.push((0xD800 + n as u32 - SURROGATE_BASE) as u16);
                    continue;
                }
                _ => {}
            }
        }
        let mut buf = [0u16; 2];
        out.extend_from_slice(c.encode_utf16(&mut buf));
    }
    out
}

/// A string for display: lone surrogates become U+FFFD, doubled marks one U+FDD0.
pub fn display_lossy(s: &str) -> Cow<'_, str> {
    if !s.contains(MARK) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(String::from_utf16_lossy(&utf16_units(s)))
}

/// The JSON string literal of `s` (quotes included), encoding undone.
pub fn quote(s: &str) -> String {
    let q = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    match restore(q.as_bytes()) {
        Cow::Borrowed(_) => q,
        Cow::Owned(b) => String::from_utf8(b).unwrap_or(q),
    }
}

/// Drops a value without recursion (the default drop recurses once per nesting level).
pub fn drop_deep(v: Value) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// Nesting depth of a value (iterative).
pub fn depth(v: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Array(items) => {
                max = max.max(d);
                stack.extend(items.iter().map(|x| (x, d + 1)));
            }
            Value::Object(map) => {
                max = max.max(d);
                stack.extend(map.values().map(|x| (x, d + 1)));
            }
            _ => {}
        }
    }
    max
}

enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::Syntax {
            offset: self.i,
            message: message.into(),
        })
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn parse(mut self) -> Result<Value, ParseError> {
        let mut stack: Vec<Open> = Vec::new();
        let result = self.parse_inner(&mut stack);
        // Partial containers of a failed parse can be deep too.
        for open in stack.drain(..).rev() {
            match open {
                Open::Array(items) => items.into_iter().for_each(drop_deep),
                Open::Object(map, _) => map.into_iter().for_each(|(_, v)| drop_deep(v)),
            }
        }
        result
    }

    fn parse_inner(&mut self, stack: &mut Vec<Open>) -> Result<Value, ParseError> {
        loop {
            // Parse one value (a scalar, or the opening of a container).
            self.ws();
            let mut value = match self.peek() {
                None => return self.err("unexpected end of input"),
                Some(b'{') => {
                    self.i += 1;
                    if stack.len() >= MAX_DEPTH {
                        return Err(ParseError::TooDeep);
                    }
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                        Value::Object(Map::new())
                    } else {
                        let key = self.key()?;
                        stack.push(Open::Object(Map::new(), Some(key)));
                        continue;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    if stack.len() >= MAX_DEPTH {
                        return Err(ParseError::TooDeep);
                    }
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                        Value::Array(Vec::new())
                    } else {
                        stack.push(Open::Array(Vec::new()));
                        continue;
                    }
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(c) => return self.err(format!("unexpected character {:?}", c as char)),
            };
            // Attach it to its parent, closing every container that ends here.
            loop {
                let Some(top) = stack.last_mut() else {
                    self.ws();
                    if self.i != self.b.len() {
                        return self.err("trailing characters after the JSON value");
                    }
                    return Ok(value);
                };
                match top {
                    Open::Array(items) => {
                        items.push(value);
                        self.ws();
                        match self.peek() {
                            Some(b',') => {
                                self.i += 1;
                                break;
                            }
                            Some(b']') => {
                                self.i += 1;
                                let Some(Open::Array(items)) = stack.pop() else {
                                    return self.err("internal parser state");
                                };
                                value = Value::Array(items);
                            }
                            _ => return self.err("expected `,` or `]`"),
                        }
                    }
                    Open::Object(map, key) => {
                        let k = key.take().unwrap_or_default();
                        map.insert(k, value);
                        self.ws();
                        match self.peek() {
                            Some(b',') => {
                                self.i += 1;
                                self.ws();
                                let k = self.key()?;
                                if let Some(Open::Object(_, slot)) = stack.last_mut() {
                                    *slot = Some(k);
                                }
                                break;
                            }
                            Some(b'}') => {
                                self.i += 1;
                                let Some(Open::Object(map, _)) = stack.pop() else {
                                    return self.err("internal parser state");
                                };
                                value = Value::Object(map);
                            }
                            _ => return self.err("expected `,` or `}`"),
                        }
                    }
                }
            }
        }
    }

    /// `"key"` then `:`.
    fn key(&mut self) -> Result<String, ParseError> {
        if self.peek() != Some(b'"') {
            return self.err("expected a string key");
        }
        let k = self.string()?;
        self.ws();
        if self.peek() != Some(b':') {
            return self.err("expected `:`");
        }
        self.i += 1;
        Ok(k)
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, ParseError> {
        if self.b.get(self.i..self.i + word.len()) == Some(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            self.err("invalid literal")
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("");
        match serde_json::from_str::<Number>(text) {
            Ok(n) => Ok(Value::Number(n)),
            Err(_) => {
                self.i = start;
                self.err(format!("invalid number {text:?}"))
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let Some(h) = self.b.get(self.i..self.i + 4) else {
            return self.err("unexpected end of a \\u escape");
        };
        let s = std::str::from_utf8(h).unwrap_or("");
        match u32::from_str_radix(s, 16) {
            Ok(v) if s.bytes().all(|b| b.is_ascii_hexdigit()) => {
                self.i += 4;
                Ok(v)
            }
            _ => self.err("invalid \\u escape"),
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            let run = &self.b[start..self.i];
            let text = match std::str::from_utf8(run) {
                Ok(t) => t,
                Err(e) => {
                    self.i = start + e.valid_up_to();
                    return self.err("invalid UTF-8 in a string");
                }
            };
            for c in text.chars() {
                push_char(&mut out, c);
            }
            match self.peek() {
                None => return self.err("unterminated string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return self.err("unterminated escape");
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let u = self.hex4()?;
                            if (0xD800..0xDC00).contains(&u)
                                && self.b.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let low = self.hex4()?;
                                if (0xDC00..0xE000).contains(&low) {
                                    let c = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
                                    push_char(&mut out, char::from_u32(c).unwrap_or('\u{FFFD}'));
                                    continue;
                                }
                                self.i = save;
                            }
                            match char::from_u32(u) {
                                Some(c) => push_char(&mut out, c),
                                None => {
                                    // A lone surrogate: keep it (module docs).
                                    out.push(MARK);
                                    out.push(
                                        char::from_u32(SURROGATE_BASE + u - 0xD800)
                                            .unwrap_or('\u{FFFD}'),
                                    );
                                }
                            }
                        }
                        _ => {
                            self.i -= 1;
                            return self.err("invalid escape");
                        }
                    }
                }
                Some(_) => return self.err("control character in a string"),
            }
        }
    }
}

fn push_char(out: &mut String, c: char) {
    out.push(c);
    if c == MARK {
        out.push(MARK);
    }
}

/// What can be learnt about a JSON-RPC message that could not be parsed (too large, too deep,
/// not JSON): its top-level `id`, `method`, and whether it looks like a response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Probe {
    pub id: Option<Value>,
    pub method: Option<String>,
    /// A top-level `result` or `error` member was seen.
    pub response: bool,
}

impl Probe {
    /// A request (it has a method and an id): the sender waits for an answer to `id`.
    pub fn request_id(&self) -> Option<&Value> {
        self.id.as_ref().filter(|_| self.method.is_some())
    }

    /// A response (an id and no method): the receiver waits for it under `id`.
    pub fn response_id(&self) -> Option<&Value> {
        self.id.as_ref().filter(|_| self.method.is_none())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum Key {
    #[default]
    Other,
    Id,
    Method,
}

/// Finds the top-level `id`, `method`, `result`/`error` of a JSON-RPC object in a byte stream,
/// in constant memory and without recursion, wherever they are (even after megabytes of
/// payload, even in a message that is too deep or not valid JSON past that point).
#[derive(Debug, Default)]
pub struct IdScanner {
    depth: usize,
    started: bool,
    top_object: bool,
    in_str: bool,
    esc: bool,
    expecting_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    current: Key,
    capturing: bool,
    capture: Vec<u8>,
    probe: Probe,
}

/// Longest top-level key or captured value looked at.
const CAPTURE_MAX: usize = 1024;

impl IdScanner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Scans one complete message.
    pub fn scan(bytes: &[u8]) -> Probe {
        let mut s = IdScanner::new();
        s.feed(bytes);
        s.finish()
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        for &b in chunk {
            self.byte(b);
        }
    }

    fn record(&mut self, b: u8) {
        if self.reading_key {
            if self.key.len() < 16 {
                self.key.push(b);
            } else {
                self.key.clear();
                self.key.extend_from_slice(b"\0too long");
            }
        } else if self.capturing {
            if self.capture.len() < CAPTURE_MAX {
                self.capture.push(b);
            } else {
                self.capturing = false;
                self.capture.clear();
            }
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_str {
            if self.esc {
                self.esc = false;
                self.record(b);
            } else if b == b'\\' {
                self.esc = true;
                self.record(b);
            } else if b == b'"' {
                self.in_str = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.current = match self.key.as_slice() {
                        b"id" => Key::Id,
                        b"method" => Key::Method,
                        b"result" | b"error" => {
                            self.probe.response = true;
                            Key::Other
                        }
                        _ => Key::Other,
                    };
                } else {
                    self.record(b);
                }
            } else {
                self.record(b);
            }
            return;
        }
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'"' => {
                self.in_str = true;
                if self.depth == 1 && self.expecting_key && self.top_object {
                    self.reading_key = true;
                    self.key.clear();
                } else {
                    self.record(b);
                }
            }
            b'{' | b'[' => {
                if !self.started {
                    self.started = true;
                    self.top_object = b == b'{';
                    self.expecting_key = true;
                }
                if self.depth == 1 && self.capturing {
                    // An object or array id is not a JSON-RPC id.
                    self.capturing = false;
                    self.capture.clear();
                }
                self.depth += 1;
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 && self.top_object => {
                self.expecting_key = false;
                if matches!(self.current, Key::Id | Key::Method) {
                    self.capturing = true;
                    self.capture.clear();
                }
            }
            b',' if self.depth == 1 && self.top_object => {
                self.end_value();
                self.expecting_key = true;
            }
            _ => self.record(b),
        }
    }

    fn end_value(&mut self) {
        if self.capturing {
            self.capturing = false;
            let text = std::mem::take(&mut self.capture);
            match (self.current, from_slice(text.trim_ascii())) {
                (Key::Id, Ok(v @ (Value::String(_) | Value::Number(_) | Value::Null)))
                    if self.probe.id.is_none() =>
                {
                    self.probe.id = Some(v);
                }
                (Key::Method, Ok(Value::String(m))) if self.probe.method.is_none() => {
                    self.probe.method = Some(m);
                }
                _ => {}
            }
        }
        self.current = Key::Other;
    }

    /// What was found. A value still being read at the end (a message cut short) counts if it
    /// is complete by itself (`"id":7` then the end).
    pub fn finish(mut self) -> Probe {
        if self.depth == 1 && !self.in_str {
            self.end_value();
        }
        self.probe
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn ordinary_json_is_unchanged() {
        for text in [
            r#"{"a":[1,2.5,-3e7,true,false,null,"x\"y\\z\n\u00e9\ud83d\ude00"],"b":{}}"#,
            "[]",
            "\"\"",
            "18446744073709551615",
        ] {
            let ours = Parser {
                b: text.as_bytes(),
                i: 0,
            }
            .parse()
            .unwrap();
            assert_eq!(ours, serde_json::from_str::<Value>(text).unwrap(), "{text}");
            assert_eq!(from_str(text).unwrap(), ours);
        }
    }

    #[test]
    fn lone_surrogates_round_trip() {
        for (input, output) in [
            (r#"{"s":"a\ud800b"}"#, r#"{"s":"a\ud800b"}"#),
            (r#"{"s":"\uDFFF"}"#, r#"{"s":"\udfff"}"#),
            (r#"["\ud800\ud800"]"#, r#"["\ud800\ud800"]"#),
            (r#"["\udc00\ud800"]"#, r#"["\udc00\ud800"]"#),
            (r#"["\ufdd0\ue000"]"#, "[\"\u{FDD0}\u{E000}\"]"),
            ("[\"\u{FDD0}\"]", "[\"\u{FDD0}\"]"),
            (r#"{"\ud800":1}"#, r#"{"\ud800":1}"#),
        ] {
            let v = from_str(input).unwrap();
            assert_eq!(to_string(&v), output, "{input}");
            // And back again: the same value.
            assert_eq!(from_str(&to_string(&v)).unwrap(), v, "{input}");
        }
        let v = from_str(r#""\ud800x""#).unwrap();
        assert_eq!(display_lossy(v.as_str().unwrap()), "\u{FFFD}x");
        assert_eq!(
            utf16_units(v.as_str().unwrap()),
            vec![0xD800, u16::from(b'x')]
        );
        // `\\ufdd0` is a backslash then text, not the mark: the fast path is fine.
        assert!(!mentions_mark(br#"["\\ufdd0"]"#));
        assert!(mentions_mark(br#"["\uFDD0"]"#));
    }

    #[test]
    fn deep_nesting_parses_up_to_the_limit_and_is_refused_past_it() {
        let v = from_str(&nested(MAX_DEPTH)).unwrap();
        assert_eq!(depth(&v), MAX_DEPTH);
        let text = to_string(&v);
        assert_eq!(text, nested(MAX_DEPTH));
        let copy = v.clone();
        assert_eq!(copy, v);
        drop(copy);
        drop_deep(v);
        assert_eq!(from_str(&nested(MAX_DEPTH + 1)), Err(ParseError::TooDeep));
        // Far past the limit: no stack overflow, in the parser or in cleaning up.
        assert_eq!(from_str(&nested(1_000_000)), Err(ParseError::TooDeep));
        let deep_obj = format!("{}{}", "{\"a\":".repeat(100_000), "1");
        assert!(from_str(&deep_obj).is_err());
    }

    #[test]
    fn syntax_errors_are_reported() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "\"\\x\"",
            "01x",
            "[1] 2",
            "\"\u{1}\"",
            "nul",
        ] {
            assert!(
                matches!(from_str(bad), Err(ParseError::Syntax { .. })),
                "{bad:?}"
            );
        }
        assert!(from_slice(b"\"\xff\"").is_err());
    }

    #[test]
    fn the_scanner_finds_ids_anywhere() {
        let pad = "x".repeat(100_000);
        let msg = format!(
            r#"{{"jsonrpc":"2.0","params":{{"a":"{pad}","id":"inner","nested":[{{"id":9}}]}},"method":"tools/call","id":"outer"}}"#
        );
        let p = IdScanner::scan(msg.as_bytes());
        assert_eq!(p.id, Some(json!("outer")));
        assert_eq!(p.method.as_deref(), Some("tools/call"));
        assert_eq!(p.request_id(), Some(&json!("outer")));
        // Streamed in small pieces, with escapes and a deep payload first.
        let deep = nested(100_000);
        let msg = format!(r#"{{"result":{deep},"s":"\"id\":1","id":42}}"#);
        let mut s = IdScanner::new();
        for c in msg.as_bytes().chunks(7) {
            s.feed(c);
        }
        let p = s.finish();
        assert_eq!(p.response_id(), Some(&json!(42)));
        assert!(p.response);
        // Not JSON past the id, or cut short.
        let p = IdScanner::scan(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":{nope"#);
        assert_eq!(p.request_id(), Some(&json!(3)));
        assert_eq!(IdScanner::scan(br#"{"id":7"#).id, Some(json!(7)));
        assert_eq!(IdScanner::scan(br#"{"id":{"a":1}}"#).id, None);
        assert_eq!(IdScanner::scan(br#"[{"id":1}]"#).id, None);
        assert_eq!(IdScanner::scan(b"garbage").id, None);
        assert_eq!(
            IdScanner::scan(br#"{"id":"\ud800"}"#)
                .id
                .map(|v| to_string(&v)),
            Some(r#""\ud800""#.into())
        );
    }
}
