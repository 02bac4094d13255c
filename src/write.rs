//! Write stage: atomic file writes into the output directory, guarded by a run lock.
//!
//! Order of a write (so an interrupted run never leaves a state that lies): every new file goes to a
//! temporary name first; then the *pending* lock (what the lock will say) is written; then the
//! files are renamed into place; then the real lock replaces the old one and the pending lock is
//! removed. A run interrupted half-way leaves files that match the pending lock, which the next run
//! recognises as its own output rather than as hand edits.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::lock::Lock;
use crate::model::{LOCK_FILE, RUN_LOCK_FILE, TOOLS_FILE};

pub use crate::model::{PENDING_LOCK_FILE, TEMP_SUFFIX};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a directory (it is a file); the output directory must be a directory: \
         move the file away or choose another with --out-dir / `out_dir`"
    )]
    NotADirectory { path: PathBuf },
    #[error(
        "another mcp-gen-ui run is writing to {dir}; wait for it to finish (if none is running, delete {lockfile})"
    )]
    Busy { dir: PathBuf, lockfile: PathBuf },
}

/// `create_dir_all`, saying which part of the path is a file instead of "File exists".
fn create_dirs(dir: &Path) -> Result<(), WriteError> {
    match fs::create_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(source) => {
            let file = dir.ancestors().find(|a| {
                a.symlink_metadata()
                    .is_ok_and(|m| !m.is_dir() && !a.is_dir())
            });
            match file {
                Some(f) => Err(WriteError::NotADirectory {
                    path: f.to_path_buf(),
                }),
                None => Err(WriteError::Io {
                    path: dir.to_path_buf(),
                    source,
                }),
            }
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Held for the duration of a run that writes to the output directory.
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
    _file: File,
}

impl RunLock {
    pub fn acquire(out_dir: &Path) -> Result<RunLock, WriteError> {
        create_dirs(out_dir)?;
        let path = out_dir.join(RUN_LOCK_FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(RunLock { path, _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(WriteError::Busy {
                dir: out_dir.to_path_buf(),
                lockfile: path,
            }),
            Err(fs::TryLockError::Error(source)) => Err(WriteError::Io { path, source }),
        }
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // The OS lock goes with the file handle; the file itself should not linger in git status.
        let _ = fs::remove_file(&self.path);
    }
}

/// A file staged under a temporary name, renamed into place by [`commit`].
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
    dest: PathBuf,
}

impl Drop for Staged {
    /// A staged file that is never committed (the run failed or was abandoned) is removed.
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.tmp);
    }
}

fn tmp_name(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(
        ".{name}.{}{TEMP_SUFFIX}",
        crate::token::unique_hex(6)
    ))
}

/// Writes `bytes` to a temporary file next to `dest` (creating directories), flushed to disk.
pub fn stage(dest: &Path, bytes: &[u8]) -> Result<Staged, WriteError> {
    if let Some(parent) = dest.parent() {
        create_dirs(parent)?;
    }
    let tmp = tmp_name(dest);
    let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
    f.write_all(bytes).map_err(io_err(&tmp))?;
    f.sync_all().map_err(io_err(&tmp))?;
    Ok(Staged {
        tmp,
        dest: dest.to_path_buf(),
    })
}

/// Renames a staged file into place (atomic on the same file system).
pub fn commit(staged: Staged) -> Result<(), WriteError> {
    fs::rename(&staged.tmp, &staged.dest).map_err(io_err(&staged.dest))?;
    // Renamed into place: nothing is left for `Drop` to clean up.
    std::mem::forget(staged);
    Ok(())
}

/// Writes a whole file atomically.
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    commit(stage(dest, bytes)?)
}

