//! DOM rules: walks one parsed document (and, recursively, iframe `srcdoc` documents) and applies
//! the element, attribute, resource, accessibility and document-level rules, handing scripts to
//! `script` and text to `injection`.

use std::collections::HashSet;

use scraper::{ElementRef, Node};

use super::contrast;
use super::finding::{Finding, Severity, clip};
use super::injection;
use super::options::{Options, RUNTIME_ATTR};
use super::origin;
use super::parse::{self, Parsed};
use super::script::{self, Facts, ScriptCtx, ScriptKind};
use crate::origins::{self, Origins, Target};

/// How deep `srcdoc` documents are followed; deeper nesting is itself an error.
const MAX_SRCDOC_DEPTH: usize = 3;
/// Estimated element nesting beyond which a document is refused unparsed (see
/// `parse::estimated_depth`).
pub(super) const MAX_ELEMENT_DEPTH: usize = 1024;
/// Individual html5ever parse errors reported before they are summarised.
const MAX_PARSE_ERRORS: usize = 10;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Where a document sits: the top-level file or an iframe `srcdoc` inside it.
pub struct DocCtx<'a> {
    pub opts: &'a Options,
    /// `opts.allowed_origins`, parsed once.
    pub origins: &'a Origins,
    pub depth: usize,
    /// Added to the document's own line numbers (0 for the file itself).
    pub line_base: usize,
    /// Prepended to every message ("" for the file itself).
    pub prefix: String,
}

impl DocCtx<'_> {
    fn nested(&self) -> bool {
        self.depth > 0
    }

    fn line(&self, line: Option<usize>) -> Option<usize> {
        line.map(|l| l.saturating_add(self.line_base))
    }

    fn push(
        &self,
        out: &mut Vec<Finding>,
        severity: Severity,
        rule: &'static str,
        line: Option<usize>,
        msg: impl AsRef<str>,
    ) {
        out.push(Finding {
            severity,
            rule,
            message: format!("{}{}", self.prefix, msg.as_ref()),
            line: self.line(line),
        });
    }
}

/// What a URL-bearing attribute loads, for the "remote origin" rules.
#[derive(Clone, Copy)]
enum Load {
    Script,
    Stylesheet,
    Font,
    Image,
    Media,
    Frame,
    Other,
}

impl Load {
    fn rule(self) -> &'static str {
        match self {
            Load::Script => "external-script",
            Load::Stylesheet => "external-stylesheet",
            Load::Font => "external-font",
            Load::Image => "external-image",
            Load::Media => "external-media",
            Load::Frame => "external-frame",
            Load::Other => "external-resource",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Load::Script => "script",
            Load::Stylesheet => "stylesheet",
            Load::Font => "font",
            Load::Image => "image",
            Load::Media => "media",
            Load::Frame => "frame",
            Load::Other => "resource",
        }
    }

    fn csp_key(self) -> &'static str {
        match self {
            Load::Frame => "frame domains",
            _ => "resource domains",
        }
    }
}

/// Attributes whose value is a URL the browser may navigate to or run.
const URL_ATTRS: [&str; 18] = [
    "href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "cite",
    "longdesc",
    "lowsrc",
    "dynsrc",
    "manifest",
    "ping",
    "codebase",
    "archive",
    "icon",
    "profile",
    "usemap",
];

/// Checks one document and everything nested in it.
pub fn check_document(source: &str, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    let depth = parse::estimated_depth(source);
    if depth > MAX_ELEMENT_DEPTH {
        ctx.push(
            out,
            Severity::Error,
            "html-too-deep",
            None,
            format!(
                "elements nest about {depth} levels deep (limit {MAX_ELEMENT_DEPTH}; browsers \
                 flatten past 512); close your tags"
            ),
        );
        return;
    }
    let parsed = parse::parse(source, ctx.nested());
    parse_errors(&parsed, ctx, out);
    let seen = element_rules(&parsed, ctx, out);
    for control in &seen.controls {
        control_rules(&parsed, control, &seen.label_for, ctx, out);
    }
    if ctx.nested() {
        return;
    }
    page_rules(&parsed, &seen, ctx, out);
    let sheets: Vec<contrast::Sheet<'_>> = seen
        .sheets
        .iter()
        .map(|(css, line)| contrast::Sheet { css, line: *line })
        .collect();
    contrast::check(&parsed, &sheets, ctx.opts.llm_output, out);
    injection::check(source, &parsed, ctx.opts.llm_output, out);
}

