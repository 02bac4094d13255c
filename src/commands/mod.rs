//! One function per subcommand, each thin: it resolves its arguments, calls one pipeline function
//! (which computes), and hands the result — the command's output record — to the printer, which
//! renders it in the format asked for. It returns an [`Outcome`](crate::context::Outcome); `cli`
//! alone turns that into the exit code. What several commands share lives here: the terminal
//! [`Reporter`] of the pipeline's progress, and whether an offline command goes online.

pub mod check;
pub mod diff;
mod first_run;
pub mod generate;
pub mod hook;
pub mod init;
pub mod inspect;
pub mod list;
pub mod preview;
pub mod refine;
pub mod serve;
pub mod validate;

use std::cell::RefCell;
use std::time::Duration;

use crate::config::Config;
use crate::context::Context;
use crate::pipeline::Progress;
use crate::report::Printer;

/// A spinner on a terminal; nothing otherwise (with `--quiet` too). Finish it with
/// `finish_and_clear`. Terminal widgets live here, at the commands: nothing below them draws.
pub fn spinner(p: &Printer, message: impl Into<String>) -> indicatif::ProgressBar {
    if p.quiet || !p.stderr_tty {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(100));
    pb
}

/// A progress bar over `len` items on a terminal; nothing otherwise.
pub fn progress_bar(p: &Printer, len: u64, message: impl Into<String>) -> indicatif::ProgressBar {
    if p.quiet || !p.stderr_tty {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(message.into());
    pb
}

/// Whether an offline command should contact the upstream (`--online`, `--server`, `--url`).
pub fn wants_online(ctx: &Context, cfg: &Config, online_flag: bool) -> bool {
    online_flag || ctx.bare_server() || cfg.upstream_from_cli
}

/// The pipeline's progress on a terminal: a spinner while the upstream is contacted, a bar over
/// the tools while they are generated (both hidden when stderr is not a terminal or with
/// `--quiet`); notes and warnings go to the printer.
pub struct Reporter<'a> {
    printer: &'a Printer,
    spinner: RefCell<Option<indicatif::ProgressBar>>,
    bar: RefCell<Option<indicatif::ProgressBar>>,
}

impl<'a> Reporter<'a> {
    pub fn new(printer: &'a Printer) -> Reporter<'a> {
        Reporter {
            printer,
            spinner: RefCell::new(None),
            bar: RefCell::new(None),
        }
    }
}

impl Progress for Reporter<'_> {
    fn connecting(&self, upstream: &str) {
        let pb = spinner(self.printer, format!("Listing tools of {upstream}"));
        if let Some(old) = self.spinner.replace(Some(pb)) {
            old.finish_and_clear();
        }
    }

    fn connected(&self) {
        if let Some(pb) = self.spinner.take() {
            pb.finish_and_clear();
        }
    }

    fn start(&self, total: usize) {
        let pb = progress_bar(self.printer, total as u64, "Generating");
        if let Some(old) = self.bar.replace(Some(pb)) {
            old.finish_and_clear();
        }
    }

    fn tool_started(&self, _name: &str) {
        if let Some(pb) = self.bar.borrow().as_ref() {
            pb.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(pb) = self.bar.take() {
            pb.finish_and_clear();
        }
    }

    fn note(&self, line: &str) {
        self.printer.status(line);
    }

    fn warn(&self, line: &str) {
        self.printer.warn(line);
    }
}

impl Drop for Reporter<'_> {
    /// A run that failed half-way leaves no spinner or bar behind on the terminal.
    fn drop(&mut self) {
        self.connected();
        self.finish();
    }
}
