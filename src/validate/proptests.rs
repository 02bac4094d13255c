//! Property tests: the validator never panics on arbitrary or mutated input and is deterministic.

use proptest::prelude::*;

use super::*;

const MINIMAL: &str = include_str!("testdata/minimal.html");
const LLM_BARE_IMPORT: &str = include_str!("testdata/llm-bare-import.html");

const SNIPPETS: [&str; 16] = [
    "<script>",
    "</script>",
    "<script type=module>import x from 'y';",
    "<iframe srcdoc=\"<script>",
    "\"",
    "<!--",
    "-->",
    "<svg onload=x>",
    "<a href=java&#x09;script:x>",
    "<style>@import url(",
    "@font-face{src:url(//x",
    "<details><form><input required>",
    "`${",
    "\\u",
    "<![CDATA[",
    "\u{0}",
];

/// A byte index on a char boundary at or before `i`.
fn boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn mutate(base: &str, ops: &[(u8, usize, usize)]) -> String {
    let mut s = base.to_string();
    for &(op, a, b) in ops {
        let len = s.len().max(1);
        let start = boundary(&s, a % len);
        let end = boundary(&s, start + b % 200);
        match op % 4 {
            0 => s.replace_range(start..end, ""),
            1 => s.insert_str(start, SNIPPETS[b % SNIPPETS.len()]),
            2 => {
                let piece = s[start..end].to_string();
                s.insert_str(end, &piece);
            }
            _ => s.replace_range(start..end, SNIPPETS[a % SNIPPETS.len()]),
        }
    }
    s
}

fn check_stable(html: &str, llm: bool) -> Result<(), TestCaseError> {
    let opts = Options {
        allowed_origins: vec!["https://cdn.example.com".into()],
        llm_output: llm,
    };
    let a = validate(html, &opts);
    let b = validate(html, &opts);
    prop_assert_eq!(&a, &b);
    let keys: Vec<_> = a.iter().map(|f| (f.line, f.severity, f.rule)).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    prop_assert_eq!(keys, sorted);
    prop_assert!(
        a.iter()
            .all(|f| !f.message.is_empty() && !f.rule.is_empty())
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn arbitrary_strings(s in any::<String>(), llm in any::<bool>()) {
        check_stable(&s, llm)?;
    }

    #[test]
    fn html_shaped_strings(s in "[<>/a-z0-9 =\"'!&#;:(){}\\[\\]`$.\n-]{0,400}", llm in any::<bool>()) {
        check_stable(&s, llm)?;
    }

    #[test]
    fn mutated_valid_documents(
        ops in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..8),
        which in any::<bool>(),
        llm in any::<bool>(),
    ) {
        let base = if which { MINIMAL } else { LLM_BARE_IMPORT };
        check_stable(&mutate(base, &ops), llm)?;
    }
}

/// A page whose styles a mutation may have broken anywhere: colours, braces, comments.
const STYLED: &str = "<!doctype html><html><head><style>/* c */ :root{--a:#4da3ff;--bg:#fff}\
    @media (prefers-color-scheme: dark){:root{--a:#60a5fa;--bg:#111}}\
    body{background:var(--bg);color:#222} .b{background:var(--a);color:#fff}\
    .t{background:rgba(34,197,94,.15);color:#22c55e} .m{color:#aaa}</style></head>\
    <body><button class=b>Go</button><span class=t>ok</span><p class=m>x</p></body></html>";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The contrast repair never panics, is deterministic, and never adds findings of other
    /// kinds: it only ever rewrites colours.
    #[test]
    fn contrast_repair_is_safe_on_mutated_styles(
        ops in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..6),
    ) {
        let page = mutate(STYLED, &ops);
        let a = repair_contrast(&page);
        let b = repair_contrast(&page);
        prop_assert_eq!(&a, &b);
        let opts = Options { llm_output: true, ..Options::default() };
        let others = |html: &str| -> Vec<&'static str> {
            let mut v: Vec<&'static str> = validate(html, &opts)
                .into_iter()
                .filter(|f| f.rule != "low-contrast" && f.rule != "html-parse-error")
                .map(|f| f.rule)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        // A repair may close a sheet a truncated page left open (which can end a prose finding
        // on the page's bare tail), but it never brings a new kind of finding.
        let before = others(&page);
        let added: Vec<_> = others(&a.html).into_iter().filter(|r| !before.contains(r)).collect();
        prop_assert!(added.is_empty(), "the repair added {:?}", added);
        if a.changes.is_empty() {
            prop_assert_eq!(&a.html, &page);
        }
    }
}

/// A case the property test found: a mutation ate `</style></head><body>…`, so the sheet runs
/// to the end of the page; the repair's appended dark-theme rules must not end the page as text.
#[test]
fn contrast_repair_of_an_unclosed_sheet_adds_no_findings() {
    let page = mutate(STYLED, &[(103, 6103475851777121830, 7156471626035894)]);
    assert!(
        !page.contains("</style"),
        "the case needs an unclosed sheet: {page}"
    );
    let repaired = repair_contrast(&page);
    assert!(!repaired.changes.is_empty());
    assert!(
        repaired.html.trim_end().ends_with("</style>"),
        "{}",
        repaired.html
    );
    let opts = Options {
        llm_output: true,
        ..Options::default()
    };
    let rules = |html: &str| -> Vec<&'static str> {
        let mut v: Vec<_> = validate(html, &opts)
            .into_iter()
            .map(|f| f.rule)
            .filter(|r| *r != "low-contrast" && *r != "html-parse-error")
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    assert_eq!(rules(&page), rules(&repaired.html));
}

/// Another the property test found: the sheet ends inside `@import url(`, which would swallow
/// an appended dark-theme rule (and read as an `@import` of it); no rule is appended there.
#[test]
fn contrast_repair_appends_no_rule_to_a_sheet_cut_short() {
    let page = mutate(STYLED, &[(73, 1867339570854688599, 3349841180401041929)]);
    assert!(page.contains("<style>@import url(</style>"), "{page}");
    let repaired = repair_contrast(&page);
    let opts = Options {
        llm_output: true,
        ..Options::default()
    };
    assert!(
        !validate(&repaired.html, &opts)
            .iter()
            .any(|f| f.rule == "relative-url"),
        "{}",
        repaired.html
    );
    assert!(
        repaired
            .unrepaired
            .iter()
            .any(|u| u.contains("ends unfinished")),
        "{:?}",
        repaired.unrepaired
    );
}
