//! `serve` over stdio: a real rmcp client against the wrapper around weather-server and
//! `@modelcontextprotocol/server-everything`, with and without the UI extension, and its faults
//! (killed upstream, silent upstream, junk and huge messages, stale files, `--watch`).

use mcp_gen_ui::model::sha256_hex;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

mod support;
use support::host::*;
use support::serve::serve_cmd;
use support::{example, tokio_bin};

#[tokio::test]
async fn stdio_host_adds_uis_for_ui_clients() {
    let ui = WeatherUi::new().await;
    let mut cmd = serve_cmd(&["--config", &ui.config()]);
    cmd.stderr(Stdio::inherit());
    let client = over_stdio(ui_client(), cmd).await;
    let info = to_json(&client.peer_info().unwrap());
    assert_eq!(info["serverInfo"]["name"], "weather");
    // weather-server has no resources: the wrapper declares the capability for its own.
    assert!(info["capabilities"]["resources"].is_object(), "{info}");
    check_ui_client(&client, &ui).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn any_version_of_a_page_reads_the_current_page_and_stable_uris_drop_the_version() {
    let ui = WeatherUi::new().await;
    let client = over_stdio(ui_client(), serve_cmd(&["--config", &ui.config()])).await;
    let current = ui.uri("get_current_conditions");
    assert!(current.starts_with("ui://weather/get_current_conditions?v="));
    let on_disk =
        std::fs::read_to_string(ui.out_dir().join("get_current_conditions.html")).unwrap();
    for uri in [
        current.as_str(),
        "ui://weather/get_current_conditions?v=00000000",
        "ui://weather/get_current_conditions",
    ] {
        let read = read_of(&client, uri).await;
        assert_eq!(read["contents"][0]["uri"], uri);
        assert_eq!(read["contents"][0]["text"], on_disk.as_str());
    }
    // Not a URI we hand out: the upstream answers, as for any unknown resource (weather-server
    // has no resources, so an error).
    for bad in [
        "ui://weather/get_current_conditions?v=0000000",
        "ui://weather/get_current_conditions?v=00000000&x=1",
        "ui://weather/no_such_tool?v=00000000",
    ] {
        let got = client
            .read_resource(rmcp::model::ReadResourceRequestParams::new(bad))
            .await;
        assert!(got.is_err(), "{bad}: {got:?}");
    }
    client.cancel().await.unwrap();

    // A project whose URIs are registered with an app directory: the names alone.
    let config = ui.dir.path().join("mcp-gen-ui.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("stable_uris = true\n{text}")).unwrap();
    let client = over_stdio(ui_client(), serve_cmd(&["--config", &ui.config()])).await;
    let tools: Vec<Value> = tools_of(&client).await;
    let fc = meta_of(&tools, "get_forecast");
    assert_eq!(fc["ui"]["resourceUri"], "ui://weather/get_forecast/table");
    assert_eq!(
        fc["ui"]["resourceUris"],
        json!([
            "ui://weather/get_forecast/chart",
            "ui://weather/get_forecast/table"
        ])
    );
    let mut listed: Vec<String> = resources_of(&client)
        .await
        .iter()
        .filter_map(|r| r["uri"].as_str().map(str::to_string))
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            "ui://weather/get_current_conditions",
            "ui://weather/get_forecast/chart",
            "ui://weather/get_forecast/table"
        ]
    );
    // A host that kept a versioned URI from before still gets the page.
    let read = read_of(&client, &current).await;
    assert_eq!(read["contents"][0]["text"], on_disk.as_str());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn stdio_host_is_transparent_without_ui() {
    let ui = WeatherUi::new().await;
    let direct = over_stdio(
        plain_client(),
        tokio::process::Command::new(example("weather-server")),
    )
    .await;
    let wrapped = over_stdio(plain_client(), serve_cmd(&["--config", &ui.config()])).await;
    assert_eq!(
        to_json(&direct.peer_info().unwrap()),
        to_json(&wrapped.peer_info().unwrap())
    );
    assert_eq!(
        to_json(&direct.list_all_tools().await.unwrap()),
        to_json(&wrapped.list_all_tools().await.unwrap())
    );
    assert_eq!(
        to_json(&direct.call_tool(forecast_call()).await.unwrap()),
        to_json(&wrapped.call_tool(forecast_call()).await.unwrap())
    );
    // Not a UI client: our resources are not there (the upstream has none at all).
    let r = wrapped.list_all_resources().await;
    assert!(r.as_ref().map(|l| l.is_empty()).unwrap_or(true), "{r:?}");
    direct.cancel().await.unwrap();
    wrapped.cancel().await.unwrap();
}

#[tokio::test]
async fn upstream_killed_mid_call_fails_clearly_and_restarts() {
    let out = tempfile::tempdir().unwrap();
    let transport = TokioChildProcess::new(serve_cmd(&[
        "--server",
        everything().to_str().unwrap(),
        "--out-dir",
        out.path().to_str().unwrap(),
    ]))
    .unwrap();
    let serve_pid = transport.id().unwrap();
    let client = plain_client().serve(transport).await.unwrap();
    let mut args = serde_json::Map::new();
    args.insert("duration".into(), json!(30));
    args.insert("steps".into(), json!(30));
    let call = client.call_tool(
        CallToolRequestParams::new("trigger-long-running-operation").with_arguments(args),
    );
    let killer = async {
        tokio::time::sleep(Duration::from_millis(800)).await;
        let kids = children(serve_pid);
        assert!(!kids.is_empty(), "serve has no upstream child");
        for k in kids {
            let _ = std::process::Command::new("kill")
                .args(["-9", &k.to_string()])
                .status();
        }
    };
    let started = Instant::now();
    let (result, ()) = tokio::join!(call, killer);
    let err = format!(
        "{:?}",
        result.expect_err("the call must fail when its upstream dies")
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the failure must be prompt"
    );
    assert!(err.contains("restarting"), "{err}");
    // The wrapper stays up, restarts the upstream and replays initialize.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut a = serde_json::Map::new();
        a.insert("message".into(), json!("again"));
        match client
            .call_tool(CallToolRequestParams::new("echo").with_arguments(a))
            .await
        {
            Ok(r) => {
                assert!(
                    to_json(&r)["content"][0]["text"]
                        .as_str()
                        .unwrap()
                        .contains("again")
                );
                break;
            }
            Err(e) if Instant::now() < deadline => {
                eprintln!("not yet: {e}");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(e) => panic!("the upstream never came back: {e}"),
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn junk_and_huge_messages_get_clear_errors_and_stdin_eof_exits() {
    let (mut raw, _out) = raw_serve("ok", &[]);
    raw.send("this is not json").await;
    assert_eq!(raw.recv().await["error"]["code"], -32700);
    raw.send(&init_line(1)).await;
    assert_eq!(
        raw.recv().await["result"]["serverInfo"]["name"],
        "fixture-ok"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    raw.send(r#"{"jsonrpc":"2.0","id":2}"#).await;
    assert_eq!(raw.recv().await["error"]["code"], -32600);

    // A 10 MB argument goes through and comes back.
    let big = "x".repeat(10 * 1024 * 1024);
    let call = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":big}}});
    raw.send(&call.to_string()).await;
    let r = raw.recv().await;
    assert_eq!(r["id"], 3);
    assert_eq!(
        r["result"]["structuredContent"]["arguments"]["text"]
            .as_str()
            .map(str::len),
        Some(big.len())
    );

    // Over the limit: skipped with an error, and the session goes on.
    let huge = format!("{{\"pad\":\"{}\"}}", "y".repeat(33 * 1024 * 1024));
    raw.send(&huge).await;
    let e = raw.recv().await;
    assert_eq!(e["error"]["code"], -32600);
    assert!(
        e["error"]["message"].as_str().unwrap().contains("limit"),
        "{e}"
    );
    raw.ping(4).await;

    // Closing stdin ends the process (and its upstream).
    let status = raw.close().await;
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn upstream_that_never_answers_gets_a_clear_error() {
    for mode in ["hang", "garbage"] {
        upstream_without_answers(mode).await;
    }
}

#[tokio::test]
async fn files_that_do_not_match_the_lock_stop_start_up_unless_allowed() {
    let ui = WeatherUi::new().await;
    let lock_uri = ui.uri("get_forecast/chart");
    std::fs::write(ui.out_dir().join("get_forecast/chart.html"), "hand edit").unwrap();
    let out = tokio_bin()
        .args(["serve", "--config", &ui.config()])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("chart.html") && err.contains("--allow-stale"),
        "{err}"
    );

    let client = over_stdio(
        ui_client(),
        serve_cmd(&["--config", &ui.config(), "--allow-stale"]),
    )
    .await;
    // The page served anyway has the URI of its own bytes; the lock's URI reads it too.
    let edited = ui.uri("get_forecast/chart");
    assert!(edited.ends_with(&format!("?v={}", &sha256_hex("hand edit")[..8])));
    let tools: Vec<Value> = tools_of(&client).await;
    assert_eq!(
        meta_of(&tools, "get_forecast")["ui"]["resourceUris"][0],
        edited.as_str()
    );
    for uri in [edited.as_str(), lock_uri.as_str()] {
        let read = read_of(&client, uri).await;
        assert_eq!(read["contents"][0]["text"], "hand edit");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn print_config_is_a_claude_desktop_snippet() {
    let ui = WeatherUi::new().await;
    let out = tokio_bin()
        .args(["serve", "--print-config", "--config", &ui.config()])
        .output()
        .await
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "{text}");
    let v: Value = serde_json::from_str(text.trim()).unwrap();
    let entry = &v["mcpServers"]["weather"];
    assert!(Path::new(entry["command"].as_str().unwrap()).is_absolute());
    assert_eq!(entry["args"][0], "serve");
}

#[tokio::test]
async fn watch_reloads_changed_files_and_notifies() {
    let ui = WeatherUi::new().await;
    let mut raw = Raw::start(&["--config", &ui.config(), "--watch"]);
    raw.send(&ui_init_line(1)).await;
    let init = raw.recv().await;
    assert_eq!(
        init["result"]["capabilities"]["resources"]["listChanged"], true,
        "{init}"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    // Let the watcher take its first look before the edit.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let before = ui.uri("get_current_conditions");
    std::fs::write(
        ui.out_dir().join("get_current_conditions.html"),
        "<p>edited live</p>",
    )
    .unwrap();
    // The page has a new URI: both lists changed, and the old URI's content did.
    let mut methods = Vec::new();
    while methods.len() < 3 {
        let note = raw.recv().await;
        if note["method"] == "notifications/resources/updated" {
            assert_eq!(note["params"]["uri"], before.as_str(), "{note}");
        }
        methods.push(note["method"].as_str().unwrap_or_default().to_string());
    }
    methods.sort();
    assert_eq!(
        methods,
        [
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/tools/list_changed"
        ]
    );
    let after = ui.uri("get_current_conditions");
    assert_ne!(after, before);
    for (id, uri) in [(2, &before), (3, &after)] {
        raw.send(
            &json!({"jsonrpc":"2.0","id":id,"method":"resources/read","params":{"uri":uri}})
                .to_string(),
        )
        .await;
        let read = raw.recv().await;
        assert_eq!(read["result"]["contents"][0]["text"], "<p>edited live</p>");
        assert_eq!(read["result"]["contents"][0]["uri"], uri.as_str());
    }
    assert!(raw.close().await.success());
}
