//! Starting the judging browser: a local Chromium or Chrome, headless, with a fresh temporary
//! profile, its DevTools on a pipe (fds 3 and 4), every host name unresolvable but the local
//! host's, and no extensions, sync or background traffic. Dropping it ends the browser and
//! removes the profile.

use std::fs::File;
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use super::cdp::Cdp;

/// The window the pages are judged in (CSS pixels).
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 1000;

/// A running browser and its connection.
pub struct Browser {
    child: Child,
    profile: PathBuf,
    pub cdp: Arc<Cdp>,
}

fn pipe() -> std::io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((fds[0], fds[1]))
}

impl Browser {
    /// Starts `exe`. Fails with a message naming the browser when it cannot start or does not
    /// answer within `wait`.
    /// `local` is the local host's `127.0.0.1:PORT`: the only address reached directly; every
    /// other request goes to a proxy that does not exist.
    pub fn start(exe: &Path, local: &str, wait: Duration) -> Result<Browser, String> {
        let name = exe.display().to_string();
        let rnd = crate::token::random_hex(8).map_err(|e| format!("no randomness: {e}"))?;
        let profile = std::env::temp_dir().join(format!("mcp-gen-ui-judge-{rnd}"));
        std::fs::create_dir_all(&profile)
            .map_err(|e| format!("cannot create {}: {e}", profile.display()))?;
        let (their_in, our_out) = pipe().map_err(|e| format!("no pipe: {e}"))?;
        let (our_in, their_out) = pipe().map_err(|e| format!("no pipe: {e}"))?;
        let mut cmd = Command::new(exe);
        cmd.args(flags(&profile, local))
            .arg("about:blank")
            .env("TZ", "UTC")
            .env("LANG", "en_US.UTF-8")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                // Move both ends out of the way of 3 and 4 first, then into place (dup2 clears
                // close-on-exec on the copies).
                let a = libc::fcntl(their_in, libc::F_DUPFD_CLOEXEC, 10);
                let b = libc::fcntl(their_out, libc::F_DUPFD_CLOEXEC, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn();
        // SAFETY: each descriptor is ours and closed or wrapped exactly once.
        unsafe {
            libc::close(their_in);
            libc::close(their_out);
        }
        let (to_browser, from_browser) =
            unsafe { (File::from_raw_fd(our_out), File::from_raw_fd(our_in)) };
        let child = match child {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&profile);
                return Err(format!("cannot start the browser {name}: {e}"));
            }
        };
        let browser = Browser {
            child,
            profile,
            cdp: Arc::new(Cdp::new(to_browser, from_browser)),
        };
        browser
            .cdp
            .call(None, "Browser.getVersion", serde_json::json!({}), wait)
            .map_err(|e| format!("the browser {name} did not start: {e}"))?;
        Ok(browser)
    }
}

/// The command line: headless, isolated, quiet. The renderer sandbox stays on unless the process
/// runs as root, where Chromium cannot use it.
fn flags(profile: &Path, local: &str) -> Vec<String> {
    let own = [
        "--remote-debugging-pipe",
        "--disable-default-apps",
        "--disable-breakpad",
        "--lang=en-US",
        "--deny-permission-prompts",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        // Nothing resolves but the local host (its IP needs no resolution).
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        // The host and the sandboxed page in one renderer: the page's requests pass through the
        // same interception as the host's.
        "--disable-features=IsolateSandboxedIframes,site-per-process,IsolateOrigins,MediaRouter,OptimizationHints",
    ];
    let mut f: Vec<String> = crate::review::visual::QUIET_FLAGS
        .iter()
        .chain(&own)
        .map(|s| s.to_string())
        .collect();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        f.push("--no-sandbox".into());
    }
    // Whatever escapes the interception (a frame in a process of its own) meets a dead proxy:
    // only the local host is reached directly (`<-loopback>` drops the implicit bypass of every
    // loopback address).
    f.push("--proxy-server=http://127.0.0.1:9".into());
    f.push(format!("--proxy-bypass-list=<-loopback>;{local}"));
    f.push(format!("--window-size={WIDTH},{HEIGHT}"));
    f.push(format!("--user-data-dir={}", profile.display()));
    f
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.cdp.call(
            None,
            "Browser.close",
            serde_json::json!({}),
            Duration::from_secs(2),
        );
        for _ in 0..40 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
