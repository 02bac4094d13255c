//! The committed output directory at a git revision (`diff --base REF`): its lock, tool
//! definitions and pages, read with `git show` — offline, nothing else is contacted.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

use super::Side;
use crate::lock::{Lock, TOOLS_FILE};

/// A revision that is safe to hand to git: not an option, no path separator of `REV:PATH`, no
/// control characters.
fn check_rev(rev: &str) -> anyhow::Result<()> {
    if rev.is_empty()
        || rev.starts_with('-')
        || rev.contains(':')
        || rev.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        bail!(
            "--base {}: not a git revision; give a branch, tag or commit such as `origin/main` or `HEAD~1`",
            super::clean(rev, 80)
        );
    }
    Ok(())
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE");
    c
}

/// `git … ARGS` in `dir`; stdout, or `None` when git says no.
fn git_out(dir: &Path, args: &[&str]) -> anyhow::Result<Option<Vec<u8>>> {
    let out = git(dir).args(args).output().map_err(|e| {
        anyhow::anyhow!("cannot run git ({e}): `diff --base` needs git on the PATH")
    })?;
    Ok(out.status.success().then_some(out.stdout))
}

/// Where the output directory sits in its repository: the repository's top level and the
/// directory's path inside it (`ui`, `web/ui`).
fn locate(out_dir: &Path) -> anyhow::Result<(PathBuf, String)> {
    let abs = std::path::absolute(out_dir)
        .with_context(|| format!("cannot resolve {}", out_dir.display()))?;
    // The directory itself may be gone in the working tree (all its tools removed).
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while !existing.is_dir() {
        let Some(parent) = existing.parent() else {
            bail!("{} is not in a git repository", out_dir.display());
        };
        if let Some(name) = existing.file_name() {
            rest.push(name.to_owned());
        }
        existing = parent;
    }
    let Some(top) = git_out(existing, &["rev-parse", "--show-toplevel"])? else {
        bail!(
            "{} is not in a git repository: `diff --base` compares the committed ui/ at a git revision with the working tree",
            out_dir.display()
        );
    };
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    let mut here = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.iter().rev() {
        here.push(name);
    }
    let rel = here.strip_prefix(&top).with_context(|| {
        format!(
            "{} is outside its git repository {}",
            out_dir.display(),
            top.display()
        )
    })?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok((top, rel.join("/")))
}

/// The committed output directory at `rev`: empty when it did not exist there.
pub fn side_at(out_dir: &Path, rev: &str) -> anyhow::Result<Side> {
    check_rev(rev)?;
    let (top, rel) = locate(out_dir)?;
    let spec = format!("{rev}^{{commit}}");
    let Some(commit) = git_out(&top, &["rev-parse", "--verify", "--quiet", &spec])? else {
        bail!(
            "--base {rev}: no such commit in {} (fetch it first, e.g. `git fetch origin main`, or with actions/checkout `fetch-depth: 0`)",
            top.display()
        );
    };
    let commit = String::from_utf8_lossy(&commit).trim().to_string();
    let at = |file: &str| -> anyhow::Result<Option<String>> {
        let path = if rel.is_empty() {
            file.to_string()
        } else {
            format!("{rel}/{file}")
        };
        Ok(git_out(&top, &["show", &format!("{commit}:{path}")])?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    };
    let shown = |file: &str| PathBuf::from(format!("{rev}:{rel}/{file}"));
    let lock = match at(crate::lock::LOCK_FILE)? {
        Some(text) => Some(Lock::parse(&shown(crate::lock::LOCK_FILE), &text)?),
        None => None,
    };
    let tools = match at(TOOLS_FILE)? {
        Some(text) => crate::lock::parse_snapshot(&shown(TOOLS_FILE), &text)?,
        None => Vec::new(),
    };
    let mut pages = Vec::new();
    if let Some(l) = &lock {
        for (_, w) in l.files() {
            pages.push((w.path.clone(), at(&w.path)?));
        }
    }
    Ok(Side::new(lock, &tools, |p| {
        pages
            .iter()
            .find(|(path, _)| path == p)
            .and_then(|(_, html)| html.clone())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_that_could_be_options_are_refused() {
        for bad in ["", "-p", "--output=x", "a:b", "a b", "a\nb"] {
            assert!(check_rev(bad).is_err(), "{bad:?}");
        }
        for good in ["HEAD", "HEAD~1", "origin/main", "v1.2.3", "0123abcd"] {
            assert!(check_rev(good).is_ok(), "{good}");
        }
    }
}
