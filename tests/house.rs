//! The shape of the house (book: architecture.md), checked on every test run so it stays built:
//!
//! - no circle of files: a file never reaches itself through the files it imports from;
//! - no arrow up: a module never imports from a layer above its own, and the top-level modules
//!   form no circle either;
//! - no function outside tests longer than 150 lines, in `src/` and `examples/`;
//! - no file in `src/` over 800 lines of code (blank lines, comments and unit tests not
//!   counted), and each opens with a `//!` comment naming its one job;
//! - no comment cites a design document the repository does not hold (the book is the reference).
//!
//! A reader (not a compiler) of the source: comments, strings and test modules are dropped, then
//! every `use` tree and every path that starts at `crate::`, `super::`, `self::` or a child module
//! is resolved to the deepest file it names. A `pub use` re-export in a `mod.rs` is an import like
//! any other (a child that imports back through its parent closes a circle); a `mod x;`
//! declaration is not. The layers below are the ones the book draws; a new top-level module has
//! to be placed in one.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Top to bottom: a module may import from its own layer or any layer below.
const LAYERS: &[(&str, &[&str])] = &[
    ("cli", &["cli"]),
    ("commands", &["commands"]),
    ("pipeline", &["pipeline"]),
    (
        "stages",
        &[
            "serve", "preview", "review", "discover", "plan", "sample", "generate", "validate",
            "write",
        ],
    ),
    (
        "base",
        &[
            "context", "lock", "model", "config", "mcp", "report", "secrets", "json", "token",
            "origins", "css",
        ],
    ),
];

const MAX_FN_LINES: usize = 150;

type ModPath = Vec<String>;

struct SourceFile {
    path: PathBuf,
    /// The code with comments and literals blanked and test modules cut, lines kept.
    code: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/mcp/http.rs` → `["mcp", "http"]`, `src/mcp/mod.rs` → `["mcp"]`, `src/lib.rs` → `[]`.
fn mod_path(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut segs: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        segs.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        segs.pop();
    }
    segs
}

/// Blanks comments, strings and char literals (keeping newlines, so line numbers hold).
fn blank(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newlines = |s: &[char], out: &mut String| {
        for c in s {
            if *c == '\n' {
                out.push('\n');
            }
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            keep_newlines(&b[start..i.min(b.len())], &mut out);
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && !b
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
            && {
                let mut j = i + if c == 'b' { 2 } else { 1 };
                while b.get(j) == Some(&'#') {
                    j += 1;
                }
                b.get(j) == Some(&'"')
            }
        {
            let start = i;
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            j += 1;
            'raw: while j < b.len() {
                if b[j] == '"' {
                    let mut k = 0;
                    while k < hashes && b.get(j + 1 + k) == Some(&'#') {
                        k += 1;
                    }
                    if k == hashes {
                        j += 1 + hashes;
                        break 'raw;
                    }
                }
                j += 1;
            }
            out.push_str("\"\"");
            keep_newlines(&b[start..j.min(b.len())], &mut out);
            i = j;
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
            keep_newlines(&b[start..i.min(b.len())], &mut out);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): only the former is skipped.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                out.push_str("' '");
                i = j + 1;
            } else if b.get(i + 2) == Some(&'\'') {
                out.push_str("' '");
                i += 3;
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Cuts `#[cfg(test)] mod x { … }` blocks (the file keeps its line count up to there) and
/// returns the names of `#[cfg(test)] mod x;` files, which are tests.
fn cut_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_files = Vec::new();
    let mut lines = code.lines().peekable();
    let mut cfg_test = false;
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "#[cfg(test)]" {
            cfg_test = true;
            out.push('\n');
            continue;
        }
        if cfg_test && t.starts_with("#[") {
            out.push('\n');
            continue;
        }
        if cfg_test {
            cfg_test = false;
            // `mod x`, `pub mod x`, `pub(crate) mod x`, `pub(super) mod x`.
            let decl = match t.strip_prefix("pub") {
                Some(rest) if rest.starts_with('(') => {
                    rest.split_once(')').map_or(t, |(_, r)| r.trim_start())
                }
                Some(rest) => rest.trim_start(),
                None => t,
            };
            if let Some(rest) = decl.strip_prefix("mod ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if rest.trim_end().ends_with(';') {
                    test_files.push(name);
                    out.push('\n');
                    continue;
                }
                // Skip the block, counting braces.
                let mut depth = line.matches('{').count() as i64 - line.matches('}').count() as i64;
                out.push('\n');
                while depth > 0 {
                    let Some(l) = lines.next() else { break };
                    depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                    out.push('\n');
                }
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, test_files)
}