/// What the walk over a document's elements found, for the rules about the whole page.
#[derive(Default)]
struct Seen<'a> {
    facts: Facts,
    /// Names declared and called across the scripts (module-only names called from classic code).
    flow: super::script_flow::Flow,
    label_for: HashSet<String>,
    controls: Vec<ElementRef<'a>>,
    has_charset: bool,
    has_viewport: bool,
    has_title: bool,
    content_elements: usize,
    /// The page's own style sheets, with their lines.
    sheets: Vec<(String, Option<usize>)>,
}

/// The rules about single elements (attributes, scripts, styles, images), in one walk that also
/// notes what the page-wide rules need.
fn element_rules<'a>(parsed: &'a Parsed, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) -> Seen<'a> {
    let mut seen = Seen::default();
    for node in parsed.html.tree.root().descendants() {
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        let e = el.value();
        let name = e.name();
        let is_html = &*e.name.ns == HTML_NS;
        let line = parsed.line_of(&el);
        if !matches!(name, "html" | "head" | "body") {
            seen.content_elements += 1;
        }

        attributes(parsed, &el, ctx, out);

        match name {
            "script" => {
                // What the llm generator injects does not make the page's own handshake.
                if e.attr(RUNTIME_ATTR).is_some() {
                    let mut flow = super::script_flow::Flow::default();
                    scripts(&el, line, ctx, (&mut Facts::default(), &mut flow), out);
                } else {
                    scripts(&el, line, ctx, (&mut seen.facts, &mut seen.flow), out);
                }
            }
            "style" => {
                let css: String = el.text().collect();
                css_loads(&css, line, ctx, out);
                // The styles injected with the llm runtime are not the page's own.
                if e.attr(RUNTIME_ATTR).is_none() {
                    seen.sheets.push((css, line));
                }
            }
            "label" => {
                if let Some(f) = e.attr("for") {
                    seen.label_for.insert(f.to_string());
                }
            }
            "input" | "select" | "textarea" if is_html => seen.controls.push(el),
            "img" if is_html && e.attr("alt").is_none() => ctx.push(
                out,
                Severity::Warning,
                "img-alt",
                line,
                "<img> without alt: add alt text (alt=\"\" for decoration)",
            ),
            "meta" => {
                if e.attr("charset").is_some()
                    || e.attr("http-equiv")
                        .is_some_and(|h| h.eq_ignore_ascii_case("content-type"))
                {
                    seen.has_charset = true;
                }
                if e.attr("name")
                    .is_some_and(|n| n.trim().eq_ignore_ascii_case("viewport"))
                {
                    seen.has_viewport = true;
                }
            }
            "title" if is_html && !el.text().collect::<String>().trim().is_empty() => {
                seen.has_title = true;
            }
            _ => {}
        }
    }
    seen
}

/// The rules about a whole (top-level) page: an HTML document at all, the head's meta, lang,
/// the handshake and a result handler.
fn page_rules(parsed: &Parsed, seen: &Seen<'_>, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    let root = parsed.html.root_element();
    let has_doctype = parsed
        .html
        .tree
        .root()
        .children()
        .any(|n| matches!(n.value(), Node::Doctype(_)));
    if seen.content_elements == 0 && !has_doctype {
        ctx.push(
            out,
            Severity::Error,
            "unrecoverable-html",
            None,
            "the file contains no HTML elements at all; emit a complete HTML document",
        );
    }
    if !seen.has_charset {
        ctx.push(
            out,
            Severity::Warning,
            "missing-charset",
            None,
            "no <meta charset=\"utf-8\">: add it as the first element of <head>",
        );
    }
    if !seen.has_viewport {
        ctx.push(
            out,
            Severity::Warning,
            "missing-viewport",
            None,
            "no <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">: add it",
        );
    }
    if !seen.has_title {
        ctx.push(
            out,
            Severity::Warning,
            "missing-title",
            None,
            "no non-empty <title>: add one naming the tool",
        );
    }
    if root
        .value()
        .attr("lang")
        .is_none_or(|l| l.trim().is_empty())
    {
        ctx.push(
            out,
            Severity::Warning,
            "missing-lang",
            parsed.line_of(&root),
            "<html> has no lang attribute: add lang=\"en\" (or the UI's language)",
        );
    }
    super::script_flow::finish(&seen.flow, &ctx.prefix, out);
    if !seen.facts.handshake {
        ctx.push(
            out,
            Severity::Error,
            "missing-handshake",
            None,
            "no MCP Apps handshake: no script sends \"ui/initialize\" or creates the runtime's \
             App and connects it; include the inline runtime and call app.connect()",
        );
    }
    if !seen.facts.result_handler {
        ctx.push(
            out,
            Severity::Error,
            "missing-result-handler",
            None,
            "no tool-result handler: set app.ontoolresult (or addEventListener(\"toolresult\", …), \
             or handle \"ui/notifications/tool-result\") so the UI shows the tool's result",
        );
    }
}

