//! The test kit every Rust test file in `tests/` shares (`mod support;`): the binary with every
//! variable it reads cleared, a project in a temp folder, the example servers, `serve --http`
//! started and awaited, and the Python SDK when it is installed. Each test file uses part of it.
#![allow(dead_code, unused_imports)]

pub mod cli;
pub mod context;
pub mod examples;
pub mod host;
pub mod process;
pub mod provider;
pub mod python;
pub mod serve;

pub use context::{
    BIN, Project, bin, cleared, cmd, fixture, lock_toml, server, text, tokio_bin, toml_str,
};
pub use examples::example;