fn read_tree(dir: &Path) -> BTreeMap<ModPath, SourceFile> {
    let mut paths = Vec::new();
    rust_files(dir, &mut paths);
    let mut files = BTreeMap::new();
    let mut tests: BTreeSet<ModPath> = BTreeSet::new();
    for p in paths {
        let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let (code, test_mods) = cut_tests(&blank(&text));
        let mp = mod_path(dir, &p);
        for t in test_mods {
            let mut child = mp.clone();
            // `foo.rs` declaring `mod tests;` owns `foo/tests.rs`, like `foo/mod.rs` does.
            child.push(t);
            tests.insert(child);
        }
        files.insert(mp, SourceFile { path: p, code });
    }
    files.retain(|k, _| !tests.contains(k));
    files
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return vec![path.to_string()];
    };
    let prefix = &tree[..open];
    let close = tree.rfind('}').unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    parts.push(cur);
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| expand(p))
        .map(|p| format!("{prefix}{p}"))
        .collect()
}

/// Every path in `code` that could name another file of the crate.
fn paths_in(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // `use` trees (with their braces).
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().last();
        let after = &rest[at + 4..];
        if before.is_some_and(is_ident) {
            rest = after;
            continue;
        }
        let end = after.find(';').unwrap_or(after.len());
        let tree: String = after[..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        out.extend(expand(&tree.replace(":: ", "::").replace(" ::", "::")));
        rest = &after[end..];
    }
    // Qualified paths in code: `crate::a::b`, `super::x`, `child::f`.
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if is_ident(chars[i]) && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            let start = i;
            let mut j = i;
            loop {
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                if chars.get(j) == Some(&':')
                    && chars.get(j + 1) == Some(&':')
                    && chars.get(j + 2).is_some_and(|c| is_ident(*c))
                {
                    j += 2;
                } else {
                    break;
                }
            }
            let path: String = chars[start..j].iter().collect();
            if path.contains("::") {
                out.push(path);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The deepest file a path names, seen from the module `cur`.
fn resolve(files: &BTreeMap<ModPath, SourceFile>, cur: &ModPath, path: &str) -> Option<ModPath> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let (mut base, rest): (ModPath, &[&str]) = match segs.first().copied()? {
        "crate" => (Vec::new(), &segs[1..]),
        "super" | "self" => {
            let mut base = cur.clone();
            let mut k = 0;
            while let Some(s) = segs.get(k) {
                match *s {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                k += 1;
            }
            (base, &segs[k..])
        }
        first => {
            let mut child = cur.clone();
            child.push(first.to_string());
            if !files.contains_key(&child) {
                return None;
            }
            (cur.clone(), &segs[..])
        }
    };
    let mut best = base.clone();
    for s in rest {
        base.push((*s).to_string());
        if files.contains_key(&base) {
            best = base.clone();
        } else {
            break;
        }
    }
    files.contains_key(&best).then_some(best)
}

fn edges(files: &BTreeMap<ModPath, SourceFile>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    files
        .iter()
        .map(|(mp, f)| {
            let targets = paths_in(&f.code)
                .iter()
                .filter_map(|p| resolve(files, mp, p))
                .filter(|t| t != mp)
                .collect();
            (mp.clone(), targets)
        })
        .collect()
}

/// Strongly connected components with more than one member (Tarjan).
fn circles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    struct T<'a, N: Ord + Clone> {
        g: &'a BTreeMap<N, BTreeSet<N>>,
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on: BTreeSet<N>,
        next: usize,
        out: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(t: &mut T<'_, N>, v: &N) {
        t.index.insert(v.clone(), t.next);
        t.low.insert(v.clone(), t.next);
        t.next += 1;
        t.stack.push(v.clone());
        t.on.insert(v.clone());
        let succ: Vec<N> =
            t.g.get(v)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default();
        for w in succ {
            if !t.index.contains_key(&w) {
                visit(t, &w);
                let lw = t.low[&w];
                let lv = t.low[v];
                t.low.insert(v.clone(), lv.min(lw));
            } else if t.on.contains(&w) {
                let iw = t.index[&w];
                let lv = t.low[v];
                t.low.insert(v.clone(), lv.min(iw));
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(&w);
                let done = &w == v;
                comp.push(w);
                if done {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g: graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn show(mp: &ModPath) -> String {
    if mp.is_empty() {
        "lib".into()
    } else {
        mp.join("/")
    }
}

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&top))
}

fn library() -> BTreeMap<ModPath, SourceFile> {
    let mut files = read_tree(&root().join("src"));
    // main.rs is the binary: it sits above everything and only calls `cli`.
    files.remove(&Vec::new());
    files.retain(|k, f| !(k.len() == 1 && k[0] == "main" && f.path.ends_with("main.rs")));
    files
}

#[test]
fn no_circle_of_files() {
    let files = library();
    let found = circles(&edges(&files));
    let text: Vec<String> = found
        .iter()
        .map(|c| c.iter().map(show).collect::<Vec<_>>().join(" → "))
        .collect();
    assert!(
        found.is_empty(),
        "files that reach themselves through their imports (move what they share into a leaf \
         file that imports neither):\n  {}",
        text.join("\n  ")
    );
}

#[test]
fn no_arrow_up_and_no_circle_of_modules() {
    let files = library();
    let mut up = Vec::new();
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in edges(&files) {
        let Some(top) = from.first() else { continue };
        let Some(lf) = layer_of(top) else {
            panic!("src/{top} is in no layer: add it to LAYERS in tests/house.rs and to the book");
        };
        modules.entry(top.clone()).or_default();
        for to in targets {
            let Some(tt) = to.first() else { continue };
            if tt == top {
                continue;
            }
            let Some(lt) = layer_of(tt) else {
                panic!("src/{tt} is in no layer: add it to LAYERS in tests/house.rs and the book");
            };
            if lt < lf {
                up.push(format!(
                    "{} ({}) imports {} ({})",
                    show(&from),
                    LAYERS[lf].0,
                    show(&to),
                    LAYERS[lt].0
                ));
            }
            modules.entry(top.clone()).or_default().insert(tt.clone());
        }
    }
    assert!(
        up.is_empty(),
        "imports from a higher layer:\n  {}",
        up.join("\n  ")
    );
    let found = circles(&modules);
    assert!(
        found.is_empty(),
        "top-level modules that import each other: {found:?}"
    );
}

/// Every `fn` with a body, with its first line and length in lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut search = *line;
        let mut offset = 0;
        while let Some(at) = search.find("fn ") {
            let abs = offset + at;
            let before = line[..abs].chars().last();
            offset = abs + 3;
            search = &line[offset..];
            if before.is_some_and(is_ident) {
                continue;
            }
            let name: String = line[abs + 3..]
                .chars()
                .take_while(|c| is_ident(*c))
                .collect();
            if name.is_empty() {
                continue;
            }
            // Find the body: the first `{` before a `;` at depth 0 of parentheses.
            let mut depth: i64 = 0;
            let mut started = false;
            let mut paren: i64 = 0;
            let mut end = None;
            'scan: for (k, l) in lines.iter().enumerate().skip(n) {
                let from = if k == n { abs } else { 0 };
                for c in l[from..].chars() {
                    match c {
                        '(' | '[' => paren += 1,
                        ')' | ']' => paren -= 1,
                        ';' if !started && paren == 0 => break 'scan,
                        '{' => {
                            depth += 1;
                            started = true;
                        }
                        '}' => {
                            depth -= 1;
                            if started && depth == 0 {
                                end = Some(k);
                                break 'scan;
                            }
                        }
                        _ => {}
                    }
                }
            }
            if let Some(end) = end {
                out.push((name, n + 1, end - n + 1));
            }
        }
    }
    out
}

