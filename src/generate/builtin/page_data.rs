//! The page's data: the tool's JSON a page reads at load (escaped for a `<script>` element), its
//! title, and the guard that keeps an override script from closing its element.

use serde_json::{Map, Value, json};

use crate::generate::request::{GENERATOR_VERSION, WidgetRequest};

/// How much of the tool's prose (descriptions, titles) a page embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prose {
    /// Each string shortened to a readable length, with a visible marker.
    Shortened,
    /// Schema descriptions, titles and examples left out; the tool description shortened more.
    Stripped,
}

/// `title`, else `annotations.title`, else the name.
pub(super) fn display_title(tool: &crate::model::Tool) -> String {
    tool.title()
        .or_else(|| {
            tool.annotations()
                .and_then(|a| a.get("title"))
                .and_then(Value::as_str)
        })
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(&tool.name)
        .to_string()
}

/// The JSON the page reads at load: the parts of the tool that shape the UI, and the hints. With
/// the embedded templates, of the annotations only `readOnlyHint` and `destructiveHint` (the ones
/// app.js reads: who confirms), and empty values are left out; pages built from an override directory get all of it (`full`).
pub(super) fn page_data(req: &WidgetRequest<'_>, prose: Prose, full: bool) -> Value {
    use crate::model::text::{
        MAX_DESCRIPTION_CHARS, MAX_SCHEMA_TEXT_CHARS, safe_text, shorten_prose, strip_prose,
    };
    let mut t = Map::new();
    // The fields that shape a tool's UI are the ones its hash covers.
    for &key in crate::model::HASHED_FIELDS {
        if let Some(v) = req.tool.raw.get(key) {
            let mut v = v.clone();
            if !full && key == "annotations" {
                let hints: Map<String, Value> = v
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| *k == "readOnlyHint" || *k == "destructiveHint")
                    .map(|(k, x)| (k.clone(), x.clone()))
                    .collect();
                if hints.is_empty() {
                    continue;
                }
                v = Value::Object(hints);
            }
            // The page's validator ignores the dialect URI; leaving it out saves bytes per page.
            if let Value::Object(schema) = &mut v
                && key.ends_with("Schema")
            {
                schema.shift_remove("$schema");
            }
            match (key, &mut v) {
                ("description", Value::String(d)) => {
                    let max = match prose {
                        Prose::Shortened => MAX_DESCRIPTION_CHARS,
                        Prose::Stripped => 2_000,
                    };
                    *d = safe_text(d, max);
                }
                ("title", Value::String(d)) => *d = safe_text(d, 500),
                ("name", _) => {}
                _ => match prose {
                    Prose::Shortened => shorten_prose(&mut v, MAX_SCHEMA_TEXT_CHARS),
                    Prose::Stripped => strip_prose(&mut v),
                },
            }
            t.insert(key.to_string(), v);
        }
    }
    let mut data = json!({
        "version": GENERATOR_VERSION,
        // With the tool, what a page's drafts are stored under (book: reference/pages.md).
        "server": req.server_name,
        "tool": Value::Object(t),
        "widget": req.widget,
        "hints": serde_json::to_value(&req.hints).unwrap_or(Value::Null),
        "examples": req.tool_config.examples,
    });
    if !full && let Value::Object(m) = &mut data {
        m.retain(|_, v| match v {
            Value::Null => false,
            Value::Object(o) => !o.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => true,
        });
    }
    data
}

/// JSON for a `<script type="application/json">` block: nothing in it can close the element or
/// start markup, and U+2028/2029 are escaped too, so it is safe to paste anywhere.
pub fn script_json(v: &Value) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A user's override template could contain `</script`; breaking it keeps the page's structure
/// intact (the script then fails loudly instead of leaking into HTML).
pub(super) fn guard_script(js: &str) -> String {
    js.replace("</script", "<\\/script")
        .replace("</SCRIPT", "<\\/SCRIPT")
}
