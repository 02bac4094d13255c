//! How our own client (generate, diff, check --online, refine, preview, `--sample`) starts
//! talking to an upstream: it negotiates the newest revision both sides speak.
//!
//! It probes with `server/discover` carrying the 2026-07-28 envelope. A `DiscoverResult` that
//! offers 2026-07-28 selects the stateless era: every later request carries the envelope in its
//! `_meta` and nothing else is sent first. Anything else — a `DiscoverResult` or an
//! unsupported-version error offering only handshake-era versions, any other error, an HTTP
//! error without a modern JSON-RPC error in its body, a stdio server that stays silent or exits
//! — means the 2025 handshake (`initialize`, then `notifications/initialized`), as the
//! revision's backward-compatibility rules say.

use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Client, ClientError};
use super::connection::Connection;
pub use super::era::Protocol;
use super::era::{self, LEGACY_VERSIONS, MODERN_VERSION};
use super::spec::UpstreamSpec;
use super::transport::{ConnectError, ConnectOptions, SendError};

/// How long a stdio server may stay silent on the probe before it counts as a 2025-era server
/// that ignores unknown requests (at most half the connect budget, so the handshake still has
/// time).
const STDIO_PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's own budget; callers bound the whole start-up with their deadline.
const LONG: Duration = Duration::from_secs(24 * 3600);

/// Which era the upstream is spoken to in.
#[derive(Debug, Clone, PartialEq)]
pub enum Era {
    /// Stateless: the version and capabilities go in each request's `_meta`.
    Stateless(String),
    /// The `initialize` handshake, at the version the server chose.
    Handshake(String),
}

/// The outcome of the opening exchange.
#[derive(Debug, Clone)]
pub struct Negotiated {
    pub era: Era,
    /// The server's `serverInfo` (from `initialize`, or from the `DiscoverResult`'s `_meta`).
    pub server_info: Option<Value>,
    /// The raw `initialize` result or `DiscoverResult`.
    pub result: Value,
}

impl Negotiated {
    /// `serverInfo.name`, when the server sent a string one.
    pub fn server_name(&self) -> Option<&str> {
        self.server_info
            .as_ref()
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str)
    }
}

/// Why the opening exchange failed.
pub enum OpenError {
    Connect(ConnectError),
    /// A request failed; `client` is kept for its stderr tail and close reason.
    Request {
        client: Box<Client>,
        method: &'static str,
        error: ClientError,
    },
}

/// The `_meta` every stateless request carries.
pub fn envelope(client_name: &str) -> Value {
    json!({
        era::META_PROTOCOL_VERSION: MODERN_VERSION,
        era::META_CLIENT_INFO: {"name": client_name, "version": env!("CARGO_PKG_VERSION")},
        era::META_CLIENT_CAPABILITIES: {},
    })
}

enum Probe {
    Modern(Value),
    Legacy,
    /// A stdio server that did not answer in time: a 2025-era server that ignores unknown
    /// requests, or one slow to start.
    Silent,
    /// The connection ended during the probe (a stdio server that exits on a request before
    /// `initialize`): reconnect and use the handshake.
    Reconnect,
    Failed(ClientError),
}

/// Opens a connection and negotiates. The caller bounds the whole with its own deadline;
/// `stage` names the request in flight, for the caller's timeout message.
pub async fn open(
    spec: &UpstreamSpec,
    opts: &ConnectOptions,
    client_name: &str,
    stage: &std::sync::Mutex<String>,
) -> Result<(Client, Negotiated), OpenError> {
    let set_stage = |s: &str| {
        if let Ok(mut g) = stage.lock() {
            *g = s.to_string();
        }
    };
    set_stage("the connection");
    let conn = Connection::open(spec, opts)
        .await
        .map_err(OpenError::Connect)?;
    let client = Client::new(conn);
    let stdio = client.is_stdio();
    if opts.protocol == Protocol::Handshake {
        set_stage("initialize");
        return match handshake(&client, client_name).await {
            Ok(n) => Ok((client, n)),
            Err((method, error)) => Err(OpenError::Request {
                client: Box::new(client),
                method,
                error,
            }),
        };
    }
    set_stage("server/discover");
    // Asked for the stateless revision only: a silent server gets the whole budget (the
    // caller's deadline bounds it), as there is nothing to fall back to.
    let probe_timeout = if stdio && opts.protocol == Protocol::Auto {
        STDIO_PROBE_TIMEOUT.min(opts.connect_timeout / 2)
    } else {
        LONG
    };
    let probe = probe(&client, client_name, probe_timeout).await;
    if opts.protocol == Protocol::Stateless && !matches!(probe, Probe::Modern(_) | Probe::Failed(_))
    {
        let how = match probe {
            Probe::Reconnect => "it closed the connection on `server/discover`",
            _ => "its answer to `server/discover` does not offer it",
        };
        return Err(OpenError::Request {
            client: Box::new(client),
            method: "server/discover",
            error: ClientError::Refused(format!(
                "it does not speak the stateless revision {MODERN_VERSION} ({how}), which \
                 `--protocol stateless` / `[upstream] protocol = \"stateless\"` asks for: use \
                 \"auto\" (the newest both speak) or \"handshake\""
            )),
        });
    }
    let silent = matches!(probe, Probe::Silent);
    let client = match probe {
        Probe::Modern(result) => return Ok(stateless(client, client_name, result)),
        Probe::Failed(error) => {
            return Err(OpenError::Request {
                client: Box::new(client),
                method: "server/discover",
                error,
            });
        }
        Probe::Legacy | Probe::Silent => client,
        Probe::Reconnect => {
            client.shutdown().await;
            let conn = Connection::open(spec, opts)
                .await
                .map_err(OpenError::Connect)?;
            Client::new(conn)
        }
    };
    set_stage("initialize");
    match handshake(&client, client_name).await {
        Ok(n) => Ok((client, n)),
        // A server that is only slow to start (a Python server on a busy machine) answers the
        // probe after we stopped waiting, and then refuses `initialize` on the connection it
        // now serves in 2026-07-28: ask again, it is listening now.
        Err((
            _,
            ClientError::Rpc {
                code: era::UNSUPPORTED_PROTOCOL_VERSION,
                ..
            },
        )) if silent => {
            set_stage("server/discover");
            match self::probe(&client, client_name, LONG).await {
                Probe::Modern(result) => Ok(stateless(client, client_name, result)),
                Probe::Failed(error) => Err(OpenError::Request {
                    client: Box::new(client),
                    method: "server/discover",
                    error,
                }),
                _ => Err(OpenError::Request {
                    client: Box::new(client),
                    method: "initialize",
                    error: ClientError::Refused(format!(
                        "it refused `initialize` for the stateless revision {MODERN_VERSION} \
                         but does not offer that revision in `server/discover`"
                    )),
                }),
            }
        }
        Err((method, error)) => Err(OpenError::Request {
            client: Box::new(client),
            method,
            error,
        }),
    }
}

