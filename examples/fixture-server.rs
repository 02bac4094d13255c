//! Deliberately broken or unusual MCP servers for tests, chosen with `--mode` (raw JSON-RPC on
//! stdio; no SDK, so it can misbehave exactly as asked).
//!
//! Modes: `ok` (default: one `echo` tool), `crash`, `hang`, `not-mcp`, `garbage`, `malformed`,
//! `paginated`, `endless`, `many N`, `big`, `hostile`, `lying`, `changing --tools-file PATH`,
//! `server-requests` (asks the client `ping` and `roots/list` before answering `initialize`),
//! `stdout-noise` (a log line on stdout before every answer), `rpc-error` (tools/list fails),
//! `die-at-start` (exits at once, every time: a crash loop), `deep-tools` (a tool whose schema
//! nests 1,000 levels and one with a lone surrogate in its description), `stateless-broken`
//! (answers `server/discover` offering 2026-07-28, then fails every stateless request with
//! -32603 while its 2025 handshake works: what a Python SDK 2.3 low-level server returning plain
//! dicts does, its results lacking `resultType`, `cacheScope` and `ttlMs`; like that SDK, a
//! connection that answered `server/discover` refuses `initialize` with -32022;
//! `--discover-delay MS` makes the first `server/discover` answer late, like a server slow to
//! start).
//!
//! In every mode, `tools/call` of these names answers with a hostile result: `verbatim` (the
//! request line as read, in an answer with spaces and escapes written by hand), `huge` (a text of
//! `bytes` bytes, default 40 MiB, before the `id`), `junk` (not JSON after a valid `id`),
//! `surrogate` (a lone `\ud800` in the text), `deep` (`structuredContent` nested `depth`
//! levels), `slow` (echoes after `ms` milliseconds), `crash_now` (the process exits with status
//! 3 before answering). Messages are read and written like a
//! JavaScript or Python server would: any depth, lone surrogates kept.
//!
//! `--report-env PATH` (any mode) writes the process id and environment to PATH at start;
//! `--log-starts PATH` appends a line to PATH at every start.
//! `--require-env NAME` (any mode, repeatable) exits at start with `NAME is not set` on stderr
//! when the variable is missing, like a server that needs a database URL or a key of its own.
//! `--echo-env NAME` (any mode) prints `NAME=<its value>` on stderr at start, like a server
//! that logs its settings.
//! `--say TEXT` (any mode, repeatable) prints TEXT as a line on stderr at start, like a vendor
//! relay that logs why it cannot reach its host (`getaddrinfo EAI_AGAIN …`) and then hangs.
//! `--echo-argv` (any mode) prints its arguments on stderr at start, like a server that logs
//! how it was started; `--api-key VALUE`, `--api-key=VALUE` and `--token=VALUE` are accepted
//! (and ignored), like a server that takes a key on its command line.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// mcp-gen-ui's own reader and writer of untrusted JSON: like a JavaScript or Python server,
/// it takes any depth and keeps lone surrogates.
#[allow(dead_code)]
#[path = "../src/json.rs"]
mod json;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut mode = "ok".to_string();
    let mut count: usize = 100;
    let mut tools_file: Option<String> = None;
    let mut discover_delay_ms: u64 = 0;
    let mut i = 0;
    while i < args.len() {
        match args.get(i).map(String::as_str) {
            Some("--mode") => {
                if let Some(m) = args.get(i + 1) {
                    mode = m.clone();
                    i += 1;
                }
                // `--mode many N`
                if let Some(n) = args.get(i + 1).and_then(|a| a.parse().ok()) {
                    count = n;
                    i += 1;
                }
            }
            Some("--tools-file") => {
                tools_file = args.get(i + 1).cloned();
                i += 1;
            }
            Some("--discover-delay") => {
                discover_delay_ms = args.get(i + 1).and_then(|a| a.parse().ok()).unwrap_or(0);
                i += 1;
            }
            Some("--echo-env") => {
                if let Some(name) = args.get(i + 1) {
                    let value = std::env::var(name).unwrap_or_default();
                    eprintln!("fixture-server: {name}={value}");
                }
                i += 1;
            }
            Some("--say") => {
                if let Some(text) = args.get(i + 1) {
                    eprintln!("{text}");
                }
                i += 1;
            }
            Some("--echo-argv") => {
                eprintln!("fixture-server: started with {}", args.join(" "));
            }
            Some("--api-key") => {
                i += 1;
            }
            Some(a) if a.starts_with("--api-key=") || a.starts_with("--token=") => {}
            Some("--require-env") => {
                if let Some(name) = args.get(i + 1)
                    && std::env::var_os(name).is_none()
                {
                    eprintln!("fixture-server: error: {name} is not set");
                    std::process::exit(1);
                }
                i += 1;
            }
            Some("--report-env") => {
                // Writes `{"pid": …, "env": {…}}` to PATH at start: what a child inherits.
                if let Some(path) = args.get(i + 1) {
                    let env: serde_json::Map<String, Value> = std::env::vars()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect();
                    let report = json!({"pid": std::process::id(), "env": env});
                    let tmp = format!("{path}.tmp");
                    let _ = std::fs::write(&tmp, report.to_string());
                    let _ = std::fs::rename(&tmp, path);
                }
                i += 1;
            }
            Some("--log-starts") => {
                // Appends one line to PATH at every start: how often a client started us.
                if let Some(path) = args.get(i + 1) {
                    use std::io::Write as _;
                    if let Ok(mut f) = std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                    {
                        let _ = writeln!(f, "{}", std::process::id());
                    }
                }
                i += 1;
            }
            Some(other) => {
                eprintln!("fixture-server: unknown argument {other:?}");
                std::process::exit(2);
            }
            None => break,
        }
        i += 1;
    }
    let fixture = Fixture {
        mode,
        count,
        tools_file,
        discover_delay_ms,
        modern: std::cell::Cell::new(false),
    };
    fixture.run();
}

