//! Serve options for kinds of host beyond MCP Apps clients (book: reference/serve.md, "Options"): pages
//! embedded in results for MCP-UI hosts (`embed`), the Apps SDK's metadata for ChatGPT-style
//! hosts (`openai`), and descriptions written for clients that show the UI
//! (`[tools.NAME] description_for_ui`). The router asks these once per response.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::config::Config;

/// What the user enabled; the defaults change nothing (degradation holds: book, reference/serve.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostOptions {
    /// `--embed-ui` / `[serve] embed_ui`: results of UI tools carry the page for clients
    /// without the MCP Apps extension.
    pub embed_ui: bool,
    /// `--apps-sdk` / `[serve] apps_sdk`: clients without the MCP Apps extension get the Apps
    /// SDK's `openai/outputTemplate` and `text/html+skybridge` resources.
    pub apps_sdk: bool,
    /// Tool name → `description_for_ui`, for clients with the extension.
    pub ui_descriptions: Arc<BTreeMap<String, String>>,
}

impl HostOptions {
    /// The options of a config, with the command line's switches on top.
    pub fn from_config(cfg: &Config, embed_ui: bool, apps_sdk: bool) -> HostOptions {
        let ui_descriptions = cfg
            .file
            .tools
            .iter()
            .filter_map(|(name, tc)| tc.description_for_ui.clone().map(|d| (name.clone(), d)))
            .collect();
        HostOptions {
            embed_ui: embed_ui || cfg.file.serve.embed_ui,
            apps_sdk: apps_sdk || cfg.file.serve.apps_sdk,
            ui_descriptions: Arc::new(ui_descriptions),
        }
    }

    /// A client that advertised the extension sees the tool's `description_for_ui` in place of
    /// the upstream's description; every other client sees the upstream's.
    pub fn describe_for_ui(&self, tool: &mut Value) {
        let Some(obj) = tool.as_object_mut() else {
            return;
        };
        let Some(name) = obj.get("name").and_then(Value::as_str) else {
            return;
        };
        if let Some(d) = self.ui_descriptions.get(name) {
            obj.insert("description".into(), json!(d));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn description_for_ui_replaces_only_the_named_tool() {
        let opts = HostOptions {
            ui_descriptions: Arc::new(BTreeMap::from([(
                "chart".to_string(),
                "Shows an interactive chart".to_string(),
            )])),
            ..HostOptions::default()
        };
        let mut a = json!({"name": "chart", "description": "Returns the series as JSON"});
        let mut b = json!({"name": "other", "description": "untouched"});
        opts.describe_for_ui(&mut a);
        opts.describe_for_ui(&mut b);
        assert_eq!(a["description"], "Shows an interactive chart");
        assert_eq!(b["description"], "untouched");
        // A tool without a description gets one.
        let mut c = json!({"name": "chart"});
        opts.describe_for_ui(&mut c);
        assert_eq!(c["description"], "Shows an interactive chart");
    }
}
