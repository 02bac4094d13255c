//! `--sample`: real results of read-only tools, shown to the llm generator so it designs for the
//! data the tool really returns. Only tools marked `readOnlyHint` (and not destructive), or
//! allow-listed with `[tools.NAME] sample = true`, are ever called, and only when asked.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::{Client, ConnectOptions, Connection, UpstreamSpec};

/// How long one sample call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls each `(tool, arguments)` once over one fresh upstream session. Failures are returned per
/// tool (a sample is a nicety: the caller warns and generates without it).
pub async fn call_tools(
    spec: &UpstreamSpec,
    connect_timeout: Duration,
    calls: Vec<(String, Value)>,
) -> Result<BTreeMap<String, Result<Value, String>>, String> {
    let opts = ConnectOptions {
        connect_timeout,
        shutdown_grace: Duration::from_secs(1),
        ..ConnectOptions::default()
    };
    let conn = tokio::time::timeout(connect_timeout, Connection::open(spec, &opts))
        .await
        .map_err(|_| format!("timed out connecting to {}", spec.describe()))?
        .map_err(|e| format!("cannot connect to {}: {e}", spec.describe()))?;
    let client = Client::new(conn);
    let init = client
        .request(
            "initialize",
            Some(json!({
                "protocolVersion": crate::discover::PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "mcp-gen-ui", "version": env!("CARGO_PKG_VERSION")},
            })),
            connect_timeout,
        )
        .await;
    if let Err(e) = init {
        client.shutdown().await;
        return Err(format!("{} did not initialize: {e}", spec.describe()));
    }
    let _ = client.notify("notifications/initialized", None).await;
    let mut out = BTreeMap::new();
    for (name, args) in calls {
        let r = client
            .request(
                "tools/call",
                Some(json!({"name": name, "arguments": args})),
                CALL_TIMEOUT,
            )
            .await
            .map_err(|e| e.to_string());
        out.insert(name, r);
    }
    client.shutdown().await;
    Ok(out)
}
