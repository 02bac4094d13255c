//! The builtin generator: deterministic and offline. One minijinja page template plus inline
//! JavaScript (runtime, schema helpers, result view, form, page glue) and CSS, with the tool's data
//! embedded only as escaped JSON.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::request::{GENERATOR_VERSION, GenerateError, WidgetRequest};
use crate::model::header_comment;

/// The readable sources under `templates/` that a user's override directory may replace.
const TEMPLATE_NAMES: [&str; 18] = [
    "page.html",
    "styles.css",
    "runtime.js",
    "hosts.js",
    "viewtools.js",
    "runner.js",
    "forms.js",
    "llm.js",
    "schema.js",
    "checks.js",
    "validate.js",
    "view.js",
    "form.js",
    "form-choice.js",
    "form-time.js",
    "form-extra.js",
    "confirm.js",
    "app.js",
];

/// What the binary embeds: the page and styles as written, and each script minified into
/// `templates/min/` (committed; `node tests/tools/minify.mjs` writes them, and the Node suite
/// fails when one is stale).
const EMBEDDED: [(&str, &str); 18] = [
    ("page.html", include_str!("../../templates/page.html")),
    ("styles.css", include_str!("../../templates/styles.css")),
    ("runtime.js", include_str!("../../templates/min/runtime.js")),
    ("hosts.js", include_str!("../../templates/min/hosts.js")),
    (
        "viewtools.js",
        include_str!("../../templates/min/viewtools.js"),
    ),
    ("runner.js", include_str!("../../templates/min/runner.js")),
    ("forms.js", include_str!("../../templates/min/forms.js")),
    ("llm.js", include_str!("../../templates/min/llm.js")),
    ("schema.js", include_str!("../../templates/min/schema.js")),
    ("checks.js", include_str!("../../templates/min/checks.js")),
    (
        "validate.js",
        include_str!("../../templates/min/validate.js"),
    ),
    ("view.js", include_str!("../../templates/min/view.js")),
    ("form.js", include_str!("../../templates/min/form.js")),
    (
        "form-choice.js",
        include_str!("../../templates/min/form-choice.js"),
    ),
    (
        "form-time.js",
        include_str!("../../templates/min/form-time.js"),
    ),
    (
        "form-extra.js",
        include_str!("../../templates/min/form-extra.js"),
    ),
    ("confirm.js", include_str!("../../templates/min/confirm.js")),
    ("app.js", include_str!("../../templates/min/app.js")),
];

/// How the minifier renamed the internal (`_`) property names of the embedded scripts, as a JSON
/// object `{"_long": "_x"}`. Override scripts get the same renaming, so that they and the embedded
/// scripts still agree on those names.
const INTERNAL_NAMES: &str = include_str!("../../templates/min/names.json");

/// The form's field budget: `BUDGET` in templates/validate.js (keep the two equal).
const FORM_FIELD_BUDGET: usize = 600;

/// The scripts that make up `window.McpGenUi`, in load order (everything but the page glue).
/// runtime.js comes first: it declares the extension points (`McpGenUi._on(point, fn)`, listed at
/// its top) that the optional parts register into instead of replacing one another's functions.
/// schema.js's helpers serve every later script; checks.js registers the `check` behind
/// schema.js's `scalarErrors`; the form's parts add themselves to form.js's exports; validate.js
/// adds the JSON editor, which form-extra.js takes at load; viewtools.js registers for the `form`
/// and `event` points, and runner.js (which adds to viewtools.js) for `connect`; llm.js (llm pages
/// only) registers for `call` and `failed`.
const RUNTIME_FILES: [&str; 15] = [
    "runtime.js",
    "schema.js",
    "checks.js",
    "hosts.js",
    "forms.js",
    "view.js",
    "form.js",
    "form-choice.js",
    "form-time.js",
    "validate.js",
    "form-extra.js",
    "viewtools.js",
    "runner.js",
    "confirm.js",
    "llm.js",
];

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
            files: EMBEDDED
                .iter()
                .map(|(n, s)| (*n, (*s).to_string()))
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
        for name in TEMPLATE_NAMES {
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
        RUNTIME_FILES
            .iter()
            .filter(|n| parts.wants(n))
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
    RUNTIME.get_or_init(|| Templates::embedded().runtime(Parts::ALL))
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

/// How much of the tool's prose (descriptions, titles) a page embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prose {
    /// Each string shortened to a readable length, with a visible marker.
    Shortened,
    /// Schema descriptions, titles and examples left out; the tool description shortened more.
    Stripped,
}

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
    let destructive = destructive_hint(tool);

    let parts = if templates.scripts_overridden {
        Parts::OVERRIDE
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
        runtime => guard_script(&templates.runtime(parts)),
        app => guard_script(templates.get("app.js")),
    };
    let body = tpl
        .render(ctx)
        .map_err(|e| template_err(name, format!("page.html failed to render: {e}")))?;
    Ok(format!("{}{}", header_comment(name), body))
}

