//! Accessible names for the form controls of an llm page (book: reference/llm.md): a control bound to a field
//! of the tool's input schema (by its `name` or `id`) that has no accessible name gets one from
//! the field's `title`, or from the field name made readable. Controls the page's scripts
//! create later get theirs from `templates/llm.js` at run time, by the same rule.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use lol_html::{RewriteStrSettings, element, rewrite_str};
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;

/// Words that say "this is a control" around a field name in an id (`city-input`, `fld_city`).
const GENERIC: [&str; 9] = [
    "input", "field", "fld", "inp", "select", "sel", "txt", "control", "ctl",
];

/// The fields of an input schema a control can be bound to: every property name (at any depth,
/// through objects and array items), with its label.
pub fn field_labels(schema: &Value) -> HashMap<String, String> {
    let mut out = HashMap::new();
    collect(schema, &mut out, 0);
    out
}

fn collect(schema: &Value, out: &mut HashMap<String, String>, depth: usize) {
    if depth > 8 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, sub) in props {
            let title = sub
                .get("title")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| crate::generate::llm::provider::clip(t, 80))
                .unwrap_or_else(|| humanize(key));
            out.entry(normalise(key)).or_insert(title);
            collect(sub, out, depth + 1);
        }
    }
    if let Some(items) = schema.get("items") {
        collect(items, out, depth + 1);
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        for sub in schema
            .get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(sub, out, depth + 1);
        }
    }
}

/// `start_time` → "Start time", `maxResults` → "Max results".
pub fn humanize(key: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c == '_' || c == '-' || c == '.' || c.is_whitespace() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let text = words.join(" ");
    let mut chars = text.chars();
    match chars.next() {
        Some(f) => f.to_uppercase().chain(chars).collect(),
        None => key.to_string(),
    }
}

