//! What the first `generate --server` (or `--url`) leaves in a folder without a configuration:
//! `mcp-gen-ui.toml` naming that upstream, so that the next `serve`, `check --online` and
//! `list --online` need no flag (book: getting-started.md), every secret of the command line a
//! name to pass (book: reference/security.md, "Secrets on a command line").

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::config::{self, Config, GeneratorKind};
use crate::context::Context;
use crate::mcp::UpstreamSpec;

/// Writes the configuration a first run leaves, or says what a dry run would write. Does
/// nothing when a configuration was read (a different `--server` is for this run only) or the
/// upstream did not come from the command line.
pub fn leave_project(
    ctx: &Context,
    cfg: &Config,
    generator: Option<GeneratorKind>,
    dry_run: bool,
) -> anyhow::Result<()> {
    let (Some(path), Some(form)) = (&cfg.new_config_path, &cfg.cli_file_form) else {
        return Ok(());
    };
    if path.exists() {
        return Ok(());
    }
    let p = &ctx.printer;
    if dry_run {
        p.status(format!(
            "Dry run: would write {} naming this upstream.",
            path.display()
        ));
        return Ok(());
    }
    let dir = config_dir(path);
    let here = dir == Path::new(".");
    let env = config::parse_cli_env(&ctx.global.env)?;
    let cwd = match form {
        // A stdio upstream starts in the file's own directory unless told: this run's.
        UpstreamSpec::Stdio(_) if !here => std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string()),
        _ => None,
    };
    let text = config::render(&config::NewConfig {
        upstream: Some(form),
        generator: &generator.unwrap_or(cfg.file.generator).to_string(),
        out_dir: out_dir_text(&cfg.out_dir, here),
        env: &env,
        protocol: ctx.global.protocol,
        cwd,
    });
    // What we write must be what we read.
    config::parse(path, &text)
        .context("internal error: the first run wrote an invalid configuration")?;
    // Never over a file that appeared meanwhile.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path);
    let mut file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => {
            p.warn(format!(
                "could not write {} ({e}); `mcp-gen-ui init --server …` writes it too",
                path.display()
            ));
            return Ok(());
        }
    };
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    p.status(format!(
        "Wrote {} naming this upstream: the next `serve`, `check --online` and `list --online` \
         reach it with no flag.",
        path.display()
    ));
    if let Some(note) = config::kept_out_note(&cfg.cli_kept_out, path) {
        p.status(note);
    }
    Ok(())
}

/// The directory of the file to write (`.` for a bare name).
fn config_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() && d != Path::new(".") => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `out_dir` as the file says it: relative to the file, which sits here, or absolute.
fn out_dir_text(out_dir: &Path, here: bool) -> String {
    if here && out_dir.is_relative() {
        let rel = out_dir.strip_prefix(".").unwrap_or(out_dir);
        let s = rel.display().to_string();
        if s.is_empty() { ".".into() } else { s }
    } else {
        std::path::absolute(out_dir)
            .unwrap_or_else(|_| out_dir.to_path_buf())
            .display()
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_dir_is_relative_to_the_file() {
        assert_eq!(out_dir_text(Path::new("./ui"), true), "ui");
        assert_eq!(out_dir_text(Path::new("gen/ui"), true), "gen/ui");
        assert_eq!(out_dir_text(Path::new("/abs/ui"), true), "/abs/ui");
        assert!(Path::new(&out_dir_text(Path::new("ui"), false)).is_absolute());
        assert_eq!(config_dir(Path::new("mcp-gen-ui.toml")), Path::new("."));
        assert_eq!(config_dir(Path::new("x/y.toml")), Path::new("x"));
    }
}
