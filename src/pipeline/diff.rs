//! What `diff` shows: how the upstream's tools drifted from the definitions the committed UIs were
//! generated from (added, removed, changed — by JSON pointer), and the files `generate` would
//! write, change or delete. The llm generator is never called here (it costs tokens and is not
//! deterministic): the tools it would regenerate are listed instead.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::State;
use super::batch::{self, BatchOptions};
use super::generator::load_generator;
use super::progress::{Progress, Silent};
use super::unknown::UnknownTool;
use super::upstream;
use crate::config::Config;
use crate::discover::Discovery;
use crate::generate::Generator;
use crate::model::Tool;
use crate::plan::{StaleReason, Status};
use crate::review::Side;
use crate::review::words::{ChangeLine, changes};

/// One changed value in a tool's definition.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldChange {
    /// A JSON pointer into the tool definition, e.g. `/inputSchema/properties/days/maximum`.
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
}

#[derive(Debug, Default, Serialize)]
pub struct Drift {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: BTreeMap<String, Vec<FieldChange>>,
}

impl Drift {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

/// Compares the tool definitions the UIs were generated from with the upstream's.
pub fn drift(before: &[Tool], after: &[Tool], only: &[String]) -> Drift {
    let keep = |n: &str| only.is_empty() || only.iter().any(|o| o == n);
    let b: BTreeMap<&str, &Tool> = before.iter().map(|t| (t.name.as_str(), t)).collect();
    let a: BTreeMap<&str, &Tool> = after.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut d = Drift::default();
    for (name, t) in &a {
        if !keep(name) {
            continue;
        }
        match b.get(name) {
            None => d.added.push(name.to_string()),
            Some(old) if old.tool_hash() != t.tool_hash() => {
                let mut changes = Vec::new();
                value_diff(
                    &old.hashed_definition(),
                    &t.hashed_definition(),
                    &mut String::new(),
                    &mut changes,
                );
                d.changed.insert(name.to_string(), changes);
            }
            Some(_) => {}
        }
    }
    for name in b.keys() {
        if keep(name) && !a.contains_key(name) {
            d.removed.push(name.to_string());
        }
    }
    d
}

fn pointer_escape(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

/// Every path where two JSON values differ, down to the leaves.
fn value_diff(a: &Value, b: &Value, path: &mut String, out: &mut Vec<FieldChange>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = path.len();
                path.push('/');
                path.push_str(&pointer_escape(k));
                match (x.get(k), y.get(k)) {
                    (Some(va), Some(vb)) => value_diff(va, vb, path, out),
                    (va, vb) => out.push(FieldChange {
                        path: path.clone(),
                        before: va.cloned(),
                        after: vb.cloned(),
                    }),
                }
                path.truncate(len);
            }
        }
        _ if a == b => {}
        _ => out.push(FieldChange {
            path: if path.is_empty() {
                "/".into()
            } else {
                path.clone()
            },
            before: Some(a.clone()),
            after: Some(b.clone()),
        }),
    }
}

/// How a file would change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Modified => "modified",
            FileStatus::Deleted => "deleted",
        }
    }
}

/// One file `generate` would write or delete, with its text before and after.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub path: String,
    pub status: FileStatus,
    pub before: String,
    pub after: String,
}

/// A tool the llm generator would regenerate, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LlmRegeneration {
    pub tool: String,
    pub status: String,
    pub reasons: Vec<StaleReason>,
}

/// Everything `diff` reports.
#[derive(Debug, Default)]
pub struct Differences {
    /// What changes for the person, in words (book: reference/review.md).
    pub changes: Vec<ChangeLine>,
    /// The committed state and the state `generate` would leave (for `--visual`).
    pub sides: Option<(Side, Side)>,
    pub upstream: Drift,
    pub files: Vec<FileChange>,
    pub llm_regenerate: Vec<LlmRegeneration>,
}

impl Differences {
    pub fn is_empty(&self) -> bool {
        self.upstream.is_empty()
            && self.files.is_empty()
            && self.llm_regenerate.is_empty()
            && self.changes.is_empty()
    }
}

/// Runs `diff`: against git revision `base` offline, else what `generate` would write now (the
/// upstream is contacted) for `only` (all tools when empty).
pub fn diff<'r>(
    cfg: &Config,
    only: &[String],
    base: Option<&str>,
    progress: &dyn Progress,
    runtime: impl FnOnce() -> anyhow::Result<&'r tokio::runtime::Runtime>,
) -> anyhow::Result<Differences> {
    if let Some(rev) = base {
        return against_revision(cfg, rev, only);
    }
    let generator = load_generator(cfg, None, None, None)?;
    let rt = runtime()?;
    let discovery = upstream::discover(cfg, progress, rt)?;
    let state = State::read(cfg)?;
    differences(cfg, &generator, &discovery, &state, only, rt.handle())
}

