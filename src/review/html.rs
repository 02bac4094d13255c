//! A readable diff of a page: the generator's inline runtime and stylesheet (a few lines of
//! 10–40 KB each) are elided whether unchanged or changed (`… runtime unchanged (41.2 KB)`,
//! `… runtime changed: generator 13 → 14 (41.2 KB → 42.0 KB)`), a builtin page's embedded data is
//! shown as pretty JSON (so a changed hint is one line), and no line is longer than
//! [`MAX_LINE`] characters. `--html` gives the full unified diff instead.

use std::hash::{Hash, Hasher};

use similar::{DiffOp, TextDiff};

use super::clean;
use crate::report::{Color, Printer};

/// The longest line the readable diff prints (its sign included).
pub const MAX_LINE: usize = 400;
/// Lines of context around a change.
const CONTEXT: usize = 3;

/// A block of the page that is elided.
#[derive(Debug, Clone, PartialEq)]
struct Elided {
    /// `runtime` or `stylesheet`.
    kind: &'static str,
    bytes: usize,
    hash: u64,
}

/// One line as the readable diff sees it.
#[derive(Debug, Clone)]
struct Line {
    /// What is compared: the text, or a key standing for an elided block.
    key: String,
    /// 1-based line number in the file.
    number: usize,
    elided: Option<Elided>,
}

/// The page's lines, with the runtime and stylesheet blocks collapsed to one line each and the
/// embedded JSON data pretty-printed.
fn lines_of(html: &str) -> Vec<Line> {
    let builtin = html.contains("id=\"mcp-gen-ui-data\"");
    let mut out = Vec::new();
    let mut block: Option<(&'static str, &'static str, usize, Vec<&str>)> = None;
    for (i, raw) in html.lines().enumerate() {
        let number = i + 1;
        if let Some((kind, close, start, body)) = &mut block {
            body.push(raw);
            if raw.contains(*close) {
                let text = body.join("\n");
                out.push(elided(kind, &text, *start));
                block = None;
            }
            continue;
        }
        let t = raw.trim_start();
        // The embedded data: one line of JSON, shown pretty.
        if t.starts_with("<script type=\"application/json\"")
            && let Some(open_end) = t.find('>')
            && let Some(close) = t.rfind("</script>")
            && close > open_end
        {
            let json = &t[open_end + 1..close];
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(json) {
                out.push(plain(&t[..=open_end], number));
                let pretty = serde_json::to_string_pretty(&v).unwrap_or_default();
                out.extend(pretty.lines().map(|l| plain(l, number)));
                out.push(plain(&t[close..], number));
                continue;
            }
        }
        let kind = if t.starts_with("<style data-mcp-gen-ui-runtime")
            || (builtin && t.starts_with("<style>"))
        {
            Some(("stylesheet", "</style>"))
        } else if t.starts_with("<script data-mcp-gen-ui-runtime")
            || (builtin && t.starts_with("<script>"))
        {
            Some(("runtime", "</script>"))
        } else {
            None
        };
        match kind {
            Some((kind, close)) if raw.contains(close) => out.push(elided(kind, raw, number)),
            Some((kind, close)) => block = Some((kind, close, number, vec![raw])),
            None => out.push(plain(raw, number)),
        }
    }
    if let Some((kind, _, start, body)) = block {
        out.push(elided(kind, &body.join("\n"), start));
    }
    out
}

fn plain(text: &str, number: usize) -> Line {
    Line {
        key: text.to_string(),
        number,
        elided: None,
    }
}

fn elided(kind: &'static str, text: &str, number: usize) -> Line {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    let hash = h.finish();
    Line {
        key: format!("\u{0}{kind}:{hash:x}:{}", text.len()),
        number,
        elided: Some(Elided {
            kind,
            bytes: text.len(),
            hash,
        }),
    }
}

/// `13` from `<meta name="generator" content="mcp-gen-ui 13">`.
fn generator_version(html: &str) -> Option<String> {
    let marker = "<meta name=\"generator\" content=\"mcp-gen-ui ";
    let at = html.find(marker)? + marker.len();
    let end = at + html[at..].find('"')?;
    Some(clean(&html[at..end], 20))
}

/// One printed line: control characters escaped, at most [`MAX_LINE`] characters.
fn bounded(sign: char, text: &str) -> String {
    let escaped = clean(text, usize::MAX / 8);
    let n = escaped.chars().count();
    if n < MAX_LINE {
        return format!("{sign}{escaped}");
    }
    let keep = MAX_LINE - 60;
    let cut: String = escaped.chars().take(keep).collect();
    format!(
        "{sign}{cut} … ({} more characters; --html shows them)",
        n - keep
    )
}

