//! The kitchen-sink MCP server (rmcp, stdio): tools whose raw JSON Schemas exercise every form
//! feature of the builtin generator, and results of every shape the result view handles (tables,
//! series, nested objects, images, audio, links, errors, huge outputs, hostile strings).
//!
//! `cargo run -p mcp-gen-ui-examples --bin kitchen-sink` speaks MCP on stdio and exits when stdin closes.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

/// A 2×2 PNG (red, green / blue, white).
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==";
/// A 44-byte silent WAV header (valid, zero samples).
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";
const HOSTILE: &str = "<img src=x onerror=\"parent.postMessage('pwned','*')\"><script>parent.postMessage('pwned','*')</script>\u{2028}</script>{{7*7}}";

/// Every tool, forms first.
fn tools() -> Vec<Value> {
    let mut all = form_tools();
    all.extend(result_tools());
    all
}

/// Tools whose input schemas exercise the form: every scalar, nesting, variants.
fn form_tools() -> Vec<Value> {
    vec![
        json!({
            "name": "all_types",
            "title": "Every scalar type",
            "description": "Strings with formats, numbers with bounds, booleans, enums and constants.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": "Full name", "minLength": 2, "maxLength": 40, "examples": ["Ada Lovelace"]},
                    "email": {"type": "string", "format": "email"},
                    "website": {"type": "string", "format": "uri"},
                    "birthday": {"type": "string", "format": "date"},
                    "meeting": {"type": "string", "format": "date-time"},
                    "alarm": {"type": "string", "format": "time"},
                    "id": {"type": "string", "format": "uuid"},
                    "password": {"type": "string", "writeOnly": true},
                    "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{3}$", "description": "Like ABC-123"},
                    "notes": {"type": "string", "maxLength": 2000},
                    "age": {"type": "integer", "minimum": 0, "maximum": 150},
                    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                    "step": {"type": "number", "multipleOf": 0.5},
                    "agree": {"type": "boolean", "description": "Required boolean (checkbox)"},
                    "newsletter": {"type": "boolean", "description": "Optional: yes, no or not set"},
                    "color": {"type": "string", "enum": ["red", "green", "blue"], "default": "green"},
                    "size": {"oneOf": [{"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}, {"const": "l", "title": "Large"}]},
                    "level": {"type": "integer", "enum": [1, 2, 3]},
                    "kind": {"const": "demo"}
                },
                "required": ["name", "age", "agree", "color"]
            },
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "nested",
            "title": "Nested objects, arrays and maps",
            "description": "Objects inside objects, arrays of objects, tag sets, maps and nullable values.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "address": {
                        "type": "object",
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string"},
                            "geo": {"type": "object", "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number", "minimum": -180, "maximum": 180}}}
                        },
                        "required": ["city"]
                    },
                    "contacts": {
                        "type": "array", "minItems": 1, "maxItems": 5,
                        "items": {"type": "object", "title": "Contact", "properties": {"name": {"type": "string"}, "phone": {"type": "string"}}, "required": ["name"]}
                    },
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["urgent", "home", "work"]}, "uniqueItems": true},
                    "scores": {"type": "array", "items": {"type": "number"}, "maxItems": 10},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Free key/value labels"},
                    "nickname": {"type": ["string", "null"]},
                    "manager": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "settings": {"type": "object", "default": {"theme": "dark", "volume": 3}, "properties": {"theme": {"type": "string"}, "volume": {"type": "integer"}}}
                },
                "required": ["address", "contacts"]
            }
        }),
        json!({
            "name": "variants",
            "title": "Variants, references and recursion",
            "description": "oneOf with a discriminator, allOf, $ref into $defs, and a recursive tree.",
            "inputSchema": {
                "type": "object",
                "$defs": {
                    "node": {"type": "object", "title": "Node", "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["label"]},
                    "named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                    "dated": {"type": "object", "properties": {"when": {"type": "string", "format": "date"}}}
                },
                "properties": {
                    "shape": {
                        "oneOf": [
                            {"type": "object", "title": "Circle", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number", "minimum": 0}}, "required": ["kind", "radius"]},
                            {"type": "object", "title": "Rectangle", "properties": {"kind": {"const": "rect"}, "width": {"type": "number"}, "height": {"type": "number"}}, "required": ["kind", "width", "height"]}
                        ]
                    },
                    "amount": {"anyOf": [{"type": "number"}, {"type": "string", "pattern": "^\\d+%$"}]},
                    "event": {"allOf": [{"$ref": "#/$defs/named"}, {"$ref": "#/$defs/dated"}]},
                    "tree": {"$ref": "#/$defs/node"},
                    "anything": {"description": "Any JSON value"}
                },
                "required": ["shape", "tree"]
            }
        }),
    ]
}

