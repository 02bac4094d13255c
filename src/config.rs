//! `mcp-gen-ui.toml`: parsed strictly, so a typo is an error that names the line and the key
//! instead of a setting silently ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod render;

pub use render::{NewConfig, kept_out_note, render};

use crate::mcp::negotiate::Protocol;
use crate::mcp::{HttpSpec, HttpTransport, StdioSpec, UpstreamSpec};
// The hint vocabulary belongs to the model; the config only reads it.
pub use crate::model::{Density, Hints, ThemeHint, ViewKind};

/// The default name of the configuration file, looked up in the current directory.
pub const CONFIG_FILE: &str = "mcp-gen-ui.toml";

/// Environment variables that carry provider API keys. Keys live only there, never in files.
pub const API_KEY_VARS: &[&str] = &["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/// The longest timeout honoured (a year); larger values mean "wait as long as it takes".
pub const MAX_TIMEOUT_MS: u64 = 365 * 24 * 3600 * 1000;

/// An error in the configuration: always names the file, and the fix when there is one.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error(
        "{path}:{line}: `{key}` looks like an API key; keys are read only from the environment \
         ({vars}). Remove it from the file and export the variable instead"
    )]
    SecretInFile {
        path: PathBuf,
        line: usize,
        key: String,
        vars: String,
    },
    #[error(
        "no upstream server configured: pass --server \"CMD ARGS\" or --url URL, or run \
         `mcp-gen-ui init` to write {CONFIG_FILE}"
    )]
    NoUpstream,
    #[error(
        "environment variable `{var}` referenced by {what} is not set: export it before running \
         mcp-gen-ui (the configuration names it so that its value stays out of the file)"
    )]
    MissingEnv { var: String, what: String },
}

/// Which generator writes the HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum GeneratorKind {
    #[default]
    Builtin,
    Llm,
}

impl std::fmt::Display for GeneratorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GeneratorKind::Builtin => "builtin",
            GeneratorKind::Llm => "llm",
        })
    }
}

/// The file as written by the user. Every table denies unknown keys.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub out_dir: Option<String>,
    #[serde(default)]
    pub generator: GeneratorKind,
    #[serde(default)]
    pub enabled_tools: Vec<String>,
    /// Overrides the slug of the upstream's `serverInfo.name` in `ui://` URIs.
    pub server_name: Option<String>,
    /// `ui://` URIs without `?v=` (for URIs registered with an app directory); by default a
    /// page's URI carries the first digits of its hash (book: reference/names.md).
    #[serde(default)]
    pub stable_uris: bool,
    /// A directory of template files overriding the embedded ones (relative to this file).
    pub templates_dir: Option<String>,
    /// A directory of prompt files overriding the embedded ones (relative to this file).
    pub prompts_dir: Option<String>,
    pub upstream: Option<UpstreamConfig>,
    #[serde(default)]
    pub llm: LlmConfig,
    #[serde(default)]
    pub serve: ServeConfig,
    #[serde(default)]
    pub generate: GenerateConfig,
    #[serde(default)]
    pub tools: BTreeMap<String, ToolConfig>,
}

