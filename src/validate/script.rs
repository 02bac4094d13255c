//! Script rules: classifies `<script>` blocks, parses JavaScript once with oxc and walks its
//! syntax tree for the MCP Apps handshake, result handlers, risky APIs and module specifiers;
//! checks JSON data blocks parse.

use std::collections::HashSet;

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    AssignmentExpression, AssignmentTarget, BinaryExpression, BinaryOperator, BindingIdentifier,
    CallExpression, ComputedMemberExpression, ConditionalExpression, ExportAllDeclaration,
    ExportFromDeclaration, Expression, IdentifierReference, IfStatement, ImportDeclaration,
    ImportExpression, NewExpression, ObjectExpression, ObjectProperty, ObjectPropertyKind, Program,
    StaticMemberExpression, StringLiteral, TemplateLiteral, TryStatement, UnaryExpression,
    UnaryOperator,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

use super::finding::{Finding, Severity, clip};
use super::js_expr::{
    GLOBAL_NAMES, STORAGE_NAMES, first_arg, frame_ref, head_origin, is_constant_string, is_global,
    mentions_storage, static_string, url_head,
};
use crate::origins::{self as origin, Origins, Target};

/// How the browser treats a `<script>` element, from its `type` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptKind {
    Classic,
    Module,
    /// JSON data (`application/json`, `application/ld+json`, `importmap`, `speculationrules`).
    Json,
    /// Any other type: the browser never runs it (templates and the like).
    Inert,
}

pub fn script_kind(type_attr: Option<&str>) -> ScriptKind {
    let Some(ty) = type_attr else {
        return ScriptKind::Classic;
    };
    let ty = ty.trim().to_ascii_lowercase();
    // MIME parameters (`; charset=utf-8`) make a JavaScript MIME type unknown to the HTML spec,
    // but JSON readers ignore them, so only strip them for the data types.
    let essence = ty.split(';').next().unwrap_or("").trim();
    match ty.as_str() {
        ""
        | "text/javascript"
        | "application/javascript"
        | "application/ecmascript"
        | "application/x-ecmascript"
        | "application/x-javascript"
        | "text/ecmascript"
        | "text/jscript"
        | "text/livescript"
        | "text/x-ecmascript"
        | "text/x-javascript"
        | "text/javascript1.0"
        | "text/javascript1.1"
        | "text/javascript1.2"
        | "text/javascript1.3"
        | "text/javascript1.4"
        | "text/javascript1.5" => ScriptKind::Classic,
        "module" => ScriptKind::Module,
        _ if matches!(
            essence,
            "application/json" | "application/ld+json" | "importmap" | "speculationrules"
        ) =>
        {
            ScriptKind::Json
        }
        _ => ScriptKind::Inert,
    }
}

/// What the scripts of one document do, gathered across all of them.
#[derive(Debug, Default)]
pub struct Facts {
    /// Something sends `ui/initialize` (or builds the reference SDK's `App`, whose `connect()` does).
    pub handshake: bool,
    /// Something handles tool results.
    pub result_handler: bool,
}

/// Where a script sits, so findings can name the HTML line and the declared origins.
pub struct ScriptCtx<'a> {
    /// HTML line of the script's first character.
    pub line: usize,
    pub origins: &'a Origins,
    /// Prepended to messages (e.g. "in iframe srcdoc: ").
    pub prefix: &'a str,
}

/// Counts bracket nesting without understanding strings; real code stays far below the limit,
/// and the parser and tree walk are recursive, so pathological nesting must not reach them.
fn nesting_depth(text: &str) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

const MAX_NESTING: usize = 1000;

fn line_at(text: &str, base_line: usize, offset: u32) -> usize {
    let offset = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(text.len());
    let newlines = text
        .as_bytes()
        .get(..offset)
        .map_or(0, |b| b.iter().filter(|&&c| c == b'\n').count());
    base_line.saturating_add(newlines)
}

