//! Rewriting one script of an llm page: imports of the reference SDK (bare or from a CDN) become
//! reads of the inline runtime's global, and `new App({name})` gets the `version` hosts require.

use oxc_allocator::Allocator;
use oxc_ast::ast::{
    Argument, CallExpression, Expression, IdentifierReference, ImportDeclarationSpecifier,
    ImportExpression, NewExpression, ObjectPropertyKind, Statement, StaticMemberExpression,
};
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

/// The reference SDK's package name, as a model imports it.
pub(super) const SDK: &str = "@modelcontextprotocol/ext-apps";
/// The inline runtime's global (book: reference/pages.md).
const GLOBAL: &str = "window.McpGenUi";

pub(super) fn clip(s: &str) -> String {
    super::provider::clip(s, 120)
}

/// What happened to one script.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ScriptRewrite {
    pub code: String,
    pub repairs: Vec<String>,
    pub unresolved: Vec<String>,
}

fn is_sdk(specifier: &str) -> bool {
    specifier.contains(SDK)
}

/// Rewrites one script's imports of the SDK into reads of the runtime's global, and adds the
/// `version` that `new App({name})` needs (hosts reject `ui/initialize` without it). A script
/// that does not parse is left alone: the validator reports it.
pub fn rewrite_script(code: &str, is_module: bool) -> ScriptRewrite {
    let unchanged = || ScriptRewrite {
        code: code.to_string(),
        ..Default::default()
    };
    if !["import", "App", "alert", "Storage"]
        .iter()
        .any(|w| code.contains(w))
    {
        return unchanged();
    }
    let alloc = Allocator::default();
    // Imports only parse in module code; a classic script that has them is rewritten too
    // (it could never have run), so parse both kinds as modules.
    let parsed = Parser::new(&alloc, code, SourceType::mjs()).parse();
    if parsed.panicked || !parsed.diagnostics.is_empty() {
        return unchanged();
    }

    let mut edits: Vec<(u32, u32, String)> = Vec::new();
    let mut bindings: Vec<String> = Vec::new();
    let mut app_names: Vec<String> = Vec::new();
    let mut repairs = Vec::new();
    let mut unresolved = Vec::new();

    for stmt in &parsed.program.body {
        let Statement::ImportDeclaration(decl) = stmt else {
            continue;
        };
        let source = decl.source.value.as_str();
        if !is_sdk(source) {
            unresolved.push(source.to_string());
            continue;
        }
        let mut named = Vec::new();
        for spec in decl.specifiers.iter().flatten() {
            match spec {
                ImportDeclarationSpecifier::ImportSpecifier(s) => {
                    let imported = s.imported.name().as_str().to_string();
                    let local = s.local.name.as_str().to_string();
                    if imported == "App" {
                        app_names.push(local.clone());
                    }
                    if imported == local {
                        named.push(local);
                    } else {
                        named.push(format!("{}: {local}", js_key(&imported)));
                    }
                }
                ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                    bindings.push(format!("{} = {GLOBAL}", s.local.name.as_str()));
                }
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                    bindings.push(format!("{} = {GLOBAL}", s.local.name.as_str()));
                }
            }
        }
        if !named.is_empty() {
            bindings.push(format!("{{ {} }} = {GLOBAL}", named.join(", ")));
        }
        edits.push((decl.span.start, decl.span.end, String::new()));
        repairs.push(format!(
            "rewrote `import … from \"{}\"` to use the inline runtime",
            clip(source)
        ));
    }

    let mut finder = Finder {
        app_names: &app_names,
        edits: Vec::new(),
        unresolved: Vec::new(),
        repairs: Vec::new(),
    };
    finder.visit_program(&parsed.program);
    edits.extend(finder.edits);
    unresolved.extend(finder.unresolved);
    repairs.extend(finder.repairs);

    if edits.is_empty() {
        return ScriptRewrite {
            code: code.to_string(),
            repairs,
            unresolved,
        };
    }
    edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut out = code.to_string();
    for (start, end, text) in edits {
        let (s, e) = (start as usize, end as usize);
        if s <= e && e <= out.len() && out.is_char_boundary(s) && out.is_char_boundary(e) {
            out.replace_range(s..e, &text);
        }
    }
    if !bindings.is_empty() {
        // Module scripts have their own scope; classic scripts share the global one, where a
        // second `const` of the same name in another script would be a SyntaxError.
        let kw = if is_module { "const" } else { "var" };
        let prelude: Vec<String> = bindings.iter().map(|b| format!("{kw} {b};")).collect();
        out = format!("{}\n{out}", prelude.join("\n"));
    }
    ScriptRewrite {
        code: out,
        repairs,
        unresolved,
    }
}

