//! How the pipeline tells its caller what it is doing while it runs (uv's reporter traits): the
//! commands implement [`Progress`] with spinners and bars on a terminal, the pipeline only calls
//! it. No terminal type reaches the pipeline or the stages below it.

/// What a long run reports as it goes. Progress events default to nothing; notes and warnings
/// must be handled (they are part of what the person is told).
pub trait Progress {
    /// The upstream (as `Config::upstream().describe()` names it) is being contacted.
    fn connecting(&self, _upstream: &str) {}
    /// The upstream answered, or gave up.
    fn connected(&self) {}
    /// `total` tools are about to be gone through.
    fn start(&self, _total: usize) {}
    /// One tool is being worked on now.
    fn tool_started(&self, _name: &str) {}
    /// Every tool has been gone through.
    fn finish(&self) {}
    /// A line of status (what is skipped and why): suppressed by `--quiet`.
    fn note(&self, line: &str);
    /// A warning: the run goes on, something the person should know.
    fn warn(&self, line: &str);
}

/// Reports nothing: for the inner batch of `diff` and `refine`, whose per-tool progress is not
/// worth a bar (they go through one tool, or render nothing with the llm generator), and which
/// emits no notes or warnings of its own.
pub struct Silent;

impl Progress for Silent {
    fn note(&self, _line: &str) {}
    fn warn(&self, _line: &str) {}
}
