//! `mcp-gen-ui serve`: run the static wrapper (stdio by default, `--http ADDR` for streamable
//! HTTP), or print the Claude Desktop config that launches it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::Config;
use crate::context::{Context, Outcome, RuntimeFlavor};
use crate::lock::Lock;
use crate::mcp::{HttpTransport, UpstreamSpec};
use crate::serve::{self, HttpOptions, Strictness, TOKEN_ENV};

/// Environment variable for the log filter (tracing `EnvFilter` syntax, default `info`).
pub const LOG_ENV: &str = "MCP_GEN_UI_LOG";
/// The longest `--session-evict-seconds` honoured (a year): larger values mean "never".
const MAX_EVICT_SECONDS: u64 = 365 * 24 * 3600;
/// Set to `json` for one JSON object per log line.
pub const LOG_FORMAT_ENV: &str = "MCP_GEN_UI_LOG_FORMAT";

/// How `serve` writes its log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ServeArgs {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:3000). A
    /// non-loopback address needs a bearer token in MCP_GEN_UI_TOKEN.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: 2025-era host sessions open at once [default: 64, or [serve] max_sessions].
    #[arg(long, value_name = "COUNT")]
    pub max_sessions: Option<usize>,
    /// With --http: close a 2025-era host session after this many idle minutes [default: 5,
    /// or [serve] session_idle_minutes].
    #[arg(long, value_name = "MINUTES")]
    pub session_idle_minutes: Option<u64>,
    /// With --http: at the session limit, close the least recently used session idle this many
    /// seconds (nothing in flight, no open stream) for a new host [default: 1, or [serve]
    /// session_evict_seconds].
    #[arg(long, value_name = "SECS")]
    pub session_evict_seconds: Option<u64>,
    /// With --http: start every session id with `ID.`, so that a load balancer can route a
    /// session to the replica that holds it [or [serve] replica_id].
    #[arg(long, value_name = "ID")]
    pub replica_id: Option<String>,
    /// With --http: believe `X-Forwarded-Host` from this reverse proxy address (repeatable)
    /// [or [serve] trusted_proxies]; needs MCP_GEN_UI_TOKEN.
    #[arg(long, value_name = "IP")]
    pub trusted_proxy: Vec<String>,
    /// Log lines on stderr as text or one JSON object each [default: text, or
    /// MCP_GEN_UI_LOG_FORMAT].
    #[arg(long, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
    /// Reload UI files when they change and notify connected hosts.
    #[arg(long)]
    pub watch: bool,
    /// Serve UI files that no longer match the lock (with a warning) instead of refusing to start.
    #[arg(long)]
    pub allow_stale: bool,
    /// For clients without the MCP Apps extension (MCP-UI hosts), append each UI tool's page to
    /// its results as an embedded `text/html` resource [or [serve] embed_ui = true].
    #[arg(long)]
    pub embed_ui: bool,
    /// For clients without the MCP Apps extension, add what OpenAI Apps SDK hosts read
    /// (`openai/outputTemplate`, `text/html+skybridge` resources) [or [serve] apps_sdk = true].
    #[arg(long)]
    pub apps_sdk: bool,
    /// Print a one-line Claude Desktop config snippet that launches this wrapper, and exit.
    #[arg(long)]
    pub print_config: bool,
}

