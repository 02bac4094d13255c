//! The registry suite's servers: the manifest `tests/fixtures/registry-servers.json`, what
//! `tests/registry/install.sh` recorded in `tests/registry/.status`, and each server's command
//! line, wrapped so it starts without network access where the kernel allows it.
//! book: installation.md ("Servers we test against").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One server of the manifest, resolved for this checkout.
pub struct Server {
    pub name: String,
    /// `package@version`, for messages.
    pub pinned: String,
    /// Ready to start, or why it is skipped (never counted as a pass).
    pub state: State,
    /// Dummy keys the server needs to list its tools.
    pub env: Vec<(String, String)>,
    pub expect_tools: usize,
    pub expect_names: Vec<String>,
}

pub enum State {
    /// The command line (already wrapped to start offline when possible).
    Ready(Vec<String>),
    /// Its registry was not installed here, and why.
    Skipped(String),
    /// Its registry installed but the server is not where the manifest says: a test failure.
    Broken(String),
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What install.sh recorded per registry: Ok, or the reason its servers are skipped.
fn status() -> Result<BTreeMap<String, Result<(), String>>, String> {
    let path = repo().join("tests/registry/.status");
    let text = std::fs::read_to_string(&path).map_err(|_| {
        "not installed here: run `bash tests/registry/install.sh` (tests/run-all.sh does)"
            .to_string()
    })?;
    Ok(text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| {
            let v = v.trim();
            let r = if v == "ok" {
                Ok(())
            } else {
                Err(v.trim_start_matches("skip:").trim().to_string())
            };
            (k.trim().to_string(), r)
        })
        .collect())
}

/// `unshare -rn` when this kernel lets an unprivileged user drop the network: the servers then
/// prove they list their tools offline. Empty (and said once) where it cannot.
pub fn offline_prefix() -> Vec<String> {
    let ok = std::process::Command::new("unshare")
        .args(["-rn", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!(
            "note: `unshare -rn` is not available here; the registry servers start with the network"
        );
    }
    if ok {
        vec!["unshare".into(), "-rn".into()]
    } else {
        Vec::new()
    }
}

/// Every server of the manifest; `scratch` replaces `{scratch}` in command lines.
pub fn servers(scratch: &Path) -> Vec<Server> {
    let manifest = repo().join("tests/fixtures/registry-servers.json");
    let text = std::fs::read_to_string(&manifest)
        .unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let doc: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let status = status();
    let offline = offline_prefix();
    let npm = repo().join("tests/registry/node_modules/.bin");
    let venv = repo().join("tests/registry/.venv/bin");
    let str_of = |v: &Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    doc["servers"]
        .as_array()
        .expect("registry-servers.json: `servers` is an array")
        .iter()
        .map(|s| {
            let name = str_of(s, "name");
            let registry = str_of(s, "registry");
            let command: Vec<String> = s["command"]
                .as_array()
                .unwrap_or_else(|| panic!("registry-servers.json: {name} has no command"))
                .iter()
                .map(|a| {
                    a.as_str()
                        .unwrap_or_default()
                        .replace("{npm}", &npm.display().to_string())
                        .replace("{venv}", &venv.display().to_string())
                        .replace("{scratch}", &scratch.display().to_string())
                })
                .collect();
            let state = match status.as_ref().map(|m| m.get(&registry)) {
                Err(why) => State::Skipped(why.clone()),
                Ok(None) => State::Skipped(format!("install.sh recorded nothing for {registry}")),
                Ok(Some(Err(why))) => State::Skipped(why.clone()),
                Ok(Some(Ok(()))) if !Path::new(&command[0]).exists() => State::Broken(format!(
                    "{registry} installed, but {} is missing",
                    command[0]
                )),
                Ok(Some(Ok(()))) => State::Ready(offline.iter().cloned().chain(command).collect()),
            };
            let env = s["env"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let names = s["expect"]["names"].as_array().cloned().unwrap_or_default();
            Server {
                pinned: format!("{}@{}", str_of(s, "package"), str_of(s, "version")),
                name,
                state,
                env,
                expect_tools: s["expect"]["tools"].as_u64().unwrap_or(0) as usize,
                expect_names: names
                    .iter()
                    .filter_map(|n| n.as_str().map(String::from))
                    .collect(),
            }
        })
        .collect()
}

/// A command line as shell words, for `--server`.
pub fn shell_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
