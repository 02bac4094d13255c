//! Names derived from untrusted tool and server names: file names that can never leave the output
//! directory, `ui://` URIs, and the header comment of every generated file.

use super::canonical::sha256_hex;

/// Longest readable stem (book: reference/names.md).
const SLUG_MAX: usize = 48;

/// Stems a filesystem refuses or treats as a device whatever the extension (Windows), so
/// `con.html` could never be checked out there: such a name gets the hash.
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com0", "com1", "com2", "com3", "com4", "com5", "com6", "com7",
    "com8", "com9", "lpt0", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
    "conin$", "conout$",
];

fn is_plain(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Lowercase ASCII letters, digits, `_` and `-` kept; every run of other characters becomes one
/// `-`; leading and trailing dashes trimmed; cut to `max` characters.
fn slug(name: &str, max: usize) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_matches('-').chars().take(max).collect();
    trimmed.trim_end_matches('-').to_string()
}

/// The first 8 hex digits of the sha256 of the exact name.
fn short_hash(tool_name: &str) -> String {
    sha256_hex(tool_name.as_bytes())[..8].to_string()
}

/// The readable file stem of a tool: the name lowercased, keeping `_` and `-`, every run of
/// other characters one dash, at most 48 characters (`API-get-self` → `api-get-self`,
/// `user.create` → `user-create`). A name with nothing left becomes `tool-<hash>`, a reserved
/// one `<stem>-<hash>`. Never contains `/`, `\`, `.` or anything outside that alphabet, so it
/// cannot escape the output directory. Two names with the same stem: see [`assign_stems`].
pub fn file_stem(tool_name: &str) -> String {
    let s = slug(tool_name, SLUG_MAX);
    if s.is_empty() || RESERVED.contains(&s.as_str()) {
        return hashed_stem(tool_name);
    }
    s
}

/// The stem with the short hash: `<stem>-<8 hex of the sha256 of the exact name>` (`tool-…`
/// when nothing readable is left). What the newcomer of two colliding names gets.
pub fn hashed_stem(tool_name: &str) -> String {
    let s = slug(tool_name, SLUG_MAX);
    let s = if s.is_empty() { "tool".to_string() } else { s };
    format!("{s}-{}", short_hash(tool_name))
}

/// Whether a stem recorded in a lock is one we could have written (a hand-edited lock must not
/// lead a file out of the output directory).
fn is_safe_stem(stem: &str) -> bool {
    (1..=64 + 9).contains(&stem.len())
        && stem
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && stem != "-"
}

/// The stem of the files recorded for a tool: `x` for `x.html` or `x/widget.html`.
pub fn stem_of_path(path: &str) -> &str {
    match path.split_once('/') {
        Some((dir, _)) => dir,
        None => path.strip_suffix(".html").unwrap_or(path),
    }
}

/// The file stem of every tool in `names`. A tool in `kept` (its stem as the lock records it)
/// keeps it: renaming a file would change its `ui://` URI. The others get their readable stem,
/// or the hashed one when that is taken — by a kept tool, or by a new one earlier in a
/// deterministic order (names that are their own stem first, then by name). Err names two tools
/// that would still share a file.
pub fn assign_stems(
    names: &std::collections::BTreeSet<String>,
    kept: &std::collections::BTreeMap<String, String>,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    use std::collections::BTreeMap;
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    for (name, stem) in kept {
        if names.contains(name) && is_safe_stem(stem) && !taken.contains_key(stem) {
            taken.insert(stem.clone(), name.clone());
            out.insert(name.clone(), stem.clone());
        }
    }
    let mut new: Vec<(bool, &String)> = names
        .iter()
        .filter(|n| !out.contains_key(*n))
        .map(|n| (file_stem(n) != **n, n))
        .collect();
    new.sort();
    for (_, name) in new {
        let readable = file_stem(name);
        let stem = if taken.contains_key(&readable) {
            hashed_stem(name)
        } else {
            readable
        };
        if let Some(other) = taken.get(&stem) {
            return Err(format!(
                "tools `{other}` and `{name}` would both be written to `{stem}.html`; disable one \
                 with [tools.\"NAME\"] enabled = false"
            ));
        }
        taken.insert(stem.clone(), name.clone());
        out.insert(name.clone(), stem);
    }
    Ok(out)
}

