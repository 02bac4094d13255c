//! What a tool's schemas need of the page: scans of its input schema that tell which optional
//! parts a page can use (choices, time fields, value checks, the JSON editor, form-extra's
//! controls). Each scan errs on the side of "needed": a part left out by mistake would break a
//! field, one embedded for nothing only costs bytes.

use serde_json::{Map, Value, json};

/// The form's field budget: `BUDGET` in templates/form-json.js (keep the two equal).
pub(super) const FORM_FIELD_BUDGET: usize = 600;

/// Whether any object anywhere in `v` (schemas, `$defs`, even defaults) satisfies `hit`: a
/// conservative scan, since a part left out by mistake would break a field.
fn any_object(v: &Value, depth: usize, hit: &impl Fn(&Map<String, Value>) -> bool) -> bool {
    if depth > 256 {
        return true;
    }
    match v {
        Value::Object(m) => hit(m) || m.values().any(|x| any_object(x, depth + 1, hit)),
        Value::Array(a) => a.iter().any(|x| any_object(x, depth + 1, hit)),
        _ => false,
    }
}

/// Whether a field can become a choice, a constant or a yes/no control (form-choice.js): `enum`,
/// `const`, a boolean or null type, or `oneOf`/`anyOf` that is more than "T or null" (a list of
/// consts is a choice; variants, form-extra.js's, may hold any of these).
pub(super) fn needs_choice(schema: &Value) -> bool {
    // schema.js's norm(): {type: "null"} with at most one other keyword is "or null", and is no
    // field of its own.
    fn null_alt(a: &Value) -> bool {
        a.as_object()
            .is_some_and(|o| o.get("type") == Some(&json!("null")) && o.len() <= 2)
    }
    fn walk(v: &Value, depth: usize) -> bool {
        if depth > 256 {
            return true;
        }
        let m = match v {
            Value::Object(m) => m,
            Value::Array(a) => return a.iter().any(|x| walk(x, depth + 1)),
            _ => return false,
        };
        let kinds = match m.get("type") {
            Some(Value::String(t)) => t == "boolean" || t == "null",
            Some(Value::Array(ts)) => {
                ts.iter().any(|t| t == "boolean") || ts.iter().all(|t| t == "null")
            }
            _ => false,
        };
        let alts = ["oneOf", "anyOf"].iter().any(|k| match m.get(*k) {
            Some(Value::Array(a)) => a.iter().filter(|x| !null_alt(x)).count() != 1,
            Some(_) => true,
            None => false,
        });
        m.contains_key("enum")
            || m.contains_key("const")
            || kinds
            || alts
            || m.iter().any(|(k, x)| match x {
                Value::Array(a) if k == "oneOf" || k == "anyOf" => {
                    a.iter().any(|x| !null_alt(x) && walk(x, depth + 1))
                }
                _ => walk(x, depth + 1),
            })
    }
    walk(schema, 0)
}

/// Whether a field can be a time or date-time field (form-time.js).
pub(super) fn needs_time(schema: &Value) -> bool {
    any_object(
        schema,
        0,
        &|m| matches!(m.get("format"), Some(Value::String(f)) if f == "time" || f == "date-time"),
    )
}

/// Whether an object's fields can come and go with its values (form-cond.js): if/then/else and
/// the dependency keywords.
pub(super) fn needs_cond(schema: &Value) -> bool {
    any_object(schema, 0, &|m| {
        [
            "if",
            "dependentSchemas",
            "dependentRequired",
            "dependencies",
        ]
        .iter()
        .any(|k| m.get(*k).is_some_and(|v| v.is_object() || v.is_boolean()))
    })
}

/// Whether a field can be a file (form-file.js): a base64 string or the data-url format.
pub(super) fn needs_file(schema: &Value) -> bool {
    any_object(schema, 0, &|m| {
        m.get("contentEncoding")
            .and_then(Value::as_str)
            .is_some_and(|e| e.eq_ignore_ascii_case("base64"))
            || m.get("format").and_then(Value::as_str) == Some("data-url")
    })
}

