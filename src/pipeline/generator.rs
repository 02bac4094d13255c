//! Which generator a command runs: the configured one (or `--generator`), with its templates,
//! prompts and provider loaded.

use std::path::Path;

use crate::config::{Config, GeneratorKind};
use crate::generate::Generator;
use crate::generate::builtin::Templates;
use crate::generate::llm::LlmGenerator;

/// The generator a command that generates should use (`kind` over the config; `jobs` over
/// `[llm] jobs`; `browser`, `--browser`, over the usual lookup of the browser that runs llm
/// pages). The llm generator reads its API key from the environment here.
pub fn load_generator(
    cfg: &Config,
    kind: Option<GeneratorKind>,
    jobs: Option<usize>,
    browser: Option<&Path>,
) -> anyhow::Result<Generator> {
    let kind = kind.unwrap_or(cfg.file.generator);
    let mut g = Generator::new(
        kind,
        cfg.templates_dir().as_deref(),
        &cfg.file.llm,
        cfg.prompts_dir().as_deref(),
    )?;
    if let Some(j) = jobs {
        g.llm = g.llm.take().map(|l| l.with_jobs(j));
    }
    if let Some(path) = browser
        && let Some(llm) = g.llm.take()
    {
        // Named on the command line: a browser that is not there is an error, not a quiet
        // static judgment.
        let exe = crate::review::visual::find_browser(Some(path))
            .map_err(|e| anyhow::anyhow!("--browser {}: {e}", path.display()))?;
        g.llm = Some(llm.with_browser(Some(exe)));
    }
    Ok(g)
}

/// The options that only the llm generator reads, named when the builtin generator runs, so that
/// `--browser` or `--sample` given by mistake is not silently ignored.
pub fn unused_llm_options(g: &Generator, browser: Option<&Path>, sample: bool) -> Option<String> {
    if g.llm.is_some() {
        return None;
    }
    let named: Vec<&str> = [(browser.is_some(), "--browser"), (sample, "--sample")]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect();
    (!named.is_empty()).then(|| {
        format!(
            "{} only {} to the llm generator; the builtin generator runs no model and no browser",
            named.join(" and "),
            if named.len() == 1 { "applies" } else { "apply" }
        )
    })
}

/// The configured generator for offline commands, which only need its fingerprint. The llm
/// generator's fingerprint needs no API key, so `check` works in CI without one.
pub fn offline_generator(cfg: &Config) -> anyhow::Result<Generator> {
    let templates = match cfg.templates_dir() {
        Some(dir) => Templates::from_dir(&dir)?,
        None => Templates::embedded(),
    };
    let llm = match cfg.file.generator {
        GeneratorKind::Builtin => None,
        GeneratorKind::Llm => Some(LlmGenerator::from_config_with_env(
            &cfg.file.llm,
            cfg.prompts_dir().as_deref(),
            // A placeholder key: only the fingerprint is used, and it never includes the key.
            &|_| Some("offline".to_string()),
        )?),
    };
    Ok(Generator {
        kind: cfg.file.generator,
        templates,
        llm,
    })
}