/// Whether a configured widget name is usable as a file name as is.
pub fn valid_widget_name(name: &str) -> bool {
    is_plain(name)
}

/// The path of a widget's file, relative to the output directory, for a tool whose files have
/// the stem `stem` (see [`assign_stems`]).
pub fn widget_path(stem: &str, widget: Option<&str>) -> String {
    match widget {
        None => format!("{stem}.html"),
        Some(w) => format!("{stem}/{w}.html"),
    }
}

/// The slug of the upstream's `serverInfo.name`, used as the authority of `ui://` URIs.
pub fn server_slug(server_name: &str) -> String {
    let s = slug(server_name, 64);
    if s.is_empty() { "server".into() } else { s }
}

/// `ui://<server>/<tool-file>[/<widget>]`, for a tool whose files have the stem `stem`.
pub fn ui_uri(server: &str, stem: &str, widget: Option<&str>) -> String {
    match widget {
        None => format!("ui://{server}/{stem}"),
        Some(w) => format!("ui://{server}/{stem}/{w}"),
    }
}

/// The `ui://` URI of a file recorded in the lock: it follows the file name (`x.html` →
/// `ui://<server>/x`, `x/chart.html` → `ui://<server>/x/chart`).
pub fn uri_for_path(server: &str, path: &str) -> String {
    format!(
        "ui://{server}/{}",
        path.strip_suffix(".html").unwrap_or(path)
    )
}

/// Makes text safe inside an HTML comment: no `--` (so no `-->`), no `<`/`>`.
fn comment_safe(s: &str) -> String {
    let s = s.replace('<', "\\u003c").replace('>', "\\u003e");
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '-' && out.ends_with('-') {
            out.push_str("\\u002d");
        } else {
            out.push(c);
        }
    }
    out
}

