//! `ui/mcp-gen-ui.lock`: what was generated from what. TOML, sorted, with no timestamps or
//! durations, so that it only changes when the output does and reviews well in git.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::model::{LOCK_FILE, RUN_LOCK_FILE, TOOLS_FILE};
/// The format version of the lock file itself.
pub const LOCK_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a valid mcp-gen-ui lock: {message}. Restore it from git, or delete it and run `mcp-gen-ui generate --force`"
    )]
    Invalid { path: PathBuf, message: String },
    #[error(
        "{path} was written by a newer mcp-gen-ui (lock version {found}, this binary reads {LOCK_VERSION}): upgrade mcp-gen-ui"
    )]
    TooNew { path: PathBuf, found: u32 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    pub version: u32,
    /// The generator that produced the files (`builtin` or `llm:<provider>/<model>`).
    pub generator: String,
    /// sha256 over everything that shapes the generator's output.
    pub fingerprint: String,
    /// The validator that passed every file; `check` re-validates only when it differs.
    pub validator_version: u32,
    /// The slug used as the authority of `ui://` URIs.
    pub server_name: String,
    #[serde(default)]
    pub tools: BTreeMap<String, ToolEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ToolEntry {
    pub tool_hash: String,
    /// sha256 of the tool's `[tools.NAME]` settings that shape output (hints, widgets, csp, examples).
    pub config_hash: String,
    /// Refinement feedback, in the order it was given.
    #[serde(default)]
    pub refinements: Vec<String>,
    /// The generator fingerprint this tool was generated with, when it differs from the lock's
    /// (only some tools were regenerated after the generator changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// A hand edit accepted with `generate --adopt`: never regenerated until `--force`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    #[serde(default)]
    pub widgets: Vec<WidgetEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct WidgetEntry {
    /// `default` for a tool's single UI, else the configured widget name.
    pub name: String,
    /// Relative to the output directory, with `/` separators.
    pub path: String,
    pub sha256: String,
    /// The page's URI as hosts see it: `ui://<server>/<path without .html>` plus `?v=` and the
    /// first 8 hex digits of `sha256`, or without `?v=` under `stable_uris` (book:
    /// reference/names.md). Empty in a lock written before URIs carried a version.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uri: String,
    pub generator: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt_version: String,
    pub template_version: String,
    /// `rich` or `minimal`.
    pub ui_type: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// Why the llm output was replaced by the builtin output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<String>,
    /// The fallback was caused by a transient failure (timeout, rate limit…): retry next run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback_transient: bool,
}

/// The name of the single widget of a tool without configured widgets.
pub const DEFAULT_WIDGET: &str = "default";

impl Lock {
    pub fn path(out_dir: &Path) -> PathBuf {
        out_dir.join(LOCK_FILE)
    }

    /// Reads the lock of an output directory; `Ok(None)` when there is none yet.
    pub fn read(out_dir: &Path) -> Result<Option<Lock>, LockError> {
        let path = Lock::path(out_dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(LockError::Read { path, source }),
        };
        Lock::parse(&path, &text).map(Some)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Lock, LockError> {
        // Check the version first, so a newer format says "upgrade" rather than "invalid".
        if let Ok(table) = text.parse::<toml::Table>()
            && let Some(v) = table.get("version").and_then(toml::Value::as_integer)
            && v > i64::from(LOCK_VERSION)
        {
            return Err(LockError::TooNew {
                path: path.to_path_buf(),
                found: u32::try_from(v).unwrap_or(u32::MAX),
            });
        }
        let lock: Lock = toml::from_str(text).map_err(|e| LockError::Invalid {
            path: path.to_path_buf(),
            message: e.message().trim().to_string(),
        })?;
        for (name, entry) in &lock.tools {
            for w in &entry.widgets {
                if !safe_relative_path(&w.path) {
                    return Err(LockError::Invalid {
                        path: path.to_path_buf(),
                        message: format!("tool `{name}` has the unsafe file path `{}`", w.path),
                    });
                }
            }
        }
        Ok(lock)
    }

    /// The deterministic TOML text of the lock.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# Generated by mcp-gen-ui: the source of truth for the files in this directory.\n\
             # Do not edit by hand; run `mcp-gen-ui generate` (or `refine`) instead.\n\n{body}"
        )
    }

    /// The fingerprint a tool's files were generated with.
    pub fn tool_fingerprint<'a>(&'a self, entry: &'a ToolEntry) -> &'a str {
        entry.fingerprint.as_deref().unwrap_or(&self.fingerprint)
    }

    /// The authority of the `ui://` URIs: the config's `server_name` (slugged) when it sets one,
    /// else the one the lock records.
    pub fn uri_server(&self, configured: Option<&str>) -> String {
        configured.map_or_else(|| self.server_name.clone(), crate::model::server_slug)
    }

    /// The URI hosts see for one of the lock's files: its name, plus `?v=` and the first digits
    /// of its recorded hash unless `stable` (book: reference/names.md, "Page URIs").
    pub fn page_uri(&self, configured: Option<&str>, w: &WidgetEntry, stable: bool) -> String {
        crate::model::page_uri(&self.uri_server(configured), &w.path, &w.sha256, stable)
    }

    /// Records every file's URI, from the lock's own server name and hashes.
    pub fn fill_uris(&mut self, stable: bool) {
        let server = self.server_name.clone();
        for w in self.tools.values_mut().flat_map(|t| t.widgets.iter_mut()) {
            w.uri = crate::model::page_uri(&server, &w.path, &w.sha256, stable);
        }
    }

    /// Every file path the lock manages, relative to the output directory.
    pub fn files(&self) -> impl Iterator<Item = (&str, &WidgetEntry)> {
        self.tools
            .iter()
            .flat_map(|(name, t)| t.widgets.iter().map(move |w| (name.as_str(), w)))
    }
}

/// A relative path of plain components (no `..`, no absolute path, no backslash): a lock edited
/// by someone hostile must not make us read or delete files elsewhere.
pub fn safe_relative_path(p: &str) -> bool {
    !p.is_empty()
        && !p.starts_with('/')
        && !p.contains('\\')
        && !p.contains(':')
        && p.split('/').all(|c| {
            !c.is_empty()
                && c != "."
                && c != ".."
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
        })
}

/// Reads `mcp-gen-ui.tools.json`: the definitions of the tools as last generated.
pub fn read_snapshot(out_dir: &Path) -> Result<Option<Vec<crate::model::Tool>>, LockError> {
    let path = out_dir.join(TOOLS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(LockError::Read { path, source }),
    };
    parse_snapshot(&path, &text).map(Some)
}

/// Parses the text of a tools snapshot; `path` names it in errors.
pub fn parse_snapshot(path: &Path, text: &str) -> Result<Vec<crate::model::Tool>, LockError> {
    let invalid = |message: String| LockError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let value: serde_json::Value =
        crate::json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let serde_json::Value::Array(items) = value else {
        return Err(invalid("expected a JSON array of tool definitions".into()));
    };
    crate::model::tools_from_raw(items).map_err(|e| invalid(e.to_string()))
}

/// The snapshot's bytes: each tool's hashed definition with keys sorted, tools sorted by name,
/// pretty-printed, so it diffs well and its hashes can be recomputed from it.
pub fn snapshot_json(tools: &[&crate::model::Tool]) -> Vec<u8> {
    let mut sorted: Vec<&&crate::model::Tool> = tools.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let items: Vec<serde_json::Value> = sorted
        .iter()
        .map(|t| {
            // Canonical text re-parsed keeps JCS key order (serde_json preserves insertion order).
            let canonical = crate::model::canonical_json(&t.hashed_definition());
            crate::json::from_str(&canonical).unwrap_or(serde_json::Value::Null)
        })
        .collect();
    let mut text = crate::json::to_string_pretty(&serde_json::Value::Array(items));
    text.push('\n');
    text.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Lock {
        let mut tools = BTreeMap::new();
        tools.insert(
            "weird \"name\"/x".to_string(),
            ToolEntry {
                tool_hash: "a".repeat(64),
                config_hash: "b".repeat(64),
                refinements: vec!["line chart".into(), "hide field \"x\"".into()],
                fingerprint: None,
                pinned: false,
                widgets: vec![WidgetEntry {
                    name: DEFAULT_WIDGET.into(),
                    path: "weird-name-x-12345678.html".into(),
                    sha256: "c".repeat(64),
                    generator: "builtin".into(),
                    template_version: "1".into(),
                    ui_type: "rich".into(),
                    default: true,
                    ..Default::default()
                }],
            },
        );
        Lock {
            version: LOCK_VERSION,
            generator: "builtin".into(),
            fingerprint: "d".repeat(64),
            validator_version: 1,
            server_name: "weather".into(),
            tools,
        }
    }

    #[test]
    fn round_trips_and_is_deterministic() {
        let l = sample();
        let text = l.to_toml();
        assert_eq!(text, sample().to_toml());
        let back = Lock::parse(Path::new("x.lock"), &text).unwrap();
        assert_eq!(back, l);
        assert!(!text.contains("time"));
    }

    #[test]
    fn rejects_unsafe_paths_and_newer_versions() {
        let mut l = sample();
        if let Some(t) = l.tools.values_mut().next() {
            t.widgets[0].path = "../../etc/passwd".into();
        }
        assert!(matches!(
            Lock::parse(Path::new("x"), &l.to_toml()),
            Err(LockError::Invalid { .. })
        ));
        let mut l = sample();
        l.version = 99;
        assert!(matches!(
            Lock::parse(Path::new("x"), &l.to_toml()),
            Err(LockError::TooNew { .. })
        ));
        assert!(matches!(
            Lock::parse(Path::new("x"), "not = [valid"),
            Err(LockError::Invalid { .. })
        ));
    }

    #[test]
    fn records_each_page_uri_with_its_version() {
        let mut l = sample();
        l.fill_uris(false);
        let w = &l.tools.values().next().unwrap().widgets[0];
        assert_eq!(w.uri, "ui://weather/weird-name-x-12345678?v=cccccccc");
        let text = l.to_toml();
        assert!(
            text.contains("uri = \"ui://weather/weird-name-x-12345678?v=cccccccc\""),
            "{text}"
        );
        assert_eq!(Lock::parse(Path::new("x"), &text).unwrap(), l);
        assert_eq!(l.page_uri(None, w, false), w.uri);
        assert_eq!(
            l.page_uri(Some("Other Name"), w, true),
            "ui://other-name/weird-name-x-12345678"
        );
        l.fill_uris(true);
        let w = &l.tools.values().next().unwrap().widgets[0];
        assert_eq!(w.uri, "ui://weather/weird-name-x-12345678");
        // A lock written before URIs carried a version reads, with no URI.
        let old = sample().to_toml();
        assert!(!old.contains("uri ="), "{old}");
        assert_eq!(Lock::parse(Path::new("x"), &old).unwrap(), sample());
    }

    #[test]
    fn safe_paths() {
        assert!(safe_relative_path("a.html"));
        assert!(safe_relative_path("tool-1234abcd/chart.html"));
        for bad in ["", "/etc/x", "../x", "a/../b", "a\\b", "C:x", "a//b", "./a"] {
            assert!(!safe_relative_path(bad), "{bad}");
        }
    }
}