struct Fixture {
    mode: String,
    count: usize,
    tools_file: Option<String>,
    /// `--discover-delay MS`: how long `server/discover` takes to answer (a slow start).
    discover_delay_ms: u64,
    /// Whether this connection answered `server/discover` (it then serves 2026-07-28 only, and
    /// refuses `initialize`, like the Python SDK).
    modern: std::cell::Cell<bool>,
}

impl Fixture {
    fn run(&self) {
        let stdin = std::io::stdin();
        let mut out = std::io::stdout().lock();
        if self.mode == "die-at-start" {
            eprintln!("fixture-server: simulated crash at start-up");
            std::process::exit(3);
        }
        if self.mode == "not-mcp" {
            // Like a program that is not a server at all, or one that logs to stdout.
            let _ = writeln!(out, "hello world");
            let _ = out.flush();
        }
        // server-requests mode: the held-back `initialize` id and the answers still awaited.
        let mut held_init: Option<Value> = None;
        let mut awaiting: Vec<&str> = Vec::new();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            if self.mode == "server-requests" {
                let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                let id = msg.get("id").and_then(Value::as_str).unwrap_or("");
                if let Some(pos) = awaiting.iter().position(|a| *a == id) {
                    let ok = match id {
                        "srv-ping" => msg.get("result") == Some(&json!({})),
                        _ => msg.get("error").is_some() || msg.get("result").is_some(),
                    };
                    if !ok {
                        eprintln!("fixture-server: bad answer to {id}: {line}");
                        std::process::exit(4);
                    }
                    awaiting.remove(pos);
                    if awaiting.is_empty()
                        && let Some(init_id) = held_init.take()
                    {
                        let result = self.handle("initialize", &json!({})).unwrap_or_default();
                        send(
                            &mut out,
                            &json!({"jsonrpc":"2.0","id":init_id,"result":result}),
                        );
                    }
                    continue;
                }
                if msg.get("method").and_then(Value::as_str) == Some("initialize") {
                    held_init = msg.get("id").cloned();
                    awaiting = vec!["srv-ping", "srv-roots"];
                    send(
                        &mut out,
                        &json!({"jsonrpc":"2.0","id":"srv-ping","method":"ping"}),
                    );
                    send(
                        &mut out,
                        &json!({"jsonrpc":"2.0","id":"srv-roots","method":"roots/list"}),
                    );
                    send(
                        &mut out,
                        &json!({"jsonrpc":"2.0","method":"notifications/message",
                        "params":{"level":"info","data":"about to initialize"}}),
                    );
                    continue;
                }
            }
            if self.mode == "stdout-noise" {
                let _ = writeln!(out, "LOG: handling a request");
            }
            match self.mode.as_str() {
                "crash" => {
                    eprintln!(
                        "fixture-server: simulated crash: cannot open database /nonexistent.db"
                    );
                    std::process::exit(3);
                }
                "hang" => continue,
                "not-mcp" => {
                    let _ = writeln!(out, "hello world");
                    let _ = out.flush();
                    continue;
                }
                "garbage" => {
                    let _ = writeln!(out, r#"{{"jsonrpc":"1.0","answer":42}}"#);
                    let _ = out.flush();
                    continue;
                }
                _ => {}
            }
            let Ok(msg) = json::from_str(&line) else {
                send(
                    &mut out,
                    &json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}),
                );
                continue;
            };
            let Some(id) = msg.get("id").cloned() else {
                continue; // a notification
            };
            let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            if method == "tools/call" && hostile_result(&mut out, &id, &params, &line) {
                continue;
            }
            let reply = match self.handle(method, &params) {
                Ok(result) => json!({"jsonrpc":"2.0","id":id,"result":result}),
                Err((code, message)) => {
                    json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}})
                }
            };
            send(&mut out, &reply);
        }
        if self.mode == "hang" {
            // Ignore even a closed stdin: shutdown has to signal us.
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
    }

    fn handle(&self, method: &str, params: &Value) -> Result<Value, (i64, String)> {
        match method {
            "initialize" if self.modern.get() => Err((
                -32022,
                "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted".into(),
            )),
            "initialize" => {
                if self.mode == "malformed" {
                    return Ok(json!({"protocolVersion": "2025-06-18", "capabilities": {}}));
                }
                let version = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or("2025-06-18");
                Ok(json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": format!("fixture-{}", self.mode), "version": "0.0.0"},
                }))
            }
            "ping" => Ok(json!({})),
            "server/discover" if self.mode == "stateless-broken" => {
                if !self.modern.get() {
                    std::thread::sleep(std::time::Duration::from_millis(self.discover_delay_ms));
                }
                self.modern.set(true);
                Ok(json!({
                "supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18"],
                "capabilities": {"tools": {"listChanged": false}},
                "_meta": {"io.modelcontextprotocol/serverInfo":
                    {"name": "fixture-stateless-broken", "version": "0.0.0"}},
                }))
            }
            _ if self.mode == "stateless-broken"
                && params.pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
                    == Some(&json!("2026-07-28")) =>
            {
                Err((
                    -32603,
                    "Handler returned an invalid result: [{\"path\": [\"resultType\"], \"message\": \"Required\"}, {\"path\": [\"cacheScope\"], \"message\": \"Required\"}, {\"path\": [\"ttlMs\"], \"message\": \"Required\"}]".into(),
                ))
            }
            "tools/list" => self.tools_list(params),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                let args = params.get("arguments").cloned().unwrap_or(json!({}));
                Ok(json!({
                    "content": [{"type": "text", "text": format!("{name} called with {args}")}],
                    "structuredContent": {"tool": name, "arguments": args},
                }))
            }
            other => Err((-32601, format!("Method not found: {other}"))),
        }
    }

    fn tools_list(&self, params: &Value) -> Result<Value, (i64, String)> {
        let cursor = params.get("cursor").and_then(Value::as_str);
        let tools = match self.mode.as_str() {
            "malformed" => return Ok(json!({"tools": "not a list"})),
            "rpc-error" => {
                return Err((-32603, "database unavailable\u{1b}[31m (try later)".into()));
            }
            "paginated" => {
                let (page, next) = match cursor {
                    None => (1, Some("page-2")),
                    Some("page-2") => (2, Some("page-3")),
                    Some("page-3") => (3, None),
                    Some(other) => return Err((-32602, format!("Invalid cursor: {other}"))),
                };
                let tools: Vec<Value> = (1..=2)
                    .map(|k| simple_tool(&format!("page{page}_tool{k}")))
                    .collect();
                let mut result = json!({ "tools": tools });
                if let (Some(n), Some(obj)) = (next, result.as_object_mut()) {
                    obj.insert("nextCursor".into(), json!(n));
                }
                return Ok(result);
            }
            "endless" => {
                // Always the same cursor: a client that trusts it loops forever.
                return Ok(json!({"tools": [simple_tool("again")], "nextCursor": "same"}));
            }
            "many" => (0..self.count)
                .map(|k| simple_tool(&format!("tool_{k:05}")))
                .collect(),
            "big" => {
                let mut t = simple_tool("big");
                if let Some(obj) = t.as_object_mut() {
                    obj.insert("description".into(), json!("x".repeat(10 * 1024 * 1024)));
                }
                vec![t]
            }
            "hostile" => hostile_tools(),
            "deep-tools" => deep_tools(),
            "lying" => lying_tools(),
            "changing" => {
                let Some(path) = &self.tools_file else {
                    return Err((-32603, "changing mode needs --tools-file PATH".into()));
                };
                let text = std::fs::read_to_string(path)
                    .map_err(|e| (-32603, format!("cannot read {path}: {e}")))?;
                let v: Value = serde_json::from_str(&text)
                    .map_err(|e| (-32603, format!("{path} is not JSON: {e}")))?;
                match v {
                    Value::Array(a) => a,
                    other => other
                        .get("tools")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                }
            }
            _ => vec![json!({
                "name": "echo",
                "title": "Echo",
                "description": "Echoes its arguments back.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string", "description": "What to echo"}},
                    "required": ["text"],
                },
                "annotations": {"readOnlyHint": true},
            })],
        };
        Ok(json!({ "tools": tools }))
    }
}

