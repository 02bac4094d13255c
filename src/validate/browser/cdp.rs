//! The Chrome DevTools Protocol over the browser's pipe (`--remote-debugging-pipe`): JSON
//! messages separated by NUL bytes, commands answered by id, events routed to the session they
//! belong to. One reader thread; callers block on their own answer with a deadline.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// Where answers and events go.
#[derive(Default)]
struct Routes {
    answers: HashMap<u64, Sender<Value>>,
    sessions: HashMap<String, Sender<Value>>,
    closed: bool,
}

/// A connection to one browser.
pub struct Cdp {
    out: Mutex<File>,
    next: AtomicU64,
    routes: Arc<Mutex<Routes>>,
}

/// Why a command got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    #[error("the browser closed its DevTools pipe")]
    Closed,
    #[error("the browser did not answer {0} within {1} ms")]
    Timeout(String, u128),
    #[error("the browser refused {0}: {1}")]
    Refused(String, String),
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Cdp {
    /// Talks over `to_browser` (the browser's fd 3) and `from_browser` (its fd 4).
    pub fn new(to_browser: File, from_browser: File) -> Cdp {
        let routes = Arc::new(Mutex::new(Routes::default()));
        let theirs = Arc::clone(&routes);
        std::thread::spawn(move || read_loop(from_browser, &theirs));
        Cdp {
            out: Mutex::new(to_browser),
            next: AtomicU64::new(1),
            routes,
        }
    }

    /// Sends a command and waits for its answer (the `result` object).
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        wait: Duration,
    ) -> Result<Value, CdpError> {
        let (id, rx) = self.send_inner(session, method, params, true)?;
        let rx = rx.ok_or(CdpError::Closed)?;
        let answer = match rx.recv_timeout(wait) {
            Ok(v) => v,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                lock(&self.routes).answers.remove(&id);
                return Err(CdpError::Timeout(method.to_string(), wait.as_millis()));
            }
            Err(_) => return Err(CdpError::Closed),
        };
        if let Some(e) = answer.get("error") {
            let msg = e.get("message").and_then(Value::as_str).unwrap_or("error");
            return Err(CdpError::Refused(method.to_string(), msg.to_string()));
        }
        Ok(answer.get("result").cloned().unwrap_or(Value::Null))
    }

    /// Sends a command without waiting for its answer.
    pub fn send(&self, session: Option<&str>, method: &str, params: Value) {
        let _ = self.send_inner(session, method, params, false);
    }

    fn send_inner(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        answer: bool,
    ) -> Result<(u64, Option<Receiver<Value>>), CdpError> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let rx = if answer {
            let (tx, rx) = channel();
            let mut r = lock(&self.routes);
            if r.closed {
                return Err(CdpError::Closed);
            }
            r.answers.insert(id, tx);
            Some(rx)
        } else {
            None
        };
        let mut bytes = serde_json::to_vec(&msg).map_err(|_| CdpError::Closed)?;
        bytes.push(0);
        let mut out = lock(&self.out);
        out.write_all(&bytes).map_err(|_| CdpError::Closed)?;
        out.flush().map_err(|_| CdpError::Closed)?;
        Ok((id, rx))
    }

    /// The events of one session, from now on.
    pub fn events(&self, session: &str) -> Receiver<Value> {
        let (tx, rx) = channel();
        lock(&self.routes).sessions.insert(session.to_string(), tx);
        rx
    }

    /// Stops routing a session's events.
    pub fn forget(&self, session: &str) {
        lock(&self.routes).sessions.remove(session);
    }
}

fn read_loop(from_browser: File, routes: &Mutex<Routes>) {
    let mut reader = BufReader::new(from_browser);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(0, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.last() == Some(&0) {
            buf.pop();
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&buf) else {
            continue;
        };
        let mut r = lock(routes);
        if let Some(id) = msg.get("id").and_then(Value::as_u64) {
            if let Some(tx) = r.answers.remove(&id) {
                let _ = tx.send(msg);
            }
        } else if let Some(s) = msg.get("sessionId").and_then(Value::as_str)
            && let Some(tx) = r.sessions.get(s)
        {
            let _ = tx.send(msg);
        }
    }
    let mut r = lock(routes);
    r.closed = true;
    // Dropping the senders wakes every waiter with "closed".
    r.answers.clear();
    r.sessions.clear();
}
