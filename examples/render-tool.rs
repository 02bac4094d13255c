//! Dev aid: renders builtin UIs from tool definitions without a server.
//! `cargo run --example render-tool -- TOOLS.json OUT_DIR` (a tool object or an array of them)
//! writes `OUT_DIR/<stem>.html` per tool; with no OUT_DIR, prints the first tool's HTML.

use mcp_gen_ui::config::{Hints, ToolConfig};
use mcp_gen_ui::generate::WidgetRequest;
use mcp_gen_ui::generate::builtin::{Templates, render};
use mcp_gen_ui::model::{Tool, file_stem};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(input) = args.next() else {
        anyhow::bail!("usage: render-tool TOOLS.json [OUT_DIR]");
    };
    let out = args.next();
    let text = std::fs::read_to_string(&input)?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    let list = match v {
        serde_json::Value::Array(a) => a,
        other => vec![other],
    };
    let templates = Templates::embedded();
    for raw in list {
        // A fixture may carry its hints beside the definition, under "x-hints".
        let hints: Hints = raw
            .get("x-hints")
            .cloned()
            .map(serde_json::from_value)
            .transpose()?
            .unwrap_or_default();
        let tool = Tool::from_raw(raw)?;
        let cfg = ToolConfig::default();
        let req = WidgetRequest {
            tool: &tool,
            tool_config: &cfg,
            widget: None,
            hints,
            refinements: &[],
            server_name: "dev",
        };
        let html = render(&req, &templates)?;
        match &out {
            Some(dir) => {
                std::fs::create_dir_all(dir)?;
                std::fs::write(format!("{dir}/{}.html", file_stem(&tool.name)), html)?;
            }
            None => {
                print!("{html}");
                return Ok(());
            }
        }
    }
    Ok(())
}