/// Parses one inline script and applies every script rule to it.
/// `then` gets the parsed program when it parsed cleanly, so that other passes over the script
/// (script_flow's) need not parse it again.
pub fn check_js(
    text: &str,
    module: bool,
    ctx: &ScriptCtx<'_>,
    facts: &mut Facts,
    out: &mut Vec<Finding>,
    then: impl FnOnce(&Program<'_>, &mut Vec<Finding>),
) {
    let depth = nesting_depth(text);
    if depth > MAX_NESTING {
        out.push(Finding::error(
            "js-too-deep",
            Some(ctx.line),
            format!(
                "{}inline script nests brackets {depth} levels deep (limit {MAX_NESTING}); \
                 it cannot be analysed safely: restructure it",
                ctx.prefix
            ),
        ));
        return;
    }
    let allocator = Allocator::default();
    let source_type = if module {
        SourceType::mjs()
    } else {
        SourceType::script()
    };
    let ret = Parser::new(&allocator, text, source_type).parse();
    let kind = if module { "module" } else { "classic" };
    for diag in ret.diagnostics.iter().take(5) {
        let offset = diag.labels.iter().map(|l| l.offset()).min().unwrap_or(0);
        out.push(Finding::error(
            "js-syntax-error",
            Some(line_at(text, ctx.line, offset)),
            format!(
                "{}JavaScript syntax error in inline {kind} script: {}; fix the script \
                 (one syntax error stops the whole script from running)",
                ctx.prefix, diag.message
            ),
        ));
    }
    if ret.panicked {
        return;
    }
    let mut v = JsVisitor {
        text,
        module,
        ctx,
        facts,
        found: Vec::new(),
        bound: HashSet::new(),
        frame_uses: Vec::new(),
        global_uses: Vec::new(),
        guard: 0,
    };
    v.visit_program(&ret.program);
    let JsVisitor {
        found,
        bound,
        frame_uses,
        global_uses,
        ..
    } = v;
    out.extend(found);
    for (name, finding) in global_uses {
        // A page's own function called `confirm` or variable called `localStorage` is not the
        // browser's.
        if !bound.contains(name) {
            out.push(finding);
        }
    }
    for (name, finding) in frame_uses {
        // A local variable called `top`/`parent` is not the window's.
        if name.is_none_or(|n| !bound.contains(n)) {
            out.push(finding);
        }
    }
    if ret.diagnostics.is_empty() {
        then(&ret.program, out);
    }
}

/// A JSON data block must parse; the browser silently ignores it otherwise.
pub fn check_json(text: &str, ctx: &ScriptCtx<'_>, out: &mut Vec<Finding>) {
    if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let line = ctx.line.saturating_add(err.line().saturating_sub(1));
        out.push(Finding::error(
            "invalid-json",
            Some(line),
            format!(
                "{}JSON data block (<script type=\"application/json\">) does not parse: {err}; \
                 emit it with a JSON serializer",
                ctx.prefix
            ),
        ));
    }
}

