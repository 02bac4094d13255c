//! The builtin generator: deterministic and offline. One minijinja page template plus inline
//! JavaScript (the registry's parts and the page glue) and CSS, with the tool's data embedded only
//! as escaped JSON. This file holds the templates (embedded, or a user's override directory) and
//! renders a page from them; the parts are declared in `registry.rs` and chosen in `choose.rs`.

mod choose;
mod minify;
mod page_data;
mod registry;
mod schema_needs;
mod unchecked;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::request::{GENERATOR_VERSION, GenerateError, WidgetRequest};
use crate::model::header_comment;
use choose::{PageKind, Parts};
use minify::{compact_js, minify_css, rename_internal};
pub use page_data::script_json;
use page_data::{Prose, display_title, guard_script, page_data};
use registry::{PAGE_FILES, PARTS};
pub use unchecked::unchecked;

/// Embedded templates, or a user's override directory (same file names as `templates/`; missing
/// files fall back to the embedded ones). Scripts are held ready to embed.
#[derive(Debug, Clone)]
pub struct Templates {
    files: BTreeMap<&'static str, String>,
    /// Whether an override directory replaced any script: its pages then get every part but the
    /// llm pages' own (an override may use any of them).
    scripts_overridden: bool,
    /// Whether an override directory replaced any file: its pages then get the whole tool data.
    overridden: bool,
}

impl Templates {
    pub fn embedded() -> Templates {
        Templates {
            files: PAGE_FILES
                .iter()
                .copied()
                .chain(PARTS.iter().map(|p| (p.file, p.embedded)))
                .map(|(n, s)| (n, s.to_string()))
                .collect(),
            scripts_overridden: false,
            overridden: false,
        }
    }

    pub fn from_dir(dir: &Path) -> Result<Templates, GenerateError> {
        if !dir.is_dir() {
            return Err(template_err(
                "",
                format!(
                    "template directory {} does not exist or is not a directory; create it or remove the `templates` setting",
                    dir.display()
                ),
            ));
        }
        let mut t = Templates::embedded();
        let names = PAGE_FILES.iter().map(|(n, _)| *n);
        for name in names.chain(PARTS.iter().map(|p| p.file)) {
            let p = dir.join(name);
            if p.is_file() {
                let text = std::fs::read_to_string(&p).map_err(|e| {
                    template_err(
                        "",
                        format!(
                            "cannot read template {}: {e} (it must be UTF-8 text)",
                            p.display()
                        ),
                    )
                })?;
                t.overridden = true;
                let text = if name.ends_with(".js") {
                    t.scripts_overridden = true;
                    rename_internal(&compact_js(&text))
                } else {
                    text
                };
                t.files.insert(name, text);
            }
        }
        Ok(t)
    }