fn send(out: &mut impl Write, v: &Value) {
    let _ = writeln!(out, "{}", json::to_string(v));
    let _ = out.flush();
}

/// The hostile answers to `tools/call` (module docs); false for an ordinary tool.
fn hostile_result(out: &mut impl Write, id: &Value, params: &Value, request: &str) -> bool {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let arg = |k: &str, default: u64| {
        params
            .pointer(&format!("/arguments/{k}"))
            .and_then(Value::as_u64)
            .unwrap_or(default)
    };
    let id = json::to_string(id);
    let line = match name {
        "huge" => {
            let text = "h".repeat(arg("bytes", 40 * 1024 * 1024) as usize);
            format!(
                r#"{{"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":"{text}"}}]}},"id":{id}}}"#
            )
        }
        "junk" => format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[nope}}}}"#),
        // The request line as this server read it, in an answer spaced and escaped by hand.
        "verbatim" => format!(
            r#"{{ "jsonrpc" : "2.0", "result" : {{ "content" : [ {{ "type" : "text", "text" : {} }} ], "note" : "caf\u00e9" }}, "id" : {id} }}"#,
            json::to_string(&Value::String(request.to_string()))
        ),
        "surrogate" => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"lone \ud800 surrogate"}}]}}}}"#
        ),
        "deep" => {
            let d = arg("depth", 1000) as usize;
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{}1{}}}}}"#,
                "{\"a\":[".repeat(d / 2),
                "]}".repeat(d / 2)
            )
        }
        "slow" => {
            std::thread::sleep(std::time::Duration::from_millis(arg("ms", 1000)));
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"slow done"}}]}}}}"#
            )
        }
        // A call that kills the server, as a bad argument crashes some real ones.
        "crash_now" => {
            eprintln!("fixture-server: simulated crash on a call (tool crash_now)");
            std::process::exit(3);
        }
        _ => return false,
    };
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
    true
}