/// `[generate]`: settings of the pages the builtin generator writes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerateConfig {
    /// The largest file a page's file field reads (book: reference/pages.md, "Files"); 5 MB
    /// when unset.
    pub max_file_bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables set for a stdio upstream; values may be `${VAR}` references to ours.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables of ours a stdio upstream inherits beyond the default allow-list (names, or
    /// `PREFIX*`). mcp-gen-ui's own secrets are never inherited: name them in `env` instead.
    #[serde(default)]
    pub env_inherit: Vec<String>,
    pub cwd: Option<String>,
    pub url: Option<String>,
    pub transport: Option<TransportName>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// How long to wait for the upstream to start and answer `initialize` and `tools/list`.
    pub timeout_ms: Option<u64>,
    /// The era mcp-gen-ui's own client speaks: `auto` (the newest both sides speak),
    /// `handshake` (2025, `initialize`) or `stateless` (2026-07-28). serve ignores it.
    pub protocol: Option<Protocol>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum TransportName {
    StreamableHttp,
    Sse,
}

impl From<TransportName> for HttpTransport {
    fn from(t: TransportName) -> Self {
        match t {
            TransportName::StreamableHttp => HttpTransport::StreamableHttp,
            TransportName::Sse => HttpTransport::Sse,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LlmConfig {
    #[serde(default = "default_provider")]
    pub provider: String,
    #[serde(default = "default_model")]
    pub model: String,
    pub base_url: Option<String>,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    #[serde(default = "default_temperature")]
    pub temperature: f64,
    /// Total time budget per tool, shared by every retry.
    #[serde(default = "default_llm_timeout_ms")]
    pub timeout_ms: u64,
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    #[serde(default = "default_jobs")]
    pub jobs: usize,
}

fn default_provider() -> String {
    "anthropic".into()
}
fn default_model() -> String {
    "claude-sonnet-4-5".into()
}
fn default_max_tokens() -> u32 {
    8192
}
fn default_temperature() -> f64 {
    0.2
}
fn default_llm_timeout_ms() -> u64 {
    180_000
}
fn default_max_retries() -> u32 {
    2
}
fn default_jobs() -> usize {
    4
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            provider: default_provider(),
            model: default_model(),
            base_url: None,
            max_tokens: default_max_tokens(),
            temperature: default_temperature(),
            timeout_ms: default_llm_timeout_ms(),
            max_retries: default_max_retries(),
            jobs: default_jobs(),
        }
    }
}

/// What `serve` does with a tool whose upstream definition no longer matches the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StalePolicy {
    /// Keep serving the committed UI, with a warning on stderr.
    #[default]
    Serve,
    /// Serve the tool without UI metadata.
    Hide,
}

#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServeConfig {
    #[serde(default)]
    pub stale: StalePolicy,
    /// Whether hosts should draw a border around the UIs (`_meta.ui.prefersBorder`).
    pub prefers_border: Option<bool>,
    /// `serve --http`: 2025-era host sessions open at once (default 64).
    pub max_sessions: Option<usize>,
    /// `serve --http`: minutes after which a 2025-era host session with no request and no open
    /// stream is closed (default 5).
    pub session_idle_minutes: Option<u64>,
    /// `serve --http`: at the session cap, a session idle this many seconds (nothing in flight,
    /// no open stream) may be closed for a new host (default 10).
    pub session_evict_seconds: Option<u64>,
    /// `serve --http`: starts every session id (`<replica_id>.<hex>`), so that a load balancer
    /// can send a session back to the replica that holds it.
    pub replica_id: Option<String>,
    /// `serve --http`: addresses of reverse proxies whose `X-Forwarded-Host` is believed.
    #[serde(default)]
    pub trusted_proxies: Vec<String>,
    /// Embed each UI tool's page in its results for clients without the MCP Apps extension
    /// (MCP-UI hosts); `serve --embed-ui` turns it on too.
    #[serde(default)]
    pub embed_ui: bool,
    /// Give clients without the MCP Apps extension the Apps SDK's metadata
    /// (`openai/outputTemplate`, `text/html+skybridge`); `serve --apps-sdk` turns it on too.
    #[serde(default)]
    pub apps_sdk: bool,
}

/// `[tools.NAME]`: everything here feeds the tool's `config_hash` in the lock.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolConfig {
    pub enabled: Option<bool>,
    /// Allow `generate --sample` to call this tool even though it is not marked read-only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<bool>,
    #[serde(default, skip_serializing_if = "Hints::is_empty")]
    pub hints: Hints,
    /// Example inputs (objects) used as placeholders and, with `--sample`, to call read-only tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub widgets: Vec<WidgetConfig>,
    #[serde(default, skip_serializing_if = "CspConfig::is_empty")]
    pub csp: CspConfig,
    /// The description `serve` gives clients that advertised the MCP Apps extension (they show
    /// the UI); everyone else sees the upstream's. Not part of the page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_for_ui: Option<String>,
}

/// One of several UIs for a tool (`ui/<tool>/<name>.html`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WidgetConfig {
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    #[serde(default, skip_serializing_if = "Hints::is_empty")]
    pub hints: Hints,
}

/// Origins a UI may reach, declared on the resource as `_meta.ui.csp`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CspConfig {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connect_domains: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_domains: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frame_domains: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_uri_domains: Vec<String>,
}

impl CspConfig {
    pub fn is_empty(&self) -> bool {
        *self == CspConfig::default()
    }

    /// The origins a page may load from or reach (connect, resource and frame domains, as
    /// written); `crate::origins::Origins` judges URLs against them.
    pub fn fetch_origins(&self) -> Vec<String> {
        self.connect_domains
            .iter()
            .chain(&self.resource_domains)
            .chain(&self.frame_domains)
            .cloned()
            .collect()
    }
}

