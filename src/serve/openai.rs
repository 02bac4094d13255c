//! `serve --apps-sdk`: what hosts that speak only OpenAI's Apps SDK look for, for clients that
//! did not advertise the MCP Apps extension. A tool with a UI gets `openai/outputTemplate` (the
//! widget's `ui://` URI) and `openai/widgetAccessible` (its page may call tools), and its
//! resource is listed and read as `text/html+skybridge` with `openai/widgetCSP` and
//! `openai/widgetPrefersBorder` from the tool's `[tools.NAME] csp` and `[serve] prefers_border`.
//! Clients with the extension see exactly the MCP Apps metadata, as without the option.

use serde_json::{Map, Value, json};

use super::ui_resources::{Catalog, MCP_APP_MIME, ToolUi};

/// The MIME type of an Apps SDK widget template.
pub const SKYBRIDGE_MIME: &str = "text/html+skybridge";

/// The Apps SDK keys of a tool's `_meta`.
pub fn augment_tool(meta: &mut Map<String, Value>, ui: &ToolUi) {
    meta.insert("openai/outputTemplate".into(), json!(ui.default_uri()));
    meta.insert("openai/widgetAccessible".into(), json!(true));
}

/// Turns MCP Apps resource entries or contents into their Apps SDK form.
fn to_skybridge(item: &mut Value) {
    let Some(obj) = item.as_object_mut() else {
        return;
    };
    if obj.get("mimeType").and_then(Value::as_str) == Some(MCP_APP_MIME) {
        obj.insert("mimeType".into(), json!(SKYBRIDGE_MIME));
    }
    let ui = obj.remove("_meta").and_then(|m| m.get("ui").cloned());
    let mut meta = Map::new();
    if let Some(ui) = ui {
        if let Some(csp) = ui.get("csp").and_then(Value::as_object) {
            let list = |k: &str| csp.get(k).cloned().unwrap_or_else(|| json!([]));
            meta.insert(
                "openai/widgetCSP".into(),
                json!({
                    "connect_domains": list("connectDomains"),
                    "resource_domains": list("resourceDomains"),
                    "frame_domains": list("frameDomains"),
                }),
            );
        }
        if let Some(b) = ui.get("prefersBorder") {
            meta.insert("openai/widgetPrefersBorder".into(), b.clone());
        }
    }
    if !meta.is_empty() {
        obj.insert("_meta".into(), Value::Object(meta));
    }
}

/// `resources/list` entries of every widget, as Apps SDK templates.
pub fn list_entries(catalog: &Catalog, hidden: &dyn Fn(&str) -> bool) -> Vec<Value> {
    let mut entries = catalog.list_entries(hidden);
    entries.iter_mut().for_each(to_skybridge);
    entries
}

/// `resources/read` of one of our URIs, as an Apps SDK template.
pub fn read(catalog: &Catalog, uri: &str) -> Option<Value> {
    let mut result = catalog.read(uri)?;
    if let Some(contents) = result.get_mut("contents").and_then(Value::as_array_mut) {
        contents.iter_mut().for_each(to_skybridge);
    }
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_become_skybridge_templates_with_openai_csp() {
        let mut entry = json!({"uri": "ui://s/t", "mimeType": MCP_APP_MIME, "_meta": {"ui": {
            "csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true}}});
        to_skybridge(&mut entry);
        assert_eq!(
            entry,
            json!({"uri": "ui://s/t", "mimeType": SKYBRIDGE_MIME, "_meta": {
                "openai/widgetCSP": {"connect_domains": ["https://api.example.com"], "resource_domains": [], "frame_domains": []},
                "openai/widgetPrefersBorder": true}})
        );
        let mut plain = json!({"uri": "ui://s/t", "mimeType": MCP_APP_MIME});
        to_skybridge(&mut plain);
        assert_eq!(
            plain,
            json!({"uri": "ui://s/t", "mimeType": SKYBRIDGE_MIME})
        );
    }
}