/// `deep-tools`: a schema nested 1,000 levels, and a description with a lone surrogate.
fn deep_tools() -> Vec<Value> {
    let depth = 1000 / 2;
    let schema = format!(
        r#"{}{{"type":"string"}}{}"#,
        r#"{"type":"object","properties":{"x":"#.repeat(depth),
        "}}".repeat(depth)
    );
    let text = format!(
        r#"[{{"name":"deep_schema","description":"A deep schema.","inputSchema":{schema}}},
           {{"name":"surrogate_tool","description":"bad \ud800 text","inputSchema":{{"type":"object"}}}}]"#
    );
    match json::from_str(&text) {
        Ok(Value::Array(tools)) => tools,
        _ => Vec::new(),
    }
}

fn simple_tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The tool {name}."),
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
    })
}

fn hostile_tools() -> Vec<Value> {
    let script = "</script><script>alert(1)</script>";
    let mut tools = vec![
        json!({"name": "../../etc/x", "description": format!("Path traversal {script}"),
               "inputSchema": {"type": "object"}}),
        json!({"name": "a/b", "description": "Slash in the name -->",
               "inputSchema": {"type": "object"}}),
        json!({"name": "CON", "description": "A reserved Windows file name",
               "inputSchema": {"type": "object"}}),
        json!({"name": "wetter_für_morgen_☀️", "title": "Wetter 🌦",
               "description": "Unicode name\nwith\nmultiple lines\n<!-- comment -->",
               "inputSchema": {"type": "object", "properties": {
                   "städte": {"type": "string", "description": script}}}}),
        json!({"name": "x".repeat(300), "description": "A 300-character name",
               "inputSchema": {"type": "object"}}),
        json!({"name": "Case", "description": "Differs only in case (1)",
               "inputSchema": {"type": "object"}}),
        json!({"name": "case", "description": "Differs only in case (2)",
               "inputSchema": {"type": "object"}}),
        json!({"name": "CASE", "description": "Differs only in case (3)",
               "inputSchema": {"type": "object"}}),
        json!({"name": "quote\"and'back`tick", "title": "<b>bold</b> & \"quotes\"",
               "description": "${alert(1)} {{template}} {% raw %}",
               "inputSchema": {"type": "object", "properties": {
                   "<img src=x onerror=alert(1)>": {"type": "string"}}}}),
    ];
    tools.push(
        json!({"name": "", "description": "An empty name", "inputSchema": {"type": "object"}}),
    );
    tools
}

fn lying_tools() -> Vec<Value> {
    vec![
        json!({"name": "string_schema", "description": "inputSchema is a string",
               "inputSchema": "not a schema"}),
        json!({"name": "array_schema", "inputSchema": [1, 2, 3]}),
        json!({"name": "no_schema", "description": "inputSchema missing"}),
        json!({"name": "ref_cycle", "inputSchema": {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}}),
        json!({"name": "self_ref", "inputSchema": {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/tree"}},
            "$defs": {"tree": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}}}}),
        json!({"name": "dangling_ref", "inputSchema": {
            "type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}}),
        json!({"name": "odd_types", "inputSchema": {
            "type": "object",
            "properties": {"p": null, "q": {"type": ["string", "null", 7]}, "r": true},
            "required": ["not_there", 5]},
            "outputSchema": "also not a schema",
            "annotations": {"readOnlyHint": "yes", "destructiveHint": 1}}),
        json!({"name": "array_root", "inputSchema": {"type": "array", "items": {"type": "string"}}}),
    ]
}
