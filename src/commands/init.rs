//! `init`: write `mcp-gen-ui.toml` — asking on a terminal (the upstream is tried live and its
//! tools listed), from flags otherwise — plus the `.gitattributes` line and, if wanted, the hook.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::Args;

use crate::config::{self, CONFIG_FILE, GeneratorKind};
use crate::context::{Context, Outcome};
use crate::mcp::{HttpTransport, UpstreamSpec};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Generator to configure (asked on a terminal)
    #[arg(long, value_enum)]
    pub generator: Option<GeneratorKind>,
    /// Install the git pre-commit hook that runs `mcp-gen-ui check`
    #[arg(long, conflicts_with = "no_hook")]
    pub hook: bool,
    /// Do not install the hook and do not ask
    #[arg(long)]
    pub no_hook: bool,
    /// Overwrite an existing configuration file
    #[arg(long)]
    pub force: bool,
    /// Never prompt, even on a terminal
    #[arg(long)]
    pub no_input: bool,
}

/// The `.gitattributes` line for an output directory: collapsed in reviews, never re-encoded.
pub fn gitattributes_line(out_dir: &str) -> String {
    format!(
        "{}/** linguist-generated=true -text",
        out_dir.trim_end_matches('/')
    )
}

/// Runs `init`.
pub fn run(ctx: &Context, args: &InitArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let path = ctx
        .global
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(CONFIG_FILE));
    if path.exists() && !args.force {
        bail!(
            "{} already exists: edit it, or pass --force to overwrite it",
            path.display()
        );
    }
    let interactive = !args.no_input
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none();

    let mut answers = Answers {
        upstream: None,
        file_upstream: None,
        kept_out: Vec::new(),
        generator: args.generator.unwrap_or_default(),
        out_dir: ctx
            .global
            .out_dir
            .as_ref()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|| "ui".into()),
        hook: args.hook,
        env: config::parse_cli_env(&ctx.global.env)?,
        protocol: ctx.global.protocol,
    };
    // Command-line upstream, if any (also the interactive default).
    let from_flags = match (&ctx.global.server, &ctx.global.url) {
        (Some(server), _) => Some(parse_upstream(server)?),
        (None, Some(url)) => Some(parse_url(
            url,
            ctx.global
                .transport
                .map(HttpTransport::from)
                .unwrap_or_default(),
        )),
        (None, None) => None,
    };
    answers.set_upstream(from_flags, &answers.env.clone())?;

    if interactive {
        ask(ctx, args, &mut answers)?;
    } else if answers.upstream.is_none() {
        bail!(
            "not a terminal, so nothing to ask: pass the upstream with --server \"CMD ARGS\" or --url URL (and --generator, --out-dir, --hook as needed)"
        );
    }

    let text = render(&answers);
    // What we write must be what we read.
    config::parse(&path, &text).context("internal error: init wrote an invalid configuration")?;
    crate::write::write_atomic(&path, text.as_bytes())?;
    let p = &ctx.printer;
    p.out(format!("Wrote {}.", path.display()))?;
    if let Some(note) = config::kept_out_note(&answers.kept_out, &path) {
        p.out(note)?;
    }

    let base = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if add_gitattributes(base, &answers.out_dir)? {
        p.out(format!(
            "Added `{}` to {}.",
            gitattributes_line(&answers.out_dir),
            base.join(".gitattributes").display()
        ))?;
    }
    if answers.hook && !args.no_hook {
        let config_arg = ctx.global.config.as_deref();
        match super::hook::install(base, config_arg, false) {
            Ok(hook) => p.out(format!(
                "Installed the pre-commit hook at {}.",
                hook.display()
            ))?,
            Err(e) => p.warn(format!(
                "the pre-commit hook was not installed: {}",
                crate::report::error_chain(&e)
            )),
        }
    }
    p.out("Next: `mcp-gen-ui generate`, then commit the config and the UIs.")?;
    Ok(Outcome::Success)
}

struct Answers {
    /// The upstream as it runs now (with `--env` applied).
    upstream: Option<UpstreamSpec>,
    /// The upstream as the file holds it (secrets as references).
    file_upstream: Option<UpstreamSpec>,
    /// The variables those references read.
    kept_out: Vec<String>,
    generator: GeneratorKind,
    out_dir: String,
    hook: bool,
    /// `--env` entries: names become `env_inherit`; values are used for this run only.
    env: Vec<(String, Option<String>)>,
    /// `--protocol`, written as `[upstream] protocol`.
    protocol: Option<crate::mcp::negotiate::Protocol>,
}

