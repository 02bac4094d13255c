//! Who confirms a run: whether a tool's annotations make the page ask the person before the tool
//! runs (book: reference/pages.md, "Who confirms"). The one rule every Rust caller uses; the pages
//! use `McpGenUi.asksFirst` in `templates/runtime.js`, and `tests/confirm_rule.rs` runs both on the
//! same table of cases (`tests/fixtures/confirm-cases.json`).

use serde_json::Value;

/// Whether the hint `key` of `annotations` is the JSON literal `value`. A string `"true"`, a
/// number or `null` is neither true nor false, and annotations that are not an object hold no hint.
fn hint_is(annotations: Option<&Value>, key: &str, value: bool) -> bool {
    annotations
        .and_then(Value::as_object)
        .and_then(|a| a.get(key))
        == Some(&Value::Bool(value))
}

/// A person's click on Run asks first when `destructiveHint` is true.
pub fn asks_on_click(annotations: Option<&Value>) -> bool {
    hint_is(annotations, "destructiveHint", true)
}

/// A run the model asks for (the `run_tool` view tool) asks first unless `readOnlyHint` is true
/// or `destructiveHint` is false: MCP's defaults say an unannotated tool may change data.
pub fn asks_for_model(annotations: Option<&Value>) -> bool {
    !(hint_is(annotations, "readOnlyHint", true) || hint_is(annotations, "destructiveHint", false))
}

/// Whether any run of the tool can ask: the page then embeds the question (confirm.js).
pub fn can_ask(annotations: Option<&Value>) -> bool {
    asks_on_click(annotations) || asks_for_model(annotations)
}

/// Whether mcp-gen-ui may call the tool itself with no person to ask (`--sample`): `readOnlyHint`
/// true and `destructiveHint` not true (a tool claiming both is not trusted to be harmless).
pub fn harmless(annotations: Option<&Value>) -> bool {
    hint_is(annotations, "readOnlyHint", true) && !hint_is(annotations, "destructiveHint", true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_literal_booleans_are_hints() {
        let on_click = |a: Value| asks_on_click(Some(&a));
        let for_model = |a: Value| asks_for_model(Some(&a));
        assert!(on_click(json!({"destructiveHint": true})));
        for v in [
            json!("true"),
            json!(1),
            json!(null),
            json!({}),
            json!(false),
        ] {
            assert!(!on_click(json!({ "destructiveHint": v })), "{v}");
        }
        assert!(!asks_on_click(None) && asks_for_model(None));
        assert!(!for_model(json!({"readOnlyHint": true})));
        assert!(!for_model(json!({"destructiveHint": false})));
        assert!(for_model(
            json!({"readOnlyHint": "true", "destructiveHint": 0})
        ));
        assert!(for_model(json!([{"readOnlyHint": true}])));
        assert!(harmless(Some(&json!({"readOnlyHint": true}))));
        assert!(!harmless(Some(
            &json!({"readOnlyHint": true, "destructiveHint": true})
        )));
        assert!(can_ask(None) && !can_ask(Some(&json!({"readOnlyHint": true}))));
    }
}
