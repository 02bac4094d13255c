//! The binary under test and a project for it: `bin()` is `mcp-gen-ui` with every environment
//! variable it reads cleared (so a key or a log setting in the developer's shell never changes a
//! test), and `Project` is a temporary folder with a config whose upstream is the `changing`
//! fixture, serving the tools a test writes to `tools.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use super::examples::example;

/// The path of the binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcp-gen-ui");

/// Every environment variable mcp-gen-ui reads (book: reference/security.md): its own secrets,
/// its log settings, the browser for `--visual`, colour, and `CI` (no prompt, no browser).
/// `PATH` and the temp folder are left alone: a child needs them to start at all.
pub const READ_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "MCP_GEN_UI_TOKEN",
    "MCP_GEN_UI_LOG",
    "MCP_GEN_UI_LOG_FORMAT",
    "MCP_GEN_UI_BROWSER",
    "NO_COLOR",
    "CI",
    "RUST_LOG",
];

/// `cmd` with every variable of [`READ_VARS`] removed.
pub fn cleared(mut cmd: Command) -> Command {
    for var in READ_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// The binary with every variable it reads cleared, then `CI=true` and `MCP_GEN_UI_BROWSER=off`:
/// a test never waits at a prompt nor opens a browser (llm pages are judged statically). A test
/// that wants a variable or a browser sets it on the returned command (`--browser` names one).
pub fn bin() -> Command {
    let mut c = cleared(Command::new(BIN));
    c.env("CI", "true").env("MCP_GEN_UI_BROWSER", "off");
    c
}

/// [`bin`] as an `assert_cmd::Command` (`.assert()`, `.write_stdin()`).
pub fn cmd() -> assert_cmd::Command {
    assert_cmd::Command::from_std(bin())
}

/// [`bin`] for async tests (`serve`, children killed on drop).
pub fn tokio_bin() -> tokio::process::Command {
    tokio::process::Command::from(bin())
}

/// A `--server` command line: the example server `name` (quoted) and its `args`.
pub fn server(name: &str, args: &str) -> String {
    let path = example(name);
    format!("{} {args}", shell_words::quote(&path.display().to_string()))
}

/// The `fixture-server` in `mode` as a `--server` command line.
pub fn fixture(mode: &str) -> String {
    server("fixture-server", &format!("--mode {mode}"))
}

/// A file under `tests/fixtures/` (`servers/slow_exit.py`, `llm/good_ui.html`), as a string.
pub fn fixture_file(rel: &str) -> String {
    format!("{}/tests/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// `s` as a TOML (and JSON) string.
pub fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Bytes as text, lossily.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The lockfile under `dir` (`ui/mcp-gen-ui.lock`) as a TOML table.
pub fn lock_toml(dir: &Path) -> toml::Table {
    std::fs::read_to_string(dir.join("ui/mcp-gen-ui.lock"))
        .unwrap()
        .parse()
        .unwrap()
}

/// A project folder, removed on drop.
pub struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// An empty folder.
    pub fn empty() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A project whose upstream is the `changing` fixture serving `tools` (from `tools.json`),
    /// followed by `extra` config lines.
    pub fn changing_with(tools: &Value, extra: &str) -> Project {
        let p = Project::empty();
        p.set_tools(tools);
        p.write_config(&format!(
            "[upstream]\ncommand = {}\nargs = [\"--mode\", \"changing\", \"--tools-file\", \"tools.json\"]\ncwd = \".\"\n{extra}",
            toml_str(&example("fixture-server").display().to_string())
        ));
        p
    }

    /// [`changing_with`](Self::changing_with) and no more config.
    pub fn new(tools: &Value) -> Project {
        Project::changing_with(tools, "")
    }

    /// [`new`](Self::new), then `generate` (which must succeed).
    pub fn generated(tools: &Value) -> Project {
        let p = Project::new(tools);
        let out = p.run(&["generate"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        p
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The output folder, `ui/`.
    pub fn ui(&self) -> PathBuf {
        self.path().join("ui")
    }

    /// Replaces `mcp-gen-ui.toml`.
    pub fn write_config(&self, toml: &str) {
        std::fs::write(self.path().join("mcp-gen-ui.toml"), toml).unwrap();
    }

    /// The tools the `changing` fixture serves from now on.
    pub fn set_tools(&self, tools: &Value) {
        std::fs::write(self.path().join("tools.json"), tools.to_string()).unwrap();
    }

    /// [`bin`] in this folder.
    pub fn cmd(&self) -> Command {
        let mut c = bin();
        c.current_dir(self.path());
        c
    }

    /// Runs [`cmd`](Self::cmd) with `args` to the end.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// Runs [`cmd`](Self::cmd) with `args`, asserting that it succeeds; the assertion, to check
    /// more.
    pub fn ok(&self, args: &[&str]) -> assert_cmd::assert::Assert {
        use assert_cmd::assert::OutputAssertExt as _;
        self.cmd().args(args).assert().success()
    }

    /// [`exits_saying`] in this folder.
    pub fn exits_saying(&self, args: &[&str], code: i32, says: &str) -> assert_cmd::assert::Assert {
        exits_saying(self.path(), args, code, says)
    }

    /// What [`cmd`](Self::cmd) with `args` prints on stdout, read as JSON (`--format json`).
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.run(args);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stderr)))
    }

    /// A file under `ui/`.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.ui().join(rel)).unwrap()
    }

    /// The lockfile as a TOML table.
    pub fn lock(&self) -> toml::Table {
        lock_toml(self.path())
    }
}

/// One tool, `get_forecast` (a city in, days of highs and lows out): the project of the review
/// and workflow tests.
pub fn forecast_tools() -> Value {
    serde_json::json!([
        {"name": "get_forecast", "title": "Forecast", "description": "Daily forecast.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
         "outputSchema": {"type": "object", "properties": {"days": {"type": "array", "items": {"type": "object",
            "properties": {"date": {"type": "string"}, "high": {"type": "number"}, "low": {"type": "number"}}}}}}}
    ])
}

/// Runs [`bin`] in `dir` with `args` to the end.
pub fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

/// Runs [`bin`] in `dir` with `args`, asserting that it exits with `code` and that its stderr
/// holds `says`: how most tests check a command's outcome. The assertion, to check more.
pub fn exits_saying(
    dir: impl AsRef<Path>,
    args: &[&str],
    code: i32,
    says: &str,
) -> assert_cmd::assert::Assert {
    use assert_cmd::assert::OutputAssertExt as _;
    bin()
        .current_dir(dir)
        .args(args)
        .assert()
        .code(code)
        .stderr(predicates::str::contains(says))
}

/// Asserts that `text` holds each of `needles` (the first missing one is named, with `text`).
pub fn assert_holds(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "no {needle:?} in:\n{text}");
    }
}

/// `git ARGS` in `dir` as a fixed author and committer.
pub fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap()
}
