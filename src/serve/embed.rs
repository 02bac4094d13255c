//! `serve --embed-ui`: for clients without the MCP Apps extension (MCP-UI hosts such as
//! `@mcp-ui/client`'s renderer), a result of a tool with a UI gets one more content item, the
//! tool's page as an embedded `text/html` resource. The embedded copy carries the result and the
//! arguments (`<script type="application/json" id="mcp-gen-ui-embedded">`), so the runtime
//! speaks MCP-UI at once and shows the result without waiting for render data. The result's own
//! content is untouched, except that a result with no text gets a text summary of its
//! `structuredContent`, so every client has text to show.

use serde_json::{Value, json};

use super::ui_resources::ToolUi;

/// The `_meta` key that marks the content item we added (the runtime hides it from the page).
pub const EMBED_MARK: &str = "mcp-gen-ui/embedded";
/// The id of the data block in the embedded copy.
const DATA_ID: &str = "mcp-gen-ui-embedded";
/// Results larger than this are embedded without their data (the host's render data, if any,
/// fills the page instead): a page must stay a page.
const MAX_EMBEDDED_RESULT: usize = 1 << 20;
/// The length of the text summary of `structuredContent`.
const SUMMARY_CHARS: usize = 4000;

/// Adds the page and, when needed, the text fallback to a `tools/call` response.
pub fn embed_result(msg: &mut Value, tool: &str, ui: &ToolUi, arguments: Option<&Value>) {
    let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else {
        return;
    };
    let chosen = result
        .get("_meta")
        .and_then(|m| m.get("ui"))
        .and_then(|u| u.get("resourceUri"))
        .and_then(Value::as_str)
        .and_then(|u| ui.widget_for(u));
    let Some(widget) = chosen.or_else(|| ui.widget_for(ui.default_uri())) else {
        return;
    };
    // The copy is named by the page's current URI, as `tools/list` gives it.
    let uri = widget.uri.clone();
    let data = json!({
        "result": Value::Object(result.clone()),
        "arguments": arguments.cloned().unwrap_or(Value::Null),
    });
    let mut data_text = script_json(&data);
    if data_text.len() > MAX_EMBEDDED_RESULT {
        data_text = script_json(&json!({"arguments": arguments.cloned().unwrap_or(Value::Null)}));
    }
    let html = with_data(&widget.html, &data_text);

    let content = result
        .entry("content")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(items) = content.as_array_mut() else {
        return;
    };
    let has_text = items
        .iter()
        .any(|c| c.get("type").and_then(Value::as_str) == Some("text"));
    if !has_text {
        let summary = summary(
            tool,
            data.get("result").and_then(|r| r.get("structuredContent")),
        );
        items.push(json!({"type": "text", "text": summary}));
    }
    items.push(json!({
        "type": "resource",
        "resource": {"uri": uri, "mimeType": "text/html", "text": html},
        "_meta": {EMBED_MARK: true},
    }));
}

/// Text for a result that has none: the structured data, shortened.
fn summary(tool: &str, structured: Option<&Value>) -> String {
    match structured {
        Some(v) => {
            let text = crate::json::to_string(v);
            let cut: String = text.chars().take(SUMMARY_CHARS).collect();
            let more = if cut.len() < text.len() { " …" } else { "" };
            format!("{tool} returned: {cut}{more}")
        }
        None => format!("{tool} returned no text."),
    }
}