struct JsVisitor<'t, 'c, 'f> {
    text: &'t str,
    module: bool,
    ctx: &'c ScriptCtx<'c>,
    facts: &'f mut Facts,
    found: Vec<Finding>,
    /// Names declared somewhere in the script (so `top` may be a local).
    bound: HashSet<&'static str>,
    /// Accesses through `parent`/`top`/`opener`; the name is set when it was a bare identifier.
    frame_uses: Vec<(Option<&'static str>, Finding)>,
    /// Uses of sandbox-blocked globals by bare name (dropped when the script declares the name).
    global_uses: Vec<(&'static str, Finding)>,
    /// > 0 inside a `try` block or a branch that tests for the storage API first.
    guard: usize,
}

/// Globals whose bare-name use a rule reports, unless the script declares the name itself.
const WATCHED_NAMES: [&str; 9] = [
    "parent",
    "top",
    "opener",
    "localStorage",
    "sessionStorage",
    "alert",
    "confirm",
    "prompt",
    "fetch",
];
const DIALOG_NAMES: [&str; 3] = ["alert", "confirm", "prompt"];

impl<'t, 'c, 'f> JsVisitor<'t, 'c, 'f> {
    fn line(&self, offset: u32) -> usize {
        line_at(self.text, self.ctx.line, offset)
    }

    fn push(&mut self, severity: Severity, rule: &'static str, offset: u32, msg: String) {
        let line = Some(self.line(offset));
        let message = format!("{}{msg}", self.ctx.prefix);
        self.found.push(Finding {
            severity,
            rule,
            message,
            line,
        });
    }

    fn note_string(&mut self, value: &str) {
        match value {
            "ui/initialize" => self.facts.handshake = true,
            "ui/notifications/tool-result" => self.facts.result_handler = true,
            _ => {}
        }
    }

    /// oxc leaves "import/export outside a module" to semantic analysis; the browser refuses it.
    fn module_syntax(&mut self, offset: u32) {
        if !self.module {
            self.push(
                Severity::Error,
                "js-syntax-error",
                offset,
                "JavaScript syntax error in inline classic script: import/export declarations \
                 only work in <script type=\"module\">; fix the script"
                    .to_string(),
            );
        }
    }

    fn check_specifier(&mut self, spec: &str, offset: u32) {
        let shown = clip(spec);
        match origin::classify(spec) {
            Target::Inline => {}
            Target::Script => self.push(
                Severity::Error,
                "javascript-url",
                offset,
                format!("module import of a javascript: URL (\"{shown}\"); remove it"),
            ),
            Target::Remote(o) => {
                if !self.ctx.origins.allows(&o) {
                    let o = clip(&o);
                    self.push(
                        Severity::Error,
                        "external-script",
                        offset,
                        format!(
                            "module import from {o} (\"{shown}\"), an origin not declared in the \
                             tool's CSP config; inline the code, or add {o} to \
                             [tools.NAME] csp resource domains"
                        ),
                    );
                }
            }
            Target::Relative => {
                let path_like =
                    spec.starts_with('/') || spec.starts_with("./") || spec.starts_with("../");
                if !path_like {
                    let msg = if spec.starts_with("@modelcontextprotocol/ext-apps") {
                        format!(
                            "bare module import \"{shown}\" fails in every real MCP host (no host \
                             provides an import map: \"Failed to resolve module specifier\"); \
                             remove the import and use the App class of the file's inline \
                             runtime, which has the same API"
                        )
                    } else {
                        format!(
                            "bare module specifier \"{shown}\" cannot resolve in an MCP host (no \
                             import map, no network); inline the code instead of importing it"
                        )
                    };
                    self.push(Severity::Error, "bare-module-import", offset, msg);
                } else {
                    self.push(
                        Severity::Warning,
                        "relative-url",
                        offset,
                        format!(
                            "module import \"{shown}\" is relative, and relative URLs resolve to \
                             nothing in a sandboxed host frame; inline the code"
                        ),
                    );
                }
            }
        }
    }

    fn is_storage_test(&self, test: &Expression<'_>) -> bool {
        let span = test.span();
        self.text
            .get(span.start as usize..span.end as usize)
            .is_some_and(mentions_storage)
    }

    fn global_use(&mut self, name: &'static str, bare: bool, offset: u32, msg: String) {
        let finding = Finding {
            severity: Severity::Error,
            rule: if DIALOG_NAMES.contains(&name) {
                "blocked-dialog"
            } else {
                "unguarded-storage"
            },
            message: format!("{}{msg}", self.ctx.prefix),
            line: Some(self.line(offset)),
        };
        if bare {
            self.global_uses.push((name, finding));
        } else {
            self.found.push(finding);
        }
    }

    fn storage_use(&mut self, name: &'static str, offset: u32, bare: bool) {
        if self.guard > 0 {
            return;
        }
        self.global_use(
            name,
            bare,
            offset,
            format!(
                "{name} used without a guard: in a sandboxed host frame (opaque origin) merely \
                 reading it throws a SecurityError, which at the top of a script stops the \
                 handshake; wrap every use in try {{ … }} catch {{ … }} and keep working without \
                 it (or keep the state in memory)"
            ),
        );
    }

    fn dialog_use(&mut self, name: &'static str, offset: u32, bare: bool) {
        let fix = match name {
            "alert" => "show the message in the page (an element with role=\"status\")",
            "confirm" => {
                "ask in the page instead: `if (await McpGenUi.confirm(\"…?\")) { … }` shows an \
                 accessible dialog and resolves true only on an explicit yes"
            }
            _ => "ask with a labelled <input> in the page",
        };
        self.global_use(
            name,
            bare,
            offset,
            format!(
                "{name}() does nothing in a host frame (the sandbox has no allow-modals: \
                 confirm() returns false, prompt() null); {fix}"
            ),
        );
    }

    /// A network request: the URL must be a constant on an origin the tool's CSP declares.
    fn network_use(&mut self, api: &str, url: Option<&Expression<'_>>, offset: u32) {
        let fix = "call the server through app.callServerTool (the host proxies it), or add the \
                   origin to [tools.NAME] csp connect domains and use a constant URL on it";
        let Some(url) = url else {
            return;
        };
        let (head, whole) = url_head(url);
        let target = head.as_deref().map(|h| {
            if whole {
                origin::classify(h)
            } else {
                match head_origin(h) {
                    Some(o) => origin::classify(o),
                    None => Target::Relative,
                }
            }
        });
        let msg = match target {
            None => format!(
                "{api} to a URL computed at run time: the validator cannot tell which origin it \
                 reaches, and the host's CSP blocks every origin the tool does not declare; {fix}"
            ),
            Some(Target::Inline) => return,
            Some(Target::Script) => format!("{api} to a javascript: URL; remove it"),
            Some(Target::Remote(o)) => {
                if self.ctx.origins.allows(&o) {
                    return;
                }
                format!(
                    "{api} to {}, an origin the tool's CSP does not declare: the host blocks it \
                     (connect-src); {fix}",
                    clip(&o)
                )
            }
            Some(Target::Relative) => format!(
                "{api} to a relative URL (\"{}\"): a host frame has no origin to resolve it \
                 against, so it reaches nothing; {fix}",
                clip(head.as_deref().unwrap_or(""))
            ),
        };
        self.push(Severity::Error, "blocked-network", offset, msg);
    }

    fn html_sink(&mut self, what: &str, value: Option<&Expression<'_>>, offset: u32) {
        if value.is_none_or(is_constant_string) {
            return;
        }
        self.push(
            Severity::Error,
            "inner-html",
            offset,
            format!(
                "{what} fed a value built at run time: markup from tool data or arguments runs \
                 as script in the page (XSS), and such a page can send tools/call to the host; \
                 build the elements with McpGenUi.h(…) or createElement and set text with \
                 textContent (or use McpGenUi.renderResult/renderTable)"
            ),
        );
    }

    fn check_app_info(&mut self, it: &NewExpression<'_>) {
        let offset = it.span.start;
        let Some(arg) = it.arguments.first() else {
            self.push(
                Severity::Error,
                "app-missing-version",
                offset,
                "new App() without appInfo: the host rejects ui/initialize \
                 (appInfo.version is required); pass new App({name: \"…\", version: \"1.0.0\"})"
                    .to_string(),
            );
            return;
        };
        let Some(Expression::ObjectExpression(obj)) =
            arg.as_expression().map(|e| e.without_parentheses())
        else {
            return;
        };
        if !has_key(obj, "version") {
            self.push(
                Severity::Error,
                "app-missing-version",
                offset,
                "new App({name}) without version: the reference host rejects ui/initialize \
                 (-32602, appInfo.version is required); add version: \"1.0.0\""
                    .to_string(),
            );
        }
    }

    fn check_member(&mut self, object: &Expression<'_>, prop: Option<&str>, offset: u32) {
        if prop == Some("ontoolresult") {
            self.facts.result_handler = true;
        }
        if let Some(name) = STORAGE_NAMES.into_iter().find(|n| prop == Some(*n))
            && GLOBAL_NAMES
                .iter()
                .any(|g| object.without_parentheses().is_specific_id(g))
        {
            self.storage_use(name, offset, false);
        }
        let Some((frame, bare)) = frame_ref(object) else {
            return;
        };
        if frame == "parent" && prop == Some("postMessage") {
            return;
        }
        let shown = prop.map_or_else(|| "[…]".to_string(), clip);
        let finding = Finding {
            severity: Severity::Warning,
            rule: "frame-access",
            message: format!(
                "{}access to {frame}.{shown}: the UI runs in a sandboxed frame and may only \
                 talk to the host with parent.postMessage (through the runtime); remove it",
                self.ctx.prefix
            ),
            line: Some(self.line(offset)),
        };
        self.frame_uses.push((bare.then_some(frame), finding));
    }
}

fn has_key(obj: &ObjectExpression<'_>, key: &str) -> bool {
    obj.properties.iter().any(|p| match p {
        ObjectPropertyKind::ObjectProperty(prop) => prop.key.is_specific_static_name(key),
        // `{...info}` may carry the version; give it the benefit of the doubt.
        ObjectPropertyKind::SpreadProperty(_) => true,
    })
}

impl<'a> Visit<'a> for JsVisitor<'_, '_, '_> {
    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        self.note_string(it.value.as_str());
    }

    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        if let Some(q) = it.single_quasi() {
            self.note_string(q.as_str());
        }
        walk::walk_template_literal(self, it);
    }

    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        if let Some(name) = WATCHED_NAMES.into_iter().find(|n| it.name == *n) {
            self.bound.insert(name);
        }
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if let Some(name) = STORAGE_NAMES.into_iter().find(|n| it.name == *n) {
            self.storage_use(name, it.span.start, true);
        }
    }

    fn visit_try_statement(&mut self, it: &TryStatement<'a>) {
        self.guard += 1;
        self.visit_block_statement(&it.block);
        self.guard -= 1;
        if let Some(handler) = &it.handler {
            self.visit_catch_clause(handler);
        }
        if let Some(finalizer) = &it.finalizer {
            self.visit_block_statement(finalizer);
        }
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        let guarded = self.is_storage_test(&it.test);
        self.visit_expression(&it.test);
        self.guard += usize::from(guarded);
        self.visit_statement(&it.consequent);
        self.guard -= usize::from(guarded);
        if let Some(alt) = &it.alternate {
            self.visit_statement(alt);
        }
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        let guarded = self.is_storage_test(&it.test);
        self.visit_expression(&it.test);
        self.guard += usize::from(guarded);
        self.visit_expression(&it.consequent);
        self.guard -= usize::from(guarded);
        self.visit_expression(&it.alternate);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        // `typeof localStorage` is the test itself.
        if it.operator == UnaryOperator::Typeof {
            self.guard += 1;
            walk::walk_unary_expression(self, it);
            self.guard -= 1;
        } else {
            walk::walk_unary_expression(self, it);
        }
    }

    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        // `"localStorage" in window`
        if it.operator == BinaryOperator::In {
            self.guard += 1;
            walk::walk_binary_expression(self, it);
            self.guard -= 1;
        } else {
            walk::walk_binary_expression(self, it);
        }
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        if it.key.is_specific_static_name("ontoolresult") {
            self.facts.result_handler = true;
        }
        walk::walk_object_property(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        self.check_member(&it.object, Some(it.property.name.as_str()), it.span.start);
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        let prop = static_string(&it.expression);
        self.check_member(&it.object, prop, it.span.start);
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        if is_global(&it.callee, "App")
            || it
                .callee
                .without_parentheses()
                .get_member_expr()
                .is_some_and(|m| m.static_property_name() == Some("App"))
        {
            self.facts.handshake = true;
            self.check_app_info(it);
        }
        for api in ["WebSocket", "EventSource"] {
            if is_global(&it.callee, api) {
                self.network_use(
                    &format!("new {api}"),
                    first_arg(&it.arguments),
                    it.span.start,
                );
            }
        }
        if is_global(&it.callee, "Function") {
            self.push(
                Severity::Warning,
                "new-function",
                it.span.start,
                "new Function(…) compiles a string as code: blocked by the host CSP (no \
                 'unsafe-eval') and an injection risk; write the function directly"
                    .to_string(),
            );
        }
        walk::walk_new_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let start = it.span.start;
        let callee = &it.callee;
        if is_global(callee, "eval") {
            self.push(
                Severity::Warning,
                "eval",
                start,
                "eval(…) is blocked by the host CSP (no 'unsafe-eval') and an injection risk; \
                 parse data with JSON.parse instead"
                    .to_string(),
            );
        } else if is_global(callee, "Function") {
            self.push(
                Severity::Warning,
                "new-function",
                start,
                "Function(…) compiles a string as code: blocked by the host CSP (no \
                 'unsafe-eval') and an injection risk; write the function directly"
                    .to_string(),
            );
        } else if let Some(name) = ["setTimeout", "setInterval"]
            .into_iter()
            .find(|n| is_global(callee, n))
            && first_arg(&it.arguments).is_some_and(|a| static_string(a).is_some())
        {
            self.push(
                Severity::Warning,
                "string-timer",
                start,
                format!(
                    "{name} with a string argument evaluates it as code (blocked by the \
                     host CSP); pass a function"
                ),
            );
        }
        if is_global(callee, "fetch") {
            self.network_use("fetch", first_arg(&it.arguments), start);
        }
        for name in DIALOG_NAMES {
            if is_global(callee, name) {
                let bare = callee.without_parentheses().is_specific_id(name);
                self.dialog_use(name, start, bare);
            }
        }
        if let Some(m) = callee.without_parentheses().get_member_expr() {
            let prop = m.static_property_name();
            if matches!(prop, Some("write" | "writeln")) && m.object().is_specific_id("document") {
                if first_arg(&it.arguments).is_none_or(is_constant_string) {
                    self.push(
                        Severity::Warning,
                        "document-write",
                        start,
                        "document.write replaces or corrupts the page; build elements with the \
                         DOM API"
                            .to_string(),
                    );
                } else {
                    self.html_sink("document.write", first_arg(&it.arguments), start);
                }
            }
            if prop == Some("insertAdjacentHTML") {
                self.html_sink(
                    "insertAdjacentHTML",
                    it.arguments.get(1).and_then(|a| a.as_expression()),
                    start,
                );
            }
            if prop == Some("createContextualFragment") {
                self.html_sink("createContextualFragment", first_arg(&it.arguments), start);
            }
            if prop == Some("open")
                && it.arguments.len() >= 2
                && first_arg(&it.arguments)
                    .and_then(static_string)
                    .is_some_and(|m| {
                        ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
                            .iter()
                            .any(|x| m.eq_ignore_ascii_case(x))
                    })
            {
                self.network_use(
                    "XMLHttpRequest",
                    it.arguments.get(1).and_then(|a| a.as_expression()),
                    start,
                );
            }
            if prop == Some("sendBeacon") && m.object().is_specific_id("navigator") {
                self.network_use("navigator.sendBeacon", first_arg(&it.arguments), start);
            }
            if prop == Some("addEventListener")
                && first_arg(&it.arguments).and_then(static_string) == Some("toolresult")
            {
                self.facts.result_handler = true;
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        let prop = match &it.left {
            AssignmentTarget::StaticMemberExpression(m) => Some(m.property.name.as_str()),
            AssignmentTarget::ComputedMemberExpression(m) => static_string(&m.expression),
            _ => None,
        };
        if let Some(prop @ ("innerHTML" | "outerHTML")) = prop {
            let prop = prop.to_string();
            self.html_sink(&prop, Some(&it.right), it.span.start);
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        self.module_syntax(it.span.start);
        self.check_specifier(it.source.value.as_str(), it.span.start);
        walk::walk_import_declaration(self, it);
    }

    fn visit_export_from_declaration(&mut self, it: &ExportFromDeclaration<'a>) {
        self.module_syntax(it.span.start);
        self.check_specifier(it.source.value.as_str(), it.span.start);
        walk::walk_export_from_declaration(self, it);
    }

    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        self.module_syntax(it.span.start);
        self.check_specifier(it.source.value.as_str(), it.span.start);
        walk::walk_export_all_declaration(self, it);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Some(spec) = static_string(&it.source) {
            let spec = spec.to_string();
            self.check_specifier(&spec, it.span.start);
        }
        walk::walk_import_expression(self, it);
    }
}