/// The optional scripts of a page. Each one is left out only when the tool's schemas prove the
/// page cannot use it, which keeps a typical page small. The code that would call a missing part
/// still degrades instead of failing: no form.js means "takes no input", no form-extra.js or
/// form-choice.js means the JSON editor, no form-time.js means text fields, no checks.js means
/// nothing to check, no validate.js means no client-side check (the server still validates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Parts {
    /// forms.js and llm.js: form submission in hosts without allow-forms, argument checks,
    /// storage, notices and confirmations, for LLM-written pages.
    submit_shim: bool,
    /// runner.js: the run_tool view tool for pages whose glue sets no runner.
    runner: bool,
    form: bool,
    /// form-choice.js: enums, consts, booleans.
    choice: bool,
    /// form-time.js: time and date-time fields.
    time: bool,
    /// checks.js: minLength, pattern, format, minimum, … behind the form's inline messages.
    checks: bool,
    form_extra: bool,
    validator: bool,
    /// confirm.js: the question before a destructive tool runs.
    confirm: bool,
}

impl Parts {
    const ALL: Parts = Parts {
        submit_shim: true,
        runner: true,
        form: true,
        choice: true,
        time: true,
        checks: true,
        form_extra: true,
        validator: true,
        confirm: true,
    };

    /// A page built from override scripts: they may use any part, and the glue may set no runner.
    const OVERRIDE: Parts = Parts {
        submit_shim: false,
        ..Parts::ALL
    };

    /// The one place that decides a builtin page's parts from its tool.
    fn for_tool(tool: &crate::model::Tool) -> Parts {
        let input = tool.input_schema();
        let form = input.is_some_and(|s| !takes_no_input(s));
        let form_extra = needs_form_extra(input);
        // validate.js checks structuredContent against an outputSchema, holds the JSON editor
        // and the form's field budget, and picks a variant for a pre-filled value
        // (form-extra.js).
        let validator = form_extra
            || tool.raw.get("outputSchema").is_some_and(Value::is_object)
            || !input.is_none_or(plain_form);
        let input = input.filter(|_| form);
        Parts {
            // The builtin page runs from its button's click and sets its own runner.
            submit_shim: false,
            runner: false,
            form,
            choice: input.is_some_and(needs_choice),
            time: input.is_some_and(needs_time),
            // validate.js runs the same checks on every value.
            checks: validator || input.is_some_and(needs_checks),
            form_extra,
            validator,
            // The person's click asks for destructiveHint tools, run_tool for every tool the
            // annotations do not call safe.
            confirm: destructive_hint(tool) || model_run_asks(tool),
        }
    }

    fn wants(self, script: &str) -> bool {
        match script {
            "forms.js" | "llm.js" => self.submit_shim,
            "runner.js" => self.runner,
            "form.js" => self.form,
            "form-choice.js" => self.choice,
            "form-time.js" => self.time,
            "checks.js" => self.checks,
            "form-extra.js" => self.form_extra,
            "validate.js" => self.validator,
            "confirm.js" => self.confirm,
            _ => true,
        }
    }

    /// Whether a page embeds the rules after a `/* @part NAME` marker in styles.css.
    fn wants_styles(self, part: &str) -> bool {
        match part {
            "form" => self.form,
            // form-extra.js's lists of checkboxes use the choices' checkbox rules.
            "choice" => self.choice || self.form_extra,
            "time" => self.time,
            // runner.js asks in a panel styled like confirm.js's.
            "confirm" => self.confirm || self.runner,
            "form-extra" => self.form_extra,
            _ => true,
        }
    }
}

