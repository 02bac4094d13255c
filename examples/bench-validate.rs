//! Prints how long the validator takes per file: the given HTML files, or built-in samples
//! (a typical ~40 KB UI and some hostile shapes) when none are given.
//!
//! `cargo run --release --example bench-validate [--show] [--llm] [FILE…]` (`--show` also prints
//! the findings of each file).

use std::time::Instant;

use mcp_gen_ui::validate::{Options, validate};

fn typical_ui() -> String {
    let mut rows = String::new();
    for i in 0..300 {
        rows.push_str(&format!(
            "<tr><td><label for=\"f{i}\">Field {i}</label></td><td><input id=\"f{i}\" name=\"f{i}\" \
             type=\"text\"></td></tr>\n"
        ));
    }
    let mut js = String::new();
    for i in 0..150 {
        js.push_str(&format!(
            "function render{i}(data) {{ const el = document.createElement('div'); \
             el.textContent = String(data?.value ?? ''); return el; }}\n"
        ));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>T</title>\
         <style>body {{ font: 14px var(--font-sans, system-ui); }}</style></head><body>\
         <form><table>{rows}</table><button>Go</button></form>\
         <script>\n{js}\nwindow.parent.postMessage({{method: \"ui/initialize\"}}, \"*\");\n\
         addEventListener(\"message\", (e) => {{ if (e.data.method === \
         \"ui/notifications/tool-result\") render0(e.data.params); }});\n</script></body></html>"
    )
}

fn time(name: &str, html: &str, opts: &Options) {
    let runs = 3u32;
    let start = Instant::now();
    let mut findings = 0;
    for _ in 0..runs {
        findings = validate(html, opts).len();
    }
    let per = start.elapsed() / runs;
    println!(
        "{name}: {} KB, {findings} findings, {:.3} ms per file",
        html.len() / 1024,
        per.as_secs_f64() * 1000.0
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--show");
    let opts = Options {
        llm_output: args.iter().any(|a| a == "--llm"),
        ..Options::default()
    };
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if files.is_empty() {
        time("typical ui", &typical_ui(), &opts);
        let deep_js = format!("<script>let x = 1{};</script>", "+1".repeat(100_000));
        time("100k-term expression", &deep_js, &opts);
        for n in [1_000, 2_000, 4_000] {
            time(&format!("{n} nested divs"), &"<div>".repeat(n), &opts);
            time(&format!("{n} nested spans"), &"<span>".repeat(n), &opts);
        }
        time(
            "50k parens",
            &format!("<script>{}</script>", "(".repeat(50_000)),
            &opts,
        );
        return;
    }
    for f in files {
        match std::fs::read_to_string(f) {
            Ok(html) => {
                time(f, &html, &opts);
                if show {
                    for finding in validate(&html, &opts) {
                        println!(
                            "  {}:{} {:?} [{}] {}",
                            f,
                            finding.line.map_or("-".to_string(), |l| l.to_string()),
                            finding.severity,
                            finding.rule,
                            finding.message
                        );
                    }
                }
            }
            Err(e) => eprintln!("{f}: {e}"),
        }
    }
}
