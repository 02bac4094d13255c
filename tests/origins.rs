//! One meaning of "allowed origin": for a table of declared origins (exact, `*.` wildcards, bare
//! hosts, ports) and candidate URLs, `generate --generator llm` (whose post-processing drops what
//! the host would block) and `validate --allow-origin` give the same verdict on the same page
//! (book: reference/validator.md). A fake OpenAI-compatible provider on 127.0.0.1 is the only
//! faked part; the upstream is the real fixture server.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

mod support;
use support::example;
use support::provider::provider;

/// One declared origin, and candidate URLs with whether the host would allow them.
const TABLE: &[(&str, &[(&str, bool)])] = &[
    (
        "https://cdn.example.com",
        &[
            ("https://cdn.example.com/r.png", true),
            ("https://CDN.example.com:443/r.png", true),
            ("//cdn.example.com/r.png", true),
            ("https://cdn.example.com:8443/r.png", false),
            ("http://cdn.example.com/r.png", false),
            ("https://cdn.example.com.evil.example/r.png", false),
            ("https://cdn.example.com@evil.example/r.png", false),
            ("https://evilcdn.example.com/r.png", false),
        ],
    ),
    (
        "https://*.example.com",
        &[
            ("https://img.example.com/r.png", true),
            ("https://a.b.example.com/r.png", true),
            ("https://example.com/r.png", false),
            ("https://img.example.com:8443/r.png", false),
            ("https://img.example.com.evil.example/r.png", false),
        ],
    ),
    (
        "https://api.example.com:8443/",
        &[
            ("https://api.example.com:8443/r.png", true),
            ("https://api.example.com/r.png", false),
            ("https://api.example.com:9443/r.png", false),
        ],
    ),
    (
        "img.example.org",
        &[
            ("http://img.example.org/r.png", true),
            ("https://img.example.org/r.png", true),
            ("https://img.example.org:8080/r.png", false),
            ("https://x.img.example.org/r.png", false),
        ],
    ),
];

/// A good model page with one image per candidate, each on its own line; the URL's query makes
/// each one findable in the output.
fn page_with(urls: &[(&str, bool)]) -> String {
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm/good_ui.html"),
    )
    .expect("tests/fixtures/llm/good_ui.html");
    let imgs: String = urls
        .iter()
        .enumerate()
        .map(|(i, (u, _))| format!("<img src=\"{u}?c={i}\" alt=\"\">\n"))
        .collect();
    base.replacen("<body>\n", &format!("<body>\n{imgs}"), 1)
}

fn project(base_url: &str, declared: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let toml = format!(
        "generator = \"llm\"\n[upstream]\ncommand = {}\nargs = [\"--mode\", \"ok\"]\n\n\
         [llm]\nprovider = \"openai\"\nmodel = \"test-model\"\nbase_url = {}\n\
         timeout_ms = 20000\nmax_retries = 0\n\n\
         [tools.echo]\ncsp = {{ resource_domains = [{}] }}\n",
        json!(example("fixture-server").display().to_string()),
        json!(base_url),
        json!(declared),
    );
    std::fs::write(dir.path().join("mcp-gen-ui.toml"), toml).expect("write config");
    dir
}

fn bin(dir: &Path) -> Command {
    let mut c = support::bin();
    c.current_dir(dir)
        .env("OPENAI_API_KEY", "sk-test-origins")
        .env_remove("MCP_GEN_UI_LLM_PROVIDER");
    c
}

/// `generate`'s verdict for each candidate: its image survived post-processing.
async fn generate_verdicts(declared: &str, urls: &[(&str, bool)]) -> Vec<bool> {
    let server = provider(&page_with(urls)).await;
    let dir = project(&format!("{}/v1", server.uri()), declared);
    let d: PathBuf = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking({
        let d = d.clone();
        move || bin(&d).arg("generate").output().expect("run generate")
    })
    .await
    .expect("join");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let html = std::fs::read_to_string(d.join("ui/echo.html")).expect("ui/echo.html");
    // The model's page, not the builtin fallback: what was kept passed the validator.
    assert!(
        html.contains("<title>Weather forecast</title>"),
        "{declared}: generate fell back to the builtin page\n{stdout}\n{stderr}"
    );
    (0..urls.len())
        .map(|i| html.contains(&format!("r.png?c={i}\"")))
        .collect()
}

/// `validate --allow-origin`'s verdict for each candidate: no `external-*` finding on its line.
fn validate_verdicts(declared: &str, urls: &[(&str, bool)]) -> Vec<bool> {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("page.html");
    let page = page_with(urls);
    std::fs::write(&file, &page).expect("write page");
    let first_line = page
        .lines()
        .position(|l| l.contains("r.png?c=0"))
        .expect("the first image")
        + 1;
    let out = bin(dir.path())
        .args(["validate", "--llm", "--format", "json", "--allow-origin"])
        .arg(declared)
        .arg(&file)
        .output()
        .expect("run validate");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "validate --format json: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let blocked: Vec<u64> = report["files"][0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            f["rule"]
                .as_str()
                .is_some_and(|r| r.starts_with("external-"))
        })
        .filter_map(|f| f["line"].as_u64())
        .collect();
    (0..urls.len())
        .map(|i| !blocked.contains(&((first_line + i) as u64)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_and_validate_judge_origins_alike() {
    for (declared, urls) in TABLE {
        let expected: Vec<bool> = urls.iter().map(|(_, ok)| *ok).collect();
        let validated = validate_verdicts(declared, urls);
        let generated = generate_verdicts(declared, urls).await;
        for (i, (url, _)) in urls.iter().enumerate() {
            assert_eq!(
                (generated[i], validated[i]),
                (expected[i], expected[i]),
                "declared {declared:?}, url {url:?}: (generate kept it, validate allowed it)"
            );
        }
    }
}
