//! The status of each tool as `list` and `inspect` show it: one row from its plan and files.

use serde::Serialize;

use crate::config::Config;
use crate::plan::{StaleReason, Status, ToolPlan};

#[derive(Debug, Serialize)]
pub struct ToolRow {
    pub tool: String,
    pub status: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<StaleReason>,
    pub generator: String,
    pub ui_type: String,
    pub refinements: usize,
    pub files: Vec<String>,
    pub bytes: u64,
}

/// Summarises one planned tool (shared with `inspect`).
pub fn tool_row(cfg: &Config, tp: &ToolPlan) -> ToolRow {
    let entry = tp.entry.as_ref();
    let first = entry.and_then(|e| e.widgets.first());
    let files: Vec<String> = entry
        .map(|e| e.widgets.iter().map(|w| w.path.clone()).collect())
        .unwrap_or_default();
    let bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(cfg.out_dir.join(f)).ok())
        .map(|m| m.len())
        .sum();
    ToolRow {
        tool: tp.name.clone(),
        status: tp.status.label().into(),
        reasons: match &tp.status {
            Status::Stale(r) => r.clone(),
            _ => Vec::new(),
        },
        generator: first.map(|w| w.generator.clone()).unwrap_or_default(),
        ui_type: first.map(|w| w.ui_type.clone()).unwrap_or_default(),
        refinements: entry.map_or(0, |e| e.refinements.len()),
        files,
        bytes,
    }
}
