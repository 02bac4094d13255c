//! `serve --http`, the host side: UI clients over streamable HTTP, the guard (forged and oversized
//! requests, tokens, headers before bodies), JSON bodies and streams, per-client host options, and
//! the Python SDK as a host in both protocol eras.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

mod support;
use support::host::*;
use support::serve::{init, listening, rpc_post, serve_cmd, serve_http};
use support::{example, python, tokio_bin};

#[tokio::test]
async fn http_host_serves_ui_clients() {
    let ui = WeatherUi::new().await;
    let server = serve_http(&["--config", &ui.config()]).await;
    assert!(server.url.ends_with("/mcp"), "{}", server.url);
    let client = over_http(ui_client(), server.url.clone()).await;
    check_ui_client(&client, &ui).await;
    // A second host session gets its own upstream and works independently.
    let other = over_http(plain_client(), server.url.clone()).await;
    let tools: Vec<Value> = tools_of(&other).await;
    assert!(meta_of(&tools, "get_forecast").is_null());
    client.cancel().await.unwrap();
    other.cancel().await.unwrap();
}

#[tokio::test]
async fn http_host_refuses_forged_and_oversized_requests() {
    let ui = WeatherUi::new().await;
    let server = serve_http(&["--config", &ui.config()]).await;
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let post = |body: String| {
        http.post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
    };
    // A page elsewhere (its Origin) or a rebound name (its Host) is refused.
    for (name, value) in [("origin", "https://evil.example"), ("host", "evil.example")] {
        let r = post(init.to_string())
            .header(name, value)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{name}: {value}");
    }
    let r = post(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a request without a session");
    let r = post("{not json".into()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700);
    // Refused from its headers, before the body is sent (a client that writes the whole body
    // before reading finds the connection closed instead).
    let addr = host_port(&server.url);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        33 * 1024 * 1024
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
    assert!(got.contains("limit"), "{got:?}");
    // The server is still fine after all that. (A fresh client: the server closes the
    // connection whose oversized body it did not read, and a pooled one may race that.)
    let r = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("mcp-session-id").is_some());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["serverInfo"]["name"], "weather");
}

#[tokio::test]
async fn non_loopback_bind_needs_a_token() {
    let out = tokio_bin()
        .args(["serve", "--server", "true", "--http", "0.0.0.0:0"])
        .env_remove("MCP_GEN_UI_TOKEN")
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MCP_GEN_UI_TOKEN"), "{err}");
}

