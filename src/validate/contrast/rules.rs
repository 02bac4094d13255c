//! A page's style sheets read into rules for the contrast rule: selectors with their theme
//! markers, declarations with where each value sits, specificity and order.

use std::ops::Range;

use crate::css::{Kind, Tokenizer, tokenize};

/// One style sheet of the page: its text and the HTML line where it starts.
pub struct Sheet<'a> {
    pub css: &'a str,
    pub line: Option<usize>,
}

/// One style rule: selectors with the theme markers removed, declarations, where it is.
#[derive(Debug, Clone)]
pub(super) struct Rule {
    pub(super) selector: String,
    pub(super) decls: Vec<(String, String)>,
    /// Where each declaration's value is (index-aligned with `decls`).
    pub(super) locs: Vec<Loc>,
    pub(super) dark: bool,
    /// How the rule is made dark: "media" or the selector marker (for repairs to mirror).
    pub(super) dark_via: Option<String>,
    pub(super) light_only: bool,
    pub line: Option<usize>,
    pub(super) specificity: (usize, usize, usize),
    pub(super) order: usize,
}

pub(super) const DARK_MARKERS: [&str; 9] = [
    "[data-theme=\"dark\"]",
    "[data-theme='dark']",
    "[data-theme=dark]",
    "[data-mode=\"dark\"]",
    "[data-bs-theme=\"dark\"]",
    ".dark-mode",
    ".theme-dark",
    ".dark",
    "[data-color-scheme=\"dark\"]",
];
pub(super) const LIGHT_MARKERS: [&str; 4] = [
    "[data-theme=\"light\"]",
    "[data-theme='light']",
    "[data-theme=light]",
    ".light",
];

/// Blanks out comments, keeping every byte offset and line (edits are made by offset).
pub(super) fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    for t in Tokenizer::new(css) {
        let text = css.get(t.span).unwrap_or("");
        if t.kind == Kind::Comment {
            for c in text.chars() {
                // A multi-byte char becomes as many spaces as it had bytes.
                let blank = if c == '\n' { "\n" } else { " " };
                out.push_str(&blank.repeat(c.len_utf8()));
            }
        } else {
            out.push_str(text);
        }
    }
    out
}

pub(super) fn specificity(sel: &str) -> (usize, usize, usize) {
    let mut ids = 0;
    let mut classes = 0;
    let mut types = 0;
    let mut prev = ' ';
    for c in sel.chars() {
        match c {
            '#' => ids += 1,
            '.' | '[' => classes += 1,
            ':' if prev != ':' => classes += 1,
            c if c.is_ascii_alphabetic() && matches!(prev, ' ' | '>' | '+' | '~' | ',') => {
                types += 1
            }
            _ => {}
        }
        prev = c;
    }
    (ids, classes, types)
}

/// Where a declaration's value is: its sheet (the page's own `<style>` elements in document
/// order; `usize::MAX` for a `style` attribute) and its byte range in that sheet's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Loc {
    pub(super) sheet: usize,
    pub(super) start: usize,
    pub(super) end: usize,
}

/// Where the current block sits: its sheet, its byte offset in that sheet, its first line.
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub(super) sheet: usize,
    pub(super) offset: usize,
    pub line: Option<usize>,
}

/// The byte ranges of `css` between the `sep` tokens that stand outside any bracket, string or
/// comment (`;` between declarations, `,` between selectors).
fn split_top(css: &str, sep: Kind) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut from = 0;
    for t in Tokenizer::new(css) {
        match t.kind {
            Kind::Function | Kind::OpenParen | Kind::OpenSquare | Kind::OpenCurly => depth += 1,
            Kind::CloseParen | Kind::CloseSquare | Kind::CloseCurly => {
                depth = depth.saturating_sub(1)
            }
            k if k == sep && depth == 0 => {
                parts.push(from..t.span.start);
                from = t.span.end;
            }
            _ => {}
        }
    }
    parts.push(from..css.len());
    parts
}

/// The declarations of a block body, with the range of each value (trimmed) in the sheet.
pub(super) fn declarations(
    body: &str,
    offset: usize,
    sheet: usize,
) -> (Vec<(String, String)>, Vec<Loc>) {
    let mut decls = Vec::new();
    let mut locs = Vec::new();
    for part in split_top(body, Kind::Semicolon) {
        let text = body.get(part.clone()).unwrap_or("");
        let Some(colon) = Tokenizer::new(text).find(|t| t.kind == Kind::Colon) else {
            continue;
        };
        let (p, v) = (&text[..colon.span.start], &text[colon.span.end..]);
        let v_start = part.start + colon.span.end + (v.len() - v.trim_start().len());
        let value = v.trim();
        decls.push((p.trim().to_ascii_lowercase(), value.to_string()));
        locs.push(Loc {
            sheet,
            start: offset + v_start,
            end: offset + v_start + value.len(),
        });
    }
    (decls, locs)
}

