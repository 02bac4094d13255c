//! What the wrapper changes in the upstream's answers: the UI metadata of `tools/list`, the
//! `ui://` resources it adds, the checks on tool results, and what a host without the UI
//! extension gets instead (book: reference/serve.md).

use serde_json::{Map, Value, json};

use super::*;

impl Router {
    pub(super) fn rewrite_response(&mut self, kind: &Kind, caps: RequestCaps, msg: &mut Value) {
        if !caps.ui {
            self.rewrite_for_plain_client(kind, caps, msg);
            return;
        }
        match kind {
            Kind::Discover => {
                // The same additions as for `initialize`, plus the extension itself, which the
                // revision lets a server declare under `capabilities.extensions`.
                if self.catalog.is_empty() {
                    return;
                }
                if let Some(caps) = msg
                    .pointer_mut("/result/capabilities")
                    .and_then(Value::as_object_mut)
                {
                    if !caps.contains_key("resources") {
                        caps.insert("resources".into(), json!({}));
                    }
                    let ext = caps.entry("extensions").or_insert_with(|| json!({}));
                    if let Some(ext) = ext.as_object_mut()
                        && !ext.contains_key(UI_EXTENSION)
                    {
                        ext.insert(UI_EXTENSION.into(), json!({"mimeTypes": [MCP_APP_MIME]}));
                    }
                }
            }
            Kind::Initialize => {
                if let Some(caps) = msg
                    .pointer_mut("/result/capabilities")
                    .and_then(Value::as_object_mut)
                    && !caps.contains_key("resources")
                    && !self.catalog.is_empty()
                {
                    let cap = if self.opts.watch {
                        json!({"listChanged": true})
                    } else {
                        json!({})
                    };
                    caps.insert("resources".into(), cap);
                    self.added_resources = true;
                }
            }
            Kind::ToolsList => {
                if let Some(tools) = msg
                    .pointer_mut("/result/tools")
                    .and_then(Value::as_array_mut)
                {
                    for t in tools {
                        self.augment_tool(t, false);
                        self.opts.hosts.describe_for_ui(t);
                    }
                }
            }
            Kind::ResourcesList => self.append_resources(caps, msg),
            Kind::TemplatesList => {
                // We declared `resources` for this upstream: its templates list is empty, not
                // an unknown method.
                let declared = self.added_resources || (caps.stateless && !self.catalog.is_empty());
                if declared
                    && msg.pointer("/error/code").and_then(Value::as_i64) == Some(METHOD_NOT_FOUND)
                    && let Some(obj) = msg.as_object_mut()
                {
                    obj.remove("error");
                    let mut result = json!({"resourceTemplates": []});
                    if caps.stateless {
                        stateless_result(&mut result, true);
                    }
                    obj.insert("result".into(), result);
                }
            }
            Kind::ToolsCall { tool, .. } => self.check_result_widget(tool, msg),
            Kind::Plain | Kind::ReplayInit => {}
        }
    }

