//! Static contrast check of a page's own CSS (WCAG 2 AA: 4.5:1, 3:1 for large text), in the
//! light theme and, where the page styles it, the dark theme (the llm post-processor keeps a
//! light-only page light in a dark host).
//!
//! The page's `<style>` blocks are read into rules (`@media (prefers-color-scheme: dark)` and
//! `[data-theme=dark]`/`.dark` selectors make the dark theme); custom properties the page defines
//! on `:root`/`html`/`body` are resolved. Text present in the markup is checked against the
//! background it really sits on (the cascade over its ancestors); a rule that colours text the
//! scripts create later is checked against its own background, or, when it sets none, reported
//! only when its colour fails against every background the page defines (it may sit on any;
//! LLM pages only).

use std::collections::{HashMap, HashSet};

use scraper::{ElementRef, Selector};

use super::finding::{Finding, Severity};
use super::parse::Parsed;

/// One style sheet of the page: its text and the HTML line where it starts.
pub struct Sheet<'a> {
    pub css: &'a str,
    pub line: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Rgba {
    r: f64,
    g: f64,
    b: f64,
    a: f64,
}

impl Rgba {
    fn over(self, bg: Rgba) -> Rgba {
        let a = self.a;
        Rgba {
            r: self.r * a + bg.r * (1.0 - a),
            g: self.g * a + bg.g * (1.0 - a),
            b: self.b * a + bg.b * (1.0 - a),
            a: 1.0,
        }
    }