/// The first lines of every generated file, in the spirit of Go's "Code generated … DO NOT EDIT.".
pub fn header_comment(tool_name: &str) -> String {
    // A name with control characters or of a megabyte still makes a valid, small header.
    let shown;
    let tool_name = if tool_name.chars().any(char::is_control) || tool_name.len() > 1000 {
        shown = super::text::safe_text(tool_name, 1000);
        shown.as_str()
    } else {
        tool_name
    };
    let json = serde_json::to_string(tool_name).unwrap_or_else(|_| "\"?\"".into());
    let shell = shell_words::quote(tool_name).into_owned();
    format!(
        "<!-- Code generated by mcp-gen-ui from tool {}. DO NOT EDIT.\n     \
         To change this UI, refine it and regenerate:\n       \
         mcp-gen-ui refine {} \"line chart\"\n     \
         or set hints in mcp-gen-ui.toml and run `mcp-gen-ui generate`. -->\n",
        comment_safe(&json),
        comment_safe(&shell)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[test]
    fn plain_names_are_kept_and_others_read_like_the_name() {
        assert_eq!(file_stem("get_forecast"), "get_forecast");
        assert_eq!(file_stem("a-b_9"), "a-b_9");
        assert_eq!(file_stem("API-get-self"), "api-get-self");
        assert_eq!(file_stem("user.create"), "user-create");
        assert_eq!(file_stem("GetData"), "getdata");
        assert_eq!(file_stem("  a .. b  "), "a-b");
        assert_eq!(file_stem("--x--"), "x");
        assert_eq!(file_stem(&"y".repeat(60)), "y".repeat(48));
        // Cut at 48, then no dash left at the end.
        assert_eq!(file_stem(&format!("{}.z", "a".repeat(47))), "a".repeat(47));
        let h = |n: &str| sha256_hex(n.as_bytes())[..8].to_string();
        assert_eq!(
            file_stem("日本語ツール"),
            format!("tool-{}", h("日本語ツール"))
        );
        assert_eq!(file_stem("CON"), format!("con-{}", h("CON")));
        assert_eq!(file_stem("lpt1"), format!("lpt1-{}", h("lpt1")));
        assert_eq!(file_stem("."), format!("tool-{}", h(".")));
        assert_eq!(file_stem(".."), format!("tool-{}", h("..")));
    }

    #[test]
    fn hostile_names_stay_inside() {
        let names = [
            "../../etc/x",
            "a/b",
            "a\\b",
            "CON",
            "con ",
            "Foo",
            "日本語ツール",
            "💥",
            "",
            ".",
            "..",
            "a b",
            &"x".repeat(300),
            "nul\u{0}byte",
        ];
        for n in names {
            let stem = file_stem(n);
            assert!(!stem.is_empty(), "{n:?}");
            assert!(stem.len() <= 48 + 9, "{n:?} -> {stem}");
            assert!(is_safe_stem(&stem), "{n:?} -> {stem}");
            assert!(
                !stem.starts_with('-') && !stem.ends_with('-'),
                "{n:?} -> {stem}"
            );
        }
        assert_eq!(file_stem("../../etc/x"), "etc-x");
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_hash_only_for_the_newcomer_of_a_collision() {
        let none = BTreeMap::new();
        // Nothing collides: no hash.
        let s = assign_stems(&set(&["API-get-self", "user.create", "GetData"]), &none).unwrap();
        assert_eq!(s["API-get-self"], "api-get-self");
        assert_eq!(s["user.create"], "user-create");
        assert_eq!(s["GetData"], "getdata");
        // Two new names: the one that is its own stem keeps it, whatever the order.
        let s = assign_stems(&set(&["Foo", "foo", "FOO"]), &none).unwrap();
        assert_eq!(s["foo"], "foo");
        assert_eq!(s["FOO"], hashed_stem("FOO"));
        assert_eq!(s["Foo"], hashed_stem("Foo"));
        let s = assign_stems(&set(&["a.b", "a b"]), &none).unwrap();
        assert_eq!(s["a b"], "a-b");
        assert_eq!(s["a.b"], hashed_stem("a.b"));
        // A file that exists is never renamed: the newcomer gets the hash.
        let kept: BTreeMap<String, String> =
            [("User.Create".to_string(), "user-create".to_string())]
                .into_iter()
                .collect();
        let s = assign_stems(&set(&["User.Create", "user-create"]), &kept).unwrap();
        assert_eq!(s["User.Create"], "user-create");
        assert_eq!(s["user-create"], hashed_stem("user-create"));
        // Old hashed names are kept as the lock records them.
        let kept: BTreeMap<String, String> = [(
            "Get Forecast".to_string(),
            "get-forecast-1a2b3c4d".to_string(),
        )]
        .into_iter()
        .collect();
        let s = assign_stems(&set(&["Get Forecast"]), &kept).unwrap();
        assert_eq!(s["Get Forecast"], "get-forecast-1a2b3c4d");
        // A lock that points outside is not believed.
        let kept: BTreeMap<String, String> = [("x".to_string(), "../x".to_string())]
            .into_iter()
            .collect();
        assert_eq!(assign_stems(&set(&["x"]), &kept).unwrap()["x"], "x");
        assert_eq!(stem_of_path("a-b.html"), "a-b");
        assert_eq!(stem_of_path("a-b/chart.html"), "a-b");
        assert_eq!(uri_for_path("s", "a-b/chart.html"), "ui://s/a-b/chart");
    }

    #[test]
    fn header_cannot_close_the_comment() {
        let h = header_comment("x --> <script>alert(1)</script> --!>");
        let body = &h[4..h.len() - 4];
        assert!(!body.contains("--"), "{h}");
        assert!(!body.contains('<') && !body.contains('>'), "{h}");
        assert!(h.starts_with("<!-- Code generated by mcp-gen-ui from tool \"x "));
        assert!(h.trim_end().ends_with("-->"));
    }

    #[test]
    fn uris() {
        assert_eq!(server_slug("Weather Server!"), "weather-server");
        assert_eq!(server_slug("***"), "server");
        assert_eq!(
            ui_uri("weather", "get_forecast", None),
            "ui://weather/get_forecast"
        );
        assert_eq!(
            ui_uri("weather", "get_forecast", Some("chart")),
            "ui://weather/get_forecast/chart"
        );
    }
}
