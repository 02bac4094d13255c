//! The cheap parts of the packaging (.github/): what the published crate holds, the npm packages
//! and the binstall archive built around the debug binary and installed offline, and the check
//! action's script. The full run, with the release build, `cargo package`'s verification build
//! and the maturin wheel, is `.github/scripts/package.sh --test all` (see the book's
//! installation chapter).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod support;
use support::{BIN, cleared, example};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every `include_str!`/`include_bytes!` path in the Rust files under `dir`, relative to the root.
fn embedded_files(dir: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            embedded_files(&path, found);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        for macro_name in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in source.match_indices(macro_name) {
                let rest = &source[at + macro_name.len()..];
                let rel = &rest[..rest.find('"').unwrap()];
                let mut full = path.parent().unwrap().to_path_buf();
                for part in rel.split('/') {
                    match part {
                        ".." => {
                            full.pop();
                        }
                        "." => {}
                        p => full.push(p),
                    }
                }
                let rel_to_root = full.strip_prefix(root()).unwrap().to_string_lossy();
                found.push(rel_to_root.replace('\\', "/"));
            }
        }
    }
}

#[test]
fn the_crate_holds_what_the_binary_embeds_and_no_tests_examples_or_book() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--offline",
            "--locked",
            "-p",
            "mcp-gen-ui",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(out.status.success(), "cargo package --list: {}", text(&out));
    let listing = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = listing.lines().collect();

    let mut embedded = Vec::new();
    embedded_files(&root().join("src"), &mut embedded);
    assert!(
        embedded.len() >= 15,
        "expected the templates, prompts and preview assets, found {embedded:?}"
    );
    for file in &embedded {
        assert!(
            files.contains(&file.as_str()),
            "the crate lacks {file}, which src/ embeds: add it to [package] include in Cargo.toml"
        );
    }
    for file in [
        "README.md",
        "Cargo.lock",
        ".github/LICENSE-MIT",
        ".github/LICENSE-APACHE",
    ] {
        assert!(files.contains(&file), "the crate lacks {file}");
    }
    for file in &files {
        assert!(
            !["tests/", "examples/", "book/", ".ci/", ".github/workflows/"]
                .iter()
                .any(|p| file.starts_with(p)),
            "the crate holds {file}: only what the binary needs belongs in it"
        );
    }
}

/// `.github/scripts/package.sh` around the debug binary: the binstall archive and both npm
/// packages, installed offline into fresh directories and run through `npx` on the weather
/// example (the script's own `--test`).
#[test]
fn the_npm_packages_and_the_archive_install_offline_and_run() {
    let weather = example("weather-server");
    let out_dir = tempfile::tempdir().unwrap();
    let out = cleared(Command::new("bash"))
        .arg(root().join(".github/scripts/package.sh"))
        .args(["--binary", BIN, "--out"])
        .arg(out_dir.path())
        .args(["--test", "archive", "npm"])
        .env("WEATHER_SERVER", &weather)
        .env("TMPDIR", out_dir.path())
        .current_dir(root())
        .output()
        .unwrap();
    let log = text(&out);
    assert!(out.status.success(), "package.sh: {log}");
    let version = env!("CARGO_PKG_VERSION");
    for line in [
        format!("npm: --version: mcp-gen-ui {version}"),
        "npm: check: clean -> 0, tampered ui/get_forecast.html -> 1".to_string(),
        "npm: npm install mcp-gen-ui from a registry on 127.0.0.1 brought @mcp-gen-ui/linux-x64"
            .to_string(),
        "npm: without the platform package: exit 2".to_string(),
        format!(
            "npm: serve --print-config: \"command\":\"npx\",\"args\":[\"-y\",\"mcp-gen-ui@{version}\",\"serve\""
        ),
        format!("archive: --version: mcp-gen-ui {version}"),
        "all artefacts passed".to_string(),
    ] {
        assert!(log.contains(&line), "no '{line}' in {log}");
    }
    let meta: serde_json::Value = {
        let dir = out_dir.path().join("npm/stage/meta/package.json");
        serde_json::from_str(&std::fs::read_to_string(dir).unwrap()).unwrap()
    };
    assert_eq!(meta["name"], "mcp-gen-ui");
    assert_eq!(meta["version"], version);
    assert_eq!(meta["bin"]["mcp-gen-ui"], "bin/mcp-gen-ui.js");
    assert_eq!(
        meta["optionalDependencies"]["@mcp-gen-ui/linux-x64"], version,
        "{meta}"
    );
}

/// The check action's script (.github/actions/check/check.sh) with a given binary, as the action
/// runs it: a clean copy of the weather example passes, a tampered page fails and is named in
/// the JUnit report, the log, the annotation and the step outputs.
#[test]
fn the_check_action_passes_a_clean_ui_and_names_a_tampered_page() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("repo");
    std::fs::create_dir_all(project.join("ui")).unwrap();
    std::fs::copy(
        root().join("examples/weather/mcp-gen-ui.toml"),
        project.join("mcp-gen-ui.toml"),
    )
    .unwrap();
    for entry in std::fs::read_dir(root().join("examples/weather/ui")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, project.join("ui").join(path.file_name().unwrap())).unwrap();
    }
    let run = || {
        let output = dir.path().join("github-output");
        let _ = std::fs::remove_file(&output);
        let out = cleared(Command::new("bash"))
            .arg(root().join(".github/actions/check/check.sh"))
            .current_dir(&project)
            .env("INPUT_BINARY", BIN)
            .env("INPUT_CONFIG", "mcp-gen-ui.toml")
            .env("INPUT_JUNIT_FILE", "reports/mcp-gen-ui.xml")
            .env("INPUT_ONLINE", "false")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", dir.path().join("summary"))
            .output()
            .unwrap();
        let outputs = std::fs::read_to_string(&output).unwrap_or_default();
        let junit =
            std::fs::read_to_string(project.join("reports/mcp-gen-ui.xml")).unwrap_or_default();
        (out, outputs, junit)
    };

    let (out, outputs, junit) = run();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(junit.contains("failures=\"0\""), "{junit}");
    assert!(outputs.contains("exit-code=0"), "{outputs}");
    let report = project.join("reports/mcp-gen-ui.xml");
    assert!(
        outputs.contains(&format!("junit-file={}", report.display())),
        "{outputs}"
    );

    let page = project.join("ui/get_forecast.html");
    let mut html = std::fs::read_to_string(&page).unwrap();
    html.push_str("<!-- edited by hand -->\n");
    std::fs::write(&page, html).unwrap();
    let (out, outputs, junit) = run();
    let log = text(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(junit.contains("get_forecast.html"), "{junit}");
    assert!(!junit.contains("failures=\"0\""), "{junit}");
    assert!(outputs.contains("exit-code=1"), "{outputs}");
    assert!(
        log.contains("::error title=mcp-gen-ui check%3A ") && log.contains("get_forecast.html"),
        "no annotation naming the page in {log}"
    );
    assert!(
        std::fs::read_to_string(dir.path().join("summary"))
            .unwrap()
            .contains("1 finding"),
        "{log}"
    );
}
