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
//! LLM pages only), or fails on the page or one of its tints when it is meant for the page.
//!
//! `plan_repairs` (used by `repair.rs`, for the llm generator) moves the colour of each failing
//! pair, in the declaration it comes from, to the nearest colour of the same hue that reaches AA.

use std::collections::{HashMap, HashSet};

use scraper::{ElementRef, Selector};

use super::finding::{Finding, Severity};
use super::parse::Parsed;
use crate::css::{Kind, Tokenizer};

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
    /// Where each declaration's value is (index-aligned with `decls`).
    locs: Vec<Loc>,
    dark: bool,
    /// How the rule is made dark: "media" or the selector marker (for repairs to mirror).
    dark_via: Option<String>,
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

/// Blanks out comments, keeping every byte offset and line (edits are made by offset).
fn strip_comments(css: &str) -> String {
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

/// Where a declaration's value is: its sheet (the page's own `<style>` elements in document
/// order; `usize::MAX` for a `style` attribute) and its byte range in that sheet's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Loc {
    sheet: usize,
    start: usize,
    end: usize,
}

/// Where the current block sits: its sheet, its byte offset in that sheet, its first line.
#[derive(Clone, Copy)]
struct Block {
    sheet: usize,
    offset: usize,
    line: Option<usize>,
}

