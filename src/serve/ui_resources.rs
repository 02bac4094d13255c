//! The `ui://` resources `serve` adds: loaded from `ui/` once, verified against the lock, and then
//! answered from memory so a `resources/read` never touches the disk.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::config::{Config, CspConfig};
use crate::lock::{Lock, LockError};
use crate::model::{sha256_hex, split_page_uri, uri_for_path, uri_version, versioned_uri};

/// The MIME type hosts look for on an MCP App resource.
pub const MCP_APP_MIME: &str = "text/html;profile=mcp-app";

/// How long (ms) a 2026-07-28 host may keep a page read by its current versioned URI: a year,
/// HTTP's customary "immutable" lifetime. A changed page has a new URI, so the old one is never
/// asked for again by a host that re-lists (book: reference/serve.md, "Caching pages").
pub const PAGE_TTL_MS: u64 = 365 * 24 * 60 * 60 * 1000;

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(
        "{path} does not match the lock (tool `{tool}`): {problem}. Run `mcp-gen-ui generate` to \
         rebuild it, `mcp-gen-ui generate --adopt {tool}` to accept a hand edit, or start serve \
         with --allow-stale to serve it anyway"
    )]
    Mismatch {
        path: PathBuf,
        tool: String,
        problem: String,
    },
}

/// One widget served from memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Widget {
    pub name: String,
    /// The URI hosts are given: `base` plus `?v=` and the first digits of `sha256` (of the bytes
    /// served), or `base` alone under `stable_uris`.
    pub uri: String,
    /// Section 12's `ui://<server>/<tool-file>[/<widget>]`.
    pub base: String,
    pub path: PathBuf,
    pub html: Arc<str>,
    pub sha256: String,
}

/// Everything `serve` knows about one tool's UI.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUi {
    pub tool: String,
    pub tool_hash: String,
    /// In lock order; never empty.
    pub widgets: Vec<Widget>,
    /// Index into `widgets` of the one named by `resourceUri`.
    pub default: usize,
    /// `_meta.ui` of the resource content (csp, prefersBorder), if any.
    pub resource_meta: Option<Value>,
}

impl ToolUi {
    pub fn default_uri(&self) -> &str {
        self.widgets
            .get(self.default)
            .or_else(|| self.widgets.first())
            .map(|w| w.uri.as_str())
            .unwrap_or("")
    }

    /// The widget a URI names: its current URI, its name alone, or its name with any well-formed
    /// `?v=` (hosts keep the URIs they were given; book: reference/serve.md).
    pub fn widget_for(&self, uri: &str) -> Option<&Widget> {
        let (base, _) = split_page_uri(uri)?;
        self.widgets.iter().find(|w| w.base == base)
    }

    pub fn declares(&self, uri: &str) -> bool {
        self.widget_for(uri).is_some()
    }
}

/// The verified set of UIs, keyed by tool name and by URI.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub server: String,
    pub tools: BTreeMap<String, ToolUi>,
    /// A page's `ui://` name (without `?v=`) → (tool, widget index).
    by_uri: BTreeMap<String, (String, usize)>,
    /// Problems accepted because of `--allow-stale` (or `--watch` reloads), for the log.
    pub warnings: Vec<String>,
}

/// How strictly files must match the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// A file that does not match the lock is an error.
    Strict,
    /// A mismatching file is served with a warning; a missing one is skipped with a warning.
    AllowStale,
}

