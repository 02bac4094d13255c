//! mcp-gen-ui: an ahead-of-time UI compiler for MCP servers.
//!
//! The modules follow the pipeline: `discover` the upstream's tools (over `mcp`), `plan` what is
//! stale against the `lock`, `generate` HTML, `validate` it, `write` it atomically, and `serve`
//! the result through a static wrapper. `pipeline` ties those stages together for the commands;
//! `commands` holds one thin function per subcommand that presents what the pipeline computed;
//! `cli` parses arguments and turns a command's outcome into the exit code. Dependencies point
//! down only: cli → commands → pipeline → stages → model, config, mcp (book: architecture.md).

pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod discover;
pub mod generate;
pub mod json;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod pipeline;
pub mod plan;
pub mod preview;
pub mod report;
pub mod review;
pub mod sample;
pub mod secrets;
pub mod serve;
pub mod validate;
pub mod write;

#[cfg(test)]
mod proptests;
