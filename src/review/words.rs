//! What changes for the person, in words: one line per change a person would notice,
//! `  TOOL: WHAT: BEFORE → AFTER`, or `  TOOL: added: …` / `  TOOL: removed: …`.
//!
//! Derived only from what the two sides hold: the lock (generator, fallback, refinements), the
//! tool definitions (form fields, result fields, confirmation) and the pages themselves (a builtin
//! page embeds its view hints as JSON in `<script type="application/json" id="mcp-gen-ui-data">`;
//! an llm page embeds only the tool, so for it the words say what can be known: the tool's and
//! schema's changes, and the feedback it was regenerated with). Every string that comes from a
//! tool is untrusted: control characters are escaped and lengths capped.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::{Side, clean, resolve};
use crate::lock::{DEFAULT_WIDGET, ToolEntry, WidgetEntry};
use crate::model::{Density, Hints, ThemeHint, ViewKind, confirm};

/// The longest value shown on a change line (each of before and after).
const MAX_VALUE: usize = 120;
/// The longest field path shown.
const MAX_FIELD: usize = 80;
/// How deep nested form fields are described (`a.b.c`).
const MAX_DEPTH: usize = 4;
/// How many fields of one schema are described (a hostile schema may have thousands).
const MAX_FIELDS: usize = 300;

/// What kind of change a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `WHAT: BEFORE → AFTER`
    Changed,
    /// `added: WHAT (AFTER)`
    Added,
    /// `removed: WHAT`
    Removed,
    /// `WHAT: AFTER` (what is known of an llm page: how it was regenerated)
    Note,
}

/// One change a person would notice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeLine {
    /// The tool's name (escaped, capped).
    pub tool: String,
    /// The widget, for a tool with several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub widget: Option<String>,
    pub kind: Kind,
    pub what: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl ChangeLine {
    /// The line as printed (two spaces first).
    pub fn text(&self) -> String {
        let who = match &self.widget {
            Some(w) => format!("{} [{w}]", self.tool),
            None => self.tool.clone(),
        };
        let none = String::new();
        let b = self.before.as_ref().unwrap_or(&none);
        let a = self.after.as_ref().unwrap_or(&none);
        match self.kind {
            Kind::Changed => format!("  {who}: {}: {b} → {a}", self.what),
            Kind::Added if a.is_empty() => format!("  {who}: added: {}", self.what),
            Kind::Added => format!("  {who}: added: {} ({a})", self.what),
            Kind::Removed => format!("  {who}: removed: {}", self.what),
            Kind::Note => format!("  {who}: {}: {a}", self.what),
        }
    }
}

/// Collects the lines of one tool (or widget).
struct Lines<'a> {
    tool: String,
    widget: Option<String>,
    out: &'a mut Vec<ChangeLine>,
}

impl Lines<'_> {
    fn push(&mut self, kind: Kind, what: String, before: Option<String>, after: Option<String>) {
        self.out.push(ChangeLine {
            tool: self.tool.clone(),
            widget: self.widget.clone(),
            kind,
            what,
            before,
            after,
        });
    }
    fn changed(&mut self, what: impl Into<String>, before: String, after: String) {
        self.push(Kind::Changed, what.into(), Some(before), Some(after));
    }
    fn added(&mut self, what: impl Into<String>, after: Option<String>) {
        self.push(Kind::Added, what.into(), None, after);
    }
    fn removed(&mut self, what: impl Into<String>) {
        self.push(Kind::Removed, what.into(), None, None);
    }
    fn note(&mut self, what: impl Into<String>, after: String) {
        self.push(Kind::Note, what.into(), None, Some(after));
    }
    /// A `changed` line when the two differ (`none` names an absent value).
    fn compare(&mut self, what: &str, before: Option<String>, after: Option<String>, none: &str) {
        if before != after {
            self.changed(
                what,
                before.unwrap_or_else(|| none.into()),
                after.unwrap_or_else(|| none.into()),
            );
        }
    }
}

