//! The message router of one host session: raw JSON-RPC in, raw JSON-RPC out.
//!
//! It understands only what the wrapper changes (`initialize`, `tools/list`, `resources/list`,
//! `resources/read`, tool results) and forwards everything else verbatim. Request ids are mapped
//! in both directions so that ids can never clash: host requests get fresh upstream ids (our own
//! replayed `initialize` lives in the same space), and upstream requests get fresh host-facing ids
//! (a restarted upstream reuses ids its predecessor had in flight). It does no I/O: the session
//! feeds it messages and carries out the `Out`s it returns, which keeps it unit-testable.

use std::collections::{BTreeSet, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use super::rpc_error::UPSTREAM_UNAVAILABLE;
use super::rpc_error::{INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, error_response};
use ids::{OwnIdHasher, id_key};

mod ids;
mod restart;
mod rewrite;

use super::capabilities::RequestCaps;
use super::hosts::HostOptions;
use super::ui_resources::{Catalog, MCP_APP_MIME};
use super::{embed, openai};
use crate::config::StalePolicy;
use crate::model::{HASHED_FIELDS, Tool};

pub use super::capabilities::UI_EXTENSION;

/// Upper bound on messages held while the upstream restarts; past it requests fail at once.
const MAX_QUEUED: usize = 1000;

/// Where a message produced by the router goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    Host(Value),
    /// The answer to a request the upstream refused with this HTTP error status: the HTTP host
    /// side answers with the same status (book: reference/serve.md); stdio has no status.
    HostRefused(Value, u16),
    Upstream(Value),
}

/// What the wrapper does to the response of a forwarded request.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Plain,
    Initialize,
    /// `server/discover` (2026-07-28): the stateless era's capabilities.
    Discover,
    ToolsList,
    ResourcesList,
    TemplatesList,
    ToolsCall {
        tool: String,
        /// Kept only for `--embed-ui`, whose page shows them.
        arguments: Option<Value>,
    },
    /// Our own `initialize`, replayed to a restarted upstream; never reaches the host.
    ReplayInit,
}

#[derive(Debug)]
struct Pending {
    host_id: Value,
    kind: Kind,
    /// What the host behind this request supports (its era and the UI extension).
    caps: RequestCaps,
    /// When an `initialize` was sent: an upstream that never answers it is reported.
    since: Option<Instant>,
}

#[derive(Debug, PartialEq)]
enum Link {
    /// No upstream yet (starting or restarting): messages wait in `queue`.
    Down,
    /// Our replayed `initialize` is in flight: messages wait in `queue`.
    Replaying,
    Up,
}

/// Settings fixed for the life of a session.
#[derive(Debug, Clone)]
pub struct RouterOptions {
    pub stale: StalePolicy,
    /// `--watch`: the `resources` capability we add says `listChanged`.
    pub watch: bool,
    /// `spec.describe()` of the upstream, for error messages.
    pub upstream: String,
    /// Other kinds of host: `--embed-ui`, `--apps-sdk`, `description_for_ui`.
    pub hosts: HostOptions,
    /// How long a host request may wait for a (re)starting upstream before it is answered
    /// with an error (`[upstream] timeout_ms`).
    pub wait_limit: Duration,
}

pub struct Router {
    opts: RouterOptions,
    catalog: Arc<Catalog>,
    /// The host advertised the MCP Apps extension: only then does it see UI changes.
    ui: bool,
    /// The host's `initialize` params, replayed to a restarted upstream.
    init_params: Option<Value>,
    next_upstream_id: u64,
    next_host_id: u64,
    /// Upstream id → the host request it carries.
    pending: HashMap<u64, Pending, BuildHasherDefault<OwnIdHasher>>,
    /// Host id (as JSON text) → upstream id, for `notifications/cancelled` and duplicate ids.
    host_ids: HashMap<String, u64>,
    /// Host-facing id → the upstream's own id of a server→client request.
    server_requests: HashMap<u64, Value>,
    /// Upstream id (as JSON text) → host-facing id, for cancellations sent by the upstream.
    server_ids: HashMap<String, u64>,
    link: Link,
    /// Messages waiting for the upstream, with when each arrived.
    queue: Vec<(Value, Instant)>,
    /// Tools hidden because they are stale and `stale = "hide"`.
    hidden: BTreeSet<String>,
    warned_stale: BTreeSet<String>,
    /// We declared the `resources` capability for an upstream that has none.
    added_resources: bool,
    /// While the upstream is down: how many times in a row it failed, and when the next
    /// restart is due. A request waits for that restart unless it is due after the request's
    /// wait limit.
    restart: Option<(u32, Instant)>,
    /// The upstream answered a host request other than `initialize` since it (re)started:
    /// it is healthy, and its next crash starts a fresh backoff.
    answered: bool,
    /// When the oldest `initialize` in flight was sent; recomputed when one is answered, so
    /// that a session with none in flight has no timer to keep (it would be looked at every
    /// time the session waits).
    oldest_init: Option<Instant>,
}

impl Router {
    pub fn new(opts: RouterOptions, catalog: Arc<Catalog>) -> Router {
        Router {
            opts,
            catalog,
            ui: false,
            init_params: None,
            next_upstream_id: 1,
            next_host_id: 1,
            pending: HashMap::default(),
            host_ids: HashMap::new(),
            server_requests: HashMap::new(),
            server_ids: HashMap::new(),
            link: Link::Down,
            queue: Vec::new(),
            hidden: BTreeSet::new(),
            warned_stale: BTreeSet::new(),
            added_resources: false,
            restart: None,
            answered: false,
            oldest_init: None,
        }
    }

    /// When the session must next look for an unanswered `initialize` (`overdue_initialize`),
    /// given the time the upstream has to answer it; `None` when none is in flight. The session
    /// sleeps until then instead of polling, so an idle `serve` never wakes up.
    pub fn initialize_deadline(&self, limit: Duration) -> Option<Instant> {
        self.oldest_init.map(|t| t + limit)
    }

