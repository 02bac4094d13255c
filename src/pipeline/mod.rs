//! The pipeline: what ties the stages together for the commands. Each command that computes
//! something calls one function here — [`generate::generate`], [`refine::refine`],
//! [`diff::diff`], [`check::check`], [`look`] — which runs the whole sequence (discover → plan,
//! once → generate → validate → write) and returns what happened, without printing anything:
//! progress, notes and warnings go through the [`Progress`] trait the command implements.
//! Commands sit above it and only present its results; the stages (discover, plan, generate,
//! validate, write, lock) sit below it and know nothing of each other's callers.
//!
//! Files here import each other by file (`super::progress::Progress`), never through this
//! module's re-exports, which are for the commands: `mod.rs` importing a sibling that imports
//! `mod.rs` would be a circle.

pub mod batch;
pub mod check;
pub mod diff;
pub mod generate;
mod generator;
pub mod progress;
pub mod refine;
mod status;
pub mod unknown;
pub mod upstream;

pub use generator::{load_generator, offline_generator};
pub use progress::{Progress, Silent};
pub use status::{ToolRow, tool_row};
pub use unknown::UnknownTool;

use crate::config::Config;
use crate::lock::{Lock, read_snapshot};
use crate::model::Tool;
use crate::plan::{Plan, PlanInputs};
use crate::validate;

/// The committed state of the output directory.
pub struct State {
    pub lock: Option<Lock>,
    /// The lock an interrupted run was about to write.
    pub pending: Option<Lock>,
    /// The tool definitions the committed files were generated from.
    pub snapshot: Option<Vec<Tool>>,
}

impl State {
    /// Reads the lock, the pending lock of an interrupted run, and the tool snapshot.
    pub fn read(cfg: &Config) -> anyhow::Result<State> {
        Ok(State {
            lock: Lock::read(&cfg.out_dir)?,
            pending: crate::write::read_pending(&cfg.out_dir),
            snapshot: read_snapshot(&cfg.out_dir)?,
        })
    }

    /// Plans against this state; `upstream` is `Some` when online.
    pub fn plan(
        &self,
        cfg: &Config,
        upstream: Option<&[Tool]>,
        fingerprint: &str,
    ) -> anyhow::Result<Plan> {
        crate::plan::plan(&PlanInputs {
            cfg,
            lock: self.lock.as_ref(),
            pending: self.pending.as_ref(),
            upstream,
            snapshot: self.snapshot.as_deref(),
            fingerprint,
        })
        .map_err(|e| anyhow::anyhow!("{}: {e}", cfg.display_path()))
    }
}

/// The committed state and its plan, for the commands that only look (`list`, `inspect`):
/// planned with the configured generator's fingerprint, against the upstream's tools when
/// `online` (the runtime is only built then).
pub fn look<'r>(
    cfg: &Config,
    online: bool,
    progress: &dyn Progress,
    runtime: impl FnOnce() -> anyhow::Result<&'r tokio::runtime::Runtime>,
) -> anyhow::Result<(State, Plan)> {
    let upstream = if online {
        Some(upstream::discover(cfg, progress, runtime()?)?.tools)
    } else {
        None
    };
    let state = State::read(cfg)?;
    let generator = offline_generator(cfg)?;
    let plan = state.plan(cfg, upstream.as_deref(), &generator.fingerprint())?;
    Ok((state, plan))
}

/// The validator's options for a tool: the origins its CSP config declares.
pub fn validate_options(cfg: &Config, tool: &str, llm_output: bool) -> validate::Options {
    validate::Options {
        allowed_origins: cfg.tool(tool).csp.fetch_origins(),
        llm_output,
    }
}
