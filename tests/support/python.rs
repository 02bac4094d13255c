//! The official Python MCP SDK, from the venv `tests/run-all.sh` installs with mcp-server-time
//! (`tests/.venv-time`). Tests that run Python peers skip, saying why, when it is not there.

use std::path::{Path, PathBuf};

/// The venv's Python when it can import `module` (a part of the SDK), else None after printing
/// why the caller skips.
pub fn python_with(module: &str) -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/.venv-time/bin/python");
    let ok = std::process::Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "skipped: no Python MCP SDK with {module} in tests/.venv-time (tests/run-all.sh installs it with mcp-server-time; it needs PyPI)"
        );
    }
    ok.then_some(python)
}
