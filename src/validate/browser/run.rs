//! Judging one page: load it in the local host with a tool-input and a result, then check the
//! handshake, what is on screen, the call its Run sends, the contrast of its text in the light
//! and the dark theme, its size report, and what it said on the console.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::session::{Session, clip, lock};
use super::types::{BrowserFinding, ContrastFix, PageToJudge, Theme};
use super::{host, launch};
use crate::review::visual::{HostFrame, host_document, input_for, result_for};

/// A browser and a local host, started once per run and shared by every page.
pub struct Judge {
    browser: launch::Browser,
    host: host::HostServer,
    seq: AtomicU64,
}

impl Judge {
    /// Starts the browser at `exe` and the local host.
    pub fn start(exe: &Path) -> Result<Judge, String> {
        let host =
            host::HostServer::start().map_err(|e| format!("cannot start the local host: {e}"))?;
        let local = host.origin().trim_start_matches("http://").to_string();
        let browser = launch::Browser::start(exe, &local, Duration::from_secs(20))?;
        Ok(Judge {
            browser,
            host,
            seq: AtomicU64::new(1),
        })
    }

    fn next_id(&self) -> String {
        let n = self.seq.fetch_add(1, Ordering::Relaxed);
        let rnd = crate::token::random_hex(6).unwrap_or_default();
        format!("{n}-{rnd}")
    }

    /// Judges one page (blocking; at most until its deadline, plus the browser's last answers).
    pub fn judge(&self, page: &PageToJudge<'_>) -> Vec<BrowserFinding> {
        judge_page(self, page)
    }
}

/// The probes, run in an isolated world of the page's frame.
const PROBE: &str = include_str!("probe.js");
/// The page must report its size this soon after its handshake ends (ms).
const SIZE_WITHIN_MS: u64 = 3000;
/// The handshake must end this soon (it takes milliseconds when it works).
/// (Generous: a loaded machine slows the browser down, and a slow start is not the page's fault.)
const HANDSHAKE: Duration = Duration::from_secs(10);

/// The page's frame, probed from a world of the judge's own.
struct Probe<'s> {
    s: &'s Session,
    context: Option<i64>,
}

impl Probe<'_> {
    fn world(&mut self) -> Option<i64> {
        if self.context.is_none() {
            let tree = self.s.call("Page.getFrameTree", json!({})).ok()?;
            let frame = tree.pointer("/frameTree/childFrames/0/frame/id")?.clone();
            let w = self
                .s
                .call(
                    "Page.createIsolatedWorld",
                    json!({"frameId": frame, "worldName": "mcp-gen-ui-judge"}),
                )
                .ok()?;
            self.context = w.get("executionContextId").and_then(Value::as_i64);
        }
        self.context
    }

    fn run(&mut self, op: &str, arg: &Value) -> Option<Value> {
        for _ in 0..2 {
            let ctx = self.world()?;
            let expr = format!("({PROBE})({}, {arg})", Value::from(op));
            match self.s.call(
                "Runtime.evaluate",
                json!({"expression": expr, "contextId": ctx, "returnByValue": true}),
            ) {
                Ok(r) if r.get("exceptionDetails").is_none() => {
                    return r.pointer("/result/value").cloned();
                }
                // The frame navigated: a new document needs a new world.
                _ => self.context = None,
            }
        }
        None
    }
}

fn host_state(s: &Session) -> Value {
    s.host("JSON.stringify(window.__host || null)")
        .and_then(|v| v.as_str().and_then(|t| serde_json::from_str(t).ok()))
        .unwrap_or(Value::Null)
}

