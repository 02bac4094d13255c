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

/// Elements that never hold children, close implicitly, or whose content is not markup: none of
/// them deepens the tree the way an unclosed `<div>` does.
const NO_DEPTH: [&str; 33] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen", "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th",
    "thead", "tbody", "tfoot", "rb", "rt", "rp", "colgroup", "caption", "html",
];
const RAW_TEXT: [&str; 10] = [
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "plaintext",
];

/// A linear estimate of the element nesting depth, taken before parsing: html5ever's tree
/// builder does scope checks that cost O(depth) per tag, so hostile nesting would make the parse
/// quadratic. Browsers cap the depth too (Chromium at 512).
pub fn estimated_depth(source: &str) -> usize {
    let bytes = source.as_bytes();
    let lower = |b: u8| b.to_ascii_lowercase();
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut i = 0usize;
    while let Some(rel) = bytes
        .get(i..)
        .and_then(|r| r.iter().position(|&b| b == b'<'))
    {
        i += rel + 1;
        if bytes.get(i..i + 3) == Some(b"!--") {
            i = find(bytes, i + 3, b"-->").map_or(bytes.len(), |e| e + 3);
            continue;
        }
        let closing = bytes.get(i) == Some(&b'/');
        let name_start = if closing { i + 1 } else { i };
        let name_len = bytes.get(name_start..).map_or(0, |r| {
            r.iter().take_while(|b| b.is_ascii_alphanumeric()).count()
        });
        if name_len == 0 || !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name: String = bytes
            .get(name_start..name_start + name_len)
            .unwrap_or(&[])
            .iter()
            .map(|&b| char::from(lower(b)))
            .collect();
        let tag_end = bytes
            .get(name_start..)
            .and_then(|r| r.iter().position(|&b| b == b'>'))
            .map_or(bytes.len(), |p| name_start + p);
        let self_closing = tag_end > 0 && bytes.get(tag_end - 1) == Some(&b'/');
        i = tag_end;
        if closing {
            if !NO_DEPTH.contains(&name.as_str()) {
                depth = depth.saturating_sub(1);
            }
            continue;
        }
        if RAW_TEXT.contains(&name.as_str()) {
            let close = format!("</{name}");
            i = find_ci(bytes, i, close.as_bytes()).unwrap_or(bytes.len());
            continue;
        }
        if !self_closing && !NO_DEPTH.contains(&name.as_str()) {
            depth += 1;
            max = max.max(depth);
        }
    }
    max
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn find_ci(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| p + from)
}

#[cfg(test)]
mod depth_tests {
    use super::estimated_depth;

    #[test]
    fn estimates_nesting() {
        assert_eq!(
            estimated_depth("<!doctype html><html><body><div><p>a<p>b</div>"),
            2
        );
        assert_eq!(estimated_depth(&"<div>".repeat(700)), 700);
        assert_eq!(estimated_depth(&"<div></div>".repeat(700)), 1);
        assert_eq!(
            estimated_depth("<script>'<div><div><div>'</script><br><img/>"),
            0
        );
        assert_eq!(estimated_depth("<!-- <div><div> --><svg><path/></svg>"), 1);
        assert_eq!(estimated_depth("a < b <3 </ x"), 0);
    }
}