/// Every change a person would notice between `before` and `after`, for `only` (all tools when
/// empty), sorted by tool.
pub fn changes(before: &Side, after: &Side, only: &[String]) -> Vec<ChangeLine> {
    let empty = BTreeMap::new();
    let b_tools = before.lock.as_ref().map_or(&empty, |l| &l.tools);
    let a_tools = after.lock.as_ref().map_or(&empty, |l| &l.tools);
    let names: BTreeSet<&String> = b_tools
        .keys()
        .chain(a_tools.keys())
        .filter(|n| only.is_empty() || only.contains(n))
        .collect();
    let mut out = Vec::new();
    for name in names {
        let tool = crate::report::display_name(name);
        let mut lines = Lines {
            tool: tool.clone(),
            widget: None,
            out: &mut out,
        };
        match (b_tools.get(name), a_tools.get(name)) {
            // Known only from the definitions (no page on either side): the drift report names
            // such tools, and the next `generate` follows them.
            (None, None) => {}
            (None, Some(entry)) => {
                for w in &entry.widgets {
                    let page = Page::of(after, name, w);
                    lines.added(
                        format!("page {}", clean(&w.path, MAX_FIELD)),
                        Some(page.summary()),
                    );
                }
            }
            (Some(entry), None) => {
                for w in &entry.widgets {
                    lines.removed(format!("page {}", clean(&w.path, MAX_FIELD)));
                }
            }
            (Some(b_entry), Some(a_entry)) => {
                tool_changes(before, after, name, b_entry, a_entry, &mut lines);
            }
        }
    }
    out
}

/// The changes of a tool that has pages on both sides.
fn tool_changes(
    before: &Side,
    after: &Side,
    name: &str,
    b_entry: &ToolEntry,
    a_entry: &ToolEntry,
    lines: &mut Lines<'_>,
) {
    let b_def = definition(before, name, b_entry);
    let a_def = definition(after, name, a_entry);
    definition_changes(b_def.as_ref(), a_def.as_ref(), lines);

    let several = a_entry.widgets.len() > 1 || b_entry.widgets.len() > 1;
    let widget_names: BTreeSet<&str> = b_entry
        .widgets
        .iter()
        .chain(&a_entry.widgets)
        .map(|w| w.name.as_str())
        .collect();
    for wname in widget_names {
        lines.widget = (several || wname != DEFAULT_WIDGET).then(|| clean(wname, 40));
        let bw = b_entry.widgets.iter().find(|w| w.name == wname);
        let aw = a_entry.widgets.iter().find(|w| w.name == wname);
        match (bw, aw) {
            (None, Some(w)) => {
                let page = Page::of(after, name, w);
                lines.added(
                    format!("page {}", clean(&w.path, MAX_FIELD)),
                    Some(page.summary()),
                );
            }
            (Some(w), None) => lines.removed(format!("page {}", clean(&w.path, MAX_FIELD))),
            // In the lock on both sides, but the file is missing on one (deleted by hand).
            (Some(bw), Some(aw))
                if before.pages.contains_key(&bw.path) != after.pages.contains_key(&aw.path) =>
            {
                if after.pages.contains_key(&aw.path) {
                    let page = Page::of(after, name, aw);
                    lines.added(
                        format!("page {}", clean(&aw.path, MAX_FIELD)),
                        Some(page.summary()),
                    );
                } else {
                    lines.removed(format!("page {}", clean(&bw.path, MAX_FIELD)));
                }
            }
            (Some(bw), Some(aw)) => {
                let bp = Page::of(before, name, bw);
                let ap = Page::of(after, name, aw);
                page_changes(&bp, &ap, lines);
                feedback_changes(&b_entry.refinements, &a_entry.refinements, &ap, lines);
                if bw.path != aw.path {
                    lines.changed(
                        "file",
                        clean(&bw.path, MAX_FIELD),
                        clean(&aw.path, MAX_FIELD),
                    );
                }
            }
            (None, None) => {}
        }
    }
    lines.widget = None;
}

/// A tool's definition on one side: the definitions file, else what its default page embeds.
fn definition(side: &Side, name: &str, entry: &ToolEntry) -> Option<Value> {
    if let Some(d) = side.tools.get(name) {
        return Some(d.clone());
    }
    entry
        .widgets
        .iter()
        .filter_map(|w| side.pages.get(&w.path))
        .find_map(|html| {
            embedded_json(html, "mcp-gen-ui-data")
                .and_then(|d| d.get("tool").cloned())
                .or_else(|| embedded_json(html, "mcp-gen-ui-tool"))
        })
}