#[test]
fn no_long_function() {
    let mut long = Vec::new();
    for dir in ["src", "examples"] {
        for f in read_tree(&root().join(dir)).values() {
            for (name, line, len) in functions(&f.code) {
                if len > MAX_FN_LINES {
                    let rel = f.path.strip_prefix(root()).unwrap_or(&f.path);
                    long.push(format!("{}:{line} fn {name}: {len} lines", rel.display()));
                }
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them into the steps they already have):\n  {}",
        long.join("\n  ")
    );
}

#[test]
fn the_reader_sees_what_it_should() {
    // The checks above are only as good as this reader: pin what it sees on a small sample.
    let code = blank(
        "use crate::a::{b, c::{d as e, f}};\n// use crate::hidden;\nfn x() { let s = \"crate::hidden\"; super::y::z(); let c = '{'; }\n",
    );
    let paths = paths_in(&code);
    assert!(paths.contains(&"crate::a::b".to_string()), "{paths:?}");
    assert!(paths.contains(&"crate::a::c::d".to_string()), "{paths:?}");
    assert!(paths.contains(&"crate::a::c::f".to_string()), "{paths:?}");
    assert!(paths.contains(&"super::y::z".to_string()), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains("hidden")), "{paths:?}");
    let fns = functions(&code);
    assert_eq!(fns, vec![("x".to_string(), 3, 1)]);

    let (cut, tests) = cut_tests(
        "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn b() {\n    }\n}\n#[cfg(test)]\nmod more;\n",
    );
    assert_eq!(tests, vec!["more".to_string()]);
    assert!(!cut.contains("fn b"));
    assert_eq!(cut.lines().count(), 8);

    let mut g: BTreeMap<u8, BTreeSet<u8>> = BTreeMap::new();
    g.insert(1, [2].into());
    g.insert(2, [3].into());
    g.insert(3, [1].into());
    g.insert(4, [1].into());
    assert_eq!(circles(&g), vec![vec![1, 2, 3]]);
}

