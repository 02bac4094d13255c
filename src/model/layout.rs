//! The files mcp-gen-ui itself manages in the output directory, named in one place: the lock,
//! the tool snapshot, and the run's own bookkeeping (never reported as stray, never a tool's file).

/// The lock's file name inside the output directory (book: reference/names.md).
pub const LOCK_FILE: &str = "mcp-gen-ui.lock";
/// The snapshot of every tool definition as last generated (what `diff` compares against).
pub const TOOLS_FILE: &str = "mcp-gen-ui.tools.json";
/// Taken while a run writes to the output directory, so two runs never interleave.
pub const RUN_LOCK_FILE: &str = ".mcp-gen-ui.run-lock";
/// The lock an unfinished run was about to write.
pub const PENDING_LOCK_FILE: &str = ".mcp-gen-ui.lock.pending";
/// Suffix of temporary files; leftovers are ignored by `check` and removed by the next run.
pub const TEMP_SUFFIX: &str = ".tmp-mcp-gen-ui";

/// Whether a path inside the output directory belongs to mcp-gen-ui's bookkeeping rather than to
/// a tool (never reported as stray).
pub fn is_managed_name(rel: &str) -> bool {
    rel == LOCK_FILE
        || rel == TOOLS_FILE
        || rel == RUN_LOCK_FILE
        || rel == PENDING_LOCK_FILE
        || rel.ends_with(TEMP_SUFFIX)
}