fn parse_errors(parsed: &Parsed, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    for (line, msg) in parsed.errors.iter().take(MAX_PARSE_ERRORS) {
        ctx.push(
            out,
            Severity::Warning,
            "html-parse-error",
            Some(*line),
            format!("HTML parse error: {msg}; fix the markup (browsers recover differently)"),
        );
    }
    let more = parsed.errors.len().saturating_sub(MAX_PARSE_ERRORS);
    if more > 0 {
        ctx.push(
            out,
            Severity::Warning,
            "html-parse-error",
            parsed.errors.get(MAX_PARSE_ERRORS).map(|(l, _)| *l),
            format!("{more} more HTML parse errors not shown"),
        );
    }
}

/// Attribute rules on one element: event handlers, script URLs, remote loads, inline styles,
/// nested `srcdoc` documents.
fn attributes(parsed: &Parsed, el: &ElementRef<'_>, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    let e = el.value();
    let name = e.name();
    let line = parsed.line_of(el);
    for (attr, value) in e.attrs() {
        let attr_lc = attr.to_ascii_lowercase();
        if attr_lc.len() > 2 && attr_lc.starts_with("on") {
            ctx.push(
                out,
                Severity::Error,
                "inline-event-handler",
                line,
                format!(
                    "<{name} {attr_lc}=…>: inline event handler attributes are forbidden (script \
                     hidden in markup, an XSS vector); attach the handler with addEventListener \
                     in a script"
                ),
            );
        }
        if script_url_in(name, &attr_lc, value, e.attr("http-equiv")) {
            ctx.push(
                out,
                Severity::Error,
                "javascript-url",
                line,
                format!(
                    "<{name} {attr_lc}=\"javascript:…\">: javascript: URLs are forbidden; use a \
                     button with an event listener"
                ),
            );
        }
        if attr_lc == "style" {
            css_loads(value, line, ctx, out);
        }
    }
    resource_loads(parsed, el, ctx, out);
    if let Some(doc) = e
        .attr("srcdoc")
        .filter(|_| name == "iframe" || name == "frame")
    {
        srcdoc(doc, line, ctx, out);
    }
}

/// Is this attribute a URL that runs script (including in `srcset`, SVG animation values and
/// `<meta http-equiv=refresh>`)?
fn script_url_in(el: &str, attr: &str, value: &str, http_equiv: Option<&str>) -> bool {
    if URL_ATTRS.contains(&attr) {
        return origins::is_script_url(value);
    }
    match attr {
        "srcset" | "imagesrcset" => srcset_urls(value).any(origins::is_script_url),
        "to" | "from" | "values" if matches!(el, "set" | "animate") => {
            value.split(';').any(origins::is_script_url)
        }
        "content" if http_equiv.is_some_and(|h| h.eq_ignore_ascii_case("refresh")) => {
            let lower = value.to_ascii_lowercase();
            lower
                .find("url")
                .and_then(|i| value.get(i + 3..))
                .map(|rest| {
                    rest.trim_start()
                        .trim_start_matches('=')
                        .trim_matches(['\'', '"', ' '])
                })
                .is_some_and(origins::is_script_url)
        }
        _ => false,
    }
}

/// A `data:` URL holding a document that can run script (HTML, XHTML or SVG).
fn is_document_data_url(url: &str) -> bool {
    let url = origins::normalize(url).to_ascii_lowercase();
    url.strip_prefix("data:").is_some_and(|rest| {
        let mime = rest.split([',', ';']).next().unwrap_or("").trim();
        matches!(
            mime,
            "text/html"
                | "application/xhtml+xml"
                | "image/svg+xml"
                | "text/xml"
                | "application/xml"
        )
    })
}

/// The URLs of a `srcset` (HTML's candidate parsing: a URL is a run of non-space characters,
/// so the commas inside `data:` URLs do not split it).
pub(super) fn srcset_urls(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = value;
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (url, after) = rest.split_at(end);
        if url.ends_with(',') {
            rest = after;
            return Some(url.trim_end_matches(','));
        }
        // Skip descriptors up to the next comma outside parentheses.
        let mut depth = 0usize;
        let mut cut = after.len();
        for (i, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    cut = i;
                    break;
                }
                _ => {}
            }
        }
        rest = after.get(cut..).unwrap_or("");
        Some(url)
    })
}

