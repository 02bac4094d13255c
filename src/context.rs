//! What every command gets and returns: the [`Context`] (global options, printer, the one async
//! runtime) and the [`Outcome`] that `cli` alone turns into an exit code. It lives in the base
//! layer, below the commands, so that they import it without importing `cli` (which imports
//! them), as uv keeps its exit status and printer in leaves.

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::Args;

use crate::config::{Config, Overrides, TransportName};
use crate::mcp::negotiate::Protocol;
use crate::report::Printer;

/// How a command ended, when it did not fail outright (an error is exit 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Done, or clean: exit 0 (warnings included).
    Success,
    /// The command worked and found something to fix: drift, invalid files, a tool left without
    /// a new page. Exit 1.
    Findings,
}

impl Outcome {
    /// `Findings` when `found`, else `Success`.
    pub fn findings_if(found: bool) -> Outcome {
        if found {
            Outcome::Findings
        } else {
            Outcome::Success
        }
    }
}

/// The kind of async runtime a command needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeFlavor {
    /// Two worker threads: connections, child processes, concurrent LLM requests, HTTP serving.
    MultiThread,
    /// One thread: `serve` over stdio is a single stream of messages, and one thread avoids a
    /// cross-thread wake-up on every hop (the latency target in the book, performance.md).
    CurrentThread,
}

/// What every command gets: the parsed global options, the printer, and the process's one async
/// runtime (built on first use, shut down when the command returns).
pub struct Context {
    pub global: GlobalArgs,
    pub printer: Printer,
    runtime: OnceLock<tokio::runtime::Runtime>,
}

impl Context {
    /// Loads the configuration with the command line's overrides.
    pub fn config(&self) -> anyhow::Result<Config> {
        let server = match self.global.server.as_deref() {
            Some("") => None,
            other => other.map(str::to_string),
        };
        let ov = Overrides {
            config: self.global.config.clone(),
            server,
            url: self.global.url.clone(),
            transport: self.global.transport,
            out_dir: self.global.out_dir.clone(),
            env: self.global.env.clone(),
            protocol: self.global.protocol,
        };
        Ok(Config::load(&ov)?)
    }

    /// True when a bare `--server` (no value) was given.
    pub fn bare_server(&self) -> bool {
        self.global.server.as_deref() == Some("")
    }

    /// Refuses a bare `--server` for commands that need its value.
    pub fn require_server_value(&self) -> anyhow::Result<()> {
        if self.bare_server() {
            anyhow::bail!(
                "--server needs the server's command line here, e.g. --server \"target/debug/weather-server\""
            );
        }
        Ok(())
    }

    pub fn new(global: GlobalArgs) -> Context {
        Context {
            printer: Printer::new(global.quiet),
            global,
            runtime: OnceLock::new(),
        }
    }

    /// The runtime for commands that talk to the network or child processes.
    pub fn runtime(&self) -> anyhow::Result<&tokio::runtime::Runtime> {
        self.runtime_of(RuntimeFlavor::MultiThread)
    }

    /// The process's one runtime, built with `flavor` on first use (the only place a runtime is
    /// built).
    pub fn runtime_of(&self, flavor: RuntimeFlavor) -> anyhow::Result<&tokio::runtime::Runtime> {
        if let Some(rt) = self.runtime.get() {
            return Ok(rt);
        }
        let mut builder = match flavor {
            RuntimeFlavor::MultiThread => {
                let mut b = tokio::runtime::Builder::new_multi_thread();
                b.worker_threads(2);
                // Room for values nested `json::MAX_DEPTH` deep, whose drop, clone and
                // serialisation recurse (a stack overflow aborts without any message).
                b.thread_stack_size(16 * 1024 * 1024);
                b
            }
            RuntimeFlavor::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        let rt = builder
            .enable_all()
            .build()
            .map_err(|e| anyhow::anyhow!("cannot start the async runtime: {e}"))?;
        let _ = self.runtime.set(rt);
        self.runtime
            .get()
            .ok_or_else(|| anyhow::anyhow!("the async runtime could not be kept"))
    }

    /// Ends the runtime: child processes must not outlive the command, and a blocked stdin read
    /// must not keep the process alive once the host is gone.
    pub fn shutdown(self) {
        if let Some(rt) = self.runtime.into_inner() {
            rt.shutdown_timeout(std::time::Duration::from_secs(1));
        }
    }
}

/// Options every command takes, before or after the subcommand (listed under their own heading).
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Configuration file [default: ./mcp-gen-ui.toml when present]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Upstream stdio server command line, split as shell words; replaces [upstream]. For `check`
    /// and `list`, a bare --server means --online.
    #[arg(
        long,
        global = true,
        value_name = "CMD ARGS",
        num_args = 0..=1,
        default_missing_value = ""
    )]
    pub server: Option<String>,
    /// Upstream HTTP server URL; replaces [upstream]
    #[arg(long, global = true, value_name = "URL", conflicts_with = "server")]
    pub url: Option<String>,
    /// Transport for --url / [upstream] url
    #[arg(long, global = true, value_enum, value_name = "KIND")]
    pub transport: Option<TransportName>,
    /// Output directory [default: ui, next to the config file]
    #[arg(long, global = true, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// A variable for a stdio upstream (repeatable): NAME or 'PREFIX*' passes it from this
    /// environment (like [upstream] env_inherit), NAME=VALUE sets it (the value is redacted from
    /// all output). mcp-gen-ui's own secrets are refused: name them in [upstream] env
    #[arg(long, global = true, value_name = "NAME[=VALUE]", action = clap::ArgAction::Append)]
    pub env: Vec<String>,
    /// Protocol era of mcp-gen-ui's own client: auto (the newest both sides speak), handshake
    /// (2025, initialize) or stateless (2026-07-28) [default: auto, or [upstream] protocol].
    /// serve passes each host's era through unchanged
    #[arg(long, global = true, value_enum, value_name = "ERA")]
    pub protocol: Option<Protocol>,
    /// Print only results and warnings
    #[arg(short, long, global = true)]
    pub quiet: bool,
}