/// The keywords checks.js checks.
pub(super) const CHECK_KEYWORDS: [&str; 9] = [
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Whether a field has anything checks.js checks.
pub(super) fn needs_checks(schema: &Value) -> bool {
    any_object(schema, 0, &|m| {
        CHECK_KEYWORDS.iter().any(|k| m.contains_key(*k))
    })
}

/// The formats formats.js checks.
pub(super) const FORMATS: [&str; 8] = [
    "date",
    "time",
    "date-time",
    "uuid",
    "duration",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The formats formats-net.js checks (`url` is read as `uri`).
pub(super) const NET_FORMATS: [&str; 7] = [
    "email",
    "uri",
    "url",
    "uri-reference",
    "ipv4",
    "ipv6",
    "hostname",
];

/// Whether a schema has a `format` among `names` (any other format is an annotation, which no part
/// checks).
pub(super) fn has_format(schema: &Value, names: &[&str]) -> bool {
    any_object(schema, 0, &|m| {
        m.get("format")
            .and_then(Value::as_str)
            .is_some_and(|f| names.contains(&f))
    })
}

/// Whether a schema needs schema-ids.js's index to resolve its refs: an `$id`, an anchor, a dynamic
/// or recursive ref, or a `$ref` that does not start with `#` (schema.js alone follows `#` and a
/// JSON pointer from the root). Keys inside `const`, `enum` or `default` count too, which only
/// embeds the index where it is not needed.
pub(super) fn has_ids(schema: &Value) -> bool {
    const KEYS: [&str; 6] = [
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$dynamicRef",
        "$recursiveRef",
        "$recursiveAnchor",
    ];
    any_object(schema, 0, &|m| {
        KEYS.iter().any(|k| m.contains_key(*k))
            || m.get("$ref")
                .is_some_and(|r| !r.as_str().is_some_and(|r| r.starts_with('#')))
    })
}

/// The keywords only the full validator (schema-check.js) checks: the form's controls and
/// checks.js enforce types, `enum`/`const`, `required`, `properties`, `additionalProperties`,
/// `minProperties`, `items`, `minItems`/`maxItems`, "T or null" and lists of consts themselves
/// (book: reference/pages.md, "What a page checks before a call").
pub(super) const VALIDATOR_KEYWORDS: [&str; 21] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "prefixItems",
    "additionalItems",
    "maxProperties",
    "$dynamicRef",
    "$recursiveRef",
];

/// The subschemas directly under one schema object, each with its JSON pointer below it
/// (`/properties/a`): every place a subschema can sit, never inside `const`, `enum`, `default`
/// or `examples`.
pub(super) fn subschemas(m: &Map<String, Value>) -> Vec<(String, &Value)> {
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    let mut out = Vec::new();
    for (k, x) in m {
        let here = format!("/{}", esc(k));
        match (k.as_str(), x) {
            (
                "additionalProperties"
                | "additionalItems"
                | "items"
                | "contains"
                | "propertyNames"
                | "if"
                | "then"
                | "else"
                | "not"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contentSchema",
                Value::Object(_),
            ) => out.push((here, x)),
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(a)) => {
                out.extend(
                    a.iter()
                        .enumerate()
                        .map(|(i, y)| (format!("{here}/{i}"), y)),
                );
            }
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
                | "dependencies",
                Value::Object(o),
            ) => out.extend(o.iter().map(|(j, y)| (format!("{here}/{}", esc(j)), y))),
            _ => {}
        }
    }
    out
}

/// Each schema object of a schema (see [`subschemas`]): `visit(object, its JSON pointer)`.
pub(super) fn each_schema(
    v: &Value,
    at: &str,
    depth: usize,
    visit: &mut impl FnMut(&Map<String, Value>, &str),
) {
    let Value::Object(m) = v else {
        return;
    };
    if depth > 256 {
        return;
    }
    visit(m, at);
    for (rel, x) in subschemas(m) {
        each_schema(x, &format!("{at}{rel}"), depth + 1, visit);
    }
}

