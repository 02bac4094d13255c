//! The refinement phrase grammar of the builtin generator: plain feedback such as
//! `"line chart of high and low by date"` or `"hide field id, sort by date descending"` mapped onto
//! view hints, so `refine` works with no API key. Feedback it cannot read is kept in the history
//! (the llm generator reads it) and reported.
//!
//! A feedback string is a list of clauses separated by `,`, `;`, `then` or an `and` that starts a
//! new clause. Optionally scoped to one widget with a `[widget]` prefix (what `refine --widget`
//! records). A matched pair of quotes of any kind around the whole feedback (`"…"`, `'…'`,
//! `` `…` ``, `“…”`, `‘…’`, `„…“`, `«…»`, `‹…›`, `「…」` …) and a final `.`, `!` or `?` outside
//! them are not part of it: feedback pasted from a chat or a document reads the same as typed.
//! The clauses (case-insensitive; field names keep their case; quote names with spaces):
//!
//! | clause | effect |
//! | --- | --- |
//! | `line chart` / `bar chart` [`of` Y…] [`by`/`over`/`per` X] | view = line/bar, y, x |
//! | `table`, `cards`, `list`, `raw json` (also `as a table`, `show cards` …) | view |
//! | `x FIELD`, `x axis FIELD`, `y FIELD…` | x, y |
//! | `hide FIELD…` (`hide field x`, `hide columns a and b`) | hidden += fields |
//! | `show FIELD…` / `unhide FIELD…` | hidden -= fields |
//! | `rename X to Y`, `label X as Y` | labels[X] = Y |
//! | `sort by FIELD` [`asc`/`ascending`/`desc`/`descending`] | sort |
//! | `dark theme`, `light theme`, `host theme` (also `… mode`) | theme |
//! | `compact`, `dense`, `comfortable`, `spacious` | density |

use crate::model::{Density, Hints, ThemeHint, ViewKind};

/// One effect of a clause on the hints.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    View(ViewKind),
    X(String),
    Y(Vec<String>),
    Hide(Vec<String>),
    Show(Vec<String>),
    Label(String, String),
    Sort(String),
    Theme(ThemeHint),
    Density(Density),
}

/// A parsed feedback string.
#[derive(Debug, Clone, PartialEq)]
pub struct Interpreted {
    /// The widget a `[widget]` prefix scopes it to.
    pub widget: Option<String>,
    pub changes: Vec<Change>,
}

/// The clause the grammar could not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot interpret \"{clause}\" with the builtin generator")]
pub struct Unrecognized {
    pub clause: String,
}

/// Splits a `[widget] feedback` string into its scope and text.
pub fn scope(feedback: &str) -> (Option<&str>, &str) {
    let t = feedback.trim_start();
    if let Some(rest) = t.strip_prefix('[')
        && let Some(end) = rest.find(']')
    {
        let name = rest[..end].trim();
        if !name.is_empty() {
            return (Some(name), rest[end + 1..].trim_start());
        }
    }
    (None, t)
}

/// Records feedback for one widget the way `refine --widget` stores it.
pub fn scoped(widget: Option<&str>, feedback: &str) -> String {
    match widget {
        Some(w) => format!("[{w}] {}", feedback.trim()),
        None => feedback.trim().to_string(),
    }
}

/// Parses a feedback string; any clause it cannot read makes the whole string unrecognized, so a
/// half-understood request never silently does half of what was asked.
pub fn interpret(feedback: &str) -> Result<Interpreted, Unrecognized> {
    let (widget, text) = scope(unwrap_feedback(feedback));
    let text = unwrap_feedback(text);
    let first = interpret_text(text);
    // `"hide "order id""`: straight quotes around feedback that quotes a name with the same
    // character cannot be paired by reading; if the text as it stands means nothing, try it
    // without the outer pair.
    let result = match first {
        Err(e) => match strip_same_quotes(text) {
            Some(inner) => interpret_text(unwrap_feedback(inner)).map_err(|_| e),
            None => Err(e),
        },
        ok => ok,
    };
    result.map(|changes| Interpreted {
        widget: widget.map(str::to_string),
        changes,
    })
}