/// Runs `serve`. Start-up problems (config, lock, files, upstream) are errors (exit 2); once
/// serving, upstream failures are handled by restarting it.
pub fn run(ctx: &Context, args: &ServeArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let cfg = &ctx.config()?;
    if args.print_config {
        ctx.printer.out(desktop_config(cfg)?)?;
        if !cfg.cli_kept_out.is_empty() {
            ctx.printer.status(format!(
                "note: the host must start mcp-gen-ui with {} in its environment (the \"env\" of \
                 this server in the host's config): the command line's secrets are passed by name",
                cfg.cli_kept_out
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !cfg.cli_env_names.is_empty() {
            ctx.printer.status(format!(
                "note: the host must start mcp-gen-ui with {} in its environment (the \"env\" of this \
                 server in the host's config): --env passes names on, never values",
                cfg.cli_env_names
                    .iter()
                    .filter(|n| !n.ends_with('*'))
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return Ok(Outcome::Success);
    }
    init_logging(args.log_format);
    let options = serve::Options {
        cfg: cfg.clone(),
        strictness: if args.allow_stale {
            Strictness::AllowStale
        } else {
            Strictness::Strict
        },
        watch: args.watch,
        embed_ui: args.embed_ui,
        apps_sdk: args.apps_sdk,
        http: args
            .http
            .as_deref()
            .map(|addr| http_options(cfg, args, addr))
            .transpose()?,
    };
    // One thread, for HTTP too: a proxy's work per message is small, and every hop between
    // threads (HTTP handler → session → upstream client and back) costs a futex or eventfd
    // wake-up. On one thread a plain tool call through `serve --http` makes 6 system calls
    // (read and write on each side, two waits) instead of about 16, and adds ~50 µs less
    // (book/src/performance.md). Sessions still run concurrently, as tasks.
    let runtime = ctx.runtime_of(RuntimeFlavor::CurrentThread)?;
    runtime
        .block_on(serve::run(options))
        .map(|()| Outcome::Success)
}

/// `--http ADDR` and the options that go with it (command line over `[serve]`).
fn http_options(cfg: &Config, args: &ServeArgs, addr: &str) -> anyhow::Result<HttpOptions> {
    let mut opts = HttpOptions::from_args(addr, std::env::var(TOKEN_ENV).ok())?;
    if let Some(n) = args.max_sessions.or(cfg.file.serve.max_sessions) {
        anyhow::ensure!(
            n > 0,
            "--max-sessions / [serve] max_sessions must be at least 1"
        );
        opts.max_sessions = n;
    }
    if let Some(m) = args
        .session_idle_minutes
        .or(cfg.file.serve.session_idle_minutes)
    {
        anyhow::ensure!(
            m > 0,
            "--session-idle-minutes / [serve] session_idle_minutes must be at least 1"
        );
        opts.idle_timeout = std::time::Duration::from_secs(m.saturating_mul(60));
    }
    if let Some(s) = args
        .session_evict_seconds
        .or(cfg.file.serve.session_evict_seconds)
    {
        opts.evict_after = std::time::Duration::from_secs(s.min(MAX_EVICT_SECONDS));
    }
    if let Some(r) = args
        .replica_id
        .as_ref()
        .or(cfg.file.serve.replica_id.as_ref())
    {
        opts.set_replica_id(r)?;
    }
    let proxies = if args.trusted_proxy.is_empty() {
        &cfg.file.serve.trusted_proxies
    } else {
        &args.trusted_proxy
    };
    opts.set_trusted_proxies(proxies)?;
    Ok(opts)
}

fn init_logging(format: Option<LogFormat>) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_writer(|| crate::secrets::RedactingWriter::new(std::io::stderr()))
        .with_ansi(false)
        .with_env_filter(filter);
    // Another command (or the CLI) may have installed a subscriber already: keep it.
    let json = match format {
        Some(f) => f == LogFormat::Json,
        None => std::env::var(LOG_FORMAT_ENV).is_ok_and(|f| f == "json"),
    };
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// How this binary was installed, as far as its path tells: from npm, the launcher pins the
/// version with `npx`; from PyPI, `uvx`; otherwise the binary's own path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Install {
    Npm,
    PyPi,
    Binary(String),
}

impl Install {
    /// What the running binary's path says. npm puts the binary of a platform package at
    /// `node_modules/@mcp-gen-ui/<platform>/bin/`; a wheel puts it in an environment's `bin/`
    /// (`Scripts\` on Windows) next to `lib/python*/site-packages/mcp_gen_ui-*.dist-info`.
    pub fn detect(exe: &Path) -> Install {
        let dir = exe.parent();
        let npm = dir
            .filter(|d| d.file_name().is_some_and(|n| n == "bin"))
            .and_then(Path::parent)
            .and_then(Path::parent)
            .is_some_and(|scope| {
                scope.file_name().is_some_and(|n| n == "@mcp-gen-ui")
                    && scope
                        .parent()
                        .and_then(Path::file_name)
                        .is_some_and(|n| n == "node_modules")
            });
        if npm {
            return Install::Npm;
        }
        if let Some(env) = dir.and_then(Path::parent)
            && has_wheel_metadata(env)
        {
            return Install::PyPi;
        }
        Install::Binary(exe.display().to_string())
    }

    /// The host's `command` and the words before `serve`.
    fn launcher(&self) -> (String, Vec<String>) {
        let pinned = format!("mcp-gen-ui@{}", env!("CARGO_PKG_VERSION"));
        match self {
            Install::Npm => ("npx".into(), vec!["-y".into(), pinned]),
            Install::PyPi => ("uvx".into(), vec![pinned]),
            Install::Binary(path) => (path.clone(), Vec::new()),
        }
    }
}

/// Whether `env` (a Python environment) holds the wheel's metadata.
fn has_wheel_metadata(env: &Path) -> bool {
    let is_ours = |site: &Path| {
        std::fs::read_dir(site).ok().is_some_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name().to_string_lossy().to_ascii_lowercase();
                name.starts_with("mcp_gen_ui-") && name.ends_with(".dist-info")
            })
        })
    };
    // Windows: Lib\site-packages.
    if is_ours(&env.join("Lib").join("site-packages")) {
        return true;
    }
    std::fs::read_dir(env.join("lib"))
        .ok()
        .is_some_and(|entries| {
            entries.flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with("python")
                    && is_ours(&e.path().join("site-packages"))
            })
        })
}

