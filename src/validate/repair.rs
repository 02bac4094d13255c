//! Mechanical repairs of what the validator finds, for the llm generator (book: reference/llm.md, "repair
//! before judging"): contrast below WCAG AA is moved, in the page's own CSS, to the nearest
//! colour of the same hue that reaches AA in the theme where it fails, then re-checked.

use std::cell::RefCell;
use std::rc::Rc;

use lol_html::html_content::ContentType;
use lol_html::{RewriteStrSettings, element, end, rewrite_str, text};
use scraper::{ElementRef, Selector};

use super::contrast::{self, Sheet};
use super::options::{RUNTIME_ATTR, STACK_BYTES};
use super::parse;

/// Rounds of repair: a colour moved for one pair can make another (sharing a variable) fail.
const MAX_ROUNDS: usize = 6;

/// The page after its contrast repairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContrastRepair {
    pub html: String,
    /// What was changed, one human line each.
    pub changes: Vec<String>,
    /// Failing pairs no repair could fix, and why (empty when every pair reaches AA).
    pub unrepaired: Vec<String>,
}

/// Repairs every low-contrast pair the validator would report for an llm page, as far as it
/// can. Never fails: what cannot be repaired is said in `unrepaired` and left as it was.
pub fn repair_contrast(html: &str) -> ContrastRepair {
    // The parser and tree walks recurse: the validator's big stack, as for `validate`.
    let run = || repair_inline(html);
    let joined = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("repair".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, run)
            .map(|h| h.join())
    });
    match joined {
        Ok(Ok(r)) => r,
        Err(_) => repair_inline(html),
        Ok(Err(_)) => ContrastRepair {
            html: html.to_string(),
            changes: Vec::new(),
            unrepaired: vec![
                "the contrast repair failed on this page (a bug in mcp-gen-ui)".into(),
            ],
        },
    }
}

fn repair_inline(html: &str) -> ContrastRepair {
    let mut page = html.to_string();
    let mut changes = Vec::new();
    for _ in 0..MAX_ROUNDS {
        if parse::estimated_depth(&page) > super::document::MAX_ELEMENT_DEPTH {
            break;
        }
        let (sheets, plan) = plan_page(&page);
        if plan.edits.is_empty() {
            return ContrastRepair {
                html: page,
                changes,
                unrepaired: plan.unrepairable,
            };
        }
        let mut edited: Vec<String> = sheets.iter().map(|(css, _)| css.clone()).collect();
        let mut edits = plan.edits;
        // From the end of each sheet, so earlier offsets stay right.
        edits.sort_by_key(|e| std::cmp::Reverse((e.sheet, e.start)));
        for e in edits {
            if let Some(css) = edited.get_mut(e.sheet)
                && css.is_char_boundary(e.start)
                && css.is_char_boundary(e.end)
                && e.start <= e.end
                && e.end <= css.len()
            {
                css.replace_range(e.start..e.end, &e.text);
                changes.push(e.note);
            }
        }
        let pairs: Vec<(String, String)> =
            sheets.into_iter().map(|(css, _)| css).zip(edited).collect();
        match rewrite_sheets(&page, &pairs) {
            Some(next) if next != page => page = next,
            _ => break,
        }
    }
    // Out of rounds (or a sheet could not be written back): say what still fails.
    let (_, plan) = plan_page(&page);
    let mut unrepaired = plan.unrepairable;
    for e in plan.edits {
        unrepaired.push(format!(
            "{} (still failing after {MAX_ROUNDS} rounds of repair: the colours are shared)",
            e.note
        ));
    }
    ContrastRepair {
        html: page,
        changes,
        unrepaired,
    }
}

/// The page's own sheets (`own_sheets`) and the contrast repairs they need.
fn plan_page(page: &str) -> (Vec<(String, Option<usize>)>, contrast::RepairPlan) {
    let parsed = parse::parse(page, false);
    let sheets = own_sheets(&parsed);
    let views: Vec<Sheet<'_>> = sheets
        .iter()
        .map(|(css, line)| Sheet { css, line: *line })
        .collect();
    let plan = contrast::plan_repairs(&parsed, &views);
    (sheets, plan)
}

