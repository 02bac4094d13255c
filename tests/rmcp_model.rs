//! Why mcp-gen-ui speaks MCP through its own raw JSON-RPC client instead of rmcp's typed model
//! (book: architecture.md, "Why not rmcp's client"). These tests record the evidence; when an rmcp
//! release starts keeping what these show it dropping, they fail, and the choice is worth
//! revisiting.

use serde_json::{Value, json};

/// A tool as a real server may send it: a field from a newer revision and a vendor extension.
fn tool() -> Value {
    json!({
        "name": "get_forecast",
        "description": "Daily forecast.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "execution": {"taskSupport": "optional"},
        "x-vendor": {"rank": 1}
    })
}

#[test]
fn rmcp_drops_unknown_tool_fields() {
    let parsed: rmcp::model::Tool = serde_json::from_value(tool()).unwrap();
    let back = serde_json::to_value(&parsed).unwrap();
    assert!(
        back.get("x-vendor").is_none(),
        "rmcp now keeps unknown tool fields ({back}): the raw client in src/mcp may be replaceable \
         by rmcp's; revisit book/src/architecture.md"
    );
    // tool_hash (book: reference/names.md) is taken from the raw JSON the upstream sent: a typed round trip
    // would change it whenever a server sends a field rmcp does not model.
    assert_ne!(back, tool());
}

#[test]
fn rmcp_drops_unknown_result_fields() {
    let result = json!({
        "content": [{"type": "text", "text": "ok"}],
        "structuredContent": {"high": 21},
        "x-trace": "abc"
    });
    let parsed: rmcp::model::CallToolResult = serde_json::from_value(result.clone()).unwrap();
    let back = serde_json::to_value(&parsed).unwrap();
    assert!(
        back.get("x-trace").is_none(),
        "rmcp now keeps unknown result fields ({back}): serve's raw passthrough may be \
         replaceable; revisit book/src/architecture.md"
    );
}