/// `annotations.destructiveHint` as app.js reads it (JavaScript truthiness): the page asks before
/// running the tool.
fn destructive_hint(tool: &crate::model::Tool) -> bool {
    match tool.annotations().and_then(|a| a.get("destructiveHint")) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// Whether a run the model asks for (the `run_tool` view tool) asks the person first, as
/// viewtools.js decides it: unless `readOnlyHint` is true or `destructiveHint` is explicitly false
/// (the MCP annotation defaults).
fn model_run_asks(tool: &crate::model::Tool) -> bool {
    let ann = tool.annotations();
    let is = |k: &str, v: bool| ann.and_then(|a| a.get(k)) == Some(&Value::Bool(v));
    !(is("readOnlyHint", true) || is("destructiveHint", false))
}

/// Whether any object anywhere in `v` (schemas, `$defs`, even defaults) satisfies `hit`: a
/// conservative scan, since a part left out by mistake would break a field.
fn any_object(v: &Value, depth: usize, hit: &impl Fn(&Map<String, Value>) -> bool) -> bool {
    if depth > 256 {
        return true;
    }
    match v {
        Value::Object(m) => hit(m) || m.values().any(|x| any_object(x, depth + 1, hit)),
        Value::Array(a) => a.iter().any(|x| any_object(x, depth + 1, hit)),
        _ => false,
    }
}

/// Whether a field can become a choice, a constant or a yes/no control (form-choice.js): `enum`,
/// `const`, a boolean or null type, or `oneOf`/`anyOf` that is more than "T or null" (a list of
/// consts is a choice; variants, form-extra.js's, may hold any of these).
fn needs_choice(schema: &Value) -> bool {
    // schema.js's norm(): {type: "null"} with at most one other keyword is "or null", and is no
    // field of its own.
    fn null_alt(a: &Value) -> bool {
        a.as_object()
            .is_some_and(|o| o.get("type") == Some(&json!("null")) && o.len() <= 2)
    }
    fn walk(v: &Value, depth: usize) -> bool {
        if depth > 256 {
            return true;
        }
        let m = match v {
            Value::Object(m) => m,
            Value::Array(a) => return a.iter().any(|x| walk(x, depth + 1)),
            _ => return false,
        };
        let kinds = match m.get("type") {
            Some(Value::String(t)) => t == "boolean" || t == "null",
            Some(Value::Array(ts)) => {
                ts.iter().any(|t| t == "boolean") || ts.iter().all(|t| t == "null")
            }
            _ => false,
        };
        let alts = ["oneOf", "anyOf"].iter().any(|k| match m.get(*k) {
            Some(Value::Array(a)) => a.iter().filter(|x| !null_alt(x)).count() != 1,
            Some(_) => true,
            None => false,
        });
        m.contains_key("enum")
            || m.contains_key("const")
            || kinds
            || alts
            || m.iter().any(|(k, x)| match x {
                Value::Array(a) if k == "oneOf" || k == "anyOf" => {
                    a.iter().any(|x| !null_alt(x) && walk(x, depth + 1))
                }
                _ => walk(x, depth + 1),
            })
    }
    walk(schema, 0)
}

/// Whether a field can be a time or date-time field (form-time.js).
fn needs_time(schema: &Value) -> bool {
    any_object(
        schema,
        0,
        &|m| matches!(m.get("format"), Some(Value::String(f)) if f == "time" || f == "date-time"),
    )
}

/// The keywords checks.js checks.
const CHECK_KEYWORDS: [&str; 9] = [
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Whether a field has anything checks.js checks.
fn needs_checks(schema: &Value) -> bool {
    any_object(schema, 0, &|m| {
        CHECK_KEYWORDS.iter().any(|k| m.contains_key(*k))
    })
}

/// Whether every input field becomes a control without the JSON editor: scalars, enums, consts,
/// "T or null", and objects of those, through local `$ref`s (mirroring `pick()` in form.js).
/// Anything else counts as "may need the editor", to stay on the safe side.
fn plain_form(root: &Value) -> bool {
    // Shared `$ref`s can make a small schema an exponentially large tree. form.js builds no form
    // past FORM_FIELD_BUDGET fields (it shows the JSON editor instead), and this walk counts at
    // least as many nodes as its count does, so a page past the budget always embeds the editor.
    let mut budget = FORM_FIELD_BUDGET;
    takes_no_input(root) || plain_field(root, root, 0, &mut budget)
}

/// An input schema with nothing to fill in, for which buildForm() in form.js would only say
/// "This tool takes no input." (app.js says it without form.js).
fn takes_no_input(root: &Value) -> bool {
    let Value::Object(m) = root else {
        return false;
    };
    let no_fields = m
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty());
    let open = matches!(m.get("additionalProperties"), Some(Value::Object(_)))
        || ["oneOf", "anyOf", "allOf", "$ref"]
            .iter()
            .any(|k| m.contains_key(*k));
    no_fields && !open
}

fn plain_field(s: &Value, root: &Value, depth: usize, budget: &mut usize) -> bool {
    if depth > 20 || *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Value::Object(m) = s else {
        return false;
    };
    if let Some(r) = m.get("$ref") {
        // form.js merges the target under the sibling keywords.
        let Some(Value::Object(target)) = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        else {
            return false;
        };
        let mut merged = target.clone();
        merged.extend(
            m.iter()
                .filter(|(k, _)| *k != "$ref")
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        return plain_field(&Value::Object(merged), root, depth + 1, budget);
    }
    if m.get("enum").is_some_and(Value::is_array) || m.contains_key("const") {
        return true;
    }
    if m.contains_key("allOf") || m.contains_key("not") {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = m.get(key) {
            // Only "T or null" is a plain field (nullable T); real variants are form-extra's.
            let Some(alts) = alts.as_array() else {
                return false;
            };
            let real: Vec<&Value> = alts.iter().filter(|a| !is_null_schema(a)).collect();
            let [one] = real.as_slice() else {
                return false;
            };
            let mut merged = m.clone();
            merged.remove(key);
            if let Value::Object(alt) = one {
                merged.extend(alt.iter().map(|(k, v)| (k.clone(), v.clone())));
            } else {
                return false;
            }
            return plain_field(&Value::Object(merged), root, depth + 1, budget);
        }
    }
    let ty = match m.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => {
            let real: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match real.as_slice() {
                [one] if real.len() + 1 == ts.len() => Some(*one),
                _ => return false,
            }
        }
        Some(_) => return false,
        None if m.contains_key("properties") => Some("object"),
        None => None,
    };
    match ty {
        Some("string" | "number" | "integer" | "boolean" | "null") => true,
        Some("object") => {
            let Some(Value::Object(props)) = m.get("properties") else {
                return false;
            };
            !props.is_empty()
                && !matches!(m.get("additionalProperties"), Some(Value::Object(_)))
                && !m.contains_key("patternProperties")
                && props
                    .values()
                    .all(|p| plain_field(p, root, depth + 1, budget))
        }
        _ => false,
    }
}

/// Whether the input schema uses anything `form-extra.js` implements: arrays, real variants
/// (`oneOf`/`anyOf` beyond "T or null"), several types, maps, or a `$ref` cycle. Conservative:
/// anything it cannot rule out pulls the extra script in.
fn needs_form_extra(schema: Option<&Value>) -> bool {
    let Some(root) = schema else {
        return false;
    };
    uses_extra(root, 0) || has_ref_cycle(root)
}

fn uses_extra(v: &Value, depth: usize) -> bool {
    if depth > 256 {
        return true;
    }
    match v {
        Value::Object(m) => {
            let kw = ["items", "prefixItems", "$dynamicRef"]
                .iter()
                .any(|k| m.contains_key(*k));
            let alts = ["oneOf", "anyOf"].iter().any(|k| match m.get(*k) {
                Some(Value::Array(a)) => a.iter().filter(|x| !is_null_schema(x)).count() > 1,
                Some(_) => true,
                None => false,
            });
            let ty = match m.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(ts)) => {
                    ts.iter().any(|t| t == "array")
                        || ts.iter().filter(|t| *t != "null").count() > 1
                }
                _ => false,
            };
            let map = matches!(m.get("additionalProperties"), Some(Value::Object(_)))
                || (m.get("additionalProperties") == Some(&Value::Bool(true))
                    && m.get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|p| !p.is_empty()))
                || (depth > 0 && any_map(m));
            kw || alts || ty || map || m.values().any(|x| uses_extra(x, depth + 1))
        }
        Value::Array(a) => a.iter().any(|x| uses_extra(x, depth + 1)),
        _ => false,
    }
}