    fn track_initialize(&mut self, since: Option<Instant>) {
        if let Some(t) = since {
            self.oldest_init = Some(self.oldest_init.map_or(t, |o| o.min(t)));
        }
    }

    /// Whether the host advertised the MCP Apps extension in `initialize`.
    /// (A stateless host decides per request; see `capabilities`.)
    pub fn ui_enabled(&self) -> bool {
        self.ui
    }

    /// Host requests still waiting for the upstream.
    pub fn in_flight(&self) -> usize {
        self.pending
            .values()
            .filter(|p| p.kind != Kind::ReplayInit)
            .count()
    }

    /// A message from the host.
    pub fn from_host(&mut self, msg: Value) -> Vec<Out> {
        let mut out = Vec::new();
        self.host_message(msg, &mut out);
        out
    }

    fn host_message(&mut self, mut msg: Value, out: &mut Vec<Out>) {
        let Some(obj) = msg.as_object() else {
            tracing::warn!(target: "serve", "host sent a message that is not a JSON object");
            out.push(Out::Host(error_response(
                Value::Null,
                INVALID_REQUEST,
                "invalid JSON-RPC message: expected an object".into(),
                None,
            )));
            return;
        };
        let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = obj.get("id").cloned();
        match (method, id) {
            (Some(method), Some(id)) => self.host_request(msg, method, id, out),
            (Some(method), None) => {
                if self.link != Link::Up {
                    self.enqueue(msg, out);
                    return;
                }
                if method == "notifications/cancelled" {
                    // The host names its own id; the upstream only knows ours.
                    let key = msg
                        .pointer("/params/requestId")
                        .map(id_key)
                        .unwrap_or_default();
                    let Some(uid) = self.host_ids.get(&key).copied() else {
                        tracing::debug!(target: "serve", request = %key, "cancellation of a request that is no longer in flight");
                        return;
                    };
                    if let Some(p) = msg.pointer_mut("/params/requestId") {
                        *p = json!(uid);
                    }
                }
                out.push(Out::Upstream(msg));
            }
            (None, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
                // The host answers a server→client request (sampling, elicitation, roots, ping).
                let Some(upstream_id) = id.as_u64().and_then(|h| self.server_requests.remove(&h))
                else {
                    tracing::warn!(target: "serve", id = %id, "host answered a request the upstream is no longer waiting for (it restarted or never asked); dropped");
                    return;
                };
                self.server_ids.remove(&upstream_id.to_string());
                if let Some(slot) = msg.get_mut("id") {
                    *slot = upstream_id;
                }
                out.push(Out::Upstream(msg));
            }
            (None, id) => {
                tracing::warn!(target: "serve", "host sent a JSON-RPC message with neither a method nor a result");
                if let Some(id) = id {
                    out.push(Out::Host(error_response(
                        id,
                        INVALID_REQUEST,
                        "invalid JSON-RPC message: no `method`, `result` or `error`".into(),
                        None,
                    )));
                }
            }
        }
    }

    fn host_request(&mut self, mut msg: Value, method: String, id: Value, out: &mut Vec<Out>) {
        let key = id_key(&id);
        if self.host_ids.contains_key(&key) {
            out.push(Out::Host(error_response(
                id,
                INVALID_REQUEST,
                format!("request id {key} is already in use by a request in flight"),
                None,
            )));
            return;
        }
        let mut caps = RequestCaps::of(&msg, self.ui);
        let kind = match method.as_str() {
            "initialize" if !caps.stateless => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                self.ui = advertises_ui(&params);
                caps.ui = self.ui;
                self.init_params = Some(params);
                tracing::info!(target: "serve", ui = self.ui, "host initialize");
                Kind::Initialize
            }
            "server/discover" => Kind::Discover,
            "tools/list" => Kind::ToolsList,
            "resources/list" => Kind::ResourcesList,
            "resources/templates/list" => Kind::TemplatesList,
            "tools/call" => Kind::ToolsCall {
                tool: msg
                    .pointer("/params/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                arguments: (self.opts.hosts.embed_ui && !caps.ui)
                    .then(|| msg.pointer("/params/arguments").cloned())
                    .flatten(),
            },
            // Apps SDK hosts read our templates without the MCP Apps extension.
            "resources/read" if !caps.ui && self.opts.hosts.apps_sdk => {
                let uri = msg.pointer("/params/uri").and_then(Value::as_str);
                if let Some((u, mut result)) =
                    uri.and_then(|u| Some((u, openai::read(&self.catalog, u)?)))
                {
                    if caps.stateless {
                        self.page_cache_hint(u, &mut result);
                    }
                    out.push(Out::Host(
                        json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    ));
                    return;
                }
                Kind::Plain
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" if caps.ui => {
                let uri = msg.pointer("/params/uri").and_then(Value::as_str);
                if let Some(uri) = uri
                    && self.catalog.owns(uri)
                {
                    let result = if method == "resources/read" {
                        self.catalog.read(uri).map(|mut r| {
                            if caps.stateless {
                                self.page_cache_hint(uri, &mut r);
                            }
                            r
                        })
                    } else {
                        Some(json!({}))
                    };
                    if let Some(result) = result {
                        out.push(Out::Host(
                            json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        ));
                        return;
                    }
                }
                Kind::Plain
            }
            _ => Kind::Plain,
        };
        if self.link != Link::Up {
            self.enqueue(msg, out);
            return;
        }
        let uid = self.next_upstream_id;
        self.next_upstream_id += 1;
        if let Some(slot) = msg.get_mut("id") {
            *slot = json!(uid);
        }
        tracing::debug!(target: "serve", id = %key, upstream_id = uid, method = %method, "request");
        self.host_ids.insert(key, uid);
        let since = (kind == Kind::Initialize).then(Instant::now);
        self.track_initialize(since);
        self.pending.insert(
            uid,
            Pending {
                host_id: id,
                kind,
                caps,
                since,
            },
        );
        out.push(Out::Upstream(msg));
    }

