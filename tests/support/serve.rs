//! A child that announces its address on stderr (`serve --http` prints `listening on http://…`),
//! started, awaited and killed on drop, with what it logged kept for the test's messages.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::context::tokio_bin;

/// Starting a child with its three pipes chosen, killed when the test drops it.
pub trait SpawnWith {
    fn spawn_with(&mut self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> tokio::process::Child;
}

impl SpawnWith for tokio::process::Command {
    fn spawn_with(&mut self, stdin: Stdio, stdout: Stdio, stderr: Stdio) -> tokio::process::Child {
        self.stdin(stdin)
            .stdout(stdout)
            .stderr(stderr)
            .kill_on_drop(true)
            .spawn()
            .unwrap()
    }
}

/// The log lines a child wrote on stderr so far.
#[derive(Clone, Default)]
pub struct Log(pub Arc<Mutex<Vec<String>>>);

impl Log {
    pub fn text(&self) -> String {
        self.0.lock().unwrap().join("\n")
    }

    pub fn count(&self, needle: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.contains(needle))
            .count()
    }

    fn push(&self, line: String) {
        self.0.lock().unwrap().push(line);
    }
}

/// A child whose stderr announced a URL; killed on drop.
pub struct Listening {
    pub child: tokio::process::Child,
    /// The announced URL (`http://127.0.0.1:PORT/mcp` for serve).
    pub url: String,
    pub log: Log,
}

impl Listening {
    /// The URL without its `/mcp` path.
    pub fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }
}

/// Starts `cmd` and waits up to 60 s for a stderr line holding `needle`; the URL is that line
/// from `needle` on. Stderr is read to the end afterwards (a full pipe would stall the child).
pub async fn listening(mut cmd: tokio::process::Command, needle: &str) -> Listening {
    let mut child = cmd.spawn_with(Stdio::null(), Stdio::null(), Stdio::piped());
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let log = Log::default();
    let url = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            log.push(line.clone());
            // `listening on http://…` names the URL after its prefix; any other needle is part of
            // the URL (an earlier debug line may hold another `http://`).
            if let Some(i) = line.find(needle) {
                let from = line[i..]
                    .strip_prefix("listening on ")
                    .unwrap_or(&line[i..]);
                return from.trim().to_string();
            }
        }
        panic!("exited without printing {needle}:\n{}", log.text());
    })
    .await
    .unwrap_or_else(|_| panic!("no {needle} within 60 s:\n{}", log.text()));
    let keep = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(l)) = lines.next_line().await {
            keep.push(l);
        }
    });
    Listening { child, url, log }
}

/// `mcp-gen-ui serve` with `args` (cleared environment, `MCP_GEN_UI_LOG=warn`).
pub fn serve_cmd(args: &[&str]) -> tokio::process::Command {
    let mut c = tokio_bin();
    c.arg("serve").args(args).env("MCP_GEN_UI_LOG", "warn");
    c
}

/// `serve --http 127.0.0.1:0` with `args`, once it listens.
pub async fn serve_http(args: &[&str]) -> Listening {
    let mut all = vec!["--http", "127.0.0.1:0"];
    all.extend_from_slice(args);
    listening(serve_cmd(&all), "http://").await
}

/// A 2025-era `initialize` request with id `id`.
pub fn init(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})
}

/// A POST of one JSON-RPC message to `url` (in `session` when given) that accepts `accept`.
pub fn rpc_post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    accept: &str,
    body: &Value,
) -> reqwest::RequestBuilder {
    let req = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", accept)
        .body(body.to_string());
    match session {
        Some(s) => req.header("mcp-session-id", s),
        None => req,
    }
}