/// An object field that declares nothing about its keys (`dict[str, Any]`): form.js edits it as
/// key/value rows (form-extra.js) instead of JSON. The same test as `anyMap` in form.js.
fn any_map(m: &Map<String, Value>) -> bool {
    let object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        _ => false,
    };
    let no_keys = m
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    object
        && no_keys
        && !matches!(m.get("additionalProperties"), Some(Value::Bool(false)))
        && !m.contains_key("patternProperties")
        && ["enum", "const", "oneOf", "anyOf", "allOf", "$ref"]
            .iter()
            .all(|k| !m.contains_key(*k))
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

/// A `$ref` chain that comes back to where it started (the form expands those lazily).
/// Unresolvable or non-local refs count as cycles, to stay on the safe side.
fn has_ref_cycle(root: &Value) -> bool {
    fn refs(v: &Value, out: &mut Vec<String>, depth: usize) {
        if depth > 256 {
            return;
        }
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                m.values().for_each(|x| refs(x, out, depth + 1));
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out, depth + 1)),
            _ => {}
        }
    }
    let mut start = Vec::new();
    refs(root, &mut start, 0);
    for r in &start {
        // Depth-first walk from each ref; reaching it again is a cycle.
        let mut stack = vec![r.clone()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(cur) = stack.pop() {
            let Some(target) = cur.strip_prefix('#').and_then(|p| root.pointer(p)) else {
                return true;
            };
            let mut next = Vec::new();
            refs(target, &mut next, 0);
            for n in next {
                if n == *r {
                    return true;
                }
                if seen.insert(n.clone()) {
                    stack.push(n);
                }
            }
            if seen.len() > 10_000 {
                return true;
            }
        }
    }
    false
}