/// Reads the rules of one sheet (nested blocks: media, supports, layer). Blocks are found on the
/// one CSS tokenizer's tokens, so a brace or `;` in a string or comment is only text.
pub(super) fn parse_rules(css: &str, at: Block, dark_media: bool, rules: &mut Vec<Rule>) {
    let tokens = tokenize(css);
    let mut start = 0;
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        match t.kind {
            // An at-statement (@import, @charset): nothing to check.
            Kind::Semicolon => start = t.span.end,
            Kind::OpenCurly => {
                // The matching brace, or the end of the sheet.
                let mut depth = 0usize;
                let close = tokens[i..].iter().position(|u| {
                    match u.kind {
                        Kind::OpenCurly => depth += 1,
                        Kind::CloseCurly => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                });
                let body_end = close.map_or(css.len(), |c| tokens[i + c].span.start);
                let open = t.span.start;
                block(css, start..open, body_end, at, dark_media, rules);
                i = close.map_or(tokens.len(), |c| i + c + 1);
                start = body_end + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// One block of a sheet: `prelude` is the text before its `{`, which ends at `prelude.end`;
/// the body runs to `body_end`.
fn block(
    css: &str,
    prelude: Range<usize>,
    body_end: usize,
    at: Block,
    dark_media: bool,
    rules: &mut Vec<Rule>,
) {
    let base_line = at.line;
    let (start, open) = (prelude.start, prelude.end);
    let head = &css[start..open];
    let body = &css[open + 1..body_end];
    let line = base_line.map(|l| {
        l + css[..start + (head.len() - head.trim_start().len())]
            .matches('\n')
            .count()
    });
    let inner = Block {
        sheet: at.sheet,
        offset: at.offset + open + 1,
        line: base_line.map(|l| l + css[..=open].matches('\n').count()),
    };
    let prelude = head.trim();
    let lower = prelude.to_ascii_lowercase();
    if lower.starts_with("@media") {
        let dark = lower.contains("prefers-color-scheme") && lower.contains("dark");
        let light = lower.contains("prefers-color-scheme") && lower.contains("light");
        if !light && !lower.contains("print") {
            parse_rules(body, inner, dark_media || dark, rules);
        }
    } else if lower.starts_with("@supports") || lower.starts_with("@layer") {
        parse_rules(body, inner, dark_media, rules);
    } else if !lower.starts_with('@') && !prelude.is_empty() {
        let (decls, locs) = declarations(body, inner.offset, at.sheet);
        for sel in split_top(prelude, Kind::Comma) {
            let sel = prelude[sel].trim();
            let mut s = sel.to_string();
            let mut dark = dark_media;
            let mut dark_via = dark_media.then(|| "media".to_string());
            let mut light_only = false;
            for m in DARK_MARKERS {
                if s.contains(m) {
                    s = s.replace(m, " ");
                    dark = true;
                    dark_via.get_or_insert_with(|| m.to_string());
                }
            }
            for m in LIGHT_MARKERS {
                if s.contains(m) {
                    s = s.replace(m, " ");
                    light_only = true;
                }
            }
            s = s.replace(":not( )", "");
            let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
            let s = s.trim_start_matches(['>', ' ']).to_string();
            let s = if s.is_empty() { ":root".to_string() } else { s };
            let order = rules.len();
            rules.push(Rule {
                specificity: specificity(&s),
                selector: s,
                decls: decls.clone(),
                locs: locs.clone(),
                dark,
                dark_via,
                light_only,
                line,
                order,
            });
        }
    }
}

pub(super) fn is_root_selector(sel: &str) -> bool {
    matches!(
        sel,
        ":root" | "html" | "body" | "*" | ":host" | "html, body"
    )
}

/// Pseudo-classes and -elements that describe states or generated content, never the resting
/// text: rules with them are left out.
pub(super) fn is_state_selector(sel: &str) -> bool {
    [
        ":hover",
        ":focus",
        ":active",
        ":visited",
        "::",
        ":before",
        ":after",
        ":disabled",
        ":placeholder",
        ":checked",
        ":invalid",
        ":selection",
        ":first-letter",
        ":first-line",
    ]
    .iter()
    .any(|p| sel.contains(p))
}
