//! Validate stage: the rules of the book's reference/validator.md, shared by every generator, `check` and `validate`.
//!
//! Generated HTML (and LLM output in particular) is hostile input, so this module is a security
//! boundary: it never panics and its findings are deterministic. `parse` builds the DOM with
//! line numbers, `document` applies the DOM rules, `script` the JavaScript rules, `origin` the
//! URL/CSP rules and `injection` the prompt-injection heuristics. `repair` fixes what has a
//! mechanical repair (contrast) for the llm generator, which repairs before it judges.
//!
//! Rule ids. Errors: `unrecoverable-html`, `html-too-deep`, `file-too-large`, `js-syntax-error`,
//! `js-too-deep`, `invalid-json`, `external-script`, `external-stylesheet`, `external-font`,
//! `external-image`, `external-media`, `external-frame`, `external-resource`,
//! `data-url-document`, `inline-event-handler`, `javascript-url`, `bare-module-import`,
//! `app-missing-version`, `missing-handshake`, `missing-result-handler`,
//! `required-in-closed-details`, `srcdoc-too-deep`, `validator-internal-error`, `inner-html`
//! (fed a run-time value), `unguarded-storage`, `blocked-dialog`, `blocked-network`, and
//! `low-contrast` (for LLM output; a warning otherwise). Warnings:
//! `html-parse-error`, `relative-url`, `eval`, `new-function`, `string-timer`,
//! `document-write` (constant text), `frame-access`, `unlabelled-control`, `img-alt`,
//! `missing-charset`, `missing-viewport`, `missing-title`, `missing-lang`. Prompt-injection
//! signs (errors with `llm_output`, else warnings): `prose-not-html`, `injection-phrase`,
//! `injection-fake-turn`, `markdown-fence`.

pub mod browser;
mod contrast;
mod document;
mod finding;
mod injection;
mod js_expr;
mod options;
mod origin;
mod parse;
mod repair;
mod repair_scope;
mod script;
mod script_flow;

pub use contrast::nearest_reaching;
pub use finding::{Finding, Severity};
pub use options::Options;
use options::STACK_BYTES;
pub use repair::{ContrastRepair, repair_contrast};
pub use repair_scope::expose_module_names;

/// Bumped whenever a rule changes, so `check` knows to re-validate files that passed before.
pub const VALIDATOR_VERSION: u32 = 6;

/// Largest file a host should be asked to load (book: reference/validator.md).
pub const MAX_FILE_BYTES: usize = 500 * 1024;

/// Beyond this the rules are not run at all: the size error says enough, and analysis time
/// must stay bounded for hostile input.
const MAX_ANALYSED_BYTES: usize = 1024 * 1024;

/// Runs every rule on one HTML document. Findings are sorted by (line, severity, rule).
pub fn validate(html: &str, opts: &Options) -> Vec<Finding> {
    let run = || validate_inline(html, opts);
    let joined = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("validate".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, run)
            .map(|h| h.join())
    });
    match joined {
        Ok(Ok(findings)) => findings,
        // Could not start a thread: run here (deep nesting is still capped by the script rules).
        Err(_) => validate_inline(html, opts),
        Ok(Err(_)) => vec![Finding::error(
            "validator-internal-error",
            None,
            "the validator failed on this file (a bug in mcp-gen-ui: please report it with \
             the file); treat the file as invalid",
        )],
    }
}

fn validate_inline(html: &str, opts: &Options) -> Vec<Finding> {
    let mut out = Vec::new();
    if html.len() > MAX_FILE_BYTES {
        out.push(Finding::error(
            "file-too-large",
            None,
            format!(
                "file is {} KB, over the {} KB limit; make the UI smaller (no embedded data \
                 blobs or large libraries)",
                html.len() / 1024,
                MAX_FILE_BYTES / 1024
            ),
        ));
    }
    if html.len() > MAX_ANALYSED_BYTES {
        return out;
    }
    if looks_binary(html) {
        out.push(Finding::error(
            "unrecoverable-html",
            None,
            "the file is not text HTML (NUL or control bytes); emit a complete HTML document",
        ));
        return out;
    }
    let origins = crate::origins::Origins::new(&opts.allowed_origins);
    let ctx = document::DocCtx {
        opts,
        origins: &origins,
        depth: 0,
        line_base: 0,
        prefix: String::new(),
    };
    document::check_document(html, &ctx, &mut out);
    out.sort_by(|a, b| {
        (a.line, a.severity, a.rule, &a.message).cmp(&(b.line, b.severity, b.rule, &b.message))
    });
    out.dedup();
    out
}

/// Binary data decoded as text: NULs, or many control characters.
fn looks_binary(text: &str) -> bool {
    let mut controls = 0usize;
    let mut total = 0usize;
    for c in text.chars().take(64 * 1024) {
        total += 1;
        if c == '\0' {
            return true;
        }
        if c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}') {
            controls += 1;
        }
    }
    total > 0 && controls * 10 > total
}

/// Rules whose findings mean the text tries to steer a model (the page is not worth repairing);
/// `prose-not-html` and `markdown-fence` are packaging problems a repair can fix.
pub fn is_injection_rule(rule: &str) -> bool {
    rule.starts_with("injection-")
}

/// True when any finding is an error (the file must not be written / `validate` exits 1).
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod proptests;