impl Answers {
    /// Takes a parsed upstream: the run form with `--env` applied, the file form as is.
    fn set_upstream(
        &mut self,
        parsed: Option<Parsed>,
        env: &[(String, Option<String>)],
    ) -> anyhow::Result<()> {
        let Some(parsed) = parsed else {
            return Ok(());
        };
        self.upstream = with_env(Some(parsed.run), env)?;
        self.file_upstream = Some(parsed.file);
        self.kept_out = parsed.kept_out;
        Ok(())
    }
}

/// The upstream with the command line's `--env` applied (what the first connection uses).
fn with_env(
    upstream: Option<UpstreamSpec>,
    env: &[(String, Option<String>)],
) -> anyhow::Result<Option<UpstreamSpec>> {
    Ok(config::apply_env_entries(upstream, env.to_vec(), Vec::new())?.0)
}

fn ask(ctx: &Context, args: &InitArgs, a: &mut Answers) -> anyhow::Result<()> {
    use dialoguer::{Confirm, Input, Select};
    let theme = dialoguer::theme::ColorfulTheme::default();
    loop {
        let default = a.upstream.as_ref().map(describe_raw).unwrap_or_default();
        let mut input = Input::<String>::with_theme(&theme)
            .with_prompt("MCP server: a command (stdio) or an http(s) URL");
        if !default.is_empty() {
            input = input.default(default);
        }
        let answer: String = input.interact_text()?;
        let parsed = parse_upstream(answer.trim())?;
        let spec = with_env(Some(parsed.run.clone()), &a.env)?.unwrap_or(parsed.run.clone());
        eprintln!("Connecting to {} …", spec.describe());
        let rt = ctx.runtime()?;
        let found = rt.block_on(crate::discover::discover_with(
            &spec,
            config::DEFAULT_CONNECT_TIMEOUT,
            a.protocol.unwrap_or_default(),
        ));
        match found {
            Ok(d) => {
                let names: Vec<String> = d
                    .tools
                    .iter()
                    .map(|t| crate::report::display_name(&t.name))
                    .collect();
                eprintln!(
                    "Found {} tool{} on `{}`: {}",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    crate::report::display_name(&d.server_name),
                    names.join(", ")
                );
                let env = a.env.clone();
                a.set_upstream(Some(parsed), &env)?;
                break;
            }
            Err(e) => {
                eprintln!(
                    "That did not work: {}",
                    crate::report::redact(&e.to_string())
                );
                let keep = Confirm::with_theme(&theme)
                    .with_prompt("Use it anyway?")
                    .default(false)
                    .interact()?;
                if keep {
                    let env = a.env.clone();
                    a.set_upstream(Some(parsed), &env)?;
                    break;
                }
            }
        }
    }
    if args.generator.is_none() {
        let choice = Select::with_theme(&theme)
            .with_prompt("Generator")
            .items([
                "builtin — deterministic, offline, no API key",
                "llm — tool-specific UIs written by a model (needs an API key in the environment)",
            ])
            .default(0)
            .interact()?;
        a.generator = if choice == 1 {
            GeneratorKind::Llm
        } else {
            GeneratorKind::Builtin
        };
    }
    a.out_dir = Input::<String>::with_theme(&theme)
        .with_prompt("Output directory")
        .default(a.out_dir.clone())
        .interact_text()?;
    if !args.hook && !args.no_hook {
        a.hook = Confirm::with_theme(&theme)
            .with_prompt("Install a git pre-commit hook running `mcp-gen-ui check`?")
            .default(true)
            .interact()?;
    }
    Ok(())
}

/// An upstream as typed: what runs now (`run`) and what the file holds (`file`: every secret a
/// `${VAR}` reference, book: reference/security.md), with the variables a person must pass.
#[derive(Debug, Clone)]
struct Parsed {
    run: UpstreamSpec,
    file: UpstreamSpec,
    kept_out: Vec<String>,
}

/// A command line or a URL, as typed at the prompt or given with --server / --url.
fn parse_upstream(s: &str) -> anyhow::Result<Parsed> {
    if s.starts_with("http://") || s.starts_with("https://") {
        let transport = if s.trim_end_matches('/').ends_with("/sse") {
            HttpTransport::Sse
        } else {
            HttpTransport::StreamableHttp
        };
        return Ok(parse_url(s, transport));
    }
    let words = shell_words::split(s).map_err(|e| {
        anyhow::anyhow!(
            "cannot split `{}` into shell words: {e}",
            crate::secrets::redact(s)
        )
    })?;
    if words.is_empty() {
        bail!("enter the server's command line or URL");
    }
    let scrubbed = crate::secrets::scrub_words(words).map_err(anyhow::Error::msg)?;
    crate::secrets::register_scrubbed(&scrubbed);
    let spec = |args: &[String], env: BTreeMap<String, String>| {
        UpstreamSpec::Stdio(crate::mcp::StdioSpec {
            command: scrubbed.command.clone(),
            args: args.to_vec(),
            env,
            ..Default::default()
        })
    };
    let refs = scrubbed
        .env
        .iter()
        .map(|(n, _)| (n.clone(), format!("${{{n}}}")))
        .collect();
    Ok(Parsed {
        run: spec(&scrubbed.args, scrubbed.env.iter().cloned().collect()),
        file: spec(&scrubbed.file_args, refs),
        kept_out: scrubbed.kept_out(),
    })
}