/// The stateless era, once `server/discover` offered it: every later request carries the
/// envelope.
fn stateless(client: Client, client_name: &str, result: Value) -> (Client, Negotiated) {
    client.set_envelope(Some(envelope(client_name)));
    let server_info = result
        .get("_meta")
        .and_then(|m| m.get(era::META_SERVER_INFO))
        .cloned();
    tracing::debug!("upstream speaks {MODERN_VERSION}: stateless requests");
    (
        client,
        Negotiated {
            era: Era::Stateless(MODERN_VERSION.to_string()),
            server_info,
            result,
        },
    )
}

async fn probe(client: &Client, client_name: &str, timeout: Duration) -> Probe {
    let stdio = client.is_stdio();
    let params = json!({"_meta": envelope(client_name)});
    match client
        .request("server/discover", Some(params), timeout)
        .await
    {
        Ok(result) => {
            let offered = versions(result.get("supportedVersions"));
            if offered.iter().any(|v| v == MODERN_VERSION) {
                Probe::Modern(result)
            } else {
                Probe::Legacy
            }
        }
        Err(ClientError::Rpc { code, data, .. }) => modern_error(code, data.as_ref()),
        Err(ClientError::Send(SendError::Http { rpc: Some(rpc), .. })) => {
            let code = rpc.pointer("/error/code").and_then(Value::as_i64);
            match code {
                Some(code) => modern_error(code, rpc.pointer("/error/data")),
                None => Probe::Legacy,
            }
        }
        // A 2025-era HTTP server refuses a request outside a session with a 4xx.
        Err(ClientError::Send(SendError::Http { status, .. })) if (400..500).contains(&status) => {
            Probe::Legacy
        }
        Err(ClientError::Timeout(_)) if stdio => Probe::Silent,
        Err(ClientError::Closed(_) | ClientError::Send(SendError::Closed | SendError::Io(_)))
            if stdio =>
        {
            Probe::Reconnect
        }
        Err(e) => Probe::Failed(e),
    }
}

/// A JSON-RPC error to the probe: the revision's unsupported-version error offering only
/// handshake-era versions, and every non-modern error, mean the handshake.
fn modern_error(code: i64, data: Option<&Value>) -> Probe {
    if code != era::UNSUPPORTED_PROTOCOL_VERSION {
        return Probe::Legacy;
    }
    let supported = versions(data.and_then(|d| d.get("supported")));
    if supported.iter().any(|v| era::is_legacy_version(v)) {
        return Probe::Legacy;
    }
    Probe::Failed(ClientError::Rpc {
        code,
        message: format!(
            "the server supports only protocol versions {supported:?}; mcp-gen-ui speaks {MODERN_VERSION} and {}",
            LEGACY_VERSIONS.join(", ")
        ),
        data: data.cloned(),
    })
}

fn versions(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The 2025 handshake: `initialize`, then `notifications/initialized`.
pub async fn handshake(
    client: &Client,
    client_name: &str,
) -> Result<Negotiated, (&'static str, ClientError)> {
    let params = json!({
        "protocolVersion": LEGACY_VERSIONS[0],
        "capabilities": {},
        "clientInfo": {"name": client_name, "version": env!("CARGO_PKG_VERSION")},
    });
    let result = client
        .request("initialize", Some(params), LONG)
        .await
        .map_err(|e| ("initialize", e))?;
    let version = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    client
        .notify("notifications/initialized", None)
        .await
        .map_err(|e| ("notifications/initialized", e))?;
    Ok(Negotiated {
        era: Era::Handshake(version),
        server_info: result.get("serverInfo").cloned(),
        result,
    })
}
