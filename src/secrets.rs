//! mcp-gen-ui's own secrets (book: reference/security.md): which environment variables hold them, what a child
//! process inherits, and the one redaction that every printed or logged text goes through.
//!
//! A secret is `MCP_GEN_UI_TOKEN`, a provider key (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`), or the
//! value behind a `${VAR}` reference in the config. Their values are registered here when they are
//! read, and [`redact`] replaces them wherever they appear; it also blanks the quoted value of a
//! secret-looking key in a config or header line (`api_key = "…"`, `"Authorization": "…"`) and
//! the credential after `Bearer`/`Basic`, so a literal key in a broken config or an upstream's
//! error body that echoes request headers is never printed.

mod command_line;

pub use command_line::{Scrubbed, scrub_url, scrub_words};

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::RwLock;

/// What a redacted value is replaced with.
pub use command_line::REDACTED;
use command_line::secret_key;

/// Environment variables that hold mcp-gen-ui's own secrets.
pub const SECRET_VARS: &[&str] = &["MCP_GEN_UI_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/// Values shorter than this are not treated as secrets to find in text: redacting every "abc"
/// would mangle output and protect nothing.
const MIN_SECRET_LEN: usize = 6;

/// What a child process (a stdio upstream) inherits from mcp-gen-ui's environment, besides the
/// config's `[upstream] env` and `env_inherit`: what the official TypeScript SDK passes (HOME,
/// LOGNAME, PATH, SHELL, TERM, USER), plus what toolchains that start servers (`cargo run`,
/// `npx`, `uvx`, `go run`) need to find their caches, certificates and proxies, and the locale.
pub const INHERITED_VARS: &[&str] = &[
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "COLORTERM",
    "NO_COLOR",
    // Rust
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_TARGET_DIR",
    // Node
    "NVM_DIR",
    "NODE_PATH",
    "NODE_EXTRA_CA_CERTS",
    "npm_config_cache",
    "npm_config_prefix",
    "npm_config_registry",
    "NPM_CONFIG_CACHE",
    "NPM_CONFIG_PREFIX",
    "NPM_CONFIG_REGISTRY",
    // Python
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "CONDA_PREFIX",
    "UV_CACHE_DIR",
    "UV_PYTHON_INSTALL_DIR",
    "UV_TOOL_DIR",
    // Go, Java
    "GOPATH",
    "GOROOT",
    "GOMODCACHE",
    "GOCACHE",
    "JAVA_HOME",
    // Certificates and proxies
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    // Dynamic libraries
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "DYLD_FALLBACK_LIBRARY_PATH",
    // Windows
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "USERPROFILE",
    "USERNAME",
    "TEMP",
    "TMP",
];

/// Prefixes of inherited variables (locale categories, XDG base directories).
pub const INHERITED_PREFIXES: &[&str] = &["LC_", "XDG_"];

/// Whether `name` is one of mcp-gen-ui's own secrets, or the name of a variable a `${VAR}`
/// reference read (never inherited, only passed when `[upstream] env` names it).
pub fn is_secret_var(name: &str) -> bool {
    SECRET_VARS.contains(&name) || read_vars().contains(name)
}

/// Whether a child inherits `name` by default (see [`INHERITED_VARS`]).
pub fn inherited_by_default(name: &str) -> bool {
    INHERITED_VARS.contains(&name) || INHERITED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether `name` matches an `env_inherit` entry: an exact name, or `PREFIX*`.
pub fn matches_pattern(name: &str, pattern: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

/// The environment a child process gets from mcp-gen-ui's own: the default allow-list and the
/// `extra` patterns, never a secret (a secret reaches a child only through `[upstream] env`).
pub fn child_environment(extra: &[String]) -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| {
            !is_secret_var(k)
                && (inherited_by_default(k) || extra.iter().any(|p| matches_pattern(k, p)))
        })
        .collect()
}

/// What a child process is given of the environment, as configured: the patterns it inherits
/// beyond the allow-list and the names set for it. Plain data, so `secrets` stays below `mcp`
/// (`mcp::StdioSpec::child_env` makes one).
#[derive(Debug, Clone, Copy)]
pub struct ChildEnv<'a> {
    pub inherit: &'a [String],
    pub set: &'a BTreeMap<String, String>,
}

/// The names of our variables a child started with `child` does not get (names only; the values
/// are never looked at).
pub fn withheld_vars(child: ChildEnv<'_>) -> std::collections::BTreeSet<String> {
    let given: BTreeSet<String> = child_environment(child.inherit)
        .into_iter()
        .map(|(k, _)| k)
        .chain(child.set.keys().cloned())
        .collect();
    std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| !given.contains(k))
        .collect()
}