/// Quote pairs that may wrap a whole feedback string (opening, closing).
const QUOTE_PAIRS: &[(char, char)] = &[
    ('"', '"'),
    ('\'', '\''),
    ('`', '`'),
    ('“', '”'),
    ('”', '”'),
    ('“', '“'),
    ('‘', '’'),
    ('’', '’'),
    ('„', '“'),
    ('„', '”'),
    ('‚', '‘'),
    ('‚', '’'),
    ('«', '»'),
    ('»', '«'),
    ('»', '»'),
    ('‹', '›'),
    ('›', '‹'),
    ('「', '」'),
    ('『', '』'),
    ('＂', '＂'),
];

/// Sentence-ending punctuation that is not part of a feedback string when it ends it.
fn is_final_punctuation(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？')
}

/// The feedback without what surrounds it: whitespace, a final `.`/`!`/`?` outside the quotes,
/// and a matched pair of quotes around the whole (repeatedly: `“bar chart.”!` is `bar chart`).
/// Quotes inside (`hide "order id"`) stay.
pub fn unwrap_feedback(text: &str) -> &str {
    let mut t = text.trim();
    loop {
        let before = t;
        t = t.trim_end_matches(is_final_punctuation).trim();
        if let Some(inner) = strip_wrapping_quotes(t) {
            t = inner.trim();
        }
        if t == before {
            return t;
        }
    }
}

/// The text inside a pair of quotes that wraps all of `t`: the opening quote's first closing
/// match must be the last character (`"a" and "b"` is two quoted names, not one wrapped text).
fn strip_wrapping_quotes(t: &str) -> Option<&str> {
    let first = t.chars().next()?;
    let last = t.chars().next_back()?;
    if t.chars().count() < 2 {
        return None;
    }
    QUOTE_PAIRS
        .iter()
        .filter(|(open, close)| *open == first && *close == last)
        .find_map(|(open, close)| {
            let inner = &t[open.len_utf8()..t.len() - close.len_utf8()];
            (!inner.contains(*close) && (open == close || !inner.contains(*open))).then_some(inner)
        })
}

/// `"…"` with the same straight or typographic quote at both ends, whatever is inside.
fn strip_same_quotes(t: &str) -> Option<&str> {
    let first = t.chars().next()?;
    let last = t.chars().next_back()?;
    if t.chars().count() < 2 || !QUOTE_PAIRS.contains(&(first, last)) {
        return None;
    }
    Some(&t[first.len_utf8()..t.len() - last.len_utf8()])
}

fn interpret_text(text: &str) -> Result<Vec<Change>, Unrecognized> {
    let mut changes = Vec::new();
    let clauses = split_clauses(text);
    if clauses.is_empty() {
        return Err(Unrecognized {
            clause: text.trim().to_string(),
        });
    }
    for clause in clauses {
        match parse_clause(&clause) {
            Some(mut c) => changes.append(&mut c),
            None => return Err(Unrecognized { clause }),
        }
    }
    Ok(changes)
}

/// The hints a widget gets: its configured hints with every readable refinement applied in order.
pub fn effective_hints(base: &Hints, refinements: &[String], widget: Option<&str>) -> Hints {
    let mut h = base.clone();
    for r in refinements {
        let Ok(i) = interpret(r) else { continue };
        if let Some(w) = &i.widget
            && Some(w.as_str()) != widget
        {
            continue;
        }
        for c in i.changes {
            apply(&mut h, c);
        }
    }
    h
}

fn apply(h: &mut Hints, c: Change) {
    match c {
        Change::View(v) => h.view = Some(v),
        Change::X(x) => h.x = Some(x),
        Change::Y(y) => h.y = y,
        Change::Hide(fields) => {
            for f in fields {
                if !h.hidden.contains(&f) {
                    h.hidden.push(f);
                }
            }
        }
        Change::Show(fields) => h.hidden.retain(|f| !fields.contains(f)),
        Change::Label(k, v) => {
            h.labels.insert(k, v);
        }
        Change::Sort(s) => h.sort = Some(s),
        Change::Theme(t) => h.theme = Some(t),
        Change::Density(d) => h.density = Some(d),
    }
}