impl Catalog {
    /// Reads the lock of `cfg.out_dir` and every file it lists. No lock means no UIs (a warning).
    pub fn load(cfg: &Config, strictness: Strictness) -> Result<Catalog, CatalogError> {
        let Some(lock) = Lock::read(&cfg.out_dir)? else {
            return Ok(Catalog {
                warnings: vec![format!(
                    "no {} in {}: serving the upstream without UIs (run `mcp-gen-ui generate`)",
                    crate::lock::LOCK_FILE,
                    cfg.out_dir.display()
                )],
                ..Catalog::default()
            });
        };
        let server = lock.uri_server(cfg.file.server_name.as_deref());
        let stable = cfg.file.stable_uris;
        let mut cat = Catalog {
            server: server.clone(),
            ..Catalog::default()
        };
        for (name, entry) in &lock.tools {
            let mut widgets = Vec::new();
            let mut default = 0;
            for w in &entry.widgets {
                let path = cfg.out_dir.join(&w.path);
                let bytes = match std::fs::read(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        let problem = format!("cannot read it: {e}");
                        let then = format!("; tool `{name}` is served without this UI");
                        mismatch(strictness, &mut cat, &path, name, problem, &then)?;
                        continue;
                    }
                };
                let sha = sha256_hex(&bytes);
                if sha != w.sha256 {
                    let problem = format!(
                        "its sha256 is {} but the lock records {}",
                        short(&sha),
                        short(&w.sha256)
                    );
                    let then = format!(" (tool `{name}`); serving it anyway");
                    mismatch(strictness, &mut cat, &path, name, problem, &then)?;
                }
                let html: Arc<str> = match String::from_utf8(bytes) {
                    Ok(s) => s.into(),
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned().into(),
                };
                if w.default {
                    default = widgets.len();
                }
                // The URI follows the file the lock records: `<stem>.html` has the bare URI,
                // a configured widget's `<stem>/<widget>.html` the widget's; its version follows
                // the bytes served (a stale file served anyway gets its own).
                let base = uri_for_path(&server, &w.path);
                widgets.push(Widget {
                    name: w.name.clone(),
                    uri: versioned_uri(&base, &sha, stable),
                    base,
                    path,
                    html,
                    sha256: sha,
                });
            }
            if widgets.is_empty() {
                continue;
            }
            let resource_meta = resource_meta(cfg, name);
            cat.tools.insert(
                name.clone(),
                ToolUi {
                    tool: name.clone(),
                    tool_hash: entry.tool_hash.clone(),
                    widgets,
                    default,
                    resource_meta,
                },
            );
        }
        cat.index();
        Ok(cat)
    }

    /// Builds a catalog from parts (tests and benchmarks).
    pub fn from_tools(server: &str, tools: Vec<ToolUi>) -> Catalog {
        let mut cat = Catalog {
            server: server.to_string(),
            tools: tools.into_iter().map(|t| (t.tool.clone(), t)).collect(),
            ..Catalog::default()
        };
        cat.index();
        cat
    }

    fn index(&mut self) {
        self.by_uri.clear();
        for (name, t) in &self.tools {
            for (i, w) in t.widgets.iter().enumerate() {
                self.by_uri.insert(w.base.clone(), (name.clone(), i));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Whether a URI names one of our pages, with or without a well-formed `?v=`.
    pub fn owns(&self, uri: &str) -> bool {
        self.widget(uri).is_some()
    }

    fn widget(&self, uri: &str) -> Option<(&ToolUi, &Widget)> {
        let (base, _) = split_page_uri(uri)?;
        let (tool, i) = self.by_uri.get(base)?;
        let t = self.tools.get(tool)?;
        Some((t, t.widgets.get(*i)?))
    }

    /// How long a 2026-07-28 host may keep what `read(uri)` returns: [`PAGE_TTL_MS`] when `uri`
    /// names the page's current version, else 0 (a name without `?v=` changes content in place;
    /// an old `?v=` must not keep the current page under a version that could come back).
    pub fn ttl_ms(&self, uri: &str) -> u64 {
        let current = |(_, w): (&ToolUi, &Widget)| {
            split_page_uri(uri).and_then(|(_, v)| v) == Some(uri_version(&w.sha256))
        };
        if self.widget(uri).is_some_and(current) {
            PAGE_TTL_MS
        } else {
            0
        }
    }

    /// The `resources/list` entries for every widget, optionally leaving out some tools.
    pub fn list_entries(&self, hidden: &dyn Fn(&str) -> bool) -> Vec<Value> {
        let mut out = Vec::new();
        for (name, t) in &self.tools {
            if hidden(name) {
                continue;
            }
            let several = t.widgets.len() > 1;
            for w in &t.widgets {
                let title = if several {
                    format!("{name} ({}) UI", w.name)
                } else {
                    format!("{name} UI")
                };
                let mut entry = Map::new();
                entry.insert("uri".into(), json!(w.uri));
                entry.insert("name".into(), json!(title));
                entry.insert(
                    "description".into(),
                    json!(format!("Interactive UI for the tool `{name}` (MCP App)")),
                );
                entry.insert("mimeType".into(), json!(MCP_APP_MIME));
                if let Some(meta) = &t.resource_meta {
                    entry.insert("_meta".into(), json!({ "ui": meta }));
                }
                out.push(Value::Object(entry));
            }
        }
        out
    }

    /// The `resources/read` result for one of our URIs, or `None` when it is not ours: the
    /// current page for any version, under the URI the host asked for (nothing old is kept).
    pub fn read(&self, uri: &str) -> Option<Value> {
        let (t, w) = self.widget(uri)?;
        let mut content = Map::new();
        content.insert("uri".into(), json!(uri));
        content.insert("mimeType".into(), json!(MCP_APP_MIME));
        content.insert("text".into(), Value::String(w.html.to_string()));
        if let Some(meta) = &t.resource_meta {
            content.insert("_meta".into(), json!({ "ui": meta }));
        }
        Some(json!({ "contents": [Value::Object(content)] }))
    }

    /// Pages whose content differs between two catalogs, by the URI hosts were given before
    /// (for `notifications/resources/updated`: what a host subscribed to).
    pub fn changed_uris(&self, newer: &Catalog) -> Vec<String> {
        let mut out = Vec::new();
        for base in newer.by_uri.keys() {
            let new_sha = newer.widget(base).map(|(_, w)| w.sha256.as_str());
            if let Some((_, old)) = self.widget(base)
                && new_sha != Some(old.sha256.as_str())
            {
                out.push(old.uri.clone());
            }
        }
        out
    }

    /// The URIs hosts are given, in order.
    fn advertised(&self) -> impl Iterator<Item = &str> {
        self.tools
            .values()
            .flat_map(|t| t.widgets.iter().map(|w| w.uri.as_str()))
    }

    /// Whether the set of URIs (or their metadata) changed, i.e. lists should be re-fetched (a
    /// changed page has a new `?v=`).
    pub fn list_differs(&self, newer: &Catalog) -> bool {
        self.advertised().ne(newer.advertised())
            || self
                .tools
                .iter()
                .map(|(n, t)| (n, &t.tool_hash, t.default, &t.resource_meta))
                .ne(newer
                    .tools
                    .iter()
                    .map(|(n, t)| (n, &t.tool_hash, t.default, &t.resource_meta)))
    }

    /// Every file the catalog was built from, plus the lock: what `--watch` polls.
    pub fn watched_files(&self, out_dir: &Path) -> Vec<PathBuf> {
        let mut v = vec![Lock::path(out_dir)];
        for t in self.tools.values() {
            v.extend(t.widgets.iter().map(|w| w.path.clone()));
        }
        v
    }
}

/// `_meta.ui` for a tool's resources: CSP from `[tools.NAME] csp`, `prefersBorder` from `[serve]`.
fn resource_meta(cfg: &Config, tool: &str) -> Option<Value> {
    let mut ui = Map::new();
    if let Some(t) = cfg.file.tools.get(tool)
        && !t.csp.is_empty()
    {
        ui.insert("csp".into(), csp_json(&t.csp));
    }
    if let Some(b) = cfg.file.serve.prefers_border {
        ui.insert("prefersBorder".into(), json!(b));
    }
    if ui.is_empty() {
        None
    } else {
        Some(Value::Object(ui))
    }
}

fn csp_json(csp: &CspConfig) -> Value {
    let mut m = Map::new();
    for (key, list) in [
        ("connectDomains", &csp.connect_domains),
        ("resourceDomains", &csp.resource_domains),
        ("frameDomains", &csp.frame_domains),
        ("baseUriDomains", &csp.base_uri_domains),
    ] {
        if !list.is_empty() {
            m.insert(key.into(), json!(list));
        }
    }
    Value::Object(m)
}

/// A file that does not match the lock: an error when serving strictly, else a warning (what
/// the caller does next, `then`, completes it).
fn mismatch(
    strictness: Strictness,
    cat: &mut Catalog,
    path: &Path,
    tool: &str,
    problem: String,
    then: &str,
) -> Result<(), CatalogError> {
    match strictness {
        Strictness::Strict => Err(CatalogError::Mismatch {
            path: path.to_path_buf(),
            tool: tool.to_string(),
            problem,
        }),
        Strictness::AllowStale => {
            cat.warnings
                .push(format!("{}: {problem}{then}", path.display()));
            Ok(())
        }
    }
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::{Overrides, ToolConfig};
    use crate::lock::{LOCK_VERSION, ToolEntry, WidgetEntry};

    /// The URIs of the fixture's pages: their names plus the first 8 hex digits of the sha256 of
    /// their bytes (`sha256sum` of `<!doctype html><p>single</p>` starts with 2bc4d6a1).
    pub(crate) const SINGLE: &str = "ui://demo/single?v=2bc4d6a1";
    pub(crate) const CHART: &str = "ui://demo/multi/chart?v=5a793444";
    pub(crate) const TABLE: &str = "ui://demo/multi/table?v=5b84d6b5";

    /// Writes a `ui/` with one single-widget tool and one two-widget tool; returns the config.
    pub(crate) fn fixture(dir: &Path) -> Config {
        let out = dir.join("ui");
        std::fs::create_dir_all(out.join("multi")).unwrap();
        let files = [
            ("single.html", "<!doctype html><p>single</p>"),
            ("multi/chart.html", "<!doctype html><p>chart</p>"),
            ("multi/table.html", "<!doctype html><p>table</p>"),
        ];
        for (p, body) in files {
            std::fs::write(out.join(p), body).unwrap();
        }
        let widget = |name: &str, path: &str, body: &str, default: bool| WidgetEntry {
            name: name.into(),
            path: path.into(),
            sha256: sha256_hex(body),
            generator: "builtin".into(),
            template_version: "1".into(),
            ui_type: "rich".into(),
            default,
            ..Default::default()
        };
        let mut tools = BTreeMap::new();
        tools.insert(
            "single".to_string(),
            ToolEntry {
                tool_hash: "h1".into(),
                config_hash: "c".into(),
                widgets: vec![widget("default", files[0].0, files[0].1, true)],
                ..Default::default()
            },
        );
        tools.insert(
            "multi".to_string(),
            ToolEntry {
                tool_hash: "h2".into(),
                config_hash: "c".into(),
                widgets: vec![
                    widget("chart", files[1].0, files[1].1, false),
                    widget("table", files[2].0, files[2].1, true),
                ],
                ..Default::default()
            },
        );
        let lock = Lock {
            version: LOCK_VERSION,
            generator: "builtin".into(),
            fingerprint: "f".into(),
            validator_version: 1,
            server_name: "demo".into(),
            tools,
        };
        std::fs::write(Lock::path(&out), lock.to_toml()).unwrap();
        let mut cfg = Config::load(&Overrides {
            config: None,
            out_dir: Some(out),
            server: Some("true".into()),
            ..Overrides::default()
        })
        .unwrap();
        cfg.file.tools.insert(
            "single".into(),
            ToolConfig {
                csp: CspConfig {
                    connect_domains: vec!["https://api.example.com".into()],
                    ..CspConfig::default()
                },
                ..ToolConfig::default()
            },
        );
        cfg.file.serve.prefers_border = Some(true);
        cfg
    }

    #[test]
    fn loads_verifies_and_serves_from_memory() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = fixture(dir.path());
        let cat = Catalog::load(&cfg, Strictness::Strict).unwrap();
        assert_eq!(cat.server, "demo");
        let multi = &cat.tools["multi"];
        assert_eq!(multi.default_uri(), TABLE);
        for chart in [
            CHART,
            "ui://demo/multi/chart",
            "ui://demo/multi/chart?v=00000000",
        ] {
            assert!(multi.declares(chart), "{chart}");
        }
        assert!(!multi.declares("ui://demo/multi/chart?v=zz"));
        assert_eq!(cat.tools["single"].default_uri(), SINGLE);

        let read = cat.read(SINGLE).unwrap();
        let c = &read["contents"][0];
        assert_eq!(c["uri"], SINGLE);
        assert_eq!(c["mimeType"], MCP_APP_MIME);
        assert_eq!(c["text"], "<!doctype html><p>single</p>");
        assert_eq!(
            c["_meta"]["ui"]["csp"]["connectDomains"],
            json!(["https://api.example.com"])
        );
        assert_eq!(c["_meta"]["ui"]["prefersBorder"], true);
        assert!(cat.read("ui://demo/other").is_none());
        assert!(cat.read("ui://demo/other?v=2bc4d6a1").is_none());

        // Any version of a known page, or its name alone, reads the current page under the URI
        // asked for; only the current version may be kept long.
        for (uri, ttl) in [
            (SINGLE, PAGE_TTL_MS),
            ("ui://demo/single?v=0badc0de", 0),
            ("ui://demo/single", 0),
        ] {
            let read = cat.read(uri).unwrap();
            assert_eq!(read["contents"][0]["uri"], uri);
            assert_eq!(read["contents"][0]["text"], "<!doctype html><p>single</p>");
            assert_eq!(cat.ttl_ms(uri), ttl, "{uri}");
        }
        // A malformed query is not ours (the upstream answers it, as any unknown URI).
        for bad in [
            "ui://demo/single?v=2BC4D6A1",
            "ui://demo/single?v=2bc4d6a1&x=1",
        ] {
            assert!(!cat.owns(bad) && cat.read(bad).is_none(), "{bad}");
        }

        let list = cat.list_entries(&|_| false);
        assert_eq!(list.len(), 3);
        let uris: Vec<&str> = list.iter().filter_map(|e| e["uri"].as_str()).collect();
        assert_eq!(uris, [CHART, TABLE, SINGLE]);
        assert!(list.iter().all(|e| e["mimeType"] == MCP_APP_MIME));
        assert_eq!(cat.list_entries(&|t| t == "multi").len(), 1);
    }

    #[test]
    fn mismatch_is_an_error_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = fixture(dir.path());
        std::fs::write(cfg.out_dir.join("multi/chart.html"), "edited").unwrap();
        let e = Catalog::load(&cfg, Strictness::Strict)
            .unwrap_err()
            .to_string();
        assert!(e.contains("chart.html") && e.contains("multi"), "{e}");
        assert!(e.contains("--allow-stale"), "{e}");
        let cat = Catalog::load(&cfg, Strictness::AllowStale).unwrap();
        assert_eq!(cat.warnings.len(), 1);
        assert_eq!(cat.read(CHART).unwrap()["contents"][0]["text"], "edited");
        // The page served gets the URI of its own bytes, not the lock's.
        assert_eq!(
            cat.tools["multi"].widgets[0].uri,
            format!("ui://demo/multi/chart?v={}", &sha256_hex("edited")[..8])
        );

        std::fs::remove_file(cfg.out_dir.join("single.html")).unwrap();
        assert!(Catalog::load(&cfg, Strictness::Strict).is_err());
        let cat = Catalog::load(&cfg, Strictness::AllowStale).unwrap();
        assert!(!cat.tools.contains_key("single"));
    }

    #[test]
    fn no_lock_means_no_uis() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config::load(&Overrides {
            out_dir: Some(dir.path().join("ui")),
            server: Some("true".into()),
            ..Overrides::default()
        })
        .unwrap();
        let cat = Catalog::load(&cfg, Strictness::Strict).unwrap();
        assert!(cat.is_empty());
        assert_eq!(cat.warnings.len(), 1);
    }

    #[test]
    fn change_detection() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = fixture(dir.path());
        let a = Catalog::load(&cfg, Strictness::Strict).unwrap();
        std::fs::write(cfg.out_dir.join("single.html"), "new").unwrap();
        let b = Catalog::load(&cfg, Strictness::AllowStale).unwrap();
        // Hosts are told about the URI they had; the page's URI changed, so lists did too.
        assert_eq!(a.changed_uris(&b), vec![SINGLE.to_string()]);
        assert!(a.list_differs(&b));
        assert!(a.changed_uris(&a).is_empty());
        assert!(!a.list_differs(&a));
    }

    #[test]
    fn stable_uris_are_the_names_alone_and_still_read_any_version() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = fixture(dir.path());
        cfg.file.stable_uris = true;
        let a = Catalog::load(&cfg, Strictness::Strict).unwrap();
        assert_eq!(a.tools["single"].default_uri(), "ui://demo/single");
        assert_eq!(a.tools["multi"].default_uri(), "ui://demo/multi/table");
        assert!(a.read(SINGLE).is_some() && a.read("ui://demo/single").is_some());
        assert_eq!(a.ttl_ms("ui://demo/single"), 0);
        std::fs::write(cfg.out_dir.join("single.html"), "new").unwrap();
        let b = Catalog::load(&cfg, Strictness::AllowStale).unwrap();
        assert_eq!(a.changed_uris(&b), vec!["ui://demo/single".to_string()]);
        assert!(!a.list_differs(&b));
    }
}
