//! Repair planning for the contrast rule: for each failing pair, the colour that moves least to
//! the nearest colour of the same hue that reaches AA, in the declaration it comes from.

use std::collections::HashSet;

use super::colour::{Rgba, css_colour, delta_e, nearest_same_hue, parse_color, ratio, rounded};
use super::rules::{Loc, Rule, Sheet, is_root_selector};
use super::walk::{Pair, analyse};
use crate::css::{Kind, Tokenizer};
use crate::validate::parse::Parsed;

// ---- Repair ------------------------------------------------------------------------------------

/// One value to write into a sheet, and what it does (one human line).
#[derive(Debug, Clone)]
pub(crate) struct ValueEdit {
    pub(crate) sheet: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) text: String,
    pub(crate) note: String,
}

/// What a repair round would change, and the pairs it cannot fix (why, one line each).
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) edits: Vec<ValueEdit>,
    pub(crate) unrepairable: Vec<String>,
    /// Failing pairs left for the next round (their colour was already being moved).
    pub(crate) deferred: usize,
}

/// `value` with its colour replaced by `new` (the whole value, or the colour token of a
/// `background` shorthand); `!important` is kept.
pub(super) fn replace_colour(value: &str, new: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let (core, important) = match lower.find("!important") {
        Some(i) => (&value[..i], &value[i..]),
        None => (value, ""),
    };
    let sep = if important.is_empty() { "" } else { " " };
    let core_t = core.trim();
    if parse_color(core_t).is_some() || core_t.starts_with("var(") {
        return Some(format!("{new}{sep}{important}"));
    }
    let token = core_t
        .split_whitespace()
        .find(|t| parse_color(t).is_some())?;
    let mut at = None;
    let mut from = 0;
    while let Some(i) = core[from..].find(token) {
        let s = from + i;
        let e = s + token.len();
        let before_ok = s == 0 || core.as_bytes()[s - 1].is_ascii_whitespace();
        let after_ok = e == core.len() || core.as_bytes()[e].is_ascii_whitespace();
        if before_ok && after_ok {
            at = Some((s, e));
            break;
        }
        from = e;
    }
    let (s, e) = at?;
    Some(format!("{}{new}{}{important}", &core[..s], &core[e..]))
}

/// Whether a rule appended at the end of `css` stands on its own: every comment, string,
/// bracket and block is closed and nothing half-written (a selector, an `@import` without its
/// `;`) is left at the top level for the rule to join. A sheet a truncated page cut short fails.
pub(super) fn ends_clean(css: &str) -> bool {
    // `</` could end the element early in a page a parser reads differently.
    if css.contains("</") {
        return false;
    }
    // Open `(`, `[` and `{`, innermost last.
    let mut open: Vec<Kind> = Vec::new();
    // Top-level text since the last `;` or `}` (a prelude or declaration not yet finished).
    let mut pending = false;
    for t in Tokenizer::new(css) {
        if t.unclosed || matches!(t.kind, Kind::BadString | Kind::BadUrl) {
            return false;
        }
        match t.kind {
            Kind::Comment | Kind::Whitespace => {}
            Kind::OpenCurly => open.push(Kind::OpenCurly),
            Kind::OpenParen | Kind::Function | Kind::OpenSquare => {
                pending |= open.is_empty();
                open.push(if t.kind == Kind::OpenSquare {
                    Kind::OpenSquare
                } else {
                    Kind::OpenParen
                });
            }
            Kind::CloseParen | Kind::CloseSquare | Kind::CloseCurly => {
                let want = match t.kind {
                    Kind::CloseParen => Kind::OpenParen,
                    Kind::CloseSquare => Kind::OpenSquare,
                    _ => Kind::OpenCurly,
                };
                if open.pop() != Some(want) {
                    return false;
                }
                if t.kind == Kind::CloseCurly && open.is_empty() {
                    pending = false;
                }
            }
            Kind::Semicolon if open.is_empty() => pending = false,
            _ => pending |= open.is_empty(),
        }
    }
    open.is_empty() && !pending
}