/// `title`, else `annotations.title`, else the name.
fn display_title(tool: &crate::model::Tool) -> String {
    tool.title()
        .or_else(|| {
            tool.annotations()
                .and_then(|a| a.get("title"))
                .and_then(Value::as_str)
        })
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(&tool.name)
        .to_string()
}

/// The JSON the page reads at load: the parts of the tool that shape the UI, and the hints. With
/// the embedded templates, of the annotations only `readOnlyHint` and `destructiveHint` (the ones
/// app.js reads: who confirms), and empty values are left out; pages built from an override directory get all of it (`full`).
fn page_data(req: &WidgetRequest<'_>, prose: Prose, full: bool) -> Value {
    use crate::model::text::{
        MAX_DESCRIPTION_CHARS, MAX_SCHEMA_TEXT_CHARS, safe_text, shorten_prose, strip_prose,
    };
    let mut t = Map::new();
    for key in [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ] {
        if let Some(v) = req.tool.raw.get(key) {
            let mut v = v.clone();
            if !full && key == "annotations" {
                let hints: Map<String, Value> = v
                    .as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| *k == "readOnlyHint" || *k == "destructiveHint")
                    .map(|(k, x)| (k.clone(), x.clone()))
                    .collect();
                if hints.is_empty() {
                    continue;
                }
                v = Value::Object(hints);
            }
            // The page's validator ignores the dialect URI; leaving it out saves bytes per page.
            if let Value::Object(schema) = &mut v
                && key.ends_with("Schema")
            {
                schema.shift_remove("$schema");
            }
            match (key, &mut v) {
                ("description", Value::String(d)) => {
                    let max = match prose {
                        Prose::Shortened => MAX_DESCRIPTION_CHARS,
                        Prose::Stripped => 2_000,
                    };
                    *d = safe_text(d, max);
                }
                ("title", Value::String(d)) => *d = safe_text(d, 500),
                ("name", _) => {}
                _ => match prose {
                    Prose::Shortened => shorten_prose(&mut v, MAX_SCHEMA_TEXT_CHARS),
                    Prose::Stripped => strip_prose(&mut v),
                },
            }
            t.insert(key.to_string(), v);
        }
    }
    let mut data = json!({
        "version": GENERATOR_VERSION,
        "tool": Value::Object(t),
        "widget": req.widget,
        "hints": serde_json::to_value(&req.hints).unwrap_or(Value::Null),
        "examples": req.tool_config.examples,
    });
    if !full && let Value::Object(m) = &mut data {
        m.retain(|_, v| match v {
            Value::Null => false,
            Value::Object(o) => !o.is_empty(),
            Value::Array(a) => !a.is_empty(),
            _ => true,
        });
    }
    data
}

