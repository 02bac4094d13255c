//! The one live upstream session behind a preview: started once, initialized, its tools listed,
//! and then used for every call the previewed UI makes.

use std::time::Duration;

use serde_json::{Value, json};

use crate::discover::{PageError, list_pages, open_failure};
use crate::mcp::negotiate;
use crate::mcp::{Client, ClientError, ConnectOptions, SendError, UpstreamSpec};
use crate::model::Tool;

/// Methods a previewed UI may have forwarded: what an MCP Apps host proxies for its views
/// (`serverTools`, `serverResources`). Nothing that changes the session itself.
pub const FORWARDED_METHODS: &[&str] = &[
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "ping",
];

/// How long one forwarded call may take; tools can be slow, a hung one should still end.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// Why the upstream could not be started or asked.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    #[error("cannot start upstream {upstream}: {reason}")]
    Start { upstream: String, reason: String },
    /// The opening exchange failed (`discover::open_failure` words it).
    #[error("{0}")]
    Open(String),
    #[error("upstream {upstream} failed `{method}`: {reason}")]
    Request {
        upstream: String,
        method: String,
        reason: String,
    },
    #[error(
        "upstream {upstream} timed out after {secs} s starting up (raise `[upstream] timeout_ms`){}",
        stderr_lines(.stderr)
    )]
    Timeout {
        upstream: String,
        secs: u64,
        /// Its last stderr lines, redacted and bounded (`secrets::stderr_excerpt`).
        stderr: Vec<String>,
    },
}

/// The last stderr lines of an upstream, after an error about it.
fn stderr_lines(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        format!("\nlast stderr lines:\n  {}", lines.join("\n  "))
    }
}

/// A live, initialized session.
pub struct Upstream {
    client: Client,
    pub describe: String,
    /// `serverInfo.name` as sent (for the page's title).
    pub server_name: String,
    /// Every tool, raw, as listed at start.
    pub tools: Vec<Tool>,
}

impl Upstream {
    /// Starts the upstream, initializes it and lists its tools, all within `timeout`.
    pub async fn start(
        spec: &UpstreamSpec,
        timeout: Duration,
        protocol: negotiate::Protocol,
    ) -> Result<Upstream, UpstreamError> {
        let describe = spec.describe();
        let sink = crate::mcp::StderrTail::default();
        let opts = ConnectOptions {
            // The server's own log is the first place to look when a call fails.
            forward_stderr: true,
            stderr_prefix: "[upstream] ".into(),
            connect_timeout: timeout,
            protocol,
            stderr_sink: Some(sink.clone()),
            ..ConnectOptions::default()
        };
        let startup = async {
            let (client, negotiated) =
                match negotiate::open(spec, &opts, "mcp-gen-ui-preview", &Default::default()).await
                {
                    Ok(pair) => pair,
                    Err(e) => return Err(UpstreamError::Open(open_failure(spec, e).await)),
                };
            let server_name = negotiated.server_name().unwrap_or("upstream").to_string();
            let stateless = matches!(negotiated.era, negotiate::Era::Stateless(_));
            let tools = match list_tools(&client, &describe, stateless).await {
                Ok(v) => v,
                Err(e) => {
                    client.shutdown().await;
                    return Err(e);
                }
            };
            Ok(Upstream {
                client,
                describe: describe.clone(),
                server_name,
                tools,
            })
        };
        match tokio::time::timeout(timeout, startup).await {
            Ok(r) => r,
            Err(_) => Err(UpstreamError::Timeout {
                upstream: describe.clone(),
                secs: timeout.as_secs(),
                stderr: crate::secrets::stderr_excerpt(&sink.lines()),
            }),
        }
    }

    /// Forwards one request; a JSON-RPC error from the upstream comes back as the error object
    /// to hand to the UI unchanged, anything else as an internal error (-32603) that says what
    /// happened.
    pub async fn forward(&self, method: &str, params: Option<Value>) -> Result<Value, Value> {
        match self.client.request(method, params, CALL_TIMEOUT).await {
            Ok(v) => Ok(v),
            Err(ClientError::Rpc {
                code,
                message,
                data,
            }) => {
                let mut e = json!({"code": code, "message": message});
                if let (Some(d), Some(obj)) = (data, e.as_object_mut()) {
                    obj.insert("data".into(), d);
                }
                Err(e)
            }
            Err(other) => {
                let other = match other {
                    // The exit status and stderr arrive a moment after a write fails.
                    ClientError::Send(SendError::Closed | SendError::Io(_)) => {
                        match self.client.close_reason(Duration::from_secs(2)).await {
                            Some(r) => ClientError::Closed(r),
                            None => other,
                        }
                    }
                    o => o,
                };
                Err(json!({
                    "code": -32603,
                    "message": format!(
                        "mcp-gen-ui preview could not get an answer from upstream {}: {other}",
                        self.describe
                    ),
                }))
            }
        }
    }

    /// Resolves when the upstream connection ends on its own, with the reason.
    pub async fn closed(&self) -> Option<String> {
        self.client
            .close_reason(Duration::from_secs(365 * 24 * 3600))
            .await
            .map(|r| r.to_string())
    }

    /// Shuts the upstream down (child process group included) and waits for it.
    pub async fn shutdown(self) {
        self.client.shutdown().await;
    }
}

async fn list_tools(
    client: &Client,
    upstream: &str,
    stateless: bool,
) -> Result<Vec<Tool>, UpstreamError> {
    let fail = |method: &str, reason: String| UpstreamError::Request {
        upstream: upstream.to_string(),
        method: method.to_string(),
        reason,
    };
    let long = Duration::from_secs(24 * 3600);
    let request =
        |params: Option<Value>| async move {
            client.request("tools/list", params, long).await.map_err(|e| {
            // The stateless path of some servers is broken while their handshake works
            // (book: reference/security.md, "Upstream options"): name the setting that picks the handshake.
            let hint = match &e {
                ClientError::Rpc { code: -32603, .. } if stateless => {
                    " (mcp-gen-ui spoke the stateless revision 2026-07-28 the server offered; \
                     if its handshake works, pass --protocol handshake or set `protocol = \
                     \"handshake\"` under [upstream])"
                }
                _ => "",
            };
            fail("tools/list", format!("{e}{hint}"))
        })
        };
    // The paging rule is discovery's (see `list_pages`); only a malformed entry is forgiven here.
    let raw = list_pages(request, |_| {}).await.map_err(|e| match e {
        PageError::Request(e) => e,
        PageError::Malformed(reason) | PageError::Pagination(reason) => fail("tools/list", reason),
    })?;
    // A malformed entry only costs its own tool in a preview.
    let tools = raw
        .into_iter()
        .filter_map(|raw| Tool::from_raw(raw).ok())
        .collect();
    Ok(tools)
}
