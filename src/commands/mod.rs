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
pub mod serve;
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

/// The configured generator for offline commands, which only need its fingerprint. The llm
/// generator's fingerprint needs no API key, so `check` works in CI without one.
pub fn offline_generator(cfg: &Config) -> anyhow::Result<crate::generate::Generator> {
    let templates = match cfg.templates_dir() {
        Some(dir) => crate::generate::builtin::Templates::from_dir(&dir)?,
        None => crate::generate::builtin::Templates::embedded(),
    };
    let llm = match cfg.file.generator {
        crate::config::GeneratorKind::Builtin => None,
        crate::config::GeneratorKind::Llm => {
            Some(crate::generate::llm::LlmGenerator::from_config_with_env(
                &cfg.file.llm,
                cfg.prompts_dir().as_deref(),
                // A placeholder key: only the fingerprint is used, and it never includes the key.
                &|_| Some("offline".to_string()),
            )?)
        }
    };
    Ok(crate::generate::Generator {
        kind: cfg.file.generator,
        templates,
        llm,
    })
}

/// `--sample`: calls the read-only (or allow-listed) tools among `names` with their example input
/// and returns their results for the llm generator. Tools that may not be called are skipped;
/// failures are warnings.
pub fn collect_samples(
    ctx: &Context,
    cfg: &Config,
    tools: &[crate::model::Tool],
    names: &[&str],
) -> anyhow::Result<std::collections::BTreeMap<String, serde_json::Value>> {
    let mut calls = Vec::new();
    for t in tools.iter().filter(|t| names.contains(&t.name.as_str())) {
        let tc = cfg.tool(&t.name);
        let allow = tc.sample == Some(true);
        match crate::generate::llm::sample_input(t, &tc, allow) {
            Some(input) => calls.push((t.name.clone(), input)),
            None => ctx.printer.status(format!(
                "not sampling `{}`: it is not marked readOnlyHint (allow it with [tools.\"NAME\"] sample = true) or needs an example input",
                crate::report::display_name(&t.name)
            )),
        }
    }
    if calls.is_empty() {
        return Ok(Default::default());
    }
    let upstream = cfg.upstream()?;
    let rt = ctx.runtime()?;
    let results = rt.block_on(crate::sample::call_tools(
        upstream,
        cfg.connect_timeout,
        calls,
    ));
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    let mut out = std::collections::BTreeMap::new();
    match results {
        Ok(map) => {
            for (name, r) in map {
                match r {
                    Ok(v) => {
                        out.insert(name, v);
                    }
                    Err(e) => ctx.printer.warn(format!(
                        "sampling `{}` failed, generating without a sample: {e}",
                        crate::report::display_name(&name)
                    )),
                }
            }
        }
        Err(e) => ctx
            .printer
            .warn(format!("--sample: {e}; generating without samples")),
    }
    Ok(out)
}
