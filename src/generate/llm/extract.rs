//! Finds the HTML page in whatever the model sent back: bare HTML, fenced code with prose
//! around it, reasoning blocks, or nothing usable at all.

/// What was found, and what had to be cut away to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extracted {
    pub html: String,
    /// Non-blank text outside the page (an explanation, a preamble) was dropped.
    pub dropped_prose: bool,
    /// The page does not end with `</html>` (a fence or page cut off mid-way).
    pub unterminated: bool,
    /// The text outside the page (trimmed), for the prompt-injection check.
    pub prose: String,
}

/// Returns `None` when the answer holds no HTML document (prose only, a refusal, JSON…).
pub fn extract_html(answer: &str) -> Option<Extracted> {
    let text = strip_reasoning(answer);
    let text = text.trim_start_matches('\u{feff}');

    if let Some((html, outside)) = best_fence(text) {
        return Some(finish(html, &outside));
    }
    // No fence: take from the document start to the last `</html>` (or the end).
    let lower = text.to_ascii_lowercase();
    let start = ["<!doctype html", "<html"]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .or_else(|| looks_like_fragment(&lower))?;
    let end = lower
        .rfind("</html>")
        .map(|i| i + "</html>".len())
        .filter(|e| *e > start)
        .unwrap_or(text.len());
    let html = text.get(start..end)?;
    let outside = format!("{}{}", text.get(..start)?, text.get(end..)?);
    Some(finish(html, &outside))
}

fn finish(html: &str, outside: &str) -> Extracted {
    let html = html.trim().to_string();
    let unterminated = !html.to_ascii_lowercase().trim_end().ends_with("</html>")
        && html.to_ascii_lowercase().contains("<html");
    Extracted {
        dropped_prose: !outside.trim().is_empty(),
        unterminated,
        html,
        prose: outside.trim().to_string(),
    }
}

/// A fragment with no `<html>` (some models skip the wrapper): starts at the first tag that only
/// a page would have.
fn looks_like_fragment(lower: &str) -> Option<usize> {
    let starts = [
        "<head", "<body", "<style", "<script", "<main", "<div", "<form",
    ];
    let first = starts.iter().filter_map(|m| lower.find(m)).min()?;
    // A fragment must carry a script to be a UI at all; a lone `<div>` in prose is not a page.
    lower.contains("<script").then_some(first)
}

/// Local reasoning models (DeepSeek-R1, Qwen3 via Ollama) put `<think>…</think>` before the
/// answer; its content may even contain sketches of HTML.
fn strip_reasoning(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(open) = lower.find("<think>") else {
            out.push_str(rest);
            return out;
        };
        out.push_str(&rest[..open]);
        match lower[open..].find("</think>") {
            Some(close) => rest = &rest[open + close + "</think>".len()..],
            // An unclosed thought: the answer never came.
            None => return out,
        }
    }
}

/// The fenced block (```html, ```, ~~~) most likely to be the page: the one holding
/// `<html`/doctype, else the largest holding a tag. An unclosed fence runs to the end (the
/// answer was cut off). Returns the block and the text outside it.
fn best_fence(text: &str) -> Option<(&str, String)> {
    let mut blocks: Vec<(usize, usize, usize, usize)> = Vec::new(); // fence start, body start, body end, fence end
    let mut pos = 0;
    while let Some(rel) = find_fence_open(&text[pos..]) {
        let open = pos + rel;
        let marker = if text[open..].starts_with("~~~") {
            "~~~"
        } else {
            "```"
        };
        let Some(nl) = text[open..].find('\n') else {
            break;
        };
        let body_start = open + nl + 1;
        let close = find_fence_close(&text[body_start..], marker).map(|c| body_start + c);
        match close {
            Some(c) => {
                let fence_end = text[c..]
                    .find('\n')
                    .map(|n| c + n + 1)
                    .unwrap_or(text.len());
                blocks.push((open, body_start, c, fence_end));
                pos = fence_end;
            }
            None => {
                blocks.push((open, body_start, text.len(), text.len()));
                break;
            }
        }
        if pos >= text.len() {
            break;
        }
    }
    let score = |b: &(usize, usize, usize, usize)| {
        let body = text[b.1..b.2].to_ascii_lowercase();
        let doc = body.contains("<html") || body.contains("<!doctype");
        let tag = body.contains("<script") || body.contains("<body") || body.contains("<div");
        (doc, tag, b.2 - b.1)
    };
    let best = blocks
        .iter()
        .filter(|b| {
            let s = score(b);
            s.0 || s.1
        })
        .max_by_key(|b| score(b))?;
    let outside = format!("{}{}", &text[..best.0], &text[best.3..]);
    Some((&text[best.1..best.2], outside))
}

