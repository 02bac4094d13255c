//! `generate` from start to end: discover → plan (once) → sample → generate and validate (the
//! batch) → write, under the run lock.

use anyhow::Context as _;
use serde::Serialize;

use super::State;
use super::batch::{self, BatchOptions, FileSink, Row};
use super::generator::{load_generator, unused_llm_options};
use super::progress::Progress;
use super::upstream;
use crate::config::{Config, GeneratorKind};
use crate::write::{self, RunLock};

/// What `generate` was asked to do, resolved from its arguments once.
#[derive(Debug, Clone, Default)]
pub struct GenerateSettings {
    /// Only these tools (empty: every enabled tool).
    pub tools: Vec<String>,
    pub force: bool,
    pub dry_run: bool,
    pub generator: Option<GeneratorKind>,
    pub sample: bool,
    /// `--browser`: the browser that runs llm pages (else the usual lookup).
    pub browser: Option<std::path::PathBuf>,
    pub jobs: Option<usize>,
    pub adopt: Vec<String>,
}

/// What a `generate` run did (or would do, dry): the command's output record.
#[derive(Debug, Serialize)]
pub struct Generated {
    pub out_dir: String,
    pub dry_run: bool,
    /// Nothing changed on disk.
    #[serde(rename = "up_to_date")]
    pub nothing_to_do: bool,
    #[serde(rename = "tools")]
    pub rows: Vec<Row>,
    /// Tools in the lock after the run.
    #[serde(skip)]
    pub total: usize,
}

impl Generated {
    /// Some tool was left without a new page (its previous page and lock entry stay).
    pub fn failed(&self) -> bool {
        self.rows.iter().any(|r| r.action == batch::Action::Failed)
    }
}

/// Runs `generate`: discovers, plans once, samples when asked, computes the batch and writes it
/// (nothing with `dry_run`).
pub fn generate(
    cfg: &Config,
    settings: &GenerateSettings,
    progress: &dyn Progress,
    rt: &tokio::runtime::Runtime,
) -> anyhow::Result<Generated> {
    let generator = load_generator(
        cfg,
        settings.generator,
        settings.jobs,
        settings.browser.as_deref(),
    )?;
    if let Some(note) = unused_llm_options(&generator, settings.browser.as_deref(), settings.sample)
    {
        progress.warn(&note);
    }
    let discovery = upstream::discover(cfg, progress, rt)?;
    // Hold the run lock from reading the state to writing it, so two runs cannot interleave.
    let _run_lock = if settings.dry_run {
        None
    } else {
        let lock = RunLock::acquire(&cfg.out_dir)?;
        write::clean_temp_files(&cfg.out_dir);
        Some(lock)
    };
    let state = State::read(cfg)?;
    let plan = state.plan(cfg, Some(&discovery.tools), &generator.fingerprint())?;
    let samples = if settings.sample && generator.llm.is_some() {
        let names: Vec<&str> = plan
            .tools
            .iter()
            .filter(|t| t.needs_generation() || settings.force)
            .filter(|t| settings.tools.is_empty() || settings.tools.contains(&t.name))
            .map(|t| t.name.as_str())
            .collect();
        upstream::samples(cfg, &discovery.tools, &names, progress, rt)?
    } else {
        if settings.sample {
            progress
                .warn("--sample only matters to the llm generator; ignored with the builtin one");
        }
        Default::default()
    };
    let batch = batch::build(
        cfg,
        &generator,
        &discovery,
        &state,
        plan,
        &BatchOptions {
            tools: &settings.tools,
            force: settings.force,
            adopt: &settings.adopt,
            history: None,
            samples,
            files: if settings.dry_run {
                FileSink::Discard
            } else {
                FileSink::Stage(&cfg.out_dir)
            },
        },
        progress,
        rt.handle(),
    )?;
    let total = batch.lock.tools.len();
    if !settings.dry_run && !batch.nothing_to_do {
        write::apply(&cfg.out_dir, batch.update, &batch.lock)
            .with_context(|| format!("writing {}", cfg.out_dir.display()))?;
    }
    Ok(Generated {
        out_dir: cfg.out_dir.display().to_string(),
        dry_run: settings.dry_run,
        nothing_to_do: batch.nothing_to_do,
        rows: batch.rows,
        total,
    })
}
