//! Discover stage: connect to the upstream, `initialize`, and list every tool (all pages).

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::mcp::excerpt;
use crate::mcp::negotiate::{self, Era, Negotiated, OpenError, Protocol};
use crate::mcp::{
    Client, ClientError, CloseKind, CloseReason, ConnectError, ConnectOptions, SendError,
    UpstreamSpec,
};
use crate::model::{Tool, ToolError, tools_from_raw};

/// The handshake-era protocol version we ask for; servers may answer with an older one, which
/// is fine for `tools/list`. (A server that speaks 2026-07-28 is spoken to statelessly.)
pub const PROTOCOL_VERSION: &str = crate::mcp::era::LEGACY_VERSIONS[0];

/// More pages than any real server needs; stops a server that invents new cursors forever.
const MAX_PAGES: usize = 10_000;

/// What the upstream told us about itself and its tools.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// `serverInfo.name` exactly as sent.
    pub server_name: String,
    /// The raw opening result: the `initialize` result (2025 handshake era) or the
    /// `DiscoverResult` (2026-07-28). Nothing of it goes into the lock.
    pub initialize_result: Value,
    /// The era the upstream was spoken to in.
    pub era: Era,
    /// Every tool of every page, raw, in the order sent.
    pub tools: Vec<Tool>,
}

/// Everything that can go wrong, each naming the upstream and what to do.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error(
        "cannot start upstream {upstream}: command `{command}` not found (check `[upstream] \
         command` in mcp-gen-ui.toml or --server)"
    )]
    CommandNotFound { upstream: String, command: String },
    #[error("cannot start upstream {upstream}: {reason}")]
    Start { upstream: String, reason: String },
    #[error("upstream {upstream} {what} before answering `{method}`{}{env}", stderr_block(.stderr))]
    Exited {
        upstream: String,
        method: String,
        /// "exited with status 3", "was killed by signal 9", …
        what: String,
        stderr: Vec<String>,
        /// For a stdio upstream: the variables of ours it did not get, and how to pass them.
        env: String,
    },
    #[error(
        "upstream {upstream} is not an MCP server: its first output was {first_output:?}, not a \
         JSON-RPC message{hint}{}{env}",
        stderr_block(.stderr)
    )]
    NotMcp {
        upstream: String,
        first_output: String,
        /// What to check, depending on the transport.
        hint: &'static str,
        stderr: Vec<String>,
        /// As for `Exited`.
        env: String,
    },
    #[error(
        "upstream {upstream} timed out after {secs} s waiting for `{stage}` (raise `[upstream] \
         timeout_ms` if the server is just slow to start){}{env}",
        stderr_block(&crate::secrets::stderr_excerpt(.stderr))
    )]
    Timeout {
        upstream: String,
        secs: f64,
        stage: String,
        stderr: Vec<String>,
        /// As for `Exited`.
        env: String,
    },
    #[error("upstream {upstream} answered `{method}` with HTTP {status}{hint}{}", body_block(.body))]
    Http {
        upstream: String,
        method: String,
        status: u16,
        hint: &'static str,
        body: String,
    },
    #[error("cannot reach upstream {upstream}: {reason} (is the server running at that address?)")]
    Unreachable { upstream: String, reason: String },
    #[error("upstream {upstream} answered `{method}` with JSON-RPC error {code}: {}", printable(.message))]
    Rpc {
        upstream: String,
        method: String,
        code: i64,
        message: String,
    },
    #[error("upstream {upstream} sent a malformed `{method}` response: {detail}")]
    Malformed {
        upstream: String,
        method: String,
        detail: String,
    },
    #[error("upstream {upstream}: {source}")]
    Tools {
        upstream: String,
        #[source]
        source: ToolError,
    },
    #[error("upstream {upstream} paginates `tools/list` endlessly: {detail}")]
    Pagination { upstream: String, detail: String },
    #[error("upstream {upstream}: {detail}")]
    Protocol { upstream: String, detail: String },
    /// `auto` spoke the stateless revision the server offered, a request failed there with an
    /// internal error, and the 2025 handshake works (book: reference/security.md, "Upstream options").
    #[error(
        "upstream {upstream} answered `{method}` with JSON-RPC error {code}: {}\n\
         It offered the stateless revision {modern} in `server/discover`, so mcp-gen-ui spoke \
         that (protocol \"auto\": the newest both sides speak); the same request works over the \
         2025 handshake (`initialize`), which lists {tools} tool(s). The server's {modern} path \
         is broken: run with --protocol handshake, or set `protocol = \"handshake\"` under \
         [upstream] in mcp-gen-ui.toml (until the server is fixed)",
        printable(.message),
        modern = crate::mcp::era::MODERN_VERSION
    )]
    StatelessBroken {
        upstream: String,
        method: String,
        code: i64,
        message: String,
        tools: usize,
    },
}

