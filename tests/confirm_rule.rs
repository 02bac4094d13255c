//! Who confirms (book: reference/pages.md): the Rust rule (`model::confirm`) and the page
//! runtime's (`McpGenUi.asksFirst` in the embedded `templates/min/runtime.js`, run with node) give
//! the answers of one table of annotation cases, `tests/fixtures/confirm-cases.json`.

use std::path::PathBuf;
use std::process::Command;

use mcp_gen_ui::model::confirm::{asks_for_model, asks_on_click};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The table's cases: (name, annotations or none, click, model).
fn cases() -> Vec<(String, Option<Value>, bool, bool)> {
    let path = root().join("tests/fixtures/confirm-cases.json");
    let text = std::fs::read_to_string(&path).expect("tests/fixtures/confirm-cases.json");
    let table: Value = serde_json::from_str(&text).expect("the table is JSON");
    let list = table["cases"].as_array().expect("a `cases` list");
    list.iter()
        .map(|c| {
            let name = c["name"].as_str().expect("name").to_string();
            let flag = |k: &str| c[k].as_bool().unwrap_or_else(|| panic!("{name}: {k}"));
            (
                name.clone(),
                c.get("annotations").cloned(),
                flag("click"),
                flag("model"),
            )
        })
        .collect()
}

#[test]
fn the_rust_rule_answers_the_table() {
    let cases = cases();
    assert!(cases.len() >= 20);
    for (name, ann, click, model) in cases {
        assert_eq!(asks_on_click(ann.as_ref()), click, "click: {name}");
        assert_eq!(asks_for_model(ann.as_ref()), model, "model: {name}");
    }
}

/// Loads the embedded runtime into a bare context (it touches only `window` and
/// `document.documentElement` at load) and prints `[click, model]` for each case.
const NODE_SCRIPT: &str = r#"
const fs = require('node:fs'), vm = require('node:vm');
const [runtime, table] = process.argv.slice(1);
const ctx = { document: { documentElement: {} } };
ctx.window = ctx;
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(runtime, 'utf8'), ctx);
const asks = ctx.McpGenUi.asksFirst;
const cases = JSON.parse(fs.readFileSync(table, 'utf8')).cases;
console.log(JSON.stringify(cases.map((c) => [asks(c.annotations, false), asks(c.annotations, true)])));
"#;

#[test]
fn the_page_runtime_answers_the_table_as_rust_does() {
    let out = Command::new("node")
        .arg("-e")
        .arg(NODE_SCRIPT)
        .arg(root().join("templates/min/runtime.js"))
        .arg(root().join("tests/fixtures/confirm-cases.json"))
        .output()
        .expect("node must be installed to run this test (it runs the page runtime)");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<(bool, bool)> =
        serde_json::from_slice(&out.stdout).expect("node prints the answers as JSON");
    let cases = cases();
    assert_eq!(answers.len(), cases.len());
    for ((name, ann, _, _), (click, model)) in cases.iter().zip(answers) {
        assert_eq!(click, asks_on_click(ann.as_ref()), "click: {name}");
        assert_eq!(model, asks_for_model(ann.as_ref()), "model: {name}");
    }
}
