//! Command line: parse, dispatch, decide the exit code.
//!
//! TEMPORARY on the `serve` branch: only `serve` is wired so its tests can run the binary. The
//! lead's CLI on main replaces this file; it needs a `Serve(commands::serve::ServeArgs)` arm.
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::config::{Config, Overrides, TransportName};

#[derive(Debug, Parser)]
#[command(name = "mcp-gen-ui")]
struct Cli {
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[arg(long, global = true)]
    server: Option<String>,
    #[arg(long, global = true)]
    url: Option<String>,
    #[arg(long, global = true)]
    transport: Option<TransportName>,
    #[arg(long, global = true)]
    out_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    Serve(crate::commands::serve::ServeArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let ov = Overrides {
        config: cli.config,
        server: cli.server,
        url: cli.url,
        transport: cli.transport,
        out_dir: cli.out_dir,
    };
    let result = Config::load(&ov)
        .map_err(anyhow::Error::from)
        .and_then(|cfg| match &cli.command {
            Command::Serve(args) => crate::commands::serve::run(&cfg, args),
        });
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