/// JSON that is safe inside a `<script>` element (no `</script`, no `<!--`, no line separators
/// that older parsers reject).
fn script_json(v: &Value) -> String {
    // crate::json writes lone surrogates back as `\udxxx` escapes (valid in a script).
    crate::json::to_string(v)
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The page with the data block at the start of its `<head>` (so it exists before any script
/// runs, also in llm pages whose runtime is in the head); after the leading header comment when
/// there is no `<head>`.
fn with_data(html: &str, data: &str) -> String {
    let block = format!("<script type=\"application/json\" id=\"{DATA_ID}\">{data}</script>");
    let lower = html.to_ascii_lowercase();
    let at = find_head_end(&lower)
        .or_else(|| lower.find("-->").map(|i| i + 3))
        .unwrap_or(0);
    let mut out = String::with_capacity(html.len() + block.len());
    out.push_str(&html[..at]);
    out.push_str(&block);
    out.push_str(&html[at..]);
    out
}

/// The byte just after the `<head …>` start tag, if the page has one.
fn find_head_end(lower: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = lower[from..].find("<head") {
        let start = from + i;
        let next = lower.as_bytes().get(start + 5).copied();
        if matches!(next, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')) {
            return lower[start..].find('>').map(|j| start + j + 1);
        }
        from = start + 5;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::serve::ui_resources::Widget;

    fn ui() -> ToolUi {
        let widget = |name: &str, base: &str, html: &str| Widget {
            name: name.into(),
            uri: format!("{base}?v=0123abcd"),
            base: base.into(),
            path: PathBuf::from("x.html"),
            html: Arc::from(html),
            sha256: "0123abcd".repeat(8),
        };
        ToolUi {
            tool: "t".into(),
            tool_hash: String::new(),
            widgets: vec![
                widget(
                    "main",
                    "ui://s/t/main",
                    "<!-- hdr --><html><head><title>x</title></head><body></body></html>",
                ),
                widget("table", "ui://s/t/table", "<!-- hdr --><p>no head</p>"),
            ],
            default: 0,
            resource_meta: None,
        }
    }

    fn page(msg: &Value) -> (String, Value) {
        let item = msg["result"]["content"]
            .as_array()
            .and_then(|c| c.last())
            .cloned()
            .unwrap_or_default();
        assert_eq!(item["type"], "resource");
        assert_eq!(item["resource"]["mimeType"], "text/html");
        assert_eq!(item["_meta"][EMBED_MARK], true);
        (
            item["resource"]["uri"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            Value::String(item["resource"]["text"].as_str().unwrap_or_default().into()),
        )
    }

    #[test]
    fn text_results_keep_their_content_and_gain_the_page() {
        let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "</script><script>alert(1)</script>"}]}});
        embed_result(&mut msg, "t", &ui(), Some(&json!({"city": "Paris"})));
        let content = msg["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(content.len(), 2);
        assert_eq!(content[0]["text"], "</script><script>alert(1)</script>");
        let (uri, html) = page(&msg);
        assert_eq!(uri, "ui://s/t/main?v=0123abcd");
        let html = html.as_str().unwrap_or_default().to_string();
        assert!(html.starts_with("<!-- hdr --><html><head><script type=\"application/json\" id=\"mcp-gen-ui-embedded\">"), "{html}");
        // The hostile text is data: it cannot close the block.
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        let start = html.find("\">").unwrap_or(0) + 2;
        let end = html.find("</script>").unwrap_or(0);
        let data: Value = serde_json::from_str(&html[start..end]).unwrap_or_default();
        assert_eq!(data["arguments"]["city"], "Paris");
        assert_eq!(
            data["result"]["content"][0]["text"],
            "</script><script>alert(1)</script>"
        );
    }

    #[test]
    fn structured_only_results_get_a_text_summary_and_the_chosen_widget() {
        let mut msg = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "structuredContent": {"temp": 21},
            "_meta": {"ui": {"resourceUri": "ui://s/t/table"}}}});
        embed_result(&mut msg, "t", &ui(), None);
        let content = msg["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            content[0],
            json!({"type": "text", "text": "t returned: {\"temp\":21}"})
        );
        // Chosen by its name alone, the copy is named by the page's current URI.
        let (uri, html) = page(&msg);
        assert_eq!(uri, "ui://s/t/table?v=0123abcd");
        assert!(
            html.as_str()
                .unwrap_or_default()
                .starts_with("<!-- hdr --><script")
        );
        // An undeclared widget falls back to the default one.
        let mut msg =
            json!({"result": {"content": [], "_meta": {"ui": {"resourceUri": "ui://evil"}}}});
        embed_result(&mut msg, "t", &ui(), None);
        assert_eq!(page(&msg).0, "ui://s/t/main?v=0123abcd");
        // An old version of a declared widget is that widget.
        let mut msg = json!({"result": {"content": [],
            "_meta": {"ui": {"resourceUri": "ui://s/t/table?v=ffffffff"}}}});
        embed_result(&mut msg, "t", &ui(), None);
        assert_eq!(page(&msg).0, "ui://s/t/table?v=0123abcd");
        assert_eq!(msg["result"]["content"][0]["text"], "t returned no text.");
    }

    #[test]
    fn errors_are_left_alone() {
        let mut msg = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x"}});
        let before = msg.clone();
        embed_result(&mut msg, "t", &ui(), None);
        assert_eq!(msg, before);
    }
}
