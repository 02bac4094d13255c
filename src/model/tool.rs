//! A tool exactly as the upstream described it.

use serde_json::{Map, Value};

use super::canonical::{canonical_json, sha256_hex};

/// The fields of a tool definition that shape its UI, and so its `tool_hash`.
pub const HASHED_FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("tools/list returned an entry that is not an object: {0}")]
    NotAnObject(String),
    #[error("tools/list returned a tool without a string `name`: {0}")]
    NoName(String),
    #[error("tools/list returned the tool name `{0}` twice")]
    Duplicate(String),
}

/// A tool as the upstream sent it. `raw` keeps every field, known or not.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub raw: Map<String, Value>,
}

impl Tool {
    pub fn from_raw(v: Value) -> Result<Tool, ToolError> {
        let Value::Object(raw) = v else {
            return Err(ToolError::NotAnObject(abbreviate(&v)));
        };
        let Some(name) = raw.get("name").and_then(Value::as_str) else {
            return Err(ToolError::NoName(abbreviate(&Value::Object(raw))));
        };
        Ok(Tool {
            name: name.to_string(),
            raw,
        })
    }

    /// The subset of the definition that `tool_hash` covers (absent fields omitted).
    pub fn hashed_definition(&self) -> Value {
        let mut m = Map::new();
        for f in HASHED_FIELDS {
            if let Some(v) = self.raw.get(*f) {
                m.insert((*f).to_string(), v.clone());
            }
        }
        Value::Object(m)
    }

    /// sha256 (lowercase hex) of the RFC 8785 canonical JSON of the hashed definition. The one
    /// function that generate, check, diff and serve all use.
    pub fn tool_hash(&self) -> String {
        sha256_hex(canonical_json(&self.hashed_definition()))
    }

    pub fn title(&self) -> Option<&str> {
        self.raw.get("title").and_then(Value::as_str)
    }

    pub fn description(&self) -> Option<&str> {
        self.raw.get("description").and_then(Value::as_str)
    }

    pub fn input_schema(&self) -> Option<&Value> {
        self.raw.get("inputSchema")
    }

    pub fn output_schema(&self) -> Option<&Value> {
        self.raw.get("outputSchema")
    }

    pub fn annotations(&self) -> Option<&Value> {
        self.raw.get("annotations")
    }

    /// True when the upstream already ships its own UI for this tool: we leave such tools alone.
    pub fn has_upstream_ui(&self) -> bool {
        let Some(meta) = self.raw.get("_meta").and_then(Value::as_object) else {
            return false;
        };
        meta.get("ui/resourceUri").is_some()
            || meta
                .get("ui")
                .and_then(Value::as_object)
                .is_some_and(|ui| ui.contains_key("resourceUri") || ui.contains_key("resourceUris"))
    }
}

/// Parses a `tools/list` page set into tools, refusing duplicates (the file names would collide).
pub fn tools_from_raw(list: Vec<Value>) -> Result<Vec<Tool>, ToolError> {
    let mut seen = std::collections::BTreeSet::new();
    let mut tools = Vec::with_capacity(list.len());
    for v in list {
        let t = Tool::from_raw(v)?;
        if !seen.insert(t.name.clone()) {
            return Err(ToolError::Duplicate(t.name));
        }
        tools.push(t);
    }
    Ok(tools)
}

fn abbreviate(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        let cut: String = s.chars().take(120).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hash_ignores_key_order_and_unhashed_fields() {
        let a = Tool::from_raw(json!({"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}}}})).unwrap();
        let b = Tool::from_raw(json!({"inputSchema":{"properties":{"b":{"type":"number"},"a":{"type":"string"}},"type":"object"},"_meta":{"x":1},"description":"d","name":"t"})).unwrap();
        assert_eq!(a.tool_hash(), b.tool_hash());
        assert_eq!(a.tool_hash().len(), 64);
    }

    #[test]
    fn hash_changes_with_any_hashed_field() {
        let base = json!({"name":"t","inputSchema":{"type":"object"}});
        let h0 = Tool::from_raw(base.clone()).unwrap().tool_hash();
        for (k, v) in [
            ("title", json!("T")),
            ("description", json!("d")),
            ("outputSchema", json!({"type":"object"})),
            ("annotations", json!({"readOnlyHint": true})),
        ] {
            let mut changed = base.clone();
            changed[k] = v;
            assert_ne!(Tool::from_raw(changed).unwrap().tool_hash(), h0, "{k}");
        }
    }

    #[test]
    fn upstream_ui_is_detected() {
        let t =
            Tool::from_raw(json!({"name":"t","_meta":{"ui":{"resourceUri":"ui://x/t"}}})).unwrap();
        assert!(t.has_upstream_ui());
        let t = Tool::from_raw(json!({"name":"t","_meta":{"ui/resourceUri":"ui://x/t"}})).unwrap();
        assert!(t.has_upstream_ui());
        let t = Tool::from_raw(json!({"name":"t","_meta":{"other":1}})).unwrap();
        assert!(!t.has_upstream_ui());
    }

    #[test]
    fn duplicates_and_nameless_tools_are_errors() {
        assert!(matches!(
            tools_from_raw(vec![json!({"name":"a"}), json!({"name":"a"})]),
            Err(ToolError::Duplicate(_))
        ));
        assert!(matches!(
            tools_from_raw(vec![json!({"title":"a"})]),
            Err(ToolError::NoName(_))
        ));
        assert!(matches!(
            tools_from_raw(vec![json!(3)]),
            Err(ToolError::NotAnObject(_))
        ));
    }
}
