//! The llm generator itself: its settings and errors, what it is asked for (`LlmRequest`) and
//! answers with (`LlmOutcome`), and what it borrows from the rest of the crate (`Backstop`). The
//! jobs live in the sibling files, which import these types from here (never from `llm`'s root).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::prompts::{self, Prompts};
use super::provider::{self, Provider, Usage};
use super::{anthropic, ollama, openai};
use crate::config::{LlmConfig, ToolConfig};
use crate::generate::request::{GENERATOR_VERSION, GenerateError, UiType, WidgetRequest};
use crate::model::Hints;
use crate::model::{Tool, sha256_hex};

/// Why the llm generator cannot start. Each names the setting or variable to fix.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "the llm generator with provider `{provider}` needs an API key: set the environment variable {var} (keys are never read from files)"
    )]
    MissingKey { provider: String, var: &'static str },
    #[error(
        "unknown [llm] provider `{0}`: use \"anthropic\", \"openai\" (also for OpenAI-compatible servers, with base_url) or \"ollama\""
    )]
    UnknownProvider(String),
    #[error("invalid [llm] {key}: {message}")]
    Invalid { key: &'static str, message: String },
    #[error(transparent)]
    Prompt(#[from] prompts::PromptError),
    #[error("cannot set up the HTTP client for the llm provider: {0}")]
    Http(String),
}

/// The settings that shape requests and their limits.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_tokens: u32,
    pub temperature: f64,
    /// The total budget of one tool's generation, every call and retry included.
    pub timeout: Duration,
    pub max_retries: u32,
    pub jobs: usize,
}

/// Generates widgets with an LLM. Cheap to share: the provider is behind an `Arc`.
pub struct LlmGenerator {
    pub(super) provider: Arc<dyn Provider>,
    pub(super) prompts: Prompts,
    pub(super) settings: Settings,
    /// The browser pages run in before they are kept (none: judged statically).
    pub(super) browser: Arc<super::browser_slot::BrowserSlot>,
}

/// One widget to generate. Owned, so that many can be in flight at once.
#[derive(Debug, Clone)]
pub struct LlmRequest {
    pub tool: Tool,
    pub tool_config: ToolConfig,
    /// `None` for a tool's single UI; the widget's name otherwise.
    pub widget: Option<String>,
    /// The tool's hints with the widget's own laid over them.
    pub hints: Hints,
    /// The refinement history, oldest first.
    pub refinements: Vec<String>,
    /// The `ui://` authority (slug of the upstream's server name).
    pub server_name: String,
    /// A real result of the tool (`--sample`: only read-only or allow-listed tools, called by the
    /// command with an example input), shown to the model.
    pub sample: Option<Value>,
    /// For `refine`: the committed page of this widget when the llm generator wrote it (not a
    /// fallback), so that the model edits it instead of starting over. The runtime and header
    /// are stripped before it is sent.
    pub current_page: Option<String>,
}

impl LlmRequest {
    /// The same request in the shape the builtin generator takes.
    pub fn widget_request(&self) -> WidgetRequest<'_> {
        WidgetRequest {
            tool: &self.tool,
            tool_config: &self.tool_config,
            widget: self.widget.as_deref(),
            hints: self.hints.clone(),
            refinements: &self.refinements,
            server_name: &self.server_name,
        }
    }

    /// Identical requests have identical keys (and are generated once).
    pub fn dedup_key(&self) -> String {
        let v = serde_json::json!({
            "tool": Value::Object(self.tool.raw.clone()),
            "tool_config": self.tool_config,
            "widget": self.widget,
            "hints": self.hints,
            "refinements": self.refinements,
            "server_name": self.server_name,
            "sample": self.sample,
            "current_page": self.current_page,
        });
        sha256_hex(crate::model::canonical_json(&v))
    }
}

/// What happened to one widget. `usage` and `elapsed` are for the summary and `--format json`,
/// never for the lock.
#[derive(Debug, Clone)]
pub struct LlmOutcome {
    pub html: String,
    pub ui_type: UiType,
    /// Set when the LLM's page was replaced by the builtin output.
    pub fallback_reason: Option<String>,
    /// The fallback was caused by a passing failure (timeout, rate limit, 5xx, network): the
    /// widget is stale and is tried again on the next run.
    pub transient: bool,
    pub usage: Usage,
    pub elapsed: Duration,
    /// Repairs made, validator warnings, retries: one line each.
    pub warnings: Vec<String>,
    /// Provider calls made (classification, generation, retries).
    pub calls: u32,
}