    /// A client without the MCP Apps extension: unchanged, unless the user enabled `--embed-ui`
    /// (MCP-UI hosts) or `--apps-sdk` (Apps SDK hosts).
    pub(super) fn rewrite_for_plain_client(
        &mut self,
        kind: &Kind,
        caps: RequestCaps,
        msg: &mut Value,
    ) {
        let (embed_ui, apps_sdk) = (self.opts.hosts.embed_ui, self.opts.hosts.apps_sdk);
        if !embed_ui && !apps_sdk {
            return;
        }
        match kind {
            Kind::ToolsCall { tool, arguments } if embed_ui => {
                if let Some(ui) = self.catalog.tools.get(tool)
                    && !self.hidden.contains(tool)
                {
                    embed::embed_result(msg, tool, ui, arguments.as_ref());
                }
            }
            Kind::ToolsList if apps_sdk => {
                if let Some(tools) = msg
                    .pointer_mut("/result/tools")
                    .and_then(Value::as_array_mut)
                {
                    for t in tools {
                        self.augment_tool(t, true);
                    }
                }
            }
            Kind::Initialize | Kind::ResourcesList | Kind::TemplatesList if apps_sdk => {
                let as_ui = RequestCaps { ui: true, ..caps };
                self.rewrite_response(kind, as_ui, msg);
                if *kind == Kind::ResourcesList
                    && let Some(list) = msg
                        .pointer_mut("/result/resources")
                        .and_then(Value::as_array_mut)
                {
                    for entry in list.iter_mut() {
                        let ours = entry
                            .get("uri")
                            .and_then(Value::as_str)
                            .is_some_and(|u| self.catalog.owns(u));
                        if ours
                            && let Some(sky) = openai::list_entries(&self.catalog, &|_| false)
                                .into_iter()
                                .find(|e| e.get("uri") == entry.get("uri"))
                        {
                            *entry = sky;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Adds the UI metadata to one tool of a `tools/list` (the Apps SDK's keys for `apps_sdk`).
    pub(super) fn augment_tool(&mut self, tool: &mut Value, apps_sdk: bool) {
        let Some(obj) = tool.as_object_mut() else {
            return;
        };
        let Some(name) = obj.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return;
        };
        let catalog = Arc::clone(&self.catalog);
        let Some(ui) = catalog.tools.get(&name) else {
            return;
        };
        // The planner's view of the tool: only the fields its rules read are copied (the hashed
        // ones and `_meta`); a tool's other fields play no part.
        let hashed: Map<String, Value> = HASHED_FIELDS
            .iter()
            .chain(&["_meta"])
            .filter_map(|f| obj.get(*f).map(|v| ((*f).to_string(), v.clone())))
            .collect();
        let definition = match Tool::from_raw(Value::Object(hashed)) {
            Ok(t) => t,
            Err(_) => return,
        };
        if definition.has_upstream_ui() {
            // The upstream ships its own UI for this tool: leave it alone.
            return;
        }
        // The planner's rule (what `check` calls "stale: tool-changed"), not one of our own.
        if crate::plan::tool_changed(&definition, &ui.tool_hash) {
            if self.warned_stale.insert(name.clone()) {
                match self.opts.stale {
                    StalePolicy::Serve => tracing::warn!(target: "serve", tool = %name,
                        "the upstream definition of this tool changed since its UI was generated; serving the old UI (run `mcp-gen-ui generate`, or set [serve] stale = \"hide\")"),
                    StalePolicy::Hide => tracing::warn!(target: "serve", tool = %name,
                        "the upstream definition of this tool changed since its UI was generated; hiding its UI (run `mcp-gen-ui generate`)"),
                }
            }
            if self.opts.stale == StalePolicy::Hide {
                self.hidden.insert(name);
                return;
            }
        } else {
            self.hidden.remove(&name);
        }
        let meta = obj.entry("_meta").or_insert_with(|| json!({}));
        let Some(meta) = meta.as_object_mut() else {
            return;
        };
        if apps_sdk {
            openai::augment_tool(meta, ui);
            return;
        }
        let default = ui.default_uri().to_string();
        let ui_meta = meta.entry("ui").or_insert_with(|| json!({}));
        if let Some(ui_meta) = ui_meta.as_object_mut() {
            ui_meta.insert("resourceUri".into(), json!(default));
            if ui.widgets.len() > 1 {
                let uris: Vec<&str> = ui.widgets.iter().map(|w| w.uri.as_str()).collect();
                ui_meta.insert("resourceUris".into(), json!(uris));
            }
        }
        meta.insert("ui/resourceUri".into(), json!(default));
    }

    pub(super) fn append_resources(&self, caps: RequestCaps, msg: &mut Value) {
        if self.catalog.is_empty() {
            return;
        }
        let hidden = |t: &str| self.hidden.contains(t);
        if let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) {
            // Pagination: ours go on the last page only.
            if result.get("nextCursor").is_some_and(|c| !c.is_null()) {
                return;
            }
            let entries = self.catalog.list_entries(&hidden);
            match result.get_mut("resources").and_then(Value::as_array_mut) {
                Some(list) => list.extend(entries),
                None => {
                    result.insert("resources".into(), Value::Array(entries));
                }
            }
            return;
        }
        // An upstream without resources answers "method not found": the list is just ours.
        let code = msg.pointer("/error/code").and_then(Value::as_i64);
        if code == Some(METHOD_NOT_FOUND)
            && let Some(obj) = msg.as_object_mut()
        {
            obj.remove("error");
            let mut result = json!({ "resources": self.catalog.list_entries(&hidden) });
            if caps.stateless {
                stateless_result(&mut result, true);
            }
            obj.insert("result".into(), result);
        }
    }

    pub(super) fn check_result_widget(&self, tool: &str, msg: &mut Value) {
        let Some(ui) = self.catalog.tools.get(tool) else {
            return;
        };
        if self.hidden.contains(tool) {
            return;
        }
        let Some(meta) = msg
            .pointer_mut("/result/_meta")
            .and_then(Value::as_object_mut)
        else {
            return;
        };
        let default = ui.default_uri();
        // A widget the tool declares, named by its current URI, its name alone or an old `?v=`,
        // becomes its current URI (a caching host loads the page as it is now).
        let current = |uri: &Value| uri.as_str().and_then(|u| ui.widget_for(u)).map(|w| &w.uri);
        if let Some(uri) = meta.get_mut("ui").and_then(|u| u.get_mut("resourceUri")) {
            match current(uri) {
                Some(w) => *uri = json!(w),
                None => {
                    tracing::warn!(target: "serve", tool = %tool, chosen = %uri, default = %default,
                        "tool result picked a widget the tool does not declare; using its default widget");
                    *uri = json!(default);
                }
            }
        }
        if let Some(uri) = meta.get_mut("ui/resourceUri") {
            *uri = json!(current(uri).map_or(default, String::as_str));
        }
    }

    /// The UI files changed (`--watch`): swap them in and tell a UI-capable host.
    pub fn catalog_changed(&mut self, newer: Arc<Catalog>) -> Vec<Out> {
        let mut out = Vec::new();
        if self.ui {
            if self.catalog.list_differs(&newer) {
                for method in [
                    "notifications/resources/list_changed",
                    "notifications/tools/list_changed",
                ] {
                    out.push(Out::Host(json!({"jsonrpc": "2.0", "method": method})));
                }
            }
            for uri in self.catalog.changed_uris(&newer) {
                out.push(Out::Host(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/resources/updated",
                    "params": {"uri": uri}
                })));
            }
        }
        self.catalog = newer;
        out
    }
}