/// Whether the input schema needs more than the form's own checks: a keyword of
/// [`VALIDATOR_KEYWORDS`], tuple `items`, real `oneOf`/`anyOf` variants (more than "T or null"
/// and lists of consts: "exactly one" is the validator's), or a `false` subschema.
pub(super) fn needs_validator(root: &Value) -> bool {
    fn consts(a: &[Value]) -> bool {
        a.iter().all(|x| x.get("const").is_some())
    }
    fn false_sub(m: &Map<String, Value>) -> bool {
        m.iter().any(|(k, x)| match x {
            Value::Bool(false) => k == "items",
            Value::Object(o) if k == "properties" || k == "$defs" || k == "definitions" => {
                o.values().any(|y| y == &Value::Bool(false))
            }
            Value::Array(a) if matches!(k.as_str(), "allOf" | "anyOf" | "oneOf") => {
                a.iter().any(|y| y.is_boolean())
            }
            _ => false,
        })
    }
    let mut hit = false;
    each_schema(root, "", 0, &mut |m, _| {
        hit = hit
            || VALIDATOR_KEYWORDS.iter().any(|k| m.contains_key(*k))
            || m.get("items").is_some_and(Value::is_array)
            || ["oneOf", "anyOf"].iter().any(|k| match m.get(*k) {
                Some(Value::Array(a)) => {
                    a.iter().filter(|x| !is_null_schema(x)).count() > 1 && !consts(a)
                }
                Some(_) => true,
                None => false,
            })
            || false_sub(m);
    });
    hit
}

/// Whether every input field becomes a control without the JSON editor: scalars, enums, consts,
/// "T or null", and objects of those, through local `$ref`s (mirroring `pick()` in form.js).
/// Anything else counts as "may need the editor", to stay on the safe side.
pub(super) fn plain_form(root: &Value) -> bool {
    // Shared `$ref`s can make a small schema an exponentially large tree. form.js builds no form
    // past FORM_FIELD_BUDGET fields (it shows the JSON editor instead), and this walk counts at
    // least as many nodes as its count does, so a page past the budget always embeds the editor.
    let mut budget = FORM_FIELD_BUDGET;
    takes_no_input(root) || plain_field(root, root, 0, &mut budget)
}

/// An input schema with nothing to fill in, for which buildForm() in form.js would only say
/// "This tool takes no input." (app.js says it without form.js).
pub(super) fn takes_no_input(root: &Value) -> bool {
    let Value::Object(m) = root else {
        return false;
    };
    let no_fields = m
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty());
    let open = matches!(m.get("additionalProperties"), Some(Value::Object(_)))
        || ["oneOf", "anyOf", "allOf", "$ref", "patternProperties"]
            .iter()
            .any(|k| m.contains_key(*k))
        // Fields of a branch (form-cond.js).
        || ["then", "else", "dependentSchemas", "dependencies"]
            .iter()
            .any(|k| m.get(*k).is_some_and(Value::is_object));
    no_fields && !open
}

fn plain_field(s: &Value, root: &Value, depth: usize, budget: &mut usize) -> bool {
    if depth > 20 || *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Value::Object(m) = s else {
        return false;
    };
    if let Some(r) = m.get("$ref") {
        // form.js merges the target under the sibling keywords.
        let Some(Value::Object(target)) = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        else {
            return false;
        };
        let mut merged = target.clone();
        merged.extend(
            m.iter()
                .filter(|(k, _)| *k != "$ref")
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        return plain_field(&Value::Object(merged), root, depth + 1, budget);
    }
    if m.get("enum").is_some_and(Value::is_array) || m.contains_key("const") {
        return true;
    }
    if m.contains_key("allOf") || m.contains_key("not") {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = m.get(key) {
            // Only "T or null" is a plain field (nullable T); real variants are form-extra's.
            let Some(alts) = alts.as_array() else {
                return false;
            };
            let real: Vec<&Value> = alts.iter().filter(|a| !is_null_schema(a)).collect();
            let [one] = real.as_slice() else {
                return false;
            };
            let mut merged = m.clone();
            merged.remove(key);
            if let Value::Object(alt) = one {
                merged.extend(alt.iter().map(|(k, v)| (k.clone(), v.clone())));
            } else {
                return false;
            }
            return plain_field(&Value::Object(merged), root, depth + 1, budget);
        }
    }
    let ty = match m.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => {
            let real: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match real.as_slice() {
                [one] if real.len() + 1 == ts.len() => Some(*one),
                _ => return false,
            }
        }
        Some(_) => return false,
        None if m.contains_key("properties") => Some("object"),
        None => None,
    };
    match ty {
        Some("string" | "number" | "integer" | "boolean" | "null") => true,
        Some("object") => {
            let Some(Value::Object(props)) = m.get("properties") else {
                return false;
            };
            // Branch fields (form-cond.js) are not counted here: they may need the editor.
            !props.is_empty()
                && !["if", "dependentSchemas", "dependencies"]
                    .iter()
                    .any(|k| m.contains_key(*k))
                && !matches!(m.get("additionalProperties"), Some(Value::Object(_)))
                && !m.contains_key("patternProperties")
                && props
                    .values()
                    .all(|p| plain_field(p, root, depth + 1, budget))
        }
        _ => false,
    }
}