/// The input `--sample` may call a tool with, or `None` when the tool must not be called: only
/// tools marked `readOnlyHint: true` (and not `destructiveHint: true`), or that the user
/// allow-listed, are ever called. The input is the first configured example, else `{}` when the
/// schema requires nothing.
pub fn sample_input(tool: &Tool, cfg: &ToolConfig, allow_listed: bool) -> Option<Value> {
    if !(crate::model::confirm::harmless(tool.annotations()) || allow_listed) {
        return None;
    }
    if let Some(example) = cfg.examples.iter().find(|e| e.is_object()) {
        return Some(example.clone());
    }
    let requires_nothing = tool
        .input_schema()
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .is_none_or(|r| r.is_empty());
    requires_nothing.then(|| Value::Object(serde_json::Map::new()))
}

/// Reads an environment variable; tests pass their own.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

impl LlmGenerator {
    /// Reads the key from the environment (ANTHROPIC_API_KEY / OPENAI_API_KEY; none for ollama).
    /// A missing key is an error naming the variable.
    /// Pages run in the browser `--visual` would use (book: reference/llm.md), when there is
    /// one.
    pub fn from_config(cfg: &LlmConfig, prompts_dir: Option<&Path>) -> Result<Self, LlmError> {
        let mut g = Self::from_config_with_env(cfg, prompts_dir, &|k| std::env::var(k).ok())?;
        g.browser = Arc::new(super::browser_slot::BrowserSlot::from_env());
        Ok(g)
    }

    /// [`from_config`](Self::from_config) with an explicit environment, and no browser (see
    /// [`with_browser`](Self::with_browser)).
    pub fn from_config_with_env(
        cfg: &LlmConfig,
        prompts_dir: Option<&Path>,
        env: EnvLookup<'_>,
    ) -> Result<Self, LlmError> {
        let settings = settings(cfg)?;
        let base_url = cfg
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        if let Some(url) = base_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(LlmError::Invalid {
                key: "base_url",
                message: format!("`{url}` must start with http:// or https://"),
            });
        }
        let loopback = base_url.is_some_and(is_loopback_url);
        let mut client = reqwest::Client::builder()
            .user_agent(concat!("mcp-gen-ui/", env!("CARGO_PKG_VERSION")));
        if loopback {
            // A proxy from the environment must not capture requests to a local model server.
            client = client.no_proxy();
        }
        let client = client.build().map_err(|e| LlmError::Http(e.to_string()))?;
        let key = |var: &'static str| {
            env(var)
                .map(|k| k.trim().to_string())
                .filter(|k| !k.is_empty())
                .map(provider::Secret::new)
        };
        let model = cfg.model.trim();
        if model.is_empty() {
            return Err(LlmError::Invalid {
                key: "model",
                message: "is empty: name the model, e.g. \"claude-sonnet-4-5\"".into(),
            });
        }
        let provider: Arc<dyn Provider> = match cfg.provider.trim().to_ascii_lowercase().as_str() {
            "anthropic" => {
                let var = anthropic::KEY_VAR;
                let k = key(var).ok_or_else(|| LlmError::MissingKey {
                    provider: "anthropic".into(),
                    var,
                })?;
                Arc::new(anthropic::Anthropic::new(client, base_url, model, k))
            }
            "openai" => {
                let var = openai::KEY_VAR;
                // Local OpenAI-compatible servers (llama.cpp, LM Studio, vLLM) take no key.
                let k = key(var);
                if k.is_none() && !loopback {
                    return Err(LlmError::MissingKey {
                        provider: "openai".into(),
                        var,
                    });
                }
                Arc::new(openai::OpenAi::new(client, base_url, model, k))
            }
            "ollama" => Arc::new(ollama::Ollama::new(client, base_url, model)),
            other => return Err(LlmError::UnknownProvider(other.to_string())),
        };
        let prompts = Prompts::load(prompts_dir)?;
        Ok(LlmGenerator {
            provider,
            prompts,
            settings,
            browser: Arc::default(),
        })
    }

    /// A generator over any provider (used by tests and by embedders with their own client).
    pub fn with_provider(
        provider: Arc<dyn Provider>,
        cfg: &LlmConfig,
        prompts: Prompts,
    ) -> Result<Self, LlmError> {
        Ok(LlmGenerator {
            provider,
            prompts,
            settings: settings(cfg)?,
            browser: Arc::default(),
        })
    }

    /// Overrides `jobs` (the `--jobs` flag).
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.settings.jobs = jobs.max(1);
        self
    }

    /// `llm:<provider>/<model>` for the lock.
    pub fn generator_id(&self) -> String {
        format!("llm:{}/{}", self.provider.name(), self.provider.model())
    }

    pub fn prompt_version(&self) -> String {
        self.prompts.version()
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// sha256 (hex) over everything that shapes the output: prompts, provider, model,
    /// temperature, max_tokens, the runtime and the builtin generator's own fingerprint (its
    /// output is the fallback). Part of the lock's fingerprint.
    pub fn fingerprint_with(&self, backstop: &dyn Backstop) -> String {
        let v = serde_json::json!({
            "generator_version": GENERATOR_VERSION,
            "prompt_version": self.prompts.version(),
            "prompts": self.prompts.content_hash(),
            "provider": self.provider.name(),
            "model": self.provider.model(),
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            "runtime": sha256_hex(backstop.runtime_js().as_bytes()),
            "runtime_css": sha256_hex(backstop.runtime_css().as_bytes()),
            "builtin": backstop.fingerprint(),
        });
        sha256_hex(crate::model::canonical_json(&v))
    }
}

