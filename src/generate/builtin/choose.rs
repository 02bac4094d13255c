//! Choosing a page's parts: the registry's parts a page wants (from its kind and its tool's
//! schemas), with everything they need. Each optional part is left out only when the tool's
//! schemas prove the page cannot use it, which keeps a typical page small; the code that would
//! call a missing part still degrades instead of failing (no form.js means "takes no input", a
//! field whose control is missing becomes the JSON editor, no schema-check.js means no check in
//! the page: the server still validates).

use super::registry::{PARTS, When, index};
use crate::model::Tool;

/// The kinds of page, as far as their parts go.
#[derive(Debug, Clone, Copy)]
pub(super) enum PageKind<'a> {
    /// A builtin page from the embedded scripts: the parts its tool can use.
    Builtin(&'a Tool),
    /// A page built from a user's override scripts: they may use any part, and their glue may set
    /// no runner.
    Override,
    /// The runtime the llm generator injects into LLM-written pages: every part.
    Llm,
}

/// A set of the registry's parts, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Parts(u64);

impl Parts {
    pub(super) const NONE: Parts = Parts(0);

    /// The parts a page of this kind wants, with what they need.
    pub(super) fn for_page(kind: PageKind<'_>) -> Parts {
        let mut set = Parts::NONE;
        // The registry lists each part after what it needs, so walking it backwards adds every
        // need after the part that asks for it.
        for (i, part) in PARTS.iter().enumerate().rev() {
            let wanted = match (part.when, kind) {
                (When::Always, _) | (_, PageKind::Llm) => true,
                (When::Tool(test), PageKind::Builtin(tool)) => test(tool),
                (When::Tool(_) | When::NoGlueRunner, PageKind::Override) => true,
                (When::NoGlueRunner | When::Llm, PageKind::Builtin(_))
                | (When::Llm, PageKind::Override) => false,
            };
            if wanted || set.has(i) {
                set = set.with(i);
                for need in part.needs {
                    if let Some(n) = index(need) {
                        set = set.with(n);
                    }
                }
            }
        }
        set
    }

    /// The builtin page of a tool.
    pub(super) fn for_tool(tool: &Tool) -> Parts {
        Parts::for_page(PageKind::Builtin(tool))
    }

    fn has(self, i: usize) -> bool {
        self.0 & (1 << i) != 0
    }

    fn with(self, i: usize) -> Parts {
        Parts(self.0 | (1 << i))
    }

    /// Whether the set holds the part in this file (tests).
    #[cfg(test)]
    pub(super) fn wants(self, file: &str) -> bool {
        index(file).is_some_and(|i| self.has(i))
    }

    /// The set's parts in load order.
    pub(super) fn files(self) -> impl Iterator<Item = &'static str> {
        PARTS
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.has(*i))
            .map(|(_, p)| p.file)
    }

    /// Whether a page embeds the rules after a `/* @part NAME` marker in styles.css: when one of
    /// its parts uses them, or when no part claims the name (an override's own section).
    pub(super) fn wants_styles(self, section: &str) -> bool {
        let mut users = PARTS
            .iter()
            .enumerate()
            .filter(|(_, p)| p.styles.contains(&section))
            .peekable();
        users.peek().is_none() || users.any(|(i, _)| self.has(i))
    }

    /// The set of exactly these files (tests).
    #[cfg(test)]
    pub(super) fn of(files: &[&str]) -> Parts {
        files.iter().fold(Parts::NONE, |set, f| match index(f) {
            Some(i) => set.with(i),
            None => panic!("no part {f}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_registry_has_room_in_the_set() {
        assert!(PARTS.len() <= 64);
    }

    #[test]
    fn a_wanted_part_brings_what_it_needs() {
        // form-extra.js needs the JSON editor, which needs the validator, which needs checks.js.
        let tool = Tool::from_raw(json!({"name": "a", "annotations": {"readOnlyHint": true},
            "inputSchema": {"type": "object", "properties": {"l": {"type": "array"}}}}))
        .unwrap_or_else(|e| panic!("{e}"));
        let files: Vec<&str> = Parts::for_tool(&tool).files().collect();
        assert_eq!(
            files,
            [
                "runtime.js",
                "schema.js",
                "checks.js",
                "hosts.js",
                "view.js",
                "export.js",
                "form.js",
                "schema-check.js",
                "form-json.js",
                "form-extra.js",
                "drafts.js",
                "viewtools.js"
            ]
        );
        let all = Parts::for_page(PageKind::Llm);
        assert_eq!(all.files().count(), PARTS.len());
        let over = Parts::for_page(PageKind::Override);
        assert!(over.wants("runner.js") && !over.wants("llm.js") && !over.wants("submit-shim.js"));
        // A section no part claims is kept; a claimed one only with a part that uses it.
        assert!(Parts::NONE.wants_styles("later") && !Parts::NONE.wants_styles("choice"));
        assert!(Parts::of(&["form-extra.js"]).wants_styles("choice"));
    }
}