/// Command-line settings that override the file.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    /// `--server "CMD ARGS"`, split as POSIX shell words.
    pub server: Option<String>,
    pub url: Option<String>,
    pub transport: Option<TransportName>,
    pub out_dir: Option<PathBuf>,
    /// `--env NAME` (inherit it, like `env_inherit`) and `--env NAME=VALUE` (set it), for a
    /// stdio upstream.
    pub env: Vec<String>,
    /// `--protocol`: overrides `[upstream] protocol`.
    pub protocol: Option<Protocol>,
}

/// The effective configuration: the file (if any) with command-line overrides applied.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file it came from, if any.
    pub path: Option<PathBuf>,
    /// Directory that relative paths in the file are resolved against.
    pub base_dir: PathBuf,
    pub file: ConfigFile,
    pub out_dir: PathBuf,
    /// The upstream, if one is configured or given on the command line.
    upstream: Option<UpstreamSpec>,
    /// True when `--server`/`--url` was given: such commands contact the upstream.
    pub upstream_from_cli: bool,
    pub connect_timeout: Duration,
    /// The era our own client speaks (`--protocol`, `[upstream] protocol`, default auto).
    pub protocol: Protocol,
    /// The names given with `--env` (never the values), in order: what `serve --print-config`
    /// passes on.
    pub cli_env_names: Vec<String>,
    /// The command line's upstream (`--server`, `--url`) as a config file may hold it: each
    /// secret a `${VAR}` reference (book: reference/security.md, "Secrets on a command line").
    pub cli_file_form: Option<UpstreamSpec>,
    /// The variables that reference stands for (names only): what a person must pass.
    pub cli_kept_out: Vec<String>,
    /// Where the first run writes its configuration when none was read: `--config FILE` if
    /// given (and missing), else `./mcp-gen-ui.toml` (book: getting-started.md).
    pub new_config_path: Option<PathBuf>,
    /// `[upstream]` reads a variable that is not set: the error `upstream()` gives, so that
    /// commands that never start the upstream still work.
    upstream_error: Option<(String, String)>,
    /// `generate --rename-files`: give tools whose files predate today's naming rule their
    /// readable names (book: reference/names.md). Off: the lock's file names are kept.
    pub rename_files: bool,
}

