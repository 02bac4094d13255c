//! The mechanical repair of `module-scoped-call` (book: reference/llm.md, "repair before
//! judging"): a function a classic script or a moved inline handler calls, declared only inside a
//! module script, is made global right after its declaration (`window.NAME = NAME;`), as the
//! page meant it to be.

use oxc_allocator::Allocator;
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

use super::options::Options;
use super::script::{ScriptCtx, ScriptKind, script_kind};
use super::script_flow::{Flow, scan, top_level_names};

/// The page with every module-only name that classic code calls exposed on `window`, and one
/// line per name exposed.
pub fn expose_module_names(html: &str) -> (String, Vec<String>) {
    let scripts = scripts_of(html);
    let origins = crate::origins::Origins::new(&Options::default().allowed_origins);
    let ctx = ScriptCtx {
        line: 1,
        origins: &origins,
        prefix: "",
    };
    let mut flow = Flow::default();
    let mut sink = Vec::new();
    for (text, module) in &scripts {
        let alloc = Allocator::default();
        let st = if *module {
            SourceType::mjs()
        } else {
            SourceType::script()
        };
        let ret = Parser::new(&alloc, text, st).parse();
        // A script that does not parse is not scanned (the validator reports it).
        if !ret.panicked && ret.diagnostics.is_empty() {
            scan(
                text,
                &ret.program,
                *module,
                &ctx,
                false,
                &mut flow,
                &mut sink,
            );
        }
    }
    let names = flow.module_only_calls();
    if names.is_empty() {
        return (html.to_string(), Vec::new());
    }
    let mut out = html.to_string();
    let mut changes = Vec::new();
    for (text, module) in scripts.iter().filter(|(_, m)| *m) {
        let _ = module;
        let (code, exposed) = expose_in(text, &names);
        if exposed.is_empty() {
            continue;
        }
        if let Some(at) = out.find(text.as_str()) {
            out.replace_range(at..at + text.len(), &code);
            for n in exposed {
                changes.push(format!(
                    "made `{n}` global (window.{n} = {n}): it is declared in a module script and called from an inline handler or a classic script"
                ));
            }
        }
    }
    (out, changes)
}

/// The inline scripts' texts, and whether each is a module.
fn scripts_of(html: &str) -> Vec<(String, bool)> {
    let doc = scraper::Html::parse_document(html);
    let Ok(sel) = scraper::Selector::parse("script:not([src])") else {
        return Vec::new();
    };
    doc.select(&sel)
        .filter_map(|el| {
            let kind = script_kind(el.value().attr("type"));
            let module = match kind {
                ScriptKind::Module => true,
                ScriptKind::Classic => false,
                _ => return None,
            };
            Some((el.text().collect::<String>(), module))
        })
        .filter(|(t, _)| !t.trim().is_empty())
        .collect()
}

/// One module's code with `window.NAME = NAME;` after each top-level declaration of a name in
/// `names`.
fn expose_in(code: &str, names: &[String]) -> (String, Vec<String>) {
    let alloc = Allocator::default();
    let ret = Parser::new(&alloc, code, SourceType::mjs()).parse();
    if ret.panicked || !ret.diagnostics.is_empty() {
        return (code.to_string(), Vec::new());
    }
    let mut edits: Vec<(usize, String)> = Vec::new();
    let mut exposed = Vec::new();
    for s in &ret.program.body {
        let found: Vec<String> = top_level_names(s)
            .into_iter()
            .filter(|n| names.contains(n) && !exposed.contains(n))
            .collect();
        if found.is_empty() {
            continue;
        }
        let line: String = found
            .iter()
            .map(|n| format!("window.{n} = {n};"))
            .collect::<Vec<_>>()
            .join(" ");
        edits.push((s.span().end as usize, format!("\n{line}\n")));
        exposed.extend(found);
    }
    let mut out = code.to_string();
    for (at, text) in edits.into_iter().rev() {
        if out.is_char_boundary(at) {
            out.insert_str(at, &text);
        }
    }
    (out, exposed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Options, validate};

    #[test]
    fn module_functions_called_by_moved_handlers_become_global() {
        let html = "<!doctype html><html lang=en><head><title>t</title></head><body>\
            <script type=\"module\">\nfunction convert() { return 1; }\nconst go = async (e) => 2;\nconst other = 3;\n</script>\
            <script>\ndocument.body.addEventListener('click', function (event) { convert(); go(event); });\n</script></body></html>";
        let opts = Options {
            llm_output: true,
            ..Options::default()
        };
        assert!(
            validate(html, &opts)
                .iter()
                .any(|f| f.rule == "module-scoped-call")
        );
        let (fixed, changes) = expose_module_names(html);
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert!(fixed.contains("window.convert = convert;"));
        assert!(fixed.contains("window.go = go;"));
        assert!(!fixed.contains("window.other"), "only what is called");
        assert!(
            !validate(&fixed, &opts)
                .iter()
                .any(|f| f.rule == "module-scoped-call")
        );
    }
}