/// What one page is, as far as the files tell.
struct Page {
    /// The lock's generator label (`builtin`, `llm:<provider>/<model>`).
    generator: String,
    fallback: Option<String>,
    /// A builtin page's embedded data (`version`, `tool`, `hints`, …).
    data: Option<Value>,
    /// The page was written by the llm generator (not a fallback).
    llm: bool,
}

impl Page {
    fn of(side: &Side, _tool: &str, w: &WidgetEntry) -> Page {
        let html = side.pages.get(&w.path);
        let data = html.and_then(|h| embedded_json(h, "mcp-gen-ui-data"));
        let llm = w.generator.starts_with("llm:") && w.fallback_reason.is_none();
        Page {
            generator: w.generator.clone(),
            fallback: w.fallback_reason.clone(),
            data,
            llm,
        }
    }

    /// The view hints a builtin page was written with.
    fn hints(&self) -> Option<Hints> {
        let d = self.data.as_ref()?;
        match d.get("hints") {
            None | Some(Value::Null) => Some(Hints::default()),
            Some(h) => serde_json::from_value(h.clone()).ok(),
        }
    }

    fn version(&self) -> Option<String> {
        let v = self.data.as_ref()?.get("version")?;
        Some(match v {
            Value::String(s) => clean(s, 20),
            other => clean(&other.to_string(), 20),
        })
    }

    /// Who wrote the page, for people.
    fn generator_words(&self) -> String {
        let base = if self.llm {
            clean(&self.generator, 60)
        } else {
            match self.version() {
                Some(v) => format!("builtin {v}"),
                None => "builtin".into(),
            }
        };
        match &self.fallback {
            Some(r) => format!(
                "{base} (in place of the {} page: {})",
                clean(&self.generator, 60),
                clean(r, MAX_VALUE)
            ),
            None => base,
        }
    }

    /// A one-line description of a new page.
    fn summary(&self) -> String {
        let mut parts = vec![self.generator_words()];
        if let Some(h) = self.hints() {
            parts.push(format!("view: {}", view_words(&h)));
        }
        if let Some(tool) = self.data.as_ref().and_then(|d| d.get("tool")) {
            let f = fields(tool.get("inputSchema"), FieldSet::Input);
            if !f.is_empty() {
                let names: Vec<&str> = f.keys().map(String::as_str).take(8).collect();
                let more = if f.len() > 8 { ", …" } else { "" };
                parts.push(format!("fields: {}{more}", names.join(", ")));
            }
        }
        clean(&parts.join("; "), 300)
    }
}

/// The JSON of `<script type="application/json" id="ID">` in a page.
pub fn embedded_json(html: &str, id: &str) -> Option<Value> {
    let marker = format!("id=\"{id}\"");
    let at = html.find(&marker)?;
    let start = at + html[at..].find('>')? + 1;
    let end = start + html[start..].find("</script")?;
    serde_json::from_str(&html[start..end]).ok()
}