/// Default time allowed for an upstream to start and list its tools.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl Config {
    /// Loads the configuration: `--config FILE` if given (must exist), else `./mcp-gen-ui.toml`
    /// if present, else defaults (which need `--server` or `--url` to reach an upstream).
    pub fn load(ov: &Overrides) -> Result<Config, ConfigError> {
        let from_cli = ov.server.is_some() || ov.url.is_some();
        let (path, file) = match &ov.config {
            // A first run may name the file it leaves (book: getting-started.md).
            Some(p) if from_cli && !p.exists() => (None, None),
            Some(p) => (Some(p.clone()), Some(read_file(p)?)),
            None => {
                let p = PathBuf::from(CONFIG_FILE);
                if p.is_file() {
                    (Some(p.clone()), Some(read_file(&p)?))
                } else {
                    (None, None)
                }
            }
        };
        let file = match (&path, file) {
            (Some(p), Some(text)) => parse(p, &text)?,
            _ => ConfigFile::default(),
        };
        let base_dir = path
            .as_ref()
            .and_then(|p| p.parent())
            .map(|d| {
                if d.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    d.to_path_buf()
                }
            })
            .unwrap_or_else(|| PathBuf::from("."));

        let out_dir = match (&ov.out_dir, &file.out_dir) {
            (Some(d), _) => d.clone(),
            (None, Some(d)) => base_dir.join(d),
            (None, None) => base_dir.join("ui"),
        };

        let cfg_path = path.clone().unwrap_or_else(|| PathBuf::from(CONFIG_FILE));
        let timeout_ms = file.upstream.as_ref().and_then(|u| u.timeout_ms);
        // Capped (a year): an enormous value would overflow the clock when added to it.
        let connect_timeout = timeout_ms
            .map(|ms| Duration::from_millis(ms.min(MAX_TIMEOUT_MS)))
            .unwrap_or(DEFAULT_CONNECT_TIMEOUT);

        let upstream_from_cli = from_cli;
        let mut upstream_error = None;
        let (upstream, cli) = if let Some(cli) = upstream_from_command_line(ov)? {
            (Some(cli.run), Some((cli.file_form, cli.kept_out)))
        } else if let Some(up) = &file.upstream {
            match upstream_from_file(&cfg_path, &base_dir, up, ov.transport) {
                Ok(u) => (Some(u), None),
                Err(ConfigError::MissingEnv { var, what }) => {
                    upstream_error = Some((var, what));
                    (None, None)
                }
                Err(e) => return Err(e),
            }
        } else {
            (None, None)
        };
        let (cli_file_form, cli_kept_out) = match cli {
            Some((f, k)) => (Some(f), k),
            None => (None, Vec::new()),
        };
        let new_config_path = path.is_none().then(|| {
            ov.config
                .clone()
                .unwrap_or_else(|| PathBuf::from(CONFIG_FILE))
        });
        let (upstream, cli_env_names) = apply_cli_env(upstream, &ov.env)?;
        let protocol = ov
            .protocol
            .or(file.upstream.as_ref().and_then(|u| u.protocol))
            .unwrap_or_default();

        Ok(Config {
            path,
            base_dir,
            file,
            out_dir,
            upstream,
            upstream_from_cli,
            connect_timeout,
            protocol,
            cli_env_names,
            cli_file_form,
            cli_kept_out,
            new_config_path,
            upstream_error,
            rename_files: false,
        })
    }

    /// The upstream to contact, or an error telling the user how to name one.
    pub fn upstream(&self) -> Result<&UpstreamSpec, ConfigError> {
        match (&self.upstream, &self.upstream_error) {
            (Some(u), _) => Ok(u),
            (None, Some((var, what))) => Err(ConfigError::MissingEnv {
                var: var.clone(),
                what: what.clone(),
            }),
            (None, None) => Err(ConfigError::NoUpstream),
        }
    }

    /// Whether an upstream is known at all (configured or on the command line).
    pub fn has_upstream(&self) -> bool {
        self.upstream.is_some() || self.upstream_error.is_some()
    }

    /// The per-tool section, or the defaults.
    pub fn tool(&self, name: &str) -> ToolConfig {
        self.file.tools.get(name).cloned().unwrap_or_default()
    }

    /// Whether a tool gets a UI: `enabled_tools` (empty = all) and `[tools.NAME] enabled`.
    pub fn tool_enabled(&self, name: &str) -> bool {
        if let Some(t) = self.file.tools.get(name)
            && let Some(enabled) = t.enabled
        {
            return enabled;
        }
        self.file.enabled_tools.is_empty() || self.file.enabled_tools.iter().any(|n| n == name)
    }

    /// The template override directory, resolved against the config file's directory.
    pub fn templates_dir(&self) -> Option<PathBuf> {
        self.file
            .templates_dir
            .as_ref()
            .map(|d| self.base_dir.join(d))
    }

    /// The prompt override directory, resolved against the config file's directory.
    pub fn prompts_dir(&self) -> Option<PathBuf> {
        self.file
            .prompts_dir
            .as_ref()
            .map(|d| self.base_dir.join(d))
    }

    /// A name to show for the configuration in messages.
    pub fn display_path(&self) -> String {
        self.path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(no config file)".into())
    }
}

fn read_file(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses the text of a config file. Public for tests and for `init`, which checks what it writes.
pub fn parse(path: &Path, text: &str) -> Result<ConfigFile, ConfigError> {
    reject_secrets(path, text)?;
    toml::from_str::<ConfigFile>(text).map_err(|e| ConfigError::Invalid {
        path: path.to_path_buf(),
        message: describe_toml_error(text, &e),
    })
}

/// Turns a toml error into "line N: message" with the offending line quoted.
fn describe_toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            let src = text.lines().nth(line - 1).unwrap_or("").trim();
            format!("line {line}: {msg}\n    {line} | {src}")
        }
        None => msg,
    }
}

/// Key names that hold credentials. Such a key anywhere in the file is refused (headers may carry
/// a secret only as a `${VAR}` reference).
fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('-', "_");
    k == "api_key" || k.ends_with("_api_key") || k == "apikey" || k == "secret" || k == "password"
}

