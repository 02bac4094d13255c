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
//!
//! Files: `rules` reads the sheets, `cascade` applies them, `walk` finds the failing pairs,
//! `plan` plans repairs, `colour` does the colour maths.

mod cascade;
mod colour;
mod plan;
mod rules;
mod walk;

pub(super) use plan::{Plan as RepairPlan, plan_repairs};
pub use rules::Sheet;
pub use walk::check;

/// The colour of the same hue as `fg` (a CSS colour), nearest to it in lightness, that reaches
/// `need`:1 against the opaque `bg`, as `#rrggbb`; `None` when no such colour exists or a colour
/// does not parse. (For the browser judge's repairs of colours set by scripts.)
pub fn nearest_reaching(fg: &str, bg: &str, need: f64) -> Option<String> {
    let (fg, bg) = (colour::parse_color(fg)?, colour::parse_color(bg)?);
    let bg = bg.over(colour::LIGHT_BG);
    let fg = colour::Rgba {
        a: 1.0,
        ..fg.over(bg)
    };
    colour::nearest_same_hue(fg, &|c| colour::ratio(c.over(bg), bg) >= need).map(colour::Rgba::hex)
}

#[cfg(test)]
mod tests {
    use scraper::Selector;

    use super::*;
    use super::{colour::*, plan::*};
    use crate::validate::finding::{Finding, Severity};

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
    fn braces_and_semicolons_in_strings_and_comments_are_only_text() {
        // Counting braces, the `{` in the string swallowed the rule after it: pale text unseen.
        for css in [
            ".x::after{content:\"{\"} p{color:#aaa;background:#fff}",
            "/* { */ .x[title='{;}']{content:'}'} p{color:#aaa;background:#fff}",
            "p{content:\"a;color:#111\";color:#aaa;background:#fff}",
            ":is(.a, p){color:#aaa;background:#fff}",
        ] {
            let f = run(&format!("<style>{css}</style><p>x</p>"), true);
            assert_eq!(f.len(), 1, "{css}: {f:?}");
            assert_eq!(f[0].rule, "low-contrast", "{css}");
        }
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

    use super::colour::*;

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
