//! The compaction of a user's override files before they are embedded: comment-only lines and
//! indentation out of scripts, the internal (`_`) names renamed as the minifier renamed them in
//! the embedded scripts, and whitespace and comments out of the styles. The embedded scripts are
//! minified by terser instead (`tests/tools/minify.mjs`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// How the minifier renamed the internal (`_`) property names of the embedded scripts, as a JSON
/// object `{"_long": "_x"}`. Override scripts get the same renaming, so that they and the embedded
/// scripts still agree on those names.
pub(super) const INTERNAL_NAMES: &str = include_str!("../../../templates/min/names.json");

/// Strips indentation, blank lines and `//` comment-only lines. Only applied when the source has
/// no template literal and no line continuation: then no string or regex can span lines, so a line
/// starting with `//` is always a comment and leading whitespace is never inside a token.
pub(super) fn compact_js(src: &str) -> String {
    let unsafe_line = |l: &str| {
        let t = l.trim();
        t.ends_with('\\') || (t.starts_with("//") && t.contains("*/"))
    };
    if src.contains('`') || src.lines().any(unsafe_line) {
        return src.to_string();
    }
    compact_lines(src, |l| l.starts_with("//"))
}

/// Renames the runtime's internal (`_`) property names in an override script the way the minifier
/// renamed them in the embedded ones (`INTERNAL_NAMES`), so that both still agree. Every
/// identifier-like token equal to such a name is renamed, in strings too (`o['__refs']`).
pub(super) fn rename_internal(src: &str) -> String {
    static NAMES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| serde_json::from_str(INTERNAL_NAMES).unwrap_or_default());
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(start) = rest.find(word) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c: char| !word(c)).unwrap_or(tail.len());
        let token = &tail[..end];
        out.push_str(names.get(token).map_or(token, String::as_str));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Whitespace and comment removal for CSS that never changes meaning: strings are copied as is,
/// comments dropped, whitespace runs become one space, and a space is dropped only next to
/// `{ } ; , >` or after `:` (never before `:`, which would turn `a :hover` into `a:hover`, and
/// never around `+`/`-`, which `calc()` needs).
pub(super) fn minify_css(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut pending_space = false;
    let glue = |c: char| matches!(c, '{' | '}' | ';' | ',' | '>');
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                flush_space(&mut out, &mut pending_space, c, glue);
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c || d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                pending_space = true;
            }
            c if c.is_whitespace() => pending_space = true,
            c => {
                if c == '}' && out.ends_with(';') {
                    out.pop();
                }
                flush_space(&mut out, &mut pending_space, c, glue);
                out.push(c);
            }
        }
    }
    out.push('\n');
    out
}

fn flush_space(out: &mut String, pending: &mut bool, next: char, glue: impl Fn(char) -> bool) {
    if std::mem::take(pending) {
        let prev = out.chars().last();
        let droppable = prev.is_none_or(|p| glue(p) || p == ':') || glue(next);
        if !droppable {
            out.push(' ');
        }
    }
}

fn compact_lines(src: &str, is_comment: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let l = line.trim();
        if l.is_empty() || is_comment(l) {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_is_skipped_when_unsafe() {
        let tpl = "var a = `\n  // not a comment\n`;";
        assert_eq!(compact_js(tpl), tpl);
        let cont = "var a = 'x\\\n  // not a comment';";
        assert_eq!(compact_js(cont), cont);
        assert_eq!(
            compact_js("  // c\n  var a = 1; // trailing\n\n"),
            "var a = 1; // trailing\n"
        );
    }

    #[test]
    fn css_minification_keeps_meaning() {
        assert_eq!(
            minify_css(
                "/* c */\na :hover , b > c {\n  content: \" ▲ ; \";\n  width: calc(1px + 2px);\n}\n"
            ),
            "a :hover,b>c{content:\" ▲ ; \";width:calc(1px + 2px)}\n"
        );
        assert_eq!(minify_css("a{b:'x\\' y'}"), "a{b:'x\\' y'}\n");
    }
}
