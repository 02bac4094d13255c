//! The cascade the contrast rule applies: which rules match an element in one theme, the
//! custom properties they define, and the colours, backgrounds and font sizes that result.

use std::collections::HashMap;

use super::colour::{DARK_BG, DARK_FG, LIGHT_BG, LIGHT_FG, Rgba, parse_color};
use super::rules::{Loc, Rule, is_root_selector};

pub(super) struct Scenario<'r> {
    pub(super) dark: bool,
    /// The page was written by an LLM (stricter: script-filled elements are checked too).
    pub(super) llm: bool,
    pub(super) rules: Vec<&'r Rule>,
    pub(super) vars: HashMap<String, (String, Loc)>,
    pub(super) default_fg: Rgba,
    pub(super) default_bg: Rgba,
}

impl<'r> Scenario<'r> {
    pub(super) fn new(all: &'r [Rule], dark: bool) -> Self {
        let mut rules: Vec<&Rule> = all
            .iter()
            .filter(|r| if dark { !r.light_only } else { !r.dark })
            .collect();
        // Dark rules apply after the light ones they override.
        rules.sort_by_key(|r| (r.dark, r.specificity, r.order));
        let mut vars = HashMap::new();
        // Variables: the root's win; anything else only when the root has none of that name.
        for scoped in [false, true] {
            for r in &rules {
                if is_root_selector(&r.selector) == scoped {
                    for ((p, v), loc) in r.decls.iter().zip(&r.locs) {
                        if p.starts_with("--") {
                            vars.insert(p.clone(), (v.clone(), *loc));
                        }
                    }
                }
            }
        }
        let (default_fg, default_bg) = if dark {
            (DARK_FG, DARK_BG)
        } else {
            (LIGHT_FG, LIGHT_BG)
        };
        Scenario {
            dark,
            llm: false,
            rules,
            vars,
            default_fg,
            default_bg,
        }
    }

    pub(super) fn resolve(&self, value: &str, depth: usize) -> Option<String> {
        let value = value.trim().trim_end_matches("!important").trim();
        let Some(i) = value.find("var(") else {
            return Some(value.to_string());
        };
        if depth > 8 {
            return None;
        }
        let inner_start = i + 4;
        let mut level = 1usize;
        let mut end = None;
        for (k, c) in value[inner_start..].char_indices() {
            match c {
                '(' => level += 1,
                ')' => {
                    level -= 1;
                    if level == 0 {
                        end = Some(inner_start + k);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        let inner = &value[inner_start..end];
        let (name, fallback) = match inner.split_once(',') {
            Some((n, f)) => (n.trim(), Some(f.trim())),
            None => (inner.trim(), None),
        };
        let replaced = match self.vars.get(name) {
            Some((v, _)) => self.resolve(v, depth + 1)?,
            None => self.resolve(fallback?, depth + 1)?,
        };
        let whole = format!("{}{}{}", &value[..i], replaced, &value[end + 1..]);
        self.resolve(&whole, depth + 1)
    }

    pub(super) fn color_of(&self, value: &str) -> Option<Rgba> {
        parse_color(&self.resolve(value, 0)?)
    }

    /// The declaration a value's colour really comes from: the value itself, or, when it is
    /// just `var(--x)`, the definition of `--x` this theme uses (followed through chains).
    pub(super) fn source_of(&self, value: &str, own: Loc, depth: usize) -> Loc {
        let v = value.trim().trim_end_matches("!important").trim();
        if depth > 8 {
            return own;
        }
        let Some(inner) = v.strip_prefix("var(").and_then(|x| x.strip_suffix(')')) else {
            return own;
        };
        let name = inner.split(',').next().unwrap_or("").trim();
        match self.vars.get(name) {
            Some((v, loc)) => self.source_of(v, *loc, depth + 1),
            None => own,
        }
    }

    /// The colour a `background`/`background-color` declaration paints, if it is one plain
    /// colour (images and gradients are left alone: unknown).
    pub(super) fn background_of(&self, decls: &[(String, String)]) -> Option<Option<Rgba>> {
        let mut found = None;
        for (p, v) in decls {
            if p == "background-color" || p == "background" {
                let v = self.resolve(v, 0);
                found = Some(v.and_then(|v| {
                    if v.contains("gradient") || v.contains("url(") {
                        return None;
                    }
                    if p == "background" {
                        v.split_whitespace()
                            .find_map(parse_color)
                            .or_else(|| parse_color(&v))
                    } else {
                        parse_color(&v)
                    }
                }));
            }
        }
        found
    }

    /// `background_of`, with the declaration the colour comes from.
    pub(super) fn background_with_src(
        &self,
        decls: &[(String, String)],
        locs: &[Loc],
    ) -> Option<(Option<Rgba>, Option<Loc>)> {
        let colour = self.background_of(decls)?;
        let src = decls
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (p, _))| p == "background-color" || p == "background")
            .and_then(|(k, (_, v))| locs.get(k).map(|l| self.source_of(v, *l, 0)));
        Some((colour, src))
    }
}

pub(super) fn font_px(value: &str, parent: f64) -> Option<f64> {
    let v = value.trim().trim_end_matches("!important").trim();
    let num = |s: &str| s.trim().parse::<f64>().ok();
    if let Some(x) = v.strip_suffix("px") {
        num(x)
    } else if let Some(x) = v.strip_suffix("rem") {
        num(x).map(|x| x * 16.0)
    } else if let Some(x) = v.strip_suffix("em") {
        num(x).map(|x| x * parent)
    } else if let Some(x) = v.strip_suffix("pt") {
        num(x).map(|x| x * 4.0 / 3.0)
    } else if let Some(x) = v.strip_suffix('%') {
        num(x).map(|x| x / 100.0 * parent)
    } else {
        None
    }
}

/// Below this contrast with the page's background, a container's background is a tint of the
/// page: text for the page may be put on it.
pub(super) const TINT_RATIO: f64 = 1.6;

/// The contrast a repair aims at for text of this size (see [`Pair::target`]).
pub(super) fn repair_target(px: f64) -> f64 {
    const MARGIN: f64 = 0.05;
    if px >= 24.0 {
        3.0 + MARGIN
    } else {
        4.5 + MARGIN
    }
}

pub(super) fn is_large(px: f64, bold: bool) -> bool {
    px >= 24.0 || (bold && px >= 18.66)
}

/// What one element inherits and paints.
#[derive(Clone, Copy)]
pub(super) struct Style {
    pub(super) fg: Option<Rgba>,
    /// The declaration the text colour comes from (`None`: a default or a style attribute).
    pub(super) fg_src: Option<Loc>,
    /// The background the text sits on (composited), the colour that paints it as declared, what
    /// that colour is laid over, and the declaration it comes from.
    pub(super) bg: Rgba,
    pub(super) bg_raw: Rgba,
    pub(super) bg_under: Rgba,
    pub(super) bg_src: Option<Loc>,
    pub(super) px: f64,
    pub(super) bold: bool,
    /// The rule that set the colour or the background last, for the message.
    pub(super) line: Option<usize>,
    pub(super) unknown: bool,
}