fn js_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        name.to_string()
    } else {
        serde_json::to_string(name).unwrap_or_else(|_| "\"\"".into())
    }
}

struct Finder<'n> {
    app_names: &'n [String],
    edits: Vec<(u32, u32, String)>,
    unresolved: Vec<String>,
    repairs: Vec<String>,
}

impl Finder<'_> {
    /// Storage throws in an opaque-origin frame; the runtime's never does (real or in memory).
    fn storage(&mut self, start: u32, end: u32, name: &str) {
        self.edits.push((start, end, format!("{GLOBAL}.{name}")));
        let note = format!("pointed {name} at the runtime's (in memory where the frame has none)");
        if !self.repairs.contains(&note) {
            self.repairs.push(note);
        }
    }
}

/// `window`, `self`, `globalThis`.
fn is_window(expr: &Expression<'_>) -> bool {
    ["window", "self", "globalThis"]
        .iter()
        .any(|g| expr.is_specific_id(g))
}

impl<'a> Visit<'a> for Finder<'_> {
    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        // alert() does nothing in a sandboxed frame: the message goes into the page instead.
        let callee = it.callee.without_parentheses();
        let is_alert = callee.is_specific_id("alert")
            || matches!(callee, Expression::StaticMemberExpression(m)
                if m.property.name == "alert" && is_window(&m.object));
        if is_alert {
            let span = callee.span();
            self.edits
                .push((span.start, span.end, format!("{GLOBAL}.notice")));
            self.repairs
                .push("replaced alert() with an in-page notice (McpGenUi.notice)".into());
            for arg in &it.arguments {
                self.visit_argument(arg);
            }
            return;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if it.name == "localStorage" || it.name == "sessionStorage" {
            self.storage(it.span.start, it.span.end, it.name.as_str());
        }
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        let prop = it.property.name.as_str();
        if (prop == "localStorage" || prop == "sessionStorage") && is_window(&it.object) {
            self.storage(it.span.start, it.span.end, prop);
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Expression::StringLiteral(lit) = &it.source {
            let source = lit.value.as_str();
            if is_sdk(source) {
                self.edits.push((
                    it.span.start,
                    it.span.end,
                    format!("Promise.resolve({GLOBAL})"),
                ));
                self.repairs.push(format!(
                    "rewrote `import(\"{}\")` to use the inline runtime",
                    clip(source)
                ));
            } else {
                self.unresolved.push(source.to_string());
            }
        }
        walk::walk_import_expression(self, it);
    }

    fn visit_new_expression(&mut self, it: &NewExpression<'a>) {
        let is_app = match &it.callee {
            Expression::Identifier(id) => {
                let n = id.name.as_str();
                n == "App" || self.app_names.iter().any(|a| a == n)
            }
            Expression::StaticMemberExpression(m) => m.property.name.as_str() == "App",
            _ => false,
        };
        if is_app && let Some(Argument::ObjectExpression(obj)) = it.arguments.first() {
            let has_version = obj.properties.iter().any(|p| match p {
                ObjectPropertyKind::ObjectProperty(p) => {
                    p.key.static_name().is_some_and(|k| k == "version")
                }
                // A spread may bring a version; leave it alone.
                ObjectPropertyKind::SpreadProperty(_) => true,
            });
            let has_name = obj.properties.iter().any(|p| match p {
                ObjectPropertyKind::ObjectProperty(p) => {
                    p.key.static_name().is_some_and(|k| k == "name")
                }
                ObjectPropertyKind::SpreadProperty(_) => true,
            });
            if has_name && !has_version {
                let at = obj.span().start + 1;
                self.edits.push((at, at, "version: \"1.0.0\", ".into()));
                self.repairs.push(
                    "added the `version` that `new App({name})` lacked (hosts require it)".into(),
                );
            }
        }
        walk::walk_new_expression(self, it);
    }
}
