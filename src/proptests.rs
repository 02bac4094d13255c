//! Property tests: every parser of outside input never panics (a panic is a bug: book, reference/exit-codes.md, and it
//! would break the 0/1/2 exit codes). Refine feedback, config files, canonical JSON, file names,
//! redaction, and the builtin page of an arbitrary tool, which must also always be valid.
//! Framing, SSE, extraction, post-processing and the validator have their own next to their code.
//! A few hundred cases each, so `cargo test` stays fast.

use proptest::prelude::*;
use serde_json::{Value, json};

/// Characters that broke byte-index slicing before: multi-byte letters, typographic quotes,
/// combining marks, emoji, controls.
const TRICKY: &str =
    "(é|“|”|‘|’|«|»|ç|\u{301}|☀️|\u{0}|\u{1b}|\u{2028}|[a-z ]{1,6}|,|;|\\.|\"|=|:)";

fn re(pattern: &str) -> proptest::string::RegexGeneratorStrategy<String> {
    proptest::string::string_regex(pattern).expect("valid regex")
}

fn feedback() -> impl Strategy<Value = String> {
    let words = "(as |a |use |show |hide |rename |to |field |chart |line |table |of |make it |please |label |sort by |x |y |widget:)";
    proptest::string::string_regex(&format!("({words}|{TRICKY}){{0,20}}")).expect("valid regex")
}

/// Arbitrary JSON, a few levels deep, with tricky strings.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        proptest::string::string_regex(&format!("{TRICKY}{{0,8}}"))
            .expect("valid regex")
            .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z$é\"<]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A tool with arbitrary strings and an arbitrary schema (sometimes schema-like, sometimes not).
fn tool() -> impl Strategy<Value = Value> {
    let schema = prop_oneof![
        json_value(),
        json_value().prop_map(|v| json!({"type": "object", "properties": {"a": v, "b": {"type": "array", "items": v}}})),
        Just(json!({"type": "object", "properties": {"r": {"$ref": "#"}}})),
    ];
    (
        "[a-z_]{1,10}|.{1,20}",
        proptest::option::of(".{0,40}"),
        proptest::option::of(".{0,200}"),
        schema,
        proptest::option::of(json_value()),
    )
        .prop_map(|(name, title, description, input, output)| {
            let mut t = json!({"name": name, "inputSchema": input});
            if let Some(x) = title {
                t["title"] = json!(x);
            }
            if let Some(x) = description {
                t["description"] = json!(x);
            }
            if let Some(x) = output {
                t["outputSchema"] = x;
            }
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn refine_feedback_never_panics(f in feedback()) {
        let _ = crate::generate::phrases::interpret(&f);
        let (w, rest) = crate::generate::phrases::scope(&f);
        let _ = crate::generate::phrases::scoped(w, rest);
        let _ = crate::generate::phrases::effective_hints(
            &crate::model::Hints::default(),
            std::slice::from_ref(&f),
            None,
        );
    }

    #[test]
    fn config_parsing_never_panics(
        text in "(\\[upstream\\]\n|\\[llm\\]\n|\\[tools\\.\"é\"\\]\n|command = |api_key = |headers = \\{ |env = \\{ |\"|\\$\\{|\\}|\n|=|[a-z_]{1,8}|é|“|\\[|\\]|#|'){0,30}"
    ) {
        let _ = crate::config::parse(std::path::Path::new("mcp-gen-ui.toml"), &text);
        let _ = crate::config::expand_env(&text, "p");
    }

    #[test]
    fn canonical_json_never_panics_and_is_json(v in json_value()) {
        // (Not compared after a round trip: serde_json's default float parsing may differ from
        // the shortest representation in the last digit.)
        let a = crate::model::canonical_json(&v);
        prop_assert!(serde_json::from_str::<Value>(&a).is_ok(), "{}", a);
        let _ = crate::model::Tool::from_raw(json!({"name": "t", "inputSchema": v}))
            .map(|t| t.tool_hash());
    }

    #[test]
    fn file_names_never_panic_and_stay_inside(name in re(&format!("({TRICKY}|/|\\\\|\\.\\.|[A-Z]){{0,30}}"))) {
        let stem = crate::model::file_stem(&name);
        prop_assert!(!stem.is_empty() && !stem.contains('/') && !stem.contains('\\') && stem != ".." && stem != ".");
        let _ = crate::model::widget_path(&name, Some("w"));
        let _ = crate::model::server_slug(&name);
        let _ = crate::model::ui_uri("s", &name, None);
        let header = crate::model::header_comment(&name);
        prop_assert!(!header.contains('\0'));
    }

    #[test]
    fn redaction_never_panics(text in re(&format!("({TRICKY}|api_key|Bearer |token|Authorization| = |: |'){{0,30}}"))) {
        let _ = crate::secrets::redact(&text);
        let _ = crate::model::text::safe_text(&text, 5);
    }
}

proptest! {
    // Rendering and validating a page costs milliseconds: fewer cases.
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// No tool can break a run: whatever a tool's strings and schema, the builtin page renders and is valid.
    #[test]
    fn any_tool_gets_a_valid_builtin_page(raw in tool()) {
        let Ok(tool) = crate::model::Tool::from_raw(raw) else {
            return Ok(());
        };
        let findings = builtin_findings(&tool);
        let errors: Vec<_> = findings
            .iter()
            .filter(|f| f.severity == crate::validate::Severity::Error)
            .collect();
        prop_assert!(errors.is_empty(), "{:?}", errors);
    }
}

/// What the validator finds in the builtin page of `tool` (no per-tool settings).
fn builtin_findings(tool: &crate::model::Tool) -> Vec<crate::validate::Finding> {
    let cfg = crate::config::ToolConfig::default();
    let req = crate::generate::WidgetRequest {
        tool,
        tool_config: &cfg,
        widget: None,
        hints: crate::model::Hints::default(),
        refinements: &[],
        server_name: "s",
    };
    let html =
        crate::generate::builtin::render(&req, &crate::generate::builtin::Templates::embedded())
            .expect("the embedded templates render");
    crate::validate::validate(
        &html,
        &crate::validate::Options {
            allowed_origins: vec![],
            llm_output: false,
        },
    )
}

/// Generator-side recursion is bounded: a schema nested 500 levels deep (1,000 levels of JSON, what
/// the message parser must accept) renders a valid page on a thread with tokio's default 2 MiB
/// stack, in a debug build.
#[test]
fn a_very_deep_schema_renders_on_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            for levels in [100usize, 500] {
                let mut s = json!({"type": "string"});
                for _ in 0..levels {
                    s = json!({"type": "object", "properties": {"a": s}});
                }
                let raw = json!({"name": "deep", "inputSchema": s});
                let tool = crate::model::Tool::from_raw(raw).expect("a tool");
                let _ = tool.tool_hash();
                let findings = builtin_findings(&tool);
                assert!(
                    !crate::validate::has_errors(&findings),
                    "{levels}: {findings:?}"
                );
            }
        })
        .expect("spawn");
    assert!(handle.join().is_ok());
}