/// The URLs an element fetches, by kind.
fn resource_loads(parsed: &Parsed, el: &ElementRef<'_>, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    let e = el.value();
    let name = e.name();
    let line = parsed.line_of(el);
    let mut data_docs: Vec<&str> = Vec::new();
    let mut check = |load: Load, attr: &str, url: &str| {
        url_load(load, name, attr, url, line, ctx, out);
    };
    let attr = |a: &str| e.attr(a);
    match name {
        "script" => {
            for a in ["src", "href"] {
                if let Some(u) = attr(a) {
                    check(Load::Script, a, u);
                }
            }
        }
        "link" => {
            let rel = attr("rel").unwrap_or("").to_ascii_lowercase();
            let load = rel.split_whitespace().find_map(|r| match r {
                "stylesheet" => Some(Load::Stylesheet),
                "icon" | "apple-touch-icon" => Some(Load::Image),
                "preload" | "modulepreload" | "prefetch" | "manifest" | "import" => {
                    Some(Load::Other)
                }
                _ => None,
            });
            if let (Some(load), Some(u)) = (load, attr("href")) {
                check(load, "href", u);
            }
            if let (Some(load), Some(u)) = (load, attr("imagesrcset")) {
                for u in srcset_urls(u) {
                    check(load, "imagesrcset", u);
                }
            }
        }
        "img" | "source" | "input" | "image" | "feImage" | "video" | "audio" | "track"
        | "embed" | "object" | "iframe" | "frame" | "base" | "use" => {
            let load = match name {
                "img" | "image" | "feImage" => Load::Image,
                "input" if !attr("type").is_some_and(|t| t.eq_ignore_ascii_case("image")) => {
                    return;
                }
                "input" => Load::Image,
                "video" | "audio" | "track" | "source" => Load::Media,
                "iframe" | "frame" => Load::Frame,
                _ => Load::Other,
            };
            for a in ["src", "href", "data", "poster"] {
                if let Some(u) = attr(a) {
                    check(if a == "poster" { Load::Image } else { load }, a, u);
                    if matches!(name, "iframe" | "frame" | "object" | "embed")
                        && is_document_data_url(u)
                    {
                        data_docs.push(a);
                    }
                }
            }
            if let Some(set) = attr("srcset") {
                for u in srcset_urls(set) {
                    check(load, "srcset", u);
                }
            }
        }
        _ => {}
    }
    for a in data_docs {
        ctx.push(
            out,
            Severity::Error,
            "data-url-document",
            line,
            format!(
                "<{name} {a}=\"data:…\"> embeds an HTML/SVG document the validator cannot \
                 check; put the markup in srcdoc instead"
            ),
        );
    }
}

fn url_load(
    load: Load,
    el: &str,
    attr: &str,
    url: &str,
    line: Option<usize>,
    ctx: &DocCtx<'_>,
    out: &mut Vec<Finding>,
) {
    match origins::classify(url) {
        // Reported by the javascript-url rule already.
        Target::Inline | Target::Script => {}
        Target::Relative => ctx.push(
            out,
            Severity::Warning,
            "relative-url",
            line,
            format!(
                "<{el} {attr}=\"{}\"> is a relative URL, which resolves to nothing in a \
                 sandboxed host frame; inline the {} (e.g. as a data: URI)",
                clip(url),
                load.noun()
            ),
        ),
        Target::Remote(o) => {
            if !ctx.origins.allows(&o) {
                let o = clip(&o);
                ctx.push(
                    out,
                    Severity::Error,
                    load.rule(),
                    line,
                    format!(
                        "<{el} {attr}=\"{}\"> loads a {} from {o}, an origin not declared in the \
                         tool's CSP config (the host blocks it); inline it, or add {o} to \
                         [tools.NAME] csp {}",
                        clip(url),
                        load.noun(),
                        load.csp_key()
                    ),
                );
            }
        }
    }
}

/// CSS in a `<style>` element or `style` attribute: `@import`s, fonts and other `url()`s.
fn css_loads(css: &str, line: Option<usize>, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    if !css.contains(['@', '(', '\\']) {
        return;
    }
    let refs = origin::css_refs(css);
    let at = |off: usize| line.map(|l| l.saturating_add(off));
    for (off, url) in &refs.imports {
        url_load(
            Load::Stylesheet,
            "style",
            "@import",
            url,
            at(*off),
            ctx,
            out,
        );
    }
    for (off, url) in &refs.fonts {
        url_load(
            Load::Font,
            "style",
            "@font-face url",
            url,
            at(*off),
            ctx,
            out,
        );
    }
    for (off, url) in &refs.other {
        url_load(Load::Image, "style", "url", url, at(*off), ctx, out);
    }
    for (off, url) in refs.imports.iter().chain(&refs.fonts).chain(&refs.other) {
        if origins::is_script_url(url) {
            ctx.push(
                out,
                Severity::Error,
                "javascript-url",
                at(*off),
                "javascript: URL in CSS: remove it",
            );
        }
    }
}

