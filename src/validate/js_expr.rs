//! What a JavaScript expression is, for the script rules: a constant string, the constant head
//! of a URL and its origin, a global (`window.eval`), a frame reference (`parent`, `top`).

use oxc_ast::ast::{Argument, BinaryOperator, Expression};

/// A string the page wrote itself: a literal, a template without substitutions, or `+` of those.
pub(super) fn is_constant_string(expr: &Expression<'_>) -> bool {
    match expr.without_parentheses() {
        Expression::StringLiteral(_) => true,
        Expression::TemplateLiteral(t) => t.expressions.is_empty(),
        Expression::BinaryExpression(b) => {
            b.operator == BinaryOperator::Addition
                && is_constant_string(&b.left)
                && is_constant_string(&b.right)
        }
        _ => false,
    }
}

/// Where a URL expression points: its full text when constant, else the constant text it starts
/// with (`"https://api.example.com/v1?q=" + q`, `` `https://…/${id}` ``), else nothing.
pub(super) fn url_head(expr: &Expression<'_>) -> (Option<String>, bool) {
    match expr.without_parentheses() {
        Expression::StringLiteral(s) => (Some(s.value.to_string()), true),
        Expression::TemplateLiteral(t) => {
            let head = t.quasis.first().map(|q| q.value.raw.to_string());
            (head, t.expressions.is_empty())
        }
        Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
            let (head, whole) = url_head(&b.left);
            (head, whole && is_constant_string(&b.right))
        }
        _ => (None, false),
    }
}

/// The origin part of the start of a URL (`https://host[:port]`), when it is all there.
pub(super) fn head_origin(head: &str) -> Option<&str> {
    let lower = head.to_ascii_lowercase();
    let web = ["https://", "http://", "wss://", "ws://"];
    if !web.iter().any(|p| lower.starts_with(p)) {
        return None;
    }
    let scheme_end = lower.find("://")? + 3;
    let rest = &head[scheme_end..];
    let end = rest.find(['/', '?', '#'])?;
    head.get(..scheme_end + end)
}

pub(super) fn mentions_storage(text: &str) -> bool {
    STORAGE_NAMES.iter().any(|n| text.contains(n))
}

pub(super) const STORAGE_NAMES: [&str; 2] = ["localStorage", "sessionStorage"];
pub(super) const FRAME_NAMES: [&str; 3] = ["parent", "top", "opener"];
pub(super) const GLOBAL_NAMES: [&str; 4] = ["window", "self", "globalThis", "frames"];

/// `eval`, `window.eval`, `globalThis.eval`, …
pub(super) fn is_global(expr: &Expression<'_>, name: &str) -> bool {
    let expr = expr.without_parentheses();
    if expr.is_specific_id(name) {
        return true;
    }
    expr.get_member_expr().is_some_and(|m| {
        m.static_property_name() == Some(name)
            && GLOBAL_NAMES.iter().any(|g| m.object().is_specific_id(g))
    })
}

/// Which frame (`parent`/`top`/`opener`) an expression names, and whether as a bare identifier.
pub(super) fn frame_ref(expr: &Expression<'_>) -> Option<(&'static str, bool)> {
    let expr = expr.without_parentheses();
    for name in FRAME_NAMES {
        if expr.is_specific_id(name) {
            return Some((name, true));
        }
    }
    let m = expr.get_member_expr()?;
    let prop = m.static_property_name()?;
    let name = FRAME_NAMES.into_iter().find(|n| *n == prop)?;
    GLOBAL_NAMES
        .iter()
        .any(|g| m.object().is_specific_id(g))
        .then_some((name, false))
}

pub(super) fn static_string<'a>(expr: &'a Expression<'_>) -> Option<&'a str> {
    match expr.without_parentheses() {
        Expression::StringLiteral(s) => Some(s.value.as_str()),
        Expression::TemplateLiteral(t) => t.single_quasi().map(|q| q.as_str()),
        _ => None,
    }
}

pub(super) fn first_arg<'b, 'a>(args: &'b [Argument<'a>]) -> Option<&'b Expression<'a>> {
    args.first().and_then(|a| a.as_expression())
}
