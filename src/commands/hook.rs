//! `hook install`: a git pre-commit hook that runs `mcp-gen-ui check`, so a tampered or stale UI
//! never gets committed. It never clobbers a hook it did not write.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use clap::{Args, Subcommand};

use crate::context::{Context, Outcome};

/// The line that marks a hook as ours.
const MARKER: &str = "# Installed by mcp-gen-ui";

#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub action: HookAction,
}

#[derive(Debug, Subcommand)]
pub enum HookAction {
    /// Install (or update) the git pre-commit hook that runs `mcp-gen-ui check`
    Install {
        /// Replace an existing pre-commit hook that mcp-gen-ui did not write
        #[arg(long)]
        force: bool,
    },
}

/// Runs `hook install`.
pub fn run(ctx: &Context, args: &HookArgs) -> anyhow::Result<Outcome> {
    match args.action {
        HookAction::Install { force } => {
            let path = install(Path::new("."), ctx.global.config.as_deref(), force)?;
            ctx.printer.out(format!(
                "Installed the pre-commit hook at {}: commits now run `mcp-gen-ui check`.",
                path.display()
            ))?;
            Ok(Outcome::Success)
        }
    }
}

/// The hooks directory git uses for the repository containing `dir` (honours `core.hooksPath`
/// and worktrees).
fn hooks_dir(dir: &Path) -> anyhow::Result<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .current_dir(dir)
        .output()
        .context("cannot run git: is it installed?")?;
    if !out.status.success() {
        bail!(
            "{} is not inside a git repository: run `git init` first ({})",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The hook script. It prefers `mcp-gen-ui` on PATH and falls back to this binary's path.
fn script(config: Option<&Path>) -> String {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "mcp-gen-ui".into());
    let config = config
        .map(|c| format!(" --config {}", shell_words::quote(&c.display().to_string())))
        .unwrap_or_default();
    format!(
        "#!/bin/sh\n{MARKER} (`mcp-gen-ui hook install`): refuses a commit whose generated UIs\n\
         # were edited by hand, are stale or invalid. Bypass once with `git commit --no-verify`.\n\
         bin=$(command -v mcp-gen-ui 2>/dev/null || true)\n\
         [ -n \"$bin\" ] || bin={}\n\
         exec \"$bin\" check{config}\n",
        shell_words::quote(&exe)
    )
}

/// Writes the hook; refuses to replace a foreign one unless `force`.
pub fn install(dir: &Path, config: Option<&Path>, force: bool) -> anyhow::Result<PathBuf> {
    let hooks = hooks_dir(dir)?;
    std::fs::create_dir_all(&hooks)
        .with_context(|| format!("cannot create {}", hooks.display()))?;
    let path = hooks.join("pre-commit");
    if let Ok(existing) = std::fs::read_to_string(&path)
        && !existing.contains(MARKER)
        && !force
    {
        bail!(
            "{} already exists and was not written by mcp-gen-ui: add `mcp-gen-ui check` to it yourself, or replace it with `mcp-gen-ui hook install --force`",
            path.display()
        );
    }
    crate::write::write_atomic(&path, script(config).as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", path.display()))?;
    }
    Ok(path)
}
