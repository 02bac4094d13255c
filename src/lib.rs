//! mcp-gen-ui: an ahead-of-time UI compiler for MCP servers.
//!
//! The modules follow the pipeline: `discover` the upstream's tools (over `mcp`), `plan` what is
//! stale against the `lock`, `generate` HTML, `validate` it, `write` it atomically, and `serve`
//! the result through a static wrapper. `pipeline` runs those stages for the commands;
//! `commands` holds one thin function per subcommand that hands what the pipeline computed to the
//! printer (`report`); `cli` parses arguments and turns a command's `context::Outcome` into the
//! exit code. Dependencies point down only: cli → commands → pipeline → stages → base (context,
//! model, config, mcp, report, …) (book: architecture.md; `tests/house.rs` checks it).

pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod css;
pub mod discover;
pub mod generate;
pub mod json;
pub mod lock;
pub mod mcp;
pub mod model;
pub mod origins;
pub mod pipeline;
pub mod plan;
pub mod preview;
pub mod report;
pub mod review;
pub mod sample;
pub mod secrets;
pub mod serve;
pub mod token;
pub mod validate;
pub mod write;

#[cfg(test)]
mod proptests;