/// A URL and its credentials, as [`parse_upstream`] does.
fn parse_url(url: &str, transport: HttpTransport) -> Parsed {
    let (file_url, vars) = crate::secrets::scrub_url(url);
    for (_, v) in &vars {
        crate::secrets::register_value(v);
    }
    let spec = |url: String| {
        UpstreamSpec::Http(crate::mcp::HttpSpec {
            url,
            transport,
            headers: Default::default(),
        })
    };
    Parsed {
        run: spec(url.to_string()),
        file: spec(file_url),
        kept_out: vars.into_iter().map(|(n, _)| n).collect(),
    }
}

fn describe_raw(spec: &UpstreamSpec) -> String {
    match spec {
        UpstreamSpec::Stdio(s) => {
            let mut w = vec![s.command.clone()];
            w.extend(s.args.iter().cloned());
            shell_words::join(w)
        }
        UpstreamSpec::Http(h) => h.url.clone(),
    }
}

/// The configuration text of the answers (the renderer `generate`'s first run shares).
fn render(a: &Answers) -> String {
    config::render(&config::NewConfig {
        upstream: a.file_upstream.as_ref(),
        generator: &a.generator.to_string(),
        out_dir: a.out_dir.clone(),
        env: &a.env,
        protocol: a.protocol,
        cwd: None,
    })
}

/// Appends the `.gitattributes` line when missing. Returns whether it wrote.
fn add_gitattributes(dir: &Path, out_dir: &str) -> anyhow::Result<bool> {
    let path = dir.join(".gitattributes");
    let line = gitattributes_line(out_dir);
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    if existing.lines().any(|l| l.trim() == line) {
        return Ok(false);
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&line);
    text.push('\n');
    crate::write::write_atomic(&path, text.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendered_configs_parse() {
        for upstream in [
            parse_upstream("npx -y \"@scope/server\" --flag 'a b'").unwrap(),
            parse_upstream("http://127.0.0.1:3001/sse").unwrap(),
            parse_upstream("env GITHUB_PAT=ghp_secret_1 npx srv --api-key sk-init-2").unwrap(),
        ] {
            for generator in [GeneratorKind::Builtin, GeneratorKind::Llm] {
                let stdio = matches!(upstream.run, UpstreamSpec::Stdio(_));
                let a = Answers {
                    upstream: Some(upstream.run.clone()),
                    file_upstream: Some(upstream.file.clone()),
                    kept_out: upstream.kept_out.clone(),
                    generator,
                    out_dir: "my ui \"dir\"".into(),
                    hook: false,
                    env: if stdio {
                        vec![
                            ("DATABASE_URL".into(), None),
                            ("REGION".into(), Some("eu-west-value-123".into())),
                        ]
                    } else {
                        Vec::new()
                    },
                    protocol: Some(crate::mcp::negotiate::Protocol::Handshake),
                };
                let text = render(&a);
                let parsed = config::parse(Path::new("x.toml"), &text).unwrap();
                assert_eq!(parsed.generator, generator);
                assert_eq!(parsed.out_dir.as_deref(), Some("my ui \"dir\""));
                let up = parsed.upstream.unwrap();
                assert_eq!(
                    up.protocol,
                    Some(crate::mcp::negotiate::Protocol::Handshake)
                );
                if stdio {
                    // --env NAME is kept as env_inherit; a value is never written.
                    assert_eq!(up.env_inherit, ["DATABASE_URL"]);
                    assert_eq!(up.env.is_empty(), upstream.kept_out.is_empty());
                    assert!(!text.contains("eu-west-value-123"), "{text}");
                    assert!(text.contains("REGION"), "{text}");
                    // Secrets of the command line: names only.
                    assert!(
                        !text.contains("ghp_secret_1") && !text.contains("sk-init-2"),
                        "{text}"
                    );
                    if !upstream.kept_out.is_empty() {
                        assert_eq!(up.env["GITHUB_PAT"], "${GITHUB_PAT}");
                        assert!(up.args.contains(&"${API_KEY}".to_string()), "{text}");
                    }
                }
            }
        }
        assert!(matches!(
            parse_upstream("http://h/sse").unwrap().run,
            UpstreamSpec::Http(crate::mcp::HttpSpec {
                transport: HttpTransport::Sse,
                ..
            })
        ));
    }
}