const CLAUSE_STARTS: &[&str] = &[
    "hide",
    "show",
    "unhide",
    "sort",
    "rename",
    "label",
    "dark",
    "light",
    "host",
    "compact",
    "dense",
    "comfortable",
    "spacious",
    "table",
    "cards",
    "list",
    "line",
    "bar",
    "json",
    "raw",
    "use",
    "make",
    "x",
    "y",
    "as",
    "display",
];

/// Splits on `,` `;` `then`, and on `and` when what follows starts a new clause.
fn split_clauses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in text.split([',', ';', '\n']) {
        let mut current: Vec<&str> = Vec::new();
        let words: Vec<&str> = part.split_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            let next = words.get(i + 1).map(|n| n.to_ascii_lowercase());
            let lw = w.to_ascii_lowercase();
            let starts_clause = next.as_deref().is_some_and(|n| {
                CLAUSE_STARTS.contains(&n.trim_matches(|c: char| !c.is_alphanumeric()))
            });
            if (lw == "then" || (lw == "and" && starts_clause)) && !current.is_empty() {
                out.push(current.join(" "));
                current.clear();
            } else if lw != "then" {
                current.push(w);
            }
            i += 1;
        }
        if !current.is_empty() {
            out.push(current.join(" "));
        }
    }
    out.into_iter()
        .map(|c| c.trim().trim_end_matches('.').trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

fn unquote(s: &str) -> String {
    s.trim()
        .trim_matches(|c| {
            matches!(
                c,
                '"' | '\''
                    | '`'
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '„'
                    | '‚'
                    | '«'
                    | '»'
                    | '‹'
                    | '›'
                    | '「'
                    | '」'
                    | '『'
                    | '』'
                    | '＂'
            )
        })
        .trim()
        .to_string()
}

/// `a, b and c` / `a & b` → fields (the grammar already split on commas, so only `and`/`&`/`+` here).
fn fields(s: &str) -> Vec<String> {
    s.split(" and ")
        .flat_map(|p| p.split(['&', '+']))
        .map(unquote)
        .filter(|f| !f.is_empty())
        .collect()
}

/// Strips a leading word (case-insensitively) followed by a space or the end.
fn strip_word<'a>(s: &'a str, word: &str) -> Option<&'a str> {
    let s = s.trim_start();
    // `get` and not `[..]`: the cut may fall inside a multi-byte character ("café", a curly quote).
    if let Some(head) = s.get(..word.len())
        && head.eq_ignore_ascii_case(word)
    {
        let rest = &s[word.len()..];
        if rest.is_empty() || rest.starts_with(' ') {
            return Some(rest.trim_start());
        }
    }
    None
}

fn strip_any<'a>(s: &'a str, words: &[&str]) -> Option<&'a str> {
    words.iter().find_map(|w| strip_word(s, w))
}