fn settings(cfg: &LlmConfig) -> Result<Settings, LlmError> {
    if cfg.max_tokens == 0 {
        return Err(LlmError::Invalid {
            key: "max_tokens",
            message: "must be at least 1 (a full UI needs about 8192)".into(),
        });
    }
    if cfg.timeout_ms == 0 {
        return Err(LlmError::Invalid {
            key: "timeout_ms",
            message: "must be at least 1 (the default is 180000)".into(),
        });
    }
    if !cfg.temperature.is_finite() || !(0.0..=2.0).contains(&cfg.temperature) {
        return Err(LlmError::Invalid {
            key: "temperature",
            message: format!("{} is outside 0.0 to 2.0", cfg.temperature),
        });
    }
    if cfg.jobs == 0 {
        return Err(LlmError::Invalid {
            key: "jobs",
            message: "must be at least 1".into(),
        });
    }
    Ok(Settings {
        max_tokens: cfg.max_tokens,
        temperature: cfg.temperature,
        timeout: Duration::from_millis(cfg.timeout_ms.min(crate::config::MAX_TIMEOUT_MS)),
        max_retries: cfg.max_retries,
        jobs: cfg.jobs,
    })
}

fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A validator finding, reduced to what the pipeline needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    pub error: bool,
    pub rule: String,
    pub message: String,
    /// The line in the page that was validated (the processed page, runtime included).
    pub line: Option<usize>,
}

/// What the mechanical repairs of validator findings did to a page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repaired {
    pub html: String,
    /// One human line per change.
    pub changes: Vec<String>,
    /// Findings a repair was tried for and could not fix, with why.
    pub failed: Vec<String>,
}

/// What the llm generator borrows from the rest of the crate: the builtin generator (for minimal
/// UIs and fallbacks, and its runtime) and the validator.
pub trait Backstop: Sync {
    /// The inline runtime every page carries (defines `window.McpGenUi`).
    fn runtime_js(&self) -> String;
    /// The styles of the runtime's renderers (tables, charts, cards), injected with it.
    fn runtime_css(&self) -> String;
    /// The builtin generator's page for this request.
    fn builtin_page(&self, req: &LlmRequest) -> Result<String, GenerateError>;
    /// The validator's findings on an LLM-written page of this request.
    fn validate(&self, html: &str, req: &LlmRequest) -> Vec<Check>;
    /// Mechanical repairs for the findings that have one (contrast); run before the page is
    /// judged.
    fn repair(&self, html: &str, checks: &[Check]) -> Repaired;
    /// The builtin generator's fingerprint (its output is part of ours).
    fn fingerprint(&self) -> String;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::llm::PROMPT_VERSION;