/// A fence opens at the start of a line.
fn find_fence_open(s: &str) -> Option<usize> {
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            return Some(offset + (line.len() - t.len()));
        }
        offset += line.len();
    }
    None
}

/// A fence closes with the same marker alone on its line.
fn find_fence_close(s: &str, marker: &str) -> Option<usize> {
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with(marker)
            && t.trim_start_matches(marker.chars().next().unwrap_or('`'))
                .is_empty()
        {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

/// Phrases that mark an answer written under the influence of injected instructions (from a
/// tool description, say) rather than a UI. Checked on the prose around the page, which the
/// validator never sees; the validator checks the page itself.
const INJECTION_SIGNS: &[&str] = &[
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore the previous instructions",
    "ignore prior instructions",
    "ignore the above instructions",
    "disregard previous instructions",
    "disregard all previous",
    "disregard the above",
    "system override",
    "developer mode",
    "jailbreak",
    "reveal your system prompt",
    "print your system prompt",
];

/// The first sign of prompt injection in `text`, if any.
pub fn injection_sign(text: &str) -> Option<&'static str> {
    let lower: String = text
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    INJECTION_SIGNS.iter().copied().find(|s| lower.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!DOCTYPE html>\n<html><head></head><body><script>1</script></body></html>";

    #[test]
    fn bare_page_is_taken_whole() {
        let e = extract_html(PAGE).unwrap();
        assert_eq!(e.html, PAGE);
        assert!(!e.dropped_prose && !e.unterminated);
    }

    #[test]
    fn fenced_page_with_prose_around_it() {
        let answer = format!(
            "Here is the UI you asked for:\n\n```html\n{PAGE}\n```\n\nIt renders a table. Let me know!"
        );
        let e = extract_html(&answer).unwrap();
        assert_eq!(e.html, PAGE);
        assert!(e.dropped_prose);
    }

    #[test]
    fn the_page_wins_over_a_smaller_snippet() {
        let answer = format!(
            "Use it like this:\n```js\napp.connect();\n```\nFull file:\n```html\n{PAGE}\n```\n"
        );
        assert_eq!(extract_html(&answer).unwrap().html, PAGE);
    }

    #[test]
    fn unclosed_fence_runs_to_the_end_and_is_marked() {
        let answer = "```html\n<!DOCTYPE html>\n<html><body><script>let x = [1, 2,";
        let e = extract_html(answer).unwrap();
        assert!(e.html.ends_with("[1, 2,"));
        assert!(e.unterminated);
    }

    #[test]
    fn prose_before_an_unfenced_page() {
        let answer = format!("Sure! {PAGE}\nHope this helps.");
        let e = extract_html(&answer).unwrap();
        assert_eq!(e.html, PAGE);
        assert!(e.dropped_prose);
    }

    #[test]
    fn reasoning_blocks_are_dropped() {
        let answer = format!("<think>maybe <html> with a table…</think>\n{PAGE}");
        assert_eq!(extract_html(&answer).unwrap().html, PAGE);
    }

    #[test]
    fn prose_only_answers_have_no_page() {
        assert!(extract_html("I'm sorry, I can't help with that.").is_none());
        assert!(extract_html("Use a <div> for layout.").is_none());
        assert!(extract_html("").is_none());
        assert!(extract_html("<think>unfinished").is_none());
    }

    #[test]
    fn fragment_with_script_is_accepted() {
        let e = extract_html("<div id=a></div>\n<script>x()</script>").unwrap();
        assert!(e.html.starts_with("<div"));
    }

    #[test]
    fn injection_signs_are_found_across_case_and_spacing() {
        assert_eq!(
            injection_sign("Please IGNORE   previous\ninstructions now"),
            Some("ignore previous instructions")
        );
        assert_eq!(injection_sign("Here is your forecast UI."), None);
    }

    #[test]
    fn never_panics_on_odd_input() {
        for s in [
            "```",
            "```\n",
            "~~~html\n<html>",
            "</html><html>",
            "<HTML></html>",
            "é```html\né<html>é",
        ] {
            let _ = extract_html(s);
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_arbitrary_answers(s in "(```[a-z]{0,4}\n|~~~\n|<!doctype html>|<html>|</html>|<think>|</think>|<script>|[^`<~]{0,10}|é){0,25}") {
            if let Some(e) = extract_html(&s) {
                assert!(s.contains(e.html.as_str()) || e.html.is_empty() || s.contains("<think>"));
            }
        }
    }
}