/// What to add to the error of a stdio upstream that failed before answering: the withheld
/// variables its `stderr` names (names only), each with the way to pass it, or — when `always`
/// and none is named — that it got only the allow-listed environment and how to pass more.
pub fn withheld_hint(child: ChildEnv<'_>, stderr: &[String], always: bool) -> String {
    let words: BTreeSet<&str> = stderr
        .iter()
        .flat_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| w.len() >= 2)
        .collect();
    let named: Vec<String> = withheld_vars(child)
        .into_iter()
        .filter(|v| words.contains(v.as_str()))
        .collect();
    let (own, plain): (Vec<String>, Vec<String>) =
        named.into_iter().partition(|v| is_secret_var(v));
    let mut out = String::new();
    if !plain.is_empty() {
        let list = plain
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let (is, them) = if plain.len() == 1 {
            ("is", "it")
        } else {
            ("are", "them")
        };
        let flags = plain
            .iter()
            .map(|v| format!("--env {v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let quoted = plain
            .iter()
            .map(|v| format!("\"{v}\""))
            .collect::<Vec<_>>()
            .join(", ");
        out.push_str(&format!(
            "\n{list} {is} set in mcp-gen-ui's environment but withheld from the upstream (a \
             stdio upstream gets only an allow-listed environment). Pass {them} with {flags}, \
             or in mcp-gen-ui.toml with [upstream] env_inherit = [{quoted}] (or env = {{ NAME = \
             \"VALUE\" }})."
        ));
    }
    for v in &own {
        out.push_str(&format!(
            "\n`{v}` is one of mcp-gen-ui's own secrets: it reaches an upstream only when \
             mcp-gen-ui.toml names it, under [upstream]: env.{v} = \"${{{v}}}\" (never \
             --env)."
        ));
    }
    if out.is_empty() && always {
        out.push_str(
            "\nnote: the upstream got only the allow-listed environment (PATH, HOME, the locale, \
             toolchain and proxy variables: see the book's configuration chapter), not all of \
             mcp-gen-ui's. If it needs a variable of yours, pass it with --env NAME or --env \
             NAME=VALUE, or in mcp-gen-ui.toml with [upstream] env_inherit = [\"NAME\"] or \
             env = { NAME = \"VALUE\" }.",
        );
    }
    out
}

struct Known {
    values: BTreeSet<String>,
    vars: BTreeSet<String>,
}

static KNOWN: RwLock<Known> = RwLock::new(Known {
    values: BTreeSet::new(),
    vars: BTreeSet::new(),
});

fn read_vars() -> BTreeSet<String> {
    match KNOWN.read() {
        Ok(k) => k.vars.clone(),
        Err(p) => p.into_inner().vars.clone(),
    }
}

fn write_known() -> std::sync::RwLockWriteGuard<'static, Known> {
    match KNOWN.write() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Reads the values of [`SECRET_VARS`] from the environment, once.
fn load_env_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut known = write_known();
        for var in SECRET_VARS {
            if let Ok(v) = std::env::var(var)
                && v.trim().len() >= MIN_SECRET_LEN
            {
                known.values.insert(v.trim().to_string());
            }
        }
    });
}

fn with_known<T>(f: impl FnOnce(&mut Known) -> T) -> T {
    load_env_once();
    f(&mut write_known())
}

/// Records that `${var}` was read for the config, and its value as a secret to redact.
pub fn register_var(var: &str, value: &str) {
    // `${HOME}` or `${PATH}` in the config is not a secret: every child inherits them anyway.
    if inherited_by_default(var) {
        return;
    }
    with_known(|k| {
        k.vars.insert(var.to_string());
        if value.trim().len() >= MIN_SECRET_LEN {
            k.values.insert(value.trim().to_string());
        }
    });
}

/// Records every value a command line held as a secret (see [`scrub_words`]): assignments,
/// flags, headers, URL credentials.
pub fn register_scrubbed(scrubbed: &Scrubbed) {
    for (_, v) in scrubbed.env.iter().chain(&scrubbed.vars) {
        register_value(v);
    }
}

/// Records a secret value to redact from all output (a provider key, a token).
pub fn register_value(value: &str) {
    with_known(|k| {
        if value.trim().len() >= MIN_SECRET_LEN {
            k.values.insert(value.trim().to_string());
        }
    });
}

/// How many of an upstream's last stderr lines an error about it quotes, and how many bytes.
pub const STDERR_EXCERPT_LINES: usize = 5;
pub const STDERR_EXCERPT_BYTES: usize = 2048;