/// The changes a person sees that come from the page itself: its view and who wrote it.
fn page_changes(b: &Page, a: &Page, lines: &mut Lines<'_>) {
    let (bg, ag) = (b.generator_words(), a.generator_words());
    if bg != ag {
        lines.changed("generator", bg, ag);
    }
    let (Some(bh), Some(ah)) = (b.hints(), a.hints()) else {
        return;
    };
    if (bh.view, &bh.x, &bh.y) != (ah.view, &ah.x, &ah.y) {
        lines.changed("view", view_words(&bh), view_words(&ah));
    }
    let hidden_b: BTreeSet<&String> = bh.hidden.iter().collect();
    let hidden_a: BTreeSet<&String> = ah.hidden.iter().collect();
    for f in hidden_a.difference(&hidden_b) {
        lines.changed(
            format!("result field {}", clean(f, MAX_FIELD)),
            "shown".into(),
            "hidden".into(),
        );
    }
    for f in hidden_b.difference(&hidden_a) {
        lines.changed(
            format!("result field {}", clean(f, MAX_FIELD)),
            "hidden".into(),
            "shown".into(),
        );
    }
    let keys: BTreeSet<&String> = bh.labels.keys().chain(ah.labels.keys()).collect();
    for k in keys {
        lines.compare(
            &format!("result field {} label", clean(k, MAX_FIELD)),
            bh.labels.get(k).map(|l| clean(l, MAX_VALUE)),
            ah.labels.get(k).map(|l| clean(l, MAX_VALUE)),
            "(default)",
        );
    }
    lines.compare(
        "sort",
        bh.sort.as_deref().map(sort_words),
        ah.sort.as_deref().map(sort_words),
        "none",
    );
    let theme = |t: Option<ThemeHint>| match t {
        None | Some(ThemeHint::Host) => "host's",
        Some(ThemeHint::Light) => "light",
        Some(ThemeHint::Dark) => "dark",
    };
    if theme(bh.theme) != theme(ah.theme) {
        lines.changed("theme", theme(bh.theme).into(), theme(ah.theme).into());
    }
    let density = |d: Option<Density>| match d {
        Some(Density::Compact) => "compact",
        _ => "comfortable",
    };
    if density(bh.density) != density(ah.density) {
        lines.changed(
            "density",
            density(bh.density).into(),
            density(ah.density).into(),
        );
    }
}

/// For an llm page, whose look the files do not describe: the feedback it was regenerated with.
/// (A builtin page's feedback shows as the view changes it made.)
fn feedback_changes(before: &[String], after: &[String], page: &Page, lines: &mut Lines<'_>) {
    if before == after || !page.llm {
        return;
    }
    let common = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let by = clean(&page.generator, 60);
    for f in &before[common..] {
        lines.note(
            "feedback withdrawn",
            format!("\"{}\" (regenerated by {by})", clean(f, MAX_VALUE)),
        );
    }
    for f in &after[common..] {
        lines.note(
            "regenerated",
            format!("by {by} with the feedback \"{}\"", clean(f, MAX_VALUE)),
        );
    }
}

/// `line chart (x: date, y: high, low)`.
pub fn view_words(h: &Hints) -> String {
    let kind = match h.view {
        None => "automatic",
        Some(ViewKind::Table) => "table",
        Some(ViewKind::Line) => "line chart",
        Some(ViewKind::Bar) => "bar chart",
        Some(ViewKind::Cards) => "cards",
        Some(ViewKind::List) => "list",
        Some(ViewKind::Json) => "raw JSON",
    };
    let mut axes = Vec::new();
    if let Some(x) = &h.x {
        axes.push(format!("x: {}", clean(x, 40)));
    }
    if !h.y.is_empty() {
        let ys: Vec<String> = h.y.iter().take(6).map(|y| clean(y, 40)).collect();
        axes.push(format!("y: {}", ys.join(", ")));
    }
    if axes.is_empty() {
        kind.to_string()
    } else {
        format!("{kind} ({})", axes.join(", "))
    }
}

/// `date desc` → `date, descending`.
fn sort_words(s: &str) -> String {
    let s = s.trim();
    let (field, dir) = match s.rsplit_once(' ') {
        Some((f, "desc")) => (f, "descending"),
        Some((f, "asc")) => (f, "ascending"),
        _ => (s, "ascending"),
    };
    format!("by {}, {dir}", clean(field, MAX_FIELD))
}

