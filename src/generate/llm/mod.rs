//! The llm generator: an LLM writes a tool-specific MCP App, which is post-processed, validated,
//! repaired, or replaced by the builtin output when it cannot be made valid.
//!
//! One file per job: `provider` (the trait and error taxonomy) with `anthropic`, `openai` and
//! `ollama`; `prompts`; `budget` (time budget and retries); `extract` (the page out of the
//! answer); `postprocess` (runtime, imports, header); `pipeline` (one tool, end to end);
//! `schedule` (many tools: bounded concurrency, de-duplication); `backstop` (the builtin
//! generator and the validator, as the pipeline uses them); `browser_judge` (pages run in a
//! browser before they are kept) with `browser_slot` (the run's browser).

pub mod anthropic;
pub mod backstop;
pub mod browser_judge;
pub mod browser_slot;
pub mod budget;
pub mod extract;
mod generator;
pub mod names;
pub mod ollama;
pub mod openai;
pub mod pipeline;
pub mod postprocess;
pub mod prompts;
pub mod provider;
pub mod schedule;
mod script_rewrite;

pub use generator::{
    Backstop, Check, EnvLookup, LlmError, LlmGenerator, LlmOutcome, LlmRequest, Repaired, Settings,
    sample_input,
};
pub use prompts::{PROMPT_VERSION, Prompts};
pub use provider::{ErrorKind, Provider, ProviderError, Usage};
