//! What a stylesheet loads: the URLs of its `@import`s and `url()`s (the origin rules live in
//! `crate::origins`).

/// Where a stylesheet fetches from: `@import` targets and `url()`s, the latter split by whether
/// they sit inside an `@font-face` rule.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CssRefs {
    pub imports: Vec<(usize, String)>,
    pub fonts: Vec<(usize, String)>,
    pub other: Vec<(usize, String)>,
}

/// Scans CSS for what it loads. Escapes are decoded first because `u\72l(` is `url(` to a browser;
/// returned line numbers are 0-based offsets inside `css`.
pub fn css_refs(css: &str) -> CssRefs {
    let decoded = decode_css(css);
    let bytes = decoded.as_bytes();
    let mut refs = CssRefs::default();
    let mut line = 0usize;
    let mut depth = 0usize;
    // Brace depth at which the current @font-face block opened.
    let mut font_face_depth: Option<usize> = None;
    let mut pending_font_face = false;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => line += 1,
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = find_from(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
                line += count_newlines(bytes.get(i..end).unwrap_or(&[]));
                i = end;
                continue;
            }
            b'{' => {
                depth += 1;
                if pending_font_face {
                    font_face_depth = Some(depth);
                    pending_font_face = false;
                }
            }
            b'}' => {
                if font_face_depth == Some(depth) {
                    font_face_depth = None;
                }
                depth = depth.saturating_sub(1);
            }
            b'@' => {
                let rest = bytes.get(i + 1..).unwrap_or(&[]);
                if starts_with_ci(rest, b"font-face") {
                    pending_font_face = true;
                } else if starts_with_ci(rest, b"import") {
                    let after = i + 1 + b"import".len();
                    if let Some((url, end)) = import_target(bytes, after) {
                        refs.imports.push((line, url));
                        line += count_newlines(bytes.get(i..end).unwrap_or(&[]));
                        i = end;
                        continue;
                    }
                }
            }
            b'u' | b'U' if starts_with_ci(bytes.get(i..).unwrap_or(&[]), b"url(") => {
                let prev_ident = i > 0
                    && bytes
                        .get(i - 1)
                        .is_some_and(|p| p.is_ascii_alphanumeric() || matches!(p, b'-' | b'_'));
                if !prev_ident {
                    let (url, end) = url_function(bytes, i + 4);
                    let target = if font_face_depth.is_some() {
                        &mut refs.fonts
                    } else {
                        &mut refs.other
                    };
                    target.push((line, url));
                    line += count_newlines(bytes.get(i..end).unwrap_or(&[]));
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    refs
}

fn find_from(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn count_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.get(..needle.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(needle))
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The argument of `url(` starting at `i`; returns it and the index after `)`.
fn url_function(bytes: &[u8], i: usize) -> (String, usize) {
    let i = skip_ws(bytes, i);
    if let Some(&q) = bytes.get(i).filter(|b| matches!(b, b'"' | b'\'')) {
        let (s, end) = quoted(bytes, i + 1, q);
        let end = bytes
            .get(end..)
            .and_then(|r| r.iter().position(|&b| b == b')'))
            .map_or(bytes.len(), |p| end + p + 1);
        return (s, end);
    }
    let close = bytes
        .get(i..)
        .and_then(|r| r.iter().position(|&b| b == b')'))
        .map_or(bytes.len(), |p| i + p);
    let s = String::from_utf8_lossy(bytes.get(i..close).unwrap_or(&[]))
        .trim()
        .to_string();
    (s, (close + 1).min(bytes.len()))
}

/// A quoted string starting after its opening quote; returns it and the index after the close.
fn quoted(bytes: &[u8], start: usize, quote: u8) -> (String, usize) {
    let end = bytes
        .get(start..)
        .and_then(|r| r.iter().position(|&b| b == quote || b == b'\n'))
        .map_or(bytes.len(), |p| start + p);
    let s = String::from_utf8_lossy(bytes.get(start..end).unwrap_or(&[])).into_owned();
    (s, (end + 1).min(bytes.len()))
}

/// The target of `@import` (a string or `url()`), with the index where it ends.
fn import_target(bytes: &[u8], i: usize) -> Option<(String, usize)> {
    let i = skip_ws(bytes, i);
    match bytes.get(i)? {
        q @ (b'"' | b'\'') => Some(quoted(bytes, i + 1, *q)),
        _ if starts_with_ci(bytes.get(i..)?, b"url(") => Some(url_function(bytes, i + 4)),
        _ => None,
    }
}

/// Decodes CSS escapes (`\75` hex with an optional trailing space, `\x` literal) so the scanner
/// sees what the CSS tokenizer sees. An escaped newline is dropped, as in strings.
fn decode_css(css: &str) -> String {
    if !css.contains('\\') {
        return css.to_string();
    }
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6 {
            match chars.peek() {
                Some(h) if h.is_ascii_hexdigit() => {
                    hex.push(*h);
                    chars.next();
                }
                _ => break,
            }
        }
        if hex.is_empty() {
            match chars.next() {
                Some('\n') | None => {}
                Some(other) => out.push(other),
            }
            continue;
        }
        if chars.peek().is_some_and(|w| w.is_ascii_whitespace()) {
            chars.next();
        }
        let decoded = u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .filter(|c| *c != '\0')
            .unwrap_or('\u{FFFD}');
        out.push(decoded);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_refs_found() {
        let css = "@import 'https://a.example/x.css';\n@import url(\"b.css\");\n\
                   @font-face { font-family: X; src: url(https://f.example/x.woff2) }\n\
                   body { background: URL( 'https://i.example/bg.png' ) }\n\
                   /* url(https://comment.example/) */ .x { mask: u\\72l(https://e.example/m.svg) }";
        let refs = css_refs(css);
        assert_eq!(
            refs.imports,
            vec![
                (0, "https://a.example/x.css".to_string()),
                (1, "b.css".to_string())
            ]
        );
        assert_eq!(
            refs.fonts,
            vec![(2, "https://f.example/x.woff2".to_string())]
        );
        assert_eq!(
            refs.other,
            vec![
                (3, "https://i.example/bg.png".to_string()),
                (4, "https://e.example/m.svg".to_string())
            ]
        );
    }

    #[test]
    fn css_ident_ending_in_url_is_not_url() {
        assert!(css_refs(".x { --myurl(a) }").other.is_empty());
    }
}