fn stderr_block(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        let lines: Vec<String> = lines.iter().map(|l| printable(l)).collect();
        format!("\nlast stderr lines:\n  {}", lines.join("\n  "))
    }
}

fn body_block(body: &str) -> String {
    if body.trim().is_empty() {
        String::new()
    } else {
        format!("\nresponse body: {}", printable(body))
    }
}

/// Upstream text goes to a terminal: escape control characters (ANSI sequences, carriage
/// returns) so a server cannot rewrite what the user sees.
fn printable(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn http_hint(status: u16) -> &'static str {
    match status {
        401 | 403 => " (check `[upstream] headers`, e.g. the Authorization token)",
        404 => " (check the URL path, e.g. /mcp for streamable HTTP or /sse for SSE)",
        405 | 406 | 415 => " (is `[upstream] transport` right? try \"streamable-http\" or \"sse\")",
        300..=399 => " (the server redirects; use the URL it names)",
        _ => "",
    }
}

/// JSON-RPC's internal error: what a server's own failure to answer looks like.
const INTERNAL_ERROR: i64 = -32603;

/// [`discover_with`] in the era `auto` picks.
pub async fn discover(spec: &UpstreamSpec, timeout: Duration) -> Result<Discovery, DiscoverError> {
    discover_with(spec, timeout, Protocol::Auto).await
}

/// Connect, negotiate the era (`server/discover`, or `initialize` and
/// `notifications/initialized`; see `mcp::negotiate`) as `protocol` says, list all tools, and
/// shut the upstream down. Everything, shutdown excepted, happens within `timeout`.
///
/// With `auto`, a request that fails in the stateless era with an internal error is tried once
/// more over the handshake: when that works, the error says so and names the setting.
pub async fn discover_with(
    spec: &UpstreamSpec,
    timeout: Duration,
    protocol: Protocol,
) -> Result<Discovery, DiscoverError> {
    let deadline = Instant::now() + timeout;
    let (res, era) = discover_once(spec, timeout, deadline, protocol).await;
    let res = res.map_err(|e| with_env_hint(spec, e));
    match (res, era) {
        (
            Err(DiscoverError::Rpc {
                upstream,
                method,
                code: INTERNAL_ERROR,
                message,
            }),
            Some(Era::Stateless(_)),
        ) if protocol == Protocol::Auto => {
            match discover_once(spec, timeout, deadline, Protocol::Handshake).await {
                (Ok(d), _) => Err(DiscoverError::StatelessBroken {
                    upstream,
                    method,
                    code: INTERNAL_ERROR,
                    message,
                    tools: d.tools.len(),
                }),
                _ => Err(DiscoverError::Rpc {
                    upstream,
                    method,
                    code: INTERNAL_ERROR,
                    message,
                }),
            }
        }
        (res, _) => res,
    }
}

