//! What one host request may see, decided from that request alone where its era allows.
//!
//! A 2025-era host says what it supports once, in `initialize`; that holds for its whole
//! session. A 2026-07-28 host sends its capabilities in every request's `_meta`
//! (`io.modelcontextprotocol/clientCapabilities`), and nothing carries over from one request
//! to the next: graceful degradation (book: reference/serve.md) is decided per request. Every feature of the
//! wrapper that depends on the host asks here.

use serde_json::Value;

use super::ui_resources::MCP_APP_MIME;
use crate::mcp::era;

/// The capability a UI-capable client advertises.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// What the wrapper knows about the host behind one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestCaps {
    /// The request is a stateless (2026-07-28) one.
    pub stateless: bool,
    /// The host supports MCP Apps for this request.
    pub ui: bool,
}

impl RequestCaps {
    /// `session_ui`: what the host's `initialize` said (2025 era; false when it never sent one).
    pub fn of(msg: &Value, session_ui: bool) -> RequestCaps {
        if era::is_modern_message(msg) {
            RequestCaps {
                stateless: true,
                ui: era::message_capabilities(msg).is_some_and(advertises_ui),
            }
        } else {
            RequestCaps {
                stateless: false,
                ui: session_ui,
            }
        }
    }
}

/// Whether a capabilities object (`initialize`'s `capabilities`, or a request's
/// `clientCapabilities`) advertises `extensions["io.modelcontextprotocol/ui"]` with the MCP App
/// MIME type.
pub fn advertises_ui(caps: &Value) -> bool {
    caps.get("extensions")
        .and_then(|e| e.get(UI_EXTENSION))
        .and_then(|u| u.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|t| t.as_str() == Some(MCP_APP_MIME)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn modern(caps: Value) -> Value {
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
            "io.modelcontextprotocol/protocolVersion":"2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps}}})
    }

    #[test]
    fn stateless_requests_decide_alone() {
        let ui = json!({"extensions":{UI_EXTENSION:{"mimeTypes":[MCP_APP_MIME]}}});
        assert_eq!(
            RequestCaps::of(&modern(ui.clone()), false),
            RequestCaps {
                stateless: true,
                ui: true
            }
        );
        // The session's initialize does not leak into a stateless request.
        assert_eq!(
            RequestCaps::of(&modern(json!({})), true),
            RequestCaps {
                stateless: true,
                ui: false
            }
        );
        let wrong_mime = json!({"extensions":{UI_EXTENSION:{"mimeTypes":["text/html"]}}});
        assert!(!RequestCaps::of(&modern(wrong_mime), false).ui);
        let legacy = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        assert_eq!(
            RequestCaps::of(&legacy, true),
            RequestCaps {
                stateless: false,
                ui: true
            }
        );
        assert!(advertises_ui(&ui));
    }
}