/// A rule that applies `prop: value` to `selectors` in the dark theme only, made dark the way
/// `via` says ("media", or a selector marker such as `[data-theme="dark"]`).
pub(super) fn dark_rule(via: &str, selectors: &[&str], prop: &str, value: &str) -> String {
    let body = format!("{{ {prop}: {value}; }}");
    if via == "media" {
        return format!(
            "\n@media (prefers-color-scheme: dark) {{ {} {body} }}\n",
            selectors.join(", ")
        );
    }
    let scoped: Vec<String> = selectors
        .iter()
        .flat_map(|sel| match *sel {
            ":root" | "html" => vec![format!(":root{via}")],
            "body" => vec![format!("body{via}"), format!("{via} body")],
            _ => vec![format!("{via} {sel}")],
        })
        .collect();
    format!("\n{} {body}\n", scoped.join(", "))
}

/// One way to repair a pair: (colour distance, where, new colour, old colour, which side).
pub(super) type RepairOption = (f64, Loc, Rgba, Rgba, &'static str);

/// The ways to repair a failing pair, the least visible first: its text colour or its
/// background colour, each moved to the nearest colour of the same hue that reaches the target,
/// where the page's own sheets (of which there are `sheets`) set it.
pub(super) fn repair_options(p: &Pair, sheets: usize) -> Vec<RepairOption> {
    let editable = |l: &Option<Loc>| l.filter(|l| l.sheet < sheets);
    let mut options: Vec<RepairOption> = Vec::new();
    if let Some(loc) = editable(&p.fg_src) {
        let ok = |c: Rgba| ratio(c.over(p.bg), p.bg) >= p.target;
        let everywhere = |c: Rgba| {
            ok(c)
                && p.other_bgs
                    .iter()
                    .all(|b| ratio(c.over(*b), *b) >= p.target)
        };
        // Text on any of several backgrounds: all of them, else the page's own (the first).
        let on_page = |c: Rgba| {
            let b = p.other_bgs.first().copied().unwrap_or(p.bg);
            ratio(c.over(b), b) >= p.target
        };
        let found = if p.other_bgs.is_empty() {
            nearest_same_hue(p.fg_raw, &ok)
        } else {
            nearest_same_hue(p.fg_raw, &everywhere).or_else(|| nearest_same_hue(p.fg_raw, &on_page))
        };
        if let Some(c) = found {
            options.push((delta_e(c.over(p.bg), p.fg), loc, c, p.fg_raw, "text"));
        }
    }
    if let Some(loc) = editable(&p.bg_src) {
        let ok = |c: Rgba| {
            let b = c.over(p.bg_under);
            ratio(p.fg_raw.over(b), b) >= p.target
        };
        if let Some(c) = nearest_same_hue(p.bg_raw, &ok) {
            options.push((
                delta_e(c.over(p.bg_under), p.bg),
                loc,
                c,
                p.bg_raw,
                "background",
            ));
        }
    }
    options.sort_by(|a, b| a.0.total_cmp(&b.0));
    options
}

/// The same change to every twin of a variable's definition: the page defines it the same way
/// twice for one theme (a dark media query and a dark selector, say), and a host may apply
/// either.
pub(super) fn twin_edits(
    rules: &[Rule],
    owners: &[(&Rule, &String)],
    loc: Loc,
    new_css: &str,
    sheets: &[Sheet<'_>],
    touched: &mut HashSet<Loc>,
    plan: &mut Plan,
) {
    if let Some((var, value)) = owners
        .first()
        .filter(|(_, prop)| prop.starts_with("--"))
        .map(|(r, prop)| {
            (
                prop.as_str(),
                r.locs
                    .iter()
                    .position(|l| *l == loc)
                    .map(|k| r.decls[k].1.as_str()),
            )
        })
    {
        let theme_dark = owners.iter().any(|(r, _)| r.dark);
        let mut twins: HashSet<Loc> = HashSet::new();
        for r in rules
            .iter()
            .filter(|r| r.dark == theme_dark && is_root_selector(&r.selector))
        {
            for ((prop, v), l) in r.decls.iter().zip(&r.locs) {
                if prop == var
                    && Some(v.as_str()) == value
                    && *l != loc
                    && twins.insert(*l)
                    && touched.insert(*l)
                {
                    let twin = sheets.get(l.sheet).and_then(|s| s.css.get(l.start..l.end));
                    if let Some(t) = twin.and_then(|t| replace_colour(t, new_css)) {
                        plan.edits.push(ValueEdit {
                            sheet: l.sheet,
                            start: l.start,
                            end: l.end,
                            text: t,
                            note: format!(
                                "low contrast: the same change to the twin definition of {var}"
                            ),
                        });
                    }
                }
            }
        }
    }
}

/// Plans one round of contrast repairs: for each failing pair, the text or the background
/// colour (whichever moves least, in CIE L*a*b*) goes to the nearest colour of the same hue that
/// reaches WCAG AA, in the declaration it comes from (a variable's definition in the failing
/// theme, or the rule's own value). Colours set in `style` attributes or by defaults stay.
pub(crate) fn plan_repairs(parsed: &Parsed, sheets: &[Sheet<'_>]) -> Plan {
    let mut plan = Plan::default();
    let mut touched: HashSet<Loc> = HashSet::new();
    let (pairs, rules) = analyse(parsed, sheets, true);
    // How the page makes its dark theme (a repair for the dark theme only does the same).
    let mut dark_via: Vec<String> = Vec::new();
    for r in &rules {
        if let Some(v) = &r.dark_via
            && !dark_via.contains(v)
        {
            dark_via.push(v.clone());
        }
    }
    for p in pairs {
        let theme = if p.dark { "dark" } else { "light" };
        let what = format!(
            "text {} on {} ({:.2}:1 in the {theme} theme, rule `{}`)",
            p.fg.hex(),
            p.bg.hex(),
            p.ratio,
            crate::validate::finding::clip(&p.selector)
        );
        let editable = |l: &Option<Loc>| l.filter(|l| l.sheet < sheets.len());
        let options = repair_options(&p, sheets.len());
        let Some((_, loc, new, old, side)) = options.into_iter().next() else {
            let why = if editable(&p.fg_src).is_none() && editable(&p.bg_src).is_none() {
                "neither colour is set by a rule of the page's own <style> (a style attribute or \
                 a default)"
            } else {
                "no colour of the same hue reaches AA"
            };
            plan.unrepairable.push(format!("{what}: {why}"));
            continue;
        };
        if !touched.insert(loc) {
            plan.deferred += 1;
            continue;
        }
        let css = sheets[loc.sheet].css;
        let Some(value) = css.get(loc.start..loc.end) else {
            plan.unrepairable
                .push(format!("{what}: its declaration could not be located"));
            continue;
        };
        let new_css = css_colour(new);
        let Some(text) = replace_colour(value, &new_css) else {
            plan.unrepairable.push(format!(
                "{what}: the {side} colour in `{}` could not be rewritten",
                crate::validate::finding::clip(value)
            ));
            continue;
        };
        // A declaration both themes use, failing only in the dark one: the repair goes into a
        // dark-theme rule of its own, made the way the page makes its dark theme.
        let owners: Vec<(&Rule, &String)> = rules
            .iter()
            .filter_map(|r| {
                let k = r.locs.iter().position(|l| *l == loc)?;
                Some((r, &r.decls[k].0))
            })
            .collect();
        let shared = !owners.is_empty() && owners.iter().all(|(r, _)| !r.dark && !r.light_only);
        if p.dark && shared && !dark_via.is_empty() && !ends_clean(css) {
            plan.unrepairable.push(format!(
                "{what}: the <style> it is in ends unfinished (an open comment, string, bracket \
                 or block, or a rule cut short), so no rule can be added to it"
            ));
            continue;
        }
        let (start, end, text) = if p.dark && shared && !dark_via.is_empty() {
            let prop = owners[0].1;
            let selectors: Vec<&str> = owners.iter().map(|(r, _)| r.selector.as_str()).collect();
            // Every way the page turns dark (a host may use either).
            let rules: String = dark_via
                .iter()
                .map(|via| dark_rule(via, &selectors, prop, &text))
                .collect();
            (css.len(), css.len(), rules)
        } else {
            (loc.start, loc.end, text)
        };
        let after = if side == "text" {
            ratio(new.over(p.bg), p.bg)
        } else {
            let b = new.over(p.bg_under);
            ratio(p.fg_raw.over(b), b)
        };
        // A variable the page defines the same way twice for this theme (a dark media query and
        // a dark selector, say): every twin moves with it, whichever of them a host applies.
        if start == loc.start {
            twin_edits(
                &rules,
                &owners,
                loc,
                &new_css,
                sheets,
                &mut touched,
                &mut plan,
            );
        }
        plan.edits.push(ValueEdit {
            sheet: loc.sheet,
            start,
            end,
            text,
            note: format!(
                "low contrast: {what}: {side} {} → {new_css} ({after:.2}:1)",
                css_colour(rounded(old))
            ),
        });
    }
    plan
}
