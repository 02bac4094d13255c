//! The test kit every Rust test file in `tests/` shares (`mod support;`). Reach for it before
//! writing a helper of your own; add to it what a second file would copy.
//!
//! - `context`: `bin()`/`cmd()`/`tokio_bin()`, the binary with every variable it reads cleared
//!   (`READ_VARS`); `exits_saying(dir, args, code, says)`, a run's exit code and stderr checked in
//!   one call; `run_in`, `git`; `Project` (a temp folder whose upstream serves the tools a test
//!   writes: `new`, `generated`, `cmd`, `run`, `ok`, `exits_saying`, `json`, `read`, `lock`);
//!   `server`/`fixture`/`fixture_file` (command lines and files of the fixtures), `toml_str`,
//!   `text`, `assert_holds(text, needles)`.
//! - `examples`: `example(name)`, an example server's binary, built once.
//! - `cli`: the `cli_*` files' tools, `check --format json` (`check_json`, `kinds`,
//!   `assert_drift`), `fixture_server_config`, runs with secrets in the environment
//!   (`run_with_secrets`, `assert_no_secret`), `OutputExits`.
//! - `serve`: `serve --http` started and awaited (`serve_http`, `listening`: the URL and the
//!   log), `init(id)` and `rpc_post` (one JSON-RPC POST, in a session or not).
//! - `host`: rmcp clients with and without the UI extension, a `ui/` for weather-server, raw
//!   stdio/HTTP access, server-everything, the processes a test looks for.
//! - `process` (whether a pid is gone), `provider` (the fake OpenAI-compatible provider),
//!   `python` (the Python SDK when installed); `registry.rs` (the registry suite's servers) is
//!   included by `registry_servers.rs` alone.
//!
//! The Node tests' kit is `tests/node/serve-helpers.mjs` (`startServeHttp`, `startListening`,
//! `freePort`, `waitForPort`); the browser tests' is `tests/browser/lib.mjs`.
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
    BIN, Project, assert_holds, bin, cleared, cmd, exits_saying, fixture, fixture_file, lock_toml,
    server, text, tokio_bin, toml_str,
};
pub use examples::example;