/// Tools whose results exercise the result view (tables, series, media, errors, huge and
/// hostile output), and the confirmation of a destructive tool.
fn result_tools() -> Vec<Value> {
    vec![
        json!({
            "name": "list_users",
            "title": "List users",
            "description": "A table of users (array of objects) with an outputSchema.",
            "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5}}},
            "outputSchema": {
                "type": "object",
                "properties": {"users": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string"}, "active": {"type": "boolean"}, "homepage": {"type": "string"}}, "required": ["id", "name"]}}},
                "required": ["users"]
            },
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "sales_series",
            "title": "Monthly sales",
            "description": "A numeric series by month: shown as a chart with a table toggle.",
            "inputSchema": {"type": "object", "properties": {"months": {"type": "integer", "minimum": 2, "maximum": 24, "default": 6}}},
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "media",
            "title": "Image and audio",
            "description": "Returns an image, an audio clip, links and an embedded resource.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "fail",
            "title": "Always fails",
            "description": "Returns isError with a message.",
            "inputSchema": {"type": "object", "properties": {"reason": {"type": "string", "default": "disk full"}}}
        }),
        json!({
            "name": "huge_output",
            "title": "Huge output",
            "description": "Thousands of rows and a very long text, to exercise truncation.",
            "inputSchema": {"type": "object", "properties": {"rows": {"type": "integer", "minimum": 1, "maximum": 20000, "default": 3000}}},
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "delete_item",
            "title": "Delete an item",
            "description": "Destructive: the UI asks for confirmation first.",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]},
            "annotations": {"destructiveHint": true, "readOnlyHint": false}
        }),
        json!({
            "name": "hostile_strings",
            "title": HOSTILE,
            "description": format!("Multi-line\n{HOSTILE}\n\"quoted\" 'single' `back`"),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "q": {"type": "string", "title": HOSTILE, "description": HOSTILE, "default": HOSTILE, "examples": [HOSTILE]},
                    "pick": {"type": "string", "enum": [HOSTILE, "plain"]}
                },
                "required": ["q"]
            },
            "annotations": {"readOnlyHint": true}
        }),
        json!({
            "name": "no_input",
            "description": "Takes no arguments and returns plain markdown text.",
            "inputSchema": {"type": "object"}
        }),
    ]
}

fn text(s: impl Into<String>) -> Value {
    json!({"type": "text", "text": s.into()})
}

fn call(name: &str, args: &Map<String, Value>) -> Value {
    let int = |k: &str, d: i64| args.get(k).and_then(Value::as_i64).unwrap_or(d);
    match name {
        "all_types" | "nested" | "variants" => {
            let received = Value::Object(args.clone());
            json!({"content": [text(received.to_string())], "structuredContent": {"received": received}})
        }
        "list_users" => {
            let users: Vec<Value> = (1..=int("limit", 5).clamp(1, 100))
                .map(|i| json!({"id": i, "name": format!("User {i}"), "email": format!("user{i}@example.com"), "active": i % 2 == 1, "homepage": format!("https://example.com/u/{i}")}))
                .collect();
            let sc = json!({"users": users});
            json!({"content": [text(sc.to_string())], "structuredContent": sc})
        }
        "sales_series" => {
            let rows: Vec<Value> = (0..int("months", 6).clamp(2, 24))
                .map(|i| json!({"month": format!("2025-{:02}", i % 12 + 1), "revenue": 1000 + (i * 137) % 500, "costs": 600 + (i * 71) % 300}))
                .collect();
            json!({"content": [text(Value::Array(rows.clone()).to_string())], "structuredContent": {"series": rows}})
        }
        "media" => json!({"content": [
            text("Here is **an image**, a clip and [the docs](https://example.com/docs)."),
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "audio", "data": WAV, "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "https://example.com/report.pdf", "name": "report.pdf", "description": "The full report"},
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "Embedded note text"}}
        ]}),
        "fail" => {
            let reason = args
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("disk full");
            json!({"isError": true, "content": [text(format!("Cannot complete: {reason}"))]})
        }
        "huge_output" => {
            let rows: Vec<Value> = (0..int("rows", 3000).clamp(1, 20000))
                .map(
                    |i| json!({"row": i, "label": format!("item-{i}"), "value": (i * 7919) % 1000}),
                )
                .collect();
            json!({"content": [text("x".repeat(50_000))], "structuredContent": {"rows": rows, "note": "long text follows"}})
        }
        "delete_item" => json!({"content": [text(format!("Deleted item {}", int("id", 0)))]}),
        "hostile_strings" => json!({
            "content": [text(HOSTILE)],
            "structuredContent": {"html": HOSTILE, "rows": [{"name": HOSTILE, "link": "javascript:parent.postMessage('pwned','*')"}]}
        }),
        "no_input" => json!({"content": [text("# Hello\n\nNo input needed.\n\n- one\n- two")]}),
        _ => json!({"isError": true, "content": [text(format!("unknown tool {name}"))]}),
    }
}

struct KitchenSink {
    tools: Vec<Tool>,
}

impl ServerHandler for KitchenSink {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("kitchen-sink", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        let result: CallToolResult = serde_json::from_value(call(&request.name, &args))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(CallToolResponse::Complete(result))
    }
}

fn main() -> anyhow::Result<()> {
    let tools = tools()
        .into_iter()
        .map(serde_json::from_value::<Tool>)
        .collect::<Result<Vec<_>, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let server = KitchenSink { tools }
            .serve(rmcp::transport::stdio())
            .await?;
        server.waiting().await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(())
}