#[tokio::test]
async fn http_refuses_from_the_headers_before_reading_a_body() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let mut cmd = serve_cmd(&[
        "--http",
        "127.0.0.1:0",
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    cmd.env("MCP_GEN_UI_TOKEN", "tok-123");
    let server = listening(cmd, "http://").await;
    let addr = host_port(&server.url);
    // No token, a huge declared body, none of it sent: refused at once.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 500000000\r\n\r\n"
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 401"), "{got:?}");
    // With the token (lowercase scheme), a huge Content-Length is refused from the headers.
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: bearer tok-123\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n"
    );
    let got = raw_http(&addr, &head, b"", Duration::from_secs(5)).await;
    assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
    assert!(got.contains("limit"), "{got:?}");

    // A chunked body (no Content-Length) over the limit: 413 for the request's own id, found
    // after the payload.
    {
        use tokio::io::AsyncReadExt;
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer tok-123\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let chunk = |data: &[u8]| {
            let mut c = format!("{:x}\r\n", data.len()).into_bytes();
            c.extend_from_slice(data);
            c.extend_from_slice(b"\r\n");
            c
        };
        s.write_all(&chunk(
            br#"{"jsonrpc":"2.0","method":"ping","params":{"pad":""#,
        ))
        .await
        .unwrap();
        let pad = vec![b'y'; 1024 * 1024];
        for _ in 0..33 {
            s.write_all(&chunk(&pad)).await.unwrap();
        }
        s.write_all(&chunk(br#""},"id":"c1"}"#)).await.unwrap();
        s.write_all(b"0\r\n\r\n").await.unwrap();
        let mut got = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(30), async {
            let mut buf = [0u8; 4096];
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                if got.ends_with(b"}") {
                    break;
                }
            }
        })
        .await;
        let got = String::from_utf8_lossy(&got);
        assert!(got.starts_with("HTTP/1.1 413"), "{got:?}");
        assert!(got.contains(r#""id":"c1""#), "{got:?}");
    }

    // Unauthenticated clients streaming large bodies at once: serve's memory stays flat.
    let pid = server.child.id().unwrap();
    let mut senders = Vec::new();
    for _ in 0..6 {
        let addr = addr.clone();
        senders.push(tokio::spawn(async move {
            let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let head = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 31000000\r\n\r\n"
            );
            s.write_all(head.as_bytes()).await.unwrap();
            let chunk = vec![b' '; 1024 * 1024];
            for _ in 0..30 {
                if s.write_all(&chunk).await.is_err() {
                    break;
                }
            }
        }));
    }
    for s in senders {
        let _ = tokio::time::timeout(Duration::from_secs(30), s).await;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let hwm_kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        hwm_kb < 100 * 1024,
        "serve's peak memory grew to {hwm_kb} kB"
    );

    // Authorized with the lowercase scheme: works.
    let r = rpc_post(
        &reqwest::Client::new(),
        &server.url,
        None,
        "application/json",
        &init(1),
    )
    .header("authorization", "bearer tok-123")
    .send()
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn http_same_id_twice_and_empty_batches_are_answered() {
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let server = serve_http(&[
        "--server",
        &fixture,
        "--out-dir",
        out.path().to_str().unwrap(),
    ])
    .await;
    let http = reqwest::Client::new();
    let r = rpc_post(&http, &server.url, None, "application/json", &init(1))
        .send()
        .await
        .unwrap();
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let post = |body: String| {
        http.post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-session-id", &sid)
            .body(body)
    };
    assert_eq!(
        post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
            .send()
            .await
            .unwrap()
            .status(),
        202
    );
    // A slow call with id 7, then another request with id 7 while it is in flight.
    let slow = post(call_line(json!(7), "slow", json!({"ms": 1500}))).send();
    let second = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        post(json!({"jsonrpc":"2.0","id":7,"method":"ping"}).to_string())
            .send()
            .await
            .unwrap()
    };
    let (first, second) = tokio::join!(slow, second);
    let first: Value = first.unwrap().json().await.unwrap();
    assert_eq!(first["id"], 7, "{first}");
    assert_eq!(
        first["result"]["content"][0]["text"], "slow done",
        "{first}"
    );
    let second: Value = second.json().await.unwrap();
    assert_eq!(second["id"], 7, "{second}");
    assert_error_contains(&second, "request id 7");
    // An empty batch: JSON-RPC's one Invalid Request error.
    let r = post("[]".into()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(
        (e["id"].clone(), e["error"]["code"].as_i64()),
        (Value::Null, Some(-32600)),
        "{e}"
    );
    // Unparseable with a recoverable id.
    let r = post(r#"{"jsonrpc":"2.0","id":"q","method":"ping","params":[nope"#.into())
        .send()
        .await
        .unwrap();
    let e: Value = r.json().await.unwrap();
    assert_eq!(
        (e["id"].as_str(), e["error"]["code"].as_i64()),
        (Some("q"), Some(-32700)),
        "{e}"
    );
    // A deep argument and a lone surrogate over HTTP.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{},"s":"\ud800"}}}}}}"#,
        nested_array(1000)
    );
    let text = post(body).send().await.unwrap().text().await.unwrap();
    let v = mcp_gen_ui::json::from_str(&text).unwrap();
    assert_eq!(v["id"], 8, "{text:.300}");
    assert!(text.contains(r#""s":"\ud800""#), "{text:.300}");
}

/// A POST whose only answer comes first is answered as one JSON body when the host takes JSON
/// (cheaper for both sides than a stream); anything before the answer (progress) starts an event
/// stream, and so does a host that takes only streams.
#[tokio::test]
async fn http_answers_alone_are_json_bodies_and_progress_makes_a_stream() {
    const BOTH: &str = "application/json, text/event-stream";
    let content_type = |r: &reqwest::Response| {
        r.headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let http = reqwest::Client::new();
    // Opens a session through a serve in front of `upstream`; a POST builder for it.
    let open = async |upstream: &str, out: &Path| {
        let server = serve_http(&["--server", upstream, "--out-dir", out.to_str().unwrap()]).await;
        let r = rpc_post(&http, &server.url, None, BOTH, &init(1))
            .send()
            .await
            .unwrap();
        assert_eq!(content_type(&r), "application/json");
        let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let post = {
            let (http, url) = (http.clone(), server.url.clone());
            move |accept: &'static str, body: String| {
                http.post(&url)
                    .header("content-type", "application/json")
                    .header("accept", accept)
                    .header("mcp-session-id", &sid)
                    .header("mcp-protocol-version", "2025-06-18")
                    .body(body)
            }
        };
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let r = post(BOTH, note.into()).send().await.unwrap();
        assert_eq!(r.status(), 202);
        (server, post)
    };
    let events = |text: &str| -> Vec<Value> {
        text.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    };

    // An upstream that sends nothing unasked (the fixture).
    let out = tempfile::tempdir().unwrap();
    let fixture = format!("{} --mode ok", example("fixture-server").display());
    let (_server, post) = open(&fixture, out.path()).await;
    let r = post(BOTH, call_line(json!(2), "echo", json!({"text": "hi"})))
        .send()
        .await
        .unwrap();
    assert_eq!(
        (r.status().as_u16(), content_type(&r)),
        (200, "application/json".into())
    );
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["id"], 2, "{v}");
    assert_eq!(
        v["result"]["structuredContent"]["arguments"]["text"], "hi",
        "{v}"
    );
    // A host that takes only streams gets the same answer as an event.
    let r = post(
        "text/event-stream",
        call_line(json!(3), "echo", json!({"text": "sse"})),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(content_type(&r), "text/event-stream");
    let got = events(&r.text().await.unwrap());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0]["id"], 3, "{got:?}");
    assert_eq!(
        got[0]["result"]["structuredContent"]["arguments"]["text"], "sse",
        "{got:?}"
    );

    // A batch is answered by an array, even of one answer, whatever the host takes.
    let batch = format!(
        r#"[{},{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":99}}}}]"#,
        call_line(json!(5), "echo", json!({"text": "b"}))
    );
    for accept in [BOTH, "application/json"] {
        let r = post(accept, batch.clone()).send().await.unwrap();
        assert_eq!(content_type(&r), "application/json", "{accept}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(1), "{accept}: {v}");
        assert_eq!(v[0]["id"], 5, "{accept}: {v}");
    }

    // Progress before the answer (server-everything): a stream with the progress, then the
    // answer.
    let out = tempfile::tempdir().unwrap();
    let (_server, post) = open(everything().to_str().unwrap(), out.path()).await;
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "trigger-long-running-operation",
        "arguments": {"duration": 0.2, "steps": 2},
        "_meta": {"progressToken": "p4"}}});
    let r = post(BOTH, body.to_string()).send().await.unwrap();
    assert_eq!(content_type(&r), "text/event-stream");
    let text = r.text().await.unwrap();
    let got = events(&text);
    let progress: Vec<&Value> = got
        .iter()
        .filter(|e| e["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 2, "{text}");
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "p4"),
        "{text}"
    );
    assert_eq!(
        got.last().map(|e| e["id"].clone()),
        Some(json!(4)),
        "{text}"
    );
}

