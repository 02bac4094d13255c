//! What changes, in pictures (`--visual`): each changed page rendered before and after in a local
//! Chromium or Chrome, and a highlighted difference.
//!
//! The driver is the browser's own headless screenshot mode (`--headless --screenshot`), on a
//! local host page that implements the host side of MCP Apps around the page in a sandboxed
//! iframe: the handshake, then `tool-input` with the tool's schema `examples` (or a schema-valid
//! synthetic input) and `tool-result` with a schema-valid synthetic result; it answers every
//! `tools/call` itself with that result, so nothing reaches the upstream (the browser is also
//! started with every host name unresolvable). Light theme, 800 px wide, fixed locale and time
//! zone, virtual time: the same page renders the same pixels.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::resolve;
use anyhow::{Context as _, bail};
use serde_json::{Map, Value, json};

/// The rendering's width and height in CSS pixels.
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 1000;
/// How long the browser may take for one page (wall clock).
const TIMEOUT: Duration = Duration::from_secs(60);

/// The names a Chromium or Chrome goes by on the PATH.
const BROWSER_NAMES: [&str; 6] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "chrome",
    "microsoft-edge",
];

/// The flags every headless Chromium this tool starts gets (pictures and the llm pages' judge):
/// no GPU, no network of its own, no first-run or extension work, the same colours and scale.
pub const QUIET_FLAGS: &[&str] = &[
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--force-color-profile=srgb",
    "--force-device-scale-factor=1",
];

