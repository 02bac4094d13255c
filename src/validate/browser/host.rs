//! The local host the pages are judged in: a tiny HTTP server on 127.0.0.1 that serves the review
//! host page (`review::visual::host_document`) and, to its sandboxed frame, the page under judgment
//! with the tool's Content-Security-Policy as a header. Nothing else is served; it stops when
//! dropped.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One page to serve: the host document around it, the page, and the page's policy.
#[derive(Clone)]
pub struct Served {
    pub host: String,
    pub page: String,
    pub csp: String,
}

type Pages = Arc<Mutex<HashMap<String, Served>>>;

/// The running server.
pub struct HostServer {
    addr: SocketAddr,
    pages: Pages,
    stop: Arc<AtomicBool>,
}

fn lock(p: &Pages) -> std::sync::MutexGuard<'_, HashMap<String, Served>> {
    p.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HostServer {
    pub fn start() -> std::io::Result<HostServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let pages: Pages = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (Arc::clone(&pages), Arc::clone(&stop));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                if let Ok(c) = conn {
                    let p = Arc::clone(&p);
                    std::thread::spawn(move || serve(c, &p));
                }
            }
        });
        Ok(HostServer { addr, pages, stop })
    }

    /// `http://127.0.0.1:PORT`: the only origin the browser may reach.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves `page` under `id` until [`remove`](Self::remove).
    pub fn add(&self, id: &str, page: Served) {
        lock(&self.pages).insert(id.to_string(), page);
    }

    pub fn remove(&self, id: &str) {
        lock(&self.pages).remove(id);
    }
}

impl Drop for HostServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(mut c: TcpStream, pages: &Pages) {
    let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
        match c.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf);
    let path = head
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or("/");
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let found = |prefix: &str| {
        path.strip_prefix(prefix)
            .and_then(|id| lock(pages).get(id).cloned())
    };
    let (status, csp, body) = if path == "/favicon.ico" {
        ("204 No Content", None, String::new())
    } else if let Some(s) = found("/host/") {
        ("200 OK", None, s.host)
    } else if let Some(s) = found("/page/") {
        ("200 OK", Some(s.csp), s.page)
    } else {
        ("404 Not Found", None, String::new())
    };
    let mut out = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncache-control: no-store\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    if let Some(csp) = csp {
        out.push_str(&format!("content-security-policy: {csp}\r\n"));
    }
    out.push_str("\r\n");
    let _ = c.write_all(out.as_bytes());
    let _ = c.write_all(body.as_bytes());
    let _ = c.flush();
}
