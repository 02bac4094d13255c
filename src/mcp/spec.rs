//! Where the upstream is and how to reach it, as configured: the data `Connection::open` takes.
//! A leaf (it imports only `secrets`, which imports nothing of `mcp`), so the transports can name
//! these types without going through `mcp`'s module root.

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
    /// Variables set for the child (`${VAR}` references already expanded). Never log the values.
    pub env: BTreeMap<String, String>,
    /// More variables the child inherits from ours beyond the default allow-list
    /// (`crate::secrets::INHERITED_VARS`): exact names or `PREFIX*`.
    pub inherit: Vec<String>,
    /// Working directory of the child; `None` inherits ours.
    pub cwd: Option<PathBuf>,
}

impl StdioSpec {
    /// What the child is given of our environment, for `secrets` to name what it is not.
    pub fn child_env(&self) -> crate::secrets::ChildEnv<'_> {
        crate::secrets::ChildEnv {
            inherit: &self.inherit,
            set: &self.env,
        }
    }
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
