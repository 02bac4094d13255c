//! `serve --http` holds its session cap under a burst of concurrent `initialize` requests: live
//! sessions, and the upstream processes they run, never outnumber `--max-sessions`, even while
//! sessions are evicted for new ones; an evicted or deleted session's upstream is gone within
//! 5 s. The upstream is `tests/fixtures/servers/slow_exit.py`, which takes 1.5 s to exit after
//! its stdin closes, so an upstream still going is counted.
#![cfg(target_os = "linux")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;

const CAP: usize = 4;

mod support;
use support::process;
use support::serve::{Listening, init, listening, rpc_post};

fn fixture() -> String {
    format!("python3 {}", support::fixture_file("servers/slow_exit.py"))
}

/// `serve --http` in front of the slow-exit fixture (support::serve's `Listening`); killed on
/// drop.
struct Serve {
    serving: Listening,
    url: String,
    _out: tempfile::TempDir,
}

impl Serve {
    async fn start(args: &[&str]) -> Serve {
        let out = tempfile::tempdir().unwrap();
        let mut cmd = support::tokio_bin();
        cmd.args(["serve", "--http", "127.0.0.1:0", "--server", &fixture()])
            .args(["--out-dir", out.path().to_str().unwrap()])
            .args(args)
            .env("MCP_GEN_UI_LOG", "info");
        let serving = listening(cmd, "listening on http://").await;
        let serve = Serve {
            url: serving.url.clone(),
            serving,
            _out: out,
        };
        // The readiness probe starts an upstream of its own: wait until it has been and gone.
        let ready = format!("{}/readyz", serve.url.trim_end_matches("/mcp"));
        for _ in 0..200 {
            if reqwest::get(&ready).await.is_ok_and(|r| r.status() == 200) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for _ in 0..100 {
            if upstreams(serve.pid()).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        serve
    }

    fn pid(&self) -> i32 {
        self.serving.child.id().unwrap() as i32
    }
}

/// The live (not zombie) upstream processes `serve` (pid `parent`) started.
fn upstreams(parent: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid …: comm may hold spaces, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let mut f = rest.split(' ');
        let state = f.next().unwrap_or("");
        let ppid: i32 = f.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if ppid != parent || state == "Z" {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmd).contains("slow_exit.py") {
            out.push(pid);
        }
    }
    out
}

/// POSTs one message; the status and the session header.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> (u16, Option<String>) {
    let req = rpc_post(
        http,
        url,
        session,
        "application/json, text/event-stream",
        body,
    );
    let Ok(r) = req.send().await else {
        return (0, None);
    };
    let status = r.status().as_u16();
    let sid = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let _ = r.bytes().await;
    (status, sid)
}

/// Counts `serve`'s upstream processes every few milliseconds until stopped; the most seen.
fn sample_upstreams(parent: i32, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let most = AtomicUsize::new(0);
        while !stop.load(Ordering::SeqCst) {
            most.fetch_max(upstreams(parent).len(), Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(3));
        }
        most.load(Ordering::SeqCst)
    })
}

/// The most sessions open at once, replayed from the log: each session logs "host session
/// opened" once it holds its slot, and "host session closed" before it gives the slot back.
fn most_open_in_log(log: &[String]) -> usize {
    let (mut open, mut most) = (0i64, 0i64);
    for l in log {
        if l.contains("host session opened") && !l.contains("stateless") {
            open += 1;
            most = most.max(open);
        } else if l.contains("host session closed") && !l.contains("stateless") {
            open -= 1;
        }
    }
    most as usize
}

/// 200 hosts initialize within 6 s, concurrently, against a cap of 4 where any idle session may be evicted: no
/// instant sees more than 4 sessions or 4 upstream processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_initialize_never_exceeds_the_cap() {
    let cap = CAP.to_string();
    let serve = Serve::start(&["--max-sessions", &cap, "--session-evict-seconds", "0"]).await;
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = sample_upstreams(serve.pid(), Arc::clone(&stop));
    let http = reqwest::Client::new();
    let burst = (0..200u64).map(|i| {
        let http = http.clone();
        let url = serve.url.clone();
        // Spread over 6 s, so that early sessions are idle (evictable) while later ones come.
        async move {
            tokio::time::sleep(Duration::from_millis(30 * i)).await;
            post(&http, &url, None, &init(i)).await.0
        }
    });
    let statuses = futures_util::future::join_all(burst).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::SeqCst);
    let most = sampler.join().unwrap();
    let admitted = statuses.iter().filter(|s| **s == 200).count();
    let log = serve.serving.log.0.lock().unwrap().clone();
    let evictions = serve
        .serving
        .log
        .count("closed the least recently used idle host session");
    assert!(
        admitted >= CAP && evictions > 0,
        "the burst should fill the cap and evict: {admitted} admitted, {evictions} evicted, \
         statuses {statuses:?}"
    );
    assert!(
        most <= CAP,
        "{most} upstream processes alive at once with --max-sessions {CAP} \
         ({admitted} admitted, {evictions} evicted)"
    );
    let most_open = most_open_in_log(&log);
    assert!(
        most_open <= CAP,
        "{most_open} sessions open at once with --max-sessions {CAP}"
    );
}

/// A session closed for a new host, or deleted, takes its upstream with it within 5 s.
#[tokio::test]
async fn an_evicted_or_deleted_sessions_upstream_is_gone_within_5_s() {
    let serve = Serve::start(&["--max-sessions", "1", "--session-evict-seconds", "0"]).await;
    let http = reqwest::Client::new();
    let (status, a) = post(&http, &serve.url, None, &init(1)).await;
    assert_eq!(status, 200);
    let a = a.unwrap();
    let first = upstreams(serve.pid());
    assert_eq!(first.len(), 1, "{first:?}");
    let (status, b) = post(&http, &serve.url, None, &init(2)).await;
    assert_eq!(status, 200, "a new host at the cap evicts the idle one");
    assert!(
        process::gone(first[0]),
        "the evicted session's upstream lives on"
    );
    let (status, _) = post(&http, &serve.url, Some(&a), &init(3)).await;
    assert_eq!(status, 404, "the evicted session is gone");
    let second = upstreams(serve.pid());
    assert_eq!(second.len(), 1, "{second:?}");
    let r = http
        .delete(&serve.url)
        .header("mcp-session-id", b.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert!(
        process::gone(second[0]),
        "the deleted session's upstream lives on"
    );
}