fn parse_clause(clause: &str) -> Option<Vec<Change>> {
    let c = strip_filler(clause);
    let l = c.to_ascii_lowercase();

    if let Some(rest) = strip_any(c, &["line", "bar"]) {
        return chart_clause(&l, rest);
    }
    let view = match l.as_str() {
        "table" | "tabular" | "table view" | "grid" => Some(ViewKind::Table),
        "cards" | "card" | "card view" | "cards view" => Some(ViewKind::Cards),
        "list" | "list view" | "bulleted list" => Some(ViewKind::List),
        "json" | "raw json" | "raw" | "json view" => Some(ViewKind::Json),
        "line" => Some(ViewKind::Line),
        _ => None,
    };
    if let Some(v) = view {
        return Some(vec![Change::View(v)]);
    }
    if let Some(rest) = strip_any(c, &["dark", "light", "host", "system", "default"]) {
        if matches!(
            rest.to_ascii_lowercase().as_str(),
            "theme" | "mode" | "colors" | "colours"
        ) {
            let t = if l.starts_with("dark") {
                ThemeHint::Dark
            } else if l.starts_with("light") {
                ThemeHint::Light
            } else {
                ThemeHint::Host
            };
            return Some(vec![Change::Theme(t)]);
        }
        return None;
    }
    match l.as_str() {
        "compact" | "dense" | "denser" | "more compact" | "compact layout" => {
            return Some(vec![Change::Density(Density::Compact)]);
        }
        "comfortable" | "spacious" | "roomy" | "less dense" | "comfortable layout" => {
            return Some(vec![Change::Density(Density::Comfortable)]);
        }
        _ => {}
    }
    if let Some(rest) = strip_word(c, "hide") {
        let rest =
            strip_any(rest, &["fields", "field", "columns", "column", "the"]).unwrap_or(rest);
        let f = fields(rest);
        return (!f.is_empty()).then_some(vec![Change::Hide(f)]);
    }
    if let Some(rest) = strip_any(c, &["unhide", "show"]) {
        let rest =
            strip_any(rest, &["fields", "field", "columns", "column", "the"]).unwrap_or(rest);
        let f = fields(rest);
        return (!f.is_empty()).then_some(vec![Change::Show(f)]);
    }
    if let Some(rest) = strip_any(c, &["rename", "label", "call"]) {
        let rest = strip_any(rest, &["field", "column"]).unwrap_or(rest);
        let lr = rest.to_ascii_lowercase();
        let at = lr
            .find(" to ")
            .map(|i| (i, 4))
            .or_else(|| lr.find(" as ").map(|i| (i, 4)))?;
        let (from, to) = (unquote(&rest[..at.0]), unquote(&rest[at.0 + at.1..]));
        return (!from.is_empty() && !to.is_empty()).then_some(vec![Change::Label(from, to)]);
    }
    if let Some(rest) = strip_word(c, "sort") {
        return sort_clause(rest);
    }
    if let Some(rest) = strip_word(c, "x") {
        let rest = strip_any(rest, &["axis", "="]).unwrap_or(rest);
        let rest = strip_any(rest, &["is", "="]).unwrap_or(rest);
        let f = unquote(rest);
        return (!f.is_empty() && !f.contains(' ')).then_some(vec![Change::X(f)]);
    }
    if let Some(rest) = strip_word(c, "y") {
        let rest = strip_any(rest, &["axis", "="]).unwrap_or(rest);
        let rest = strip_any(rest, &["is", "="]).unwrap_or(rest);
        let f = fields(rest);
        return (!f.is_empty()).then_some(vec![Change::Y(f)]);
    }
    None
}

/// The clause without the filler that changes nothing: "use a", "show as", "make it",
/// "display as a" …
fn strip_filler(clause: &str) -> &str {
    let mut c = clause.trim();
    for filler in [
        "please",
        "show it as",
        "show as",
        "show me",
        "use",
        "make it",
        "make",
        "display",
        "render",
        "as",
        "a",
        "an",
        "the",
    ] {
        if let Some(rest) = strip_word(c, filler)
            && !rest.is_empty()
        {
            c = rest;
        }
    }
    c
}

/// "line/bar [chart] [of Y…] [by X]": the view, then the axes it names. `l` is the clause in
/// lower case, `rest` what follows "line" or "bar".
fn chart_clause(l: &str, rest: &str) -> Option<Vec<Change>> {
    let view = if l.starts_with("line") {
        ViewKind::Line
    } else {
        ViewKind::Bar
    };
    let rest = strip_any(rest, &["chart", "graph", "plot"]).unwrap_or(rest);
    let mut out = vec![Change::View(view)];
    if rest.is_empty() {
        return Some(out);
    }
    let (ys, x) = split_by(rest);
    if let Some(ys) = ys {
        let ys = strip_word(ys, "of").unwrap_or(ys);
        let ys = fields(ys);
        if ys.is_empty() {
            return None;
        }
        out.push(Change::Y(ys));
    }
    if let Some(x) = x {
        out.push(Change::X(unquote(x)));
    }
    Some(out)
}

