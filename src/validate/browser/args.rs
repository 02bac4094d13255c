//! Whether the arguments of a `tools/call` a judged page sent are valid against the tool's
//! `inputSchema`: the keywords a form's call can break (types, required, properties and
//! `additionalProperties`, enums and consts, bounds, lengths, patterns, items, `$ref` into the
//! schema, `allOf`/`anyOf`/`oneOf`). Returns what is wrong, one line each, with the path.

use serde_json::Value;

/// What is wrong with `v` under `schema` (empty: valid).
pub fn errors(schema: &Value, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, schema, v, "", &mut out, 0);
    out.truncate(8);
    out
}

fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    let mut s = s;
    for _ in 0..16 {
        let Some(r) = s.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(ptr) = r.strip_prefix('#') else {
            break;
        };
        match root.pointer(ptr) {
            Some(t) => s = t,
            None => break,
        }
    }
    s
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn check(root: &Value, s: &Value, v: &Value, path: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 32 || out.len() > 8 {
        return;
    }
    let s = resolve(root, s);
    let at = if path.is_empty() { "(root)" } else { path };
    let mut err = |m: String| out.push(format!("{at}: {m}"));
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(x) => vec![x.as_str()],
            Value::Array(xs) => xs.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let actual = type_of(v);
        if !types.is_empty()
            && !types
                .iter()
                .any(|t| *t == actual || (*t == "number" && actual == "integer"))
        {
            err(format!("expected {}, got {actual}", types.join(" or ")));
            return;
        }
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        err(format!("must be {c}"));
    }
    if let Some(Value::Array(e)) = s.get("enum")
        && !e.contains(v)
    {
        err(format!("{v} is not one of the enum's values"));
    }
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    if let Some(x) = v.as_f64() {
        if num("minimum").is_some_and(|m| x < m) || num("exclusiveMinimum").is_some_and(|m| x <= m)
        {
            err(format!("{x} is below the minimum"));
        }
        if num("maximum").is_some_and(|m| x > m) || num("exclusiveMaximum").is_some_and(|m| x >= m)
        {
            err(format!("{x} is above the maximum"));
        }
    }
    if let Some(text) = v.as_str() {
        let n = text.chars().count() as f64;
        if num("minLength").is_some_and(|m| n < m) || num("maxLength").is_some_and(|m| n > m) {
            err(format!("{text:?} has a length outside the schema's bounds"));
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str)
            && let Ok(re) = regex::Regex::new(p)
            && !re.is_match(text)
        {
            err(format!("{text:?} does not match the pattern {p}"));
        }
    }
    if let Some(items) = v.as_array() {
        let n = items.len() as f64;
        if num("minItems").is_some_and(|m| n < m) || num("maxItems").is_some_and(|m| n > m) {
            err(format!(
                "{} items is outside the schema's bounds",
                items.len()
            ));
        }
        if let Some(item) = s.get("items").filter(|i| i.is_object()) {
            for (i, x) in items.iter().enumerate() {
                check(root, item, x, &format!("{path}/{i}"), out, depth + 1);
            }
        }
    }
    if let Some(obj) = v.as_object() {
        if let Some(Value::Array(req)) = s.get("required") {
            for k in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(k) {
                    out.push(format!("{at}: the required property {k:?} is missing"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        for (k, x) in obj {
            let sub = format!("{path}/{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, x, &sub, out, depth + 1),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        out.push(format!("{at}: the property {k:?} is not allowed"))
                    }
                    Some(a @ Value::Object(_)) => check(root, a, x, &sub, out, depth + 1),
                    _ => {}
                },
            }
        }
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for part in all {
            check(root, part, v, path, out, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = s.get(key)
            && !alts.is_empty()
            && !alts.iter().any(|a| {
                let mut o = Vec::new();
                check(root, a, v, path, &mut o, depth + 1);
                o.is_empty()
            })
        {
            out.push(format!("{at}: matches none of the {key} variants"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_a_schema_rejects_are_named() {
        let s = json!({"type": "object", "required": ["city"], "additionalProperties": false,
            "properties": {"city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "units": {"$ref": "#/$defs/u"}, "sym": {"type": "string", "pattern": "^[A-Z]{1,5}$"}},
            "$defs": {"u": {"enum": ["c", "f"]}}});
        assert!(
            errors(
                &s,
                &json!({"city": "Oslo", "days": 3, "units": "c", "sym": "AB"})
            )
            .is_empty()
        );
        assert!(
            errors(&s, &json!({"city": "Oslo", "days": 3.0})).is_empty(),
            "3.0 is an integer"
        );
        let e = errors(&s, &json!({"days": "3", "units": "k", "x": 1, "sym": "ab"}));
        let all = e.join("\n");
        for want in [
            "\"city\" is missing",
            "/days: expected integer",
            "/units",
            "\"x\" is not allowed",
            "pattern",
        ] {
            assert!(all.contains(want), "{want} in {all}");
        }
        assert!(!errors(&s, &json!({"city": "Oslo", "days": 9})).is_empty());
        assert!(!errors(&s, &json!({"city": ""})).is_empty());
    }
}