/// A stdio upstream that exited (or timed out, or printed something else) before answering may
/// lack a variable of ours: name the withheld ones its stderr mentions, or say what it got, and
/// how to pass more (book: reference/security.md, "Upstream options").
fn with_env_hint(spec: &UpstreamSpec, mut err: DiscoverError) -> DiscoverError {
    let UpstreamSpec::Stdio(stdio) = spec else {
        return err;
    };
    match &mut err {
        DiscoverError::Exited { stderr, env, .. } => {
            *env = crate::secrets::withheld_hint(stdio.child_env(), stderr, true);
        }
        DiscoverError::Timeout { stderr, env, .. } | DiscoverError::NotMcp { stderr, env, .. } => {
            *env = crate::secrets::withheld_hint(stdio.child_env(), stderr, false);
        }
        _ => {}
    }
    err
}

/// One attempt; also the era it reached, when the opening exchange worked.
async fn discover_once(
    spec: &UpstreamSpec,
    timeout: Duration,
    deadline: Instant,
    protocol: Protocol,
) -> (Result<Discovery, DiscoverError>, Option<Era>) {
    let upstream = spec.describe();
    let opts = ConnectOptions {
        connect_timeout: timeout,
        // Discovery is done with the server once it closes stdin; don't wait long for a
        // server that ignores that before signalling it.
        shutdown_grace: Duration::from_secs(1),
        protocol,
        ..ConnectOptions::default()
    };
    let stage = Mutex::new(String::from("server/discover"));
    // Kept here, so that what a server that never answers said reaches the error.
    let sink = crate::mcp::StderrTail::default();
    let opts = ConnectOptions {
        stderr_sink: Some(sink.clone()),
        ..opts
    };
    let opened =
        tokio::time::timeout_at(deadline, negotiate::open(spec, &opts, "mcp-gen-ui", &stage)).await;
    let (client, negotiated) = match opened {
        Ok(Ok(pair)) => pair,
        Ok(Err(OpenError::Connect(e))) => return (Err(connect_error(&upstream, e)), None),
        Ok(Err(OpenError::Request {
            client,
            method,
            error,
        })) => {
            let err = unwrap_reply::<Value>(&client, &upstream, method, Err(error)).await;
            client.shutdown().await;
            let err = err.err().unwrap_or_else(|| DiscoverError::Malformed {
                upstream: upstream.clone(),
                method: method.into(),
                detail: "no result".into(),
            });
            return (Err(err), None);
        }
        Err(_) => {
            let err = DiscoverError::Timeout {
                upstream,
                secs: timeout.as_secs_f64(),
                stage: match stage.lock() {
                    Ok(g) => g.clone(),
                    Err(p) => p.into_inner().clone(),
                },
                stderr: sink.lines(),
                env: String::new(),
            };
            return (Err(err), None);
        }
    };
    let era = negotiated.era.clone();
    let res = tokio::time::timeout_at(deadline, run(&client, &upstream, &stage, negotiated)).await;
    let res = match res {
        Ok(r) => r,
        Err(_) => Err(DiscoverError::Timeout {
            upstream: upstream.clone(),
            secs: timeout.as_secs_f64(),
            stage: match stage.lock() {
                Ok(g) => g.clone(),
                Err(p) => p.into_inner().clone(),
            },
            stderr: client.stderr_tail(),
            env: String::new(),
        }),
    };
    client.shutdown().await;
    (res, Some(era))
}