/// The readable diff of one page (see the module's text); empty when nothing differs.
pub fn readable(p: &Printer, before: &str, after: &str, path: &str) -> String {
    let old = lines_of(before);
    let new = lines_of(after);
    let old_keys: Vec<&str> = old.iter().map(|l| l.key.as_str()).collect();
    let new_keys: Vec<&str> = new.iter().map(|l| l.key.as_str()).collect();
    let diff = TextDiff::configure().diff_slices(&old_keys, &new_keys);
    let groups = diff.grouped_ops(CONTEXT);
    if groups.is_empty() {
        return String::new();
    }
    let (vb, va) = (generator_version(before), generator_version(after));
    let path = clean(path, 200);
    let mut out = vec![
        p.paint(&format!("--- a/{path}"), Color::Dim),
        p.paint(&format!("+++ b/{path}"), Color::Dim),
    ];
    let show = |l: &Line| match &l.elided {
        Some(e) => format!(
            "… {} ({})",
            e.kind,
            crate::report::human_size(e.bytes as u64)
        ),
        None => l.key.clone(),
    };
    for group in groups {
        let first_old = group
            .first()
            .and_then(|op| old.get(op.old_range().start))
            .map_or(0, |l| l.number);
        let first_new = group
            .first()
            .and_then(|op| new.get(op.new_range().start))
            .map_or(0, |l| l.number);
        out.push(p.paint(&format!("@@ -{first_old} +{first_new} @@"), Color::Cyan));
        // An elided block removed and one of the same kind added in this hunk: one line says
        // how it changed.
        let added: Vec<&Line> = group
            .iter()
            .filter(|op| !matches!(op, DiffOp::Equal { .. }))
            .flat_map(|op| new[op.new_range()].iter())
            .filter(|l| l.elided.is_some())
            .collect();
        let mut paired: Vec<usize> = Vec::new();
        for op in &group {
            if let DiffOp::Equal { .. } = op {
                for l in &old[op.old_range()] {
                    let text = match &l.elided {
                        Some(e) => format!(
                            "… {} unchanged ({})",
                            e.kind,
                            crate::report::human_size(e.bytes as u64)
                        ),
                        None => l.key.clone(),
                    };
                    out.push(bounded(' ', &text));
                }
                continue;
            }
            for l in &old[op.old_range()] {
                if let Some(e) = &l.elided
                    && let Some((j, a)) = added.iter().enumerate().find(|(j, a)| {
                        !paired.contains(j) && a.elided.as_ref().is_some_and(|x| x.kind == e.kind)
                    })
                {
                    paired.push(j);
                    let ab = a.elided.as_ref().map_or(0, |x| x.bytes);
                    let why = match (&vb, &va) {
                        (Some(b), Some(a)) if b != a => format!(": generator {b} → {a}"),
                        _ => String::new(),
                    };
                    out.push(p.paint(
                        &bounded(
                            '~',
                            &format!(
                                "… {} changed{why} ({} → {})",
                                e.kind,
                                crate::report::human_size(e.bytes as u64),
                                crate::report::human_size(ab as u64)
                            ),
                        ),
                        Color::Yellow,
                    ));
                    continue;
                }
                out.push(p.paint(&bounded('-', &show(l)), Color::Red));
            }
            for l in &new[op.new_range()] {
                if l.elided.is_some()
                    && let Some(j) = added.iter().position(|a| std::ptr::eq(*a, l))
                    && paired.contains(&j)
                {
                    continue;
                }
                out.push(p.paint(&bounded('+', &show(l)), Color::Green));
            }
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain_printer() -> Printer {
        Printer {
            quiet: false,
            stderr_tty: false,
            color: false,
        }
    }

    fn page(version: &str, runtime: &str, view: &str) -> String {
        format!(
            "<!-- header -->\n<meta name=\"generator\" content=\"mcp-gen-ui {version}\">\n<style>\n{}\n</style>\n<h1>{view}</h1>\n<script type=\"application/json\" id=\"mcp-gen-ui-data\">{{\"version\":\"{version}\",\"hints\":{{\"view\":\"{view}\"}}}}</script>\n<script>\n{runtime}\n</script>\n</body>\n",
            "a{b:c}".repeat(5000)
        )
    }

    #[test]
    fn runtime_and_styles_are_elided() {
        let rt = "x".repeat(40_000);
        let d = readable(
            &plain_printer(),
            &page("13", &rt, "table"),
            &page("13", &rt, "bar"),
            "t.html",
        );
        assert!(d.contains("-    \"view\": \"table\""), "{d}");
        assert!(d.contains("+    \"view\": \"bar\""), "{d}");
        assert!(d.contains(" … stylesheet unchanged (29.3 KB)"), "{d}");
        assert!(d.contains("+<h1>bar</h1>"), "{d}");
        assert!(d.lines().all(|l| l.chars().count() <= MAX_LINE), "{d}");

        let rt2 = "y".repeat(41_000);
        let d = readable(
            &plain_printer(),
            &page("13", &rt, "bar"),
            &page("14", &rt2, "bar"),
            "t.html",
        );
        assert!(
            d.contains("~… runtime changed: generator 13 → 14 (39.1 KB → 40.1 KB)"),
            "{d}"
        );
        assert!(!d.contains("xxxxxxxx"), "{d}");
        assert!(d.lines().all(|l| l.chars().count() <= MAX_LINE), "{d}");

        let same = page("13", &rt, "bar");
        assert_eq!(readable(&plain_printer(), &same, &same, "t.html"), "");
    }

    #[test]
    fn long_and_hostile_lines_are_bounded() {
        let before = "<p>a</p>\n";
        let after = format!("<p>{}\u{1b}[2J</p>\n", "z".repeat(5000));
        let d = readable(&plain_printer(), before, &after, "t.html");
        assert!(d.lines().all(|l| l.chars().count() <= MAX_LINE), "{d}");
        assert!(d.contains("more characters; --html shows them"), "{d}");
        assert!(!d.contains('\u{1b}'));
        let short = readable(&plain_printer(), before, "<p>\u{1b}[2J</p>\n", "t.html");
        assert!(short.contains("\\u{1b}[2J"), "{short}");
    }
}
