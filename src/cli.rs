//! Command line: parse arguments, run one command, and decide the exit code in one place.
//!
//! Exit codes (book: reference/exit-codes.md): 0 success or clean (warnings included), 1 drift or findings (`check`,
//! `diff --exit-code`, `validate` with errors, `generate`/`refine` leaving a tool without a new
//! page), 2 usage, config, connection or internal error. Commands never pick a code: they return
//! an [`Outcome`] or an error, and [`main`] maps it.

use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::{Parser, Subcommand};

use crate::commands;
use crate::context::{Context, GlobalArgs, Outcome};

/// Drift or findings: the command worked and found something to fix.
const EXIT_FINDINGS: u8 = 1;
/// Usage, configuration, connection or internal error.
const EXIT_ERROR: u8 = 2;

/// The one place an [`Outcome`] becomes an exit code.
fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Success => ExitCode::SUCCESS,
        Outcome::Findings => ExitCode::from(EXIT_FINDINGS),
    }
}

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

/// The binary's entry point.
pub fn main() -> ExitCode {
    install_panic_hook();
    match try_main() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                // `mcp-gen-ui list | head` is not an error.
                return ExitCode::SUCCESS;
            }
            let sig = SIGNALLED.load(Ordering::SeqCst);
            if sig != 0 {
                // The command failed because a signal stopped its upstream: end as the signal
                // says, without blaming the upstream.
                return ExitCode::from(u8::try_from(128 + sig).unwrap_or(EXIT_ERROR));
            }
            eprintln!(
                "error: {}",
                crate::report::redact(&crate::report::error_chain(&err))
            );
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// A panic is a bug, whatever thread it happens on: one line asking for a report, then exit 2
/// (never Rust's 101, which is outside the 0/1/2 contract, and never a run that goes on with a
/// task silently gone). Child processes die with their process group's pipes.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "unknown location".into());
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("{}", panic_line(&location, &payload));
        crate::mcp::stop_all_children(std::time::Duration::from_millis(500));
        std::process::exit(i32::from(EXIT_ERROR));
    }));
}

/// The signal that is ending the process, 0 if none.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// The one line a panic prints: where, what (one line, redacted), and a request to report it.
fn panic_line(location: &str, payload: &str) -> String {
    let payload: String = payload
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(300)
        .collect();
    format!(
        "error: internal error in mcp-gen-ui {} at {location} ({}); this is a bug, please report \
         it with the command you ran",
        env!("CARGO_PKG_VERSION"),
        crate::report::redact(&payload)
    )
}

/// Ctrl-C, SIGTERM or SIGHUP during a command that does not handle signals itself: the upstream
/// runs in a process group of its own (so the terminal's Ctrl-C does not reach it) and would be
/// left running, e.g. while it hangs in `initialize`. The handler only writes the signal's number
/// to a pipe (async-signal-safe); a thread stops the children, then ends the process by the same
/// signal, as if no handler had been installed.
fn stop_children_on_signals() {
    static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);

    extern "C" fn on_signal(sig: libc::c_int) {
        let fd = PIPE_WRITE.load(Ordering::Relaxed);
        if fd >= 0 {
            let byte = u8::try_from(sig).unwrap_or(0);
            // SAFETY: write(2) is async-signal-safe; the buffer is a local byte.
            unsafe {
                libc::write(fd, (&raw const byte).cast(), 1);
            }
        }
    }

    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) fills the two descriptors of a local array.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return;
    }
    let [read_fd, write_fd] = fds;
    PIPE_WRITE.store(write_fd, Ordering::Relaxed);
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut byte = 0u8;
            loop {
                // SAFETY: read(2) into a local byte from our own pipe.
                let n = unsafe { libc::read(read_fd, (&raw mut byte).cast(), 1) };
                if n == 1 {
                    break;
                }
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            let sig = libc::c_int::from(byte);
            SIGNALLED.store(sig, Ordering::SeqCst);
            crate::mcp::stop_all_children(std::time::Duration::from_secs(1));
            // SAFETY: restores the default action and re-raises, so our parent sees the same
            // end as without a handler (e.g. 130 for Ctrl-C in a shell).
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::raise(sig);
            }
            std::process::exit(128 + sig);
        });
    if spawned.is_err() {
        return;
    }
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that only calls write(2); the sigaction struct is zeroed
        // and then filled in.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
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
    let ctx = Context::new(cli.global);
    let outcome = run(&ctx, &cli.command);
    ctx.shutdown();
    outcome.map(exit_code)
}

/// Runs one command.
fn run(ctx: &Context, command: &Command) -> anyhow::Result<Outcome> {
    // serve and preview shut down on signals themselves (and stop their upstream then).
    if !matches!(command, Command::Serve(_) | Command::Preview(_)) {
        stop_children_on_signals();
    }
    match command {
        Command::Init(args) => commands::init::run(ctx, args),
        Command::Generate(args) => commands::generate::run(ctx, args),
        Command::Refine(args) => commands::refine::run(ctx, args),
        Command::Diff(args) => commands::diff::run(ctx, args),
        Command::Check(args) => commands::check::run(ctx, args),
        Command::List(args) => commands::list::run(ctx, args),
        Command::Inspect(args) => commands::inspect::run(ctx, args),
        Command::Validate(args) => commands::validate::run(ctx, args),
        Command::Hook(args) => commands::hook::run(ctx, args),
        Command::Serve(args) => commands::serve::run(ctx, args),
        Command::Preview(args) => commands::preview::run(ctx, args),
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
    fn a_panic_is_one_redacted_line_asking_for_a_report() {
        crate::secrets::register_value("sk-panic-test-secret");
        let line = panic_line("src/x.rs:7", "bad\nthing sk-panic-test-secret");
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(
            line.contains("src/x.rs:7") && line.contains("report"),
            "{line}"
        );
        assert!(!line.contains("sk-panic-test-secret"), "{line}");
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
