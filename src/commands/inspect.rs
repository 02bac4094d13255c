//! `inspect TOOL`: everything known about one tool — status, files, hashes, refinements, hints,
//! and the definition it was generated from.

use anyhow::bail;
use clap::Args;
use serde_json::{Value, json};

use super::context::{Context, Outcome};
use crate::model::ui_uri;
use crate::pipeline;
use crate::report::{self, Format};

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The tool's name, exactly as the upstream spells it
    pub tool: String,
    /// Also compare with the upstream (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `inspect`.
pub fn run(ctx: &Context, args: &InspectArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let upstream = if super::wants_online(ctx, &cfg, args.online) {
        Some(super::discover(ctx, &cfg)?.tools)
    } else {
        None
    };
    let (state, plan) = pipeline::look(&cfg, upstream.as_deref())?;
    let Some(tp) = plan.tools.iter().find(|t| t.name == args.tool) else {
        let names: Vec<String> = plan
            .tools
            .iter()
            .map(|t| report::display_name(&t.name))
            .collect();
        bail!(
            "no tool named `{}` in {}{}; known tools: {}",
            report::display_name(&args.tool),
            cfg.out_dir.display(),
            if upstream.is_some() {
                " or upstream"
            } else {
                ""
            },
            if names.is_empty() {
                "none (run `mcp-gen-ui generate`)".to_string()
            } else {
                names.join(", ")
            }
        );
    };
    let row = pipeline::tool_row(&cfg, tp);
    let server = state
        .lock
        .as_ref()
        .map(|l| l.server_name.clone())
        .unwrap_or_default();
    let widgets: Vec<Value> = tp
        .entry
        .as_ref()
        .map(|e| {
            e.widgets
                .iter()
                .map(|w| {
                    let widget = (w.name != crate::lock::DEFAULT_WIDGET).then_some(w.name.as_str());
                    json!({
                        "name": w.name,
                        "path": w.path,
                        "uri": ui_uri(&server, &tp.name, widget),
                        "sha256": w.sha256,
                        "generator": w.generator,
                        "template_version": w.template_version,
                        "prompt_version": w.prompt_version,
                        "ui_type": w.ui_type,
                        "default": w.default,
                        "fallback_reason": w.fallback_reason,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let def = tp.tool.as_ref().map(|t| t.hashed_definition());
    let inputs: Vec<String> = def
        .as_ref()
        .and_then(|d| d.pointer("/inputSchema/properties"))
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(k, v)| {
                    let ty = v.get("type").map(|t| t.to_string()).unwrap_or_default();
                    format!(
                        "{k}{}",
                        if ty.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", ty.trim_matches('"'))
                        }
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let info = json!({
        "tool": tp.name,
        "status": row.status,
        "reasons": row.reasons,
        "tool_hash": tp.entry.as_ref().map(|e| e.tool_hash.clone()),
        "config_hash": tp.entry.as_ref().map(|e| e.config_hash.clone()),
        "pinned": tp.entry.as_ref().is_some_and(|e| e.pinned),
        "refinements": tp.entry.as_ref().map(|e| e.refinements.clone()).unwrap_or_default(),
        "hints": serde_json::to_value(&tp.tool_config.hints).unwrap_or(Value::Null),
        "widgets": widgets,
        "definition": def,
    });
    let p = &ctx.printer;
    if args.format == Format::Json {
        p.json(&info)?;
        return Ok(Outcome::Success);
    }
    let t = tp.tool.as_ref();
    p.out(format!("tool:         {}", report::display_name(&tp.name)))?;
    if let Some(title) = t.and_then(|t| t.title()) {
        p.out(format!("title:        {}", report::display_name(title)))?;
    }
    if let Some(d) = t.and_then(|t| t.description()) {
        let first = d.lines().next().unwrap_or("");
        p.out(format!("description:  {}", report::display_name(first)))?;
    }
    let status = crate::plan::status_with_reasons(&row.status, &row.reasons);
    p.out(format!("status:       {status}"))?;
    if !inputs.is_empty() {
        p.out(format!("inputs:       {}", inputs.join(", ")))?;
    }
    if let Some(e) = &tp.entry {
        p.out(format!("tool_hash:    {}", e.tool_hash))?;
        if e.pinned {
            p.out("pinned:       yes (a hand edit adopted with --adopt)")?;
        }
        if e.refinements.is_empty() {
            p.out("refinements:  none")?;
        } else {
            p.out("refinements:")?;
            for (i, r) in e.refinements.iter().enumerate() {
                p.out(format!("  {}. {}", i + 1, report::display_name(r)))?;
            }
        }
        for w in &e.widgets {
            let widget = (w.name != crate::lock::DEFAULT_WIDGET).then_some(w.name.as_str());
            p.out(format!(
                "widget:       {}{}",
                w.name,
                if w.default { " (default)" } else { "" }
            ))?;
            p.out(format!(
                "  file:       {}",
                cfg.out_dir.join(&w.path).display()
            ))?;
            p.out(format!(
                "  uri:        {}",
                ui_uri(&server, &tp.name, widget)
            ))?;
            p.out(format!(
                "  generator:  {} (template {}, {})",
                w.generator, w.template_version, w.ui_type
            ))?;
            if let Some(r) = &w.fallback_reason {
                p.out(format!("  fallback:   {r}"))?;
            }
        }
    }
    if !tp.tool_config.hints.is_empty() {
        p.out(format!(
            "hints:        {}",
            serde_json::to_string(&tp.tool_config.hints).unwrap_or_default()
        ))?;
    }
    Ok(Outcome::Success)
}
