//! Output: results on stdout, progress and warnings on stderr, quiet and line-oriented when not a
//! terminal, JSON where a script wants it.

use std::io::{IsTerminal, Write};

use serde::Serialize;

pub use crate::secrets::redact;

/// How a command prints its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// How a command's output record is printed: every command's `--format` resolves to one of these
/// (each command offers only the ones its record has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Text,
    Json,
    /// JUnit XML (`check`).
    Junit,
    /// Markdown for a pull request's job summary (`diff`).
    Markdown,
}

impl From<Format> for Style {
    fn from(f: Format) -> Style {
        match f {
            Format::Text => Style::Text,
            Format::Json => Style::Json,
        }
    }
}

/// A command's output record: JSON is its serialisation, text (and the other styles it offers) is
/// written here. The printer picks which ([`Printer::render`]); no command branches on the format.
pub trait Render: Serialize {
    /// The human text: results on stdout, notes and warnings on stderr.
    fn text(&self, p: &Printer) -> anyhow::Result<()>;
    /// The record in `style` when it is neither text nor JSON (`None`: not offered).
    fn other(&self, _style: Style) -> Option<String> {
        None
    }
}

/// Where human output goes, and whether it may be decorated.
#[derive(Debug, Clone)]
pub struct Printer {
    pub quiet: bool,
    /// stderr is a terminal: progress spinners and colour are welcome there.
    pub stderr_tty: bool,
    /// stdout is a terminal and NO_COLOR is not set.
    pub color: bool,
}

impl Printer {
    pub fn new(quiet: bool) -> Printer {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Printer {
            quiet,
            stderr_tty: std::io::stderr().is_terminal(),
            color: std::io::stdout().is_terminal() && !no_color,
        }
    }

    /// A line of result output on stdout.
    pub fn out(&self, line: impl AsRef<str>) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", redact(line.as_ref()))
    }

    /// A line of result output that carries a capability mcp-gen-ui made for this person to use
    /// (preview's one-run URL and its token): printed as it is, since the redaction of
    /// `token=` values would make it useless. Only for text composed from values mcp-gen-ui made.
    pub fn out_capability(&self, line: impl AsRef<str>) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", line.as_ref())
    }

    /// Pretty JSON on stdout.
    pub fn json<T: Serialize>(&self, value: &T) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        self.out(text)
    }

    /// Prints a command's output record in `style`.
    pub fn render<R: Render>(&self, record: &R, style: Style) -> anyhow::Result<()> {
        match style {
            Style::Text => record.text(self),
            Style::Json => Ok(self.json(record)?),
            other => match record.other(other) {
                Some(text) => Ok(self.out(text)?),
                None => anyhow::bail!("this command has no {other:?} output; use text or json"),
            },
        }
    }

    /// The same printer without colour: for text inside JSON.
    pub fn plain(&self) -> Printer {
        Printer {
            color: false,
            ..self.clone()
        }
    }

    /// A status line on stderr (suppressed by --quiet).
    pub fn status(&self, line: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("{}", redact(line.as_ref()));
        }
    }

    /// A warning on stderr (never suppressed: warnings matter).
    pub fn warn(&self, line: impl AsRef<str>) {
        eprintln!("warning: {}", redact(line.as_ref()));
    }

    /// An error on stderr that does not end the command (it goes on, and ends with findings).
    pub fn error(&self, line: impl AsRef<str>) {
        eprintln!("error: {}", redact(line.as_ref()));
    }

    /// Wraps text in an ANSI colour when colour is on.
    pub fn paint(&self, text: &str, color: Color) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match color {
            Color::Red => "31",
            Color::Green => "32",
            Color::Yellow => "33",
            Color::Cyan => "36",
            Color::Dim => "2",
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

/// An error and its causes on one line, `outer: cause: root`, each cause once: many errors
/// already quote their source in their own message (`cannot write x: Permission denied`), and
/// printing the chain again would repeat it.
pub fn error_chain(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let msg = cause.to_string();
        if msg.is_empty() || text.contains(&msg) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&msg);
    }
    text
}

#[derive(Debug, Clone, Copy)]
pub enum Color {
    Red,
    Green,
    Yellow,
    Cyan,
    Dim,
}

/// A plain text table: columns padded to their widest cell, no borders.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let n = cells.len();
        for (i, cell) in cells.into_iter().enumerate() {
            out.push_str(cell);
            if i + 1 < n {
                let pad = widths.get(i).copied().unwrap_or(0) - cell.chars().count();
                out.push_str(&" ".repeat(pad + 2));
            }
        }
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    for row in rows {
        line(row.iter().map(String::as_str).collect(), &mut out);
    }
    out.trim_end().to_string()
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

/// `12.3 KB` style sizes (1 KB = 1024 bytes).
pub fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// Shows an untrusted name on one line: control characters escaped, long names cut.
pub fn display_name(name: &str) -> String {
    let escaped: String = name.escape_debug().collect();
    if escaped.chars().count() > 60 {
        let cut: String = escaped.chars().take(57).collect();
        format!("{cut}…")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_pads_columns() {
        let t = table(
            &["tool", "status"],
            &[
                vec!["a".into(), "fresh".into()],
                vec!["long_name".into(), "new".into()],
            ],
        );
        assert_eq!(t, "tool       status\na          fresh\nlong_name  new");
    }

    #[test]
    fn a_style_a_record_does_not_offer_is_an_error_not_a_silent_nothing() {
        #[derive(Serialize)]
        struct Only;
        impl Render for Only {
            fn text(&self, _p: &Printer) -> anyhow::Result<()> {
                Ok(())
            }
        }
        let p = Printer {
            quiet: true,
            stderr_tty: false,
            color: false,
        };
        let err = p.render(&Only, Style::Junit).unwrap_err().to_string();
        assert!(err.contains("Junit") && err.contains("json"), "{err}");
        assert!(p.render(&Only, Style::Text).is_ok());
    }

    #[test]
    fn names_are_made_printable() {
        assert_eq!(display_name("a\nb\u{1b}[31m"), "a\\nb\\u{1b}[31m");
        assert!(display_name(&"x".repeat(300)).ends_with('…'));
    }
}
