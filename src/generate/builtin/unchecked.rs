//! What a page cannot check before a call (book: reference/pages.md, "What a page checks before
//! a call"): the keywords of a tool's input schema that its validator passes over, named at
//! generate time as warnings instead of being skipped silently.

use super::schema_needs::{each_schema, subschemas};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use url::Url;

/// The base URI of a schema without an `$id` (schema.js's BASE: keep the two equal).
const BASE: &str = "https://mcp-gen-ui.invalid/input.json";

/// The formats the JSON Schema drafts define that the page does not check (it checks the others
/// of those drafts; any format outside them is an annotation).
const UNCHECKED_FORMATS: [&str; 5] = [
    "idn-email",
    "idn-hostname",
    "iri",
    "iri-reference",
    "uri-template",
];

/// What the page cannot check in `schema`, one line each ("`$recursiveRef` at /properties/a").
pub fn unchecked(schema: &Value) -> Vec<String> {
    let mut out = BTreeSet::new();
    each_schema(schema, "", 0, &mut |m, at| {
        let at = if at.is_empty() { "/" } else { at };
        if m.contains_key("$recursiveRef") {
            out.insert(format!("`$recursiveRef` at {at}"));
        }
        if let Some(Value::String(f)) = m.get("format")
            && UNCHECKED_FORMATS.contains(&f.as_str())
        {
            out.insert(format!("format `{f}` at {at}"));
        }
    });
    for (r, at) in remote_refs(schema) {
        out.insert(format!(
            "`$ref` to `{r}` at {at} (not in the schema: the page cannot fetch it)"
        ));
    }
    out.into_iter().collect()
}

/// The `$ref`s and `$dynamicRef`s that name nothing in the document, resolved as schema.js's
/// index resolves them: against the base URI of the schema they sit in (`$id`s resolved against
/// their parent's), then an `$id`, an anchor or a JSON pointer into a resource.
fn remote_refs(root: &Value) -> Vec<(String, String)> {
    let Ok(base) = Url::parse(BASE) else {
        return Vec::new();
    };
    let draft7 = root
        .get("$schema")
        .and_then(Value::as_str)
        .is_some_and(|s| s.contains("draft-0"));
    let mut ids: BTreeMap<String, &Value> = BTreeMap::new();
    let mut refs = Vec::new();
    index(root, &base, draft7, "", 0, &mut ids, &mut refs);
    ids.entry(BASE.to_string()).or_insert(root);
    refs.into_iter()
        .filter(|(r, b, _)| !resolves(&ids, r, b))
        .map(|(r, _, at)| (r, at))
        .collect()
}

type Refs = Vec<(String, Url, String)>;

fn index<'a>(
    v: &'a Value,
    base: &Url,
    draft7: bool,
    at: &str,
    depth: usize,
    ids: &mut BTreeMap<String, &'a Value>,
    refs: &mut Refs,
) {
    let Value::Object(m) = v else {
        return;
    };
    if depth > 256 {
        return;
    }
    let mut base = base.clone();
    if let Some(Value::String(id)) = m.get("$id")
        && !(draft7 && m.contains_key("$ref"))
        && let Ok(mut u) = base.join(id)
    {
        if id.starts_with('#') {
            ids.insert(u.to_string(), v);
        } else {
            u.set_fragment(None);
            ids.insert(u.to_string(), v);
            base = u;
        }
    }
    for key in ["$anchor", "$dynamicAnchor"] {
        if let Some(Value::String(a)) = m.get(key) {
            let mut u = base.clone();
            u.set_fragment(Some(a));
            ids.insert(u.to_string(), v);
        }
    }
    for key in ["$ref", "$dynamicRef"] {
        if let Some(Value::String(r)) = m.get(key) {
            refs.push((r.clone(), base.clone(), display(at)));
        }
    }
    for (rel, x) in subschemas(m) {
        index(
            x,
            &base,
            draft7,
            &format!("{at}{rel}"),
            depth + 1,
            ids,
            refs,
        );
    }
}

/// Whether ref, written where the base URI is `base`, names a schema of the document.
fn resolves(ids: &BTreeMap<String, &Value>, r: &str, base: &Url) -> bool {
    let Ok(u) = base.join(r) else {
        return false;
    };
    if ids.contains_key(u.as_str()) {
        return true;
    }
    let mut doc = u.clone();
    doc.set_fragment(None);
    let Some(resource) = ids.get(doc.as_str()) else {
        return false;
    };
    let frag = u.fragment().unwrap_or("");
    if frag.is_empty() {
        return true;
    }
    if !frag.starts_with('/') {
        return false;
    }
    // JSON pointer segments, %-decoded (serde_json's pointer undoes ~0 and ~1).
    percent_decode(frag).is_some_and(|p| resource.pointer(&p).is_some())
}

/// `%XX` escapes decoded as UTF-8; None when they do not make UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(x)) => {
                out.push(x);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn display(at: &str) -> String {
    if at.is_empty() { "/".into() } else { at.into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_the_page_cannot_check_is_named_with_where_it_is() {
        let s = json!({
            "$id": "https://example.com/tool.json",
            "properties": {
                "a": {"$ref": "https://example.com/other.json#/x"},
                "b": {"$recursiveRef": "#"},
                "c": {"type": "string", "format": "iri"},
                "d/e": {"$ref": "common.json"}
            }
        });
        assert_eq!(
            unchecked(&s),
            [
                "`$recursiveRef` at /properties/b",
                "`$ref` to `common.json` at /properties/d~1e (not in the schema: the page cannot fetch it)",
                "`$ref` to `https://example.com/other.json#/x` at /properties/a (not in the schema: the page cannot fetch it)",
                "format `iri` at /properties/c",
            ]
        );
    }

    #[test]
    fn refs_within_the_document_are_checked_and_not_named() {
        let s = json!({
            "$defs": {
                "pos": {"$id": "urn:example:positive", "type": "integer", "exclusiveMinimum": 0},
                "named": {"$anchor": "item", "type": "string"},
                "odd name/~%": {"type": "boolean"},
                "nested": {"$id": "https://example.com/schemas/n.json",
                    "$defs": {"leaf": {"type": "null"}},
                    "properties": {"me": {"$ref": "#/$defs/leaf"}, "sib": {"$ref": "n.json"}}}
            },
            "properties": {
                "a": {"$ref": "urn:example:positive"},
                "b": {"$ref": "#item"},
                "c": {"$ref": "#/$defs/odd%20name~1~0%25"},
                "d": {"$ref": "https://example.com/schemas/n.json#/$defs/leaf"},
                "e": {"$ref": "#"},
                "f": {"type": "string", "format": "date-time"},
                "g": {"type": "string", "format": "data-url"}
            }
        });
        // "odd name/~%" is written "odd%20name~1~0%25" in the pointer; a pointer that names
        // nothing is named too.
        let mut bad = s.clone();
        bad["properties"]["h"] = json!({"$ref": "#/$defs/missing"});
        assert_eq!(unchecked(&s), Vec::<String>::new());
        assert_eq!(
            unchecked(&bad),
            [
                "`$ref` to `#/$defs/missing` at /properties/h (not in the schema: the page cannot fetch it)"
            ]
        );
    }

    #[test]
    fn draft_07_ids_that_are_anchors_and_ids_beside_a_ref() {
        let s = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"$id": "#foo", "type": "integer"}},
            "properties": {"x": {"$ref": "#foo"}, "y": {"$id": "http://elsewhere/", "$ref": "#/definitions/a"}}
        });
        assert_eq!(unchecked(&s), Vec::<String>::new());
    }
}
