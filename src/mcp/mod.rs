//! Raw JSON-RPC plumbing to an MCP peer, shared by discovery and `serve`.
//!
//! Messages are `serde_json::Value`s, never rmcp's typed model: it drops unknown fields, and both
//! the `tool_hash` (computed from the raw JSON the upstream sent) and the transparent proxy need
//! every byte of meaning the upstream sent. The one exception is `serve`'s raw path ([`peek`]):
//! a plain `tools/call` and its answer stay the bytes they were, with only the id rewritten.
//!
//! # Layers
//!
//! * [`Connection`] — a raw, bidirectional message pipe to one upstream (stdio child process,
//!   streamable HTTP, or legacy HTTP+SSE). It knows nothing about JSON-RPC semantics: every
//!   message the upstream sends (responses, notifications, server→client requests) arrives as an
//!   [`Incoming::Message`], unchanged; everything you [`MessageSender::send`] goes out unchanged.
//!   A stdio connection opened with [`ConnectOptions::raw_responses`] hands plain responses over
//!   unparsed ([`Incoming::Response`]) for `serve` to forward as bytes.
//! * [`Client`] — a small request/response client on top (id correlation, timeouts), used by
//!   `discover`. `serve` uses [`Connection`] directly.
//!
//! # Using a `Connection` (the proxy's view)
//!
//! ```no_run
//! # async fn demo(spec: mcp_gen_ui::mcp::UpstreamSpec) -> anyhow::Result<()> {
//! use mcp_gen_ui::mcp::{ConnectOptions, Connection, Incoming};
//! let conn = Connection::open(&spec, &ConnectOptions { forward_stderr: true, ..Default::default() }).await?;
//! let (sender, mut receiver, mut closer) = conn.into_parts();
//! // `sender` is cheap to clone; `send` returns once the message is handed to the upstream
//! // (written to the child's stdin, or the HTTP POST was accepted). For HTTP a non-2xx status is
//! // returned here as `SendError::Http` — a proxy should turn that into a JSON-RPC error for the
//! // request it was carrying.
//! sender.send(&serde_json::json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await?;
//! while let Some(incoming) = receiver.recv().await {
//!     match incoming {
//!         Incoming::Message(v) => { /* forward verbatim */ let _ = v; }
//!         // Only with `raw_responses`.
//!         Incoming::Response(r) => { let _ = r.bytes; }
//!         Incoming::Invalid(bad) => eprintln!("upstream sent junk: {bad}"),
//!         // Always the last item; `recv` returns `None` afterwards.
//!         Incoming::Closed(reason) => eprintln!("upstream gone: {reason}"),
//!     }
//! }
//! closer.shutdown().await; // idempotent; dropping the closer also shuts down
//! # Ok(()) }
//! ```
//!
//! Guarantees:
//! * Messages from one upstream arrive in the order the upstream produced them (per stream; for
//!   HTTP, messages on different POST responses/GET streams may interleave).
//! * Exactly one [`Incoming::Closed`] ends the receiver, with a [`CloseReason`] (exit status and
//!   the last stderr lines for stdio, the stream error for HTTP). For streamable HTTP, which has
//!   no long-lived connection, `Closed` only comes after [`Closer::shutdown`].
//! * A stdio child runs in its own process group; shutdown closes its stdin, waits
//!   [`ConnectOptions::shutdown_grace`], then SIGTERMs and finally SIGKILLs the whole group, so
//!   `cargo run --example …` grandchildren never outlive us. Dropping the [`Closer`] does the same.
//! * A stdio child's stdout is read in the task that polls the receiver, when it polls (no
//!   reader task and channel in between: serve forwards every answer this way). A receiver
//!   nobody polls reads nothing, and the child waits once its stdout pipe is full.
//! * A message larger than [`ConnectOptions::max_message_bytes`] is skipped and reported as
//!   [`Incoming::Invalid`] (never buffered whole); a non-JSON stdout line is reported the same way
//!   and is not fatal.
//! * `send` over streamable HTTP lasts until the server *starts* answering the POST: for a
//!   server in JSON-response mode that is when the result is ready. Send requests from their
//!   own task if one slow call must not hold up others (stdio sends return at once).
//! * Streamable HTTP: `Mcp-Session-Id` is kept from the response that carries it,
//!   `MCP-Protocol-Version` is sent once an `initialize` result was seen, the optional GET stream
//!   for server-initiated messages is opened after `notifications/initialized` is sent, and that
//!   send returns only once the server answered the GET (405 is fine), so no request can make
//!   the server send a server→client request before the stream that carries it is open. The
//!   session is DELETEd on shutdown. A stateless (2026-07-28) message, one naming a modern
//!   protocol version in its `_meta`, carries the headers that revision requires instead
//!   (`MCP-Protocol-Version` from its `_meta`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
//!   Configured headers go on every request and are never logged.

mod client;
mod connection;
pub mod era;
mod framing;
mod guardian;
mod http;
mod legacy_sse;
pub mod negotiate;
pub mod peek;
pub mod spec;
pub mod sse;
mod stdio;
mod transport;

pub use client::{Client, ClientError};
pub use connection::{Closer, Connection, MessageReceiver, MessageSender};
pub use spec::{HttpSpec, HttpTransport, StdioSpec, UpstreamSpec};
pub use stdio::stop_all_children;
pub(crate) use transport::excerpt;
pub use transport::{
    CloseKind, CloseReason, ConnectError, ConnectOptions, Incoming, InvalidMessage, SendError,
    StderrTail,
};
