//! `inspect TOOL`: everything known about one tool — status, files, hashes, refinements, hints,
//! and the definition it was generated from.

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::Reporter;
use crate::config::Config;
use crate::context::{Context, Outcome};
use crate::lock::{Lock, WidgetEntry};
use crate::pipeline::{self, UnknownTool};
use crate::plan::{StaleReason, ToolPlan};
use crate::report::{self, Format, Printer, Render};

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The tool's name, exactly as the upstream spells it
    pub tool: String,
    /// Also compare with the upstream's tools (contacts the configured upstream)
    #[arg(long)]
    pub online: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Runs `inspect`.
pub fn run(ctx: &Context, args: &InspectArgs) -> anyhow::Result<Outcome> {
    let cfg = ctx.config()?;
    let online = super::wants_online(ctx, &cfg, args.online);
    let (state, plan) =
        pipeline::look(&cfg, online, &Reporter::new(&ctx.printer), || ctx.runtime())?;
    let Some(tp) = plan.tools.iter().find(|t| t.name == args.tool) else {
        let known = plan.tools.iter().map(|t| t.name.as_str());
        UnknownTool::check(&args.tool, online, known)?;
        anyhow::bail!("no tool named `{}`", report::display_name(&args.tool));
    };
    let inspected = Inspected::new(&cfg, state.lock.as_ref(), tp);
    ctx.printer.render(&inspected, args.format.into())?;
    Ok(Outcome::Success)
}

/// `inspect`'s output record: JSON is the fields not skipped; text shows them with the tool's
/// title, description and inputs.
#[derive(Debug, Serialize)]
pub struct Inspected {
    tool: String,
    status: String,
    reasons: Vec<StaleReason>,
    tool_hash: Option<String>,
    config_hash: Option<String>,
    pinned: bool,
    refinements: Vec<String>,
    hints: Value,
    widgets: Vec<WidgetInfo>,
    definition: Option<Value>,
    /// Generated: the lock has an entry (text shows hashes and widgets only then).
    #[serde(skip)]
    generated: bool,
    #[serde(skip)]
    title: Option<String>,
    #[serde(skip)]
    description: Option<String>,
    /// `name: type` of each input.
    #[serde(skip)]
    inputs: Vec<String>,
    /// The hints as one line of JSON, when there are any.
    #[serde(skip)]
    hints_line: Option<String>,
}

/// One widget of the lock entry, with its resource URI.
#[derive(Debug, Serialize)]
struct WidgetInfo {
    name: String,
    path: String,
    uri: String,
    sha256: String,
    generator: String,
    template_version: String,
    prompt_version: String,
    ui_type: String,
    default: bool,
    fallback_reason: Option<String>,
    /// Where the file is (text only).
    #[serde(skip)]
    file: String,
}

impl Inspected {
    fn new(cfg: &Config, lock: Option<&Lock>, tp: &ToolPlan) -> Inspected {
        // The URI serve hands out for the file the lock records (book: reference/names.md).
        let uri = |w: &WidgetEntry| {
            lock.map(|l| l.page_uri(cfg.file.server_name.as_deref(), w, cfg.file.stable_uris))
                .unwrap_or_default()
        };
        let row = pipeline::tool_row(cfg, tp);
        let widgets = tp
            .entry
            .iter()
            .flat_map(|e| &e.widgets)
            .map(|w| WidgetInfo {
                name: w.name.clone(),
                path: w.path.clone(),
                uri: uri(w),
                sha256: w.sha256.clone(),
                generator: w.generator.clone(),
                template_version: w.template_version.clone(),
                prompt_version: w.prompt_version.clone(),
                ui_type: w.ui_type.clone(),
                default: w.default,
                fallback_reason: w.fallback_reason.clone(),
                file: cfg.out_dir.join(&w.path).display().to_string(),
            })
            .collect();
        let def = tp.tool.as_ref().map(|t| t.hashed_definition());
        let inputs = def.as_ref().map(input_list).unwrap_or_default();
        let t = tp.tool.as_ref();
        let hints = &tp.tool_config.hints;
        Inspected {
            tool: tp.name.clone(),
            status: row.status,
            reasons: row.reasons,
            tool_hash: tp.entry.as_ref().map(|e| e.tool_hash.clone()),
            config_hash: tp.entry.as_ref().map(|e| e.config_hash.clone()),
            pinned: tp.entry.as_ref().is_some_and(|e| e.pinned),
            refinements: tp
                .entry
                .as_ref()
                .map(|e| e.refinements.clone())
                .unwrap_or_default(),
            hints: serde_json::to_value(hints).unwrap_or(Value::Null),
            widgets,
            definition: def,
            generated: tp.entry.is_some(),
            title: t.and_then(|t| t.title()).map(str::to_string),
            description: t
                .and_then(|t| t.description())
                .map(|d| d.lines().next().unwrap_or("").to_string()),
            inputs,
            hints_line: (!hints.is_empty())
                .then(|| serde_json::to_string(hints).unwrap_or_default()),
        }
    }
}

/// `name: type` for each property of the definition's input schema.
fn input_list(def: &Value) -> Vec<String> {
    def.pointer("/inputSchema/properties")
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
        .unwrap_or_default()
}

impl Render for Inspected {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        p.out(format!(
            "tool:         {}",
            report::display_name(&self.tool)
        ))?;
        if let Some(title) = &self.title {
            p.out(format!("title:        {}", report::display_name(title)))?;
        }
        if let Some(d) = &self.description {
            p.out(format!("description:  {}", report::display_name(d)))?;
        }
        let status = crate::plan::status_with_reasons(&self.status, &self.reasons);
        p.out(format!("status:       {status}"))?;
        if !self.inputs.is_empty() {
            p.out(format!("inputs:       {}", self.inputs.join(", ")))?;
        }
        if self.generated {
            self.entry_text(p)?;
        }
        if let Some(h) = &self.hints_line {
            p.out(format!("hints:        {h}"))?;
        }
        Ok(())
    }
}

impl Inspected {
    /// The lock entry: hash, pin, refinements, and each widget.
    fn entry_text(&self, p: &Printer) -> anyhow::Result<()> {
        p.out(format!(
            "tool_hash:    {}",
            self.tool_hash.as_deref().unwrap_or_default()
        ))?;
        if self.pinned {
            p.out("pinned:       yes (a hand edit adopted with --adopt)")?;
        }
        if self.refinements.is_empty() {
            p.out("refinements:  none")?;
        } else {
            p.out("refinements:")?;
            for (i, r) in self.refinements.iter().enumerate() {
                p.out(format!("  {}. {}", i + 1, report::display_name(r)))?;
            }
        }
        for w in &self.widgets {
            p.out(format!(
                "widget:       {}{}",
                w.name,
                if w.default { " (default)" } else { "" }
            ))?;
            p.out(format!("  file:       {}", w.file))?;
            p.out(format!("  uri:        {}", w.uri))?;
            p.out(format!(
                "  generator:  {} (template {}, {})",
                w.generator, w.template_version, w.ui_type
            ))?;
            if let Some(r) = &w.fallback_reason {
                p.out(format!("  fallback:   {r}"))?;
            }
        }
        Ok(())
    }
}
