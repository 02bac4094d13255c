//! One page's tab in the judging browser: its own browser context (no storage shared with other
//! pages), every request outside the local host's origin failed before it leaves, and what the
//! page says on the console (errors, exceptions, CSP violations) collected as it happens.

use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::cdp::{Cdp, CdpError};

/// A console error, an uncaught exception or a CSP violation, with its line when the browser
/// gives one (1-based, in the page's document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub kind: &'static str,
    pub text: String,
    pub line: Option<usize>,
}

/// What the page did that the session saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub said: Vec<Said>,
    /// Requests failed because they left the local host's origin (or used another scheme).
    pub blocked: Vec<String>,
}

pub struct Session {
    cdp: Arc<Cdp>,
    id: String,
    target: String,
    context: String,
    pub seen: Arc<Mutex<Seen>>,
    deadline: Instant,
}

pub fn lock(seen: &Mutex<Seen>) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Session {
    /// Opens a tab in a fresh browser context, with requests intercepted and the console heard.
    pub fn open(cdp: &Arc<Cdp>, origin: &str, deadline: Instant) -> Result<Session, CdpError> {
        let wait = || {
            deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_secs(10))
        };
        let c = cdp.call(
            None,
            "Target.createBrowserContext",
            json!({"disposeOnDetach": true}),
            wait(),
        )?;
        let context = str_of(&c, "browserContextId");
        let t = cdp.call(
            None,
            "Target.createTarget",
            json!({"url": "about:blank", "browserContextId": context}),
            wait(),
        )?;
        let target = str_of(&t, "targetId");
        let mut s = Session {
            cdp: Arc::clone(cdp),
            id: String::new(),
            target,
            context,
            seen: Arc::default(),
            deadline,
        };
        let a = cdp.call(
            None,
            "Target.attachToTarget",
            json!({"targetId": s.target, "flatten": true}),
            wait(),
        )?;
        s.id = str_of(&a, "sessionId");
        let events = cdp.events(&s.id);
        let (cdp2, seen, sid) = (Arc::clone(cdp), Arc::clone(&s.seen), s.id.clone());
        let origin = format!("{origin}/");
        std::thread::spawn(move || listen(&events, &cdp2, &sid, &origin, &seen));
        s.call("Fetch.enable", json!({"patterns": [{"urlPattern": "*"}]}))?;
        s.call("Runtime.enable", json!({}))?;
        s.call("Log.enable", json!({}))?;
        s.call("Page.enable", json!({}))?;
        // Frames in a process of their own and workers are attached (paused until they are
        // intercepted and heard like the page).
        s.call(
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        )?;
        Ok(s)
    }

    /// A command on this tab, bounded by the page's deadline (and 10 s).
    pub fn call(&self, method: &str, params: Value) -> Result<Value, CdpError> {
        let wait = self
            .deadline
            .saturating_duration_since(Instant::now())
            .min(Duration::from_secs(10))
            .max(Duration::from_millis(200));
        self.cdp.call(Some(&self.id), method, params, wait)
    }

    /// Evaluates `expr` in the host page (the top frame's own world) and returns its value.
    pub fn host(&self, expr: &str) -> Option<Value> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true}),
            )
            .ok()?;
        r.get("result")?.get("value").cloned()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let short = Duration::from_secs(2);
        let _ = self.cdp.call(
            None,
            "Target.closeTarget",
            json!({"targetId": self.target}),
            short,
        );
        let _ = self.cdp.call(
            None,
            "Target.disposeBrowserContext",
            json!({"browserContextId": self.context}),
            short,
        );
        self.cdp.forget(&self.id);
    }
}