fn reject_secrets(path: &Path, text: &str) -> Result<(), ConfigError> {
    let Ok(table) = text.parse::<toml::Table>() else {
        // Syntax errors are reported by the typed parse, with their line.
        return Ok(());
    };
    let mut found: Option<String> = None;
    walk_keys(
        &toml::Value::Table(table),
        &mut Vec::new(),
        &mut |keys, value| {
            if found.is_some() {
                return;
            }
            let last = keys.last().map(String::as_str).unwrap_or("");
            let in_headers = keys.iter().any(|k| k == "headers");
            let in_env = keys.iter().any(|k| k == "env");
            let literal = value.as_str().is_some_and(|s| !s.contains("${"));
            let secret_header = in_headers
                && literal
                && matches!(
                    last.to_ascii_lowercase().as_str(),
                    "authorization" | "x-api-key" | "api-key" | "proxy-authorization"
                );
            let secret_env = in_env && literal && API_KEY_VARS.contains(&last);
            // A `${VAR}` reference is the recommended form, whatever the key is called: only
            // literal values are refused.
            let literal_or_table = literal || !value.is_str();
            if (is_secret_key(last) && !in_env && literal_or_table) || secret_header || secret_env {
                found = Some(keys.join("."));
            }
        },
    );
    if let Some(key) = found {
        let leaf = key.rsplit('.').next().unwrap_or(&key).to_string();
        let line = text
            .lines()
            .position(|l| {
                let t = l.trim_start();
                t.starts_with(&leaf)
                    || t.starts_with(&format!("\"{leaf}\""))
                    || t.contains(&format!("{leaf} ="))
                    || t.contains(&format!("\"{leaf}\" ="))
            })
            .map(|i| i + 1)
            .unwrap_or(0);
        return Err(ConfigError::SecretInFile {
            path: path.to_path_buf(),
            line,
            key,
            vars: API_KEY_VARS.join(", ") + " or a `${VAR}` reference in headers",
        });
    }
    Ok(())
}

fn walk_keys(v: &toml::Value, keys: &mut Vec<String>, f: &mut dyn FnMut(&[String], &toml::Value)) {
    match v {
        toml::Value::Table(t) => {
            for (k, child) in t {
                keys.push(k.clone());
                f(keys, child);
                walk_keys(child, keys, f);
                keys.pop();
            }
        }
        toml::Value::Array(a) => {
            for child in a {
                walk_keys(child, keys, f);
            }
        }
        _ => {}
    }
}

/// The command line's upstream: what runs now, and what a config file may hold.
struct CliUpstream {
    run: UpstreamSpec,
    file_form: UpstreamSpec,
    kept_out: Vec<String>,
}

/// `--server "CMD ARGS"` (split as shell words, `env NAME=VALUE` assignments and secrets taken
/// out, `${VAR}` references read) or `--url URL` (its credentials taken out); `None` without
/// either. Every secret value is registered for redaction.
fn upstream_from_command_line(ov: &Overrides) -> Result<Option<CliUpstream>, ConfigError> {
    if let Some(server) = &ov.server {
        let invalid = |message: String| ConfigError::Invalid {
            path: PathBuf::from("--server"),
            message,
        };
        let words = shell_words::split(server).map_err(|e| {
            invalid(format!(
                "cannot split `{}` into shell words: {e}",
                crate::secrets::redact(server)
            ))
        })?;
        if words.is_empty() {
            return Err(invalid("empty command: pass the server's command line, e.g. --server \"npx -y @modelcontextprotocol/server-everything\"".into()));
        }
        let scrubbed = crate::secrets::scrub_words(words).map_err(invalid)?;
        crate::secrets::register_scrubbed(&scrubbed);
        let mut args = Vec::with_capacity(scrubbed.args.len());
        for a in &scrubbed.args {
            args.push(expand_env(a, "--server")?);
        }
        let run = StdioSpec {
            command: scrubbed.command.clone(),
            args,
            env: scrubbed.env.iter().cloned().collect(),
            inherit: Vec::new(),
            cwd: None,
        };
        let file_form = StdioSpec {
            command: scrubbed.command.clone(),
            args: scrubbed.file_args.clone(),
            env: scrubbed
                .env
                .iter()
                .map(|(n, _)| (n.clone(), format!("${{{n}}}")))
                .collect(),
            inherit: Vec::new(),
            cwd: None,
        };
        return Ok(Some(CliUpstream {
            run: UpstreamSpec::Stdio(run),
            file_form: UpstreamSpec::Stdio(file_form),
            kept_out: scrubbed.kept_out(),
        }));
    }
    let Some(url) = &ov.url else {
        return Ok(None);
    };
    let transport = ov.transport.map(HttpTransport::from).unwrap_or_default();
    let (file_url, vars) = crate::secrets::scrub_url(url);
    for (_, v) in &vars {
        crate::secrets::register_value(v);
    }
    let spec = |url: String| {
        UpstreamSpec::Http(HttpSpec {
            url,
            transport,
            headers: BTreeMap::new(),
        })
    };
    Ok(Some(CliUpstream {
        run: spec(expand_env(url, "--url")?),
        file_form: spec(file_url),
        kept_out: vars.into_iter().map(|(n, _)| n).collect(),
    }))
}