/// `{"mcpServers":{"<name>":{"command":…,"args":["serve",…]}}}` on one line, with absolute
/// paths (Claude Desktop starts servers from an unrelated directory).
pub fn desktop_config(cfg: &Config) -> anyhow::Result<String> {
    let install = std::env::current_exe()
        .map(|p| Install::detect(&p))
        .unwrap_or_else(|_| Install::Binary("mcp-gen-ui".into()));
    desktop_config_for(cfg, &install)
}

/// [`desktop_config`] for a given installation.
pub fn desktop_config_for(cfg: &Config, install: &Install) -> anyhow::Result<String> {
    let (exe, mut args) = install.launcher();
    args.push("serve".into());
    match &cfg.path {
        Some(p) => {
            args.push("--config".into());
            args.push(absolute(p).display().to_string());
        }
        None => {
            args.push("--out-dir".into());
            args.push(absolute(&cfg.out_dir).display().to_string());
        }
    }
    if cfg.upstream_from_cli || cfg.path.is_none() {
        // The command line's secrets as `${VAR}` references and `--env NAME` (book:
        // reference/security.md, "Secrets on a command line"): names, never values.
        let upstream = match &cfg.cli_file_form {
            Some(form) => form,
            None => cfg.upstream()?,
        };
        if let UpstreamSpec::Stdio(s) = upstream {
            for name in s.env.keys() {
                args.push("--env".into());
                args.push(name.clone());
            }
        }
        match upstream {
            UpstreamSpec::Stdio(s) => {
                let mut words = vec![s.command.clone()];
                words.extend(s.args.iter().cloned());
                args.push("--server".into());
                args.push(shell_words::join(words));
            }
            UpstreamSpec::Http(h) => {
                args.push("--url".into());
                args.push(h.url.clone());
                if h.transport == HttpTransport::Sse {
                    args.push("--transport".into());
                    args.push("sse".into());
                }
            }
        }
    }
    // Names only: a value given with --env NAME=VALUE never reaches the printed config (the
    // host must provide it in the environment it starts us with).
    for name in &cfg.cli_env_names {
        args.push("--env".into());
        args.push(name.clone());
    }
    let name = match (&cfg.file.server_name, Lock::read(&cfg.out_dir)) {
        (Some(n), _) => crate::model::server_slug(n),
        (None, Ok(Some(lock))) => lock.server_name,
        _ => "mcp-gen-ui".into(),
    };
    let snippet: Value = json!({"mcpServers": {name: {"command": exe, "args": args}}});
    Ok(snippet.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Overrides;

    #[test]
    fn print_config_is_one_line_with_absolute_paths() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::load(&Overrides {
            server: Some("node server.js --flag 'a b'".into()),
            out_dir: Some(dir.path().join("ui")),
            ..Overrides::default()
        })
        .unwrap();
        let s = desktop_config_for(&cfg, &Install::Binary("/x/mcp-gen-ui".into())).unwrap();
        assert!(!s.contains('\n'));
        let v: Value = serde_json::from_str(&s).unwrap();
        let entry = &v["mcpServers"]["mcp-gen-ui"];
        let args: Vec<&str> = entry["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(args[0], "serve");
        assert!(args.contains(&"--server"));
        assert!(args.contains(&"node server.js --flag 'a b'"));
        let out = args[args.iter().position(|a| *a == "--out-dir").unwrap() + 1];
        assert!(Path::new(out).is_absolute());
        assert_eq!(entry["command"], "/x/mcp-gen-ui");
    }

    /// An npm or PyPI install prints the launcher with the version pinned, not the path of a
    /// binary inside a cache.
    #[test]
    fn print_config_from_npm_or_pypi_pins_the_launcher() {
        let dir = tempfile::tempdir().unwrap();
        let npm = dir
            .path()
            .join("project/node_modules/@mcp-gen-ui/linux-x64/bin/mcp-gen-ui");
        assert_eq!(Install::detect(&npm), Install::Npm);
        let venv = dir.path().join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        let exe = venv.join("bin/mcp-gen-ui");
        assert_eq!(
            Install::detect(&exe),
            Install::Binary(exe.display().to_string()),
            "a bin/ without the wheel's metadata"
        );
        std::fs::create_dir_all(
            venv.join("lib/python3.12/site-packages/mcp_gen_ui-0.1.0.dist-info"),
        )
        .unwrap();
        assert_eq!(Install::detect(&exe), Install::PyPi);
        assert_eq!(
            Install::detect(Path::new("/usr/local/bin/mcp-gen-ui")),
            Install::Binary("/usr/local/bin/mcp-gen-ui".into())
        );

        let cfg = Config::load(&Overrides {
            server: Some("node server.js".into()),
            out_dir: Some(dir.path().join("ui")),
            env: vec!["DATABASE_URL".into(), "API_REGION=eu-west-secret".into()],
            ..Overrides::default()
        })
        .unwrap();
        let version = env!("CARGO_PKG_VERSION");
        for (install, command, head) in [
            (
                Install::Npm,
                "npx",
                vec!["-y".to_string(), format!("mcp-gen-ui@{version}")],
            ),
            (Install::PyPi, "uvx", vec![format!("mcp-gen-ui@{version}")]),
        ] {
            let s = desktop_config_for(&cfg, &install).unwrap();
            let v: Value = serde_json::from_str(&s).unwrap();
            let entry = &v["mcpServers"]["mcp-gen-ui"];
            assert_eq!(entry["command"], command, "{s}");
            let args: Vec<String> = entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string())
                .collect();
            assert_eq!(args[..head.len()], head[..], "{s}");
            assert_eq!(args[head.len()], "serve", "{s}");
            // --env carries names, never values.
            let envs: Vec<&str> = args
                .windows(2)
                .filter(|w| w[0] == "--env")
                .map(|w| w[1].as_str())
                .collect();
            assert_eq!(envs, ["DATABASE_URL", "API_REGION"], "{s}");
            assert!(!s.contains("eu-west-secret"), "{s}");
        }
    }
}