/// The changes of the tool's definition a person sees: the page's title and description, the
/// form's fields, the result's fields, and whether a run asks first.
fn definition_changes(b: Option<&Value>, a: Option<&Value>, lines: &mut Lines<'_>) {
    let (Some(b), Some(a)) = (b, a) else {
        return;
    };
    if b == a {
        return;
    }
    let title = |d: &Value| {
        d.get("title")
            .or_else(|| d.pointer("/annotations/title"))
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(|t| clean(t, MAX_VALUE))
    };
    lines.compare("title", title(b), title(a), "(the tool's name)");
    let desc = |d: &Value| {
        d.get("description")
            .and_then(Value::as_str)
            .map(|t| format!("\"{}\"", clean(t.trim(), MAX_VALUE)))
    };
    lines.compare("description", desc(b), desc(a), "(none)");

    let bf = fields(b.get("inputSchema"), FieldSet::Input);
    let af = fields(a.get("inputSchema"), FieldSet::Input);
    field_changes(&bf, &af, "field", lines);
    let bo = fields(b.get("outputSchema"), FieldSet::Output);
    let ao = fields(a.get("outputSchema"), FieldSet::Output);
    field_changes(&bo, &ao, "result field", lines);

    let yes_no = |v: bool| if v { "yes" } else { "no" };
    // Who confirms (book: reference/pages.md): the one rule the pages follow.
    let (ba, aa) = (b.get("annotations"), a.get("annotations"));
    let (bc, ac) = (confirm::asks_on_click(ba), confirm::asks_on_click(aa));
    if bc != ac {
        lines.changed(
            "confirmation before running",
            yes_no(bc).into(),
            yes_no(ac).into(),
        );
    }
    let (bm, am) = (confirm::asks_for_model(ba), confirm::asks_for_model(aa));
    if bm != am {
        lines.changed(
            "confirmation before the model runs it",
            yes_no(bm).into(),
            yes_no(am).into(),
        );
    }
}

fn field_changes(
    b: &BTreeMap<String, Field>,
    a: &BTreeMap<String, Field>,
    noun: &str,
    lines: &mut Lines<'_>,
) {
    for (path, af) in a {
        let Some(bf) = b.get(path) else {
            lines.added(format!("{noun} {path}"), Some(af.summary(noun == "field")));
            continue;
        };
        let what = |w: &str| {
            if w.is_empty() {
                format!("{noun} {path}")
            } else {
                format!("{noun} {path} {w}")
            }
        };
        lines.compare(&what("type"), Some(bf.ty.clone()), Some(af.ty.clone()), "");
        if noun == "field" && bf.required != af.required {
            let r = |x: bool| if x { "required" } else { "optional" };
            lines.changed(what(""), r(bf.required).into(), r(af.required).into());
        }
        lines.compare(
            &what("label"),
            bf.label.clone(),
            af.label.clone(),
            "(its name)",
        );
        lines.compare(
            &what("default"),
            bf.default.clone(),
            af.default.clone(),
            "none",
        );
        lines.compare(
            &what("choices"),
            bf.choices.clone(),
            af.choices.clone(),
            "any",
        );
        lines.compare(&what("range"), bf.range.clone(), af.range.clone(), "any");
        lines.compare(&what("help"), bf.help.clone(), af.help.clone(), "none");
    }
    for path in b.keys() {
        if !a.contains_key(path) {
            lines.removed(format!("{noun} {path}"));
        }
    }
}

/// What a person sees of one schema property.
#[derive(Debug, Clone, PartialEq, Default)]
struct Field {
    ty: String,
    required: bool,
    label: Option<String>,
    default: Option<String>,
    choices: Option<String>,
    range: Option<String>,
    help: Option<String>,
}

impl Field {
    /// `integer, optional, default 7` (a form field) or `number` (a result field).
    fn summary(&self, input: bool) -> String {
        let mut s = vec![self.ty.clone()];
        if input {
            s.push(
                if self.required {
                    "required"
                } else {
                    "optional"
                }
                .into(),
            );
        }
        if let Some(d) = &self.default {
            s.push(format!("default {d}"));
        }
        if let Some(l) = &self.label {
            s.push(format!("label {l}"));
        }
        s.join(", ")
    }
}

#[derive(Clone, Copy, PartialEq)]
enum FieldSet {
    /// The form: nested objects down to [`MAX_DEPTH`].
    Input,
    /// The result: its top-level fields and the fields of its lists' rows (table columns).
    Output,
}

/// The fields of a schema by path (`a`, `a.b`, `rows[].c`).
fn fields(schema: Option<&Value>, set: FieldSet) -> BTreeMap<String, Field> {
    let mut out = BTreeMap::new();
    if let Some(s) = schema {
        let depth = if set == FieldSet::Input { MAX_DEPTH } else { 2 };
        let mut budget = MAX_FIELDS;
        walk(s, s, "", depth, &mut budget, &mut out);
    }
    out
}

