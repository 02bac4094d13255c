//! `diff`: what changed upstream since the UIs were generated (tools added, removed, changed — by
//! field and schema path), and the unified diff of what `generate` would write against what is
//! committed.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};

use crate::cli::{Context, EXIT_FINDINGS};
use crate::generate::batch::{self, BatchOptions};
use crate::model::Tool;
use crate::report::{self, Color, Format, Printer};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Only these tools
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
    /// Exit 1 when there is any difference (for CI)
    #[arg(long)]
    pub exit_code: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

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

/// A unified diff of one file, coloured when the printer colours.
pub fn unified(p: &Printer, before: &str, after: &str, path: &str) -> String {
    let diff = similar::TextDiff::from_lines(before, after);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    if !p.color {
        return text.trim_end().to_string();
    }
    text.lines()
        .map(|l| {
            if l.starts_with("+++") || l.starts_with("---") {
                p.paint(l, Color::Dim)
            } else if l.starts_with('+') {
                p.paint(l, Color::Green)
            } else if l.starts_with('-') {
                p.paint(l, Color::Red)
            } else if l.starts_with("@@") {
                p.paint(l, Color::Cyan)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 80 {
                format!("{}…", s.chars().take(77).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// Runs `diff`. Exit 1 with `--exit-code` when anything differs.
pub fn run(ctx: &Context, args: &DiffArgs) -> anyhow::Result<ExitCode> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    let generator = super::generate::load_generator(&cfg, None)?;
    let discovery = super::discover(ctx, &cfg)?;
    let state = super::read_state(&cfg)?;
    let known: Vec<&str> = discovery
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .chain(
            state
                .lock
                .iter()
                .flat_map(|l| l.tools.keys().map(String::as_str)),
        )
        .collect();
    for t in &args.tools {
        if !known.contains(&t.as_str()) {
            anyhow::bail!(
                "no tool named `{}` upstream or in the lock",
                report::display_name(t)
            );
        }
    }
    let d = drift(
        state.snapshot.as_deref().unwrap_or(&[]),
        &discovery.tools,
        &args.tools,
    );
    let batch = batch::build(
        &cfg,
        &generator,
        &discovery,
        &state,
        &BatchOptions {
            tools: &args.tools,
            ..Default::default()
        },
        &indicatif::ProgressBar::hidden(),
    )?;

    // File changes, in path order.
    let mut files: Vec<(String, &'static str, String, String)> = Vec::new();
    for (path, bytes) in &batch.update.files {
        let before = std::fs::read_to_string(cfg.out_dir.join(path)).ok();
        let status = if before.is_some() {
            "modified"
        } else {
            "added"
        };
        files.push((
            path.clone(),
            status,
            before.unwrap_or_default(),
            String::from_utf8_lossy(bytes).into_owned(),
        ));
    }
    for path in &batch.update.remove {
        if let Ok(before) = std::fs::read_to_string(cfg.out_dir.join(path)) {
            files.push((path.clone(), "deleted", before, String::new()));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));

    let p = &ctx.printer;
    let differs = !d.is_empty() || !files.is_empty();
    if args.format == Format::Json {
        let files_json: Vec<Value> = files
            .iter()
            .map(|(path, status, before, after)| {
                json!({"path": path, "status": status, "diff": unified(&Printer { color: false, ..p.clone() }, before, after, path)})
            })
            .collect();
        p.json(&json!({"differs": differs, "upstream": d, "files": files_json}))?;
    } else {
        for name in &d.added {
            p.out(format!(
                "{} tool `{}` (new upstream)",
                p.paint("+", Color::Green),
                report::display_name(name)
            ))?;
        }
        for name in &d.removed {
            p.out(format!(
                "{} tool `{}` (gone upstream)",
                p.paint("-", Color::Red),
                report::display_name(name)
            ))?;
        }
        for (name, changes) in &d.changed {
            p.out(format!(
                "{} tool `{}` changed:",
                p.paint("~", Color::Yellow),
                report::display_name(name)
            ))?;
            for c in changes {
                p.out(format!(
                    "    {}: {} → {}",
                    c.path,
                    short(&c.before),
                    short(&c.after)
                ))?;
            }
        }
        for (path, _, before, after) in &files {
            p.out(unified(p, before, after, path))?;
        }
        if !differs {
            p.status("No differences: the committed UIs are what `generate` would write.");
        }
    }
    Ok(if differs && args.exit_code {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
