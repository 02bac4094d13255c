//! Script rules for what otherwise only a browser sees: a classic script (or an inline handler
//! moved into one) calling a function declared inside a module script, where it is not global;
//! a script pointing an image at an origin the tool's CSP does not declare; and `JSON.parse` of
//! a result's text without a `try`, which throws on plain text.

use std::collections::HashSet;

use oxc_ast::ast::{
    Argument, AssignmentExpression, AssignmentTarget, BindingIdentifier, CallExpression,
    Declaration, Expression, Program, Statement, TryStatement,
};
use oxc_ast_visit::{Visit, walk};
use oxc_span::GetSpan;

use super::finding::{Finding, clip};
use super::js_expr::{GLOBAL_NAMES, head_origin, url_head};
use super::script::ScriptCtx;

/// Names the page's scripts declare and call, gathered across all of them.
#[derive(Debug, Default)]
pub struct Flow {
    /// Top-level declarations of module scripts (not global).
    module_names: HashSet<String>,
    /// Top-level declarations of classic scripts, and `window.NAME = …` anywhere (global).
    global_names: HashSet<String>,
    /// Functions classic scripts call by a name they do not bind themselves, with the line.
    classic_calls: Vec<(String, usize)>,
}

/// Properties whose value a browser loads as an image or media.
const LOADING_PROPS: [&str; 5] = ["src", "srcset", "poster", "backgroundImage", "background"];

/// Scans one inline script; `llm` adds the rules only pages a model wrote need.
/// `program` is `text` parsed (cleanly: a script with a syntax error is not scanned).
pub fn scan(
    text: &str,
    program: &Program<'_>,
    module: bool,
    ctx: &ScriptCtx<'_>,
    llm: bool,
    flow: &mut Flow,
    out: &mut Vec<Finding>,
) {
    for s in &program.body {
        for name in top_level_names(s) {
            if module {
                flow.module_names.insert(name);
            } else {
                flow.global_names.insert(name);
            }
        }
    }
    let mut v = Scanner {
        text,
        newlines: text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i)
            .collect(),
        ctx,
        llm,
        tries: 0,
        bound: HashSet::new(),
        calls: Vec::new(),
        globals: Vec::new(),
        found: Vec::new(),
    };
    v.visit_program(program);
    flow.global_names.extend(v.globals);
    if !module {
        let bound = v.bound;
        flow.classic_calls
            .extend(v.calls.into_iter().filter(|(n, _)| !bound.contains(n)));
    }
    out.extend(v.found);
}

impl Flow {
    /// Names classic scripts call that only a module script declares.
    pub fn module_only_calls(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (name, _) in &self.classic_calls {
            if self.module_names.contains(name)
                && !self.global_names.contains(name)
                && !out.contains(name)
            {
                out.push(name.clone());
            }
        }
        out
    }
}

/// What the whole page's scripts say together: calls of module-only names.
pub fn finish(flow: &Flow, prefix: &str, out: &mut Vec<Finding>) {
    let wanted = flow.module_only_calls();
    let mut seen = HashSet::new();
    for (name, line) in &flow.classic_calls {
        if wanted.contains(name) && seen.insert(name) {
            out.push(Finding::error(
                "module-scoped-call",
                Some(*line),
                format!(
                    "{prefix}`{n}()` is called from a classic script or an inline handler, but `{n}` \
                     is declared inside a module script, where declarations are not global: the \
                     call throws a ReferenceError; attach the listener with addEventListener \
                     inside the module, or assign window.{n} = {n} there",
                    n = clip(name)
                ),
            ));
        }
    }
}

