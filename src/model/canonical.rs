//! RFC 8785 (JCS) canonical JSON, so that a tool's hash never depends on key order or on how the
//! upstream happened to format numbers.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Lowercase hex sha256 of some bytes.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(bytes.as_ref()))
}

/// The JCS serialization of a JSON value: object members sorted by their UTF-16 code units, no
/// insignificant white space, numbers as ECMAScript prints them, minimal string escapes.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by_cached_key(|e| crate::json::utf16_units(e.0));
            out.push('{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write_value(val, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    // serde_json escapes exactly what JCS requires: `"`, `\` and control characters, using the
    // short forms \b \f \n \r \t and lowercase \u00xx otherwise. A lone surrogate (which
    // I-JSON, and so JCS, leaves undefined) is written `\udxxx`, as ECMAScript's JSON.stringify
    // does (see `crate::json`).
    out.push_str(&crate::json::quote(s));
}

fn write_number(n: &serde_json::Number, out: &mut String) {
    if let Some(i) = n.as_i64() {
        out.push_str(&i.to_string());
    } else if let Some(u) = n.as_u64() {
        out.push_str(&u.to_string());
    } else if let Some(f) = n.as_f64() {
        out.push_str(&es_number(f));
    } else {
        out.push_str(&n.to_string());
    }
}

/// ECMAScript `Number.prototype.toString` for a finite double.
fn es_number(f: f64) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return "null".into();
    }
    // Rust's `{:e}` prints the shortest digits that round-trip, e.g. "1.5e-7".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let n = exp + 1; // position of the decimal point relative to the digits
    let mut s = String::new();
    if f < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        s.push_str(&"0".repeat((n - k) as usize));
    } else if 0 < n && n <= 21 {
        s.push_str(&digits[..n as usize]);
        s.push('.');
        s.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        s.push_str(&"0".repeat((-n) as usize));
        s.push_str(&digits);
    } else {
        let e = n - 1;
        s.push_str(&digits[..1]);
        if k > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('e');
        s.push(if e >= 0 { '+' } else { '-' });
        s.push_str(&e.abs().to_string());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_matter() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":null}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":{"x":null,"y":[1,2]},"b":1}"#).unwrap();
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(canonical_json(&a), r#"{"a":{"x":null,"y":[1,2]},"b":1}"#);
    }

    #[test]
    fn numbers_follow_ecmascript() {
        for (input, want) in [
            ("1.0", "1"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            ("-1.5", "-1.5"),
            ("123.456", "123.456"),
            ("4.5e-10", "4.5e-10"),
            ("-0.0", "0"),
        ] {
            let v: Value = serde_json::from_str(input).unwrap();
            assert_eq!(canonical_json(&v), want, "input {input}");
        }
    }

    #[test]
    fn rfc8785_sorting_uses_utf16_code_units() {
        // From RFC 8785 section 3.2.3: U+1F600 (surrogates D83D DE00) sorts before U+FB33.
        let v = json!({"\u{fb33}": 1, "\u{1f600}": 2, "\r": 3, "1": 4, "\u{80}": 5, "\u{f6}": 6});
        assert_eq!(
            canonical_json(&v),
            "{\"\\r\":3,\"1\":4,\"\u{80}\":5,\"\u{f6}\":6,\"\u{1f600}\":2,\"\u{fb33}\":1}"
        );
    }

    /// The rule for lone surrogates (book: serve.md): written `\udxxx` as JSON.stringify does,
    /// sorted as their own UTF-16 code unit; U+FDD0 itself stays as it was.
    #[test]
    fn lone_surrogates_hash_like_json_stringify() {
        let v = crate::json::from_str(
            r#"{"\uD800":"x\udfff","a":1,"\ufdd0":"\ufdd0\ue000","\ud7ff":2}"#,
        )
        .unwrap();
        assert_eq!(
            canonical_json(&v),
            "{\"a\":1,\"\u{d7ff}\":2,\"\\ud800\":\"x\\udfff\",\"\u{fdd0}\":\"\u{fdd0}\u{e000}\"}"
        );
    }

    /// Deep values (as deep as `json` accepts) are hashed without exhausting the stack.
    #[test]
    fn deep_values_are_fine() {
        let d = crate::json::MAX_DEPTH;
        let text = format!("{}{}", "{\"a\":[".repeat(d / 2), "]}".repeat(d / 2));
        let v = crate::json::from_str(&text).unwrap();
        assert_eq!(canonical_json(&v), text);
    }

    #[test]
    fn strings_escape_minimally() {
        let v = json!("a\"b\\c\u{1}\n/é");
        assert_eq!(canonical_json(&v), "\"a\\\"b\\\\c\\u0001\\n/é\"");
    }
}
