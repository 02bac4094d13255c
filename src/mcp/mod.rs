//! Raw JSON-RPC plumbing to an MCP peer, shared by discovery and `serve`.
//!
//! Messages stay `serde_json::Value` end to end: rmcp's typed model drops unknown fields, and both
//! the `tool_hash` (computed from the raw JSON the upstream sent) and the transparent proxy need
//! every byte of meaning the upstream sent.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// How to reach the upstream MCP server.
#[derive(Debug, Clone, PartialEq)]
pub enum UpstreamSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

/// A server started as a child process speaking newline-delimited JSON-RPC on stdio.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StdioSpec {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Working directory of the child; `None` inherits ours.
    pub cwd: Option<PathBuf>,
}

/// Which HTTP flavour of MCP the upstream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpTransport {
    #[default]
    StreamableHttp,
    /// The legacy HTTP+SSE transport (GET an event stream, POST to the announced endpoint).
    Sse,
}

/// A server reached over HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSpec {
    pub url: String,
    pub transport: HttpTransport,
    /// Extra request headers, with `${VAR}` references already expanded. Never log the values.
    pub headers: BTreeMap<String, String>,
}

impl UpstreamSpec {
    /// A short human description for messages (never includes header values or env values).
    pub fn describe(&self) -> String {
        match self {
            UpstreamSpec::Stdio(s) => {
                let mut words = vec![s.command.clone()];
                words.extend(s.args.iter().cloned());
                format!("`{}`", shell_words::join(words))
            }
            UpstreamSpec::Http(h) => {
                let kind = match h.transport {
                    HttpTransport::StreamableHttp => "streamable HTTP",
                    HttpTransport::Sse => "SSE",
                };
                format!("{} ({kind})", h.url)
            }
        }
    }
}