/// The page's own `<style>` sheets (not the injected runtime's), in document order, with the
/// line each starts on: exactly what the validator's contrast rule reads.
fn own_sheets(parsed: &parse::Parsed) -> Vec<(String, Option<usize>)> {
    let Ok(sel) = Selector::parse("style") else {
        return Vec::new();
    };
    parsed
        .html
        .select(&sel)
        .filter(|e: &ElementRef<'_>| e.value().attr(RUNTIME_ATTR).is_none())
        .map(|e| (e.text().collect::<String>(), parsed.line_of(&e)))
        .collect()
}

/// Writes edited sheets back into the page: each own `<style>` whose text is an original gets
/// the edited text (matched by content, in order, so that parser quirks cannot misplace one).
fn rewrite_sheets(html: &str, pairs: &[(String, String)]) -> Option<String> {
    struct St {
        runtime: bool,
        buffer: String,
        used: Vec<bool>,
        /// The current `<style>`'s text was rewritten and its end tag has not been seen.
        edited_open: bool,
    }
    let state = Rc::new(RefCell::new(St {
        runtime: false,
        buffer: String::new(),
        used: vec![false; pairs.len()],
        edited_open: false,
    }));
    let s_el = state.clone();
    let s_text = state.clone();
    let s_end = state.clone();
    let settings = RewriteStrSettings::new()
        .append_element_content_handler(element!("style", move |el| {
            {
                let mut st = s_el.borrow_mut();
                st.runtime = el.has_attribute(RUNTIME_ATTR);
                st.buffer.clear();
                st.edited_open = false;
            }
            let s_close = s_el.clone();
            let on_close: lol_html::EndTagHandler<'static> = Box::new(move |_| {
                s_close.borrow_mut().edited_open = false;
                Ok(())
            });
            el.on_end_tag(on_close)?;
            Ok(())
        }))
        .append_element_content_handler(text!("style", move |chunk| {
            let mut st = s_text.borrow_mut();
            if st.runtime {
                return Ok(());
            }
            st.buffer.push_str(chunk.as_str());
            if !chunk.last_in_text_node() {
                chunk.remove();
                return Ok(());
            }
            let css = std::mem::take(&mut st.buffer);
            let found = pairs
                .iter()
                .enumerate()
                .find(|(i, (orig, _))| !st.used[*i] && *orig == css)
                .map(|(i, _)| i);
            let out = match found {
                Some(i) => {
                    st.used[i] = true;
                    st.edited_open |= pairs[i].1 != css;
                    pairs[i].1.clone()
                }
                None => css,
            };
            // The edits only write colours: nothing can close the element early.
            chunk.replace(&out, ContentType::Html);
            Ok(())
        }))
        // A sheet left open by a truncated page runs to the end of the document, so rules the
        // repair appended would end the page as bare text (which reads as prose after the
        // HTML). Closing it there changes nothing else: the element ended there anyway.
        .append_document_content_handler(end!(move |end| {
            if s_end.borrow().edited_open {
                end.append("</style>", ContentType::Html);
            }
            Ok(())
        }))
        .with_strict(false);
    rewrite_str(html, settings).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Options, validate};

    fn low_contrast(html: &str) -> Vec<String> {
        let opts = Options {
            llm_output: true,
            ..Options::default()
        };
        validate(html, &opts)
            .into_iter()
            .filter(|f| f.rule == "low-contrast")
            .map(|f| f.message)
            .collect()
    }

    /// Repairs `html`, which has `failing` low-contrast findings (the first holding `first`),
    /// and checks the repaired page has none; what the repair did.
    fn repaired_clean(html: &str, failing: usize, first: &str) -> ContrastRepair {
        let before = low_contrast(html);
        assert_eq!(before.len(), failing, "{before:?}");
        assert!(before[0].contains(first), "{before:?}");
        let r = repair_contrast(html);
        assert_eq!(low_contrast(&r.html), Vec::<String>::new(), "{}", r.html);
        r
    }

    /// Whether every one of `needles` is (`true`) or is not in `text`.
    fn has(text: &str, needles: &[(&str, bool)]) {
        for (needle, kept) in needles {
            assert_eq!(text.contains(needle), *kept, "{needle:?} in {text}");
        }
    }

    #[test]
    fn a_light_button_in_the_dark_theme_is_darkened_in_its_own_rule() {
        let html = "<!doctype html><html><head><style>\n\
            :root { --accent: #2563eb; --bg: #fff; --fg: #111; }\n\
            @media (prefers-color-scheme: dark) { :root { --accent: #4da3ff; --bg: #111827; --fg: #e5e7eb; } }\n\
            [data-theme=dark] { --accent: #4da3ff; }\n\
            body { background: var(--bg); color: var(--fg); }\n\
            button { background: var(--accent); color: #fff; }\n\
            </style></head><body><button>Run</button></body></html>";
        let r = repaired_clean(html, 1, "dark theme");
        assert!(r.unrepaired.is_empty(), "{:?}", r.unrepaired);
        // The dark theme's definition moved, not the light one, nor the white text.
        has(
            &r.html,
            &[
                ("--accent: #2563eb;", true),
                ("#4da3ff", false),
                ("color: #fff;", true),
            ],
        );
        // Both dark definitions (media query and selector) moved together.
        let moved = r
            .changes
            .iter()
            .filter(|c| c.contains("background #4da3ff →"));
        assert_eq!((r.changes.len(), moved.count()), (2, 1), "{:?}", r.changes);
    }

    #[test]
    fn status_colours_on_tints_and_shorthands_are_repaired_and_the_rest_kept() {
        let html = "<!doctype html><html><head><style>/* a comment, kept */\n\
            body{background:#fff;color:#1f2937}\n\
            .badge.ok{background:#dcfce7 ;color:#22c55e!important}\n\
            .card{background: #fef3c7 none no-repeat; color:#f59e0b; padding:4px}\n\
            .muted{color:#9ca3af}\n\
            </style></head><body><span class='badge ok'>ok</span><div class=card>warn</div><p class=muted>x</p></body></html>";
        let r = repaired_clean(html, 3, "contrast");
        let kept = [
            "/* a comment, kept */",
            "!important",
            "none no-repeat",
            "padding:4px",
        ];
        has(&r.html, &kept.map(|k| (k, true)));
        // Text moved, not the tints: they change more.
        let text = r.changes.iter().filter(|c| c.contains(": text #"));
        assert_eq!((r.changes.len(), text.count()), (3, 3), "{:?}", r.changes);
    }

    #[test]
    fn script_made_text_must_read_on_the_pages_tints_too() {
        // `.label` passes on the page (5:1) but not on the tinted card it is put in by the
        // script (4.3:1); the dark `.inverse` card's light title is meant for that card.
        let html = "<!doctype html><html><head><style>\n\
            body{background:#0b1220;color:#e2e8f0}\n\
            .card{background:#13203a}\n\
            .label{color:#3b82f6}\n\
            .inverse{background:#f8fafc}\n\
            .inverse-title{color:#0f172a}\n\
            </style></head><body><div id=out></div></body></html>";
        let r = repaired_clean(html, 1, "`.label`");
        has(&r.html, &[(".inverse-title{color:#0f172a}", true)]);
    }

    #[test]
    fn text_coloured_by_a_style_attribute_on_the_page_background_is_not_repairable() {
        let html = "<!doctype html><html><head><style>body{background:#fff;color:#111}</style></head><body><p style='color:#ccc'>x</p></body></html>";
        assert_eq!(low_contrast(html).len(), 1);
        let r = repair_contrast(html);
        assert_eq!(r.html, html);
        assert!(r.changes.is_empty());
        assert_eq!(r.unrepaired.len(), 1, "{:?}", r.unrepaired);
        assert!(
            r.unrepaired[0].contains("style attribute"),
            "{:?}",
            r.unrepaired
        );
    }

    #[test]
    fn a_shared_status_colour_failing_only_in_the_dark_gets_a_dark_rule_of_its_own() {
        let html = "<!doctype html><html><head><style>\n            body{background:#fff;color:#111}\n            [data-theme=dark] body{background:#0f172a;color:#e2e8f0}\n            .ok{color:#15803d}\n            </style></head><body><p class=ok>ok</p></body></html>";
        let r = repaired_clean(html, 1, "dark theme");
        // The light theme keeps its colour.
        has(
            &r.html,
            &[
                (".ok{color:#15803d}", true),
                ("[data-theme=dark] .ok { color: #", true),
            ],
        );
    }
}
