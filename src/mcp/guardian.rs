//! The guardian: a small process that outlives mcp-gen-ui by a moment to stop the process
//! groups of its stdio children when mcp-gen-ui dies, however it dies (even SIGKILL, which no
//! handler of ours sees). Book: reference/serve.md.
//!
//! Each stdio child runs in a process group of its own (so that shutdown reaches grandchildren,
//! e.g. the `node` that `npx` starts). A parent-death signal on the child would not reach those
//! grandchildren, and Linux sends it when the spawning *thread* ends, not the process. So the
//! first child started also starts one guardian: `sh` reading a pipe whose only writer is
//! mcp-gen-ui. It is told `+<pgid>` when a group starts and `-<pgid>` once the group is gone;
//! when the pipe ends (mcp-gen-ui exited, normally or not), it sends SIGTERM to every group still
//! listed, gives them up to 2 s, then SIGKILL. It runs in a group of its own and ignores
//! SIGINT, SIGTERM and SIGHUP, so a Ctrl-C at the terminal does not take it before its job.
//! Every file descriptor of ours is close-on-exec, so neither the guardian nor the children hold
//! the pipe's writing end. POSIX `sh`, `kill` and `sleep` exist on Linux and macOS alike.

use std::io::Write as _;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// The guardian's script. `$gs` is the list of groups alive; on end of input: SIGTERM to each,
/// up to 20 × 0.1 s for them to go, SIGKILL to what is left.
const SCRIPT: &str = r#"trap '' INT TERM HUP
gs=""
while read -r op g; do
  case "$op" in
    +) gs="$gs $g" ;;
    -) n=""; for x in $gs; do [ "$x" = "$g" ] || n="$n $x"; done; gs="$n" ;;
  esac
done
[ -z "$gs" ] && exit 0
for g in $gs; do kill -TERM -"$g" 2>/dev/null; done
i=0
while [ $i -lt 20 ]; do
  a=""; for g in $gs; do kill -0 -"$g" 2>/dev/null && a="$a $g"; done; gs="$a"
  [ -z "$gs" ] && exit 0
  sleep 0.1; i=$((i+1))
done
for g in $gs; do kill -KILL -"$g" 2>/dev/null; done
exit 0"#;

/// The pipe to the guardian; `None` before the first child, or when it could not be started.
static PIPE: Mutex<Option<Pipe>> = Mutex::new(None);

enum Pipe {
    Open(ChildStdin),
    /// Starting it failed once: not tried again (the log said why).
    Failed,
}

/// Tells the guardian about a new process group, starting the guardian first if needed.
pub(crate) fn watch(pgid: i32) {
    tell(&format!("+ {pgid}\n"), true);
}

/// Tells the guardian a process group is gone.
pub(crate) fn forget(pgid: i32) {
    tell(&format!("- {pgid}\n"), false);
}

fn tell(line: &str, start: bool) {
    let mut pipe = match PIPE.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    if pipe.is_none() && start {
        *pipe = Some(spawn());
    }
    if let Some(Pipe::Open(stdin)) = pipe.as_mut()
        && let Err(e) = stdin.write_all(line.as_bytes())
    {
        tracing::warn!(
            "the guardian of child processes is gone ({e}): children may outlive mcp-gen-ui if it is killed"
        );
        *pipe = Some(Pipe::Failed);
    }
}

fn spawn() -> Pipe {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(SCRIPT)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    match cmd.spawn() {
        Ok(mut child) => {
            let Some(stdin) = child.stdin.take() else {
                return Pipe::Failed;
            };
            // Never waited for: it exits once we have, and init reaps it. A thread reaps it
            // should it end before us (it never does on its own).
            std::thread::spawn(move || {
                let _ = child.wait();
            });
            Pipe::Open(stdin)
        }
        Err(e) => {
            tracing::warn!(
                "cannot start the guardian of child processes (/bin/sh: {e}): children may outlive mcp-gen-ui if it is killed"
            );
            Pipe::Failed
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    fn alive(pid: i32) -> bool {
        // SAFETY: signal 0 only probes whether the process exists.
        let exists = unsafe { libc::kill(pid, 0) == 0 };
        exists
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ")
    }

    /// A guardian whose pipe closes stops the groups it was told about (SIGKILL for one that
    /// ignores SIGTERM) and leaves alone a group it was told is gone.
    #[test]
    fn closing_the_pipe_stops_the_listed_groups() {
        use std::os::unix::process::CommandExt as _;
        let start = |script: &str| {
            Command::new("/bin/sh")
                .args(["-c", script])
                .process_group(0)
                .stdin(Stdio::null())
                .spawn()
                .unwrap()
        };
        let mut stubborn = start("trap '' TERM; while :; do sleep 1; done");
        let mut other = start("sleep 30");
        let mut guardian = Command::new("/bin/sh")
            .args(["-c", super::SCRIPT])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        let (s, o) = (stubborn.id() as i32, other.id() as i32);
        let mut pipe = guardian.stdin.take().unwrap();
        write!(pipe, "+ {s}\n+ {o}\n- {o}\n").unwrap();
        drop(pipe);
        let began = Instant::now();
        let _ = guardian.wait();
        let _ = stubborn.wait();
        assert!(began.elapsed() < Duration::from_secs(5));
        assert!(!alive(s));
        assert!(
            alive(o),
            "a group the guardian was told is gone is left alone"
        );
        let _ = other.kill();
        let _ = other.wait();
    }
}