fn walk(
    root: &Value,
    schema: &Value,
    prefix: &str,
    depth: usize,
    budget: &mut usize,
    out: &mut BTreeMap<String, Field>,
) {
    let s = resolve(root, schema);
    let mut parts = vec![s];
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        parts.extend(all.iter().map(|p| resolve(root, p)));
    }
    for part in parts {
        let required: BTreeSet<&str> = part
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = part.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (k, v) in props {
            // Every property visited counts, whatever its path (cut paths may coincide).
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let path = clean(&format!("{prefix}{k}"), MAX_FIELD);
            let pv = resolve(root, v);
            let mut f = describe(root, pv);
            f.required = required.contains(k.as_str());
            // The field's own title and description win over its `$ref` target's.
            if let Some(t) = v.get("title").and_then(Value::as_str) {
                f.label = Some(clean(t, MAX_VALUE));
            }
            if let Some(d) = v.get("description").and_then(Value::as_str) {
                f.help = Some(format!("\"{}\"", clean(d.trim(), MAX_VALUE)));
            }
            if let Some(d) = v.get("default") {
                f.default = Some(clean(&d.to_string(), MAX_VALUE));
            }
            out.insert(path.clone(), f);
            if depth > 1 {
                if pv.get("properties").is_some() || pv.get("allOf").is_some() {
                    walk(root, pv, &format!("{prefix}{k}."), depth - 1, budget, out);
                } else if let Some(items) = pv.get("items") {
                    walk(
                        root,
                        items,
                        &format!("{prefix}{k}[]."),
                        depth - 1,
                        budget,
                        out,
                    );
                }
            }
        }
    }
}

/// Type, label, default, choices, range and help of one (resolved) schema.
fn describe(root: &Value, s: &Value) -> Field {
    let mut f = Field {
        ty: type_words(root, s),
        ..Field::default()
    };
    f.label = s
        .get("title")
        .and_then(Value::as_str)
        .map(|t| clean(t, MAX_VALUE));
    f.help = s
        .get("description")
        .and_then(Value::as_str)
        .map(|d| format!("\"{}\"", clean(d.trim(), MAX_VALUE)));
    f.default = s.get("default").map(|d| clean(&d.to_string(), MAX_VALUE));
    let choices: Option<Vec<String>> = if let Some(e) = s.get("enum").and_then(Value::as_array) {
        Some(e.iter().map(scalar_words).collect())
    } else {
        s.get("oneOf")
            .or_else(|| s.get("anyOf"))
            .and_then(Value::as_array)
            .filter(|v| v.iter().all(|o| o.get("const").is_some()))
            .map(|v| {
                v.iter()
                    .map(|o| {
                        o.get("title")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                            .unwrap_or_else(|| scalar_words(&o["const"]))
                    })
                    .collect()
            })
    };
    f.choices = choices.map(|c| clean(&c.join(", "), MAX_VALUE));
    let num = |k: &str| s.get(k).and_then(Value::as_f64).map(fmt_num);
    let lo = num("minimum").or_else(|| num("exclusiveMinimum").map(|n| format!("above {n}")));
    let hi = num("maximum").or_else(|| num("exclusiveMaximum").map(|n| format!("below {n}")));
    f.range = match (lo, hi) {
        (Some(l), Some(h)) => Some(format!("{l} to {h}")),
        (Some(l), None) => Some(format!("at least {l}")),
        (None, Some(h)) => Some(format!("at most {h}")),
        (None, None) => None,
    };
    f
}

fn fmt_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

fn scalar_words(v: &Value) -> String {
    match v {
        Value::String(s) => clean(s, 40),
        other => clean(&other.to_string(), 40),
    }
}

