//! `diff`: what changed upstream since the UIs were generated (tools added, removed, changed — by
//! field and schema path), and the unified diff of what `generate` would write against what is
//! committed.

use clap::Args;
use serde_json::{Value, json};

use super::context::{Context, Outcome};
use crate::pipeline::diff::FileStatus;
use crate::pipeline::diff::{against_revision, differences};
use crate::pipeline::{self, State};
use crate::report::{self, Color, Printer};
use crate::review::words::{self, ChangeLine};
use crate::review::{Side, clean, html, visual};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Only these tools
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
    /// Exit 1 when there is any difference (for CI)
    #[arg(long)]
    pub exit_code: bool,
    /// Compare the committed output directory at this git revision (branch, tag, commit) with the
    /// working tree's, offline: the upstream is not contacted
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    #[command(flatten)]
    pub review: ReviewArgs,
    /// text; json (the same records); markdown (only the change lines, escaped, for a pull
    /// request's job summary)
    #[arg(long, value_enum, default_value_t)]
    pub format: DiffFormat,
}

/// How `diff` and `refine` show a change: the HTML diff's detail and the pictures of `--visual`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Print the full unified diff of the HTML (by default the inline runtime and stylesheet are
    /// elided and no line is longer than 400 characters)
    #[arg(long)]
    pub html: bool,
    /// Render each changed page before and after in a local Chromium or Chrome and write
    /// before.png, after.png and diff.png per page into .mcp-gen-ui-review/ (git-ignored)
    #[arg(long)]
    pub visual: bool,
    /// The browser for --visual [default: $MCP_GEN_UI_BROWSER, else chromium or chrome on the PATH]
    #[arg(long, value_name = "PATH", requires = "visual")]
    pub browser: Option<std::path::PathBuf>,
    /// Where --visual writes its pictures [default: .mcp-gen-ui-review/ beside the output
    /// directory]; the folder is emptied first and ignored by git
    #[arg(long, value_name = "DIR", requires = "visual")]
    pub review_dir: Option<std::path::PathBuf>,
}

impl ReviewArgs {
    /// With `--visual`: the browser and the review folder, both checked before anything is
    /// written (no browser, or a folder mcp-gen-ui did not make, is an error here).
    pub fn visual_setup(
        &self,
        out_dir: &std::path::Path,
    ) -> anyhow::Result<Option<(std::path::PathBuf, std::path::PathBuf)>> {
        if !self.visual {
            return Ok(None);
        }
        let browser = visual::find_browser(self.browser.as_deref())?;
        let review = self
            .review_dir
            .clone()
            .unwrap_or_else(|| visual::review_dir(out_dir));
        visual::check_review_dir(&review)?;
        Ok(Some((browser, review)))
    }
}

/// How `diff` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DiffFormat {
    #[default]
    Text,
    Json,
    Markdown,
}

/// Text made inert in Markdown (GitHub's job summary): punctuation that could start markup is
/// backslash-escaped, `<`, `>`, `&` and `@` become character references.
pub fn markdown_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("&#64;"),
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '-' | '.'
            | '!' | '|' | '~' | '"' | '\'' | ':' | '=' | '$' | '%' | '^' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.extend(c.escape_debug()),
            c => out.push(c),
        }
    }
    out
}

/// The change lines as Markdown: a heading and one list item per line.
fn markdown(changes: &[ChangeLine], base: Option<&str>) -> String {
    let mut out = String::from("### mcp-gen-ui: what changes for the person\n\n");
    if let Some(b) = base {
        out.push_str(&format!(
            "Compared with {}.\n\n",
            markdown_escape(&clean(b, 80))
        ));
    }
    if changes.is_empty() {
        out.push_str("No change a person would notice.\n");
    }
    for c in changes {
        out.push_str("- ");
        out.push_str(&markdown_escape(c.text().trim_start()));
        out.push('\n');
    }
    out
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => clean(&v.to_string(), 80),
    }
}

/// The diff of one file: readable by default, the full unified diff with `--html`.
pub fn file_diff(p: &Printer, full: bool, before: &str, after: &str, path: &str) -> String {
    if full {
        report::unified(p, before, after, path)
    } else {
        html::readable(p, before, after, path)
    }
}

/// Renders the changed pages (`--visual`); prints where the pictures are when `text` (else only
/// returns it, for JSON output).
pub fn pictures(
    p: &Printer,
    review: &std::path::Path,
    browser: &std::path::Path,
    before: &Side,
    after: &Side,
    files: &[(String, Option<String>, Option<String>)],
    text: bool,
) -> anyhow::Result<Vec<Value>> {
    let owner = |path: &str| -> Option<String> {
        [after, before].iter().find_map(|s| {
            s.lock.as_ref().and_then(|l| {
                l.files()
                    .find(|(_, w)| w.path == path)
                    .map(|(t, _)| t.to_string())
            })
        })
    };
    let mut pages = Vec::new();
    for (path, b, a) in files {
        let data = a
            .as_deref()
            .or(b.as_deref())
            .and_then(|h| words::embedded_json(h, "mcp-gen-ui-data"));
        let tool = owner(path)
            .and_then(|t| after.tools.get(&t).or(before.tools.get(&t)).cloned())
            .or_else(|| data.as_ref().and_then(|d| d.get("tool").cloned()))
            .unwrap_or_else(|| json!({}));
        pages.push(visual::PageToRender {
            path: path.clone(),
            before: b.clone(),
            after: a.clone(),
            tool,
            examples: data.and_then(|d| d.get("examples").cloned()),
        });
    }
    if pages.is_empty() {
        p.status("No page changed: nothing to picture.");
        return Ok(Vec::new());
    }
    p.status(format!(
        "Rendering {} page{} before and after with {}…",
        pages.len(),
        if pages.len() == 1 { "" } else { "s" },
        browser.display()
    ));
    let shots = visual::picture(browser, review, &pages)?;
    if text {
        p.out(format!("Pictures ({}, git-ignored):", review.display()))?;
    }
    let mut records = Vec::new();
    for s in shots {
        let files: Vec<String> = s.files.iter().map(|f| f.display().to_string()).collect();
        let changed = match s.changed_pixels {
            Some(0) => " (identical)".to_string(),
            Some(n) => format!(" ({n} pixels differ)"),
            None => String::new(),
        };
        if text {
            p.out(format!("  {}{changed}:", clean(&s.path, 200)))?;
            for f in &files {
                p.out(format!("    {}", clean(f, 390)))?;
            }
        }
        records.push(json!({"path": s.path, "dir": s.dir.display().to_string(), "files": files, "changed_pixels": s.changed_pixels}));
    }
    Ok(records)
}