    /// A 2026-07-28 `resources/read` result of one of our pages: its era's fields, with a
    /// `ttlMs` that lets the host keep a page read by its current versioned URI until that URI
    /// changes, and `cacheScope: "private"` (a page holds the tool's definition, which may be as
    /// private as the upstream's `tools/list`; book: reference/serve.md, "Caching pages").
    fn page_cache_hint(&self, uri: &str, result: &mut Value) {
        if let Some(obj) = result.as_object_mut() {
            obj.insert("ttlMs".into(), json!(self.catalog.ttl_ms(uri)));
            obj.insert("cacheScope".into(), json!("private"));
        }
        stateless_result(result, true);
    }

    /// The raw path's `tools/call` (`mcp::peek::Call`: no `_meta`, so of the handshake era): the
    /// bookkeeping of `host_request` for it, returning the upstream id to write into its bytes.
    /// `None` sends it the ordinary way: the link is not up (it waits in the queue), the id is in
    /// flight (it gets the error), or `--embed-ui` will need its arguments.
    pub fn fast_call(&mut self, id: &Value, tool: &str) -> Option<u64> {
        if self.link != Link::Up || (self.opts.hosts.embed_ui && !self.ui) {
            return None;
        }
        let key = id_key(id);
        if self.host_ids.contains_key(&key) {
            return None;
        }
        let uid = self.next_upstream_id;
        self.next_upstream_id += 1;
        tracing::debug!(target: "serve", id = %key, upstream_id = uid, method = "tools/call", "request");
        self.host_ids.insert(key, uid);
        self.pending.insert(
            uid,
            Pending {
                host_id: id.clone(),
                kind: Kind::ToolsCall {
                    tool: tool.to_string(),
                    arguments: None,
                },
                caps: RequestCaps {
                    stateless: false,
                    ui: self.ui,
                },
                since: None,
            },
        );
        Some(uid)
    }

    /// The raw path's response (`mcp::peek::Response`: no `_meta` in its result): the host id to
    /// write into its bytes when it answers a `tools/call`, with the bookkeeping of
    /// `upstream_message`. `None` handles it the ordinary way (another request, an id not in
    /// flight, or `--embed-ui` adds the page to it).
    pub fn fast_response(&mut self, uid: u64) -> Option<Value> {
        let p = self.pending.get(&uid)?;
        if !matches!(p.kind, Kind::ToolsCall { .. }) || (self.opts.hosts.embed_ui && !p.caps.ui) {
            return None;
        }
        let p = self.pending.remove(&uid)?;
        self.host_ids.remove(&id_key(&p.host_id));
        self.answered = true;
        tracing::debug!(target: "serve", id = %p.host_id, upstream_id = uid, "response");
        Some(p.host_id)
    }

    /// A message from the upstream.
    pub fn from_upstream(&mut self, msg: Value) -> Vec<Out> {
        let mut out = Vec::new();
        self.upstream_message(msg, &mut out);
        out
    }

    fn upstream_message(&mut self, mut msg: Value, out: &mut Vec<Out>) {
        let Some(obj) = msg.as_object() else {
            tracing::warn!(target: "serve", "upstream sent a message that is not a JSON object; dropped");
            return;
        };
        let has_method = obj.get("method").is_some_and(Value::is_string);
        let id = obj.get("id").cloned();
        match (has_method, id) {
            (true, Some(upstream_id)) => {
                // A server→client request: give it an id the host has never seen from us.
                let hid = self.next_host_id;
                self.next_host_id += 1;
                self.server_ids.insert(upstream_id.to_string(), hid);
                self.server_requests.insert(hid, upstream_id);
                if let Some(slot) = msg.get_mut("id") {
                    *slot = json!(hid);
                }
                out.push(Out::Host(msg));
            }
            (true, None) => {
                let method = obj.get("method").and_then(Value::as_str).unwrap_or("");
                if method == "notifications/cancelled" {
                    let key = msg
                        .pointer("/params/requestId")
                        .map(Value::to_string)
                        .unwrap_or_default();
                    let Some(hid) = self.server_ids.remove(&key) else {
                        return;
                    };
                    self.server_requests.remove(&hid);
                    if let Some(p) = msg.pointer_mut("/params/requestId") {
                        *p = json!(hid);
                    }
                }
                out.push(Out::Host(msg));
            }
            (false, Some(id)) if obj.contains_key("result") || obj.contains_key("error") => {
                let Some(p) = id.as_u64().and_then(|u| self.pending.remove(&u)) else {
                    tracing::warn!(target: "serve", id = %id, "upstream answered a request id that is not in flight; dropped");
                    return;
                };
                if p.since.is_some() {
                    // An answered initialize: no deadline left to keep for it.
                    self.oldest_init = self.pending.values().filter_map(|p| p.since).min();
                }
                if p.kind == Kind::ReplayInit {
                    self.replayed_init_done(&msg, out);
                    return;
                }
                self.host_ids.remove(&id_key(&p.host_id));
                if p.kind != Kind::Initialize {
                    self.answered = true;
                }
                if let Some(err) = msg.get("error") {
                    let code = err.get("code").map(ToString::to_string).unwrap_or_default();
                    tracing::debug!(target: "serve", id = %p.host_id, upstream_id = %id, code = %code, "error response");
                } else {
                    tracing::debug!(target: "serve", id = %p.host_id, upstream_id = %id, "response");
                }
                self.rewrite_response(&p.kind, p.caps, &mut msg);
                if let Some(slot) = msg.get_mut("id") {
                    *slot = p.host_id;
                }
                out.push(Out::Host(msg));
            }
            _ => {
                tracing::warn!(target: "serve", "upstream sent an invalid JSON-RPC message; dropped");
            }
        }
    }
}

/// Whether `initialize` params advertise `extensions["io.modelcontextprotocol/ui"]` with the
/// MCP App MIME type.
pub fn advertises_ui(params: &Value) -> bool {
    params
        .get("capabilities")
        .is_some_and(crate::serve::capabilities::advertises_ui)
}