/// The tab's events until it is closed: requests answered (the local host's own origin goes
/// through, everything else fails as blocked), console errors, exceptions and security messages
/// kept.
fn listen(
    events: &Receiver<Value>,
    cdp: &Arc<Cdp>,
    sid: &str,
    origin: &str,
    seen: &Arc<Mutex<Seen>>,
) {
    while let Ok(ev) = events.recv() {
        let method = ev.get("method").and_then(Value::as_str).unwrap_or("");
        let p = ev.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "Fetch.requestPaused" => {
                let rid = p.get("requestId").cloned().unwrap_or(Value::Null);
                let url = p
                    .pointer("/request/url")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if url.starts_with(origin) {
                    cdp.send(
                        Some(sid),
                        "Fetch.continueRequest",
                        json!({"requestId": rid}),
                    );
                } else {
                    lock(seen).blocked.push(clip(url, 160));
                    cdp.send(
                        Some(sid),
                        "Fetch.failRequest",
                        json!({"requestId": rid, "errorReason": "BlockedByClient"}),
                    );
                }
            }
            "Target.attachedToTarget" => {
                let Some(child) = p.get("sessionId").and_then(Value::as_str) else {
                    continue;
                };
                attach_child(cdp, child, origin, seen);
            }
            "Runtime.consoleAPICalled" => {
                let kind = p.get("type").and_then(Value::as_str).unwrap_or("");
                if kind != "error" && kind != "assert" {
                    continue;
                }
                let text: Vec<String> = p
                    .get("args")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().map(arg_text).collect())
                    .unwrap_or_default();
                let line = p
                    .pointer("/stackTrace/callFrames/0/lineNumber")
                    .and_then(Value::as_u64)
                    .map(|l| l as usize + 1);
                say(seen, "console error", &text.join(" "), line);
            }
            "Runtime.exceptionThrown" => {
                let d = p.get("exceptionDetails").cloned().unwrap_or(Value::Null);
                let text = d
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .or_else(|| d.get("text").and_then(Value::as_str))
                    .unwrap_or("an exception");
                let line = d
                    .get("lineNumber")
                    .and_then(Value::as_u64)
                    .map(|l| l as usize + 1);
                say(seen, "uncaught exception", text, line);
            }
            "Log.entryAdded" => {
                let e = p.get("entry").cloned().unwrap_or(Value::Null);
                let level = e.get("level").and_then(Value::as_str).unwrap_or("");
                let text = e.get("text").and_then(Value::as_str).unwrap_or("");
                if level != "error" || text.contains("ERR_BLOCKED_BY_CLIENT") {
                    continue;
                }
                let kind = if text.contains("Content Security Policy") {
                    "CSP violation"
                } else {
                    "browser error"
                };
                let line = e
                    .get("lineNumber")
                    .and_then(Value::as_u64)
                    .map(|l| l as usize + 1);
                say(seen, kind, text, line);
            }
            _ => {}
        }
    }
}

/// A frame or worker the page started: intercepted and heard like the page, then let run.
fn attach_child(cdp: &Arc<Cdp>, child: &str, origin: &str, seen: &Arc<Mutex<Seen>>) {
    let events = cdp.events(child);
    let (cdp2, seen2, sid, origin2) = (
        Arc::clone(cdp),
        Arc::clone(seen),
        child.to_string(),
        origin.to_string(),
    );
    std::thread::spawn(move || listen(&events, &cdp2, &sid, &origin2, &seen2));
    let c = Some(child);
    cdp.send(
        c,
        "Fetch.enable",
        json!({"patterns": [{"urlPattern": "*"}]}),
    );
    cdp.send(c, "Runtime.enable", json!({}));
    cdp.send(c, "Log.enable", json!({}));
    cdp.send(
        c,
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
    );
    cdp.send(c, "Runtime.runIfWaitingForDebugger", json!({}));
}

fn arg_text(a: &Value) -> String {
    match a.get("value") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => a
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

fn say(seen: &Mutex<Seen>, kind: &'static str, text: &str, line: Option<usize>) {
    let first = text.lines().next().unwrap_or("").trim();
    let mut s = lock(seen);
    if s.said.len() < 20 {
        s.said.push(Said {
            kind,
            text: clip(first, 300),
            line,
        });
    }
}

pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}
