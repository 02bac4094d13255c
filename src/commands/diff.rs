//! `diff`: what changed upstream since the UIs were generated (tools added, removed, changed — by
//! field and schema path), and the unified diff of what `generate` would write against what is
//! committed.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use serde_json::{Value, json};

use super::Reporter;
use crate::context::{Context, Outcome};
use crate::pipeline::diff::{Differences, FileStatus, diff};
use crate::plan::status_with_reasons;
use crate::report::{self, Color, Printer, Render, Style};
use crate::review::words::{self, ChangeLine};
use crate::review::{Side, clean, html, visual};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Only these tools [default: every enabled tool]
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
    /// Output format: text; json (the same records); markdown (only the change lines, escaped,
    /// for a pull request's job summary)
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
    /// The browser for --visual; in refine, the llm generator also runs the new page in it
    /// [default: $MCP_GEN_UI_BROWSER, else chromium or chrome on the PATH]
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
    ) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
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

/// One page pictured by `--visual`: where its pictures are and how much changed.
#[derive(Debug, Serialize)]
pub struct Picture {
    pub path: String,
    pub dir: String,
    pub files: Vec<String>,
    pub changed_pixels: Option<u64>,
}

/// The pictures of `--visual`, and the git-ignored folder they are in.
#[derive(Debug, Default)]
pub struct Pictures {
    pub review: String,
    pub pages: Vec<Picture>,
}

impl Serialize for Pictures {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.pages.serialize(s)
    }
}

impl Pictures {
    /// Where the pictures are (text output).
    pub fn text(&self, p: &Printer) -> std::io::Result<()> {
        if self.pages.is_empty() {
            return Ok(());
        }
        p.out(format!("Pictures ({}, git-ignored):", self.review))?;
        for s in &self.pages {
            let changed = match s.changed_pixels {
                Some(0) => " (identical)".to_string(),
                Some(n) => format!(" ({n} pixels differ)"),
                None => String::new(),
            };
            p.out(format!("  {}{changed}:", clean(&s.path, 200)))?;
            for f in &s.files {
                p.out(format!("    {}", clean(f, 390)))?;
            }
        }
        Ok(())
    }
}

/// `--visual`: renders the changed pages before and after (`files`: path, before, after) into the
/// review folder, saying so on stderr.
pub fn pictures(
    p: &Printer,
    (browser, review): &(PathBuf, PathBuf),
    before: &Side,
    after: &Side,
    files: &[(String, Option<String>, Option<String>)],
) -> anyhow::Result<Pictures> {
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
        return Ok(Pictures::default());
    }
    p.status(format!(
        "Rendering {} page{} before and after with {}…",
        pages.len(),
        if pages.len() == 1 { "" } else { "s" },
        browser.display()
    ));
    let shots = visual::picture(browser, review, &pages)?;
    Ok(Pictures {
        review: review.display().to_string(),
        pages: shots
            .into_iter()
            .map(|s| Picture {
                path: s.path,
                dir: s.dir.display().to_string(),
                files: s.files.iter().map(|f| f.display().to_string()).collect(),
                changed_pixels: s.changed_pixels,
            })
            .collect(),
    })
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

/// One file's diff in JSON: readable (or full with `--html`) and never coloured.
pub struct FileDiff<'a> {
    pub path: &'a str,
    pub status: Option<FileStatus>,
    pub before: &'a str,
    pub after: &'a str,
    pub full: bool,
}

impl Serialize for FileDiff<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let plain = Printer {
            quiet: true,
            stderr_tty: false,
            color: false,
        };
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("path", self.path)?;
        if let Some(status) = self.status {
            m.serialize_entry("status", &status)?;
        }
        m.serialize_entry(
            "diff",
            &file_diff(&plain, self.full, self.before, self.after, self.path),
        )?;
        m.end()
    }
}

impl From<DiffFormat> for Style {
    fn from(f: DiffFormat) -> Style {
        match f {
            DiffFormat::Text => Style::Text,
            DiffFormat::Json => Style::Json,
            DiffFormat::Markdown => Style::Markdown,
        }
    }
}