pub(super) fn top_level_names(s: &Statement<'_>) -> Vec<String> {
    match s.as_declaration() {
        Some(Declaration::FunctionDeclaration(f)) => {
            f.id.iter().map(|i| i.name.to_string()).collect()
        }
        Some(Declaration::ClassDeclaration(c)) => c.id.iter().map(|i| i.name.to_string()).collect(),
        Some(Declaration::VariableDeclaration(v)) => v
            .declarations
            .iter()
            .filter_map(|d| d.id.get_binding_identifier().map(|i| i.name.to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

struct Scanner<'s> {
    text: &'s str,
    /// Byte offsets of the text's newlines, so that a line number costs a binary search: a
    /// script has thousands of calls, and counting from the start for each was quadratic.
    newlines: Vec<usize>,
    ctx: &'s ScriptCtx<'s>,
    llm: bool,
    tries: usize,
    bound: HashSet<String>,
    calls: Vec<(String, usize)>,
    globals: Vec<String>,
    found: Vec<Finding>,
}

impl Scanner<'_> {
    fn line(&self, offset: u32) -> usize {
        let end = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.text.len());
        // The newlines before `end`.
        let nl = self.newlines.partition_point(|&i| i < end);
        self.ctx.line.saturating_add(nl)
    }

    /// A URL a script makes the browser load: an error when its origin is not declared.
    fn remote_load(&mut self, what: &str, value: &Expression<'_>, offset: u32) {
        let (Some(head), _) = url_head(value) else {
            return;
        };
        let head = head
            .trim_start_matches("url(")
            .trim_start_matches(['"', '\'']);
        let Some(origin) = head_origin(head) else {
            return;
        };
        if self.ctx.origins.allows(origin) {
            return;
        }
        let line = self.line(offset);
        self.found.push(Finding::error(
            "remote-image-in-script",
            Some(line),
            format!(
                "{}a script sets {what} to {} (from {}), an origin the tool's CSP does not \
                 declare: the host blocks the load (a CSP violation, a broken image); use a \
                 data: URL or an inline SVG, drop it, or declare the origin in [tools.NAME] csp \
                 resource domains",
                self.ctx.prefix,
                clip(head),
                clip(origin)
            ),
        ));
    }
}

impl<'a> Visit<'a> for Scanner<'_> {
    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        self.bound.insert(it.name.to_string());
    }

    fn visit_try_statement(&mut self, it: &TryStatement<'a>) {
        self.tries += 1;
        self.visit_block_statement(&it.block);
        self.tries -= 1;
        if let Some(h) = &it.handler {
            self.visit_catch_clause(h);
        }
        if let Some(f) = &it.finalizer {
            self.visit_block_statement(f);
        }
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let AssignmentTarget::StaticMemberExpression(m) = &it.left {
            let prop = m.property.name.as_str();
            if GLOBAL_NAMES.iter().any(|g| m.object.is_specific_id(g)) {
                self.globals.push(prop.to_string());
            }
            if LOADING_PROPS.contains(&prop) {
                self.remote_load(&format!(".{prop}"), &it.right, it.span.start);
            }
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(id) = it.callee.without_parentheses() {
            let line = self.line(it.span.start);
            self.calls.push((id.name.to_string(), line));
        }
        if let Some(m) = it.callee.get_member_expr() {
            let name = m.static_property_name();
            let args: Vec<&Expression<'_>> = it
                .arguments
                .iter()
                .filter_map(Argument::as_expression)
                .collect();
            if name == Some("setAttribute")
                && let [attr, value, ..] = args.as_slice()
                && let Expression::StringLiteral(a) = attr.without_parentheses()
                && ["src", "srcset", "poster"].contains(&a.value.as_str())
            {
                self.remote_load(&format!("the {} attribute", a.value), value, it.span.start);
            }
            if self.llm
                && self.tries == 0
                && name == Some("parse")
                && m.object().is_specific_id("JSON")
                && let Some(arg) = args.first()
            {
                let span = arg.span();
                let src = self
                    .text
                    .get(span.start as usize..span.end as usize)
                    .unwrap_or("");
                if src.contains("text") || src.contains("content") {
                    let line = self.line(it.span.start);
                    self.found.push(Finding::error(
                        "unguarded-json-parse",
                        Some(line),
                        format!(
                            "{}JSON.parse({}) of a result's text without try/catch: a tool's text \
                             content is often plain text (\"3 issues\"), and the parse throws; \
                             read result.structuredContent, or parse inside try/catch and show \
                             the text as it is",
                            self.ctx.prefix,
                            clip(src)
                        ),
                    ));
                }
            }
        }
        walk::walk_call_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use crate::validate::{Options, validate};

    fn rules(html: &str) -> Vec<&'static str> {
        let opts = Options {
            allowed_origins: vec!["https://cdn.ok.example".into()],
            llm_output: true,
        };
        validate(html, &opts).into_iter().map(|f| f.rule).collect()
    }

    fn page(body: &str) -> String {
        format!(
            "<!doctype html><html lang=en><head><title>t</title></head><body>{body}</body></html>"
        )
    }

    #[test]
    fn a_classic_call_of_a_module_function_is_an_error() {
        let bad = page(
            "<script type=module>function convert() {} const go = () => 1;</script>\
             <script>document.body.addEventListener('click', function () { convert(); go(); });</script>",
        );
        assert_eq!(
            rules(&bad)
                .iter()
                .filter(|r| **r == "module-scoped-call")
                .count(),
            2
        );
        // Exposed on window, or declared in a classic script: fine.
        let exposed = page(
            "<script type=module>function convert() {} window.convert = convert;</script>\
             <script>document.body.onclick = function () { convert(); };</script>",
        );
        assert!(!rules(&exposed).contains(&"module-scoped-call"));
        let classic = page(
            "<script>function convert() {}</script><script>document.body.onclick = function () { convert(); };</script>",
        );
        assert!(!rules(&classic).contains(&"module-scoped-call"));
        // A classic script's own local function of the same name is not the module's.
        let local = page(
            "<script type=module>function convert() {}</script>\
             <script>(function () { function convert() {} convert(); })();</script>",
        );
        assert!(!rules(&local).contains(&"module-scoped-call"));
    }

    #[test]
    fn remote_images_set_by_scripts_are_errors_unless_declared() {
        let bad = page(
            "<script>var i = new Image(); i.src = 'https://via.placeholder.com/64?text=' + n;\
             el.setAttribute('src', `https://picsum.photos/200`);\
             el.style.backgroundImage = 'url(https://images.example.com/a.png)';</script>",
        );
        assert_eq!(
            rules(&bad)
                .iter()
                .filter(|r| **r == "remote-image-in-script")
                .count(),
            3
        );
        let fine = page(
            "<script>var i = new Image(); i.src = 'https://cdn.ok.example/a.png'; i.src = 'data:image/png;base64,AA==';\
             a.href = 'https://example.com/';</script>",
        );
        assert!(!rules(&fine).contains(&"remote-image-in-script"));
    }

    #[test]
    fn json_parse_of_result_text_needs_a_guard() {
        let bad = page("<script>function f(r) { return JSON.parse(r.content[0].text); }</script>");
        assert!(rules(&bad).contains(&"unguarded-json-parse"));
        let guarded = page(
            "<script>function f(r) { try { return JSON.parse(r.content[0].text); } catch (e) { return null; } }</script>",
        );
        assert!(!rules(&guarded).contains(&"unguarded-json-parse"));
        // Not a result's text (stored settings): not this rule's business.
        let other = page("<script>var s = JSON.parse(localStorage.getItem('k') || '[]');</script>");
        assert!(!rules(&other).contains(&"unguarded-json-parse"));
        // The catch clause is not a guard.
        let in_catch =
            page("<script>try { x(); } catch (e) { JSON.parse(r.content[0].text); }</script>");
        assert!(rules(&in_catch).contains(&"unguarded-json-parse"));
    }

    #[test]
    fn bare_module_specifiers_nothing_rewrites_are_errors() {
        let bad =
            page("<script type=module>import { marked } from 'marked'; marked.parse('');</script>");
        assert!(
            rules(&bad)
                .iter()
                .any(|r| r.contains("import") || r.contains("module")),
            "{:?}",
            rules(&bad)
        );
    }
}