async fn run(
    client: &Client,
    upstream: &str,
    stage: &Mutex<String>,
    negotiated: Negotiated,
) -> Result<Discovery, DiscoverError> {
    let set_stage = |s: &str| {
        if let Ok(mut g) = stage.lock() {
            *g = s.to_string();
        }
    };
    // Each request may take the whole budget; the caller's deadline bounds the sum.
    let long = Duration::from_secs(24 * 3600);
    let method = match negotiated.era {
        Era::Stateless(_) => "server/discover",
        Era::Handshake(_) => "initialize",
    };
    let init = check_result(upstream, method, negotiated.result.clone())?;
    let server_name = negotiated
        .server_name()
        .ok_or_else(|| DiscoverError::Malformed {
            upstream: upstream.to_string(),
            method: method.into(),
            detail: match negotiated.era {
                Era::Stateless(_) => format!(
                    "the result has no string `_meta[\"io.modelcontextprotocol/serverInfo\"].name`: {}",
                    short(&init, 300)
                ),
                Era::Handshake(_) => format!(
                    "the result has no string `serverInfo.name`: {}",
                    short(&init, 300)
                ),
            },
        })?
        .to_string();
    if matches!(negotiated.era, Era::Handshake(_))
        && !init.get("protocolVersion").is_some_and(Value::is_string)
    {
        return Err(DiscoverError::Malformed {
            upstream: upstream.to_string(),
            method: "initialize".into(),
            detail: "the result has no string `protocolVersion`".into(),
        });
    }

    let request = |params: Option<Value>| async move {
        let result = client.request("tools/list", params, long).await;
        check_result(
            upstream,
            "tools/list",
            unwrap_reply(client, upstream, "tools/list", result).await?,
        )
    };
    let on_page = |page: usize| {
        set_stage(&if page == 1 {
            "tools/list".to_string()
        } else {
            format!("tools/list (page {page})")
        })
    };
    let raw_tools = list_pages(request, on_page).await.map_err(|e| match e {
        PageError::Request(e) => e,
        PageError::Malformed(detail) => DiscoverError::Malformed {
            upstream: upstream.to_string(),
            method: "tools/list".into(),
            detail,
        },
        PageError::Pagination(detail) => DiscoverError::Pagination {
            upstream: upstream.to_string(),
            detail,
        },
    })?;
    let tools = tools_from_raw(raw_tools).map_err(|source| DiscoverError::Tools {
        upstream: upstream.to_string(),
        source,
    })?;
    Ok(Discovery {
        server_name,
        initialize_result: init,
        era: negotiated.era.clone(),
        tools,
    })
}

/// Why paging through `tools/list` stopped short.
#[derive(Debug)]
pub enum PageError<E> {
    /// The request for a page failed (the caller's own error).
    Request(E),
    /// A page is not `{"tools": [...], "nextCursor"?: string}`.
    Malformed(String),
    /// The pages do not end: more than [`MAX_PAGES`], or a cursor repeats.
    Pagination(String),
}

/// Every raw entry of `tools/list`, page by page: the one paging rule of every client of ours
/// (discovery, preview). `request` asks for one page (`{"cursor": c}` after the first); `on_page`
/// hears each page's number before it is asked for.
///
/// The rule is strict, because a server that pages wrongly would otherwise hand over a partial
/// list that looks whole (a UI silently missing for some tools) or loop for ever: at most
/// [`MAX_PAGES`] pages; a cursor that repeats an earlier page's is an error (the server would
/// loop); a `nextCursor` that is not a string is an error; an absent, null or empty one ends the
/// list (an empty cursor cannot name a next page).
pub async fn list_pages<E, Fut>(
    mut request: impl FnMut(Option<Value>) -> Fut,
    mut on_page: impl FnMut(usize),
) -> Result<Vec<Value>, PageError<E>>
where
    Fut: std::future::Future<Output = Result<Value, E>>,
{
    let mut raw_tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for page in 1..=MAX_PAGES {
        on_page(page);
        let params = cursor.as_ref().map(|c| json!({"cursor": c}));
        let result = request(params).await.map_err(PageError::Request)?;
        let Some(obj) = result.as_object() else {
            return Err(PageError::Malformed(format!(
                "the result is not an object: {}",
                short(&result, 300)
            )));
        };
        match obj.get("tools") {
            Some(Value::Array(list)) => raw_tools.extend(list.iter().cloned()),
            Some(other) => {
                return Err(PageError::Malformed(format!(
                    "`tools` is not an array: {}",
                    short(other, 300)
                )));
            }
            None => {
                return Err(PageError::Malformed(
                    "the result has no `tools` array".into(),
                ));
            }
        }
        cursor = match obj.get("nextCursor") {
            None | Some(Value::Null) => return Ok(raw_tools),
            Some(Value::String(c)) if c.is_empty() => return Ok(raw_tools),
            Some(Value::String(c)) => Some(c.clone()),
            Some(other) => {
                return Err(PageError::Malformed(format!(
                    "`nextCursor` is not a string: {}",
                    short(other, 100)
                )));
            }
        };
        if let Some(c) = &cursor
            && !seen.insert(c.clone())
        {
            return Err(PageError::Pagination(format!(
                "page {page} repeats the cursor {:?} of an earlier page",
                excerpt(c, 100)
            )));
        }
    }
    Err(PageError::Pagination(format!(
        "more than {MAX_PAGES} pages"
    )))
}

