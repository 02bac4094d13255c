//! Generate stage: turns a tool (plus its hints and refinements) into the HTML of an MCP App.

pub mod builtin;
pub mod llm;
pub mod phrases;
mod request;

pub use request::{GENERATOR_VERSION, GenerateError, UiType, WidgetRequest};

/// The generator chosen for a run, with everything that shapes its output loaded.
pub struct Generator {
    pub kind: crate::config::GeneratorKind,
    pub templates: builtin::Templates,
    /// Present when `kind` is `Llm`: the provider client, prompts and settings.
    pub llm: Option<llm::LlmGenerator>,
}

impl Generator {
    /// Loads the embedded templates (or the config's `templates_dir`) and, for the llm generator,
    /// the provider (its API key from the environment) and prompts (or `prompts_dir`).
    pub fn new(
        kind: crate::config::GeneratorKind,
        templates_dir: Option<&std::path::Path>,
        llm_cfg: &crate::config::LlmConfig,
        prompts_dir: Option<&std::path::Path>,
    ) -> anyhow::Result<Generator> {
        let templates = match templates_dir {
            Some(dir) => builtin::Templates::from_dir(dir)?,
            None => builtin::Templates::embedded(),
        };
        let llm = match kind {
            crate::config::GeneratorKind::Builtin => None,
            crate::config::GeneratorKind::Llm => {
                Some(llm::LlmGenerator::from_config(llm_cfg, prompts_dir)?)
            }
        };
        Ok(Generator {
            kind,
            templates,
            llm,
        })
    }

    /// The generator as recorded in the lock: `builtin` or `llm:<provider>/<model>`.
    pub fn id(&self) -> String {
        match &self.llm {
            Some(l) => l.generator_id(),
            None => "builtin".to_string(),
        }
    }

    /// sha256 over everything that changes output: a different value makes every tool stale.
    pub fn fingerprint(&self) -> String {
        match &self.llm {
            Some(l) => l.fingerprint(&self.templates),
            None => crate::model::sha256_hex(format!("builtin\n{}", self.templates.fingerprint())),
        }
    }

    pub fn template_version(&self) -> String {
        builtin::template_version(&self.templates)
    }

    pub fn prompt_version(&self) -> String {
        self.llm
            .as_ref()
            .map(|l| l.prompt_version())
            .unwrap_or_default()
    }
}
