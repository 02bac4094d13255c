//! Review output (book: reference/review.md) against a real server: what `refine` and `diff` say a person will see,
//! in words before any HTML diff, and a readable HTML diff (runtime and stylesheet elided, no line
//! over 400 characters; `--html` for the full diff).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

mod support;
use support::context::{forecast_tools as tools, run_in};
use support::{BIN, Project, bin, cleared, text};

fn project() -> Project {
    Project::generated(&tools())
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_in(dir, args)
}

fn longest_line(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn refine_says_the_view_change_in_words_before_a_readable_diff() {
    let dir = project();
    let d = dir.path();
    let out = run(d, &["refine", "get_forecast", "bar chart of high by date"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "What changes for the person:", "{stdout}");
    assert_eq!(
        lines[1], "  get_forecast: view: automatic → bar chart (x: date, y: high)",
        "{stdout}"
    );
    assert_eq!(lines[2], "--- a/get_forecast.html", "{stdout}");
    assert!(longest_line(&stdout) <= 400, "{stdout}");
    assert!(
        !stdout.contains("use strict"),
        "the runtime is elided: {stdout}"
    );
    insta::assert_snapshot!("refine-bar-chart", stdout);

    // The same records in JSON.
    let out = run(
        d,
        &["refine", "get_forecast", "line chart", "--format", "json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["changes"],
        json!([{"tool": "get_forecast", "kind": "changed", "what": "view",
                "before": "bar chart (x: date, y: high)", "after": "line chart (x: date, y: high)"}])
    );
    assert_eq!(v["files"][0]["path"], "get_forecast.html");

    // --html: the full diff, runtime lines and all.
    let out = run(d, &["refine", "get_forecast", "table", "--html"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains(
            "  get_forecast: view: line chart (x: date, y: high) → table (x: date, y: high)"
        ),
        "{stdout}"
    );
    // A change to the hints is on the data line (over a kilobyte of JSON), printed whole.
    assert!(longest_line(&stdout) > 400, "{stdout}");
}

#[test]
fn diff_names_the_fields_a_person_will_see() {
    let dir = project();
    let d = dir.path();
    let mut t = tools();
    t[0]["inputSchema"]["properties"]["days"] =
        json!({"type": "integer", "title": "Days", "minimum": 1, "maximum": 14, "default": 3});
    t[0]["inputSchema"]["properties"]["city"]["description"] = json!("City\u{1b}[31m name");
    t[0]["outputSchema"]["properties"]["days"]["items"]["properties"]["wind"] =
        json!({"type": "number"});
    t[0]["annotations"] = json!({"destructiveHint": true});
    std::fs::write(d.join("tools.json"), t.to_string()).unwrap();

    let out = run(d, &["diff", "--exit-code"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let words: Vec<&str> = stdout
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(stdout.lines().next(), Some("What changes for the person:"));
    assert_eq!(
        words,
        [
            "  get_forecast: field city help: none → \"City\\u{1b}[31m name\"",
            "  get_forecast: added: field days (integer, optional, default 3, label Days)",
            "  get_forecast: added: result field days[].wind (number)",
            "  get_forecast: confirmation before running: no → yes",
        ],
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "control characters are escaped");
    assert!(longest_line(&stdout) <= 400, "{stdout}");
    // The field-by-field drift and the readable diff follow.
    let drift = stdout.find("~ tool `get_forecast` changed:").unwrap();
    let html = stdout.find("--- a/get_forecast.html").unwrap();
    assert!(drift < html);

    let out = run(d, &["diff", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let changes = v["changes"].as_array().unwrap();
    assert!(
        changes.contains(
            &json!({"tool": "get_forecast", "kind": "added", "what": "field days",
            "after": "integer, optional, default 3, label Days"})
        ),
        "{changes:?}"
    );
    assert_eq!(changes.len(), 4);
}

fn git(dir: &Path, args: &[&str]) {
    let out = support::context::git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn diff_base_reviews_a_branch_offline() {
    let dir = project();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "ui"]);
    let out = run(d, &["refine", "get_forecast", "bar chart of high by date"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut t = tools();
    t[0]["inputSchema"]["properties"]["units"] =
        json!({"type": "string", "enum": ["metric", "imperial"]});
    std::fs::write(d.join("tools.json"), t.to_string()).unwrap();
    assert!(run(d, &["generate"]).status.success());

    // A server that cannot start: nothing may contact the upstream.
    let offline = ["--server", "/nonexistent/mcp-server --fail"];
    let out = run(
        d,
        &[&["diff", "--base", "main", "--exit-code"], &offline[..]].concat(),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    let said = [
        "  get_forecast: view: automatic → bar chart (x: date, y: high)",
        "  get_forecast: added: field units (choice, optional)",
        "--- a/get_forecast.html",
    ];
    support::assert_holds(&stdout, &said);
    assert!(longest_line(&stdout) <= 400, "{stdout}");

    // The same records in JSON.
    let out = run(
        d,
        &[
            "diff",
            "--base",
            "HEAD",
            "--format",
            "json",
            "--server",
            "/nonexistent/x",
        ],
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["changes"].as_array().unwrap().len(), 2, "{v}");

    // The composite action's script writes the lines into the job summary, Markdown-escaped
    // (tool names are untrusted).
    t.as_array_mut().unwrap().push(
        json!({"name": "x](https://evil.example)<img src=x>", "inputSchema": {"type": "object"}}),
    );
    std::fs::write(d.join("tools.json"), t.to_string()).unwrap();
    assert!(run(d, &["generate"]).status.success());
    let summary = d.join("summary.md");
    let outputs = d.join("outputs.txt");
    let runner_temp = tempfile::tempdir().unwrap();
    let mut action = cleared(Command::new("bash"));
    action
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".github/actions/check/check.sh"))
        .current_dir(d)
        .env("INPUT_BINARY", BIN)
        .env("INPUT_REVIEW_BASE", "main")
        .env("INPUT_JUNIT_FILE", "junit.xml")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_TEMP", runner_temp.path());
    let browser = browser();
    if let Some(b) = &browser {
        action
            .env("INPUT_REVIEW_VISUAL", "true")
            .env("MCP_GEN_UI_BROWSER", b);
    }
    let out = action.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("### mcp-gen-ui: what changes for the person"),
        "{md}"
    );
    assert!(
        md.contains("get\\_forecast\\: view\\: automatic → bar chart \\(x\\: date, y\\: high\\)"),
        "{md}"
    );
    assert!(
        md.contains("x\\]\\(https\\://evil\\.example\\)&lt;img src\\=x&gt;"),
        "{md}"
    );
    assert!(!md.contains("<img") && !md.contains("](https"), "{md}");
    // The pictures, for upload-artifact.
    let outs = std::fs::read_to_string(&outputs).unwrap();
    if browser.is_some() {
        let dir = runner_temp.path().join("mcp-gen-ui-review");
        assert!(
            outs.contains(&format!("review-dir={}", dir.display())),
            "{outs}"
        );
        assert!(dir.join("get_forecast/diff.png").is_file(), "{outs}");
    }
    std::fs::remove_file(&outputs).unwrap();
    std::fs::remove_file(&summary).unwrap();
    std::fs::remove_file(d.join("junit.xml")).unwrap();

    // Committed: nothing differs.
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "refined"]);
    let out = run(
        d,
        &[&["diff", "--base", "HEAD", "--exit-code"], &offline[..]].concat(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("as committed at HEAD"),
        "{}",
        text(&out.stderr)
    );

    // An unknown revision or an option in disguise: exit 2, named.
    let out = run(d, &["diff", "--base", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nope"), "{}", text(&out.stderr));
    let out = run(d, &["diff", "--base=--output=/tmp/x"]);
    assert_eq!(out.status.code(), Some(2));
    // Not a repository.
    let plain = project();
    let out = run(plain.path(), &["diff", "--base", "HEAD"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("git repository"),
        "{}",
        text(&out.stderr)
    );
}

/// The local Chromium or Chrome, as `--visual` would find it.
fn browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MCP_GEN_UI_BROWSER") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n)))
    .find(|p| p.is_file())
}

#[test]
fn visual_needs_a_browser_before_anything_is_written() {
    let dir = project();
    let d = dir.path();
    let lock = std::fs::read_to_string(d.join("ui/mcp-gen-ui.lock")).unwrap();
    for args in [
        &["refine", "get_forecast", "bar chart", "--visual"][..],
        &["diff", "--visual"][..],
    ] {
        let out = bin()
            .current_dir(d)
            .args(args)
            .env("PATH", "/nonexistent")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains("--browser") && err.contains("MCP_GEN_UI_BROWSER"),
            "{err}"
        );
        assert!(!d.join(".mcp-gen-ui-review").exists());
        assert_eq!(
            std::fs::read_to_string(d.join("ui/mcp-gen-ui.lock")).unwrap(),
            lock,
            "nothing written"
        );
    }
    let out = run(d, &["diff", "--visual", "--browser", "/nonexistent/chrome"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/chrome"));

    // A review folder that is not mcp-gen-ui's own is never emptied: `--review-dir .` keeps the
    // project, and refine writes nothing.
    for args in [
        &[
            "diff",
            "--visual",
            "--browser",
            "/bin/sh",
            "--review-dir",
            ".",
        ][..],
        &[
            "refine",
            "get_forecast",
            "bar chart",
            "--visual",
            "--browser",
            "/bin/sh",
            "--review-dir",
            "ui",
        ][..],
    ] {
        let out = run(d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("not made by mcp-gen-ui"),
            "{}",
            text(&out.stderr)
        );
        assert!(d.join("mcp-gen-ui.toml").is_file() && d.join("ui/get_forecast.html").is_file());
        assert_eq!(
            std::fs::read_to_string(d.join("ui/mcp-gen-ui.lock")).unwrap(),
            lock
        );
    }
}

#[test]
fn visual_pictures_changed_pages_before_and_after() {
    let Some(browser) = browser() else {
        eprintln!("skipped: no Chromium or Chrome (set MCP_GEN_UI_BROWSER)");
        return;
    };
    let dir = project();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    let mut t = tools();
    t[0]["inputSchema"]["properties"]["days"] =
        json!({"type": "integer", "title": "Days", "minimum": 1, "maximum": 14});
    std::fs::write(d.join("tools.json"), t.to_string()).unwrap();
    let out = bin()
        .current_dir(d)
        .args(["diff", "--visual"])
        .env("MCP_GEN_UI_BROWSER", &browser)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let shots = d.join(".mcp-gen-ui-review/get_forecast");
    for name in ["before.png", "after.png", "diff.png"] {
        let shown = format!(
            "{}",
            Path::new(".mcp-gen-ui-review/get_forecast")
                .join(name)
                .display()
        );
        assert!(stdout.contains(&shown), "{shown} in {stdout}");
    }
    let read = |n: &str| mcp_gen_ui::review::visual::read_png(&shots.join(n)).unwrap();
    let (before, after, diff) = (read("before.png"), read("after.png"), read("diff.png"));
    assert_eq!((before.width, after.width, diff.width), (800, 800, 800));
    assert_ne!(before.rgba, after.rgba, "the new field shows");
    assert!(stdout.contains("pixels differ"), "{stdout}");
    // JSON output stays JSON, with the pictures in it.
    let out = bin()
        .current_dir(d)
        .args(["diff", "--visual", "--format", "json"])
        .env("MCP_GEN_UI_BROWSER", &browser)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pictures"][0]["path"], "get_forecast.html", "{v}");
    assert_eq!(
        v["pictures"][0]["files"].as_array().unwrap().len(),
        3,
        "{v}"
    );
    assert!(
        v["pictures"][0]["changed_pixels"].as_u64().unwrap() > 0,
        "{v}"
    );
    // The review folder is not for git.
    let status = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(
        !text(&status.stdout).contains(".mcp-gen-ui-review"),
        "{}",
        text(&status.stdout)
    );

    // An unchanged page renders the same pixels, from the same synthetic input and result.
    let page = std::fs::read_to_string(d.join("ui/get_forecast.html")).unwrap();
    let tool = &t[0];
    let input = mcp_gen_ui::review::visual::input_for(tool, None);
    let result = mcp_gen_ui::review::visual::result_for(tool);
    let shot = |name: &str| {
        let f = d.join(name);
        mcp_gen_ui::review::visual::render(&browser, &page, &input, &result, &f).unwrap();
        mcp_gen_ui::review::visual::read_png(&f).unwrap()
    };
    let (one, two) = (shot("one.png"), shot("two.png"));
    assert!(
        one.rgba == two.rgba,
        "the same page rendered different pixels"
    );
    let (_, changed) = mcp_gen_ui::review::visual::difference(&one, &two);
    assert_eq!(changed, 0);
    // The synthetic result is rendered: the page is not blank below its form.
    let non_white = one.rgba.chunks(4).filter(|p| p[0] < 200).count();
    assert!(non_white > 1000, "{non_white}");
}

/// A server that is not in this repository: npm `@modelcontextprotocol/server-everything`.
#[test]
fn review_of_server_everything_in_words_and_pictures() {
    let everything = support::host::everything();
    let server = format!("{} stdio", everything.display());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = run(d, &["generate", "--server", &server]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "ui"]);

    // refine: the view change as an arrow line, then a readable diff.
    let out = run(
        d,
        &[
            "refine",
            "get-structured-content",
            "table, hide field humidity",
            "--server",
            &server,
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  get-structured-content: view: automatic → table\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  get-structured-content: result field humidity: shown → hidden\n"),
        "{stdout}"
    );
    assert!(longest_line(&stdout) <= 400, "{stdout}");

    // An upstream drift (the snapshot says `get-sum` had no `b` yet): diff names the new field.
    let snap = d.join("ui/mcp-gen-ui.tools.json");
    let original = std::fs::read_to_string(&snap).unwrap();
    let mut tools: Value = serde_json::from_str(&original).unwrap();
    for t in tools.as_array_mut().unwrap() {
        if t["name"] == "get-sum" {
            t["inputSchema"]["properties"]
                .as_object_mut()
                .unwrap()
                .remove("b");
            t["inputSchema"]["required"] = json!(["a"]);
        }
    }
    std::fs::write(&snap, tools.to_string()).unwrap();
    let out = run(d, &["diff", "--server", &server]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  get-sum: added: field b (number, required)\n"),
        "{stdout}"
    );
    assert!(longest_line(&stdout) <= 400, "{stdout}");
    std::fs::write(&snap, original).unwrap();

    // The branch reviewed offline, in pictures.
    let Some(browser) = browser() else {
        eprintln!("pictures skipped: no Chromium or Chrome (set MCP_GEN_UI_BROWSER)");
        return;
    };
    let out = bin()
        .current_dir(d)
        .args([
            "diff",
            "--base",
            "main",
            "--visual",
            "--server",
            "/nonexistent/server",
        ])
        .env("MCP_GEN_UI_BROWSER", &browser)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("  get-structured-content: result field humidity: shown → hidden\n"),
        "{stdout}"
    );
    let shots = d.join(".mcp-gen-ui-review/get-structured-content");
    let read = |n: &str| mcp_gen_ui::review::visual::read_png(&shots.join(n)).unwrap();
    assert_ne!(read("before.png").rgba, read("after.png").rgba, "{stdout}");
    assert_eq!(read("diff.png").width, 800);
}