/// Removes temporary files left by an interrupted run.
pub fn clean_temp_files(out_dir: &Path) {
    for entry in walkdir::WalkDir::new(out_dir)
        .max_depth(3)
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.file_type().is_file() && entry.file_name().to_string_lossy().ends_with(TEMP_SUFFIX)
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Reads the pending lock of an interrupted run, if any (ignored when unreadable).
pub fn read_pending(out_dir: &Path) -> Option<Lock> {
    let path = out_dir.join(PENDING_LOCK_FILE);
    let text = fs::read_to_string(&path).ok()?;
    Lock::parse(&path, &text).ok()
}

/// One complete, atomic update of the output directory.
#[derive(Debug, Default)]
pub struct Update {
    /// Relative path → new contents, held in memory (`diff`, `refine`).
    pub files: Vec<(String, Vec<u8>)>,
    /// Relative path → contents already staged in a temporary file (`generate` writes as it
    /// goes, so its memory does not grow with the number of pages).
    pub staged: Vec<(String, Staged)>,
    /// Relative paths that would be written (`--dry-run`: nothing is kept).
    pub discarded: Vec<String>,
    /// Relative paths to delete (files of removed tools).
    pub remove: Vec<String>,
    /// The new tools snapshot (`mcp-gen-ui.tools.json`).
    pub tools_json: Option<Vec<u8>>,
}

impl Update {
    /// No file would be written or removed (the lock and snapshot aside).
    pub fn writes_no_file(&self) -> bool {
        self.files.is_empty()
            && self.staged.is_empty()
            && self.discarded.is_empty()
            && self.remove.is_empty()
    }

    /// Every file that would be written, relative to the output directory.
    pub fn written_paths(&self) -> impl Iterator<Item = &str> {
        self.files
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(self.staged.iter().map(|(p, _)| p.as_str()))
            .chain(self.discarded.iter().map(String::as_str))
    }
}

/// Applies an update: stage everything, record the pending lock, rename into place, write the
/// lock, then drop the pending lock. Empty directories left by removed widgets are removed.
pub fn apply(out_dir: &Path, update: Update, lock: &Lock) -> Result<(), WriteError> {
    let mut staged: Vec<Staged> = update.staged.into_iter().map(|(_, s)| s).collect();
    for (rel, bytes) in &update.files {
        staged.push(stage(&out_dir.join(rel), bytes)?);
    }
    if let Some(json) = &update.tools_json {
        staged.push(stage(&out_dir.join(TOOLS_FILE), json)?);
    }
    let lock_text = lock.to_toml();
    let pending = out_dir.join(PENDING_LOCK_FILE);
    write_atomic(&pending, lock_text.as_bytes())?;
    for s in staged {
        commit(s)?;
    }
    for rel in &update.remove {
        let path = out_dir.join(rel);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(WriteError::Io { path, source }),
        }
        if let Some(parent) = path.parent()
            && parent != out_dir
        {
            // Only succeeds when empty, which is exactly when we want it gone.
            let _ = fs::remove_dir(parent);
        }
    }
    write_atomic(&out_dir.join(LOCK_FILE), lock_text.as_bytes())?;
    fs::remove_file(&pending).map_err(io_err(&pending))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::is_managed_name;

    #[test]
    fn run_lock_excludes_a_second_run() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path()).unwrap();
        assert!(matches!(
            RunLock::acquire(dir.path()),
            Err(WriteError::Busy { .. })
        ));
        drop(first);
        assert!(RunLock::acquire(dir.path()).is_ok());
    }

    #[test]
    fn an_abandoned_staged_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let temps = |d: &Path| {
            walkdir::WalkDir::new(d)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(TEMP_SUFFIX))
                .count()
        };
        let s = stage(&dir.path().join("a.html"), b"x").unwrap();
        assert_eq!(temps(dir.path()), 1);
        drop(s);
        assert_eq!(temps(dir.path()), 0);
        commit(stage(&dir.path().join("b.html"), b"y").unwrap()).unwrap();
        assert_eq!(temps(dir.path()), 0);
        assert_eq!(fs::read(dir.path().join("b.html")).unwrap(), b"y");
    }

    #[test]
    fn staged_files_are_invisible_until_committed() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("a/b.html");
        let s = stage(&dest, b"hello").unwrap();
        assert!(!dest.exists());
        clean_temp_files(dir.path());
        assert!(commit(s).is_err(), "cleaned temp files are gone");
        write_atomic(&dest, b"hello").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"hello");
        assert!(is_managed_name(".b.html.abc.tmp-mcp-gen-ui"));
        assert!(!is_managed_name("b.html"));
    }
}
