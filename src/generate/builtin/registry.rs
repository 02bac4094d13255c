//! The page's parts, declared once (book: architecture.md, "The page's parts"): each script under
//! `templates/` with what it needs and when a page wants it. The embedding, the load order, the
//! files an override directory may replace, the style sections and the minified copies all follow
//! from this table. Adding a part is one entry here and one file in `templates/` (then
//! `node tests/tools/minify.mjs`, which minifies every script there).

use super::schema_needs::{
    FORMATS, NET_FORMATS, has_format, has_ids, needs_checks, needs_choice, needs_cond, needs_file,
    needs_form_extra, needs_form_map, needs_time, needs_tuple, needs_validator, needs_variants,
    plain_form, takes_no_input,
};
use crate::model::Tool;
use crate::model::confirm;
use serde_json::Value;

/// When a page wants a part (besides the parts that need it).
#[derive(Clone, Copy)]
pub(super) enum When {
    /// Every page.
    Always,
    /// A builtin page whose tool passes the test; pages built from override scripts and
    /// LLM-written pages always (their code may use anything).
    Tool(fn(&Tool) -> bool),
    /// Pages whose glue sets no runner of its own: override scripts and LLM-written pages.
    NoGlueRunner,
    /// LLM-written pages only.
    Llm,
}

/// One script of `window.McpGenUi`.
pub(super) struct Part {
    /// Its file under `templates/` (readable) and `templates/min/` (embedded); also the name an
    /// override directory uses.
    pub file: &'static str,
    /// The minified copy the binary embeds.
    pub embedded: &'static str,
    /// The parts it uses: they load before it, and a page that wants it gets them too.
    pub needs: &'static [&'static str],
    pub when: When,
    /// The `/* @part NAME` sections of styles.css its elements use.
    pub styles: &'static [&'static str],
}

macro_rules! part {
    ($file:literal, needs: [$($need:literal),*], when: $when:expr, styles: [$($style:literal),*]) => {
        Part {
            file: $file,
            embedded: include_str!(concat!("../../../templates/min/", $file)),
            needs: &[$($need),*],
            when: $when,
            styles: &[$($style),*],
        }
    };
}

/// The parts in load order: each after the parts it needs (a unit test holds this). runtime.js
/// comes first: it declares the extension points (`McpGenUi._on(point, fn)`, listed at its top)
/// through which the parts reach one another.
pub(super) const PARTS: &[Part] = &[
    part!("runtime.js", needs: [], when: When::Always, styles: []),
    part!("schema.js", needs: ["runtime.js"], when: When::Always, styles: []),
    // The index of $ids, anchors and base URIs behind $ref ('refs' point); without it a $ref is a
    // JSON pointer from the root.
    part!("schema-ids.js", needs: ["schema.js"], when: When::Tool(wants_ids), styles: []),
    // The per-value checks behind the inline messages ('check' point).
    part!("checks.js", needs: ["schema.js"], when: When::Tool(wants_checks), styles: []),
    // The `format` checks (one more 'check' each), only where a schema has one of their formats:
    // dates, times and the others; email, uri and the host formats.
    part!("formats.js", needs: ["checks.js"], when: When::Tool(wants_formats), styles: []),
    part!("formats-net.js", needs: ["checks.js"], when: When::Tool(wants_net_formats), styles: []),
    part!("hosts.js", needs: ["runtime.js"], when: When::Always, styles: []),
    part!("submit-shim.js", needs: [], when: When::Llm, styles: []),
    part!("view.js", needs: ["schema.js"], when: When::Always, styles: []),
    // The result's host controls: fullscreen and downloads, where the host offers them.
    part!("export.js", needs: ["view.js"], when: When::Always, styles: []),
    part!("form.js", needs: ["schema.js"], when: When::Tool(has_form), styles: ["form"]),
    part!("form-choice.js", needs: ["form.js"], when: When::Tool(wants_choice), styles: ["choice"]),
    part!("form-time.js", needs: ["form.js"], when: When::Tool(wants_time), styles: ["time"]),
    // The full validator: a call's arguments where the input schema needs more than the form
    // checks, structuredContent against an outputSchema, values in the JSON editor.
    part!("schema-check.js", needs: ["checks.js"], when: When::Tool(wants_validator), styles: []),
    part!("form-json.js", needs: ["form.js", "schema-check.js"], when: When::Tool(wants_json_editor), styles: []),
    // Its lists of checkboxes use the choices' checkbox rules.
    part!("form-extra.js", needs: ["form.js", "form-json.js"], when: When::Tool(wants_form_extra), styles: ["form-extra", "choice"]),
    // Tuples: fixed rows, then form-extra.js's rows for the rest.
    part!("form-tuple.js", needs: ["form-extra.js"], when: When::Tool(wants_tuple), styles: ["form-extra"]),
    // Maps and variants: key/value rows check keys with the validator (propertyNames), variants
    // pick the variant a written value matches with it.
    part!("form-map.js", needs: ["form.js", "form-json.js"], when: When::Tool(wants_form_map), styles: ["form-extra"]),
    part!("form-variants.js", needs: ["form.js", "form-json.js"], when: When::Tool(wants_variants), styles: ["form-extra"]),
    // Drafts that survive the frame, and input streamed as the model writes it.
    part!("drafts.js", needs: ["form.js"], when: When::Tool(has_form), styles: ["drafts"]),
    // Fields of if/then/else and dependency branches: it asks the validator which branch is active.
    part!("form-cond.js", needs: ["form.js", "schema-check.js"], when: When::Tool(wants_cond), styles: ["cond"]),
    part!("form-file.js", needs: ["form.js"], when: When::Tool(wants_file), styles: ["file"]),
    part!("viewtools.js", needs: ["schema.js"], when: When::Always, styles: []),
    // It asks in a panel styled like confirm.js's.
    part!("runner.js", needs: ["viewtools.js"], when: When::NoGlueRunner, styles: ["confirm"]),
    part!("confirm.js", needs: ["runtime.js"], when: When::Tool(can_ask), styles: ["confirm"]),
    part!("llm.js", needs: ["view.js"], when: When::Llm, styles: []),
];