    /// sha256 hex over GENERATOR_VERSION and every template's name and bytes: part of the lock
    /// fingerprint, so an edited override directory makes every builtin UI stale.
    pub fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        h.update(GENERATOR_VERSION.as_bytes());
        for (name, text) in &self.files {
            h.update([0u8]);
            h.update(name.as_bytes());
            h.update([0u8]);
            h.update((text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        }
        hex::encode(h.finalize())
    }

    fn get(&self, name: &str) -> &str {
        self.files.get(name).map(String::as_str).unwrap_or("")
    }

    /// The styles a page needs: everything before the first `/* @part NAME` marker comment, then
    /// each part's rules (up to the next marker) when the page embeds that part. A part name the
    /// generator does not know is kept, and an override without markers is used whole.
    fn styles(&self, parts: Parts) -> String {
        const MARKER: &str = "/* @part ";
        let css = self.get("styles.css");
        // Each chunk but the first starts at a marker and runs to the next one.
        let mut bounds: Vec<usize> = css.match_indices(MARKER).map(|(at, _)| at).collect();
        bounds.push(css.len());
        let mut out = css[..bounds[0]].to_string();
        for pair in bounds.windows(2) {
            let chunk = &css[pair[0]..pair[1]];
            let name: String = chunk[MARKER.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if parts.wants_styles(&name) {
                out.push_str(chunk);
            }
        }
        out
    }

    /// The runtime scripts a page needs, joined.
    fn runtime(&self, parts: Parts) -> String {
        parts
            .files()
            .map(|n| self.get(n).trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn template_err(tool: &str, message: String) -> GenerateError {
    GenerateError::Template {
        tool: tool.to_string(),
        message,
    }
}

/// What goes in the lock's `template_version`: the generator version and a short template hash.
pub fn template_version(templates: &Templates) -> String {
    let fp = templates.fingerprint();
    format!(
        "builtin-{GENERATOR_VERSION}+{}",
        fp.get(..12).unwrap_or(&fp)
    )
}

/// The runtime alone (`window.McpGenUi`: the App class, schema helpers, renderers and the form
/// builder), as a `<script>` body. The llm generator injects it into LLM-written pages.
pub fn runtime_js() -> &'static str {
    static RUNTIME: OnceLock<String> = OnceLock::new();
    RUNTIME.get_or_init(|| Templates::embedded().runtime(Parts::for_page(PageKind::Llm)))
}

/// The complete HTML file, starting with the generated-file header. Deterministic bytes.
pub fn render(req: &WidgetRequest<'_>, templates: &Templates) -> Result<String, GenerateError> {
    // No tool can break a run (book: reference/generate.md): whatever the tool's strings, the page stays valid and under the size limit. Long
    // prose is shortened first; a page still too large drops the schemas' prose altogether.
    let page = render_with(req, templates, Prose::Shortened)?;
    if page.len() <= PAGE_BUDGET {
        return Ok(page);
    }
    render_with(req, templates, Prose::Stripped)
}

/// Pages stay under this many bytes when the tool allows it (the validator's limit is 500 KB).
const PAGE_BUDGET: usize = 480 * 1024;

fn render_with(
    req: &WidgetRequest<'_>,
    templates: &Templates,
    prose: Prose,
) -> Result<String, GenerateError> {
    use crate::model::text::{MAX_DESCRIPTION_CHARS, safe_text};
    let tool = req.tool;
    let name = tool.name.as_str();
    let title = safe_text(&display_title(tool), 500);
    let shown_name = safe_text(name, 1000);
    let description_chars = match prose {
        Prose::Shortened => MAX_DESCRIPTION_CHARS,
        Prose::Stripped => 2_000,
    };
    let description = safe_text(tool.description().unwrap_or(""), description_chars);
    let data = page_data(req, prose, templates.overridden);
    let destructive = crate::model::confirm::asks_on_click(tool.annotations());

    let parts = if templates.scripts_overridden {
        Parts::for_page(PageKind::Override)
    } else {
        Parts::for_tool(tool)
    };
    let mut env = minijinja::Environment::new();
    // Every template is HTML: values are escaped unless the template says `|safe`.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template("page.html", templates.get("page.html"))
        .map_err(|e| template_err(name, format!("page.html does not parse: {e}")))?;
    let tpl = env
        .get_template("page.html")
        .map_err(|e| template_err(name, e.to_string()))?;
    let ctx = minijinja::context! {
        name => shown_name,
        title => title,
        description => description,
        destructive => destructive,
        version => GENERATOR_VERSION,
        widget => req.widget,
        data => script_json(&data),
        styles => minify_css(&templates.styles(parts)),
        runtime => guard_script(&if templates.scripts_overridden {
            templates.runtime(parts)
        } else {
            strict_once(&templates.runtime(parts))
        }),
        app => guard_script(templates.get("app.js")),
    };
    let body = tpl
        .render(ctx)
        .map_err(|e| template_err(name, format!("page.html failed to render: {e}")))?;
    Ok(format!("{}{}", header_comment(name), body))
}

/// The embedded parts' script with one `"use strict"` for all of them: each minified part is a
/// function whose body opens with the directive, and the same directive at the top of the script
/// makes all of its code strict, so the parts' own copies say nothing more (a smaller page, the
/// same behaviour). Only for the embedded parts: an override script is never made strict.
fn strict_once(joined: &str) -> String {
    const DIRECTIVE: &str = "\"use strict\";";
    let mut out = String::with_capacity(joined.len() + DIRECTIVE.len());
    out.push_str(DIRECTIVE);
    for line in joined.split_inclusive('\n') {
        let opened = ["(()=>{", "!function(){"]
            .into_iter()
            .find_map(|open| Some((open, line.strip_prefix(open)?.strip_prefix(DIRECTIVE)?)));
        match opened {
            Some((open, rest)) => {
                out.push_str(open);
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::minify::INTERNAL_NAMES;
    use super::schema_needs::{CHECK_KEYWORDS, FORM_FIELD_BUDGET};
    use super::*;
    use crate::config::ToolConfig;
    use crate::model::Hints;
    use crate::model::Tool;
    use serde_json::{Value, json};

    fn req_for<'a>(tool: &'a Tool, cfg: &'a ToolConfig) -> WidgetRequest<'a> {
        WidgetRequest {
            tool,
            tool_config: cfg,
            widget: None,
            hints: Hints::default(),
            refinements: &[],
            server_name: "test",
        }
    }

    #[test]
    fn the_parts_script_says_use_strict_once() {
        let tool = Tool::from_raw(json!({"name": "t", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "string", "minLength": 2}}}}))
        .unwrap();
        let cfg = ToolConfig::default();
        let html = render(&req_for(&tool, &cfg), &Templates::embedded()).unwrap();
        let script = html.split("<script>").nth(1).unwrap();
        let script = script.split("</script>").next().unwrap();
        assert!(
            script
                .trim_start()
                .starts_with("\"use strict\";!function(){")
        );
        assert_eq!(script.matches("\"use strict\"").count(), 1, "{script}");
        // Every part is still there, each opening its own function.
        assert!(script.matches("\n(()=>{").count() >= 5, "{script}");
        // A part that is not one of ours keeps what it says.
        let odd = "(()=>{\"use strict\";a()})();\n(function(){\"use strict\";b()})();";
        assert_eq!(
            strict_once(odd),
            "\"use strict\";(()=>{a()})();\n(function(){\"use strict\";b()})();"
        );
    }

    #[test]
    fn hostile_strings_never_reach_markup() {
        let tool = Tool::from_raw(json!({
            "name": "x</script><script>alert(1)</script>",
            "title": "<img src=x onerror=alert(1)>",
            "description": "line1\n</script><b>\u{2028}",
            "inputSchema": {"type":"object","properties":{"a":{"type":"string","description":"</script><script>alert(2)</script>"}}}
        }))
        .unwrap();
        let cfg = ToolConfig::default();
        let html = render(&req_for(&tool, &cfg), &Templates::embedded()).unwrap();
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(!html.contains("<img src=x"));
        assert!(!html.contains("<b>"));
        let data = html.split("id=\"mcp-gen-ui-data\">").nth(1).unwrap();
        assert!(!data.contains('\u{2028}'));
        assert_eq!(html.matches("</script>").count(), 3);
    }

    #[test]
    fn form_budget_matches_form_js_and_embeds_the_editor_past_it() {
        let src = include_str!("../../../templates/form-json.js");
        assert!(
            src.contains(&format!("var BUDGET = {FORM_FIELD_BUDGET};")),
            "templates/form-json.js BUDGET must equal FORM_FIELD_BUDGET"
        );
        // A DAG of shared $refs: 2^20 fields when expanded, tiny as a schema.
        let mut defs = serde_json::Map::new();
        for i in 0..20 {
            let next = if i == 19 {
                json!({"type": "string"})
            } else {
                json!({"$ref": format!("#/$defs/n{}", i + 1)})
            };
            defs.insert(
                format!("n{i}"),
                json!({"type": "object", "properties": {"l": next.clone(), "r": next}}),
            );
        }
        let tool = Tool::from_raw(json!({"name": "dag", "inputSchema": {
            "type": "object", "properties": {"root": {"$ref": "#/$defs/n0"}}, "$defs": defs}}))
        .unwrap();
        let parts = Parts::for_tool(&tool);
        assert!(
            parts.wants("form-json.js"),
            "past the budget the page needs the JSON editor"
        );
    }

    #[test]
    fn same_input_same_bytes() {
        let tool = Tool::from_raw(json!({"name":"t","inputSchema":{"type":"object"}})).unwrap();
        let cfg = ToolConfig::default();
        let t = Templates::embedded();
        let a = render(&req_for(&tool, &cfg), &t).unwrap();
        let b = render(&req_for(&tool, &cfg), &t).unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with("<!-- Code generated by mcp-gen-ui from tool \"t\""));
    }

    #[test]
    fn script_json_escapes_closers() {
        let s = script_json(&json!({"a": "</script>&\u{2028}\u{2029}"}));
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'));
        assert!(!s.contains('\u{2028}') && !s.contains('\u{2029}'));
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back["a"], "</script>&\u{2028}\u{2029}");
    }

    /// Every part: the runtime of LLM-written pages.
    fn all() -> Parts {
        Parts::for_page(PageKind::Llm)
    }

    /// A builtin page's parts: what every page gets, and these.
    fn page(optional: &[&str]) -> Parts {
        let every = [
            "runtime.js",
            "schema.js",
            "hosts.js",
            "view.js",
            "export.js",
            "viewtools.js",
        ];
        // A page with a form keeps its drafts (drafts.js); a page without one has none.
        let drafts: &[&str] = if optional.contains(&"form.js") {
            &["drafts.js"]
        } else {
            &[]
        };
        Parts::of(&[&every[..], optional, drafts].concat())
    }

    fn parts(raw: Value) -> Parts {
        Parts::for_tool(&crate::model::Tool::from_raw(raw).unwrap())
    }

    #[test]
    fn validator_only_when_a_page_can_use_it() {
        let plain = json!({"type":"object","properties":{
            "city":{"type":"string"},
            "days":{"type":["integer","null"],"minimum":1},
            "units":{"$ref":"#/$defs/U","default":"metric"},
            "opt":{"anyOf":[{"type":"boolean"},{"type":"null"}]},
            "where":{"type":"object","properties":{"lat":{"type":"number"}}},
            "k":{"const":1}
        },"$defs":{"U":{"enum":["metric","imperial"]}}});
        let p = parts_of(plain.clone());
        assert_eq!(p, page(&["form.js", "form-choice.js", "checks.js"]));
        assert!(!p.wants("schema-check.js") && !p.wants("form-extra.js") && p.wants("view.js"));
        // No input at all, or an empty object: app.js says "takes no input" without form.js.
        for raw in [
            json!({"name":"a","inputSchema":{"type":"object"}}),
            json!({"name":"a","inputSchema":{"type":"object","properties":{}}}),
            json!({"name":"a"}),
        ] {
            let p = parts(raw);
            // (run_tool asks for a tool without annotations.)
            assert_eq!(p, page(&["confirm.js"]), "{p:?}");
        }
        // Anything that could still produce fields keeps the form.
        for input in [
            json!({"type":"object","additionalProperties":{"type":"string"}}),
            json!({"$ref":"#/$defs/a","$defs":{"a":{"properties":{"x":{}}}}}),
            json!({"anyOf":[{"properties":{"x":{}}}]}),
            json!(true),
        ] {
            assert!(
                parts(json!({"name":"a","inputSchema":input})).wants("form.js"),
                "{input}"
            );
        }
        // An input schema with more than the form checks (a conditional): the validator, the
        // branches' fields, and the JSON editor for a branch field no control expresses.
        let cond = json!({"type":"object","properties":{"animal":{"enum":["Cat","Dog"]}},
            "if":{"properties":{"animal":{"const":"Cat"}}},"then":{"required":["lives"]}});
        let p = parts(json!({"name":"a","inputSchema":cond}));
        assert!(p.wants("schema-check.js") && p.wants("checks.js") && p.wants("form-cond.js"));
        assert!(p.wants("form-json.js"));
        // More than the form checks without a branch (a `not`): the validator alone.
        let not =
            json!({"type":"object","properties":{"code":{"type":"string","not":{"const":"FREE"}}}});
        let p = parts(json!({"name":"a","inputSchema":not}));
        assert!(p.wants("schema-check.js") && !p.wants("form-cond.js"));
        // An outputSchema is checked in the page, without the JSON editor.
        let with_out = json!({"name":"a","inputSchema":plain,"outputSchema":{"type":"object"}});
        let p = parts(with_out);
        assert!(p.wants("schema-check.js") && !p.wants("form-json.js"));
        // Fields that end in the JSON editor: untyped, free objects, unknown types, allOf,
        // unresolvable refs; and everything form-extra.js handles.
        for field in [
            json!({}),
            json!({"description":"anything"}),
            json!({"type":"object"}),
            json!({"type":"object","properties":{}}),
            json!({"type":"file"}),
            json!({"allOf":[{"type":"string"}]}),
            json!({"$ref":"#/$defs/missing"}),
            json!({"type":"array","items":{"type":"string"}}),
            json!({"anyOf":[{"type":"string"},{"type":"number"}]}),
            json!({"type":"object","properties":{"x":{}}}),
        ] {
            let raw = json!({"name":"a","inputSchema":{"type":"object","properties":{"f":field}}});
            assert!(parts(raw).wants("form-json.js"), "{field}");
        }
        // A DAG of shared refs, 30^8 fields if expanded: bounded, and treated as "may need it".
        let mut defs = serde_json::Map::new();
        for i in 0..8 {
            let props: serde_json::Map<String, Value> = (0..30)
                .map(|k| {
                    (
                        format!("p{k}"),
                        json!({"$ref": format!("#/$defs/d{}", i + 1)}),
                    )
                })
                .collect();
            defs.insert(format!("d{i}"), json!({"type":"object","properties":props}));
        }
        defs.insert("d8".into(), json!({"type":"string"}));
        let dag = json!({"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":defs});
        assert!(parts(json!({"name":"a","inputSchema":dag})).wants("form-json.js"));
        // Arrays, maps and variants each bring their own part, with the JSON editor and the
        // validator they use, and not the others'.
        let extras = ["form-extra.js", "form-map.js", "form-variants.js"];
        for (field, want) in [
            (
                json!({"type":"array","items":{"type":"string"}}),
                "form-extra.js",
            ),
            (
                json!({"type":"object","additionalProperties":true}),
                "form-map.js",
            ),
            (
                json!({"type":"object","additionalProperties":{"type":"number"}}),
                "form-map.js",
            ),
            (
                json!({"oneOf":[{"type":"string"},{"type":"number"}]}),
                "form-variants.js",
            ),
            (json!({"type":["string","integer"]}), "form-variants.js"),
        ] {
            let p = with_field(field.clone());
            for part in extras {
                assert_eq!(p.wants(part), part == want, "{field}: {part}");
            }
            assert!(
                p.wants("form-json.js")
                    && p.wants("schema-check.js")
                    && p.wants_styles("form-extra")
            );
        }
        // A tuple: its own part, with form-extra.js's rows for the items after it.
        for tuple in [
            json!({"type":"array","prefixItems":[{"type":"string"}]}),
            json!({"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"number"}}),
        ] {
            let p = with_field(tuple.clone());
            assert!(
                p.wants("form-tuple.js") && p.wants("form-extra.js"),
                "{tuple}"
            );
        }
        assert!(
            !with_field(json!({"type":"array","items":{"type":"string"}})).wants("form-tuple.js")
        );
        // A list of variants: both.
        let p = with_field(
            json!({"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number"}]}}),
        );
        assert!(p.wants("form-extra.js") && p.wants("form-variants.js") && !p.wants("form-map.js"));
        // A $ref cycle with no field to hold it: no form, so no form-extra.js either.
        assert_eq!(
            parts(json!({"name":"a","annotations":{"readOnlyHint":true},
                "inputSchema":{"$defs":{"n":{"$ref":"#/$defs/n"}}}})),
            page(&[])
        );
    }

    #[test]
    fn form_extra_styles_only_with_form_extra() {
        let t = Templates::embedded();
        let every = t.styles(all());
        let plain = t.styles(page(&[
            "form.js",
            "form-choice.js",
            "form-time.js",
            "confirm.js",
        ]));
        assert!(every.contains(".rowh") && !plain.contains(".rowh"));
        assert!(plain.contains(".fld") && every.starts_with(&plain));
        // An override without the marker is embedded whole.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("styles.css"), ".rowh{color:red}").unwrap();
        let t = Templates::from_dir(dir.path()).unwrap();
        assert_eq!(t.styles(all()), t.styles(page(&[])));
    }

    /// The parts of a read-only tool with this input: what its schema needs, and no confirm.js.
    fn parts_of(input: Value) -> Parts {
        parts(json!({"name": "a", "inputSchema": input, "annotations": {"readOnlyHint": true}}))
    }

    fn with_field(field: Value) -> Parts {
        parts_of(json!({"type": "object", "properties": {"f": field}}))
    }

    #[test]
    fn a_plain_text_or_number_form_gets_no_optional_part() {
        for field in [
            json!({"type": "string", "description": "x"}),
            json!({"type": "number", "default": 3}),
            json!({"type": "integer"}),
            json!({"type": ["string", "null"]}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            json!({"type": "object", "properties": {"x": {"type": "string"}}}),
        ] {
            assert_eq!(with_field(field.clone()), page(&["form.js"]), "{field}");
        }
    }

    #[test]
    fn choices_only_when_a_field_can_be_one() {
        for field in [
            json!({"enum": ["a", "b"]}),
            json!({"const": 1}),
            json!({"type": "boolean"}),
            json!({"type": ["boolean", "null"]}),
            json!({"type": "null"}),
            json!({"type": ["null"]}),
            json!({"oneOf": [{"const": 1, "title": "One"}, {"const": 2}]}),
            json!({"anyOf": [{"type": "string"}, {"type": "number"}]}),
            json!({"anyOf": [{"type": "null"}]}),
            json!({"anyOf": "odd"}),
            json!({"$ref": "#/$defs/U"}),
            json!({"type": "array", "items": {"type": "boolean"}}),
        ] {
            let p = parts_of(json!({"type": "object", "properties": {"f": field},
                "$defs": {"U": {"enum": ["x"]}}}));
            assert!(
                p.wants("form-choice.js") && p.wants("form-choice.js"),
                "{field}"
            );
            assert!(p.wants_styles("choice"), "{field}");
        }
        // "T or null" is not a choice; {type: null} with more than a description is not "or
        // null" for the page (a variant then).
        assert!(
            !with_field(json!({"anyOf": [{"type": "string"}, {"type": "null"}]}))
                .wants("form-choice.js")
        );
        assert!(
            with_field(json!({"anyOf": [{"type": "string"}, {"type": "null", "a": 1, "b": 2}]}))
                .wants("form-choice.js")
        );
        // No form, no choice.
        assert!(
            !parts(json!({"name": "a", "inputSchema": {"type": "object", "enum": [1]}}))
                .wants("form-choice.js")
        );
    }

    #[test]
    fn time_part_only_for_time_formats() {
        for f in ["time", "date-time"] {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(
                p.wants("form-time.js")
                    && p.wants("checks.js")
                    && p.wants("form-time.js")
                    && p.wants_styles("time")
            );
        }
        for f in ["date", "email", "uri"] {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(
                !p.wants("form-time.js") && p.wants("checks.js") && !p.wants("form-time.js"),
                "{f}"
            );
        }
        // In $defs too, and never without a form.
        let p = parts_of(
            json!({"type": "object", "properties": {"f": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "string", "format": "date-time"}}}),
        );
        assert!(p.wants("form-time.js"));
        assert!(!parts_of(json!({"type": "object", "format": "time"})).wants("form-time.js"));
    }

    #[test]
    fn checks_only_for_constraints_or_with_the_validator() {
        for k in CHECK_KEYWORDS {
            let p = with_field(json!({"type": "string", k: 1}));
            assert!(p.wants("checks.js") && p.wants("checks.js"), "{k}");
        }
        assert!(!with_field(json!({"type": "string"})).wants("checks.js"));
        // schema-check.js uses them on every value.
        let p = parts(
            json!({"name": "a", "inputSchema": {"type": "object", "properties":
            {"f": {"type": "string"}}}, "outputSchema": {"type": "object"}}),
        );
        assert!(p.wants("schema-check.js") && p.wants("checks.js"));
    }

    #[test]
    fn format_checks_only_where_a_schema_has_a_format() {
        // A field with a format gets the checks and the part that checks it, not the other.
        for f in schema_needs::FORMATS {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(p.wants("checks.js") && p.wants("formats.js"), "{f}");
            assert!(!p.wants("formats-net.js"), "{f}");
        }
        for f in schema_needs::NET_FORMATS {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(p.wants("checks.js") && p.wants("formats-net.js"), "{f}");
            assert!(!p.wants("formats.js"), "{f}");
        }
        // A format no part checks (an annotation): neither.
        for f in ["password", "data-url", "binary", "Date", "int32"] {
            let p = with_field(json!({"type": "string", "format": f, "minLength": 1}));
            assert!(!p.wants("formats.js") && !p.wants("formats-net.js"), "{f}");
        }
        // Bounds, lengths and patterns without a format: the checks alone.
        for k in ["minLength", "maxLength", "pattern", "minimum", "multipleOf"] {
            let p = with_field(json!({"type": "string", k: 1}));
            assert!(p.wants("checks.js") && !p.wants("formats.js"), "{k}");
        }
        // In $defs too.
        let p = parts_of(
            json!({"type": "object", "properties": {"f": {"$ref": "#/$defs/E"}},
            "$defs": {"E": {"type": "string", "format": "email"}}}),
        );
        assert!(p.wants("formats-net.js"));
        // An outputSchema's format: the validator checks results with them.
        let out = |o: Value| {
            parts(
                json!({"name": "a", "inputSchema": {"type": "object", "properties":
                {"f": {"type": "string"}}}, "outputSchema": o}),
            )
        };
        let p = out(
            json!({"type": "object", "properties": {"at": {"type": "string", "format": "date"}}}),
        );
        assert!(p.wants("schema-check.js") && p.wants("formats.js"));
        let p = out(json!({"type": "object", "properties": {"at": {"type": "string"}}}));
        assert!(p.wants("schema-check.js") && !p.wants("formats.js"));
        // No checks at all: no format checks (a plain form, or a tool without input).
        assert!(!with_field(json!({"type": "string"})).wants("formats.js"));
        assert!(!parts(json!({"name": "a"})).wants("formats.js"));
    }

    #[test]
    fn the_ref_index_only_where_a_schema_names_more_than_a_pointer() {
        // JSON pointers from the root: schema.js follows them alone.
        let local = parts_of(
            json!({"type": "object", "properties": {"f": {"$ref": "#/$defs/T"},
            "g": {"$ref": "#/definitions/a~1b"}},
            "$defs": {"T": {"type": "string"}}, "definitions": {"a/b": {"type": "number"}}}),
        );
        assert!(local.wants("form.js") && !local.wants("schema-ids.js"));
        // An $id, an anchor, a dynamic ref, or a ref by URI: the index.
        for extra in [
            json!({"$id": "https://example.com/s"}),
            json!({"$defs": {"T": {"$anchor": "t"}}}),
            json!({"$defs": {"T": {"$dynamicAnchor": "t"}}}),
            json!({"properties": {"f": {"$dynamicRef": "#t"}}}),
            json!({"properties": {"f": {"$ref": "other.json#/x"}}}),
            json!({"properties": {"f": {"$ref": "https://mcp-gen-ui.invalid/input.json#/x"}}}),
        ] {
            let mut s = json!({"type": "object", "properties": {"g": {"type": "string"}}});
            for (k, v) in extra.as_object().unwrap() {
                s[k] = v.clone();
            }
            assert!(parts_of(s.clone()).wants("schema-ids.js"), "{s}");
        }
        // In an outputSchema too; the validator alone does not bring it (without it every schema
        // sits at the document's base URI).
        let p = parts(json!({"name": "a", "outputSchema": {"$defs": {"R": {"$id": "r.json"}}}}));
        assert!(p.wants("schema-ids.js"));
        let p = parts(json!({"name": "a", "outputSchema": {"type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}}}));
        assert!(p.wants("schema-check.js") && !p.wants("schema-ids.js"));
        assert!(!parts(json!({"name": "a"})).wants("schema-ids.js"));
    }

    #[test]
    fn confirm_only_for_tools_the_page_asks_about() {
        let with = |hint: Value| {
            parts(json!({"name": "a", "annotations": {"destructiveHint": hint}}))
                .wants("confirm.js")
        };
        // run_tool asks for every tool not explicitly safe (MCP's annotation defaults), so only
        // `destructiveHint: false` or `readOnlyHint: true` (the JSON literals) leave the question
        // out (book: reference/pages.md, "Who confirms").
        for v in [
            json!(true),
            json!(1),
            json!("yes"),
            json!({}),
            json!([]),
            json!(0),
            json!(""),
            json!(null),
            json!("false"),
        ] {
            assert!(with(v.clone()), "{v}");
        }
        assert!(!with(json!(false)));
        assert!(parts(json!({"name": "a"})).wants("confirm.js"));
        assert!(
            !parts(json!({"name": "a", "annotations": {"readOnlyHint": true}})).wants("confirm.js")
        );
        // A read-only tool that still says destructiveHint asks on the person's click.
        assert!(
            parts(
                json!({"name": "a", "annotations": {"readOnlyHint": true, "destructiveHint": true}})
            )
            .wants("confirm.js")
        );
        let p = parts(json!({"name": "a", "annotations": {"destructiveHint": true}}));
        assert!(p.wants("confirm.js") && p.wants_styles("confirm"));
        assert!(!p.wants("runner.js") && all().wants("runner.js"));
    }

    #[test]
    fn styles_embed_only_the_parts_a_page_uses() {
        let t = Templates::embedded();
        let none = Parts::NONE;
        let bare = t.styles(none);
        assert!(bare.contains(".chart") && bare.contains(".help"));
        for (part, probe) in [
            (Parts::of(&["form.js"]), "fieldset.obj"),
            (Parts::of(&["form-choice.js"]), ".fld.chk"),
            (Parts::of(&["form-time.js"]), ".tz"),
            (Parts::of(&["confirm.js"]), ".btn.danger"),
            (Parts::of(&["runner.js"]), ".btn.danger"),
            (Parts::of(&["form-extra.js"]), ".rowh"),
            (Parts::of(&["form-extra.js"]), ".fld.chk"),
        ] {
            assert!(!bare.contains(probe), "{probe}");
            assert!(t.styles(part).contains(probe), "{probe}");
        }
        // Unknown part names are kept.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("styles.css"),
            "a{}/* @part later: x */b{}/* @part form */c{}",
        )
        .unwrap();
        let t = Templates::from_dir(dir.path()).unwrap();
        assert_eq!(t.styles(none), "a{}/* @part later: x */b{}");
    }

    #[test]
    fn override_scripts_get_every_part_and_the_same_internal_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("app.js"),
            "var b = box.__err, r = s['__refs'], k = x.__errs, m = c._meta;\n",
        )
        .unwrap();
        let t = Templates::from_dir(dir.path()).unwrap();
        let names: BTreeMap<String, String> = serde_json::from_str(INTERNAL_NAMES).unwrap();
        let (err, refs) = (&names["__err"], &names["__refs"]);
        assert_eq!(
            t.get("app.js"),
            format!("var b = box.{err}, r = s['{refs}'], k = x.__errs, m = c._meta;\n")
        );
        // The embedded scripts use the short names.
        assert!(
            Templates::embedded()
                .get("form.js")
                .contains(&format!(".{err}"))
        );
        assert!(!Templates::embedded().get("form.js").contains("__err"));
        let tool = Tool::from_raw(json!({"name": "t", "inputSchema": {"type": "object"}})).unwrap();
        let cfg = ToolConfig::default();
        let html = render(&req_for(&tool, &cfg), &t).unwrap();
        assert!(html.contains(".rowh") && html.contains("overBudget"));
        // A styles-only override keeps the tool's own parts.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("styles.css"), "body{}").unwrap();
        let html = render(
            &req_for(&tool, &cfg),
            &Templates::from_dir(dir.path()).unwrap(),
        )
        .unwrap();
        assert!(!html.contains("overBudget"));
    }

    #[test]
    fn page_data_leaves_out_what_app_js_does_not_read_unless_templates_are_overridden() {
        let tool = Tool::from_raw(json!({"name": "t", "title": "T", "description": "Long prose",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "description": "help"}}},
            "annotations": {"readOnlyHint": true, "destructiveHint": false}}))
        .unwrap();
        let cfg = ToolConfig::default();
        let data = page_data(&req_for(&tool, &cfg), Prose::Shortened, false);
        assert_eq!(
            data,
            json!({"version": GENERATOR_VERSION, "server": "test", "tool": {"name": "t", "title": "T",
                "description": "Long prose", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "description": "help"}}},
                "annotations": {"readOnlyHint": true, "destructiveHint": false}}})
        );
        let full = page_data(&req_for(&tool, &cfg), Prose::Shortened, true);
        assert_eq!(full["tool"]["annotations"]["readOnlyHint"], true);
        assert_eq!(full["widget"], Value::Null);
        assert_eq!(full["examples"], json!([]));
        let no_hint = Tool::from_raw(json!({"name": "t", "annotations": {"title": "x"}})).unwrap();
        let data = page_data(&req_for(&no_hint, &cfg), Prose::Shortened, false);
        assert_eq!(data["tool"], json!({"name": "t"}));
    }

    #[test]
    fn fingerprint_tracks_templates() {
        let a = Templates::embedded();
        let mut b = Templates::embedded();
        b.files.insert("styles.css", "body{}".into());
        assert_ne!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint(), Templates::embedded().fingerprint());
        assert!(template_version(&a).starts_with("builtin-"));
    }

    #[test]
    fn override_dir_falls_back_to_embedded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("styles.css"), "body{color:red}").unwrap();
        let t = Templates::from_dir(dir.path()).unwrap();
        assert_eq!(t.get("styles.css"), "body{color:red}");
        assert_eq!(t.get("runtime.js"), Templates::embedded().get("runtime.js"));
        std::fs::write(dir.path().join("app.js"), "  // c\n  var a = 1;\n").unwrap();
        assert_eq!(
            Templates::from_dir(dir.path()).unwrap().get("app.js"),
            "var a = 1;\n"
        );
        assert!(Templates::from_dir(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn embedded_sources_are_compacted_safely() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
        for n in PARTS.iter().map(|p| p.file).chain(["app.js"]) {
            let src = std::fs::read_to_string(dir.join(n)).unwrap();
            assert!(!src.contains('`'), "{n} must not use template literals");
            assert!(!src.contains("innerHTML"), "{n}");
            assert!(!src.contains("eval("), "{n}");
        }
        assert!(runtime_js().contains("McpGenUi"));
    }
}