/// `[serve] embed_ui`, `[serve] apps_sdk` and `description_for_ui`, through the real binary: each
/// client gets what its kind of host needs, decided by the capabilities it advertised.
#[tokio::test]
async fn host_options_are_applied_per_client() {
    let ui = WeatherUi::new().await;
    let text = std::fs::read_to_string(ui.config()).unwrap();
    let text = text
        .replace(
            "[serve]\nprefers_border = true\n",
            "[serve]\nprefers_border = true\nembed_ui = true\napps_sdk = true\n",
        )
        .replace(
            "[tools.get_forecast]\n",
            "[tools.get_forecast]\ndescription_for_ui = \"Shows an interactive forecast table\"\n",
        );
    let config = ui.dir.path().join("hosts.toml");
    std::fs::write(&config, text).unwrap();
    let config = config.display().to_string();
    let direct = over_stdio(
        plain_client(),
        tokio::process::Command::new(example("weather-server")),
    )
    .await;
    let upstream_tools: Vec<Value> = tools_of(&direct).await;
    let upstream_description = |name: &str| {
        upstream_tools
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["description"].clone())
            .unwrap()
    };

    // With the extension: the UI description, MCP Apps metadata only, results untouched.
    let with_ui = over_stdio(ui_client(), serve_cmd(&["--config", &config])).await;
    let tools: Vec<Value> = tools_of(&with_ui).await;
    let fc = tools.iter().find(|t| t["name"] == "get_forecast").unwrap();
    assert_eq!(fc["description"], "Shows an interactive forecast table");
    assert!(fc["_meta"].get("openai/outputTemplate").is_none());
    let cc = tools
        .iter()
        .find(|t| t["name"] == "get_current_conditions")
        .unwrap();
    assert_eq!(
        cc["description"],
        upstream_description("get_current_conditions")
    );
    assert_eq!(
        to_json(&with_ui.call_tool(forecast_call()).await.unwrap()),
        to_json(&direct.call_tool(forecast_call()).await.unwrap())
    );

    // Without it: the upstream's description, the Apps SDK's keys, the page in results.
    let plain = over_stdio(plain_client(), serve_cmd(&["--config", &config])).await;
    let tools: Vec<Value> = tools_of(&plain).await;
    let fc = tools.iter().find(|t| t["name"] == "get_forecast").unwrap();
    assert_eq!(fc["description"], upstream_description("get_forecast"));
    assert_eq!(
        fc["_meta"]["openai/outputTemplate"],
        ui.uri("get_forecast/table").as_str()
    );
    assert_eq!(fc["_meta"]["openai/widgetAccessible"], true);
    assert!(fc["_meta"].get("ui").is_none());
    let resources: Vec<Value> = resources_of(&plain).await;
    assert_eq!(resources.len(), 3);
    assert!(
        resources
            .iter()
            .all(|r| r["mimeType"] == "text/html+skybridge")
    );
    let read = read_of(&plain, &ui.uri("get_current_conditions")).await;
    assert_eq!(read["contents"][0]["mimeType"], "text/html+skybridge");
    assert_eq!(
        read["contents"][0]["_meta"]["openai/widgetCSP"]["connect_domains"],
        json!(["https://api.example.com"])
    );
    let wrapped = to_json(&plain.call_tool(forecast_call()).await.unwrap());
    let direct_result = to_json(&direct.call_tool(forecast_call()).await.unwrap());
    let content = wrapped["content"].as_array().unwrap();
    let (embedded, rest): (Vec<&Value>, Vec<&Value>) =
        content.iter().partition(|c| c["type"] == "resource");
    assert_eq!(embedded.len(), 1, "{wrapped}");
    assert_eq!(
        embedded[0]["resource"]["uri"],
        ui.uri("get_forecast/table").as_str()
    );
    assert_eq!(embedded[0]["resource"]["mimeType"], "text/html");
    let html = embedded[0]["resource"]["text"].as_str().unwrap();
    assert!(html.contains("id=\"mcp-gen-ui-embedded\""), "{html}");
    assert!(html.contains("\"city\":\"Paris\""), "{html}");
    assert_eq!(json!(rest), direct_result["content"]);
    assert_eq!(
        wrapped["structuredContent"],
        direct_result["structuredContent"]
    );
    for c in [direct, with_ui, plain] {
        c.cancel().await.unwrap();
    }
}