/// The other files an override directory may replace, as the binary embeds them.
pub(super) const PAGE_FILES: [(&str, &str); 3] = [
    ("page.html", include_str!("../../../templates/page.html")),
    ("styles.css", include_str!("../../../templates/styles.css")),
    // The page glue: its own `<script>` after the parts.
    ("app.js", include_str!("../../../templates/min/app.js")),
];

/// The index of a part in `PARTS`.
pub(super) fn index(file: &str) -> Option<usize> {
    PARTS.iter().position(|p| p.file == file)
}

/// The tool's input schema when the page has a form: it takes some input.
fn form_input(tool: &Tool) -> Option<&Value> {
    tool.input_schema().filter(|s| !takes_no_input(s))
}

fn has_form(tool: &Tool) -> bool {
    form_input(tool).is_some()
}

fn wants_choice(tool: &Tool) -> bool {
    form_input(tool).is_some_and(needs_choice)
}

fn wants_time(tool: &Tool) -> bool {
    form_input(tool).is_some_and(needs_time)
}

fn wants_checks(tool: &Tool) -> bool {
    form_input(tool).is_some_and(needs_checks)
}

/// A `format` among `names` where the form or the validator checks values: in the input schema (a
/// form's field or a call's argument) or in the outputSchema (a result the validator checks).
fn checks_format(tool: &Tool, names: &[&str]) -> bool {
    let mut schemas = tool.input_schema().into_iter().chain(tool.output_schema());
    (wants_checks(tool) || wants_validator(tool)) && schemas.any(|s| has_format(s, names))
}

fn wants_formats(tool: &Tool) -> bool {
    checks_format(tool, &FORMATS)
}

fn wants_net_formats(tool: &Tool) -> bool {
    checks_format(tool, &NET_FORMATS)
}

/// An `$id`, an anchor, a dynamic or recursive ref, or a `$ref` that is not a JSON pointer from the
/// root, in the input or output schema.
fn wants_ids(tool: &Tool) -> bool {
    let mut schemas = tool.input_schema().into_iter().chain(tool.output_schema());
    schemas.any(has_ids)
}

fn has_output_schema(tool: &Tool) -> bool {
    tool.raw.get("outputSchema").is_some_and(Value::is_object)
}

/// An outputSchema to check results against, or an input schema with more than the form checks.
fn wants_validator(tool: &Tool) -> bool {
    has_output_schema(tool) || form_input(tool).is_some_and(needs_validator)
}

/// A field no control can express, or a form the generator cannot prove within the field budget.
fn wants_json_editor(tool: &Tool) -> bool {
    form_input(tool).is_some_and(|s| !plain_form(s))
}

fn wants_cond(tool: &Tool) -> bool {
    form_input(tool).is_some_and(needs_cond)
}

fn wants_file(tool: &Tool) -> bool {
    form_input(tool).is_some_and(needs_file)
}

fn wants_form_extra(tool: &Tool) -> bool {
    needs_form_extra(form_input(tool))
}

fn wants_tuple(tool: &Tool) -> bool {
    needs_tuple(form_input(tool))
}

fn wants_form_map(tool: &Tool) -> bool {
    needs_form_map(form_input(tool))
}

fn wants_variants(tool: &Tool) -> bool {
    needs_variants(form_input(tool))
}

fn can_ask(tool: &Tool) -> bool {
    confirm::can_ask(tool.annotations())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::Path;

    #[test]
    fn every_part_comes_after_what_it_needs() {
        for (i, part) in PARTS.iter().enumerate() {
            for need in part.needs {
                let at =
                    index(need).unwrap_or_else(|| panic!("{}: unknown need {need}", part.file));
                assert!(at < i, "{} must come after {need}", part.file);
            }
            assert_eq!(index(part.file), Some(i), "{} declared twice", part.file);
        }
    }

    #[test]
    fn the_registry_lists_every_script_and_its_minified_copy() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        let scripts = |d: &Path| -> BTreeSet<String> {
            std::fs::read_dir(d)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".js"))
                .collect()
        };
        let declared: BTreeSet<String> = PARTS
            .iter()
            .map(|p| p.file)
            .chain(["app.js"])
            .map(String::from)
            .collect();
        assert_eq!(scripts(&dir), declared, "templates/*.js");
        assert_eq!(scripts(&dir.join("min")), declared, "templates/min/*.js");
        // Each style section a part names exists in styles.css.
        let css = PAGE_FILES[1].1;
        for part in PARTS {
            for s in part.styles {
                assert!(css.contains(&format!("/* @part {s}")), "{}: {s}", part.file);
            }
        }
    }
}