/// Why the opening exchange with the upstream failed, in the one wording every client of ours
/// uses when it has no richer report of its own (`--sample`, `preview`, `serve`'s readiness
/// probe): the connection error, or the request that was not answered — with the upstream's exit
/// status and stderr when it died, and the variables it may have lacked (book: reference/security.md, "Upstream options"). The client is
/// shut down.
pub async fn open_failure(spec: &UpstreamSpec, err: OpenError) -> String {
    let upstream = spec.describe();
    let (client, method, error) = match err {
        OpenError::Connect(e) => return format!("cannot connect to {upstream}: {e}"),
        OpenError::Request {
            client,
            method,
            error,
        } => (client, method, error),
    };
    // The exit status and stderr arrive a moment after a write fails.
    let error = match error {
        ClientError::Send(SendError::Closed | SendError::Io(_)) => {
            match client.close_reason(Duration::from_secs(2)).await {
                Some(r) => ClientError::Closed(r),
                None => error,
            }
        }
        other => other,
    };
    // A stdio upstream that exited before answering may lack a variable of ours: name it, or
    // say what it got.
    let env = match (spec, &error) {
        (UpstreamSpec::Stdio(s), ClientError::Closed(r)) => {
            crate::secrets::withheld_hint(s.child_env(), &r.stderr_tail, true)
        }
        _ => String::new(),
    };
    client.shutdown().await;
    format!("{upstream} did not answer `{method}`: {error}{env}")
}

fn short(v: &Value, max: usize) -> String {
    excerpt(&v.to_string(), max)
}

