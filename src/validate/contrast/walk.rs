//! The WCAG walk: every text the page shows (in the markup, or coloured by a rule for text its
//! scripts write) against the background it sits on, in each theme the page styles.

use std::collections::{HashMap, HashSet};

use scraper::{ElementRef, Selector};

use super::cascade::{Scenario, Style, TINT_RATIO, font_px, is_large, repair_target};
use super::colour::{Rgba, ratio};
use super::rules::{
    Block, Loc, Rule, Sheet, is_root_selector, is_state_selector, parse_rules, strip_comments,
};
use crate::validate::finding::{Finding, Severity};
use crate::validate::parse::Parsed;

/// A text colour on a background that fails WCAG AA, with what a repair needs to move either.
#[derive(Debug, Clone)]
pub(super) struct Pair {
    pub(super) dark: bool,
    pub(super) line: Option<usize>,
    pub(super) selector: String,
    /// Composited text and background colours, their contrast and the ratio needed.
    pub(super) fg: Rgba,
    pub(super) bg: Rgba,
    pub(super) ratio: f64,
    pub(super) need: f64,
    /// What a repair aims at: AA with a small margin, and 4.5:1 unless the text is large by
    /// size alone (browsers and checkers disagree on what counts as bold).
    pub(super) target: f64,
    pub(super) fg_raw: Rgba,
    pub(super) fg_src: Option<Loc>,
    pub(super) bg_raw: Rgba,
    pub(super) bg_under: Rgba,
    pub(super) bg_src: Option<Loc>,
    /// Text the scripts create may sit on any background the page defines: a repair of its
    /// colour aims at all of them when it can.
    pub(super) other_bgs: Vec<Rgba>,
}

