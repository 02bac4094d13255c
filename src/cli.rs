//! Command line: parse arguments, run one command, and decide the exit code in one place.
//!
//! Exit codes (SPEC 12): 0 success or clean (warnings included), 1 drift or findings (`check`,
//! `diff --exit-code`, `validate` with errors), 2 usage, config, connection or internal error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::commands;
use crate::config::{Config, Overrides, TransportName};
use crate::report::Printer;

/// Drift or findings: the command worked and found something to fix.
pub const EXIT_FINDINGS: u8 = 1;
/// Usage, configuration, connection or internal error.
pub const EXIT_ERROR: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-gen-ui",
    version,
    about = "Compile UIs for MCP servers ahead of time",
    long_about = "mcp-gen-ui connects to an MCP server, generates a self-contained HTML MCP App for \
                  each of its tools into ui/ (with a lockfile of hashes, meant to be committed), and \
                  serves them through a static wrapper so hosts show real interfaces for plain tools.",
    after_help = "Exit codes: 0 success or clean, 1 drift or findings, 2 usage, config, connection \
                  or internal error.\nDocs: the book/ directory of the repository."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes, before or after the subcommand.
#[derive(Debug, Args, Clone, Default)]
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
    /// Print only results and warnings
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write mcp-gen-ui.toml (asks on a terminal), .gitattributes, and optionally the git hook
    Init(commands::init::InitArgs),
    /// Generate UIs for the upstream's tools into the output directory (incremental)
    Generate(commands::generate::GenerateArgs),
    /// Regenerate one tool with feedback ("line chart", "hide field id") and show the diff
    Refine(commands::refine::RefineArgs),
    /// Show upstream drift and the diff of what `generate` would write
    Diff(commands::diff::DiffArgs),
    /// Verify the output directory against its lock: the pre-commit / CI gate
    Check(commands::check::CheckArgs),
    /// Show the status of every tool
    List(commands::list::ListArgs),
    /// Show everything known about one tool
    Inspect(commands::inspect::InspectArgs),
    /// Run the validator on HTML files (generated or hand-written MCP Apps)
    Validate(commands::validate::ValidateArgs),
    /// Git hooks: `hook install` adds a pre-commit hook running `mcp-gen-ui check`
    Hook(commands::hook::HookArgs),
    /// Serve the upstream with the committed UIs: the static wrapper hosts launch (stdio or HTTP)
    Serve(commands::serve::ServeArgs),
    /// Try the generated UIs in a local browser host, calling the live upstream
    Preview(commands::preview::PreviewArgs),
}

/// What every command gets: the parsed global options, and the printer.
pub struct Context {
    pub global: GlobalArgs,
    pub printer: Printer,
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

    /// A runtime for the commands that talk to the network or child processes.
    pub fn runtime(&self) -> anyhow::Result<tokio::runtime::Runtime> {
        Ok(tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?)
    }
}

/// The binary's entry point.
pub fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                // `mcp-gen-ui list | head` is not an error.
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn try_main() -> anyhow::Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // Help and version are successes; everything else is a usage error.
            return Ok(match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ => ExitCode::from(EXIT_ERROR),
            });
        }
    };
    let ctx = Context {
        printer: Printer::new(cli.global.quiet),
        global: cli.global,
    };
    match &cli.command {
        Command::Init(args) => commands::init::run(&ctx, args),
        Command::Generate(args) => commands::generate::run(&ctx, args),
        Command::Refine(args) => commands::refine::run(&ctx, args),
        Command::Diff(args) => commands::diff::run(&ctx, args),
        Command::Check(args) => commands::check::run(&ctx, args),
        Command::List(args) => commands::list::run(&ctx, args),
        Command::Inspect(args) => commands::inspect::run(&ctx, args),
        Command::Validate(args) => commands::validate::run(&ctx, args),
        Command::Hook(args) => commands::hook::run(&ctx, args),
        Command::Serve(args) => {
            ctx.require_server_value()?;
            commands::serve::run(&ctx.config()?, args)
        }
        Command::Preview(args) => commands::preview::run(&ctx, args),
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_options_work_before_and_after_the_subcommand() {
        let a = Cli::try_parse_from(["mcp-gen-ui", "--out-dir", "x", "check"]).unwrap();
        let b = Cli::try_parse_from(["mcp-gen-ui", "check", "--out-dir", "x"]).unwrap();
        assert_eq!(a.global.out_dir, b.global.out_dir);
        let c = Cli::try_parse_from(["mcp-gen-ui", "check", "--server"]).unwrap();
        assert_eq!(c.global.server.as_deref(), Some(""));
        let d = Cli::try_parse_from(["mcp-gen-ui", "generate", "--server", "cmd a b"]).unwrap();
        assert_eq!(d.global.server.as_deref(), Some("cmd a b"));
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
