//! One function per subcommand, each thin: the pipeline (and below it the stages) computes, the
//! command presents the result and returns an [`Outcome`](context::Outcome); `cli` alone
//! turns that into the exit code. Helpers here are what several commands share: contacting the
//! upstream with a spinner, and `--sample`.

pub mod check;
pub mod context;
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

use crate::config::Config;
use crate::discover::Discovery;
use context::Context;

/// Connects to the upstream and lists its tools, with a spinner on a terminal.
pub fn discover(ctx: &Context, cfg: &Config) -> anyhow::Result<Discovery> {
    let upstream = cfg.upstream()?;
    let rt = ctx.runtime()?;
    let pb = ctx
        .printer
        .spinner(format!("Listing tools of {}", upstream.describe()));
    let result = rt.block_on(crate::discover::discover_with(
        upstream,
        cfg.connect_timeout,
        cfg.protocol,
    ));
    pb.finish_and_clear();
    result.with_context(|| format!("cannot list the tools of {}", upstream.describe()))
}

/// Whether an offline command should contact the upstream (`--online`, `--server`, `--url`).
pub fn wants_online(ctx: &Context, cfg: &Config, online_flag: bool) -> bool {
    online_flag || ctx.bare_server() || cfg.upstream_from_cli
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
        cfg.protocol,
        calls,
    ));
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