/// Fields a 2026-07-28 result carries that a result the wrapper makes itself must have too:
/// `resultType`, and for cacheable results (lists, reads) `ttlMs` and `cacheScope` (ours can
/// change with `--watch`, so they are not cached).
fn stateless_result(result: &mut Value, cacheable: bool) {
    if let Some(obj) = result.as_object_mut() {
        obj.entry("resultType").or_insert_with(|| json!("complete"));
        if cacheable {
            obj.entry("ttlMs").or_insert_with(|| json!(0));
            obj.entry("cacheScope").or_insert_with(|| json!("private"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::rpc_error::{Unusable, parse_error, unusable_host_message};
    use crate::serve::ui_resources::tests::{CHART, SINGLE, TABLE, fixture};
    use crate::serve::ui_resources::{MCP_APP_MIME, PAGE_TTL_MS, Strictness};

    #[test]
    fn id_keys_are_the_json_text_of_the_id() {
        for id in [
            json!(0),
            json!(42),
            json!(u64::MAX),
            json!(-3),
            json!(1.5),
            json!("a\"b"),
            json!("7"),
        ] {
            assert_eq!(id_key(&id), id.to_string(), "{id}");
        }
    }

    fn router(stale: StalePolicy) -> (Router, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let cfg = fixture(dir.path());
        let cat = Catalog::load(&cfg, Strictness::Strict).unwrap();
        let mut r = Router::new(
            RouterOptions {
                stale,
                watch: false,
                upstream: "`up`".into(),
                hosts: HostOptions::default(),
                wait_limit: Duration::from_secs(10),
            },
            Arc::new(cat),
        );
        assert!(r.upstream_ready().is_empty());
        (r, dir)
    }

    fn ui_init(id: Value) -> Value {
        json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","clientInfo":{"name":"t","version":"1"},
            "capabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}})
    }

    fn plain_init(id: Value) -> Value {
        json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","clientInfo":{"name":"t","version":"1"},"capabilities":{}}})
    }

    fn upstream(out: Vec<Out>) -> Value {
        match out.as_slice() {
            [Out::Upstream(v)] => v.clone(),
            other => panic!("expected one upstream message, got {other:?}"),
        }
    }

    fn host(out: Vec<Out>) -> Value {
        match out.as_slice() {
            [Out::Host(v)] => v.clone(),
            other => panic!("expected one host message, got {other:?}"),
        }
    }

    /// Sends a host request and answers it upstream with `result`; returns what the host sees.
    fn round_trip(r: &mut Router, req: Value, result: Value) -> Value {
        let sent = upstream(r.from_host(req));
        host(r.from_upstream(json!({"jsonrpc":"2.0","id":sent["id"],"result":result})))
    }

    fn tools_result() -> Value {
        json!({"tools":[
            {"name":"single","inputSchema":{"type":"object"},"x-unknown":{"a":1}},
            {"name":"multi","inputSchema":{"type":"object"},"_meta":{"keep":true}},
            {"name":"plain","inputSchema":{"type":"object"}}
        ],"extra":1})
    }

    fn with_matching_hashes(r: &mut Router) {
        // Make the catalog's hashes match the tools the tests send.
        let mut cat = (*r.catalog).clone();
        for t in cat.tools.values_mut() {
            let v = tools_result()["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == t.tool.as_str())
                .cloned()
                .unwrap();
            t.tool_hash = Tool::from_raw(v).unwrap().tool_hash();
        }
        r.catalog = Arc::new(cat);
    }

    #[test]
    fn ui_client_gets_metadata_and_resources() {
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        let init = round_trip(
            &mut r,
            ui_init(json!("a")),
            json!({"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}),
        );
        assert_eq!(init["id"], "a");
        assert_eq!(init["result"]["capabilities"]["resources"], json!({}));
        assert!(r.ui_enabled());

        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        let tools = &list["result"]["tools"];
        assert_eq!(tools[0]["_meta"]["ui"]["resourceUri"], SINGLE);
        assert_eq!(tools[0]["_meta"]["ui/resourceUri"], SINGLE);
        assert!(tools[0]["_meta"]["ui"].get("resourceUris").is_none());
        assert_eq!(tools[0]["x-unknown"], json!({"a":1}));
        assert_eq!(tools[1]["_meta"]["keep"], true);
        assert_eq!(tools[1]["_meta"]["ui"]["resourceUri"], TABLE);
        assert_eq!(
            tools[1]["_meta"]["ui"]["resourceUris"],
            json!([CHART, TABLE])
        );
        assert_eq!(tools[2], tools_result()["tools"][2]);
        assert_eq!(list["result"]["extra"], 1);

        // Ours are answered from memory, others forwarded.
        let read = host(r.from_host(
            json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":SINGLE}}),
        ));
        assert_eq!(read["id"], 3);
        assert_eq!(read["result"]["contents"][0]["mimeType"], MCP_APP_MIME);
        // The 2025 era's result is as before: no cache fields.
        assert!(
            read["result"].get("ttlMs").is_none() && read["result"].get("cacheScope").is_none()
        );
        // An old version is answered with the current page, under the URI asked for.
        let old = "ui://demo/single?v=00000000";
        let read = host(r.from_host(
            json!({"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":old}}),
        ));
        assert_eq!(read["result"]["contents"][0]["uri"], old);
        assert_eq!(
            read["result"]["contents"][0]["text"],
            "<!doctype html><p>single</p>"
        );
        // A malformed query is not ours: the upstream answers it, as any unknown URI.
        let fwd = upstream(r.from_host(json!({"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"ui://demo/single?v=x"}})));
        assert_eq!(fwd["params"]["uri"], "ui://demo/single?v=x");
        r.from_upstream(
            json!({"jsonrpc":"2.0","id":fwd["id"],"error":{"code":-32002,"message":"not found"}}),
        );
        let fwd = upstream(r.from_host(
            json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///x"}}),
        ));
        assert_eq!(fwd["params"]["uri"], "file:///x");

        // Pagination: nothing on a page with a cursor, ours on the last page.
        let page1 = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":5,"method":"resources/list"}),
            json!({"resources":[{"uri":"file:///a","name":"a"}],"nextCursor":"c"}),
        );
        assert_eq!(page1["result"]["resources"].as_array().unwrap().len(), 1);
        let page2 = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":6,"method":"resources/list","params":{"cursor":"c"}}),
            json!({"resources":[{"uri":"file:///b","name":"b"}]}),
        );
        assert_eq!(page2["result"]["resources"].as_array().unwrap().len(), 4);

        // No resources upstream: "method not found" becomes our list, and no templates.
        let sent = upstream(r.from_host(json!({"jsonrpc":"2.0","id":7,"method":"resources/list"})));
        let got = host(r.from_upstream(
            json!({"jsonrpc":"2.0","id":sent["id"],"error":{"code":-32601,"message":"nope"}}),
        ));
        assert_eq!(got["result"]["resources"].as_array().unwrap().len(), 3);
        let sent = upstream(
            r.from_host(json!({"jsonrpc":"2.0","id":8,"method":"resources/templates/list"})),
        );
        let got = host(r.from_upstream(
            json!({"jsonrpc":"2.0","id":sent["id"],"error":{"code":-32601,"message":"nope"}}),
        ));
        assert_eq!(got["result"], json!({"resourceTemplates": []}));
    }

    fn stateless(id: Value, method: &str, ui: bool, params: Value) -> Value {
        let caps = if ui {
            json!({"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}})
        } else {
            json!({})
        };
        let mut p = params;
        p["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        json!({"jsonrpc":"2.0","id":id,"method":method,"params":p})
    }

    #[test]
    fn stateless_requests_decide_the_ui_per_request() {
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        // No initialize at all: each request says what its client supports.
        let disc = round_trip(
            &mut r,
            stateless(json!(1), "server/discover", true, json!({})),
            json!({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}),
        );
        assert_eq!(disc["result"]["capabilities"]["resources"], json!({}));
        assert_eq!(
            disc["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"],
            json!([MCP_APP_MIME])
        );
        let plain_disc = json!({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}});
        let got = round_trip(
            &mut r,
            stateless(json!(2), "server/discover", false, json!({})),
            plain_disc.clone(),
        );
        assert_eq!(got["result"], plain_disc);

        let with_ui = round_trip(
            &mut r,
            stateless(json!(3), "tools/list", true, json!({})),
            tools_result(),
        );
        assert_eq!(
            with_ui["result"]["tools"][0]["_meta"]["ui"]["resourceUri"],
            SINGLE
        );
        let without = round_trip(
            &mut r,
            stateless(json!(4), "tools/list", false, json!({})),
            tools_result(),
        );
        assert_eq!(without["result"], tools_result());

        // ui:// reads are ours only for a client with the extension, and carry the
        // revision's result fields.
        let read = host(r.from_host(stateless(
            json!(5),
            "resources/read",
            true,
            json!({ "uri": SINGLE }),
        )));
        assert_eq!(read["result"]["resultType"], "complete");
        assert_eq!(read["result"]["contents"][0]["mimeType"], MCP_APP_MIME);
        // The current version may be kept until its URI changes; an old version or the name
        // alone may not be kept at all.
        assert_eq!(read["result"]["ttlMs"], PAGE_TTL_MS);
        assert_eq!(read["result"]["cacheScope"], "private");
        for (i, uri) in ["ui://demo/single?v=00000000", "ui://demo/single"]
            .iter()
            .enumerate()
        {
            let read = host(r.from_host(stateless(
                json!(50 + i),
                "resources/read",
                true,
                json!({ "uri": uri }),
            )));
            assert_eq!(read["result"]["ttlMs"], 0, "{uri}");
            assert_eq!(read["result"]["cacheScope"], "private");
            assert_eq!(read["result"]["contents"][0]["uri"], *uri);
        }
        let fwd = upstream(r.from_host(stateless(
            json!(6),
            "resources/read",
            false,
            json!({"uri":"ui://demo/single"}),
        )));
        assert_eq!(fwd["params"]["uri"], "ui://demo/single");
        assert!(!r.ui_enabled());

        // An upstream without resources: the list is ours, with the revision's fields.
        let sent = upstream(r.from_host(stateless(json!(7), "resources/list", true, json!({}))));
        let got = host(r.from_upstream(
            json!({"jsonrpc":"2.0","id":sent["id"],"error":{"code":-32601,"message":"nope"}}),
        ));
        assert_eq!(got["result"]["resources"].as_array().unwrap().len(), 3);
        assert_eq!(got["result"]["resultType"], "complete");
        assert_eq!(got["result"]["cacheScope"], "private");
    }

    #[test]
    fn an_upstream_http_error_reply_is_passed_on() {
        let (mut r, _d) = router(StalePolicy::Serve);
        let sent = upstream(r.from_host(stateless(json!("a"), "tools/list", false, json!({}))));
        let reply = json!({"jsonrpc":"2.0","error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}},"id":sent["id"]});
        let out = r.send_failed(&sent["id"], "HTTP 400", Some(400), Some(&reply));
        let [Out::HostRefused(got, 400)] = out.as_slice() else {
            panic!("expected one answer with status 400, got {out:?}")
        };
        assert_eq!(got["id"], "a");
        assert_eq!(got["error"], reply["error"]);
        assert!(
            got.as_object()
                .unwrap()
                .keys()
                .all(|k| !k.contains('\u{0}'))
        );
        // Without a JSON-RPC body: our own error, still with the status.
        let sent = upstream(r.from_host(stateless(json!("b"), "tools/list", false, json!({}))));
        let out = r.send_failed(&sent["id"], "HTTP 502: bad gateway", Some(502), None);
        let [Out::HostRefused(got, 502)] = out.as_slice() else {
            panic!("expected one answer with status 502, got {out:?}")
        };
        assert_eq!(got["error"]["code"], INTERNAL_ERROR);
    }

    fn with_hosts(r: &mut Router, embed_ui: bool, apps_sdk: bool) {
        r.opts.hosts = HostOptions {
            embed_ui,
            apps_sdk,
            ui_descriptions: Arc::new(std::collections::BTreeMap::from([(
                "single".to_string(),
                "Shows an interactive view".to_string(),
            )])),
        };
    }

    #[test]
    fn host_options_apply_per_client() {
        let call = json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"single","arguments":{"q":1}}});
        let result = json!({"content":[],"structuredContent":{"n":1}});
        // A client with the extension: description_for_ui, and results untouched.
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        with_hosts(&mut r, true, true);
        round_trip(
            &mut r,
            ui_init(json!(1)),
            json!({"capabilities":{"tools":{}}}),
        );
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        assert_eq!(
            list["result"]["tools"][0]["description"],
            "Shows an interactive view"
        );
        assert!(
            list["result"]["tools"][0]["_meta"]
                .get("openai/outputTemplate")
                .is_none()
        );
        assert!(list["result"]["tools"][1].get("description").is_none());
        assert_eq!(
            round_trip(&mut r, call.clone(), result.clone())["result"],
            result
        );

        // A client without it: the upstream's description, the page embedded in results, the
        // Apps SDK's keys and templates.
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        with_hosts(&mut r, true, true);
        let init = round_trip(
            &mut r,
            plain_init(json!(1)),
            json!({"capabilities":{"tools":{}}}),
        );
        assert_eq!(init["result"]["capabilities"]["resources"], json!({}));
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        let t0 = &list["result"]["tools"][0];
        assert!(t0.get("description").is_none());
        assert_eq!(t0["_meta"]["openai/outputTemplate"], SINGLE);
        assert_eq!(t0["_meta"]["openai/widgetAccessible"], true);
        assert!(t0["_meta"].get("ui").is_none());
        assert_eq!(list["result"]["tools"][2], tools_result()["tools"][2]);
        let got = round_trip(&mut r, call.clone(), result.clone());
        let content = got["result"]["content"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(content.len(), 2);
        assert_eq!(content[0]["type"], "text");
        assert_eq!(content[1]["resource"]["uri"], SINGLE);
        assert_eq!(content[1]["resource"]["mimeType"], "text/html");
        let html = content[1]["resource"]["text"].as_str().unwrap_or_default();
        assert!(html.contains("\"arguments\":{\"q\":1}"), "{html}");
        assert_eq!(got["result"]["structuredContent"], json!({"n":1}));
        let read = host(r.from_host(
            json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":SINGLE}}),
        ));
        assert_eq!(
            read["result"]["contents"][0]["mimeType"],
            openai::SKYBRIDGE_MIME
        );
        let listed = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":4,"method":"resources/list"}),
            json!({"resources":[]}),
        );
        let entries = listed["result"]["resources"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(entries.len(), 3);
        assert!(
            entries
                .iter()
                .all(|e| e["mimeType"] == openai::SKYBRIDGE_MIME)
        );

        // Options off: exactly the upstream (book: reference/serve.md).
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        round_trip(
            &mut r,
            plain_init(json!(1)),
            json!({"capabilities":{"tools":{}}}),
        );
        assert_eq!(round_trip(&mut r, call, result.clone())["result"], result);
    }

    #[test]
    fn client_without_ui_sees_the_upstream_exactly() {
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        let init_result =
            json!({"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}});
        let init = round_trip(&mut r, plain_init(json!(1)), init_result.clone());
        assert_eq!(init["result"], init_result);
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        assert_eq!(list["result"], tools_result());
        let fwd = upstream(r.from_host(json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"ui://demo/single"}})));
        assert_eq!(fwd["method"], "resources/read");
        let res = json!({"resources":[]});
        let got = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":4,"method":"resources/list"}),
            res.clone(),
        );
        assert_eq!(got["result"], res);
    }

    #[test]
    fn stale_tools_follow_the_policy() {
        let (mut r, _d) = router(StalePolicy::Hide);
        round_trip(&mut r, ui_init(json!(1)), json!({"capabilities":{}}));
        // The fixture's hashes ("h1", "h2") never match: every tool is stale.
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        assert_eq!(list["result"], tools_result());
        let res = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":3,"method":"resources/list"}),
            json!({"resources":[]}),
        );
        assert_eq!(res["result"]["resources"], json!([]));

        let (mut r, _d) = router(StalePolicy::Serve);
        round_trip(&mut r, ui_init(json!(1)), json!({"capabilities":{}}));
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools_result(),
        );
        assert_eq!(
            list["result"]["tools"][0]["_meta"]["ui"]["resourceUri"],
            SINGLE
        );
    }

    #[test]
    fn upstream_ui_is_left_alone() {
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        round_trip(&mut r, ui_init(json!(1)), json!({"capabilities":{}}));
        let mut tools = tools_result();
        tools["tools"][0]["_meta"] = json!({"ui":{"resourceUri":"ui://theirs/x"}});
        let list = round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            tools.clone(),
        );
        assert_eq!(list["result"]["tools"][0], tools["tools"][0]);
    }

    #[test]
    fn result_widget_is_checked_against_the_declared_list() {
        let (mut r, _d) = router(StalePolicy::Serve);
        with_matching_hashes(&mut r);
        round_trip(&mut r, ui_init(json!(1)), json!({"capabilities":{}}));
        let call = |name: &str| json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":name,"arguments":{}}});
        let ok = json!({"content":[],"_meta":{"ui":{"resourceUri":CHART}}});
        assert_eq!(round_trip(&mut r, call("multi"), ok.clone())["result"], ok);
        // A declared widget named without its version, or with an old one, gets its current URI.
        for chart in ["ui://demo/multi/chart", "ui://demo/multi/chart?v=00000000"] {
            let named =
                json!({"content":[],"_meta":{"ui":{"resourceUri":chart},"ui/resourceUri":chart}});
            let got = round_trip(&mut r, call("multi"), named);
            assert_eq!(got["result"]["_meta"]["ui"]["resourceUri"], CHART);
            assert_eq!(got["result"]["_meta"]["ui/resourceUri"], CHART);
        }
        let bad = json!({"content":[],"_meta":{"ui":{"resourceUri":"ui://evil/x"},"ui/resourceUri":"ui://evil/x"}});
        let got = round_trip(&mut r, call("multi"), bad);
        assert_eq!(got["result"]["_meta"]["ui"]["resourceUri"], TABLE);
        assert_eq!(got["result"]["_meta"]["ui/resourceUri"], TABLE);
        let other = json!({"content":[{"type":"future","x":1}],"structuredContent":{"a":1}});
        assert_eq!(
            round_trip(&mut r, call("plain"), other.clone())["result"],
            other
        );
    }

    #[test]
    fn ids_never_clash_and_cancellations_are_mapped() {
        let (mut r, _d) = router(StalePolicy::Serve);
        round_trip(&mut r, plain_init(json!(0)), json!({"capabilities":{}}));
        let a = upstream(r.from_host(json!({"jsonrpc":"2.0","id":"7","method":"x"})));
        let b = upstream(r.from_host(json!({"jsonrpc":"2.0","id":7,"method":"x"})));
        assert_ne!(a["id"], b["id"]);
        let dup = host(r.from_host(json!({"jsonrpc":"2.0","id":7,"method":"x"})));
        assert_eq!(dup["error"]["code"], INVALID_REQUEST);
        let cancel = upstream(r.from_host(
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}),
        ));
        assert_eq!(cancel["params"]["requestId"], b["id"]);
        let got = host(r.from_upstream(json!({"jsonrpc":"2.0","id":a["id"],"result":{"v":1}})));
        assert_eq!(got["id"], "7");

        // Server→client request, answered by the host.
        let sreq = host(r.from_upstream(
            json!({"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"m":1}}),
        ));
        assert_eq!(sreq["params"], json!({"m":1}));
        let hid = sreq["id"].clone();
        let answer = upstream(r.from_host(json!({"jsonrpc":"2.0","id":hid,"result":{"ok":true}})));
        assert_eq!(answer["id"], 0);
        // A stray response is dropped, not forwarded.
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":hid,"result":{}}))
                .is_empty()
        );
        // Notifications pass verbatim both ways.
        let n = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"_meta":{"z":1}}});
        assert_eq!(host(r.from_upstream(n.clone())), n);
    }

    #[test]
    fn upstream_death_fails_in_flight_and_replays_initialize() {
        let (mut r, _d) = router(StalePolicy::Serve);
        let init = ui_init(json!(1));
        round_trip(&mut r, init.clone(), json!({"capabilities":{}}));
        upstream(r.from_host(
            json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}),
        ));
        let sreq =
            host(r.from_upstream(json!({"jsonrpc":"2.0","id":5,"method":"elicitation/create"})));
        assert_eq!(r.in_flight(), 1);
        let out = r.upstream_lost("exited with status 1");
        assert_eq!(out.len(), 2);
        let Out::Host(err) = &out[0] else { panic!() };
        assert_eq!(err["id"], 2);
        assert_eq!(err["error"]["code"], UPSTREAM_UNAVAILABLE);
        let m = err["error"]["message"].as_str().unwrap();
        assert!(
            m.contains("`up`") && m.contains("exited with status 1") && m.contains("restarting"),
            "{m}"
        );
        let Out::Host(c) = &out[1] else { panic!() };
        assert_eq!(c["params"]["requestId"], sreq["id"]);

        // While down, requests wait; the late answer to the dead upstream's request is dropped.
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))
                .is_empty()
        );
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":sreq["id"],"result":{}}))
                .is_empty()
        );
        let replay = upstream(r.upstream_ready());
        assert_eq!(replay["method"], "initialize");
        assert_eq!(replay["params"], init["params"]);
        let out = r
            .from_upstream(json!({"jsonrpc":"2.0","id":replay["id"],"result":{"capabilities":{}}}));
        assert_eq!(out.len(), 2, "{out:?}");
        assert_eq!(
            out[0],
            Out::Upstream(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        );
        let Out::Upstream(list) = &out[1] else {
            panic!()
        };
        assert_eq!(list["method"], "tools/list");
        assert_ne!(list["id"], replay["id"]);

        // A failed restart answers what is queued instead of holding it.
        r.upstream_lost("exited");
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":4,"method":"ping"}))
                .is_empty()
        );
        let failed = host(r.restart_failed("could not be started: not found"));
        assert_eq!(failed["id"], 4);
    }

    #[test]
    fn unusable_upstream_messages_answer_the_right_request() {
        use crate::json::Probe;
        let (mut r, _d) = router(StalePolicy::Serve);
        round_trip(&mut r, plain_init(json!(1)), json!({"capabilities":{}}));
        let sent = upstream(r.from_host(
            json!({"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"x"}}),
        ));
        // The answer to it was too large: the host gets an error for its own id.
        let probe = Probe {
            id: Some(sent["id"].clone()),
            method: None,
            response: true,
        };
        let e = host(r.upstream_unusable(&probe, "larger than the 10-byte limit"));
        assert_eq!(e["id"], "h");
        assert_eq!(e["error"]["code"], INTERNAL_ERROR);
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("10-byte limit")
        );
        assert_eq!(r.in_flight(), 0);
        // Unknown ids are ignored; an unusable request of the upstream is answered upstream.
        assert!(r.upstream_unusable(&probe, "x").is_empty());
        let req = Probe {
            id: Some(json!(77)),
            method: Some("sampling/createMessage".into()),
            response: false,
        };
        let back = upstream(r.upstream_unusable(&req, "too deep"));
        assert_eq!(
            (back["id"].as_i64(), back["error"]["code"].as_i64()),
            (Some(77), Some(INVALID_REQUEST))
        );
        // A host answer to a server→client request that could not be used goes on as an error.
        let fwd = unusable_host_message(
            &Probe {
                id: Some(json!(3)),
                method: None,
                response: true,
            },
            -32600,
            "too large".into(),
        );
        assert!(matches!(fwd, Unusable::Forward(v) if v["id"] == 3 && v["error"].is_object()));
    }

    #[test]
    fn requests_wait_for_a_restart_within_their_limit_and_fail_with_the_queue() {
        let (mut r, _d) = router(StalePolicy::Serve);
        round_trip(&mut r, plain_init(json!(1)), json!({"capabilities":{}}));
        r.upstream_lost("exited with status 3");
        r.set_restart_delay(1, Duration::from_millis(100));
        // Requests wait for the restart...
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
                .is_empty()
        );
        let replay = upstream(r.upstream_ready());
        assert_eq!(replay["method"], "initialize");
        // ...and get an error when the restarted upstream dies before answering.
        let e = host(r.upstream_lost("exited with status 3"));
        assert_eq!(e["id"], 2);
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("restarting")
        );
        // Also in a crash loop, a request waits when the restart is due within its limit...
        r.set_restart_delay(2, Duration::from_millis(200));
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":3,"method":"ping"}))
                .is_empty()
        );
        let deadline = r.queue_deadline().unwrap();
        assert!(deadline > Instant::now() + Duration::from_secs(9));
        // ...and is answered at once when the restart is due after it.
        r.set_restart_delay(5, Duration::from_secs(60));
        let e = host(r.from_host(json!({"jsonrpc":"2.0","id":4,"method":"ping"})));
        assert_eq!(e["id"], 4);
        let m = e["error"]["message"].as_str().unwrap();
        assert!(
            m.contains("failed 5 times in a row") && m.contains("timeout_ms"),
            "{m}"
        );
        assert_eq!(e["error"]["code"], UPSTREAM_UNAVAILABLE);
        // A request that waited its limit gets its error.
        r.opts.wait_limit = Duration::ZERO;
        let e = host(r.overdue_queue());
        assert_eq!(e["id"], 3);
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("was not back within")
        );
        assert_eq!(r.queue_deadline(), None);
        // Up again: back to normal.
        r.opts.wait_limit = Duration::from_secs(10);
        upstream(r.upstream_ready());
        assert!(
            r.from_host(json!({"jsonrpc":"2.0","id":5,"method":"ping"}))
                .is_empty()
        );
    }

    #[test]
    fn an_upstream_is_healthy_once_it_answered_more_than_initialize() {
        let (mut r, _d) = router(StalePolicy::Serve);
        round_trip(&mut r, plain_init(json!(1)), json!({"capabilities":{}}));
        assert!(!r.healthy(), "initialize alone does not count");
        round_trip(
            &mut r,
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            json!({"tools":[]}),
        );
        assert!(r.healthy());
        r.upstream_lost("exited");
        let replay = upstream(r.upstream_ready());
        assert!(!r.healthy(), "a restart starts over");
        r.from_upstream(json!({"jsonrpc":"2.0","id":replay["id"],"result":{"capabilities":{}}}));
        assert!(!r.healthy(), "the replayed initialize does not count");
        // An error answer is an answer.
        let sent = upstream(r.from_host(json!({"jsonrpc":"2.0","id":3,"method":"ping"})));
        r.from_upstream(
            json!({"jsonrpc":"2.0","id":sent["id"],"error":{"code":-32601,"message":"no"}}),
        );
        assert!(r.healthy());
    }

    #[test]
    fn unanswered_initialize_is_reported() {
        let (mut r, _d) = router(StalePolicy::Serve);
        // Nothing in flight: the session has no deadline to wake up for.
        assert_eq!(r.initialize_deadline(Duration::from_secs(60)), None);
        let before = Instant::now();
        upstream(r.from_host(plain_init(json!(1))));
        let deadline = r.initialize_deadline(Duration::from_secs(60)).unwrap();
        assert!(deadline >= before + Duration::from_secs(60));
        assert!(deadline <= Instant::now() + Duration::from_secs(60));
        assert!(r.overdue_initialize(Duration::from_secs(60), "").is_empty());
        assert!(r.initialize_deadline(Duration::from_secs(60)).is_some());
        std::thread::sleep(Duration::from_millis(5));
        let e = host(r.overdue_initialize(Duration::from_millis(1), ""));
        assert_eq!(r.initialize_deadline(Duration::from_secs(60)), None);
        assert_eq!(e["id"], 1);
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains("did not answer initialize")
        );
        assert_eq!(r.in_flight(), 0);
    }

    #[test]
    fn malformed_messages_get_errors_not_panics() {
        let (mut r, _d) = router(StalePolicy::Serve);
        for bad in [json!(3), json!([]), json!("x"), json!({"id":1}), json!({})] {
            let _ = r.from_host(bad.clone());
            let _ = r.from_upstream(bad);
        }
        let e = host(r.from_host(json!({"jsonrpc":"2.0","id":1})));
        assert_eq!(e["error"]["code"], INVALID_REQUEST);
        assert!(
            r.from_upstream(json!({"jsonrpc":"2.0","id":"nope","result":{}}))
                .is_empty()
        );
        assert_eq!(parse_error("x")["error"]["code"], -32700);
    }

    #[test]
    fn watch_changes_notify_ui_hosts() {
        let (mut r, d) = router(StalePolicy::Serve);
        round_trip(&mut r, ui_init(json!(1)), json!({"capabilities":{}}));
        let mut cfg = fixture(d.path());
        std::fs::write(cfg.out_dir.join("single.html"), "changed").unwrap();
        cfg.file.serve.prefers_border = Some(true);
        let newer = Catalog::load(&cfg, Strictness::AllowStale).unwrap();
        let out = r.catalog_changed(Arc::new(newer));
        // The page has a new URI: hosts re-list, and one that subscribed to the old URI hears
        // that it changed.
        assert_eq!(
            out,
            vec![
                Out::Host(json!({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})),
                Out::Host(json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})),
                Out::Host(
                    json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":SINGLE}})
                ),
            ]
        );
    }
}
