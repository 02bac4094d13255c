//! What the pipeline asks of the upstream: its tools (`discover`), and real results of read-only
//! tools for the llm generator (`--sample`).

use std::collections::BTreeMap;

use anyhow::Context as _;
use serde_json::Value;

use super::progress::Progress;
use crate::config::Config;
use crate::discover::Discovery;
use crate::model::Tool;
use crate::report;

/// Connects to the upstream and lists its tools, telling `progress` while it waits.
pub fn discover(
    cfg: &Config,
    progress: &dyn Progress,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<Discovery> {
    let upstream = cfg.upstream()?;
    progress.connecting(&upstream.describe());
    let result = rt.block_on(crate::discover::discover_with(
        upstream,
        cfg.connect_timeout,
        cfg.protocol,
    ));
    progress.connected();
    result.with_context(|| format!("cannot list the tools of {}", upstream.describe()))
}

/// `--sample`: calls the read-only (or allow-listed) tools among `names` with their example input
/// and returns their results for the llm generator. Tools that may not be called are skipped
/// with a note; failures are warnings (a sample is a nicety, never a reason to stop).
pub fn samples(
    cfg: &Config,
    tools: &[Tool],
    names: &[&str],
    progress: &dyn Progress,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<BTreeMap<String, Value>> {
    let mut calls = Vec::new();
    for t in tools.iter().filter(|t| names.contains(&t.name.as_str())) {
        let tc = cfg.tool(&t.name);
        let allow = tc.sample == Some(true);
        match crate::generate::llm::sample_input(t, &tc, allow) {
            Some(input) => calls.push((t.name.clone(), input)),
            None => progress.note(&format!(
                "not sampling `{}`: it is not marked readOnlyHint (allow it with [tools.\"NAME\"] sample = true) or needs an example input",
                report::display_name(&t.name)
            )),
        }
    }
    if calls.is_empty() {
        return Ok(BTreeMap::new());
    }
    let upstream = cfg.upstream()?;
    let results = rt.block_on(crate::sample::call_tools(
        upstream,
        cfg.connect_timeout,
        cfg.protocol,
        calls,
    ));
    let mut out = BTreeMap::new();
    match results {
        Ok(map) => {
            for (name, r) in map {
                match r {
                    Ok(v) => {
                        out.insert(name, v);
                    }
                    Err(e) => progress.warn(&format!(
                        "sampling `{}` failed, generating without a sample: {e}",
                        report::display_name(&name)
                    )),
                }
            }
        }
        Err(e) => progress.warn(&format!("--sample: {e}; generating without samples")),
    }
    Ok(out)
}