/// Turns a failed request into the precise error, waiting briefly for the close reason when
/// the upstream stopped accepting input (the exit status and stderr arrive a moment later).
async fn unwrap_reply<T>(
    client: &Client,
    upstream: &str,
    method: &str,
    reply: Result<T, ClientError>,
) -> Result<T, DiscoverError> {
    let e = match reply {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let e = match e {
        ClientError::Send(SendError::Closed | SendError::Io(_)) => {
            match client.close_reason(Duration::from_secs(3)).await {
                Some(reason) => ClientError::Closed(reason),
                None => e,
            }
        }
        other => other,
    };
    let mut err = request_error(upstream, method, e);
    if let DiscoverError::NotMcp { stderr, hint, .. } = &mut err {
        *stderr = client.stderr_tail();
        *hint = if client.is_stdio() {
            " (over stdio a server may print only JSON-RPC on stdout; logs belong on stderr)"
        } else {
            " (check the URL: it should be the server's MCP endpoint, e.g. /mcp)"
        };
    }
    Err(err)
}

/// Results must be objects; anything else is reported as malformed.
fn check_result(upstream: &str, method: &str, result: Value) -> Result<Value, DiscoverError> {
    if result.is_object() {
        Ok(result)
    } else {
        Err(DiscoverError::Malformed {
            upstream: upstream.to_string(),
            method: method.to_string(),
            detail: format!("the result is not an object: {}", short(&result, 300)),
        })
    }
}

fn connect_error(upstream: &str, e: ConnectError) -> DiscoverError {
    let upstream = upstream.to_string();
    match e {
        ConnectError::CommandNotFound { command } => {
            DiscoverError::CommandNotFound { upstream, command }
        }
        ConnectError::Http { status, body } => DiscoverError::Http {
            upstream,
            method: "GET (event stream)".into(),
            status,
            hint: http_hint(status),
            body,
        },
        ConnectError::Request(reason) => DiscoverError::Unreachable { upstream, reason },
        other => DiscoverError::Start {
            upstream,
            reason: other.to_string(),
        },
    }
}

fn request_error(upstream: &str, method: &str, e: ClientError) -> DiscoverError {
    let upstream = upstream.to_string();
    let method = method.to_string();
    match e {
        ClientError::Send(SendError::Http { status, body, .. }) => DiscoverError::Http {
            upstream,
            method,
            status,
            hint: http_hint(status),
            body,
        },
        ClientError::Send(SendError::Request(reason)) => {
            DiscoverError::Unreachable { upstream, reason }
        }
        // Writing failed and no close reason came in time.
        ClientError::Send(e) => DiscoverError::Exited {
            upstream,
            method,
            what: format!("stopped accepting input ({e})"),
            stderr: Vec::new(),
            env: String::new(),
        },
        ClientError::Closed(reason) => closed_error(upstream, method, reason),
        ClientError::NotMcp { first_output } => DiscoverError::NotMcp {
            upstream,
            first_output,
            hint: "",
            stderr: Vec::new(),
            env: String::new(),
        },
        ClientError::Rpc { code, message, .. } => DiscoverError::Rpc {
            upstream,
            method,
            code,
            message,
        },
        ClientError::Malformed(detail) => DiscoverError::Malformed {
            upstream,
            method,
            detail,
        },
        ClientError::TooLarge { limit } => DiscoverError::Malformed {
            upstream,
            method,
            detail: format!("a message was larger than {limit} bytes"),
        },
        ClientError::Timeout(d) => DiscoverError::Timeout {
            upstream,
            secs: d.as_secs_f64(),
            stage: method,
            stderr: Vec::new(),
            env: String::new(),
        },
        ClientError::Refused(detail) => DiscoverError::Protocol { upstream, detail },
    }
}

fn closed_error(upstream: String, method: String, reason: CloseReason) -> DiscoverError {
    let what = match &reason.kind {
        CloseKind::Shutdown => "was shut down".to_string(),
        other => other.describe(),
    };
    DiscoverError::Exited {
        upstream,
        method,
        what,
        stderr: reason.stderr_tail,
        env: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out `pages` in order.
    fn page_through(pages: Vec<Value>) -> Result<Vec<Value>, PageError<String>> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut pages = pages.into_iter();
        rt.block_on(list_pages(
            |_params: Option<Value>| {
                let page = pages.next().ok_or_else(|| "no more pages".to_string());
                async move { page }
            },
            |_| {},
        ))
    }

    #[test]
    fn pages_are_joined_until_the_cursor_ends() {
        let all = page_through(vec![
            json!({"tools": [{"name": "a"}], "nextCursor": "2"}),
            json!({"tools": [{"name": "b"}], "nextCursor": ""}),
        ])
        .unwrap();
        assert_eq!(all, vec![json!({"name": "a"}), json!({"name": "b"})]);
        let one = page_through(vec![json!({"tools": [], "nextCursor": null})]).unwrap();
        assert!(one.is_empty());
    }

    #[test]
    fn bad_paging_is_an_error() {
        let repeat = page_through(vec![
            json!({"tools": [], "nextCursor": "x"}),
            json!({"tools": [], "nextCursor": "x"}),
        ]);
        assert!(matches!(repeat, Err(PageError::Pagination(d)) if d.contains("repeats")));
        let number = page_through(vec![json!({"tools": [], "nextCursor": 7})]);
        assert!(matches!(number, Err(PageError::Malformed(d)) if d.contains("nextCursor")));
        let no_tools = page_through(vec![json!({"nextCursor": "x"})]);
        assert!(matches!(no_tools, Err(PageError::Malformed(_))));
        let failed = page_through(vec![]);
        assert!(matches!(failed, Err(PageError::Request(e)) if e == "no more pages"));
    }
}