/// The change lines under their heading (nothing when there are none).
pub fn print_changes(p: &Printer, changes: &[ChangeLine]) -> std::io::Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    p.out("What changes for the person:")?;
    for c in changes {
        p.out(c.text())?;
    }
    Ok(())
}

/// Runs `diff`: findings with `--exit-code` when anything differs.
pub fn run(ctx: &Context, args: &DiffArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    // Looked for before anything is done, so that a missing browser writes nothing.
    let visual = args.review.visual_setup(&cfg.out_dir)?;
    let d = match &args.base {
        Some(rev) => against_revision(&cfg, rev, &args.tools)?,
        None => {
            let generator = pipeline::load_generator(&cfg, None, None)?;
            let discovery = super::discover(ctx, &cfg)?;
            let state = State::read(&cfg)?;
            let rt = ctx.runtime()?;
            differences(
                &cfg,
                &generator,
                &discovery,
                &state,
                &args.tools,
                rt.handle(),
            )?
        }
    };

    let p = &ctx.printer;
    let differs = !d.is_empty();
    let picture_files: Vec<(String, Option<String>, Option<String>)> = d
        .files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                (f.status != FileStatus::Added).then(|| f.before.clone()),
                (f.status != FileStatus::Deleted).then(|| f.after.clone()),
            )
        })
        .collect();
    let text = args.format == DiffFormat::Text;
    let mut shots = Vec::new();
    if !text && let (Some((browser, review)), Some((before, after))) = (&visual, &d.sides) {
        shots = pictures(p, review, browser, before, after, &picture_files, false)?;
    }
    if args.format == DiffFormat::Markdown {
        p.out(markdown(&d.changes, args.base.as_deref()).trim_end())?;
    } else if args.format == DiffFormat::Json {
        let plain = Printer {
            color: false,
            ..p.clone()
        };
        let files_json: Vec<Value> = d
            .files
            .iter()
            .map(|f| {
                json!({"path": f.path, "status": f.status, "diff": file_diff(&plain, args.review.html, &f.before, &f.after, &f.path)})
            })
            .collect();
        let regen: Vec<Value> = d
            .llm_regenerate
            .iter()
            .map(|r| json!({"tool": r.tool, "reason": crate::plan::status_with_reasons(&r.status, &r.reasons)}))
            .collect();
        p.json(&json!({"differs": differs, "changes": d.changes, "upstream": d.upstream, "files": files_json, "llm_regenerate": regen, "pictures": shots}))?;
    } else {
        print_changes(p, &d.changes)?;
        for name in &d.upstream.added {
            p.out(format!(
                "{} tool `{}` ({})",
                p.paint("+", Color::Green),
                report::display_name(name),
                if args.base.is_some() {
                    "new on this branch"
                } else {
                    "new upstream"
                }
            ))?;
        }
        for name in &d.upstream.removed {
            p.out(format!(
                "{} tool `{}` ({})",
                p.paint("-", Color::Red),
                report::display_name(name),
                if args.base.is_some() {
                    "gone on this branch"
                } else {
                    "gone upstream"
                }
            ))?;
        }
        for (name, changes) in &d.upstream.changed {
            p.out(format!(
                "{} tool `{}` changed:",
                p.paint("~", Color::Yellow),
                report::display_name(name)
            ))?;
            for c in changes {
                p.out(format!(
                    "    {}: {} → {}",
                    clean(&c.path, 200),
                    short(&c.before),
                    short(&c.after)
                ))?;
            }
        }
        for f in &d.files {
            let text = file_diff(p, args.review.html, &f.before, &f.after, &f.path);
            if !text.is_empty() {
                p.out(text)?;
            }
        }
        for r in &d.llm_regenerate {
            p.out(format!(
                "tool `{}` would be regenerated by the llm generator ({})",
                report::display_name(&r.tool),
                crate::plan::status_with_reasons(&r.status, &r.reasons)
            ))?;
        }
        if !differs {
            match &args.base {
                Some(rev) => p.status(format!(
                    "No differences: the output directory is as committed at {}.",
                    clean(rev, 80)
                )),
                None => {
                    p.status("No differences: the committed UIs are what `generate` would write.")
                }
            }
        }
    }
    if text && let (Some((browser, review)), Some((before, after))) = (&visual, &d.sides) {
        pictures(p, review, browser, before, after, &picture_files, true)?;
    }
    Ok(Outcome::findings_if(differs && args.exit_code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_inert() {
        let e = markdown_escape("a_b *c* [x](javascript:y) <img src=x> @team `code` | # 1. - ~~");
        for bad in ["<img", "](", "@team", "`code`", "**", "~~"] {
            assert!(!e.contains(bad), "{bad}: {e}");
        }
        assert_eq!(markdown_escape("a→b"), "a→b");
        assert_eq!(markdown_escape("x\ny"), "x\\ny");
    }
}