/// `integer`, `string (date)`, `list of string`, `choice`, `number or null`, `one of 2 kinds`.
fn type_words(root: &Value, s: &Value) -> String {
    if s.get("enum").is_some() {
        return "choice".into();
    }
    if s.get("const").is_some() {
        return "constant".into();
    }
    let mut nullable = false;
    let mut types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| {
                let null = *t == "null";
                nullable |= null;
                !null
            })
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if types.is_empty()
        && let Some(variants) = s
            .get("anyOf")
            .or_else(|| s.get("oneOf"))
            .and_then(Value::as_array)
    {
        let non_null: Vec<&Value> = variants
            .iter()
            .filter(|v| v.get("type") != Some(&Value::String("null".into())))
            .collect();
        nullable = non_null.len() < variants.len();
        if non_null.len() == 1 {
            let inner = type_words(root, resolve(root, non_null[0]));
            return if nullable {
                format!("{inner} or null")
            } else {
                inner
            };
        }
        if non_null.iter().all(|v| v.get("const").is_some()) {
            types.push("choice".into());
        } else {
            types.push(format!("one of {} kinds", non_null.len()));
        }
    }
    let mut w = if types.is_empty() {
        "any".to_string()
    } else {
        types
            .iter()
            .map(|t| clean(t, 20))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    if types.len() == 1
        && types[0] == "array"
        && let Some(items) = s.get("items")
    {
        let items = resolve(root, items);
        w = if items.get("enum").is_some() {
            "several choices".into()
        } else {
            format!("list of {}", type_words(root, items))
        };
    }
    if let Some(fmt) = s.get("format").and_then(Value::as_str) {
        w = format!("{w} ({})", clean(fmt, 20));
    }
    if nullable {
        w.push_str(" or null");
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{LOCK_VERSION, Lock};
    use serde_json::json;

    fn page(tool: &Value, hints: &Value) -> String {
        let data = json!({"version": "13", "tool": tool, "hints": hints});
        format!(
            "<!doctype html><script type=\"application/json\" id=\"mcp-gen-ui-data\">{}</script>",
            crate::generate::builtin::script_json(&data)
        )
    }

    fn side(tools: &[(&str, Value, Value, &str, Option<&str>)], refinements: &[&str]) -> Side {
        let mut lock = Lock {
            version: LOCK_VERSION,
            generator: "builtin".into(),
            fingerprint: "f".into(),
            validator_version: 1,
            server_name: "s".into(),
            tools: BTreeMap::new(),
        };
        let mut s = Side::default();
        for (name, def, hints, generator, fallback) in tools {
            let path = format!("{name}.html");
            lock.tools.insert(
                name.to_string(),
                ToolEntry {
                    refinements: refinements.iter().map(|r| r.to_string()).collect(),
                    widgets: vec![WidgetEntry {
                        name: DEFAULT_WIDGET.into(),
                        path: path.clone(),
                        generator: generator.to_string(),
                        fallback_reason: fallback.map(str::to_string),
                        default: true,
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            );
            s.tools.insert(name.to_string(), def.clone());
            s.pages.insert(path, page(def, hints));
        }
        s.lock = Some(lock);
        s
    }

    fn texts(v: &[ChangeLine]) -> Vec<String> {
        v.iter().map(ChangeLine::text).collect()
    }

    fn report() -> Value {
        json!({"name": "report", "inputSchema": {"type": "object", "required": ["year"], "properties": {
            "year": {"type": "integer", "minimum": 2000, "maximum": 2030},
            "region": {"type": "string", "enum": ["north", "south"]}}}})
    }

    #[test]
    fn view_change_is_an_arrow_line() {
        let b = side(
            &[(
                "report",
                report(),
                json!({"view": "table"}),
                "builtin",
                None,
            )],
            &[],
        );
        let a = side(
            &[(
                "report",
                report(),
                json!({"view": "bar", "x": "month", "y": ["revenue"]}),
                "builtin",
                None,
            )],
            &["bar chart of revenue by month"],
        );
        assert_eq!(
            texts(&changes(&b, &a, &[])),
            ["  report: view: table → bar chart (x: month, y: revenue)"]
        );
        assert!(changes(&b, &b, &[]).is_empty(), "no change, no line");
    }

    #[test]
    fn fields_added_removed_retyped_required_defaults() {
        let b = side(&[("report", report(), json!({}), "builtin", None)], &[]);
        let mut def = report();
        def["inputSchema"]["properties"]["year"]["type"] = json!("string");
        def["inputSchema"]["properties"]["year"]["title"] = json!("Fiscal year");
        def["inputSchema"]["properties"]["region"]["enum"] = json!(["north", "south", "east"]);
        def["inputSchema"]["properties"]["region"]["default"] = json!("north");
        def["inputSchema"]["required"] = json!(["year", "region"]);
        def["inputSchema"]["properties"]["currency"] =
            json!({"type": "string", "format": "iso-4217\u{1b}[31m"});
        def["annotations"] = json!({"destructiveHint": true});
        let a = side(
            &[("report", def, json!({"hidden": ["id"]}), "builtin", None)],
            &[],
        );
        let got = texts(&changes(&b, &a, &[]));
        assert_eq!(
            got,
            [
                "  report: added: field currency (string (iso-4217\\u{1b}[31m), optional)",
                "  report: field region: optional → required",
                "  report: field region default: none → \"north\"",
                "  report: field region choices: north, south → north, south, east",
                "  report: field year type: integer → string",
                "  report: field year label: (its name) → Fiscal year",
                "  report: confirmation before running: no → yes",
                "  report: result field id: shown → hidden",
            ]
        );
        let back = texts(&changes(&a, &b, &[]));
        assert!(
            back.contains(&"  report: removed: field currency".to_string()),
            "{back:?}"
        );
    }

    #[test]
    fn llm_pages_say_what_can_be_known() {
        let b = side(
            &[("report", report(), json!(null), "llm:anthropic/m", None)],
            &["line chart"],
        );
        let mut a = side(
            &[("report", report(), json!(null), "llm:anthropic/m", None)],
            &["line chart", "bar chart"],
        );
        // An llm page embeds no hints.
        for p in a.pages.values_mut() {
            *p = "<script type=\"application/json\" id=\"mcp-gen-ui-tool\">{\"name\":\"report\"}</script>".into();
        }
        assert_eq!(
            texts(&changes(&b, &a, &[])),
            ["  report: regenerated: by llm:anthropic/m with the feedback \"bar chart\""]
        );
        let c = side(
            &[(
                "report",
                report(),
                json!({}),
                "llm:anthropic/m",
                Some("the page did not parse\nat all"),
            )],
            &["line chart", "bar chart"],
        );
        assert_eq!(
            texts(&changes(&a, &c, &[])),
            [
                "  report: generator: llm:anthropic/m → builtin 13 (in place of the llm:anthropic/m page: the page did not parse\\nat all)"
            ]
        );
    }

    #[test]
    fn pages_added_and_removed_and_filtered() {
        let b = side(&[("report", report(), json!({}), "builtin", None)], &[]);
        let a = side(
            &[(
                "other",
                json!({"name": "other"}),
                json!({}),
                "builtin",
                None,
            )],
            &[],
        );
        assert_eq!(
            texts(&changes(&b, &a, &[])),
            [
                "  other: added: page other.html (builtin 13; view: automatic)",
                "  report: removed: page report.html",
            ]
        );
        assert_eq!(changes(&b, &a, &["other".into()]).len(), 1);
    }

    #[test]
    fn a_missing_file_is_a_removed_page() {
        let b = side(&[("report", report(), json!({}), "builtin", None)], &[]);
        let mut a = b.clone();
        a.pages.clear();
        assert_eq!(
            texts(&changes(&b, &a, &[])),
            ["  report: removed: page report.html"]
        );
    }

    #[test]
    fn hostile_schemas_stay_bounded() {
        let mut props = serde_json::Map::new();
        for i in 0..2000 {
            props.insert(format!("f{i}\n{}", "x".repeat(500)), json!({"$ref": "#"}));
        }
        let def = json!({"name": "h", "inputSchema": {"type": "object", "properties": props}});
        let b = side(
            &[("h", json!({"name": "h"}), json!({}), "builtin", None)],
            &[],
        );
        let a = side(&[("h", def, json!({}), "builtin", None)], &[]);
        let lines = changes(&b, &a, &[]);
        assert!(lines.len() <= MAX_FIELDS + 5, "{}", lines.len());
        assert!(
            lines
                .iter()
                .all(|l| l.text().chars().count() <= 400 && !l.text().contains('\n'))
        );
    }
}