fn upstream_from_file(
    cfg_path: &Path,
    base_dir: &Path,
    up: &UpstreamConfig,
    transport_override: Option<TransportName>,
) -> Result<UpstreamSpec, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: cfg_path.to_path_buf(),
        message,
    };
    match (&up.command, &up.url) {
        (Some(_), Some(_)) => Err(invalid(
            "[upstream] has both `command` and `url`: keep one".into(),
        )),
        (None, None) => Err(invalid(
            "[upstream] needs `command` (a stdio server) or `url` (an HTTP server)".into(),
        )),
        (Some(command), None) => {
            if up.transport.is_some() || !up.headers.is_empty() {
                return Err(invalid(
                    "[upstream] `transport` and `headers` apply to `url` only, not to `command`"
                        .into(),
                ));
            }
            let mut env = BTreeMap::new();
            for (k, v) in &up.env {
                env.insert(k.clone(), expand_env(v, &format!("[upstream] env `{k}`"))?);
            }
            let mut args = Vec::with_capacity(up.args.len());
            for a in &up.args {
                args.push(expand_env(a, "[upstream] args")?);
            }
            Ok(UpstreamSpec::Stdio(StdioSpec {
                command: command.clone(),
                args,
                env,
                inherit: up.env_inherit.clone(),
                // Relative to the config file, so the same file works whatever directory a
                // host launches us from (Claude Desktop starts servers in `/`).
                cwd: Some(
                    up.cwd
                        .as_ref()
                        .map(|c| base_dir.join(c))
                        .unwrap_or_else(|| base_dir.to_path_buf()),
                ),
            }))
        }
        (None, Some(url)) => {
            if !up.args.is_empty()
                || !up.env.is_empty()
                || !up.env_inherit.is_empty()
                || up.cwd.is_some()
            {
                return Err(invalid(
                    "[upstream] `args`, `env`, `env_inherit` and `cwd` apply to `command` only, \
                     not to `url`"
                        .into(),
                ));
            }
            let mut headers = BTreeMap::new();
            for (k, v) in &up.headers {
                headers.insert(k.clone(), expand_env(v, &format!("header `{k}`"))?);
            }
            let transport = transport_override
                .or(up.transport)
                .map(HttpTransport::from)
                .unwrap_or_default();
            Ok(UpstreamSpec::Http(HttpSpec {
                url: expand_env(url, "[upstream] url")?,
                transport,
                headers,
            }))
        }
    }
}

/// `--env NAME` / `--env NAME=VALUE` on top of the upstream: a name is inherited (the command
/// line's `env_inherit`), a value is set (and redacted from every output). mcp-gen-ui's own
/// secrets, and variables the config reads through `${VAR}`, are refused: only `[upstream] env`
/// passes them (book: reference/security.md). Returns the names, for `serve --print-config`.
fn apply_cli_env(
    upstream: Option<UpstreamSpec>,
    entries: &[String],
) -> Result<(Option<UpstreamSpec>, Vec<String>), ConfigError> {
    let set = parse_cli_env(entries)?;
    let mut names: Vec<String> = Vec::new();
    for (name, _) in &set {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    apply_env_entries(upstream, set, names)
}

/// The `--env` entries as (name, value to set), checked (a variable name, not one of our
/// secrets) and with every value registered for redaction.
pub fn parse_cli_env(entries: &[String]) -> Result<Vec<(String, Option<String>)>, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: PathBuf::from("--env"),
        message,
    };
    let mut set = Vec::new();
    for entry in entries {
        let (name, value) = match entry.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (entry.as_str(), None),
        };
        let pattern = value.is_none() && name.ends_with('*');
        let bare = name.strip_suffix('*').filter(|_| pattern).unwrap_or(name);
        let valid = bare
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && bare.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(invalid(format!(
                "`{}` is not a variable name: pass --env NAME (the upstream inherits NAME from \
                 this environment), --env 'PREFIX*', or --env NAME=VALUE",
                crate::secrets::redact(entry)
            )));
        }
        if !pattern && crate::secrets::is_secret_var(name) {
            let why = if crate::secrets::SECRET_VARS.contains(&name) {
                "is one of mcp-gen-ui's own secrets"
            } else {
                "is read by a `${VAR}` reference in the config, which makes it a secret"
            };
            return Err(invalid(format!(
                "`{name}` {why}: it is never taken from the command line. Name it for the \
                 upstream in mcp-gen-ui.toml instead, under [upstream]: env.{name} = \"${{{name}}}\""
            )));
        }
        if let Some(v) = value {
            crate::secrets::register_value(v);
        }
        set.push((name.to_string(), value.map(str::to_string)));
    }
    Ok(set)
}