/// The browser to render with: `--browser`, else `MCP_GEN_UI_BROWSER`, else the first Chromium or
/// Chrome on the PATH. Looked for before anything is written.
pub fn find_browser(flag: Option<&Path>) -> anyhow::Result<PathBuf> {
    let how = "--visual needs a local Chromium or Chrome: install one (e.g. `apt-get install chromium`, `brew install --cask chromium`, or Google Chrome), or name it with --browser PATH or MCP_GEN_UI_BROWSER";
    let given = flag.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("MCP_GEN_UI_BROWSER")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    if let Some(p) = given {
        if p.as_os_str().eq_ignore_ascii_case("off") {
            bail!("MCP_GEN_UI_BROWSER=off turns the browser off; {how}");
        }
        if p.is_file() {
            return Ok(p);
        }
        if p.components().count() == 1
            && let Some(found) = on_path(&p.to_string_lossy())
        {
            return Ok(found);
        }
        bail!("browser {} not found; {how}", p.display());
    }
    for name in BROWSER_NAMES {
        if let Some(found) = on_path(name) {
            return Ok(found);
        }
    }
    bail!("no browser found on the PATH; {how}");
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// How the host page's frame gets the page: inline (`srcdoc`, for pictures) or from a URL of the
/// same origin (the llm generator's browser judge, which serves it with the tool's CSP).
pub enum HostFrame<'a> {
    Srcdoc(&'a str),
    Src(&'a str),
}

/// The host page around `page`: MCP Apps' host side, answering everything itself.
fn host_page(page: &str, input: &Value, result: &Value) -> String {
    host_document(HostFrame::Srcdoc(page), input, result)
}

/// The host page around a frame: MCP Apps' host side, answering everything itself, and keeping
/// a record in `window.__host` of what the page sent (methods in order, `tools/call` requests,
/// when the handshake ended and when the first `ui/notifications/size-changed` came, in ms since
/// the host started). `window.__hostTheme(theme)` switches the host's theme.
pub fn host_document(frame: HostFrame<'_>, input: &Value, result: &Value) -> String {
    let (page, src) = match frame {
        HostFrame::Srcdoc(p) => (p, ""),
        HostFrame::Src(u) => ("", u),
    };
    let boot = json!({"page": page, "src": src, "input": input, "result": result});
    let boot = super::script_json(&boot);
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src data:; font-src data:; connect-src 'none'; frame-src 'self' about: data:">
<style>html,body{{margin:0;padding:0;background:#fff}}iframe{{display:block;border:0;width:{WIDTH}px;height:{HEIGHT}px}}</style>
</head><body>
<iframe id="app" sandbox="allow-scripts allow-forms" title="app"></iframe>
<script type="application/json" id="boot">{boot}</script>
<script>
(function () {{
  "use strict";
  var boot = JSON.parse(document.getElementById("boot").textContent);
  var frame = document.getElementById("app");
  var rec = window.__host = {{ log: [], calls: [], initialized: false, initAt: null, sizeAt: null, start: performance.now() }};
  var now = function () {{ return Math.round(performance.now() - rec.start); }};
  var post = function (m) {{ frame.contentWindow.postMessage(m, "*"); }};
  var reply = function (id, result) {{ post({{ jsonrpc: "2.0", id: id, result: result }}); }};
  var notify = function (method, params) {{ post({{ jsonrpc: "2.0", method: method, params: params }}); }};
  var context = {{
    theme: "light", displayMode: "inline", availableDisplayModes: ["inline"],
    containerDimensions: {{ width: {WIDTH}, maxHeight: {HEIGHT} }},
    locale: "en-US", timeZone: "UTC", platform: "web",
    userAgent: "mcp-gen-ui-review", deviceCapabilities: {{ hover: false, touch: false }}
  }};
  window.__hostTheme = function (theme) {{
    context.theme = theme;
    notify("ui/notifications/host-context-changed", {{ theme: theme }});
  }};
  window.addEventListener("message", function (ev) {{
    if (ev.source !== frame.contentWindow) return;
    var m = ev.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0" || typeof m.method !== "string") return;
    if (rec.log.length < 200) rec.log.push(m.method.slice(0, 80));
    var isRequest = m.id !== undefined && m.id !== null;
    if (!isRequest) {{
      if (m.method === "ui/notifications/initialized" && !rec.initialized) {{
        rec.initialized = true;
        rec.initAt = now();
        notify("ui/notifications/tool-input", {{ arguments: boot.input }});
        notify("ui/notifications/tool-result", boot.result);
      }}
      if (m.method === "ui/notifications/size-changed" && rec.sizeAt === null) rec.sizeAt = now();
      return;
    }}
    switch (m.method) {{
      case "ui/initialize":
        return reply(m.id, {{
          protocolVersion: (m.params && m.params.protocolVersion) || "2026-01-26",
          hostInfo: {{ name: "mcp-gen-ui-review", version: "1" }},
          hostCapabilities: {{ serverTools: {{}}, openLinks: {{}}, logging: {{}} }},
          hostContext: context
        }});
      case "tools/call":
        if (rec.calls.length < 20) rec.calls.push({{ name: m.params && m.params.name, arguments: m.params && m.params.arguments }});
        return reply(m.id, boot.result);
      case "ui/request-display-mode": return reply(m.id, {{ mode: "inline" }});
      case "resources/read": return post({{ jsonrpc: "2.0", id: m.id, error: {{ code: -32601, message: "not in a review" }} }});
      default: return reply(m.id, {{}});
    }}
  }});
  if (boot.src) frame.src = boot.src; else frame.srcdoc = boot.page;
}})();
</script>
</body></html>
"#
    )
}

/// Renders `page` with `input` and `result` to a PNG at `out`.
pub fn render(
    browser: &Path,
    page: &str,
    input: &Value,
    result: &Value,
    out: &Path,
) -> anyhow::Result<()> {
    let work = tempfile_dir()?;
    let host = work.join("host.html");
    std::fs::write(&host, host_page(page, input, result))
        .with_context(|| format!("cannot write {}", host.display()))?;
    let profile = work.join("profile");
    let shot = work.join("shot.png");
    let mut cmd = Command::new(browser);
    cmd.args(QUIET_FLAGS)
        .args([
            "--no-sandbox",
            "--font-render-hinting=none",
            "--lang=en-US",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            // One renderer process for the host and the sandboxed page, so that virtual time covers
            // their messages too (a page in a process of its own would be pictured before it got its
            // tool-input and tool-result).
            "--disable-features=IsolateSandboxedIframes,site-per-process,IsolateOrigins",
            "--virtual-time-budget=5000",
            "--run-all-compositor-stages-before-draw",
        ])
        .arg(format!("--window-size={WIDTH},{HEIGHT}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", host.display()))
        .env("TZ", "UTC")
        .env("LANG", "en_US.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start the browser {}", browser.display()))?;
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_dir_all(&work);
            bail!(
                "the browser {} took over {} s to render a page",
                browser.display(),
                TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    if !status.success() || !shot.is_file() {
        let _ = std::fs::remove_dir_all(&work);
        let last: Vec<&str> = stderr.lines().rev().take(3).collect();
        bail!(
            "the browser {} could not render the page ({status}): {}",
            browser.display(),
            super::clean(&last.join(" | "), 300)
        );
    }
    let moved = std::fs::rename(&shot, out).or_else(|_| std::fs::copy(&shot, out).map(|_| ()));
    let _ = std::fs::remove_dir_all(&work);
    moved.with_context(|| format!("cannot write {}", out.display()))
}

/// A fresh private directory for one browser run.
fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let rnd = crate::token::random_hex(8).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
    let dir = std::env::temp_dir().join(format!("mcp-gen-ui-review-{rnd}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// An RGBA image.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Reads a PNG as RGBA.
pub fn read_png(path: &Path) -> anyhow::Result<Image> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .with_context(|| format!("{} is not a PNG", path.display()))?;
    let size = reader
        .output_buffer_size()
        .with_context(|| format!("{} is too large", path.display()))?;
    let mut buf = vec![0; size];
    let info = reader
        .next_frame(&mut buf)
        .with_context(|| format!("cannot decode {}", path.display()))?;
    buf.truncate(info.buffer_size());
    let px = (info.width * info.height) as usize;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Indexed => bail!("{}: indexed colour after expansion", path.display()),
    };
    if rgba.len() != px * 4 {
        bail!("{}: unexpected pixel data", path.display());
    }
    Ok(Image {
        width: info.width,
        height: info.height,
        rgba,
    })
}

/// Writes an RGBA PNG.
pub fn write_png(path: &Path, img: &Image) -> anyhow::Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), img.width, img.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc
        .write_header()
        .with_context(|| format!("cannot write {}", path.display()))?;
    w.write_image_data(&img.rgba)
        .with_context(|| format!("cannot write {}", path.display()))?;
    w.finish()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The highlighted difference of two images: the after image faded, changed pixels in red (and
/// areas only one image covers in red too). Returns it and how many pixels differ.
pub fn difference(before: &Image, after: &Image) -> (Image, u64) {
    let (w, h) = (
        before.width.max(after.width),
        before.height.max(after.height),
    );
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    let mut changed = 0;
    let at = |img: &Image, x: u32, y: u32| -> Option<[u8; 4]> {
        if x < img.width && y < img.height {
            let i = ((y * img.width + x) * 4) as usize;
            Some([
                img.rgba[i],
                img.rgba[i + 1],
                img.rgba[i + 2],
                img.rgba[i + 3],
            ])
        } else {
            None
        }
    };
    for y in 0..h {
        for x in 0..w {
            let (b, a) = (at(before, x, y), at(after, x, y));
            if b == a {
                let [r, g, bl, _] = a.unwrap_or([255, 255, 255, 255]);
                // Faded: a quarter of the colour over white.
                let fade = |c: u8| 255 - (255 - c) / 4;
                rgba.extend([fade(r), fade(g), fade(bl), 255]);
            } else {
                changed += 1;
                rgba.extend([230, 0, 40, 255]);
            }
        }
    }
    (
        Image {
            width: w,
            height: h,
            rgba,
        },
        changed,
    )
}

/// The input a page is shown with: the first of the configured examples or the schema's
/// `examples`, else a schema-valid synthetic input.
pub fn input_for(tool: &Value, examples: Option<&Value>) -> Value {
    if let Some(Value::Array(list)) = examples
        && let Some(first) = list.first()
    {
        return first.clone();
    }
    let schema = tool.get("inputSchema").cloned().unwrap_or(json!({}));
    if let Some(Value::Array(list)) = schema.get("examples")
        && let Some(first) = list.first()
    {
        return first.clone();
    }
    match synth(&schema, &schema, 0, 0, 0, "") {
        v @ Value::Object(_) => v,
        _ => json!({}),
    }
}

/// A schema-valid synthetic result: `structuredContent` from the outputSchema (with its text as
/// JSON), or a short text when the tool declares none (absent, `null` or not a schema object).
pub fn result_for(tool: &Value) -> Value {
    match tool.get("outputSchema") {
        Some(schema) if schema.is_object() => {
            let data = synth(schema, schema, 0, 0, 0, "");
            let text = serde_json::to_string(&data).unwrap_or_default();
            json!({"content": [{"type": "text", "text": text}], "structuredContent": data})
        }
        _ => json!({"content": [{"type": "text", "text": "Example result of the tool."}]}),
    }
}

/// A value valid against `s` (as far as a synthetic one can be): examples, const, enum and
/// defaults first, then by type. `i` (the row of a list) and `k` (the property's position) vary
/// the values so that a chart of rows has a shape and two series differ; `name` is the
/// property's name (a `date` field without a format still gets a date).
fn synth(root: &Value, s: &Value, depth: usize, i: usize, k: usize, name: &str) -> Value {
    let s = resolve(root, s);
    if depth > 6 {
        return Value::Null;
    }
    if let Some(Value::Array(ex)) = s.get("examples")
        && let Some(first) = ex.first()
    {
        return first.clone();
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(e)) = s.get("enum")
        && !e.is_empty()
    {
        return e[i % e.len()].clone();
    }
    if let Some(d) = s.get("default")
        && i == 0
    {
        return d.clone();
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in all {
            if let Value::Object(o) = synth(root, part, depth + 1, i, k, name) {
                merged.extend(o);
            }
        }
        return Value::Object(merged);
    }
    if let Some(first) = s
        .get("anyOf")
        .or_else(|| s.get("oneOf"))
        .and_then(Value::as_array)
        .and_then(|v| {
            v.iter()
                .find(|x| resolve(root, x).get("type") != Some(&json!("null")))
        })
    {
        return synth(root, first, depth + 1, i, k, name);
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ if s.get("items").is_some() => "array",
        _ => "string",
    };
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    match ty {
        "object" => {
            let mut o = Map::new();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (pos, (key, v)) in props.iter().enumerate() {
                    o.insert(key.clone(), synth(root, v, depth + 1, i, pos, key));
                }
            }
            Value::Object(o)
        }
        "array" => {
            let items = s.get("items").cloned().unwrap_or(json!({"type": "string"}));
            let min = num("minItems").unwrap_or(0.0) as usize;
            let max = num("maxItems").map_or(usize::MAX, |m| m as usize);
            let n = 5usize.max(min).min(max).min(50);
            Value::Array(
                (0..n)
                    .map(|j| synth(root, &items, depth + 1, j, 0, name))
                    .collect(),
            )
        }
        "integer" | "number" => {
            let lo = num("minimum").or(num("exclusiveMinimum").map(|m| m + 1.0));
            let hi = num("maximum").or(num("exclusiveMaximum").map(|m| m - 1.0));
            // A wave, so a chart of rows has a visible shape.
            let wave = [12.0, 17.0, 9.0, 21.0, 15.0, 11.0, 19.0][(i + 3 * k) % 7];
            let mut v = match (lo, hi) {
                (Some(l), Some(h)) if h >= l => l + ((h - l) * (wave / 25.0)),
                (Some(l), _) => l + wave,
                (_, Some(h)) => h - wave,
                _ => wave,
            };
            if ty == "integer" {
                v = v.round();
                if let (Some(l), Some(h)) = (lo, hi) {
                    v = v.clamp(l.ceil(), h.floor());
                }
                json!(v as i64)
            } else {
                json!(v)
            }
        }
        "boolean" => json!(i.is_multiple_of(2)),
        "null" => Value::Null,
        _ => {
            let day = 1 + (i % 28);
            let lower = name.to_ascii_lowercase();
            let s_fmt = s.get("format").and_then(Value::as_str).unwrap_or(
                if lower == "date" || lower.ends_with("_date") {
                    "date"
                } else {
                    ""
                },
            );
            let text = match s_fmt {
                "date" => format!("2026-01-{day:02}"),
                "date-time" => format!("2026-01-{day:02}T12:00:00Z"),
                "time" => "12:00:00".into(),
                "email" => "person@example.com".into(),
                "uri" | "url" => "https://example.com/".into(),
                "uuid" => "123e4567-e89b-42d3-a456-426614174000".into(),
                _ => format!("Example {}", i + 1),
            };
            let min = num("minLength").unwrap_or(0.0) as usize;
            let max = num("maxLength").map_or(usize::MAX, |m| m as usize);
            let mut text = text;
            while text.chars().count() < min {
                text.push('x');
            }
            Value::String(text.chars().take(max).collect())
        }
    }
}

/// The review folder: `.mcp-gen-ui-review/` beside the output directory, ignored by git through
/// a `.gitignore` of its own (the project's files are not touched).
pub fn review_dir(out_dir: &Path) -> PathBuf {
    let parent = out_dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    parent.join(".mcp-gen-ui-review")
}

/// The first line of the `.gitignore` that marks a review folder as mcp-gen-ui's own.
const MARK: &str = "# Written by `mcp-gen-ui diff --visual` / `refine --visual`: not for git.";

/// A review folder may be emptied only when it is absent, empty, or mcp-gen-ui's own (marked by
/// its `.gitignore`): `--review-dir .` must never delete a project.
pub fn check_review_dir(review: &Path) -> anyhow::Result<()> {
    if !review.exists() {
        return Ok(());
    }
    let ours = std::fs::read_to_string(review.join(".gitignore"))
        .is_ok_and(|t| t.lines().next() == Some(MARK));
    let empty = std::fs::read_dir(review).is_ok_and(|mut d| d.next().is_none());
    if ours || empty {
        return Ok(());
    }
    bail!(
        "{} exists and was not made by mcp-gen-ui --visual, so it is not emptied: choose another --review-dir (a new or empty folder)",
        review.display()
    );
}

/// One page to picture: its path and its text before and after (absent when added or removed),
/// and the tool definition and examples to show it with.
pub struct PageToRender {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
    pub tool: Value,
    pub examples: Option<Value>,
}

/// What was written for one page.
pub struct Pictures {
    pub path: String,
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    /// Pixels that differ between before and after (when both exist).
    pub changed_pixels: Option<u64>,
}

/// Renders every page before and after into the review folder (emptied first) and writes the
/// highlighted difference.
pub fn picture(
    browser: &Path,
    review: &Path,
    pages: &[PageToRender],
) -> anyhow::Result<Vec<Pictures>> {
    check_review_dir(review)?;
    if review.exists() {
        std::fs::remove_dir_all(review)
            .with_context(|| format!("cannot empty the review folder {}", review.display()))?;
    }
    std::fs::create_dir_all(review)
        .with_context(|| format!("cannot create {}", review.display()))?;
    std::fs::write(review.join(".gitignore"), format!("{MARK}\n*\n"))
        .with_context(|| format!("cannot write {}", review.join(".gitignore").display()))?;
    let mut out = Vec::new();
    for p in pages {
        let stem = p.path.strip_suffix(".html").unwrap_or(&p.path);
        if !crate::lock::safe_relative_path(stem) {
            continue;
        }
        let dir = review.join(stem);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let input = input_for(&p.tool, p.examples.as_ref());
        let result = result_for(&p.tool);
        let mut files = Vec::new();
        let mut shot = |name: &str, html: &Option<String>| -> anyhow::Result<Option<PathBuf>> {
            let Some(html) = html else { return Ok(None) };
            let f = dir.join(name);
            render(browser, html, &input, &result, &f)?;
            files.push(f.clone());
            Ok(Some(f))
        };
        let b = shot("before.png", &p.before)?;
        let a = shot("after.png", &p.after)?;
        let mut changed_pixels = None;
        if let (Some(b), Some(a)) = (b, a) {
            let (img, n) = difference(&read_png(&b)?, &read_png(&a)?);
            let f = dir.join("diff.png");
            write_png(&f, &img)?;
            files.push(f);
            changed_pixels = Some(n);
        }
        out.push(Pictures {
            path: p.path.clone(),
            dir,
            files,
            changed_pixels,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_values_follow_the_schema() {
        let tool = json!({"inputSchema": {"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "minLength": 12},
            "days": {"type": "integer", "minimum": 1, "maximum": 3},
            "units": {"$ref": "#/$defs/u"}},
            "$defs": {"u": {"enum": ["metric", "imperial"]}}},
            "outputSchema": {"type": "object", "properties": {"rows": {"type": "array", "maxItems": 2,
                "items": {"type": "object", "properties": {"d": {"type": "string", "format": "date"}, "v": {"type": "number"}}}}}}});
        let input = input_for(&tool, None);
        assert_eq!(input["city"].as_str().unwrap().len(), 12);
        let days = input["days"].as_i64().unwrap();
        assert!((1..=3).contains(&days), "{days}");
        assert_eq!(input["units"], "metric");
        let r = result_for(&tool);
        assert_eq!(r["structuredContent"]["rows"].as_array().unwrap().len(), 2);
        assert_eq!(r["structuredContent"]["rows"][1]["d"], "2026-01-02");
        assert_eq!(
            input_for(&tool, Some(&json!([{"city": "Oslo"}]))),
            json!({"city": "Oslo"})
        );
    }

    #[test]
    fn a_tool_without_an_output_schema_object_gets_a_text_result() {
        for tool in [
            json!({}),
            json!({"outputSchema": null}),
            json!({"outputSchema": "rows"}),
        ] {
            let r = result_for(&tool);
            assert!(r.get("structuredContent").is_none(), "{tool}: {r}");
            assert_eq!(r["content"][0]["type"], "text", "{tool}");
        }
    }

    #[test]
    fn difference_marks_changed_pixels() {
        let img = |c: u8| Image {
            width: 2,
            height: 1,
            rgba: vec![c, c, c, 255, 255, 255, 255, 255],
        };
        let (_, n) = difference(&img(0), &img(0));
        assert_eq!(n, 0);
        let (d, n) = difference(&img(0), &img(9));
        assert_eq!(n, 1);
        assert_eq!(&d.rgba[..4], &[230, 0, 40, 255]);
    }
}