/// Every failing pair of the page, in the light theme and, when the page styles one, the dark
/// theme (deduplicated by rule, theme and selector, as reported).
pub(super) fn analyse(parsed: &Parsed, sheets: &[Sheet<'_>], llm: bool) -> (Vec<Pair>, Vec<Rule>) {
    let mut rules = Vec::new();
    for (n, sheet) in sheets.iter().enumerate() {
        let at = Block {
            sheet: n,
            offset: 0,
            line: sheet.line,
        };
        parse_rules(&strip_comments(sheet.css), at, false, &mut rules);
    }
    // Hostile input: keep the work bounded.
    rules.truncate(2000);
    let has_dark = rules.iter().any(|r| r.dark);
    let mut reported: HashSet<(Option<usize>, bool, String)> = HashSet::new();
    let mut themes = vec![false];
    // An LLM page whose styles know only the light theme is kept light by the post-processor.
    if has_dark {
        themes.push(true);
    }
    let mut pairs = Vec::new();
    for dark in themes {
        for p in theme_pairs(parsed, &rules, dark, llm) {
            if reported.insert((p.line, dark, p.selector.clone())) {
                pairs.push(p);
            }
        }
    }
    (pairs, rules)
}

/// The failing pairs of one theme: the markup's text, then (for LLM pages) the text the
/// scripts create.
pub(super) fn theme_pairs(parsed: &Parsed, rules: &[Rule], dark: bool, llm: bool) -> Vec<Pair> {
    let mut sc = Scenario::new(rules, dark);
    sc.llm = llm;
    let compiled: Vec<(&Rule, Option<Selector>)> = sc
        .rules
        .iter()
        .map(|r| {
            let sel = (!is_state_selector(&r.selector))
                .then(|| Selector::parse(&r.selector).ok())
                .flatten();
            (*r, sel)
        })
        .collect();
    let mut matched_rules: HashSet<usize> = HashSet::new();
    let root = Style {
        fg: Some(sc.default_fg),
        fg_src: None,
        bg: sc.default_bg,
        bg_raw: sc.default_bg,
        bg_under: sc.default_bg,
        bg_src: None,
        px: 16.0,
        bold: false,
        line: None,
        unknown: false,
    };
    let mut found = Vec::new();
    walk(
        parsed.html.root_element(),
        root,
        &sc,
        &compiled,
        &mut matched_rules,
        &mut found,
        0,
    );
    // (Only for LLM pages: a hand-written page's script-made text is its author's call, and
    // such rules often colour SVG strokes rather than text.)
    if llm {
        script_text_pairs(&sc, &compiled, &matched_rules, dark, &mut found);
    }
    found
}

/// Where text the scripts create can sit, in one theme.
pub(super) struct Surfaces {
    /// The page's own background.
    pub(super) page: Rgba,
    /// Every background, for judging (text that fails on all of them fails wherever it goes).
    pub(super) every: Vec<Rgba>,
    /// The page and its containers, for repairing.
    pub(super) hosts: Vec<Rgba>,
}

/// Where text the scripts create can sit: the page, and the containers the page paints without
/// colouring their text (a rule that colours its own text, a button or a badge, is not where
/// other text goes). One background per selector, as the cascade leaves it.
pub(super) fn surfaces(sc: &Scenario<'_>, compiled: &[(&Rule, Option<Selector>)]) -> Surfaces {
    let page_bg = page_background(sc, compiled);
    let mut by_selector: Vec<(&str, Rgba, bool)> = Vec::new();
    for (r, _) in compiled {
        if is_root_selector(&r.selector) || is_state_selector(&r.selector) {
            continue;
        }
        let Some(Some(bg)) = sc.background_of(&r.decls) else {
            continue;
        };
        let colours_text = r.decls.iter().any(|(p, _)| p == "color");
        by_selector.retain(|(s, _, _)| *s != r.selector.as_str());
        if bg.a > 0.0 {
            by_selector.push((r.selector.as_str(), bg, colours_text));
        }
    }
    let every = std::iter::once(page_bg)
        .chain(by_selector.iter().map(|(_, bg, _)| bg.over(page_bg)))
        .collect();
    let hosts = std::iter::once(page_bg)
        .chain(
            by_selector
                .iter()
                .filter(|(_, _, colours)| !colours)
                .map(|(_, bg, _)| bg.over(page_bg)),
        )
        .collect();
    Surfaces {
        page: page_bg,
        every,
        hosts,
    }
}

/// Text the scripts create: rules that colour text and that no element in the markup matches.
pub(super) fn script_text_pairs(
    sc: &Scenario<'_>,
    compiled: &[(&Rule, Option<Selector>)],
    matched_rules: &HashSet<usize>,
    dark: bool,
    found: &mut Vec<Pair>,
) {
    let surfaces = surfaces(sc, compiled);
    // The last rule (in cascade order) that colours text, per selector: earlier ones are
    // overridden (a dark theme's `.error` over the light one).
    let mut last_colour: HashMap<&str, usize> = HashMap::new();
    for (r, _) in compiled {
        if r.decls.iter().any(|(p, _)| p == "color") {
            last_colour.insert(r.selector.as_str(), r.order);
        }
    }
    for (r, sel) in compiled {
        if sel.is_none()
            || matched_rules.contains(&r.order)
            || last_colour
                .get(r.selector.as_str())
                .is_some_and(|last| *last != r.order)
        {
            continue;
        }
        script_rule_pair(sc, r, &surfaces, dark, found);
    }
}

/// The failing pair of one rule that colours script-made text, if it fails.
pub(super) fn script_rule_pair(
    sc: &Scenario<'_>,
    r: &Rule,
    surfaces: &Surfaces,
    dark: bool,
    found: &mut Vec<Pair>,
) {
    let Some((fg, fg_loc)) = r
        .decls
        .iter()
        .zip(&r.locs)
        .rev()
        .find(|((p, _), _)| p == "color")
        .and_then(|((_, v), loc)| Some((sc.color_of(v)?, sc.source_of(v, *loc, 0))))
    else {
        return;
    };
    let px = r
        .decls
        .iter()
        .rev()
        .find(|(p, _)| p == "font-size")
        .and_then(|(_, v)| font_px(v, 16.0))
        .unwrap_or(16.0);
    let bold = r.decls.iter().any(|(p, v)| {
        p == "font-weight"
            && (v.contains("bold") || v.trim().parse::<u32>().is_ok_and(|w| w >= 700))
    });
    let need = if is_large(px, bold) { 3.0 } else { 4.5 };
    let page_bg = surfaces.page;
    let mut pair = |bg_raw: Rgba, bg_under: Rgba, bg_src: Option<Loc>, other_bgs: Vec<Rgba>| {
        let bg = bg_raw.over(bg_under);
        let fgc = fg.over(bg);
        let q = ratio(fgc, bg);
        if q < need {
            found.push(Pair {
                dark,
                line: r.line,
                selector: r.selector.clone(),
                fg: fgc,
                bg,
                ratio: q,
                need,
                target: repair_target(px),
                fg_raw: fg,
                fg_src: Some(fg_loc),
                bg_raw,
                bg_under,
                bg_src,
                other_bgs,
            });
        }
    };
    match sc.background_with_src(&r.decls, &r.locs) {
        Some((Some(bg), src)) => pair(bg, page_bg, src, Vec::new()),
        Some((None, _)) => {}
        None => {
            // Text that reads well only on a surface unlike the page (light text for
            // a dark card on a light page) is meant for that surface. Other text goes
            // on the page and its tints (containers close to the page's colour), and
            // must read on all of them; it is repaired for all of them.
            let tint = |b: &Rgba| ratio(*b, page_bg) < TINT_RATIO;
            let best = surfaces
                .every
                .iter()
                .map(|bg| (ratio(fg.over(*bg), *bg), *bg))
                .fold(None::<(f64, Rgba)>, |w, x| match w {
                    Some(b) if b.0 >= x.0 => Some(b),
                    _ => Some(x),
                });
            let for_other_surface = best.is_some_and(|(q, bg)| q >= need && !tint(&bg));
            let tints: Vec<Rgba> = surfaces.hosts.iter().copied().filter(|b| tint(b)).collect();
            let worst = tints.iter().map(|bg| (ratio(fg.over(*bg), *bg), *bg)).fold(
                None::<(f64, Rgba)>,
                |w, x| match w {
                    Some(b) if b.0 <= x.0 => Some(b),
                    _ => Some(x),
                },
            );
            if !for_other_surface && let Some((_, bg)) = worst {
                pair(bg, bg, None, tints);
            }
        }
    }
}

pub fn check(parsed: &Parsed, sheets: &[Sheet<'_>], llm: bool, out: &mut Vec<Finding>) {
    let severity = if llm {
        Severity::Error
    } else {
        Severity::Warning
    };
    for p in analyse(parsed, sheets, llm).0 {
        let theme = if p.dark { "dark" } else { "light" };
        out.push(Finding {
            severity,
            rule: "low-contrast",
            message: format!(
                "text colour {} on background {} has a contrast of {:.2}:1 in the {theme} \
                 theme, below WCAG AA ({}:1{}); darken or lighten the text or the \
                 background (style rule `{}`)",
                p.fg.hex(),
                p.bg.hex(),
                p.ratio,
                p.need,
                if p.need < 4.0 { ", large text" } else { "" },
                crate::validate::finding::clip(&p.selector),
            ),
            line: p.line,
        });
    }
}

pub(super) fn page_background(sc: &Scenario<'_>, compiled: &[(&Rule, Option<Selector>)]) -> Rgba {
    let mut bg = sc.default_bg;
    for (r, _) in compiled {
        if is_root_selector(&r.selector)
            && let Some(Some(c)) = sc.background_of(&r.decls)
        {
            bg = c.over(bg);
        }
    }
    bg
}

pub(super) fn walk(
    el: ElementRef<'_>,
    parent: Style,
    sc: &Scenario<'_>,
    rules: &[(&Rule, Option<Selector>)],
    matched: &mut HashSet<usize>,
    out: &mut Vec<Pair>,
    depth: usize,
) {
    if depth > 200 {
        return;
    }
    let name = el.value().name();
    if matches!(
        name,
        "script" | "style" | "head" | "template" | "svg" | "noscript"
    ) {
        return;
    }
    let mut st = parent;
    st.px = match name {
        "h1" => parent.px * 2.0,
        "h2" => parent.px * 1.5,
        "h3" => parent.px * 1.17,
        _ => parent.px,
    };
    if matches!(
        name,
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "b" | "strong" | "th"
    ) {
        st.bold = true;
    }
    let mut own_bg: Option<(Rgba, Option<Loc>)> = None;
    let mut selector = String::new();
    let mut apply = |decls: &[(String, String)], locs: &[Loc], line: Option<usize>, sel: &str| {
        for (k, (p, v)) in decls.iter().enumerate() {
            match p.as_str() {
                "color" => match sc.color_of(v) {
                    Some(c) => {
                        st.fg = Some(c);
                        st.fg_src = locs.get(k).map(|l| sc.source_of(v, *l, 0));
                        st.unknown = false;
                        st.line = line;
                        selector = sel.to_string();
                    }
                    None => st.unknown = !v.trim().eq_ignore_ascii_case("inherit"),
                },
                "font-size" => {
                    if let Some(px) = sc.resolve(v, 0).and_then(|v| font_px(&v, parent.px)) {
                        st.px = px;
                    }
                }
                "font-weight" => {
                    st.bold = v.contains("bold") || v.trim().parse::<u32>().is_ok_and(|w| w >= 600);
                }
                _ => {}
            }
        }
        match sc.background_with_src(decls, locs) {
            Some((Some(c), src)) => {
                own_bg = Some((c, src));
                if st.line.is_none() || selector.is_empty() {
                    st.line = line;
                    selector = sel.to_string();
                }
            }
            // A picture or gradient: what the text sits on is unknown.
            Some((None, _)) => st.unknown = true,
            None => {}
        }
    };
    for (r, sel) in rules {
        if let Some(sel) = sel
            && sel.matches(&el)
        {
            matched.insert(r.order);
            apply(&r.decls, &r.locs, r.line, &r.selector);
        }
    }
    if let Some(style) = el.value().attr("style") {
        let decls: Vec<(String, String)> = style
            .split(';')
            .filter_map(|d| {
                let (p, v) = d.split_once(':')?;
                Some((p.trim().to_ascii_lowercase(), v.trim().to_string()))
            })
            .collect();
        // A style attribute is not a sheet (no locations): a repair moves the other colour.
        apply(&decls, &[], None, "style attribute");
    }
    if let Some((bg, src)) = own_bg {
        st.bg = bg.over(parent.bg);
        st.bg_raw = bg;
        st.bg_under = parent.bg;
        // The page's own background is never moved to suit one element.
        st.bg_src = src.filter(|_| !matches!(name, "html" | "body"));
    }
    let has_text = el
        .children()
        .any(|c| c.value().as_text().is_some_and(|t| !t.trim().is_empty()))
        // An empty element a rule of its own colours is where a script puts text (LLM pages).
        || (sc.llm
            && !selector.is_empty()
            && selector != "style attribute"
            && el.children().all(|c| c.value().as_text().is_some_and(|t| t.trim().is_empty()))
            && !matches!(
                name,
                "input" | "select" | "textarea" | "button" | "img" | "br" | "hr" | "canvas"
                    | "video" | "audio" | "iframe" | "progress" | "meter"
            ));
    // Form controls draw their own text, on their own background.
    let control = matches!(name, "input" | "select" | "textarea" | "button");
    if (has_text || control)
        && !st.unknown
        && let Some(fg) = st.fg
        && (st.line.is_some() || parent.line.is_some())
    {
        let fgc = fg.over(st.bg);
        let q = ratio(fgc, st.bg);
        let need = if is_large(st.px, st.bold) { 3.0 } else { 4.5 };
        // Native controls keep the browser's colours unless the page set one.
        if q < need && !(control && own_bg.is_none() && selector.is_empty()) {
            out.push(Pair {
                dark: sc.dark,
                line: st.line,
                selector: selector.clone(),
                fg: fgc,
                bg: st.bg,
                ratio: q,
                need,
                target: repair_target(st.px),
                fg_raw: fg,
                fg_src: st.fg_src,
                bg_raw: st.bg_raw,
                bg_under: st.bg_under,
                bg_src: st.bg_src,
                other_bgs: Vec::new(),
            });
        }
    }
    for child in el.children() {
        if let Some(c) = ElementRef::wrap(child) {
            walk(c, st, sc, rules, matched, out, depth + 1);
        }
    }
}