/// A host on the official Python SDK (`mcp` 2.x, the venv tests/run-all.sh installs with
/// mcp-server-time) through `serve --http`, in both of its modes, against two upstreams: the
/// rmcp weather server (which speaks 2026-07-28, so `auto` goes stateless) and server-everything
/// (2025 only). It sees the upstream's tools, the UI metadata and `ui://` pages it advertised the
/// extension for, the tool's own answer (now a JSON body), and every progress step of a long
/// call (an event stream) before its answer.
#[tokio::test]
async fn a_python_sdk_host_works_through_serve_http_in_both_eras() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = python::python_with("mcp.client.extension") else {
        return;
    };
    let script = root.join("tests/fixtures/python/http_client.py");
    let weather = example("weather-server").display().to_string();
    let everything = everything().display().to_string();
    /// An upstream, the tool called, and a long call whose progress is watched.
    struct Case<'a> {
        upstream: &'a str,
        tool: &'a str,
        args: Value,
        progress: Option<(&'a str, Value)>,
        auto_era: &'a str,
    }
    let cases = [
        Case {
            upstream: &weather,
            tool: "get_current_conditions",
            args: json!({"city": "Paris"}),
            progress: None,
            auto_era: "2026-07-28",
        },
        Case {
            upstream: &everything,
            tool: "echo",
            args: json!({"message": "hi from python"}),
            progress: Some((
                "trigger-long-running-operation",
                json!({"duration": 1, "steps": 3}),
            )),
            auto_era: "2025-11-25",
        },
    ];
    for Case {
        upstream,
        tool,
        args,
        progress,
        auto_era,
    } in cases
    {
        let dir = tempfile::tempdir().unwrap();
        let ui = dir.path().join("ui");
        let generated = tokio_bin()
            .args(["generate", "--quiet", "--server", upstream])
            .args(["--out-dir", ui.to_str().unwrap()])
            .output()
            .await
            .unwrap();
        assert!(
            generated.status.success(),
            "{}",
            String::from_utf8_lossy(&generated.stderr)
        );
        let server = serve_http(&["--server", upstream, "--out-dir", ui.to_str().unwrap()]).await;
        for (mode, era) in [("legacy", "2025-11-25"), ("auto", auto_era)] {
            let mut cmd = tokio::process::Command::new(&python);
            cmd.arg(&script)
                .args([&server.url, mode, tool, &args.to_string(), "--ui"]);
            if let Some((long, long_args)) = &progress {
                cmd.args(["--progress", long, &long_args.to_string()]);
            }
            let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
                .await
                .unwrap()
                .unwrap();
            let what = format!(
                "{mode} against {upstream}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "{what}");
            let seen: Value = serde_json::from_slice(&out.stdout).expect(&what);
            assert_eq!(seen["protocol"], era, "{what}");
            assert!(
                seen["tools"].as_array().unwrap().contains(&json!(tool)),
                "{what}"
            );
            let uri = seen["ui_meta"]["resourceUri"].as_str().expect(&what);
            let page = std::fs::read(ui.join(format!("{tool}.html"))).unwrap();
            let version = &mcp_gen_ui::model::sha256_hex(&page)[..8];
            assert!(uri.starts_with("ui://"), "{what}");
            assert!(uri.ends_with(&format!("?v={version}")), "{what}");
            assert!(
                seen["ui_resources"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(uri)),
                "{what}"
            );
            assert_eq!(seen["ui_read"]["mime"], MCP_APP, "{what}");
            assert_eq!(seen["ui_read"]["bytes"], page.len(), "{what}");
            assert_eq!(seen["call"]["is_error"], false, "{what}");
            let text = seen["call"]["text"][0].as_str().expect(&what);
            if tool == "echo" {
                assert_eq!(text, "Echo: hi from python", "{what}");
            } else {
                assert!(text.contains("\"city\":\"Paris\""), "{what}");
            }
            if progress.is_some() {
                assert_eq!(seen["progress"], json!([1.0, 2.0, 3.0]), "{what}");
                assert_eq!(seen["progress_call"]["is_error"], false, "{what}");
                assert!(
                    seen["progress_call"]["text"][0]
                        .as_str()
                        .is_some_and(|t| t.contains("Steps: 3")),
                    "{what}"
                );
            }
        }
    }
}
