//! `--sample`: real results of read-only tools, shown to the llm generator so it designs for the
//! data the tool really returns. Only tools marked `readOnlyHint` (and not destructive), or
//! allow-listed with `[tools.NAME] sample = true`, are ever called, and only when asked.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::{ConnectOptions, UpstreamSpec};

/// How long one sample call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Calls each `(tool, arguments)` once over one fresh upstream session. Failures are returned per
/// tool (a sample is a nicety: the caller warns and generates without it).
pub async fn call_tools(
    spec: &UpstreamSpec,
    connect_timeout: Duration,
    protocol: crate::mcp::negotiate::Protocol,
    calls: Vec<(String, Value)>,
) -> Result<BTreeMap<String, Result<Value, String>>, String> {
    let opts = ConnectOptions {
        connect_timeout,
        shutdown_grace: Duration::from_secs(1),
        protocol,
        ..ConnectOptions::default()
    };
    let opened = tokio::time::timeout(
        connect_timeout,
        crate::mcp::negotiate::open(spec, &opts, "mcp-gen-ui", &Default::default()),
    )
    .await
    .map_err(|_| format!("timed out connecting to {}", spec.describe()))?;
    let client = match opened {
        Ok((client, _)) => client,
        Err(e) => return Err(crate::discover::open_failure(spec, e).await),
    };
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