/// Applies parsed `--env` entries to a stdio upstream (an HTTP one refuses them).
pub fn apply_env_entries(
    upstream: Option<UpstreamSpec>,
    set: Vec<(String, Option<String>)>,
    names: Vec<String>,
) -> Result<(Option<UpstreamSpec>, Vec<String>), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: PathBuf::from("--env"),
        message,
    };
    if set.is_empty() {
        return Ok((upstream, names));
    }
    match upstream {
        Some(UpstreamSpec::Stdio(mut s)) => {
            for (name, value) in set {
                match value {
                    Some(v) => {
                        s.env.insert(name, v);
                    }
                    None => {
                        if !s.inherit.contains(&name) {
                            s.inherit.push(name);
                        }
                    }
                }
            }
            Ok((Some(UpstreamSpec::Stdio(s)), names))
        }
        Some(UpstreamSpec::Http(_)) => Err(invalid(
            "it applies to an upstream mcp-gen-ui starts (--server, or [upstream] command), \
             not to one reached by URL"
                .into(),
        )),
        // Nothing to start (an offline command): the option has nothing to do.
        None => Ok((None, names)),
    }
}

/// Expands `${VAR}` references from the environment. A missing variable is an error, not "".
pub fn expand_env(value: &str, what: &str) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let var = &after[..end];
        let val = std::env::var(var).map_err(|_| ConfigError::MissingEnv {
            var: var.to_string(),
            what: what.to_string(),
        })?;
        // A value read for the config is a secret: never printed, never inherited by a child
        // unless `[upstream] env` names it.
        crate::secrets::register_var(var, &val);
        out.push_str(&val);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> PathBuf {
        PathBuf::from("mcp-gen-ui.toml")
    }

    #[test]
    fn parses_the_documented_example() {
        let text = r#"
out_dir = "ui"
generator = "builtin"
enabled_tools = []

[upstream]
command = "cargo"
args = ["run", "--quiet", "-p", "mcp-gen-ui-examples", "--bin", "weather-server"]

[llm]
provider = "anthropic"
model = "claude-sonnet-4-5"

[serve]
stale = "serve"

[tools.get_forecast]
hints = { view = "line", x = "date", y = ["high", "low"] }
widgets = [{ name = "chart", default = true }, { name = "table" }]
csp = { connect_domains = [], resource_domains = [] }
"#;
        let f = parse(&p(), text).unwrap();
        let t = &f.tools["get_forecast"];
        assert_eq!(t.hints.view, Some(ViewKind::Line));
        assert_eq!(t.hints.y, vec!["high", "low"]);
        assert_eq!(t.widgets.len(), 2);
        assert_eq!(f.llm.max_tokens, 8192);
        assert_eq!(f.llm.timeout_ms, 180_000);
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let text = "out_dir = \"ui\"\n\n[upstream]\ncomand = \"x\"\n";
        let e = parse(&p(), text).unwrap_err().to_string();
        assert!(e.contains("line 4"), "{e}");
        assert!(e.contains("comand"), "{e}");
    }

    #[test]
    fn generate_table_sets_the_file_cap() {
        let f = parse(&p(), "[generate]\nmax_file_bytes = 1024\n").unwrap();
        assert_eq!(f.generate.max_file_bytes, Some(1024));
        assert_eq!(parse(&p(), "").unwrap().generate.max_file_bytes, None);
        assert!(parse(&p(), "[generate]\nmax_file = 1\n").is_err());
    }

    #[test]
    fn wrong_type_names_line() {
        let text = "[llm]\nmax_tokens = \"lots\"\n";
        let e = parse(&p(), text).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn api_key_in_file_is_refused() {
        let text = "[llm]\nprovider = \"openai\"\napi_key = \"sk-123\"\n";
        let e = parse(&p(), text).unwrap_err().to_string();
        assert!(e.contains(":3:"), "{e}");
        assert!(e.contains("OPENAI_API_KEY"), "{e}");
        assert!(
            !e.contains("sk-123"),
            "the secret itself must not be echoed: {e}"
        );
    }

    #[test]
    fn literal_authorization_header_is_refused_but_env_reference_is_fine() {
        let bad =
            "[upstream]\nurl = \"http://x/mcp\"\nheaders = { Authorization = \"Bearer abc\" }\n";
        assert!(matches!(
            parse(&p(), bad),
            Err(ConfigError::SecretInFile { .. })
        ));
        let good = "[upstream]\nurl = \"http://x/mcp\"\nheaders = { Authorization = \"Bearer ${TOKEN}\" }\n";
        assert!(parse(&p(), good).is_ok());
    }

    #[test]
    fn expand_env_reads_and_reports_missing() {
        // SAFETY of test: PATH is always set.
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand_env("a${PATH}b", "x").unwrap(), format!("a{path}b"));
        assert!(matches!(
            expand_env("${MCP_GEN_UI_SURELY_UNSET_VAR}", "header"),
            Err(ConfigError::MissingEnv { .. })
        ));
    }

    #[test]
    fn env_on_the_command_line_inherits_or_sets_and_refuses_our_secrets() {
        let load = |server: Option<&str>, url: Option<&str>, env: &[&str]| {
            Config::load(&Overrides {
                server: server.map(str::to_string),
                url: url.map(str::to_string),
                out_dir: Some(PathBuf::from("ui")),
                env: env.iter().map(|e| e.to_string()).collect(),
                ..Overrides::default()
            })
        };
        let cfg = load(
            Some("node server.js"),
            None,
            &["DATABASE_URL", "REGION=eu-west-value", "APP_*", "EMPTY="],
        )
        .unwrap();
        let Ok(UpstreamSpec::Stdio(s)) = cfg.upstream() else {
            panic!("a stdio upstream");
        };
        assert_eq!(s.inherit, ["DATABASE_URL", "APP_*"]);
        assert_eq!(s.env["REGION"], "eu-west-value");
        assert_eq!(s.env["EMPTY"], "");
        assert_eq!(
            cfg.cli_env_names,
            ["DATABASE_URL", "REGION", "APP_*", "EMPTY"]
        );
        // The value is a secret from now on.
        assert_eq!(
            crate::secrets::redact("region eu-west-value"),
            "region [redacted]"
        );
        for bad in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY=sk-x",
            "MCP_GEN_UI_TOKEN",
        ] {
            let e = load(Some("node s.js"), None, &[bad])
                .unwrap_err()
                .to_string();
            assert!(e.contains("own secrets") && e.contains("[upstream]"), "{e}");
            assert!(!e.contains("sk-x"), "{e}");
        }
        for bad in ["1X", "A-B", "=v", "", "X Y"] {
            let e = load(Some("node s.js"), None, &[bad])
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a variable name"), "{bad:?}: {e}");
        }
        let e = load(None, Some("http://127.0.0.1:9/mcp"), &["X"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("not to one reached by URL"), "{e}");
        // Nothing to start: nothing to do.
        assert!(load(None, None, &["X"]).is_ok());
    }

    #[test]
    fn protocol_from_the_file_or_the_command_line() {
        let f = parse(
            &p(),
            "[upstream]\ncommand = \"x\"\nprotocol = \"handshake\"\n",
        )
        .unwrap();
        assert_eq!(f.upstream.unwrap().protocol, Some(Protocol::Handshake));
        let e = parse(&p(), "[upstream]\ncommand = \"x\"\nprotocol = \"2025\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3") && e.contains("auto"), "{e}");
        let cfg = Config::load(&Overrides {
            server: Some("x".into()),
            protocol: Some(Protocol::Stateless),
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(cfg.protocol, Protocol::Stateless);
    }

    #[test]
    fn y_accepts_one_or_many() {
        let f = parse(&p(), "[tools.a]\nhints = { y = \"v\" }\n").unwrap();
        assert_eq!(f.tools["a"].hints.y, vec!["v"]);
    }
}