    fn cfg(provider: &str) -> LlmConfig {
        LlmConfig {
            provider: provider.into(),
            ..LlmConfig::default()
        }
    }

    #[test]
    fn missing_keys_name_the_variable() {
        let none = |_: &str| None;
        let e = LlmGenerator::from_config_with_env(&cfg("anthropic"), None, &none)
            .err()
            .unwrap();
        assert!(e.to_string().contains("ANTHROPIC_API_KEY"), "{e}");
        let e = LlmGenerator::from_config_with_env(&cfg("openai"), None, &none)
            .err()
            .unwrap();
        assert!(e.to_string().contains("OPENAI_API_KEY"), "{e}");
        let blank = |_: &str| Some("  ".to_string());
        assert!(LlmGenerator::from_config_with_env(&cfg("anthropic"), None, &blank).is_err());
        assert!(LlmGenerator::from_config_with_env(&cfg("ollama"), None, &none).is_ok());
        let mut local = cfg("openai");
        local.base_url = Some("http://127.0.0.1:8080/v1".into());
        assert!(LlmGenerator::from_config_with_env(&local, None, &none).is_ok());
    }

    #[test]
    fn ids_and_bad_settings() {
        let key = |_: &str| Some("k-123456".to_string());
        let g = LlmGenerator::from_config_with_env(&cfg("anthropic"), None, &key).unwrap();
        assert_eq!(g.generator_id(), "llm:anthropic/claude-sonnet-4-5");
        assert_eq!(g.prompt_version(), PROMPT_VERSION);
        assert!(matches!(
            LlmGenerator::from_config_with_env(&cfg("gemini"), None, &key),
            Err(LlmError::UnknownProvider(_))
        ));
        for bad in [
            LlmConfig {
                jobs: 0,
                ..cfg("ollama")
            },
            LlmConfig {
                timeout_ms: 0,
                ..cfg("ollama")
            },
            LlmConfig {
                max_tokens: 0,
                ..cfg("ollama")
            },
            LlmConfig {
                temperature: f64::NAN,
                ..cfg("ollama")
            },
            LlmConfig {
                base_url: Some("ftp://x".into()),
                ..cfg("ollama")
            },
            LlmConfig {
                model: " ".into(),
                ..cfg("ollama")
            },
        ] {
            assert!(
                LlmGenerator::from_config_with_env(&bad, None, &key).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn only_read_only_or_allow_listed_tools_are_sampled() {
        let tool = |v: Value| Tool::from_raw(v).unwrap();
        let ex = ToolConfig {
            examples: vec![serde_json::json!({"city": "Oslo"})],
            ..ToolConfig::default()
        };
        let ro = tool(
            serde_json::json!({"name": "a", "annotations": {"readOnlyHint": true},
            "inputSchema": {"type": "object", "required": ["city"]}}),
        );
        assert_eq!(
            sample_input(&ro, &ex, false),
            Some(serde_json::json!({"city": "Oslo"}))
        );
        assert_eq!(
            sample_input(&ro, &ToolConfig::default(), false),
            None,
            "required input, no example"
        );
        let plain = tool(serde_json::json!({"name": "b", "inputSchema": {"type": "object"}}));
        assert_eq!(sample_input(&plain, &ex, false), None, "not read-only");
        assert_eq!(
            sample_input(&plain, &ToolConfig::default(), true),
            Some(serde_json::json!({}))
        );
        let contradictory = tool(
            serde_json::json!({"name": "c", "annotations": {"readOnlyHint": true, "destructiveHint": true}}),
        );
        assert_eq!(sample_input(&contradictory, &ex, false), None);
    }

    #[test]
    fn loopback_detection() {
        for u in [
            "http://127.0.0.1:1/v1",
            "http://localhost",
            "http://[::1]:8/v1",
            "http://u:p@127.0.0.2/",
        ] {
            assert!(is_loopback_url(u), "{u}");
        }
        for u in [
            "https://api.openai.com/v1",
            "http://10.0.0.1/",
            "http://127.0.0.1.evil.com/",
        ] {
            assert!(!is_loopback_url(u), "{u}");
        }
    }
}