/// Runs `diff`: findings with `--exit-code` when anything differs.
pub fn run(ctx: &Context, args: &DiffArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    // Looked for before anything is done, so that a missing browser writes nothing.
    let visual = args.review.visual_setup(&cfg.out_dir)?;
    let d = diff(
        &cfg,
        &args.tools,
        args.base.as_deref(),
        &Reporter::new(&ctx.printer),
        || ctx.runtime(),
    )?;
    let pictures = match (&visual, &d.sides) {
        (Some(v), Some((before, after))) => {
            let files: Vec<(String, Option<String>, Option<String>)> = d
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
            Some(pictures(&ctx.printer, v, before, after, &files)?)
        }
        _ => None,
    };
    let shown = Diffed {
        d: &d,
        base: args.base.as_deref(),
        full_html: args.review.html,
        pictures,
    };
    ctx.printer.render(&shown, args.format.into())?;
    Ok(Outcome::findings_if(!d.is_empty() && args.exit_code))
}

/// `diff`'s output record.
pub struct Diffed<'a> {
    d: &'a Differences,
    /// `--base`: compared with this git revision, offline.
    base: Option<&'a str>,
    /// `--html`: the full unified diff.
    full_html: bool,
    /// `--visual`.
    pictures: Option<Pictures>,
}

impl Serialize for Diffed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let d = self.d;
        let files: Vec<FileDiff> = d
            .files
            .iter()
            .map(|f| FileDiff {
                path: &f.path,
                status: Some(f.status),
                before: &f.before,
                after: &f.after,
                full: self.full_html,
            })
            .collect();
        let regen: Vec<Value> = d
            .llm_regenerate
            .iter()
            .map(|r| json!({"tool": r.tool, "reason": status_with_reasons(&r.status, &r.reasons)}))
            .collect();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("differs", &!d.is_empty())?;
        m.serialize_entry("changes", &d.changes)?;
        m.serialize_entry("upstream", &d.upstream)?;
        m.serialize_entry("files", &files)?;
        m.serialize_entry("llm_regenerate", &regen)?;
        m.serialize_entry(
            "pictures",
            &self.pictures.as_ref().map_or(&[][..], |p| &p.pages),
        )?;
        m.end()
    }
}

impl Render for Diffed<'_> {
    fn text(&self, p: &Printer) -> anyhow::Result<()> {
        let d = self.d;
        print_changes(p, &d.changes)?;
        self.drift_text(p)?;
        for f in &d.files {
            let text = file_diff(p, self.full_html, &f.before, &f.after, &f.path);
            if !text.is_empty() {
                p.out(text)?;
            }
        }
        for r in &d.llm_regenerate {
            p.out(format!(
                "tool `{}` would be regenerated by the llm generator ({})",
                report::display_name(&r.tool),
                status_with_reasons(&r.status, &r.reasons)
            ))?;
        }
        if d.is_empty() {
            match self.base {
                Some(rev) => p.status(format!(
                    "No differences: the output directory is as committed at {}.",
                    clean(rev, 80)
                )),
                None => {
                    p.status("No differences: the committed UIs are what `generate` would write.")
                }
            }
        }
        if let Some(pictures) = &self.pictures {
            pictures.text(p)?;
        }
        Ok(())
    }

    fn other(&self, style: Style) -> Option<String> {
        (style == Style::Markdown)
            .then(|| markdown(&self.d.changes, self.base).trim_end().to_string())
    }
}

impl Diffed<'_> {
    /// Tools added, removed and changed upstream (or on this branch, with `--base`).
    fn drift_text(&self, p: &Printer) -> anyhow::Result<()> {
        let u = &self.d.upstream;
        let (new, gone) = if self.base.is_some() {
            ("new on this branch", "gone on this branch")
        } else {
            ("new upstream", "gone upstream")
        };
        for name in &u.added {
            p.out(format!(
                "{} tool `{}` ({new})",
                p.paint("+", Color::Green),
                report::display_name(name),
            ))?;
        }
        for name in &u.removed {
            p.out(format!(
                "{} tool `{}` ({gone})",
                p.paint("-", Color::Red),
                report::display_name(name),
            ))?;
        }
        for (name, changes) in &u.changed {
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
        Ok(())
    }
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