/// What an error quotes of an upstream's stderr (book: reference/security.md, "Secrets on a
/// command line"): its last 5 lines, at most 2 KB (the oldest dropped first, a longer last line
/// cut), each through [`redact`] — an upstream may print its own key.
pub fn stderr_excerpt(lines: &[String]) -> Vec<String> {
    let start = lines.len().saturating_sub(STDERR_EXCERPT_LINES);
    let mut out: Vec<String> = lines[start..]
        .iter()
        .map(|l| redact(l).into_owned())
        .collect();
    while out.len() > 1 && out.iter().map(String::len).sum::<usize>() > STDERR_EXCERPT_BYTES {
        out.remove(0);
    }
    if let Some(last) = out.last_mut()
        && last.len() > STDERR_EXCERPT_BYTES
    {
        let mut cut = STDERR_EXCERPT_BYTES;
        while !last.is_char_boundary(cut) {
            cut -= 1;
        }
        last.truncate(cut);
        last.push('…');
    }
    out
}

/// A writer that redacts what goes through it (the log subscriber formats one event per
/// `write`, so a secret is never split between two calls).
pub struct RedactingWriter<W: std::io::Write> {
    inner: W,
}

impl<W: std::io::Write> RedactingWriter<W> {
    pub fn new(inner: W) -> Self {
        RedactingWriter { inner }
    }
}

impl<W: std::io::Write> std::io::Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.inner.write_all(redact(text).as_bytes())?,
            Err(_) => self.inner.write_all(buf)?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Replaces every known secret value, the quoted values of secret-looking keys, and the
/// credential after `Bearer `/`Basic `. Used by the printer, the log writer and the error path.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    load_env_once();
    let known = match KNOWN.read() {
        Ok(k) => k,
        Err(p) => p.into_inner(),
    };
    for v in &known.values {
        if out.contains(v.as_str()) {
            out = Cow::Owned(out.replace(v.as_str(), REDACTED));
        }
    }
    drop(known);
    if let Some(s) = redact_patterns(&out) {
        out = Cow::Owned(s);
    }
    if let Some(s) = command_line::redact_command_lines(&out) {
        out = Cow::Owned(s);
    }
    out
}