/// JSON for a `<script type="application/json">` block: nothing in it can close the element or
/// start markup, and U+2028/2029 are escaped too, so it is safe to paste anywhere.
pub fn script_json(v: &Value) -> String {
    let s = serde_json::to_string(v).unwrap_or_else(|_| "null".into());
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A user's override template could contain `</script`; breaking it keeps the page's structure
/// intact (the script then fails loudly instead of leaking into HTML).
fn guard_script(js: &str) -> String {
    js.replace("</script", "<\\/script")
        .replace("</SCRIPT", "<\\/SCRIPT")
}

/// Strips indentation, blank lines and `//` comment-only lines. Only applied when the source has
/// no template literal and no line continuation: then no string or regex can span lines, so a line
/// starting with `//` is always a comment and leading whitespace is never inside a token.
fn compact_js(src: &str) -> String {
    let unsafe_line = |l: &str| {
        let t = l.trim();
        t.ends_with('\\') || (t.starts_with("//") && t.contains("*/"))
    };
    if src.contains('`') || src.lines().any(unsafe_line) {
        return src.to_string();
    }
    compact_lines(src, |l| l.starts_with("//"))
}

/// Renames the runtime's internal (`_`) property names in an override script the way the minifier
/// renamed them in the embedded ones (`INTERNAL_NAMES`), so that both still agree. Every
/// identifier-like token equal to such a name is renamed, in strings too (`o['__refs']`).
fn rename_internal(src: &str) -> String {
    static NAMES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| serde_json::from_str(INTERNAL_NAMES).unwrap_or_default());
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(start) = rest.find(word) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c: char| !word(c)).unwrap_or(tail.len());
        let token = &tail[..end];
        out.push_str(names.get(token).map_or(token, String::as_str));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Whitespace and comment removal for CSS that never changes meaning: strings are copied as is,
/// comments dropped, whitespace runs become one space, and a space is dropped only next to
/// `{ } ; , >` or after `:` (never before `:`, which would turn `a :hover` into `a:hover`, and
/// never around `+`/`-`, which `calc()` needs).
fn minify_css(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut pending_space = false;
    let glue = |c: char| matches!(c, '{' | '}' | ';' | ',' | '>');
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                flush_space(&mut out, &mut pending_space, c, glue);
                out.push(c);
                while let Some(d) = chars.next() {
                    out.push(d);
                    if d == '\\' {
                        if let Some(e) = chars.next() {
                            out.push(e);
                        }
                    } else if d == c || d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for d in chars.by_ref() {
                    if prev == '*' && d == '/' {
                        break;
                    }
                    prev = d;
                }
                pending_space = true;
            }
            c if c.is_whitespace() => pending_space = true,
            c => {
                if c == '}' && out.ends_with(';') {
                    out.pop();
                }
                flush_space(&mut out, &mut pending_space, c, glue);
                out.push(c);
            }
        }
    }
    out.push('\n');
    out
}

fn flush_space(out: &mut String, pending: &mut bool, next: char, glue: impl Fn(char) -> bool) {
    if std::mem::take(pending) {
        let prev = out.chars().last();
        let droppable = prev.is_none_or(|p| glue(p) || p == ':') || glue(next);
        if !droppable {
            out.push(' ');
        }
    }
}

