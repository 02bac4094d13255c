//! HTML parsing for the validator: html5ever into a scraper DOM, plus the source line of every
//! element and parse error (scraper alone keeps no positions).

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use scraper::{ElementRef, Html, HtmlTreeSink};

pub type NodeId = <HtmlTreeSink as TreeSink>::Handle;

/// A parsed document with enough position data to report findings by line.
pub struct Parsed {
    pub html: Html,
    lines: HashMap<NodeId, usize>,
    /// html5ever's parse errors with the line each was reported on.
    pub errors: Vec<(usize, String)>,
}

impl Parsed {
    /// The line an element's start tag ended on (html5ever reports a token's line at its end).
    pub fn line_of(&self, el: &ElementRef<'_>) -> Option<usize> {
        self.lines.get(&el.id()).copied()
    }

    /// The line of an element or comment node.
    pub fn line_of_id(&self, id: NodeId) -> Option<usize> {
        self.lines.get(&id).copied()
    }
}

/// Parses a whole document (never fails: html5ever recovers from everything). `srcdoc`
/// documents follow the iframe-srcdoc parsing rules (no doctype needed).
pub fn parse(source: &str, srcdoc: bool) -> Parsed {
    let sink = LineSink {
        inner: HtmlTreeSink::new(Html::new_document()),
        line: Cell::new(1),
        lines: RefCell::new(HashMap::new()),
        errors: RefCell::new(Vec::new()),
    };
    let mut opts = html5ever::ParseOpts::default();
    opts.tree_builder.iframe_srcdoc = srcdoc;
    html5ever::parse_document(sink, opts).one(source)
}

/// Wraps scraper's sink to remember where each element came from; html5ever tells the sink the
/// current line before each token, which is the only position information it exposes.
struct LineSink {
    inner: HtmlTreeSink,
    line: Cell<u64>,
    lines: RefCell<HashMap<NodeId, usize>>,
    errors: RefCell<Vec<(usize, String)>>,
}

impl LineSink {
    fn current(&self) -> usize {
        usize::try_from(self.line.get()).unwrap_or(usize::MAX)
    }
}

impl TreeSink for LineSink {
    type Output = Parsed;
    type Handle = NodeId;
    type ElemName<'a>
        = Ref<'a, QualName>
    where
        Self: 'a;

    fn finish(self) -> Parsed {
        Parsed {
            html: self.inner.finish(),
            lines: self.lines.into_inner(),
            errors: self.errors.into_inner(),
        }
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        let line = self.current();
        self.errors.borrow_mut().push((line, msg.into_owned()));
    }

    fn set_current_line(&self, line_number: u64) {
        self.line.set(line_number);
    }

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let id = self.inner.create_element(name, attrs, flags);
        let line = self.current();
        self.lines.borrow_mut().insert(id, line);
        id
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        let id = self.inner.create_comment(text);
        let line = self.current();
        self.lines.borrow_mut().insert(id, line);
        id
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.inner.append(parent, child)
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        self.inner
            .append_based_on_parent_node(element, prev_element, child)
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id)
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode)
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.inner.append_before_sibling(sibling, new_node)
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs)
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.inner.remove_from_parent(target)
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.inner.reparent_children(node, new_parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_carry_their_source_line() {
        let src = "<!doctype html>\n<html>\n<body>\n<p>a</p>\n\n<script>\nx\n</script>\n<div\n id=x>b</div>";
        let parsed = parse(src, false);
        let find = |name: &str| {
            parsed
                .html
                .root_element()
                .descendent_elements()
                .find(|e| e.value().name() == name)
                .and_then(|e| parsed.line_of(&e))
        };
        assert_eq!(find("p"), Some(4));
        assert_eq!(find("script"), Some(6));
        assert_eq!(find("div"), Some(10));
    }

    #[test]
    fn parse_errors_have_lines() {
        let parsed = parse("<!doctype html>\n<p>\n</div>", false);
        assert!(
            parsed.errors.iter().any(|(line, _)| *line == 3),
            "{:?}",
            parsed.errors
        );
    }
}
