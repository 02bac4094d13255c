//! mcp-gen-ui: an ahead-of-time UI compiler for MCP servers.
//!
//! The modules follow the pipeline: `discover` the upstream's tools (over `mcp`), `plan` what is
//! stale against the `lock`, `generate` HTML, `validate` it, `write` it atomically, and `serve`
//! the result through a static wrapper. `commands` holds one thin function per subcommand.

pub mod cli;
pub mod commands;
pub mod config;
pub mod discover;
pub mod generate;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod plan;
pub mod preview;
pub mod report;
pub mod serve;
pub mod validate;
pub mod write;