/// What a schema object itself asks of the form's optional controls.
#[derive(Clone, Copy, PartialEq)]
enum Extra {
    /// Arrays and tuples, and `$dynamicRef` (form-extra.js).
    Arrays,
    /// Maps: `additionalProperties`, `patternProperties`, `dict[str, Any]` fields (form-map.js).
    Maps,
    /// Real variants (`oneOf`/`anyOf` beyond "T or null") and several types (form-variants.js).
    Variants,
}

/// Whether the input schema uses anything `form-extra.js` implements: arrays, tuples or a `$ref`
/// cycle. Conservative: anything it cannot rule out pulls the script in.
pub(super) fn needs_form_extra(schema: Option<&Value>) -> bool {
    let Some(root) = schema else {
        return false;
    };
    uses_extra(root, 0, Extra::Arrays) || has_ref_cycle(root)
}

/// Whether the input schema has a tuple (`form-tuple.js`): `prefixItems`, or draft-07's `items` as
/// a list.
pub(super) fn needs_tuple(schema: Option<&Value>) -> bool {
    schema.is_some_and(|root| {
        any_object(root, 0, &|m| {
            m.contains_key("prefixItems") || m.get("items").is_some_and(Value::is_array)
        })
    })
}

/// Whether the input schema has a map (`form-map.js`'s key/value rows).
pub(super) fn needs_form_map(schema: Option<&Value>) -> bool {
    schema.is_some_and(|root| uses_extra(root, 0, Extra::Maps))
}

/// Whether the input schema has real variants or several types (`form-variants.js`).
pub(super) fn needs_variants(schema: Option<&Value>) -> bool {
    schema.is_some_and(|root| uses_extra(root, 0, Extra::Variants))
}

fn uses_extra(v: &Value, depth: usize, want: Extra) -> bool {
    if depth > 256 {
        return true;
    }
    match v {
        Value::Object(m) => {
            let here = match want {
                Extra::Arrays => {
                    ["items", "prefixItems", "$dynamicRef"]
                        .iter()
                        .any(|k| m.contains_key(*k))
                        || match m.get("type") {
                            Some(Value::String(t)) => t == "array",
                            Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
                            _ => false,
                        }
                }
                Extra::Variants => {
                    ["oneOf", "anyOf"].iter().any(|k| match m.get(*k) {
                        Some(Value::Array(a)) => {
                            a.iter().filter(|x| !is_null_schema(x)).count() > 1
                        }
                        Some(_) => true,
                        None => false,
                    }) || matches!(m.get("type"), Some(Value::Array(ts))
                        if ts.iter().filter(|t| *t != "null").count() > 1)
                }
                Extra::Maps => {
                    m.contains_key("patternProperties")
                        || matches!(m.get("additionalProperties"), Some(Value::Object(_)))
                        || (m.get("additionalProperties") == Some(&Value::Bool(true))
                            && m.get("properties")
                                .and_then(Value::as_object)
                                .is_some_and(|p| !p.is_empty()))
                        || (depth > 0 && any_map(m))
                }
            };
            here || m.values().any(|x| uses_extra(x, depth + 1, want))
        }
        Value::Array(a) => a.iter().any(|x| uses_extra(x, depth + 1, want)),
        _ => false,
    }
}

