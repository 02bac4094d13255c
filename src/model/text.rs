//! Untrusted text made fit for a page: control characters replaced, very long strings shortened
//! with a visible marker (every tool gets a valid page, whatever its strings: book, reference/generate.md).

use serde_json::Value;

/// The character that stands in for a control character.
pub const REPLACEMENT: char = '\u{fffd}';

/// Whether `c` must not appear raw in a page: C0 controls other than tab, line feed and carriage
/// return, DEL, C1 controls, and Unicode noncharacters.
fn unsafe_char(c: char) -> bool {
    let n = u32::from(c);
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || (0xFDD0..=0xFDEF).contains(&n)
        || (n & 0xFFFE) == 0xFFFE
}

/// `s` with control characters replaced by U+FFFD and, past `max_chars` characters, cut and
/// ended with `… [shortened: N more characters]`. Borrows nothing: the common case (short,
/// clean text) is one pass and one copy.
pub fn safe_text(s: &str, max_chars: usize) -> String {
    // A lone surrogate the upstream sent is held as U+FDD0 + a private-use character
    // (`crate::json`); show it as one U+FFFD, not as two replaced characters.
    let s = crate::json::display_lossy(s);
    let mut out = String::with_capacity(s.len().min(max_chars.saturating_mul(4) + 64));
    let mut chars = s.chars();
    for (count, c) in chars.by_ref().enumerate() {
        if count == max_chars {
            // This char is the first of what is left.
            let rest = 1 + chars.count();
            out.push_str(&format!("… [shortened: {rest} more characters]"));
            return out;
        }
        out.push(if unsafe_char(c) { REPLACEMENT } else { c });
    }
    out
}

/// Longest tool description kept in a page (characters).
pub const MAX_DESCRIPTION_CHARS: usize = 20_000;
/// Longest title or description inside a schema kept in a page (characters).
pub const MAX_SCHEMA_TEXT_CHARS: usize = 2_000;

/// Shortens every `description` and `title` string inside `v` (a schema or a tool) to
/// `max_chars`, and makes their control characters safe. Values that carry meaning (names,
/// enums, defaults, patterns) are left exactly as sent. Iterative: no depth can overflow the
/// stack.
pub fn shorten_prose(v: &mut Value, max_chars: usize) {
    let mut stack: Vec<&mut Value> = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Object(m) => {
                for (k, child) in m.iter_mut() {
                    match child {
                        Value::String(s)
                            if (k == "description" || k == "title")
                                && (s.chars().count() > max_chars
                                    || s.chars().any(unsafe_char)) =>
                        {
                            *s = safe_text(s, max_chars);
                        }
                        Value::Object(_) | Value::Array(_) => stack.push(child),
                        _ => {}
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

/// Removes every `description`, `title` and `examples` inside `v`: the last resort before a
/// schema is too large for a page. Iterative.
pub fn strip_prose(v: &mut Value) {
    let mut stack: Vec<&mut Value> = vec![v];
    while let Some(cur) = stack.pop() {
        match cur {
            Value::Object(m) => {
                for key in ["description", "title", "examples"] {
                    if m.get(key).is_some_and(|x| !x.is_object()) {
                        m.shift_remove(key);
                    }
                }
                stack.extend(m.values_mut());
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn controls_are_replaced_and_long_text_is_marked() {
        assert_eq!(safe_text("a\0b\u{7}c\td", 100), "a\u{fffd}b\u{fffd}c\td");
        assert_eq!(safe_text("ééééé", 2), "éé… [shortened: 3 more characters]");
        assert_eq!(safe_text("abc", 3), "abc");
    }

    #[test]
    fn only_prose_is_shortened() {
        let mut v = json!({"description": "x".repeat(50), "properties": {"description": {
            "type": "string", "enum": ["y".repeat(50)], "title": "t\0"}}});
        shorten_prose(&mut v, 10);
        assert!(v["description"].as_str().unwrap().contains("shortened: 40"));
        assert_eq!(
            v["properties"]["description"]["enum"][0]
                .as_str()
                .unwrap()
                .len(),
            50
        );
        assert_eq!(v["properties"]["description"]["title"], "t\u{fffd}");
    }
}