/// "sort [by] FIELD [descending|newest first|…]".
fn sort_clause(rest: &str) -> Option<Vec<Change>> {
    let rest = strip_any(rest, &["by", "on"]).unwrap_or(rest);
    let lr = rest.to_ascii_lowercase();
    let (field, dir) = [
        (" descending", "desc"),
        (" desc", "desc"),
        (" newest first", "desc"),
        (" highest first", "desc"),
        (" largest first", "desc"),
        (" ascending", "asc"),
        (" asc", "asc"),
        (" oldest first", "asc"),
        (" lowest first", "asc"),
        (" smallest first", "asc"),
    ]
    .iter()
    .find(|(suffix, _)| lr.ends_with(suffix))
    .map(|(suffix, dir)| (&rest[..rest.len() - suffix.len()], *dir))
    .unwrap_or((rest, "asc"));
    let field = unquote(field);
    if field.is_empty() || field.contains(' ') && !rest.contains('"') {
        return None;
    }
    Some(vec![Change::Sort(format!("{field} {dir}"))])
}

/// `of high and low by date` → (Some("of high and low"), Some("date")).
fn split_by(s: &str) -> (Option<&str>, Option<&str>) {
    let l = s.to_ascii_lowercase();
    for sep in [" by ", " over ", " per ", " against ", " across "] {
        if let Some(i) = l.find(sep) {
            let ys = s[..i].trim();
            let x = s[i + sep.len()..].trim();
            return ((!ys.is_empty()).then_some(ys), (!x.is_empty()).then_some(x));
        }
    }
    for lead in ["by ", "over ", "per "] {
        if l.starts_with(lead) {
            return (None, Some(s[lead.len()..].trim()));
        }
    }
    (Some(s.trim()), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(fb: &[&str]) -> Hints {
        let r: Vec<String> = fb.iter().map(|s| s.to_string()).collect();
        effective_hints(&Hints::default(), &r, None)
    }

    #[test]
    fn chart_phrases() {
        let h = hints(&["line chart"]);
        assert_eq!(h.view, Some(ViewKind::Line));
        let h = hints(&["bar chart of revenue by month"]);
        assert_eq!(h.view, Some(ViewKind::Bar));
        assert_eq!(h.y, vec!["revenue"]);
        assert_eq!(h.x.as_deref(), Some("month"));
        let h = hints(&["Use a line chart of high and low over date"]);
        assert_eq!(h.view, Some(ViewKind::Line));
        assert_eq!(h.y, vec!["high", "low"]);
        assert_eq!(h.x.as_deref(), Some("date"));
    }

    #[test]
    fn views_themes_density() {
        assert_eq!(hints(&["table"]).view, Some(ViewKind::Table));
        assert_eq!(hints(&["show as cards"]).view, Some(ViewKind::Cards));
        assert_eq!(hints(&["raw JSON"]).view, Some(ViewKind::Json));
        assert_eq!(hints(&["dark theme"]).theme, Some(ThemeHint::Dark));
        assert_eq!(hints(&["Light mode"]).theme, Some(ThemeHint::Light));
        assert_eq!(hints(&["compact"]).density, Some(Density::Compact));
    }

    #[test]
    fn fields_labels_sort() {
        let h = hints(&["hide field id", "hide columns internal_ref and etag"]);
        assert_eq!(h.hidden, vec!["id", "internal_ref", "etag"]);
        let h = hints(&["hide id", "show id"]);
        assert!(h.hidden.is_empty());
        let h = hints(&["rename temp_c to Temperature (°C)"]);
        assert_eq!(h.labels["temp_c"], "Temperature (°C)");
        let h = hints(&["label \"precipitation_mm\" as \"Rain\""]);
        assert_eq!(h.labels["precipitation_mm"], "Rain");
        assert_eq!(
            hints(&["sort by date descending"]).sort.as_deref(),
            Some("date desc")
        );
        assert_eq!(hints(&["sort by name"]).sort.as_deref(), Some("name asc"));
    }

    #[test]
    fn several_clauses_in_one_feedback() {
        let h = hints(&["line chart, hide field id and sort by date desc; dark theme"]);
        assert_eq!(h.view, Some(ViewKind::Line));
        assert_eq!(h.hidden, vec!["id"]);
        assert_eq!(h.sort.as_deref(), Some("date desc"));
        assert_eq!(h.theme, Some(ThemeHint::Dark));
    }

    #[test]
    fn later_feedback_wins_and_unreadable_is_skipped() {
        let h = hints(&["line chart", "make it prettier with gradients", "table"]);
        assert_eq!(h.view, Some(ViewKind::Table));
        assert!(interpret("make it prettier with gradients").is_err());
        // Half-understood feedback is not half applied.
        assert!(interpret("line chart and make it sparkle").is_err());
        assert!(interpret("").is_err());
    }

    /// Feedback pasted from a chat or a document: quotes of any kind around the whole, a final
    /// `.`/`!`/`?` outside them.
    #[test]
    fn quotes_around_the_whole_feedback_and_final_punctuation_are_not_part_of_it() {
        for fb in [
            "\"bar chart\"",
            "'bar chart'",
            "`bar chart`",
            "“bar chart”",
            "‘bar chart’",
            "„bar chart“",
            "«bar chart»",
            "« bar chart »",
            "‹bar chart›",
            "»bar chart«",
            "「bar chart」",
            "bar chart.",
            "bar chart!",
            "bar chart?",
            "“bar chart”.",
            "“bar chart.”",
            "  «bar chart»!  ",
            "\"“bar chart”\"",
        ] {
            assert_eq!(
                interpret(fb).map(|i| i.changes),
                Ok(vec![Change::View(ViewKind::Bar)]),
                "{fb}"
            );
        }
        let h = hints(&["“line chart of high and low by date”."]);
        assert_eq!(h.view, Some(ViewKind::Line));
        assert_eq!(h.y, vec!["high", "low"]);
        assert_eq!(h.x.as_deref(), Some("date"));
        // A widget scope outside or inside the quotes.
        let i = interpret("[chart] “bar chart”").unwrap();
        assert_eq!(i.widget.as_deref(), Some("chart"));
        assert_eq!(i.changes, vec![Change::View(ViewKind::Bar)]);
        let i = interpret("“[chart] bar chart”").unwrap();
        assert_eq!(i.widget.as_deref(), Some("chart"));
        // Feedback the grammar cannot read stays unreadable, quoted or not.
        assert!(interpret("“make it pop”").is_err());
        assert_eq!(
            interpret("“make it pop”.").unwrap_err().clause,
            "make it pop",
            "the report names the words, not the wrapping"
        );
    }

    #[test]
    fn quoted_field_names_inside_the_feedback_keep_working() {
        assert_eq!(hints(&["hide \"order id\""]).hidden, vec!["order id"]);
        assert_eq!(hints(&["“hide \"order id\"”"]).hidden, vec!["order id"]);
        assert_eq!(hints(&["'hide \"order id\"'."]).hidden, vec!["order id"]);
        assert_eq!(hints(&["\"hide \"order id\"\""]).hidden, vec!["order id"]);
        assert_eq!(
            hints(&["“hide \"order id\" and \"unit price\"”"]).hidden,
            vec!["order id", "unit price"]
        );
        assert_eq!(hints(&["hide «order id»"]).hidden, vec!["order id"]);
        assert_eq!(
            hints(&["\"sort by \"order date\" descending\"!"])
                .sort
                .as_deref(),
            Some("order date desc")
        );
        let h = hints(&["“rename temp_c to \"Temperature\"”"]);
        assert_eq!(h.labels["temp_c"], "Temperature");
    }

    #[test]
    fn widget_scope() {
        let r = vec![scoped(Some("chart"), "bar chart"), "compact".to_string()];
        let chart = effective_hints(&Hints::default(), &r, Some("chart"));
        let table = effective_hints(&Hints::default(), &r, Some("table"));
        assert_eq!(chart.view, Some(ViewKind::Bar));
        assert_eq!(table.view, None);
        assert_eq!(table.density, Some(Density::Compact));
        assert_eq!(scope("[chart] bar chart"), (Some("chart"), "bar chart"));
    }
}