const MAX_FILE_LINES: usize = 800;

/// The lines of code of a file: not blank, not a comment, not in a `#[cfg(test)]` module.
/// A line inside a multi-line string is code (the blanked text hides it, the raw text keeps it).
fn lines_of_code(text: &str) -> usize {
    let blanked = blank(text);
    let (cut, _) = cut_tests(&blanked);
    let raw: Vec<&str> = text.lines().collect();
    let blanked: Vec<&str> = blanked.lines().collect();
    let cut: Vec<&str> = cut.lines().collect();
    (0..raw.len())
        .filter(|&i| {
            let r = raw[i].trim();
            let b = blanked.get(i).map_or("", |l| l.trim());
            let c = cut.get(i).map_or("", |l| l.trim());
            let in_test = !b.is_empty() && c.is_empty();
            let comment = r.starts_with("//")
                || (b.is_empty() && (r.starts_with("/*") || r.starts_with('*')));
            !r.is_empty() && !comment && !in_test
        })
        .count()
}

#[test]
fn every_file_has_one_job_and_at_most_800_lines_of_code() {
    let mut long = Vec::new();
    let mut unnamed = Vec::new();
    let mut paths = Vec::new();
    rust_files(&root().join("src"), &mut paths);
    for p in paths {
        let text = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
        let n = lines_of_code(&text);
        if n > MAX_FILE_LINES {
            long.push(format!("{rel}: {n} lines of code"));
        }
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !first.starts_with("//!") {
            unnamed.push(rel);
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines of code (split them by the jobs they do):\n  {}",
        long.join("\n  ")
    );
    assert!(
        unnamed.is_empty(),
        "files whose first line is not a `//!` comment naming their job:\n  {}",
        unnamed.join("\n  ")
    );
}

#[test]
fn no_comment_cites_a_document_the_repository_does_not_hold() {
    // The rules live in the book's reference part; comments cite it, never the design notes.
    let mut found = Vec::new();
    for dir in ["src", "templates", "tests", "examples", "book/src"] {
        for entry in walk(&root().join(dir)) {
            let Ok(text) = fs::read_to_string(&entry) else {
                continue;
            };
            for (n, line) in text.lines().enumerate() {
                let hit = line.match_indices("SPEC").any(|(at, _)| {
                    let before = line[..at].chars().last();
                    let after = line[at + 4..].trim_start_matches([' ', '§']).chars().next();
                    !before.is_some_and(|c| c.is_alphanumeric())
                        && after.is_some_and(|c| c.is_ascii_digit())
                });
                if hit {
                    let rel = entry.strip_prefix(root()).unwrap_or(&entry);
                    found.push(format!("{}:{}", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite the book's reference part instead:\n  {}",
        found.join("\n  ")
    );
}

/// Every text file below `dir`, but installed packages, build output and minified copies.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        if matches!(
            name.as_deref(),
            Some("node_modules" | "min" | "target" | "snapshots" | "artifacts")
        ) || name.as_deref().is_some_and(|n| n.starts_with('.'))
        {
            continue;
        }
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_line_counter_sees_what_it_should() {
    let text = "//! job\n\nfn a() {\n    // why\n    let s = \"one\n two\";\n}\n#[cfg(test)]\nmod tests {\n    fn b() {}\n}\n";
    // `fn a() {`, `let s = "one`, ` two";`, `}`.
    assert_eq!(lines_of_code(text), 4);
}
