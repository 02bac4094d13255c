//! Review output (book: reference/review.md): what a change to `ui/` means for the person who uses the pages.
//!
//! Two states of an output directory ([`Side`]: its lock, the tool definitions and the pages) are
//! compared in words ([`words`]: one line per change a person would notice), as a readable HTML
//! diff ([`html`]: the inline runtime and stylesheet elided), and in pictures ([`visual`]: each
//! changed page rendered before and after in a local Chromium). The sides come from the committed
//! files, from what `generate` or `refine` would write, or from a git revision ([`git`]). Nothing
//! here contacts the upstream.

pub mod git;
pub mod html;
pub mod visual;
pub mod words;

use std::collections::BTreeMap;

use serde_json::Value;

use crate::lock::Lock;
use crate::model::Tool;

/// Tool name → the definition as the upstream sent it.
fn by_name(tools: &[Tool]) -> BTreeMap<String, Value> {
    tools
        .iter()
        .map(|t| (t.name.clone(), Value::Object(t.raw.clone())))
        .collect()
}

/// One state of an output directory: what a review compares.
#[derive(Debug, Clone, Default)]
pub struct Side {
    pub lock: Option<Lock>,
    /// Tool name → definition (`mcp-gen-ui.tools.json`, or the upstream's `tools/list`).
    pub tools: BTreeMap<String, Value>,
    /// Page path (relative to the output directory) → HTML.
    pub pages: BTreeMap<String, String>,
}

impl Side {
    /// A side from a lock, tool definitions and a way to read each page the lock names.
    pub fn new(
        lock: Option<Lock>,
        tools: &[Tool],
        mut read_page: impl FnMut(&str) -> Option<String>,
    ) -> Side {
        let mut pages = BTreeMap::new();
        if let Some(l) = &lock {
            for (_, w) in l.files() {
                if let Some(html) = read_page(&w.path) {
                    pages.insert(w.path.clone(), html);
                }
            }
        }
        Side {
            lock,
            tools: by_name(tools),
            pages,
        }
    }

    /// This side with a new lock, new tool definitions, and pages written or removed (what
    /// `generate` or `refine` would do).
    pub fn overlaid(
        &self,
        lock: Option<Lock>,
        tools: &[Tool],
        written: &[(String, Vec<u8>)],
        removed: &[String],
    ) -> Side {
        let mut pages = self.pages.clone();
        for (path, bytes) in written {
            pages.insert(path.clone(), String::from_utf8_lossy(bytes).into_owned());
        }
        for path in removed {
            pages.remove(path);
        }
        Side {
            lock,
            tools: by_name(tools),
            pages,
        }
    }

    /// The committed state of an output directory, read from disk.
    pub fn from_dir(out_dir: &std::path::Path) -> anyhow::Result<Side> {
        let lock = Lock::read(out_dir)?;
        let tools = crate::lock::read_snapshot(out_dir)?.unwrap_or_default();
        Ok(Side::new(lock, &tools, |p| {
            std::fs::read_to_string(out_dir.join(p)).ok()
        }))
    }
}

/// Untrusted text made safe for one line of a terminal or a log: control characters escaped
/// (`\n`, `\u{1b}`), at most `max` characters (cut with `…`).
pub fn clean(s: &str, max: usize) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202e}') {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
        // Enough to know whether it must be cut.
        if out.len() > max * 4 + 16 {
            break;
        }
    }
    if out.chars().count() <= max {
        return out;
    }
    let mut cut: String = out.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Follows local `$ref`s into the root schema, a bounded number of hops (so cycles end); a
/// reference that points nowhere leaves the schema as it is.
pub(crate) fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(t) => s = t,
                None => return s,
            },
            None => return s,
        }
    }
    s
}

/// JSON that can sit inside a `<script>` element: `<`, `>`, `&` and the line separators
/// escaped, so no string in it can close the element.
pub fn script_json(v: &serde_json::Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_escapes_and_caps() {
        assert_eq!(clean("a\nb\u{1b}[31m", 100), "a\\nb\\u{1b}[31m");
        assert_eq!(clean("abcdef", 4), "abc…");
        assert_eq!(clean("abc", 4), "abc");
        assert_eq!(clean("abcd", 4), "abcd");
        assert_eq!(clean(&"é".repeat(500), 10).chars().count(), 10);
    }
}