    fn luminance(self) -> f64 {
        let ch = |c: f64| {
            let c = c / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * ch(self.r) + 0.7152 * ch(self.g) + 0.0722 * ch(self.b)
    }

    fn hex(self) -> String {
        let c = |v: f64| v.round().clamp(0.0, 255.0) as u8;
        format!("#{:02x}{:02x}{:02x}", c(self.r), c(self.g), c(self.b))
    }
}

fn ratio(fg: Rgba, bg: Rgba) -> f64 {
    let (a, b) = (fg.luminance(), bg.luminance());
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    (hi + 0.05) / (lo + 0.05)
}

const fn rgb(r: u8, g: u8, b: u8) -> Rgba {
    Rgba {
        r: r as f64,
        g: g as f64,
        b: b as f64,
        a: 1.0,
    }
}

/// The runtime's own default text and background (templates/styles.css).
const LIGHT_FG: Rgba = rgb(0x1a, 0x1d, 0x21);
const LIGHT_BG: Rgba = rgb(0xff, 0xff, 0xff);
const DARK_FG: Rgba = rgb(0xe8, 0xea, 0xed);
const DARK_BG: Rgba = rgb(0x16, 0x18, 0x1c);

const NAMED: [(&str, (u8, u8, u8)); 56] = [
    ("white", (255, 255, 255)),
    ("black", (0, 0, 0)),
    ("red", (255, 0, 0)),
    ("green", (0, 128, 0)),
    ("blue", (0, 0, 255)),
    ("gray", (128, 128, 128)),
    ("grey", (128, 128, 128)),
    ("silver", (192, 192, 192)),
    ("maroon", (128, 0, 0)),
    ("purple", (128, 0, 128)),
    ("fuchsia", (255, 0, 255)),
    ("magenta", (255, 0, 255)),
    ("lime", (0, 255, 0)),
    ("olive", (128, 128, 0)),
    ("yellow", (255, 255, 0)),
    ("navy", (0, 0, 128)),
    ("teal", (0, 128, 128)),
    ("aqua", (0, 255, 255)),
    ("cyan", (0, 255, 255)),
    ("orange", (255, 165, 0)),
    ("lightgray", (211, 211, 211)),
    ("lightgrey", (211, 211, 211)),
    ("darkgray", (169, 169, 169)),
    ("darkgrey", (169, 169, 169)),
    ("dimgray", (105, 105, 105)),
    ("dimgrey", (105, 105, 105)),
    ("gainsboro", (220, 220, 220)),
    ("whitesmoke", (245, 245, 245)),
    ("slategray", (112, 128, 144)),
    ("lightslategray", (119, 136, 153)),
    ("darkslategray", (47, 79, 79)),
    ("crimson", (220, 20, 60)),
    ("tomato", (255, 99, 71)),
    ("gold", (255, 215, 0)),
    ("indigo", (75, 0, 130)),
    ("royalblue", (65, 105, 225)),
    ("steelblue", (70, 130, 180)),
    ("dodgerblue", (30, 144, 255)),
    ("seagreen", (46, 139, 87)),
    ("forestgreen", (34, 139, 34)),
    ("darkgreen", (0, 100, 0)),
    ("darkred", (139, 0, 0)),
    ("darkblue", (0, 0, 139)),
    ("firebrick", (178, 34, 34)),
    ("coral", (255, 127, 80)),
    ("salmon", (250, 128, 114)),
    ("orangered", (255, 69, 0)),
    ("pink", (255, 192, 203)),
    ("hotpink", (255, 105, 180)),
    ("beige", (245, 245, 220)),
    ("ivory", (255, 255, 240)),
    ("lavender", (230, 230, 250)),
    ("skyblue", (135, 206, 235)),
    ("lightblue", (173, 216, 230)),
    ("lightgreen", (144, 238, 144)),
    ("brown", (165, 42, 42)),
];

fn parse_color(value: &str) -> Option<Rgba> {
    let v = value.trim().trim_end_matches("!important").trim();
    let lower = v.to_ascii_lowercase();
    if lower == "transparent" {
        return Some(Rgba {
            r: 0.0,
            g: 0.0,
            b: 0.0,
            a: 0.0,
        });
    }
    if let Some(hex) = lower.strip_prefix('#') {
        let digits: Vec<u8> = hex
            .chars()
            .map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok()))
            .collect::<Option<_>>()?;
        let (r, g, b, a) = match digits.as_slice() {
            [r, g, b] => (r * 17, g * 17, b * 17, 255),
            [r, g, b, a] => (r * 17, g * 17, b * 17, a * 17),
            [r1, r2, g1, g2, b1, b2] => (r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2, 255),
            [r1, r2, g1, g2, b1, b2, a1, a2] => {
                (r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2, a1 * 16 + a2)
            }
            _ => return None,
        };
        let mut c = rgb(r, g, b);
        c.a = f64::from(a) / 255.0;
        return Some(c);
    }
    if let Some((_, c)) = NAMED.iter().find(|(n, _)| *n == lower) {
        return Some(rgb(c.0, c.1, c.2));
    }
    let (func, args) = lower.split_once('(')?;
    let args = args.strip_suffix(')')?;
    let parts: Vec<&str> = args
        .split([',', ' ', '/'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let num = |s: &str, scale: f64| -> Option<f64> {
        if let Some(p) = s.strip_suffix('%') {
            p.parse::<f64>().ok().map(|x| x / 100.0 * scale)
        } else {
            s.trim_end_matches("deg").parse::<f64>().ok()
        }
    };
    let alpha = |s: Option<&&str>| -> Option<f64> {
        match s {
            None => Some(1.0),
            Some(s) => num(s, 1.0).map(|a| a.clamp(0.0, 1.0)),
        }
    };
    match func.trim() {
        "rgb" | "rgba" if parts.len() >= 3 => Some(Rgba {
            r: num(parts[0], 255.0)?,
            g: num(parts[1], 255.0)?,
            b: num(parts[2], 255.0)?,
            a: alpha(parts.get(3))?,
        }),
        "hsl" | "hsla" if parts.len() >= 3 => {
            let h = num(parts[0], 360.0)?.rem_euclid(360.0) / 360.0;
            let s = num(parts[1], 1.0)?;
            let l = num(parts[2], 1.0)?;
            // Percentages were scaled to 0..1; bare numbers (modern syntax) are 0..100.
            let s = if s > 1.0 { s / 100.0 } else { s };
            let l = if l > 1.0 { l / 100.0 } else { l };
            let q = if l < 0.5 {
                l * (1.0 + s)
            } else {
                l + s - l * s
            };
            let p = 2.0 * l - q;
            let hue = |mut t: f64| {
                t = t.rem_euclid(1.0);
                if t < 1.0 / 6.0 {
                    p + (q - p) * 6.0 * t
                } else if t < 0.5 {
                    q
                } else if t < 2.0 / 3.0 {
                    p + (q - p) * (2.0 / 3.0 - t) * 6.0
                } else {
                    p
                }
            };
            Some(Rgba {
                r: hue(h + 1.0 / 3.0) * 255.0,
                g: hue(h) * 255.0,
                b: hue(h - 1.0 / 3.0) * 255.0,
                a: alpha(parts.get(3))?,
            })
        }
        _ => None,
    }
}

/// One style rule: selectors with the theme markers removed, declarations, where it is.
#[derive(Debug, Clone)]
struct Rule {
    selector: String,
    decls: Vec<(String, String)>,
    dark: bool,
    light_only: bool,
    line: Option<usize>,
    specificity: (usize, usize, usize),
    order: usize,
}

const DARK_MARKERS: [&str; 9] = [
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
const LIGHT_MARKERS: [&str; 4] = [
    "[data-theme=\"light\"]",
    "[data-theme='light']",
    "[data-theme=light]",
    ".light",
];

fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        // Keep the line count right.
        let after = &rest[i + 2..];
        let end = after.find("*/").map_or(after.len(), |e| e + 2);
        out.extend(after[..end].chars().filter(|c| *c == '\n'));
        rest = &after[end..];
        if end == after.len() {
            rest = "";
        }
    }
    out.push_str(rest);
    out
}

