//! Writing `mcp-gen-ui.toml`: the one renderer that `init` and the first `generate --server`
//! share (book: configuration.md), so a project left by either reads the same.

use crate::mcp::negotiate::Protocol;
use crate::mcp::{HttpTransport, StdioSpec, UpstreamSpec};

/// What a new configuration says.
#[derive(Debug, Clone)]
pub struct NewConfig<'a> {
    /// The upstream as a file may hold it: secrets only as `${VAR}` references (see
    /// `Config::cli_file_form`).
    pub upstream: Option<&'a UpstreamSpec>,
    /// `builtin` or `llm` (`GeneratorKind`'s name).
    pub generator: &'a str,
    pub out_dir: String,
    /// `--env` entries: names become `env_inherit`; a value is never written (a comment says
    /// how to pass it).
    pub env: &'a [(String, Option<String>)],
    /// `--protocol`, written as `[upstream] protocol`.
    pub protocol: Option<Protocol>,
    /// Where a stdio upstream starts, when not the file's own directory.
    pub cwd: Option<String>,
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The configuration text: the settings, plus commented defaults worth knowing about.
pub fn render(a: &NewConfig<'_>) -> String {
    let mut t = String::from(
        "# mcp-gen-ui configuration. Reference: the book's \"Configuration\" chapter.\n",
    );
    t.push_str(&format!("out_dir = {}\n", q(&a.out_dir)));
    t.push_str(&format!("generator = \"{}\"\n", a.generator));
    t.push_str("enabled_tools = []                  # empty = all tools\n");
    t.push_str(
        "# stable_uris = true                # ui:// URIs without ?v= (registered with an app directory)\n\n[upstream]\n",
    );
    match a.upstream {
        Some(UpstreamSpec::Stdio(s)) => render_stdio(&mut t, s, a.env, a.cwd.as_deref()),
        Some(UpstreamSpec::Http(h)) => {
            t.push_str(&format!("url = {}\n", q(&h.url)));
            let tr = match h.transport {
                HttpTransport::StreamableHttp => "streamable-http",
                HttpTransport::Sse => "sse",
            };
            t.push_str(&format!("transport = \"{tr}\"\n"));
            t.push_str("# headers = { Authorization = \"Bearer ${MCP_TOKEN}\" }\n");
        }
        None => {}
    }
    t.push_str("# timeout_ms = 10000\n");
    match a.protocol {
        Some(p) if p != Protocol::Auto => {
            t.push_str(&format!(
                "protocol = \"{p}\"                # mcp-gen-ui's own client\n"
            ));
        }
        _ => t.push_str("# protocol = \"auto\"                # or \"handshake\", \"stateless\"\n"),
    }
    if a.generator == "llm" {
        t.push_str(
            "\n[llm]                               # the key comes from ANTHROPIC_API_KEY / OPENAI_API_KEY\nprovider = \"anthropic\"\nmodel = \"claude-sonnet-4-5\"\n",
        );
    }
    t.push_str(
        "\n[serve]\nstale = \"serve\"                     # or \"hide\"\n\n# [tools.NAME]\n# hints = { view = \"line\", x = \"date\", y = [\"high\", \"low\"] }\n",
    );
    t
}

/// The `[upstream]` lines of a stdio server: its command line and the environment it gets.
fn render_stdio(
    t: &mut String,
    s: &StdioSpec,
    env: &[(String, Option<String>)],
    cwd: Option<&str>,
) {
    t.push_str(&format!("command = {}\n", q(&s.command)));
    let args: Vec<String> = s.args.iter().map(|x| q(x)).collect();
    t.push_str(&format!("args = [{}]\n", args.join(", ")));
    if s.env.is_empty() {
        t.push_str(
            "# The server inherits only PATH, HOME and a few more (see the book); pass others:\n\
             # env = { API_TOKEN = \"${API_TOKEN}\" }   # from our environment, never written\n",
        );
    } else {
        // Only references reach here (`Config::cli_file_form`): values come from the
        // environment of each run.
        let pairs: Vec<String> = s
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", toml_key(k), q(v)))
            .collect();
        t.push_str("# Read from the environment of each run, never written here:\n");
        t.push_str(&format!("env = {{ {} }}\n", pairs.join(", ")));
    }
    let inherit: Vec<String> = env
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| q(n))
        .collect();
    if inherit.is_empty() {
        t.push_str("# env_inherit = [\"MYAPP_*\"]\n");
    } else {
        t.push_str(&format!("env_inherit = [{}]\n", inherit.join(", ")));
    }
    for (name, _) in env.iter().filter(|(_, v)| v.is_some()) {
        // The value given with --env NAME=VALUE is never written: name where it comes from.
        t.push_str(&format!(
            "# {name} was set with --env {name}=… for this run; set it for every run with\n\
             # env = {{ {name} = \"${{{name}}}\" }} (and export {name}), or keep passing --env\n"
        ));
    }
    match cwd {
        Some(c) => t.push_str(&format!("cwd = {}\n", q(c))),
        None => t.push_str("# cwd = \".\"\n"),
    }
}

/// A key of an inline table: bare when TOML allows it, quoted otherwise.
fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        q(k)
    }
}

/// The one line that says which secrets of a command line a written file names instead of
/// holding (book: reference/security.md, "Secrets on a command line"); `None` when there were
/// none.
pub fn kept_out_note(names: &[String], file: &std::path::Path) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let list = names
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    let them = if names.len() == 1 { "it" } else { "them" };
    Some(format!(
        "Kept {list} out of {}: the file names {them}, pass {them} from the environment for \
         the next runs.",
        file.display()
    ))
}