/// The declarations of a block body, with the range of each value (trimmed) in the sheet.
fn declarations(body: &str, offset: usize, sheet: usize) -> (Vec<(String, String)>, Vec<Loc>) {
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
fn parse_rules(css: &str, at: Block, dark_media: bool, rules: &mut Vec<Rule>) {
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
    dark: bool,
    /// The page was written by an LLM (stricter: script-filled elements are checked too).
    llm: bool,
    rules: Vec<&'r Rule>,
    vars: HashMap<String, (String, Loc)>,
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
            Some((v, _)) => self.resolve(v, depth + 1)?,
            None => self.resolve(fallback?, depth + 1)?,
        };
        let whole = format!("{}{}{}", &value[..i], replaced, &value[end + 1..]);
        self.resolve(&whole, depth + 1)
    }

    fn color_of(&self, value: &str) -> Option<Rgba> {
        parse_color(&self.resolve(value, 0)?)
    }

    /// The declaration a value's colour really comes from: the value itself, or, when it is
    /// just `var(--x)`, the definition of `--x` this theme uses (followed through chains).
    fn source_of(&self, value: &str, own: Loc, depth: usize) -> Loc {
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

    /// `background_of`, with the declaration the colour comes from.
    fn background_with_src(
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

/// Below this contrast with the page's background, a container's background is a tint of the
/// page: text for the page may be put on it.
const TINT_RATIO: f64 = 1.6;

/// The contrast a repair aims at for text of this size (see [`Pair::target`]).
fn repair_target(px: f64) -> f64 {
    const MARGIN: f64 = 0.05;
    if px >= 24.0 {
        3.0 + MARGIN
    } else {
        4.5 + MARGIN
    }
}

fn is_large(px: f64, bold: bool) -> bool {
    px >= 24.0 || (bold && px >= 18.66)
}

/// What one element inherits and paints.
#[derive(Clone, Copy)]
struct Style {
    fg: Option<Rgba>,
    /// The declaration the text colour comes from (`None`: a default or a style attribute).
    fg_src: Option<Loc>,
    /// The background the text sits on (composited), the colour that paints it as declared, what
    /// that colour is laid over, and the declaration it comes from.
    bg: Rgba,
    bg_raw: Rgba,
    bg_under: Rgba,
    bg_src: Option<Loc>,
    px: f64,
    bold: bool,
    /// The rule that set the colour or the background last, for the message.
    line: Option<usize>,
    unknown: bool,
}

/// A text colour on a background that fails WCAG AA, with what a repair needs to move either.
#[derive(Debug, Clone)]
struct Pair {
    dark: bool,
    line: Option<usize>,
    selector: String,
    /// Composited text and background colours, their contrast and the ratio needed.
    fg: Rgba,
    bg: Rgba,
    ratio: f64,
    need: f64,
    /// What a repair aims at: AA with a small margin, and 4.5:1 unless the text is large by
    /// size alone (browsers and checkers disagree on what counts as bold).
    target: f64,
    fg_raw: Rgba,
    fg_src: Option<Loc>,
    bg_raw: Rgba,
    bg_under: Rgba,
    bg_src: Option<Loc>,
    /// Text the scripts create may sit on any background the page defines: a repair of its
    /// colour aims at all of them when it can.
    other_bgs: Vec<Rgba>,
}

/// Every failing pair of the page, in the light theme and, when the page styles one, the dark
/// theme (deduplicated by rule, theme and selector, as reported).
fn analyse(parsed: &Parsed, sheets: &[Sheet<'_>], llm: bool) -> (Vec<Pair>, Vec<Rule>) {
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
fn theme_pairs(parsed: &Parsed, rules: &[Rule], dark: bool, llm: bool) -> Vec<Pair> {
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
struct Surfaces {
    /// The page's own background.
    page: Rgba,
    /// Every background, for judging (text that fails on all of them fails wherever it goes).
    every: Vec<Rgba>,
    /// The page and its containers, for repairing.
    hosts: Vec<Rgba>,
}

/// Where text the scripts create can sit: the page, and the containers the page paints without
/// colouring their text (a rule that colours its own text, a button or a badge, is not where
/// other text goes). One background per selector, as the cascade leaves it.
fn surfaces(sc: &Scenario<'_>, compiled: &[(&Rule, Option<Selector>)]) -> Surfaces {
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
fn script_text_pairs(
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
fn script_rule_pair(
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
                super::finding::clip(&p.selector),
            ),
            line: p.line,
        });
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

fn walk(
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

// ---- Repair ------------------------------------------------------------------------------------

/// One value to write into a sheet, and what it does (one human line).
#[derive(Debug, Clone)]
pub(super) struct ValueEdit {
    pub sheet: usize,
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub note: String,
}

/// What a repair round would change, and the pairs it cannot fix (why, one line each).
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub edits: Vec<ValueEdit>,
    pub unrepairable: Vec<String>,
    /// Failing pairs left for the next round (their colour was already being moved).
    pub deferred: usize,
}

fn to_hsl(c: Rgba) -> (f64, f64, f64) {
    let (r, g, b) = (c.r / 255.0, c.g / 255.0, c.b / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let l = (max + min) / 2.0;
    let d = max - min;
    if d.abs() < 1e-12 {
        return (0.0, 0.0, l);
    }
    let s = d / (1.0 - (2.0 * l - 1.0).abs()).max(1e-12);
    let h = if (max - r).abs() < 1e-12 {
        ((g - b) / d).rem_euclid(6.0)
    } else if (max - g).abs() < 1e-12 {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    (h * 60.0, s.clamp(0.0, 1.0), l)
}

fn from_hsl(h: f64, s: f64, l: f64, a: f64) -> Rgba {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h.rem_euclid(360.0) / 60.0;
    let x = c * (1.0 - (hp.rem_euclid(2.0) - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    Rgba {
        r: ((r + m) * 255.0).clamp(0.0, 255.0),
        g: ((g + m) * 255.0).clamp(0.0, 255.0),
        b: ((b + m) * 255.0).clamp(0.0, 255.0),
        a,
    }
}

/// As written into CSS: whole channels, alpha to three decimals.
fn rounded(c: Rgba) -> Rgba {
    Rgba {
        r: c.r.round().clamp(0.0, 255.0),
        g: c.g.round().clamp(0.0, 255.0),
        b: c.b.round().clamp(0.0, 255.0),
        a: (c.a * 1000.0).round() / 1000.0,
    }
}

fn css_colour(c: Rgba) -> String {
    if c.a >= 1.0 {
        c.hex()
    } else {
        let a = format!("{:.3}", c.a);
        let a = a.trim_end_matches('0').trim_end_matches('.');
        format!("rgba({}, {}, {}, {a})", c.r, c.g, c.b)
    }
}

/// CIE L*a*b* (D65), for measuring how much a colour moved.
fn lab(c: Rgba) -> (f64, f64, f64) {
    let lin = |v: f64| {
        let v = v / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(c.r), lin(c.g), lin(c.b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 0.008856 {
            t.cbrt()
        } else {
            7.787 * t + 16.0 / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz))
}

fn delta_e(a: Rgba, b: Rgba) -> f64 {
    let (l1, a1, b1) = lab(a);
    let (l2, a2, b2) = lab(b);
    ((l1 - l2).powi(2) + (a1 - a2).powi(2) + (b1 - b2).powi(2)).sqrt()
}

/// The colour of the same hue and saturation (and alpha) as `raw`, with the lightness nearest
/// to its own, for which `ok` holds as written into CSS. `ok` must be monotonic in lightness
/// towards black and towards white (contrast against a fixed colour is).
fn nearest_same_hue(raw: Rgba, ok: &dyn Fn(Rgba) -> bool) -> Option<Rgba> {
    let (h, s, l) = to_hsl(raw);
    let at = |x: f64| rounded(from_hsl(h, s, x.clamp(0.0, 1.0), raw.a));
    let mut best: Option<(f64, Rgba)> = None;
    for target in [0.0, 1.0] {
        if !ok(at(target)) {
            continue;
        }
        // `lo` fails (or is the start), `hi` passes.
        let (mut lo, mut hi) = (l, target);
        for _ in 0..48 {
            let mid = (lo + hi) / 2.0;
            if ok(at(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let c = at(hi);
        if ok(c) {
            let d = (hi - l).abs();
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, c));
            }
        }
    }
    best.map(|b| b.1)
}

/// `value` with its colour replaced by `new` (the whole value, or the colour token of a
/// `background` shorthand); `!important` is kept.
fn replace_colour(value: &str, new: &str) -> Option<String> {
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
fn ends_clean(css: &str) -> bool {
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
fn dark_rule(via: &str, selectors: &[&str], prop: &str, value: &str) -> String {
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
type RepairOption = (f64, Loc, Rgba, Rgba, &'static str);

/// The ways to repair a failing pair, the least visible first: its text colour or its
/// background colour, each moved to the nearest colour of the same hue that reaches the target,
/// where the page's own sheets (of which there are `sheets`) set it.
fn repair_options(p: &Pair, sheets: usize) -> Vec<RepairOption> {
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
fn twin_edits(
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
pub(super) fn plan_repairs(parsed: &Parsed, sheets: &[Sheet<'_>]) -> Plan {
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
            super::finding::clip(&p.selector)
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
                super::finding::clip(value)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_appended_only_to_a_sheet_that_ends_clean() {
        for ok in [
            "",
            "a{color:red}",
            "@import url(x.css); /* c */ a{b:c} @media (x){a{b:c}}",
            "a[title='}']{content:\"{\\\"\"}",
            "a{b:c}\n  ",
        ] {
            assert!(ends_clean(ok), "{ok:?}");
        }
        for bad in [
            "a{color:red",
            "a{color:red}}",
            "a{b:c} /* open",
            "a{b:c} @import url(",
            "a{b:c} @import url(x.css)",
            "a{b:c} .half-a-selector",
            "a{content:'open}",
            "a{b:c} [x=y",
            "a{b:c} </p>",
        ] {
            assert!(!ends_clean(bad), "{bad:?}");
        }
    }

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

#[cfg(test)]
mod repair_props {
    use proptest::prelude::*;

    use super::*;

    fn hue_distance(a: f64, b: f64) -> f64 {
        let d = (a - b).rem_euclid(360.0);
        d.min(360.0 - d)
    }

    proptest! {
        // About one pair in eight already passes and is skipped: room for that many skips however
        // many cases PROPTEST_CASES asks for.
        #![proptest_config(ProptestConfig {
            cases: 512,
            max_global_rejects: u32::MAX,
            ..ProptestConfig::default()
        })]

        /// Moving either colour of any pair: the result reaches AA (as written into CSS, i.e.
        /// rounded), and keeps the hue of the colour it moved (where 8-bit channels can carry a
        /// hue at all).
        #[test]
        fn any_repaired_pair_reaches_aa_and_keeps_its_hue(
            fg in (any::<u8>(), any::<u8>(), any::<u8>()),
            bg in (any::<u8>(), any::<u8>(), any::<u8>()),
            alpha in prop_oneof![Just(1.0f64), 0.05f64..1.0],
            large in any::<bool>(),
            move_bg in any::<bool>(),
        ) {
            let need = if large { 3.0 } else { 4.5 };
            let under = rgb(255, 255, 255);
            let mut fg = rgb(fg.0, fg.1, fg.2);
            let mut bg = rgb(bg.0, bg.1, bg.2);
            let moved;
            let result;
            if move_bg {
                // A tint over the page: only its colour moves, its alpha stays.
                bg.a = alpha;
                let ok = |c: Rgba| { let b = c.over(under); ratio(fg.over(b), b) >= need };
                result = nearest_same_hue(bg, &ok);
                moved = bg;
                if let Some(c) = result {
                    prop_assert!(ok(c));
                    prop_assert!((c.a - rounded(bg).a).abs() < 1e-9);
                }
            } else {
                fg.a = alpha;
                let ok = |c: Rgba| ratio(c.over(bg), bg) >= need;
                result = nearest_same_hue(fg, &ok);
                moved = fg;
                if let Some(c) = result {
                    prop_assert!(ok(c));
                }
                // An opaque text colour can always be repaired (black or white reach 4.58:1).
                if alpha >= 1.0 {
                    prop_assert!(result.is_some(), "no repair for {:?} on {:?}", fg, bg);
                }
            }
            if let Some(c) = result {
                let (h0, s0, _) = to_hsl(moved);
                let (h1, s1, l1) = to_hsl(c);
                // Chroma an 8-bit colour can show: hue is meaningful above a few steps.
                let chroma = c.r.max(c.g).max(c.b) - c.r.min(c.g).min(c.b);
                if s0 > 0.05 && chroma >= 24.0 && l1 > 0.02 && l1 < 0.98 {
                    prop_assert!(hue_distance(h0, h1) <= 4.0, "hue {h0} → {h1} ({:?} → {:?})", moved, c);
                    prop_assert!((s0 - s1).abs() <= 0.2, "saturation {s0} → {s1}");
                }
                // Written as CSS and read back, it is the same colour.
                let back = parse_color(&css_colour(c));
                prop_assert!(back.is_some());
                if let Some(b) = back {
                    prop_assert!((b.r - c.r).abs() < 0.01 && (b.a - c.a).abs() < 0.002);
                }
            }
        }

        /// The least change: no colour of the same hue closer in lightness passes.
        #[test]
        fn the_repair_is_the_nearest_passing_lightness(
            fg in (any::<u8>(), any::<u8>(), any::<u8>()),
            bg in (any::<u8>(), any::<u8>(), any::<u8>()),
        ) {
            let fg = rgb(fg.0, fg.1, fg.2);
            let bg = rgb(bg.0, bg.1, bg.2);
            let ok = |c: Rgba| ratio(c.over(bg), bg) >= 4.5;
            prop_assume!(!ok(fg));
            let Some(c) = nearest_same_hue(fg, &ok) else { return Ok(()); };
            let (h, s, l) = to_hsl(fg);
            let d = (to_hsl(c).2 - l).abs();
            // Every lightness strictly closer (by a margin for rounding) fails.
            for k in 1..20 {
                let x = d * f64::from(k) / 20.0 - 0.01;
                if x <= 0.0 { continue; }
                for cand in [l - x, l + x] {
                    if (0.0..=1.0).contains(&cand) {
                        prop_assert!(!ok(rounded(from_hsl(h, s, cand, 1.0))), "{cand} passes, closer than {d}");
                    }
                }
            }
        }
    }
}
