//! Whether a process outlived what should have ended it.

/// Waits up to five seconds for process `pid` to be gone (a zombie counts as gone: its parent
/// just has not reaped it yet).
#[cfg(unix)]
pub fn gone(pid: i32) -> bool {
    (0..100).any(|_| {
        // SAFETY: signal 0 only probes whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ");
        if alive {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        !alive
    })
}