/// Computes the differences for `only` (all tools when empty).
pub fn differences(
    cfg: &Config,
    generator: &Generator,
    discovery: &Discovery,
    state: &State,
    only: &[String],
    rt: &tokio::runtime::Handle,
) -> anyhow::Result<Differences> {
    let known = discovery.tools.iter().map(|t| t.name.as_str()).chain(
        state
            .lock
            .iter()
            .flat_map(|l| l.tools.keys().map(String::as_str)),
    );
    for t in only {
        UnknownTool::check(t, true, known.clone())?;
    }
    let plan = state.plan(cfg, Some(&discovery.tools), &generator.fingerprint())?;
    let mut out = Differences {
        upstream: drift(
            state.snapshot.as_deref().unwrap_or(&[]),
            &discovery.tools,
            only,
        ),
        ..Differences::default()
    };
    let keep = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let before = Side::new(
        state.lock.clone(),
        state.snapshot.as_deref().unwrap_or(&[]),
        |p| std::fs::read_to_string(cfg.out_dir.join(p)).ok(),
    );
    if generator.llm.is_some() {
        for tp in plan.tools.iter().filter(|t| t.needs_generation()) {
            if keep(&tp.name) {
                out.llm_regenerate.push(LlmRegeneration {
                    tool: tp.name.clone(),
                    status: tp.status.label().to_string(),
                    reasons: match &tp.status {
                        Status::Stale(r) => r.clone(),
                        _ => Vec::new(),
                    },
                });
            }
        }
        // The llm generator is not called: its pages stay as they are, and the words say what the
        // tools' changes mean for them.
        let after = before.overlaid(state.lock.clone(), &discovery.tools, &[], &[]);
        out.changes = changes(&before, &after, only);
        out.sides = Some((before, after));
        return Ok(out);
    }
    let batch = batch::build(
        cfg,
        generator,
        discovery,
        state,
        plan,
        &BatchOptions {
            tools: only,
            ..Default::default()
        },
        &Silent,
        rt,
    )?;
    for (path, bytes) in &batch.update.files {
        let before = std::fs::read_to_string(cfg.out_dir.join(path)).ok();
        out.files.push(FileChange {
            path: path.clone(),
            status: if before.is_some() {
                FileStatus::Modified
            } else {
                FileStatus::Added
            },
            before: before.unwrap_or_default(),
            after: String::from_utf8_lossy(bytes).into_owned(),
        });
    }
    for path in &batch.update.remove {
        if let Ok(before) = std::fs::read_to_string(cfg.out_dir.join(path)) {
            out.files.push(FileChange {
                path: path.clone(),
                status: FileStatus::Deleted,
                before,
                after: String::new(),
            });
        }
    }
    out.files.sort_by(|a, b| a.path.cmp(&b.path));
    let after = before.overlaid(
        Some(batch.lock.clone()),
        &discovery.tools,
        &batch.update.files,
        &batch.update.remove,
    );
    out.changes = changes(&before, &after, only);
    out.sides = Some((before, after));
    Ok(out)
}

/// What changed in the output directory since git revision `rev` (`diff --base`): offline, the
/// committed lock, tool definitions and pages at `rev` against the working tree's.
pub fn against_revision(cfg: &Config, rev: &str, only: &[String]) -> anyhow::Result<Differences> {
    let before = crate::review::git::side_at(&cfg.out_dir, rev)?;
    let after = Side::from_dir(&cfg.out_dir)?;
    let keep = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
    let tools_of = |side: &Side| -> Vec<Tool> {
        side.tools
            .values()
            .filter_map(|v| Tool::from_raw(v.clone()).ok())
            .collect()
    };
    let mut out = Differences {
        changes: changes(&before, &after, only),
        upstream: drift(&tools_of(&before), &tools_of(&after), only),
        ..Differences::default()
    };
    // Pages of the selected tools, on either side.
    let mut paths = std::collections::BTreeSet::new();
    for side in [&before, &after] {
        if let Some(l) = &side.lock {
            for (tool, w) in l.files() {
                if keep(tool) {
                    paths.insert(w.path.clone());
                }
            }
        }
    }
    for path in paths {
        let b = before.pages.get(&path);
        let a = after.pages.get(&path);
        let status = match (b, a) {
            (None, Some(_)) => FileStatus::Added,
            (Some(_), None) => FileStatus::Deleted,
            (Some(x), Some(y)) if x != y => FileStatus::Modified,
            _ => continue,
        };
        out.files.push(FileChange {
            path,
            status,
            before: b.cloned().unwrap_or_default(),
            after: a.cloned().unwrap_or_default(),
        });
    }
    out.sides = Some((before, after));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drift_names_schema_paths() {
        let a = Tool::from_raw(json!({"name":"t","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":14}}}})).unwrap();
        let b = Tool::from_raw(json!({"name":"t","description":"new","inputSchema":{"type":"object","properties":{"days":{"type":"integer","maximum":30},"a/b":{"type":"string"}}}})).unwrap();
        let c = Tool::from_raw(json!({"name":"c"})).unwrap();
        let d = drift(std::slice::from_ref(&a), &[b, c], &[]);
        assert_eq!(d.added, vec!["c"]);
        let paths: Vec<&str> = d.changed["t"].iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/description",
                "/inputSchema/properties/a~1b",
                "/inputSchema/properties/days/maximum"
            ]
        );
        let d = drift(&[a], &[], &[]);
        assert_eq!(d.removed, vec!["t"]);
    }
}