fn scripts(
    el: &ElementRef<'_>,
    line: Option<usize>,
    ctx: &DocCtx<'_>,
    (facts, flow): (&mut Facts, &mut super::script_flow::Flow),
    out: &mut Vec<Finding>,
) {
    let e = el.value();
    if e.attr("src").is_some() || e.attr("href").is_some() {
        // The browser ignores inline text when src is set; the load is checked with resources.
        return;
    }
    let kind = script::script_kind(e.attr("type"));
    if kind == ScriptKind::Inert {
        return;
    }
    let text: String = el.text().collect();
    let sctx = ScriptCtx {
        line: line.unwrap_or(1).saturating_add(ctx.line_base),
        origins: ctx.origins,
        prefix: &ctx.prefix,
    };
    let module = kind == ScriptKind::Module;
    match kind {
        ScriptKind::Json => script::check_json(&text, &sctx, out),
        ScriptKind::Classic | ScriptKind::Module => {
            let llm = ctx.opts.llm_output;
            script::check_js(&text, module, &sctx, facts, out, |program, out| {
                super::script_flow::scan(&text, program, module, &sctx, llm, flow, out);
            });
        }
        ScriptKind::Inert => {}
    }
}

fn srcdoc(doc: &str, line: Option<usize>, ctx: &DocCtx<'_>, out: &mut Vec<Finding>) {
    if ctx.depth >= MAX_SRCDOC_DEPTH {
        ctx.push(
            out,
            Severity::Error,
            "srcdoc-too-deep",
            line,
            format!(
                "iframe srcdoc nested more than {MAX_SRCDOC_DEPTH} levels deep cannot be \
                 validated; flatten it"
            ),
        );
        return;
    }
    let nested = DocCtx {
        opts: ctx.opts,
        origins: ctx.origins,
        depth: ctx.depth + 1,
        line_base: ctx.line(line).unwrap_or(1).saturating_sub(1),
        prefix: format!("{}in iframe srcdoc: ", ctx.prefix),
    };
    check_document(doc, &nested, out);
}

/// Labels and the closed-`<details>` trap for one form control.
fn control_rules(
    parsed: &Parsed,
    control: &ElementRef<'_>,
    label_for: &HashSet<String>,
    ctx: &DocCtx<'_>,
    out: &mut Vec<Finding>,
) {
    let e = control.value();
    let name = e.name();
    let line = parsed.line_of(control);
    let ty = e.attr("type").unwrap_or("").trim().to_ascii_lowercase();
    let labelled_by_attr = ["aria-label", "aria-labelledby", "title"]
        .iter()
        .any(|a| e.attr(a).is_some_and(|v| !v.trim().is_empty()));
    let labelled = labelled_by_attr
        || e.id().is_some_and(|id| label_for.contains(id))
        || control
            .ancestors()
            .filter_map(ElementRef::wrap)
            .any(|a| a.value().name() == "label");
    let exempt = name == "input"
        && matches!(
            ty.as_str(),
            "hidden" | "submit" | "button" | "reset" | "image"
        );
    if !labelled && !exempt {
        ctx.push(
            out,
            Severity::Warning,
            "unlabelled-control",
            line,
            format!(
                "<{name}{}> has no accessible label: wrap it in <label>, or add <label for=id>, \
                 aria-label or aria-labelledby",
                e.id()
                    .map(|id| format!(" id=\"{}\"", clip(id)))
                    .unwrap_or_default()
            ),
        );
    }
    if e.attr("required").is_none() || ty == "hidden" {
        return;
    }
    let mut prev_was_summary = false;
    let mut ancestors = control.ancestors().filter_map(ElementRef::wrap);
    while let Some(a) = ancestors.next() {
        let an = a.value();
        match an.name() {
            "form" => return,
            "details" if an.attr("open").is_none() && !prev_was_summary => {
                let in_form =
                    e.attr("form").is_some() || ancestors.any(|up| up.value().name() == "form");
                if in_form {
                    ctx.push(
                        out,
                        Severity::Error,
                        "required-in-closed-details",
                        line,
                        format!(
                            "required <{name}> inside a closed <details>: the browser refuses to \
                             submit the form (\"invalid form control is not focusable\"); open \
                             the <details> or drop required"
                        ),
                    );
                }
                return;
            }
            _ => {}
        }
        prev_was_summary = an.name() == "summary";
    }
}
