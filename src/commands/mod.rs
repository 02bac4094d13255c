//! One function per subcommand, each thin: the stages (discover, plan, generate, validate, write)
//! do the work. Helpers here are what several commands share.

pub mod check;
pub mod diff;
pub mod generate;
pub mod hook;
pub mod init;
pub mod inspect;
pub mod list;
pub mod preview;
pub mod refine;
pub mod validate;

use anyhow::Context as _;

use crate::cli::Context;
use crate::config::Config;
use crate::discover::Discovery;
use crate::lock::{Lock, read_snapshot};
use crate::plan::{Plan, PlanInputs};

/// Connects to the upstream and lists its tools, with a spinner on a terminal.
pub fn discover(ctx: &Context, cfg: &Config) -> anyhow::Result<Discovery> {
    let upstream = cfg.upstream()?;
    let rt = ctx.runtime()?;
    let pb = ctx
        .printer
        .spinner(format!("Listing tools of {}", upstream.describe()));
    let result = rt.block_on(crate::discover::discover(upstream, cfg.connect_timeout));
    pb.finish_and_clear();
    // Child processes must not outlive the command.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    result.with_context(|| format!("cannot list the tools of {}", upstream.describe()))
}

/// The committed state of the output directory.
pub struct State {
    pub lock: Option<Lock>,
    pub pending: Option<Lock>,
    pub snapshot: Option<Vec<crate::model::Tool>>,
}

pub fn read_state(cfg: &Config) -> anyhow::Result<State> {
    Ok(State {
        lock: Lock::read(&cfg.out_dir)?,
        pending: crate::write::read_pending(&cfg.out_dir),
        snapshot: read_snapshot(&cfg.out_dir)?,
    })
}

/// Plans against the committed state; `upstream` is `Some` when online.
pub fn make_plan(
    cfg: &Config,
    state: &State,
    upstream: Option<&[crate::model::Tool]>,
    fingerprint: &str,
) -> anyhow::Result<Plan> {
    crate::plan::plan(&PlanInputs {
        cfg,
        lock: state.lock.as_ref(),
        pending: state.pending.as_ref(),
        upstream,
        snapshot: state.snapshot.as_deref(),
        fingerprint,
    })
    .map_err(|e| anyhow::anyhow!("{}: {e}", cfg.display_path()))
}

/// Whether an offline command should contact the upstream (`--online`, `--server`, `--url`).
pub fn wants_online(ctx: &Context, cfg: &Config, online_flag: bool) -> bool {
    online_flag || ctx.bare_server() || cfg.upstream_from_cli
}