/// The pattern part of [`redact`]; `None` when nothing matched (the common case, no copy).
fn redact_patterns(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let maybe = ["bearer ", "basic ", "=", ":"]
        .iter()
        .any(|p| lower.contains(p));
    if !maybe {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        // A key: an identifier, maybe quoted.
        let c = chars[i];
        if is_ident(c) && (i == 0 || !is_ident(chars[i - 1])) {
            let start = i;
            let mut j = i;
            while j < chars.len() && is_ident(chars[j]) {
                j += 1;
            }
            let word: String = chars[start..j].iter().collect();
            out.push_str(&word);
            i = j;
            let lw = word.to_ascii_lowercase();
            if (lw == "bearer" || lw == "basic")
                && i < chars.len()
                && chars[i] == ' '
                && chars.get(i + 1).is_some_and(|c| is_token(*c))
            {
                out.push(' ');
                let mut k = i + 1;
                while k < chars.len() && is_token(chars[k]) {
                    k += 1;
                }
                out.push_str(REDACTED);
                changed = true;
                i = k;
                continue;
            }
            // Where a key can start: a line, a table, a list; quoted only as a whole (`"key":`),
            // which rules out code like `o="password":"date"`.
            let quote = start
                .checked_sub(1)
                .and_then(|p| chars.get(p))
                .filter(|c| matches!(c, '"' | '\''))
                .copied();
            let before = match quote {
                Some(_) => start.checked_sub(2).and_then(|p| chars.get(p)),
                None => start.checked_sub(1).and_then(|p| chars.get(p)),
            };
            let key_position = before.is_none_or(|c| c.is_whitespace() || matches!(c, '{' | ','));
            if key_position
                && secret_key(&word)
                && let Some((sep_end, q)) = quoted_value_start(&chars, i, quote)
            {
                // Copy the separator and opening quote, blank the value up to the closing quote.
                out.extend(&chars[i..sep_end]);
                let mut k = sep_end;
                while k < chars.len() && chars[k] != q {
                    if chars[k] == '\\' {
                        k += 1;
                    }
                    k += 1;
                }
                let value_len = k.min(chars.len()) - sep_end;
                if value_len > 0 {
                    out.push_str(REDACTED);
                    changed = true;
                }
                i = k.min(chars.len());
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

/// After a key at `i`: its closing quote when it was quoted, spaces, `=` or `:`, spaces and an opening
/// quote. Returns the index after the opening quote and the quote character.
fn quoted_value_start(chars: &[char], mut i: usize, quote: Option<char>) -> Option<(usize, char)> {
    if let Some(q) = quote {
        if chars.get(i) != Some(&q) {
            return None;
        }
        i += 1;
    }
    while chars.get(i) == Some(&' ') {
        i += 1;
    }
    if !matches!(chars.get(i), Some('=' | ':')) {
        return None;
    }
    i += 1;
    while chars.get(i) == Some(&' ') {
        i += 1;
    }
    match chars.get(i) {
        Some(q @ ('"' | '\'')) => Some((i + 1, *q)),
        _ => None,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Characters of a bearer or basic credential (RFC 6750 b64token and friends).
fn is_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/=:".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_values_and_patterns_are_redacted() {
        register_value("sk-unit-test-secret-123");
        let r = redact("upstream said: key sk-unit-test-secret-123 is bad");
        assert_eq!(r, "upstream said: key [redacted] is bad");
        let r = redact(r#"    3 | api_key = "sk-live-abcdef""#);
        assert_eq!(r, r#"    3 | api_key = "[redacted]""#);
        let r = redact(r#"{"headers":{"Authorization":"Bearer abc.def"}}"#);
        assert!(!r.contains("abc.def"), "{r}");
        let r = redact("echo: authorization: Bearer xyz123, x-api-key: 'k-987654'");
        assert!(!r.contains("xyz123") && !r.contains("k-987654"), "{r}");
        // Ordinary messages are left alone.
        let plain = "error: --http needs a token: set MCP_GEN_UI_TOKEN (see `serve --help`)";
        assert_eq!(redact(plain), plain);
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
    }

    /// `diff` prints pages and `inspect` prints schemas through the redaction: the runtime and
    /// the builtin pages themselves must come through unchanged.
    #[test]
    fn generated_code_is_not_mistaken_for_secrets() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for sub in ["templates/min", "examples/weather/ui"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap() {
                let path = e.unwrap().path();
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for line in text.lines() {
                    assert_eq!(redact(line), line, "{}", path.display());
                }
            }
        }
    }

    #[test]
    fn withheld_variables_named_in_stderr_are_named_with_how_to_pass_them() {
        // A variable of ours (cargo sets several for a test) that a child does not get.
        let Some(var) = std::env::vars().map(|(k, _)| k).find(|k| {
            k.len() >= 4
                && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                && !inherited_by_default(k)
                && !is_secret_var(k)
        }) else {
            return;
        };
        let spec = crate::mcp::StdioSpec::default();
        let stderr = vec![format!("Error: {var} is not set"), "bye".into()];
        let hint = withheld_hint(spec.child_env(), &stderr, true);
        assert!(hint.contains(&format!("`{var}` is set")), "{hint}");
        assert!(hint.contains(&format!("--env {var}")), "{hint}");
        assert!(
            hint.contains(&format!("env_inherit = [\"{var}\"]")),
            "{hint}"
        );
        // Only whole words: a longer name that contains it is not it.
        let hint = withheld_hint(spec.child_env(), &[format!("X{var}Y missing")], false);
        assert_eq!(hint, "");
        // Passed on (env_inherit, --env NAME, or set in env): nothing withheld to name.
        let inherit = crate::mcp::StdioSpec {
            inherit: vec![format!("{}*", &var[..2])],
            ..Default::default()
        };
        assert_eq!(withheld_hint(inherit.child_env(), &stderr, false), "");
        let hint = withheld_hint(inherit.child_env(), &stderr, true);
        assert!(hint.contains("only the allow-listed environment"), "{hint}");
        assert!(hint.contains("--env NAME"), "{hint}");
        let mut set = crate::mcp::StdioSpec::default();
        set.env.insert(var.clone(), "x".into());
        assert!(!withheld_vars(set.child_env()).contains(&var));
        assert!(withheld_vars(spec.child_env()).contains(&var));
        // Nothing but the name: values never appear.
        let value = std::env::var(&var).unwrap_or_default();
        if value.len() >= 4 {
            assert!(!withheld_hint(spec.child_env(), &stderr, true).contains(&value));
        }
    }

    #[test]
    fn child_environment_keeps_the_allow_list_and_drops_secrets() {
        assert!(inherited_by_default("PATH") && inherited_by_default("LC_ALL"));
        assert!(!inherited_by_default("MCP_GEN_UI_TOKEN"));
        assert!(matches_pattern("MY_VAR", "MY_*") && !matches_pattern("MYVAR", "MY_*"));
        assert!(is_secret_var("OPENAI_API_KEY"));
    }
}
