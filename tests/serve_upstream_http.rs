//! `serve` in front of an HTTP upstream: streamable HTTP, legacy SSE, and upstream answers no
//! host could use.

use rmcp::model::CallToolRequestParams;

use serde_json::{Value, json};
use std::process::Stdio;

mod support;
use support::example;
use support::host::*;
use support::serve::{listening, serve_cmd};

#[tokio::test]
async fn upstream_over_streamable_http() {
    let ui = WeatherUi::new().await;
    let mut up = tokio::process::Command::new(example("weather-server"));
    up.args(["--http", "127.0.0.1:0"]);
    let upstream = listening(up, "http://").await;
    let mut cmd = serve_cmd(&[
        "--url",
        &upstream.url,
        "--out-dir",
        ui.out_dir().to_str().unwrap(),
    ]);
    cmd.stderr(Stdio::inherit());
    let client = over_stdio(ui_client(), cmd).await;
    let result = to_json(&client.call_tool(forecast_call()).await.unwrap());
    assert_eq!(
        result["structuredContent"]["forecast"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    let tools: Vec<Value> = tools_of(&client).await;
    assert_eq!(
        meta_of(&tools, "get_forecast")["ui"]["resourceUri"],
        ui.uri("get_forecast/table").as_str()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn upstream_over_legacy_sse() {
    let port = free_port();
    let mut up = tokio::process::Command::new(everything());
    up.arg("sse").env("PORT", port.to_string());
    let _upstream = listening(up, "running on port").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    let out = tempfile::tempdir().unwrap();
    let cmd = serve_cmd(&[
        "--url",
        &url,
        "--transport",
        "sse",
        "--out-dir",
        out.path().to_str().unwrap(),
    ]);
    let client = over_stdio(plain_client(), cmd).await;
    let mut args = serde_json::Map::new();
    args.insert("message".into(), json!("through sse"));
    let r = to_json(
        &client
            .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
            .await
            .unwrap(),
    );
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("through sse"),
        "{r}"
    );
    assert!(!client.list_all_prompts().await.unwrap().is_empty());
    client.cancel().await.unwrap();
}

/// An HTTP upstream whose answers serve cannot use (over the size limit, not JSON): the host's
/// request gets an error for its own id instead of waiting forever.
#[tokio::test]
async fn unusable_answers_from_an_http_upstream_fail_their_request() {
    async fn upstream(body: String) -> axum::response::Response {
        use axum::response::IntoResponse;
        let msg: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let id = msg["id"].clone();
        let json = |text: String| {
            (
                [
                    ("content-type", "application/json"),
                    ("mcp-session-id", "s1"),
                ],
                text,
            )
                .into_response()
        };
        match msg["method"].as_str() {
            Some("initialize") => json(
                json!({"jsonrpc":"2.0","id":id,"result":{"protocolVersion":"2025-06-18",
                    "capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}})
                .to_string(),
            ),
            Some("tools/call") if msg["params"]["name"] == "huge" => json(format!(
                r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{}"}}]}},"id":{id}}}"#,
                "h".repeat(40 * 1024 * 1024)
            )),
            Some("tools/call") => json("<html>oops</html>".into()),
            _ => axum::http::StatusCode::ACCEPTED.into_response(),
        }
    }
    let router = axum::Router::new().route("/mcp", axum::routing::post(upstream));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let out = tempfile::tempdir().unwrap();
    let mut raw = Raw::start(&["--url", &url, "--out-dir", out.path().to_str().unwrap()]);
    raw.send(&init_line(1)).await;
    assert_eq!(raw.recv().await["id"], 1);
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    raw.send(&call_line(json!("u1"), "huge", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "u1", "{e}");
    assert_error_contains(&e, "33554432-byte message limit");
    raw.send(&call_line(json!("u2"), "junk", json!({}))).await;
    let e = raw.recv().await;
    assert_eq!(e["id"], "u2", "{e}");
    assert_error_contains(&e, "not usable JSON");
    assert!(raw.close().await.success());
    task.abort();
}
