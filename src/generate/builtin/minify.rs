//! The compaction of a user's override files before they are embedded: comment-only lines and
//! indentation out of scripts, the internal (`_`) names renamed as the minifier renamed them in
//! the embedded scripts, and whitespace and comments out of the styles. The embedded scripts are
//! minified by terser instead (`tests/tools/minify.mjs`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::css::{Kind, Token, Tokenizer};

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

/// Whitespace and comment removal for CSS on the one tokenizer's tokens (book:
/// reference/pages.md, "Override files"), which never changes meaning: every token is copied as
/// written (strings, URLs and escapes too), comments are dropped, and a whitespace run becomes
/// one space or nothing. It becomes nothing only next to `{ } ; , >` or after `:`, where CSS
/// ignores it (never before `:`, which would turn the descendant `a :hover` into `a:hover`, and
/// never around `+`/`-`, which `calc()` needs), and only when the two tokens stay two tokens
/// once joined. Where only a comment parted two tokens that would merge, an empty comment stays.
/// A `;` right before `}` is dropped.
pub(super) fn minify_css(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    // The last token written, and what parted it from the next one.
    let mut last: Option<Token> = None;
    let (mut space, mut comment) = (false, false);
    for t in Tokenizer::new(src) {
        match t.kind {
            Kind::Whitespace => space = true,
            Kind::Comment => comment = true,
            _ => {
                if t.kind == Kind::CloseCurly
                    && last.as_ref().is_some_and(|l| l.kind == Kind::Semicolon)
                {
                    out.pop();
                    space = false;
                }
                let text = src.get(t.span.clone()).unwrap_or("");
                if let Some(prev) = last.as_ref().filter(|_| space || comment) {
                    let prev_text = src.get(prev.span.clone()).unwrap_or("");
                    let merges = !stay_apart(prev_text, text);
                    if space && (merges || !(css_glue(prev, true) || css_glue(&t, false))) {
                        out.push(' ');
                    } else if merges {
                        out.push_str("/**/");
                    }
                }
                out.push_str(text);
                (space, comment) = (false, false);
                last = Some(t);
            }
        }
    }
    out.push('\n');
    out
}

/// Whether whitespace next to this token means nothing to CSS: `{ } ; , >` on either side, `:`
/// only before the whitespace.
fn css_glue(t: &Token, before_space: bool) -> bool {
    matches!(
        t.kind,
        Kind::OpenCurly | Kind::CloseCurly | Kind::Semicolon | Kind::Comma | Kind::Delim('>')
    ) || (before_space && t.kind == Kind::Colon)
}

/// Whether `a` then `b`, written with nothing between them, are still those two tokens.
fn stay_apart(a: &str, b: &str) -> bool {
    let joined = format!("{a}{b}");
    let mut tokens = Tokenizer::new(&joined);
    tokens.next().is_some_and(|t| t.span.end == a.len())
        && tokens.next().is_some_and(|t| t.span.end == joined.len())
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
        // Two tokens that would merge keep what parted them: `a/**/b` is not `a b` nor `ab`,
        // `-- >` is not the `-->` token.
        assert_eq!(minify_css("a/**/b{x:1}"), "a/**/b{x:1}\n");
        assert_eq!(minify_css("-- > x{}"), "-- >x{}\n");
        // Only CSS whitespace counts: a no-break space is part of the name.
        assert_eq!(minify_css(".a\u{a0}b {}"), ".a\u{a0}b{}\n");
    }

    /// The tokens of `css` but comments and whitespace, each with whether whitespace (or a
    /// comment) stood before it.
    fn spaced_tokens(css: &str) -> Vec<(bool, Token)> {
        let mut out = Vec::new();
        let mut gap = false;
        for t in Tokenizer::new(css) {
            match t.kind {
                Kind::Whitespace | Kind::Comment => gap = true,
                _ => out.push((std::mem::take(&mut gap), t)),
            }
        }
        out
    }

    #[test]
    fn minified_styles_are_the_same_tokens() {
        let css = include_str!("../../../templates/styles.css");
        let min = minify_css(css);
        let mut before = spaced_tokens(css);
        // The one token the minifier drops: a `;` right before a `}`.
        let closes: Vec<bool> = before
            .windows(2)
            .map(|w| w[1].1.kind == Kind::CloseCurly)
            .collect();
        let mut i = 0;
        before.retain(|(_, t)| {
            i += 1;
            !(t.kind == Kind::Semicolon && closes.get(i - 1) == Some(&true))
        });
        let after = spaced_tokens(&min);
        assert_eq!(before.len(), after.len());
        for (n, ((gap_b, b), (gap_a, a))) in before.iter().zip(&after).enumerate() {
            assert_eq!(
                (b.kind, &b.value, &b.unit),
                (a.kind, &a.value, &a.unit),
                "token {n}"
            );
            // Whitespace stays only where it was, and goes only where CSS ignores it.
            assert!(
                !gap_a || *gap_b,
                "token {n}: whitespace added before {:?}",
                a.value
            );
            // (Before the first token, whitespace means nothing.)
            if *gap_b && !gap_a && n > 0 {
                let prev = &before[n - 1].1;
                assert!(
                    css_glue(prev, true) || css_glue(b, false),
                    "token {n}: {:?}",
                    b.value
                );
            }
        }
        assert!(
            min.len() < css.len() * 9 / 10,
            "{} of {}",
            min.len(),
            css.len()
        );
    }
}