fn specificity(sel: &str) -> (usize, usize, usize) {
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

/// Reads the rules of one sheet (nested blocks: media, supports, layer).
fn parse_rules(css: &str, base_line: Option<usize>, dark_media: bool, rules: &mut Vec<Rule>) {
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
                        let inner_line = base_line.map(|l| l + css[..=i].matches('\n').count());
                        parse_rules(body, inner_line, dark_media || dark, rules);
                    }
                } else if lower.starts_with("@supports") || lower.starts_with("@layer") {
                    let inner_line = base_line.map(|l| l + css[..=i].matches('\n').count());
                    parse_rules(body, inner_line, dark_media, rules);
                } else if !lower.starts_with('@') && !prelude.is_empty() {
                    let decls: Vec<(String, String)> = body
                        .split(';')
                        .filter_map(|d| {
                            let (p, v) = d.split_once(':')?;
                            Some((p.trim().to_ascii_lowercase(), v.trim().to_string()))
                        })
                        .collect();
                    for sel in prelude.split(',') {
                        let sel = sel.trim();
                        let mut s = sel.to_string();
                        let mut dark = dark_media;
                        let mut light_only = false;
                        for m in DARK_MARKERS {
                            if s.contains(m) {
                                s = s.replace(m, " ");
                                dark = true;
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
                            dark,
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

fn is_root_selector(sel: &str) -> bool {
    matches!(
        sel,
        ":root" | "html" | "body" | "*" | ":host" | "html, body"
    )
}

/// Pseudo-classes and -elements that describe states or generated content, never the resting
/// text: rules with them are left out.
fn is_state_selector(sel: &str) -> bool {
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

struct Scenario<'r> {
    rules: Vec<&'r Rule>,
    vars: HashMap<String, String>,
    default_fg: Rgba,
    default_bg: Rgba,
}

impl<'r> Scenario<'r> {
    fn new(all: &'r [Rule], dark: bool) -> Self {
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
                    for (p, v) in &r.decls {
                        if p.starts_with("--") {
                            vars.insert(p.clone(), v.clone());
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
            rules,
            vars,
            default_fg,
            default_bg,
        }
    }

    fn resolve(&self, value: &str, depth: usize) -> Option<String> {
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
            Some(v) => self.resolve(v, depth + 1)?,
            None => self.resolve(fallback?, depth + 1)?,
        };
        let whole = format!("{}{}{}", &value[..i], replaced, &value[end + 1..]);
        self.resolve(&whole, depth + 1)
    }

    fn color_of(&self, value: &str) -> Option<Rgba> {
        parse_color(&self.resolve(value, 0)?)
    }

    /// The colour a `background`/`background-color` declaration paints, if it is one plain
    /// colour (images and gradients are left alone: unknown).
    fn background_of(&self, decls: &[(String, String)]) -> Option<Option<Rgba>> {
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
}

fn font_px(value: &str, parent: f64) -> Option<f64> {
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

fn is_large(px: f64, bold: bool) -> bool {
    px >= 24.0 || (bold && px >= 18.66)
}

/// What one element inherits and paints.
#[derive(Clone, Copy)]
struct Style {
    fg: Option<Rgba>,
    bg: Rgba,
    px: f64,
    bold: bool,
    /// The rule that set the colour or the background last, for the message.
    line: Option<usize>,
    unknown: bool,
}

pub fn check(parsed: &Parsed, sheets: &[Sheet<'_>], llm: bool, out: &mut Vec<Finding>) {
    let mut rules = Vec::new();
    for sheet in sheets {
        parse_rules(&strip_comments(sheet.css), sheet.line, false, &mut rules);
    }
    // Hostile input: keep the work bounded.
    rules.truncate(2000);
    let has_dark = rules.iter().any(|r| r.dark);
    let severity = if llm {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut reported: HashSet<(Option<usize>, bool, String)> = HashSet::new();
    let mut themes = vec![false];
    // An LLM page whose styles know only the light theme is kept light by the post-processor.
    if has_dark {
        themes.push(true);
    }
    for dark in themes {
        let sc = Scenario::new(&rules, dark);
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
            bg: sc.default_bg,
            px: 16.0,
            bold: false,
            line: None,
            unknown: false,
        };
        let mut findings = Vec::new();
        walk(
            parsed.html.root_element(),
            root,
            &sc,
            &compiled,
            &mut matched_rules,
            &mut findings,
            0,
        );
        // Text the scripts create: rules no element in the markup matches.
        let page_bgs: Vec<Rgba> = std::iter::once(page_background(&sc, &compiled))
            .chain(
                sc.rules
                    .iter()
                    .filter_map(|r| sc.background_of(&r.decls).flatten()),
            )
            .filter(|c| c.a > 0.0)
            .collect();
        // (Only for LLM pages: a hand-written page's script-made text is its author's call, and
        // such rules often colour SVG strokes rather than text.)
        for (r, sel) in compiled.iter().filter(|_| llm) {
            if sel.is_none() || matched_rules.contains(&r.order) {
                continue;
            }
            let Some(fg) = r
                .decls
                .iter()
                .rev()
                .find(|(p, _)| p == "color")
                .and_then(|(_, v)| sc.color_of(v))
            else {
                continue;
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
            let page_bg = page_background(&sc, &compiled);
            match sc.background_of(&r.decls) {
                Some(Some(bg)) => {
                    let bg = bg.over(page_bg);
                    let fg = fg.over(bg);
                    let q = ratio(fg, bg);
                    if q < need {
                        findings.push((r.line, fg, bg, q, need, r.selector.clone()));
                    }
                }
                Some(None) => {}
                None => {
                    let worst = page_bgs
                        .iter()
                        .map(|bg| {
                            let bg = bg.over(page_bg);
                            (ratio(fg.over(bg), bg), bg)
                        })
                        .fold(None::<(f64, Rgba)>, |best, x| match best {
                            Some(b) if b.0 >= x.0 => Some(b),
                            _ => Some(x),
                        });
                    if let Some((q, bg)) = worst
                        && q < need
                    {
                        findings.push((r.line, fg.over(bg), bg, q, need, r.selector.clone()));
                    }
                }
            }
        }
        for (line, fg, bg, q, need, selector) in findings {
            if !reported.insert((line, dark, selector.clone())) {
                continue;
            }
            let theme = if dark { "dark" } else { "light" };
            out.push(Finding {
                severity,
                rule: "low-contrast",
                message: format!(
                    "text colour {} on background {} has a contrast of {:.2}:1 in the {theme} \
                     theme, below WCAG AA ({need}:1{}); darken or lighten the text or the \
                     background (style rule `{}`)",
                    fg.hex(),
                    bg.hex(),
                    q,
                    if need < 4.0 { ", large text" } else { "" },
                    super::finding::clip(&selector),
                ),
                line,
            });
        }
    }
}

fn page_background(sc: &Scenario<'_>, compiled: &[(&Rule, Option<Selector>)]) -> Rgba {
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

type Found = (Option<usize>, Rgba, Rgba, f64, f64, String);

fn walk(
    el: ElementRef<'_>,
    parent: Style,
    sc: &Scenario<'_>,
    rules: &[(&Rule, Option<Selector>)],
    matched: &mut HashSet<usize>,
    out: &mut Vec<Found>,
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
    let mut own_bg: Option<Rgba> = None;
    let mut selector = String::new();
    let mut apply = |decls: &[(String, String)], line: Option<usize>, sel: &str| {
        for (p, v) in decls {
            match p.as_str() {
                "color" => match sc.color_of(v) {
                    Some(c) => {
                        st.fg = Some(c);
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
        match sc.background_of(decls) {
            Some(Some(c)) => {
                own_bg = Some(c);
                if st.line.is_none() || selector.is_empty() {
                    st.line = line;
                    selector = sel.to_string();
                }
            }
            // A picture or gradient: what the text sits on is unknown.
            Some(None) => st.unknown = true,
            None => {}
        }
    };
    for (r, sel) in rules {
        if let Some(sel) = sel
            && sel.matches(&el)
        {
            matched.insert(r.order);
            apply(&r.decls, r.line, &r.selector);
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
        apply(&decls, None, "style attribute");
    }
    if let Some(bg) = own_bg {
        st.bg = bg.over(parent.bg);
    }
    let has_text = el
        .children()
        .any(|c| c.value().as_text().is_some_and(|t| !t.trim().is_empty()));
    // Form controls draw their own text, on their own background.
    let control = matches!(name, "input" | "select" | "textarea" | "button");
    if (has_text || control)
        && !st.unknown
        && let Some(fg) = st.fg
        && (st.line.is_some() || parent.line.is_some())
    {
        let fg = fg.over(st.bg);
        let q = ratio(fg, st.bg);
        let need = if is_large(st.px, st.bold) { 3.0 } else { 4.5 };
        // Native controls keep the browser's colours unless the page set one.
        if q < need && !(control && own_bg.is_none() && selector.is_empty()) {
            out.push((st.line, fg, st.bg, q, need, selector.clone()));
        }
    }
    for child in el.children() {
        if let Some(c) = ElementRef::wrap(child) {
            walk(c, st, sc, rules, matched, out, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(html: &str, llm: bool) -> Vec<Finding> {
        let parsed = super::super::parse::parse(html, false);
        let css: String = {
            let doc = &parsed.html;
            let sel = Selector::parse("style").unwrap();
            doc.select(&sel).flat_map(|e| e.text()).collect()
        };
        let mut out = Vec::new();
        check(
            &parsed,
            &[Sheet {
                css: &css,
                line: Some(1),
            }],
            llm,
            &mut out,
        );
        out
    }

    #[test]
    fn colours_parse() {
        assert_eq!(parse_color("#fff"), Some(rgb(255, 255, 255)));
        assert_eq!(parse_color("rgb(0, 128, 255)"), Some(rgb(0, 128, 255)));
        assert_eq!(parse_color("rgb(0 128 255 / 50%)").map(|c| c.a), Some(0.5));
        let c = parse_color("hsl(0, 100%, 50%)").unwrap();
        assert!((c.r - 255.0).abs() < 0.5 && c.g.abs() < 0.5);
        assert_eq!(parse_color("white"), Some(rgb(255, 255, 255)));
        assert_eq!(parse_color("var(--x)"), None);
        let q = ratio(rgb(0x77, 0x77, 0x77), rgb(255, 255, 255));
        assert!((q - 4.48).abs() < 0.01, "{q}");
    }

    #[test]
    fn pale_text_and_light_on_mid_buttons_are_found() {
        let f = run(
            "<style>body{background:#fff} .muted{color:#aaa} button{background:#60a5fa;color:#fff}</style><p class=muted>x</p><button>Go</button>",
            true,
        );
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().all(|f| f.severity == Severity::Error));
        assert!(f[0].message.contains("style rule"), "{}", f[0].message);
    }

    #[test]
    fn variables_dark_themes_and_dynamic_rules() {
        // Passing page: variables resolved, a dark theme that is fine too.
        let ok = "<style>:root{--fg:#111;--bg:#fff} [data-theme=dark]{--fg:#eee;--bg:#111} body{color:var(--fg);background:var(--bg)} .card{background:#1e293b} .card-title{color:#e2e8f0}</style><h1>T</h1>";
        assert!(run(ok, true).is_empty(), "{:?}", run(ok, true));
        // The dark theme forgot the text colour.
        let bad = "<style>body{color:#111;background:#fff} @media (prefers-color-scheme: dark){body{background:#111}}</style><p>x</p>";
        let f = run(bad, false);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(f[0].message.contains("dark theme"));
        // A rule for script-made text that fails on every background the page has.
        let f = run(
            "<style>body{background:#fff}.card{background:#f8f8f8}.hint{color:#bbb}</style><div id=out></div>",
            true,
        );
        assert_eq!(f.len(), 1, "light only: the page has no dark theme: {f:?}");
        // Large text needs only 3:1.
        assert!(run("<style>h1{color:#888}</style><h1>Big</h1>", true).is_empty());
    }
}