/// An object field that declares nothing about its keys (`dict[str, Any]`): form.js edits it as
/// key/value rows (form-extra.js) instead of JSON. The same test as `anyMap` in form.js.
fn any_map(m: &Map<String, Value>) -> bool {
    let object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    };
    let no_keys = m
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    object
        && no_keys
        && !matches!(m.get("additionalProperties"), Some(Value::Bool(false)))
        && !m.contains_key("patternProperties")
        && ["enum", "const", "oneOf", "anyOf", "allOf", "$ref"]
            .iter()
            .all(|k| !m.contains_key(*k))
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// A `$ref` chain that comes back to where it started (the form expands those lazily).
/// Unresolvable or non-local refs count as cycles, to stay on the safe side.
fn has_ref_cycle(root: &Value) -> bool {
    fn refs(v: &Value, out: &mut Vec<String>, depth: usize) {
        if depth > 256 {
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                m.values().for_each(|x| refs(x, out, depth + 1));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out, depth + 1)),
            _ => {}
        }
    }
    let mut start = Vec::new();
    refs(root, &mut start, 0);
    for r in &start {
        // Depth-first walk from each ref; reaching it again is a cycle.
        let mut stack = vec![r.clone()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(cur) = stack.pop() {
            let Some(target) = cur.strip_prefix('#').and_then(|p| root.pointer(p)) else {
                return true;
            };
            let mut next = Vec::new();
            refs(target, &mut next, 0);
            for n in next {
                if n == *r {
                    return true;
                }
                if seen.insert(n.clone()) {
                    stack.push(n);
                }
            }
            if seen.len() > 10_000 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_only_for_what_the_form_does_not_check() {
        // What the form's controls and checks.js enforce themselves.
        for plain in [
            json!({"type":"object","properties":{"a":{"type":"string","minLength":2,"format":"email"}},"required":["a"]}),
            json!({"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"enum":[1,2]}}}),
            json!({"type":"object","properties":{"a":{"anyOf":[{"type":"integer"},{"type":"null"}]},
                "b":{"oneOf":[{"const":"x","title":"X"},{"const":"y"}]},
                "c":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},
                "d":{"type":"object","additionalProperties":false,"minProperties":1,"properties":{"e":{}}}}}),
            // A keyword's name as a property name, or inside a default, is not that keyword.
            json!({"type":"object","properties":{"not":{"type":"string"},"if":{"type":"boolean","default":{"allOf":1}}}}),
        ] {
            assert!(!needs_validator(&plain), "{plain}");
        }
        for needs in [
            json!({"properties":{"a":{"type":"string"}},"if":{"properties":{"a":{"const":"x"}}},"then":{"required":["b"]}}),
            json!({"properties":{"card":{"type":"string"}},"dependencies":{"card":["billing"]}}),
            json!({"properties":{"a":{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}}}),
            json!({"properties":{"a":{"not":{"const":0}}}}),
            json!({"properties":{"a":{"oneOf":[{"type":"integer"},{"type":"number","multipleOf":0.5}]}}}),
            json!({"properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}),
            json!({"properties":{"a":{"type":"array","contains":{"const":1}}}}),
            json!({"$defs":{"x":{"unevaluatedProperties":false}},"properties":{"a":{"$ref":"#/$defs/x"}}}),
            json!({"properties":{"a":{"type":"array","items":false}}}),
            json!({"properties":{"a":{"allOf":[{"minimum":1},{"maximum":5}]}}}),
        ] {
            assert!(needs_validator(&needs), "{needs}");
        }
    }

    #[test]
    fn maps_of_any_values_get_key_value_rows_but_an_empty_root_does_not() {
        let map = |v: Value| needs_form_map(Some(&v));
        // dict[str, Any] as a field: key/value rows (form-map.js), without arrays or variants.
        let any = json!({"type":"object","properties":{"values":{"type":"object","additionalProperties":true}}});
        assert!(map(any.clone()));
        assert!(!needs_form_extra(Some(&any)) && !needs_variants(Some(&any)));
        assert!(map(
            json!({"type":"object","properties":{"values":{"type":"object","properties":{}}}})
        ));
        // The tool takes no input: nothing to edit.
        assert!(!map(
            json!({"type":"object","properties":{},"additionalProperties":true})
        ));
        // Closed objects are not free maps; patterned ones are maps of their patterns' keys.
        assert!(!map(
            json!({"type":"object","properties":{"v":{"type":"object","additionalProperties":false}}})
        ));
        assert!(map(
            json!({"type":"object","properties":{"v":{"type":"object","patternProperties":{"^x":{"type":"string"}}}}})
        ));
        assert!(map(json!({"additionalProperties":{"type":"string"}})));
        // Declared fields that allow more: rows for the others.
        assert!(map(
            json!({"properties":{"a":{"type":"string"}},"additionalProperties":true})
        ));
        // In an array's items or a $defs entry too.
        assert!(map(
            json!({"properties":{"l":{"type":"array","items":{"type":"object","additionalProperties":{"type":"number"}}}}})
        ));
        assert!(!map(
            json!({"properties":{"a":{"type":"array","items":{"type":"string"}}}})
        ));
        assert!(!needs_form_map(None));
    }

    #[test]
    fn conditional_fields_and_files_only_when_the_schema_has_them() {
        let plain = json!({"type":"object","properties":{"a":{"type":"string"}}});
        assert!(!needs_cond(&plain) && !needs_file(&plain));
        assert!(needs_cond(
            &json!({"allOf":[{"if":{"properties":{"a":{"const":"x"}}},"then":{"required":["b"]}}]})
        ));
        assert!(needs_cond(
            &json!({"properties":{"o":{"type":"object","dependencies":{"a":["b"]}}}})
        ));
        assert!(needs_cond(&json!({"dependentRequired":{"a":["b"]}})));
        // A branch's fields may need the JSON editor: such a form is not plain.
        assert!(!plain_form(
            &json!({"properties":{"a":{"type":"string"}},"if":{},"then":{"properties":{"b":{}}}})
        ));
        assert!(needs_file(
            &json!({"properties":{"f":{"type":"string","contentEncoding":"base64"}}})
        ));
        assert!(needs_file(
            &json!({"properties":{"f":{"type":"array","items":{"type":"string","format":"data-url"}}}})
        ));
    }

    #[test]
    fn form_extra_only_when_needed() {
        let extra = |v: Value| needs_form_extra(Some(&v));
        let variants = |v: Value| needs_variants(Some(&v));
        let plain = json!({"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"type":["integer","null"]}}});
        assert!(!extra(plain.clone()) && !variants(plain.clone()) && !needs_form_map(Some(&plain)));
        // Arrays and tuples: form-extra.js alone.
        for a in [
            json!({"properties":{"a":{"type":"array"}}}),
            json!({"properties":{"a":{"type":["array","null"]}}}),
            json!({"properties":{"a":{"items":{"type":"string"}}}}),
            json!({"properties":{"a":{"prefixItems":[{"type":"string"}]}}}),
        ] {
            assert!(extra(a.clone()) && !variants(a.clone()), "{a}");
        }
        // "T or null" is no variant.
        let nullable = json!({"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}});
        assert!(!extra(nullable.clone()) && !variants(nullable));
        // Real variants and several types: form-variants.js alone.
        for v in [
            json!({"properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}}}),
            json!({"properties":{"a":{"oneOf":[{"type":"string"},{"type":"number"}]}}}),
            json!({"properties":{"a":{"type":["string","number"]}}}),
            json!({"properties":{"a":{"anyOf":{"not":"an array"}}}}),
        ] {
            assert!(variants(v.clone()) && !extra(v.clone()), "{v}");
        }
        assert!(!extra(
            json!({"$defs":{"U":{"enum":["a"]}},"properties":{"u":{"$ref":"#/$defs/U"}}})
        ));
        // Unresolvable refs and cycles: the lazy control (form-extra.js).
        assert!(extra(
            json!({"properties":{"u":{"$ref":"#/$defs/missing"}}})
        ));
        assert!(extra(json!({"$defs":{"n":{"$ref":"#/$defs/n"}}})));
        assert!(!needs_form_extra(None) && !needs_variants(None));
    }
}