fn compact_lines(src: &str, is_comment: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let l = line.trim();
        if l.is_empty() || is_comment(l) {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolConfig;
    use crate::model::Hints;
    use crate::model::Tool;

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
        let src = include_str!("../../templates/validate.js");
        assert!(
            src.contains(&format!("var BUDGET = {FORM_FIELD_BUDGET};")),
            "templates/validate.js BUDGET must equal FORM_FIELD_BUDGET"
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
            parts.validator,
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

    #[test]
    fn compaction_is_skipped_when_unsafe() {
        let tpl = "var a = `\n  // not a comment\n`;";
        assert_eq!(compact_js(tpl), tpl);
        let cont = "var a = 'x\\\n  // not a comment';";
        assert_eq!(compact_js(cont), cont);
        assert_eq!(
            compact_js("  // c\n  var a = 1; // trailing\n\n"),
            "var a = 1; // trailing\n"
        );
    }

    #[test]
    fn css_minification_keeps_meaning() {
        assert_eq!(
            minify_css(
                "/* c */\na :hover , b > c {\n  content: \" ▲ ; \";\n  width: calc(1px + 2px);\n}\n"
            ),
            "a :hover,b>c{content:\" ▲ ; \";width:calc(1px + 2px)}\n"
        );
        assert_eq!(minify_css("a{b:'x\\' y'}"), "a{b:'x\\' y'}\n");
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
        assert_eq!(
            p,
            Parts {
                submit_shim: false,
                runner: false,
                form: true,
                choice: true,
                time: false,
                checks: true,
                form_extra: false,
                validator: false,
                confirm: false,
            }
        );
        assert!(!p.wants("validate.js") && !p.wants("form-extra.js") && p.wants("view.js"));
        // No input at all, or an empty object: app.js says "takes no input" without form.js.
        for raw in [
            json!({"name":"a","inputSchema":{"type":"object"}}),
            json!({"name":"a","inputSchema":{"type":"object","properties":{}}}),
            json!({"name":"a"}),
        ] {
            let p = parts(raw);
            assert!(!p.form && !p.validator && !p.wants("form.js"), "{p:?}");
        }
        // Anything that could still produce fields keeps the form.
        for input in [
            json!({"type":"object","additionalProperties":{"type":"string"}}),
            json!({"$ref":"#/$defs/a","$defs":{"a":{"properties":{"x":{}}}}}),
            json!({"anyOf":[{"properties":{"x":{}}}]}),
            json!(true),
        ] {
            assert!(
                parts(json!({"name":"a","inputSchema":input})).form,
                "{input}"
            );
        }
        // An outputSchema is checked in the page.
        let with_out = json!({"name":"a","inputSchema":plain,"outputSchema":{"type":"object"}});
        assert!(parts(with_out).validator);
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
            assert!(parts(raw).validator, "{field}");
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
        assert!(parts(json!({"name":"a","inputSchema":dag})).validator);
        assert_eq!(
            Parts::ALL,
            Parts {
                submit_shim: true,
                runner: true,
                form: true,
                choice: true,
                time: true,
                checks: true,
                form_extra: true,
                validator: true,
                confirm: true,
            }
        );
    }

    #[test]
    fn form_extra_styles_only_with_form_extra() {
        let t = Templates::embedded();
        let all = t.styles(Parts::ALL);
        let plain = t.styles(Parts {
            form_extra: false,
            ..Parts::ALL
        });
        assert!(all.contains(".rowh") && !plain.contains(".rowh"));
        assert!(plain.contains(".fld") && all.starts_with(&plain));
        // An override without the marker is embedded whole.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("styles.css"), ".rowh{color:red}").unwrap();
        let t = Templates::from_dir(dir.path()).unwrap();
        assert_eq!(
            t.styles(Parts::ALL),
            t.styles(Parts {
                form_extra: false,
                ..Parts::ALL
            })
        );
    }

    #[test]
    fn maps_of_any_values_get_key_value_rows_but_an_empty_root_does_not() {
        // dict[str, Any] as a field: key/value rows (form-extra.js).
        assert!(needs_form_extra(Some(
            &json!({"type":"object","properties":{"values":{"type":"object","additionalProperties":true}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"type":"object","properties":{"values":{"type":"object","properties":{}}}})
        )));
        // The tool takes no input: nothing to edit.
        assert!(!needs_form_extra(Some(
            &json!({"type":"object","properties":{},"additionalProperties":true})
        )));
        // Closed or patterned objects are not free maps.
        assert!(!needs_form_extra(Some(
            &json!({"type":"object","properties":{"v":{"type":"object","additionalProperties":false}}})
        )));
        assert!(!needs_form_extra(Some(
            &json!({"type":"object","properties":{"v":{"type":"object","patternProperties":{"^x":{"type":"string"}}}}})
        )));
    }

    #[test]
    fn form_extra_only_when_needed() {
        assert!(!needs_form_extra(Some(
            &json!({"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"type":["integer","null"]}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"properties":{"a":{"type":"array"}}})
        )));
        assert!(!needs_form_extra(Some(
            &json!({"properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"properties":{"a":{"anyOf":[{"type":"string"},{"type":"number"}]}}})
        )));
        assert!(!needs_form_extra(Some(
            &json!({"$defs":{"U":{"enum":["a"]}},"properties":{"u":{"$ref":"#/$defs/U"}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"properties":{"u":{"$ref":"#/$defs/missing"}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"properties":{"a":{"type":["string","number"]}}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"additionalProperties":{"type":"string"}})
        )));
        assert!(needs_form_extra(Some(
            &json!({"$defs":{"n":{"$ref":"#/$defs/n"}}})
        )));
        assert!(!needs_form_extra(None));
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
            assert_eq!(
                with_field(field.clone()),
                Parts {
                    submit_shim: false,
                    runner: false,
                    form: true,
                    choice: false,
                    time: false,
                    checks: false,
                    form_extra: false,
                    validator: false,
                    confirm: false,
                },
                "{field}"
            );
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
            assert!(p.choice && p.wants("form-choice.js"), "{field}");
            assert!(p.wants_styles("choice"), "{field}");
        }
        // "T or null" is not a choice; {type: null} with more than a description is not "or
        // null" for the page (a variant then).
        assert!(!with_field(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})).choice);
        assert!(
            with_field(json!({"anyOf": [{"type": "string"}, {"type": "null", "a": 1, "b": 2}]}))
                .choice
        );
        // No form, no choice.
        assert!(
            !parts(json!({"name": "a", "inputSchema": {"type": "object", "enum": [1]}})).choice
        );
    }

    #[test]
    fn time_part_only_for_time_formats() {
        for f in ["time", "date-time"] {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(p.time && p.checks && p.wants("form-time.js") && p.wants_styles("time"));
        }
        for f in ["date", "email", "uri"] {
            let p = with_field(json!({"type": "string", "format": f}));
            assert!(!p.time && p.checks && !p.wants("form-time.js"), "{f}");
        }
        // In $defs too, and never without a form.
        let p = parts_of(
            json!({"type": "object", "properties": {"f": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "string", "format": "date-time"}}}),
        );
        assert!(p.time);
        assert!(!parts_of(json!({"type": "object", "format": "time"})).time);
    }

    #[test]
    fn checks_only_for_constraints_or_with_the_validator() {
        for k in CHECK_KEYWORDS {
            let p = with_field(json!({"type": "string", k: 1}));
            assert!(p.checks && p.wants("checks.js"), "{k}");
        }
        assert!(!with_field(json!({"type": "string"})).checks);
        // validate.js uses them on every value.
        let p = parts(
            json!({"name": "a", "inputSchema": {"type": "object", "properties":
            {"f": {"type": "string"}}}, "outputSchema": {"type": "object"}}),
        );
        assert!(p.validator && p.checks);
    }

    #[test]
    fn confirm_only_for_tools_the_page_asks_about() {
        let with = |hint: Value| {
            parts(json!({"name": "a", "annotations": {"destructiveHint": hint}})).confirm
        };
        // JavaScript truthiness, as app.js reads it.
        // run_tool asks for every tool not explicitly safe (MCP's annotation defaults), so only
        // `destructiveHint: false` or `readOnlyHint: true` leave the question out.
        for v in [
            json!(true),
            json!(1),
            json!("yes"),
            json!({}),
            json!([]),
            json!(0),
            json!(""),
            json!(null),
        ] {
            assert!(with(v.clone()), "{v}");
        }
        assert!(!with(json!(false)));
        assert!(parts(json!({"name": "a"})).confirm);
        assert!(!parts(json!({"name": "a", "annotations": {"readOnlyHint": true}})).confirm);
        // A read-only tool that still says destructiveHint asks on the person's click.
        assert!(
            parts(
                json!({"name": "a", "annotations": {"readOnlyHint": true, "destructiveHint": true}})
            )
            .confirm
        );
        let p = parts(json!({"name": "a", "annotations": {"destructiveHint": true}}));
        assert!(p.wants("confirm.js") && p.wants_styles("confirm"));
        assert!(!p.wants("runner.js") && Parts::ALL.wants("runner.js"));
    }

    #[test]
    fn styles_embed_only_the_parts_a_page_uses() {
        let t = Templates::embedded();
        let none = Parts {
            submit_shim: false,
            runner: false,
            form: false,
            choice: false,
            time: false,
            checks: false,
            form_extra: false,
            validator: false,
            confirm: false,
        };
        let bare = t.styles(none);
        assert!(bare.contains(".chart") && bare.contains(".help"));
        for (part, probe) in [
            (Parts { form: true, ..none }, "fieldset.obj"),
            (
                Parts {
                    choice: true,
                    ..none
                },
                ".fld.chk",
            ),
            (Parts { time: true, ..none }, ".tz"),
            (
                Parts {
                    confirm: true,
                    ..none
                },
                ".btn.danger",
            ),
            (
                Parts {
                    runner: true,
                    ..none
                },
                ".btn.danger",
            ),
            (
                Parts {
                    form_extra: true,
                    ..none
                },
                ".rowh",
            ),
            (
                Parts {
                    form_extra: true,
                    ..none
                },
                ".fld.chk",
            ),
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
            json!({"version": GENERATOR_VERSION, "tool": {"name": "t", "title": "T",
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
        for n in RUNTIME_FILES.iter().chain(["app.js"].iter()) {
            let src = std::fs::read_to_string(dir.join(n)).unwrap();
            assert!(!src.contains('`'), "{n} must not use template literals");
            assert!(!src.contains("innerHTML"), "{n}");
            assert!(!src.contains("eval("), "{n}");
        }
        assert!(runtime_js().contains("McpGenUi"));
    }
}
