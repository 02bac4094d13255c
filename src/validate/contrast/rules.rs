//! A page's style sheets read into rules for the contrast rule: selectors with their theme
//! markers, declarations with where each value sits, specificity and order.

use crate::css::{Kind, Tokenizer};

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

/// The declarations of a block body, with the range of each value (trimmed) in the sheet.
pub(super) fn declarations(
    body: &str,
    offset: usize,
    sheet: usize,
) -> (Vec<(String, String)>, Vec<Loc>) {
    let mut decls = Vec::new();
    let mut locs = Vec::new();
    let mut at = 0;
    for part in body.split(';') {
        let part_start = at;
        at += part.len() + 1;
        let Some((p, v)) = part.split_once(':') else {
            continue;
        };
        let v_start = part_start + p.len() + 1 + (v.len() - v.trim_start().len());
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

/// Reads the rules of one sheet (nested blocks: media, supports, layer).
pub(super) fn parse_rules(css: &str, at: Block, dark_media: bool, rules: &mut Vec<Rule>) {
    let base_line = at.line;
    let bytes = css.as_bytes();
    let mut i = 0;
    let mut start = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                // An at-statement (@import, @charset): nothing to check.
                start = i + 1;
            }
            b'{' => {
                let prelude = css[start..i].trim();
                // Find the matching brace.
                let mut depth = 1usize;
                let mut j = i + 1;
                while j < bytes.len() && depth > 0 {
                    match bytes[j] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let body_end = if depth == 0 { j - 1 } else { j };
                let body = &css[i + 1..body_end];
                let line = base_line.map(|l| {
                    l + css[..start + (css[start..i].len() - css[start..i].trim_start().len())]
                        .matches('\n')
                        .count()
                });
                let lower = prelude.to_ascii_lowercase();
                if lower.starts_with("@media") {
                    let dark = lower.contains("prefers-color-scheme") && lower.contains("dark");
                    let light = lower.contains("prefers-color-scheme") && lower.contains("light");
                    if !light && !lower.contains("print") {
                        let inner = Block {
                            sheet: at.sheet,
                            offset: at.offset + i + 1,
                            line: base_line.map(|l| l + css[..=i].matches('\n').count()),
                        };
                        parse_rules(body, inner, dark_media || dark, rules);
                    }
                } else if lower.starts_with("@supports") || lower.starts_with("@layer") {
                    let inner = Block {
                        sheet: at.sheet,
                        offset: at.offset + i + 1,
                        line: base_line.map(|l| l + css[..=i].matches('\n').count()),
                    };
                    parse_rules(body, inner, dark_media, rules);
                } else if !lower.starts_with('@') && !prelude.is_empty() {
                    let (decls, locs) = declarations(body, at.offset + i + 1, at.sheet);
                    for sel in prelude.split(',') {
                        let sel = sel.trim();
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
                i = body_end + 1;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
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
