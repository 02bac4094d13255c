//! The static wrapper: a transparent MCP proxy that adds the generated UIs to an upstream server.
//!
//! `router` rewrites the few messages the wrapper changes, `ui_resources` holds the verified UI
//! files in memory, `session` ties one host session to one upstream connection (restarting it
//! when it dies), and `host_stdio` / `host_http` are the two ways a host can reach us.

pub mod router;
pub mod ui_resources;