fn normalise(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The field a control's `name` or `id` names, if any: exactly (`city`, `user.name`,
/// `tags[]`, `tags[0]`), or with generic words around it (`city-input`, `fld_city`).
pub fn bound_field(attr: &str, fields: &HashMap<String, String>) -> Option<String> {
    let last = attr
        .rsplit(['.', '['])
        .map(|s| s.trim_end_matches(']'))
        .find(|s| !s.is_empty() && !s.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or(attr);
    for cand in [attr, last] {
        if let Some(label) = fields.get(&normalise(cand)) {
            return Some(label.clone());
        }
    }
    let words: Vec<String> = last
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let kept: Vec<&String> = words
        .iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect();
    if kept.len() == words.len() || kept.is_empty() {
        return None;
    }
    let joined: String = kept.iter().map(|w| w.as_str()).collect();
    fields.get(&joined).cloned()
}

/// Adds `aria-label` to every control bound to a schema field that has no accessible name.
/// Returns the page and one line per control named.
pub fn name_controls(html: &str, schema: &Value) -> (String, Vec<String>) {
    let fields = field_labels(schema);
    if fields.is_empty() {
        return (html.to_string(), Vec::new());
    }
    // What is labelled needs the whole document (a <label for> may come after its control).
    let doc = Html::parse_document(html);
    let (Ok(labels), Ok(controls)) = (
        Selector::parse("label[for]"),
        Selector::parse("input, select, textarea"),
    ) else {
        return (html.to_string(), Vec::new());
    };
    let label_for: HashSet<&str> = doc
        .select(&labels)
        .filter_map(|l| l.value().attr("for"))
        .collect();
    // Controls to name, by (tag, name, id) and their rank among controls with the same key.
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    let mut todo: HashMap<(String, String, String, usize), String> = HashMap::new();
    for c in doc.select(&controls) {
        let e = c.value();
        let key = (
            e.name().to_string(),
            e.attr("name").unwrap_or("").to_string(),
            e.attr("id").unwrap_or("").to_string(),
        );
        let rank = *seen.entry(key.clone()).and_modify(|n| *n += 1).or_insert(0);
        let ty = e.attr("type").unwrap_or("").trim().to_ascii_lowercase();
        if e.name() == "input"
            && matches!(
                ty.as_str(),
                "hidden" | "submit" | "button" | "reset" | "image"
            )
        {
            continue;
        }
        let named = ["aria-label", "aria-labelledby", "title"]
            .iter()
            .any(|a| e.attr(a).is_some_and(|v| !v.trim().is_empty()))
            || e.id().is_some_and(|id| label_for.contains(id))
            || c.ancestors()
                .filter_map(ElementRef::wrap)
                .any(|a| a.value().name() == "label");
        if named {
            continue;
        }
        let label = [e.attr("name"), e.attr("id")]
            .into_iter()
            .flatten()
            .find_map(|a| bound_field(a, &fields));
        if let Some(label) = label {
            todo.insert((key.0, key.1, key.2, rank), label);
        }
    }
    if todo.is_empty() {
        return (html.to_string(), Vec::new());
    }
    let state = Rc::new(RefCell::new((
        HashMap::<(String, String, String), usize>::new(),
        Vec::<String>::new(),
    )));
    let st = state.clone();
    let settings = RewriteStrSettings::new()
        .append_element_content_handler(element!("input, select, textarea", move |el| {
            let mut st = st.borrow_mut();
            let key = (
                el.tag_name().to_ascii_lowercase(),
                el.get_attribute("name").unwrap_or_default(),
                el.get_attribute("id").unwrap_or_default(),
            );
            let rank = *st.0.entry(key.clone()).and_modify(|n| *n += 1).or_insert(0);
            if let Some(label) = todo.get(&(key.0.clone(), key.1.clone(), key.2.clone(), rank))
                && !el.has_attribute("aria-label")
            {
                el.set_attribute("aria-label", label)?;
                let what = if key.1.is_empty() {
                    format!("id=\"{}\"", key.2)
                } else {
                    format!("name=\"{}\"", key.1)
                };
                st.1.push(format!(
                    "gave <{} {}> the accessible name \"{label}\" from the input schema",
                    key.0,
                    crate::generate::llm::provider::clip(&what, 60)
                ));
            }
            Ok(())
        }))
        .with_strict(false);
    match rewrite_str(html, settings) {
        Ok(out) => {
            let notes = std::mem::take(&mut state.borrow_mut().1);
            (out, notes)
        }
        Err(_) => (html.to_string(), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "city": {"type": "string", "title": "City name"},
            "start_time": {"type": "string"},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}
        }})
    }

    #[test]
    fn bound_controls_without_a_name_get_the_schema_title_or_the_field_name() {
        let html = "<form><input name=city><input id=start-time-input type=time>\
            <input name='rows[0].sku'><label>Days <input name=days></label>\
            <label for=x>X</label><input id=x name=city><input name=other>\
            <input name=city aria-label='Town'><input type=hidden name=city></form>";
        let (out, notes) = name_controls(html, &schema());
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(
            out.contains("<input name=city aria-label=\"City name\">"),
            "{out}"
        );
        assert!(out.contains("aria-label=\"Start time\""), "{out}");
        assert!(out.contains("aria-label=\"Sku\""), "{out}");
        assert!(
            out.contains("<input id=x name=city>"),
            "labelled by <label for>: {out}"
        );
        assert!(
            out.contains("<input name=other>"),
            "not a schema field: {out}"
        );
        assert!(out.contains("aria-label='Town'"));
        assert!(!out.contains("type=hidden name=city aria-label"));
    }

    #[test]
    fn a_hostile_title_stays_inside_its_attribute() {
        let schema = json!({"properties": {"q": {"type": "string",
            "title": "x\" onfocus=\"window.__xss=1\" data-a=\"<script>"}}});
        let (out, notes) = name_controls("<form><input name=q></form>", &schema);
        assert_eq!(notes.len(), 1);
        let doc = Html::parse_document(&out);
        let input = doc
            .select(&Selector::parse("input").unwrap())
            .next()
            .unwrap();
        assert_eq!(input.value().attrs().count(), 2, "{out}");
        assert!(input.value().attr("onfocus").is_none(), "{out}");
        assert!(
            input
                .value()
                .attr("aria-label")
                .is_some_and(|l| l.contains("onfocus")),
            "{out}"
        );
    }

    #[test]
    fn names_are_readable() {
        assert_eq!(humanize("start_time"), "Start time");
        assert_eq!(humanize("maxResults"), "Max results");
        assert_eq!(humanize("user-id"), "User id");
        let f = field_labels(&schema());
        assert_eq!(bound_field("fld_city", &f).as_deref(), Some("City name"));
        assert_eq!(bound_field("input", &f), None);
        assert_eq!(bound_field("cityscape", &f), None);
    }
}
