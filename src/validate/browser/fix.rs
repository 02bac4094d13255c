//! The mechanical repair of what the browser found: rendered text below AA (whatever set its
//! colour, the page's own script included) gets a rule of its own, in the theme it failed in, with
//! the nearest colour of the same hue that reaches AA on the background it was seen on. The rule
//! also pins that background on the element (it was painted there already, so nothing changes on
//! screen): the static contrast check, which cannot see what a script painted, then reads the
//! same pair the browser saw.

use super::types::{BrowserFinding, Theme};

/// The page with a repair rule for every contrast finding that has one; the changes made (one
/// line each) and the findings that could not be repaired.
pub fn repair_contrast(
    html: &str,
    findings: &[BrowserFinding],
) -> (String, Vec<String>, Vec<String>) {
    let mut rules = String::new();
    let (mut changes, mut failed) = (Vec::new(), Vec::new());
    for f in findings {
        let Some(c) = &f.contrast else { continue };
        if c.selector.is_empty() || c.selector.contains(['{', '}', '<', ';']) {
            failed.push(format!("{}: no selector reaches the element", f.message));
            continue;
        }
        // A little margin over the bar: the browser rounds what it renders.
        let Some(colour) = crate::validate::nearest_reaching(&c.fg, &c.bg, c.need + 0.05) else {
            failed.push(format!(
                "{}: no colour of the same hue reaches AA",
                f.message
            ));
            continue;
        };
        let scope = match c.theme {
            Theme::Dark => "html[data-theme=\"dark\"]",
            Theme::Light => "html:not([data-theme=\"dark\"])",
        };
        rules.push_str(&format!(
            "{scope} {} {{ color: {colour} !important; background-color: {} !important; }}\n",
            c.selector, c.bg
        ));
        changes.push(format!(
            "low contrast in the browser: {} on {} ({} theme, `{}`): text colour → {colour}",
            c.fg,
            c.bg,
            c.theme.name(),
            c.selector
        ));
    }
    if rules.is_empty() {
        return (html.to_string(), changes, failed);
    }
    let style = format!("<style data-mcp-gen-ui-repair>\n{rules}</style>\n");
    let lower = html.to_ascii_lowercase();
    let at = lower
        .rfind("</head>")
        .or_else(|| lower.rfind("</body>"))
        .unwrap_or(html.len());
    let mut out = String::with_capacity(html.len() + style.len());
    out.push_str(&html[..at]);
    out.push_str(&style);
    out.push_str(&html[at..]);
    (out, changes, failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::browser::types::ContrastFix;

    #[test]
    fn script_set_colours_get_a_rule_of_their_own() {
        let f = BrowserFinding {
            rule: "browser-contrast",
            message: "pale".into(),
            line: None,
            contrast: Some(ContrastFix {
                selector: "#list > div.issue[style*=\"color\"]".into(),
                theme: Theme::Light,
                fg: "#c0c4cc".into(),
                bg: "#ffffff".into(),
                need: 4.5,
            }),
        };
        let (html, changes, failed) = repair_contrast(
            "<html><head><title>t</title></head><body></body></html>",
            &[f],
        );
        assert!(failed.is_empty());
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert!(
            html.contains(
                "html:not([data-theme=\"dark\"]) #list > div.issue[style*=\"color\"] { color: #"
            ),
            "{html}"
        );
        // The background it was seen on is pinned, so the static check reads the same pair.
        assert!(
            html.contains("background-color: #ffffff !important; }"),
            "{html}"
        );
        assert!(
            html.find("<style data-mcp-gen-ui-repair>").unwrap() < html.find("</head>").unwrap()
        );
    }
}
