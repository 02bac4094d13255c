//! The preview's HTTP server on 127.0.0.1: the host page, each tool's UI document (served with
//! the MCP Apps CSP, for a sandboxed iframe), and the one endpoint that forwards the UI's
//! requests to the live upstream. Every request passes the [`Guard`] first.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::guard::{Guard, parse_query};
use super::upstream::{FORWARDED_METHODS, Upstream};
use super::{assets, csp};
use crate::config::Config;
use crate::lock::Lock;
use crate::report::Printer;

/// The host page's own policy: its scripts and styles come from this server only, it may
/// fetch and frame this server only, and no other site may frame it.
const HOST_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; \
    base-uri 'none'; form-action 'none'";

/// Everything the handlers share.
pub struct Shared {
    pub guard: Guard,
    pub cfg: Config,
    pub upstream: Arc<Upstream>,
    pub initial_tool: Option<String>,
    pub printer: Printer,
}

type St = Arc<Shared>;

/// The router, with the guard in front of every route.
pub fn router(shared: St) -> Router {
    Router::new()
        .route("/", get(host_page))
        .route("/host.js", get(host_js))
        .route("/host.css", get(host_css))
        .route("/frame", get(frame))
        .route("/rpc", axum::routing::post(rpc))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

async fn guard(State(st): State<St>, req: Request, next: Next) -> Response {
    let state_changing = req.uri().path() == "/rpc";
    match st.guard.check(
        req.method(),
        req.uri().query(),
        req.headers(),
        state_changing,
    ) {
        Ok(()) => next.run(req).await,
        Err(denied) => {
            // Scans and typos are not worth a line; a foreign page trying the door is.
            if !matches!(denied, super::guard::Denied::NoToken) || state_changing {
                st.printer.warn(format!(
                    "preview refused {} {}: {}",
                    req.method(),
                    req.uri().path(),
                    denied.describe()
                ));
            }
            let status = match denied {
                super::guard::Denied::NoToken => StatusCode::NOT_FOUND,
                _ => StatusCode::FORBIDDEN,
            };
            plain(status, "not found or not allowed\n")
        }
    }
}

async fn not_found() -> Response {
    plain(StatusCode::NOT_FOUND, "not found\n")
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    with_common_headers(
        (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response(),
    )
}

/// Headers every response gets: nothing is cached (files change under `generate`), and no
/// request made by a page carries the token-bearing URL as its referrer.
fn with_common_headers(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    resp
}

fn respond(content_type: &'static str, csp: Option<&str>, body: impl Into<Body>) -> Response {
    let mut resp = Response::new(body.into());
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(csp) = csp
        && let Ok(v) = HeaderValue::from_str(csp)
    {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    with_common_headers(resp)
}

async fn host_page(State(st): State<St>) -> Response {
    let boot = boot_data(&st);
    respond(
        "text/html; charset=utf-8",
        Some(HOST_CSP),
        assets::host_html(&boot, st.guard.token()),
    )
}

async fn host_js() -> Response {
    respond("text/javascript; charset=utf-8", None, assets::HOST_JS)
}

async fn host_css() -> Response {
    respond("text/css; charset=utf-8", None, assets::HOST_CSS)
}

/// What the host page needs to know: the tools with a UI (re-read from the lock on every load,
/// so a `generate` while previewing shows up on reload) and how each compares to the upstream.
fn boot_data(st: &Shared) -> Value {
    let (lock, lock_error) = match Lock::read(&st.cfg.out_dir) {
        Ok(l) => (l, None),
        Err(e) => (None, Some(e.to_string())),
    };
    let mut tools = Vec::new();
    if let Some(lock) = &lock {
        for (name, entry) in &lock.tools {
            let live = st.upstream.tools.iter().find(|t| &t.name == name);
            let mut notes = Vec::new();
            match live {
                None => notes.push(
                    "the upstream no longer has this tool; `mcp-gen-ui generate` will remove it"
                        .to_string(),
                ),
                Some(t) if t.tool_hash() != entry.tool_hash => notes.push(
                    "the tool changed upstream since its UI was generated; run `mcp-gen-ui generate`"
                        .to_string(),
                ),
                Some(_) => {}
            }
            let mut widgets = Vec::new();
            for w in &entry.widgets {
                let path = st.cfg.out_dir.join(&w.path);
                match std::fs::read(&path) {
                    Ok(bytes) => {
                        if crate::model::sha256_hex(&bytes) != w.sha256 {
                            notes.push(format!("{} was edited by hand", w.path));
                        }
                    }
                    Err(e) => notes.push(format!("cannot read {}: {e}", path.display())),
                }
                widgets.push(json!({"name": w.name, "path": w.path, "default": w.default}));
            }
            let tool_cfg = st.cfg.tool(name);
            let (_, csp_warnings) = csp::app_csp(&tool_cfg.csp);
            let example = tool_cfg
                .examples
                .iter()
                .find(|e| e.is_object())
                .cloned()
                .unwrap_or_else(|| json!({}));
            tools.push(json!({
                "name": name,
                "title": live.and_then(|t| t.title()),
                "definition": live.map(|t| Value::Object(t.raw.clone())),
                "widgets": widgets,
                "notes": notes,
                "csp": csp::declared_json(&tool_cfg.csp),
                "cspWarnings": csp_warnings,
                "example": example,
            }));
        }
    }
    json!({
        "token": st.guard.token(),
        "version": env!("CARGO_PKG_VERSION"),
        "upstream": {"describe": st.upstream.describe, "serverName": st.upstream.server_name},
        "outDir": st.cfg.out_dir.display().to_string(),
        "lockError": lock_error,
        "initialTool": st.initial_tool,
        "tools": tools,
    })
}

/// One tool's UI document, exactly as on disk, under the CSP a host would give it.
async fn frame(State(st): State<St>, uri: Uri) -> Response {
    let q = parse_query(uri.query().unwrap_or_default());
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let (Some(tool), widget) = (get("tool"), get("widget")) else {
        return frame_error(None, "no tool named in the URL");
    };
    let (path, csp) = match resolve(&st, &tool, widget.as_deref()) {
        Ok(v) => v,
        Err(msg) => return frame_error(None, &msg),
    };
    match std::fs::read(&path) {
        Ok(bytes) => respond("text/html; charset=utf-8", Some(&csp), bytes),
        Err(e) => frame_error(
            Some(&csp),
            &format!(
                "cannot read {}: {e}. Run `mcp-gen-ui generate`.",
                path.display()
            ),
        ),
    }
}

/// The file of a tool's widget (the default one when none is named) and its CSP.
fn resolve(st: &Shared, tool: &str, widget: Option<&str>) -> Result<(PathBuf, String), String> {
    let lock = Lock::read(&st.cfg.out_dir)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| {
            format!(
                "{} has no lock: run `mcp-gen-ui generate`",
                st.cfg.out_dir.display()
            )
        })?;
    let entry = lock.tools.get(tool).ok_or_else(|| {
        format!(
            "tool {:?} has no UI in the lock: run `mcp-gen-ui generate`",
            crate::mcp::excerpt(tool, 100)
        )
    })?;
    let w = match widget {
        Some(name) => entry.widgets.iter().find(|w| w.name == name),
        None => entry
            .widgets
            .iter()
            .find(|w| w.default)
            .or_else(|| entry.widgets.first()),
    }
    .ok_or_else(|| {
        format!(
            "tool {:?} has no widget {:?}",
            crate::mcp::excerpt(tool, 100),
            widget.unwrap_or_default()
        )
    })?;
    // `Lock::read` refused any path that could leave the output directory.
    let (policy, _) = csp::app_csp(&st.cfg.tool(tool).csp);
    Ok((st.cfg.out_dir.join(&w.path), policy))
}

fn frame_error(csp: Option<&str>, message: &str) -> Response {
    let body = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>mcp-gen-ui preview</title>\
         <p style=\"font-family:sans-serif;color:#b00\">{}</p>",
        html_escape(message)
    );
    let mut resp = respond(
        "text/html; charset=utf-8",
        Some(csp.unwrap_or(csp::DEFAULT_APP_CSP)),
        body,
    );
    *resp.status_mut() = StatusCode::NOT_FOUND;
    resp
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Forwards one request of the UI (relayed by the host page) to the upstream:
/// `{"method", "params"}` in, `{"result"}` or `{"error"}` out, as JSON-RPC would have it.
/// axum's default body limit (2 MB) bounds what is read.
async fn rpc(State(st): State<St>, body: Bytes) -> Response {
    let reply = |v: Value| respond("application/json", None, crate::json::to_string(&v));
    let bad = |msg: String| {
        let mut r = reply(json!({"error": {"code": -32600, "message": msg}}));
        *r.status_mut() = StatusCode::BAD_REQUEST;
        r
    };
    let req: Value = match crate::json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return bad(format!("the body is not JSON: {e}")),
    };
    let Some(m) = req.get("method").and_then(Value::as_str) else {
        return bad("the body has no string `method`".into());
    };
    if !FORWARDED_METHODS.contains(&m) {
        return bad(format!(
            "preview does not forward `{}` (only {})",
            crate::mcp::excerpt(m, 100),
            FORWARDED_METHODS.join(", ")
        ));
    }
    let params = req.get("params").cloned().filter(|p| !p.is_null());
    let what = match (m, params.as_ref().and_then(|p| p.get("name"))) {
        ("tools/call", Some(Value::String(n))) => {
            format!("tools/call {}", crate::mcp::excerpt(n, 100))
        }
        _ => m.to_string(),
    };
    let started = Instant::now();
    let out = st.upstream.forward(m, params).await;
    let ms = started.elapsed().as_millis();
    match out {
        Ok(result) => {
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            st.printer.status(format!(
                "preview: {what}: {} in {ms} ms",
                if is_error { "tool error" } else { "ok" }
            ));
            reply(json!({"result": result}))
        }
        Err(error) => {
            let msg = error.get("message").and_then(Value::as_str).unwrap_or("?");
            st.printer.status(format!(
                "preview: {what}: error in {ms} ms: {}",
                crate::mcp::excerpt(msg, 300)
            ));
            reply(json!({"error": error}))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_pages_escape_their_message() {
        assert_eq!(
            html_escape("<script>\"&\""),
            "&lt;script&gt;&quot;&amp;&quot;"
        );
    }
}