/// Waits until `done` holds of the host's record, or until `until`.
fn wait_host(s: &Session, until: Instant, done: &dyn Fn(&Value) -> bool) -> Value {
    loop {
        let st = host_state(s);
        if done(&st) || Instant::now() >= until {
            return st;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn soon(deadline: Instant, d: Duration) -> Instant {
    (Instant::now() + d).min(deadline)
}

fn finding(rule: &'static str, message: String) -> BrowserFinding {
    BrowserFinding {
        rule,
        message,
        line: None,
        contrast: None,
    }
}

/// Strings a synthetic input gives a `pattern` field rarely match it: the first of a few common
/// shapes that does (a ticker, a code, a number, a word) takes its place.
fn fit_patterns(schema: &Value, input: &mut Value) {
    const SHAPES: [&str; 10] = [
        "ABC",
        "abc",
        "Abc",
        "A1",
        "123",
        "ab-12",
        "ABC-123",
        "a@example.com",
        "2026-01-01",
        "x",
    ];
    let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        input.as_object_mut(),
    ) else {
        return;
    };
    for (k, v) in obj.iter_mut() {
        let Some(re) = props
            .get(k)
            .and_then(|p| p.get("pattern"))
            .and_then(Value::as_str)
            .and_then(|p| regex::Regex::new(p).ok())
        else {
            continue;
        };
        if v.as_str().is_some_and(|s| re.is_match(s)) {
            continue;
        }
        if let Some(shape) = SHAPES.iter().find(|s| re.is_match(s)) {
            *v = Value::String((*shape).to_string());
        }
    }
}

/// Judges one page; every finding is a reason not to keep it as it is.
pub fn judge_page(j: &Judge, p: &PageToJudge<'_>) -> Vec<BrowserFinding> {
    let id = j.next_id();
    let examples = Value::Array(p.examples.to_vec());
    let mut input = input_for(p.tool, Some(&examples).filter(|_| !p.examples.is_empty()));
    if let Some(schema) = p.tool.get("inputSchema") {
        fit_patterns(schema, &mut input);
    }
    let result = p.sample.cloned().unwrap_or_else(|| result_for(p.tool));
    let host = host_document(HostFrame::Src(&format!("/page/{id}")), &input, &result);
    let (csp, _) = crate::preview::csp::app_csp(p.csp);
    j.host.add(
        &id,
        super::host::Served {
            host,
            page: p.html.to_string(),
            csp,
        },
    );
    let out = match Session::open(&j.browser.cdp, &j.host.origin(), p.deadline) {
        Ok(s) => checks(&s, j, &id, p, &input, &result),
        Err(e) => vec![finding(
            "browser-unavailable",
            format!("the browser could not open the page: {e}"),
        )],
    };
    j.host.remove(&id);
    if p.sample.is_none() && !p.tool.get("outputSchema").is_some_and(Value::is_object) {
        guessed(out)
    } else {
        out
    }
}

/// A tool with no outputSchema and no sample gets a guessed result (its text only): a page that
/// expects structured data may fail on it and still work with what the server really returns.
/// What the page's result handler threw on the guess (llm.js's fallback message, and the same
/// error seen uncaught) is only a note (`browser-guess`), never a reason to replace the page.
fn guessed(mut out: Vec<BrowserFinding>) -> Vec<BrowserFinding> {
    const SHOWN_INSTEAD: &str = "shown with the builtin view instead:";
    let errors: Vec<String> = out
        .iter()
        .filter_map(|f| f.message.split_once(SHOWN_INSTEAD))
        .map(|(_, e)| e.trim().to_string())
        .filter(|e| !e.is_empty())
        .collect();
    for f in &mut out {
        if f.rule == "browser-console"
            && (f.message.contains(SHOWN_INSTEAD) || errors.iter().any(|e| f.message.contains(e)))
        {
            f.rule = "browser-guess";
        }
    }
    out
}

fn checks(
    s: &Session,
    j: &Judge,
    id: &str,
    p: &PageToJudge<'_>,
    input: &Value,
    result: &Value,
) -> Vec<BrowserFinding> {
    let mut out = Vec::new();
    let url = format!("{}/host/{id}", j.host.origin());
    if let Err(e) = s.call("Page.navigate", json!({"url": url})) {
        out.push(finding(
            "browser-unavailable",
            format!("the browser could not load the page: {e}"),
        ));
        return out;
    }
    let st = wait_host(s, soon(p.deadline, HANDSHAKE), &|v| {
        v["initialized"] == true
    });
    if st["initialized"] != true {
        let log: Vec<&str> = st["log"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push(finding(
            "browser-handshake",
            format!(
                "the MCP Apps handshake did not complete within {} s (the page sent: {})",
                HANDSHAKE.as_secs(),
                if log.is_empty() {
                    "nothing".to_string()
                } else {
                    log.join(", ")
                }
            ),
        ));
        said(s, &mut out);
        return out;
    }
    let mut probe = Probe { s, context: None };
    values(&mut probe, p.deadline, result, &mut out);
    run_form(&mut probe, s, p, input, &mut out);
    for theme in [Theme::Light, Theme::Dark] {
        if theme == Theme::Dark {
            let _ = s.host("window.__hostTheme('dark'), true");
            let until = soon(p.deadline, Duration::from_millis(1000));
            while Instant::now() < until
                && probe
                    .run("theme", &Value::Null)
                    .as_ref()
                    .and_then(Value::as_str)
                    != Some("dark")
            {
                std::thread::sleep(Duration::from_millis(50));
            }
            std::thread::sleep(Duration::from_millis(150));
        }
        contrast(&mut probe, theme, &mut out);
    }
    let st = wait_host(
        s,
        soon(p.deadline, Duration::from_millis(SIZE_WITHIN_MS)),
        &|v| v["sizeAt"].is_number(),
    );
    let since = st["initAt"].as_f64().unwrap_or(0.0);
    match st["sizeAt"].as_f64().map(|t| (t - since).max(0.0)) {
        Some(ms) if ms <= SIZE_WITHIN_MS as f64 => {}
        Some(ms) => out.push(finding(
            "browser-size",
            format!("the page sent ui/notifications/size-changed only after {ms:.0} ms (at most {SIZE_WITHIN_MS} ms)"),
        )),
        None => out.push(finding(
            "browser-size",
            format!("the page never sent ui/notifications/size-changed (hosts size the frame by it; within {SIZE_WITHIN_MS} ms)"),
        )),
    }
    said(s, &mut out);
    out
}

/// The console's errors, exceptions and CSP violations, and the requests that were blocked.
fn said(s: &Session, out: &mut Vec<BrowserFinding>) {
    // Messages arrive asynchronously: give the last ones a moment.
    std::thread::sleep(Duration::from_millis(100));
    let seen = lock(&s.seen);
    for m in &seen.said {
        let rule = if m.kind == "CSP violation" {
            "browser-csp"
        } else {
            "browser-console"
        };
        out.push(BrowserFinding {
            rule,
            message: format!("{}: {}", m.kind, m.text),
            line: m.line,
            contrast: None,
        });
    }
    let mut blocked = seen.blocked.clone();
    blocked.dedup();
    for u in blocked.iter().take(5) {
        out.push(finding(
            "browser-csp",
            format!("the page requested {u}: only the host's own origin is reachable (declare the origin in [tools.NAME] csp, or drop the request)"),
        ));
    }
}

/// Scalar values of the result a page is expected to show: top-level ones and those of the
/// first item of each list, at most six.
pub fn shown_values(result: &Value) -> Vec<String> {
    shown_values_split(result)
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// [`shown_values`], each with whether it comes from an item of a list (a chart may show those
/// as marks rather than text).
fn shown_values_split(result: &Value) -> Vec<(String, bool)> {
    fn walk(v: &Value, out: &mut Vec<(String, bool)>, depth: usize, in_list: bool) {
        if out.len() >= 6 || depth > 4 {
            return;
        }
        let has = |out: &Vec<(String, bool)>, s: &str| out.iter().any(|(x, _)| x == s);
        match v {
            Value::String(s)
                if !s.trim().is_empty()
                    && s.chars().count() <= 60
                    && !s.contains('<')
                    && !has(out, s) =>
            {
                out.push((s.clone(), in_list));
            }
            Value::Number(n) => {
                let t = match n.as_f64() {
                    Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
                    _ => n.to_string(),
                };
                if !has(out, &t) {
                    out.push((t, in_list));
                }
            }
            Value::Array(a) => {
                if let Some(first) = a.first() {
                    walk(first, out, depth + 1, true);
                }
            }
            Value::Object(o) => o.values().for_each(|x| walk(x, out, depth + 1, in_list)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(sc) = result.get("structuredContent") {
        walk(sc, &mut out, 0, false);
    }
    out
}

fn values(probe: &mut Probe<'_>, deadline: Instant, result: &Value, out: &mut Vec<BrowserFinding>) {
    let split = shown_values_split(result);
    let want: Vec<String> = split.iter().map(|(v, _)| v.clone()).collect();
    if want.is_empty() {
        // A text-only result: nothing to look for but what the page does with it.
        std::thread::sleep(Duration::from_millis(300));
        return;
    }
    let allowed = want.len() / 2;
    let until = soon(deadline, Duration::from_millis(2500));
    let mut missing: Vec<String> = want.clone();
    while Instant::now() < until {
        missing = probe
            .run("values", &json!(want))
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_else(|| want.clone());
        // A chart shows a list's values as marks: its items' values need no text.
        if probe.run("chart", &Value::Null) == Some(Value::Bool(true)) {
            missing.retain(|m| !split.iter().any(|(v, item)| v == m && *item));
        }
        if missing.len() <= allowed {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    out.push(finding(
        "browser-values",
        format!(
            "the result's values are not on screen: {} of {} missing ({})",
            missing.len(),
            want.len(),
            missing
                .iter()
                .map(|m| format!("{:?}", clip(m, 40)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
}

fn run_form(
    probe: &mut Probe<'_>,
    s: &Session,
    p: &PageToJudge<'_>,
    input: &Value,
    out: &mut Vec<BrowserFinding>,
) {
    let before = host_state(s)["calls"].as_array().map_or(0, Vec::len);
    let _ = probe.run("fill", input);
    let Some(pressed) = probe.run("run", &Value::Null).filter(|v| !v.is_null()) else {
        out.push(finding(
            "browser-run",
            "the page has no Run button or form to send the tool's call".into(),
        ));
        return;
    };
    let called = |v: &Value| v["calls"].as_array().is_some_and(|c| c.len() > before);
    let mut st = wait_host(s, soon(p.deadline, Duration::from_millis(1500)), &called);
    if !called(&st) && probe.run("confirm", &Value::Null) == Some(json!(true)) {
        st = wait_host(s, soon(p.deadline, Duration::from_millis(2000)), &called);
    } else if !called(&st) {
        st = wait_host(s, soon(p.deadline, Duration::from_millis(1500)), &called);
    }
    let Some(call) = st["calls"].as_array().and_then(|c| c.get(before)) else {
        out.push(finding(
            "browser-run",
            format!(
                "pressing {pressed} with a valid input sent no tools/call (a call the page refuses shows why in the page)"
            ),
        ));
        return;
    };
    let name = p.tool.get("name").and_then(Value::as_str).unwrap_or("");
    if call["name"].as_str() != Some(name) {
        out.push(finding(
            "browser-run",
            format!("Run called {} instead of the tool {name:?}", call["name"]),
        ));
    }
    let schema = p.tool.get("inputSchema").cloned().unwrap_or(json!({}));
    let args = if call["arguments"].is_null() {
        json!({})
    } else {
        call["arguments"].clone()
    };
    let errors = super::args::errors(&schema, &args);
    if !errors.is_empty() {
        out.push(finding(
            "browser-run",
            format!(
                "Run sent arguments the input schema rejects ({}): {}",
                clip(&args.to_string(), 160),
                errors.join("; ")
            ),
        ));
    }
}

fn contrast(probe: &mut Probe<'_>, theme: Theme, out: &mut Vec<BrowserFinding>) {
    let Some(Value::Array(fails)) = probe.run("contrast", &Value::Null) else {
        return;
    };
    for f in fails {
        let sel = f["selector"].as_str().unwrap_or("").to_string();
        let (fg, bg) = (
            f["fg"].as_str().unwrap_or(""),
            f["bg"].as_str().unwrap_or(""),
        );
        let need = f["need"].as_f64().unwrap_or(4.5);
        out.push(BrowserFinding {
            rule: "browser-contrast",
            message: format!(
                "rendered text {:?} ({sel}) is {fg} on {bg}: {}:1 in the {} theme, WCAG AA needs {need}:1{}",
                clip(f["text"].as_str().unwrap_or(""), 40),
                f["ratio"],
                theme.name(),
                if f["inline"] == true { " (the colour is set by the page's script)" } else { "" }
            ),
            line: None,
            contrast: Some(ContrastFix {
                selector: sel,
                theme,
                fg: fg.to_string(),
                bg: bg.to_string(),
                need,
            }),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(rule: &'static str, message: &str) -> BrowserFinding {
        BrowserFinding {
            rule,
            message: message.into(),
            line: None,
            contrast: None,
        }
    }

    #[test]
    fn a_handler_failing_on_a_guessed_result_is_only_a_note() {
        let out = guessed(vec![
            said(
                "browser-console",
                "console error: mcp-gen-ui: the page could not show the tool result, shown with the builtin view instead: TypeError: x is undefined",
            ),
            said(
                "browser-console",
                "uncaught exception: TypeError: x is undefined",
            ),
            said("browser-console", "console error: something else broke"),
            said("browser-csp", "CSP violation: img-src"),
        ]);
        let rules: Vec<&str> = out.iter().map(|f| f.rule).collect();
        assert_eq!(
            rules,
            [
                "browser-guess",
                "browser-guess",
                "browser-console",
                "browser-csp"
            ]
        );
    }

    #[test]
    fn values_of_list_items_are_told_apart() {
        let r = json!({"structuredContent": {"symbol": "ACME", "points": [{"date": "2026-01-02", "close": 101.5}]}});
        assert_eq!(
            shown_values_split(&r),
            [
                ("ACME".to_string(), false),
                ("2026-01-02".to_string(), true),
                ("101.5".to_string(), true)
            ]
        );
    }
}
