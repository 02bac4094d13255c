//! Secrets on a command line (book: reference/security.md, "Secrets on a command line"): a
//! `--server` or `--url` split into what runs now (the values) and what a file may hold (names:
//! every `env NAME=VALUE` assignment, secret flags, secret headers and URL credentials become
//! `${VAR}` references), and the pattern redaction of such command lines in any text.

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Key names whose quoted value is a credential.
pub(super) fn secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace('-', "_");
    let words = [
        "api_key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "authorization",
        "credential",
        "credentials",
        "private_key",
        "access_key",
        "cookie",
        "pat",
    ];
    words
        .iter()
        .any(|w| k == *w || k.ends_with(&format!("_{w}")))
}

/// The one list of names that hold a credential, for names of flags (`--api-key`,
/// `--license-key`), headers (`X-Api-Key`, `X-Auth-Token`) and URL query parameters (`key`,
/// `access_token`): [`secret_key`]'s words, plus any `key` or `*-key` (a flag or header named
/// so holds a key, where a JSON or TOML key called `sort_key` need not).
pub(super) fn secret_name(name: &str) -> bool {
    let k = name.to_ascii_lowercase().replace('-', "_");
    secret_key(&k) || k == "key" || k.ends_with("_key") || k == "access_token"
}

/// A command line with its secrets taken out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scrubbed {
    /// The command (after any `env NAME=VALUE` prefix).
    pub command: String,
    /// The arguments with their values: what runs now.
    pub args: Vec<String>,
    /// The arguments as a file may hold them: each secret a `${VAR}` reference.
    pub file_args: Vec<String>,
    /// The `NAME=VALUE` assignments before the command, in order (the values run now; a file
    /// holds `NAME = "${NAME}"`).
    pub env: Vec<(String, String)>,
    /// The variables the references in `file_args` read, with the values they stand for now.
    pub vars: Vec<(String, String)>,
}

impl Scrubbed {
    /// Every name a person must pass from the environment for the file form to work: the
    /// assignments' names, then the references' variables.
    pub fn kept_out(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in self
            .env
            .iter()
            .map(|(n, _)| n)
            .chain(self.vars.iter().map(|(n, _)| n))
        {
            if !out.contains(name) {
                out.push(name.clone());
            }
        }
        out
    }
}

/// Whether `word` is `NAME=VALUE` with NAME a variable name.
fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

/// The flag name of `--api-key`, `--api-key=…`, `-token` when it names a credential.
fn secret_flag(word: &str) -> Option<&str> {
    let flag = word.split_once('=').map_or(word, |(f, _)| f);
    let name = flag.trim_start_matches('-');
    (flag.starts_with('-') && !name.is_empty() && secret_name(name)).then_some(flag)
}

/// Header names whose value is a credential (`Authorization`, `X-Api-Key`, `*-Token`…).
fn secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization" || n == "proxy-authorization" || secret_name(&n)
}

/// Query parameters whose value is a credential (`api_key`, `token`, `key`, `sig`…).
fn secret_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    secret_name(&n) || matches!(n.as_str(), "auth" | "sig" | "signature" | "code")
}

/// A variable name for a flag, header or parameter name: `--api-key` → `API_KEY`.
fn var_name(from: &str) -> String {
    let mut v: String = from
        .trim_start_matches('-')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if v.is_empty() || v.starts_with(|c: char| c.is_ascii_digit()) {
        v.insert_str(0, "SECRET_");
    }
    v
}

/// Collects the variables a scrub introduces; one name per value.
#[derive(Default)]
struct Vars(Vec<(String, String)>);

impl Vars {
    /// `${VAR}` for `value`, VAR derived from `from` (a suffix when the name is taken by
    /// another value).
    fn reference(&mut self, from: &str, value: &str) -> String {
        let base = var_name(from);
        let mut name = base.clone();
        let mut n = 1;
        loop {
            match self.0.iter().find(|(k, _)| *k == name) {
                Some((_, v)) if v == value => break,
                Some(_) => {
                    n += 1;
                    name = format!("{base}_{n}");
                }
                None => {
                    self.0.push((name.clone(), value.to_string()));
                    break;
                }
            }
        }
        format!("${{{name}}}")
    }
}

/// Whether a value is already a reference (nothing to take out).
fn is_reference(value: &str) -> bool {
    value.starts_with("${") && value.ends_with('}')
}

/// Splits the words of `--server`: `env` and `NAME=VALUE` words before the command become
/// assignments, secret flags (`--api-key VALUE`, `--token=VALUE`), secret headers
/// (`Authorization: Bearer …`) and URL credentials become references. Err when nothing is
/// left to run.
pub fn scrub_words(words: Vec<String>) -> Result<Scrubbed, String> {
    let mut words = words.into_iter().peekable();
    let mut env = Vec::new();
    if words.peek().is_some_and(|w| w == "env") {
        words.next();
    }
    while let Some(w) = words.peek() {
        let Some((name, value)) = assignment(w) else {
            break;
        };
        env.push((name.to_string(), value.to_string()));
        words.next();
    }
    let Some(command) = words.next() else {
        return Err(
            "no command after the variable assignments: pass the server's command line, \
                    e.g. --server \"env API_KEY=… npx -y some-server\""
                .into(),
        );
    };
    let rest: Vec<String> = words.collect();
    let mut vars = Vars::default();
    let mut file_args = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        let w = &rest[i];
        if let Some(flag) = secret_flag(w) {
            match w.split_once('=') {
                Some((_, v)) if !v.is_empty() && !is_reference(v) => {
                    file_args.push(format!("{flag}={}", vars.reference(flag, v)));
                    i += 1;
                    continue;
                }
                Some(_) => {}
                None => {
                    if let Some(next) = rest.get(i + 1)
                        && !next.starts_with('-')
                        && !is_reference(next)
                    {
                        file_args.push(w.clone());
                        file_args.push(vars.reference(flag, next));
                        i += 2;
                        continue;
                    }
                }
            }
        }
        file_args.push(scrub_word(w, &mut vars));
        i += 1;
    }
    Ok(Scrubbed {
        command,
        args: rest,
        file_args,
        env,
        vars: vars.0,
    })
}

/// A header (`Name: value`) or a URL with its credentials replaced; any other word as is.
fn scrub_word(word: &str, vars: &mut Vars) -> String {
    if word.contains("://") {
        return scrub_url_with(word, vars);
    }
    if let Some((name, value)) = word.split_once(':')
        && !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && secret_header(name)
    {
        let value = value.trim_start();
        let (scheme, credential) = match value.split_once(' ') {
            Some((s, c))
                if matches!(
                    s.to_ascii_lowercase().as_str(),
                    "bearer" | "basic" | "token"
                ) =>
            {
                (format!("{s} "), c)
            }
            _ => (String::new(), value),
        };
        if credential.is_empty() || is_reference(credential) {
            return word.to_string();
        }
        let from = if name.eq_ignore_ascii_case("authorization") {
            "auth-token"
        } else {
            name
        };
        return format!("{name}: {scheme}{}", vars.reference(from, credential));
    }
    word.to_string()
}

/// A `--url` as a file may hold it, with the variables its references read (and their values).
pub fn scrub_url(url: &str) -> (String, Vec<(String, String)>) {
    let mut vars = Vars::default();
    let out = scrub_url_with(url, &mut vars);
    (out, vars.0)
}

/// Userinfo (`user:password@`) and credential query parameters (`?api_key=…`) as references.
fn scrub_url_with(url: &str, vars: &mut Vars) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let (head, tail) = url.split_at(scheme_end);
    let auth_end = tail.find(['/', '?', '#']).unwrap_or(tail.len());
    let (authority, path) = tail.split_at(auth_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let userinfo = match userinfo.split_once(':') {
                Some((user, pass)) if !pass.is_empty() && !is_reference(pass) => {
                    format!("{user}:{}", vars.reference("url-password", pass))
                }
                Some(_) => userinfo.to_string(),
                // A user alone is often a token (`https://TOKEN@host`).
                None if is_reference(userinfo) || userinfo.is_empty() => userinfo.to_string(),
                None => vars.reference("url-user", userinfo),
            };
            format!("{userinfo}@{host}")
        }
        None => authority.to_string(),
    };
    let (before_fragment, fragment) = match path.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (path, None),
    };
    let path = match before_fragment.split_once('?') {
        Some((p, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, v)) if secret_param(k) && !v.is_empty() && !is_reference(v) => {
                        format!("{k}={}", vars.reference(k, v))
                    }
                    _ => pair.to_string(),
                })
                .collect();
            format!("{p}?{}", params.join("&"))
        }
        None => before_fragment.to_string(),
    };
    match fragment {
        Some(f) => format!("{head}{authority}{path}#{f}"),
        None => format!("{head}{authority}{path}"),
    }
}

/// Characters around a word that are not part of it (quotes, brackets, list separators).
fn is_separator(c: char) -> bool {
    c.is_whitespace() || "\"'`,[]()<>".contains(c)
}

/// The pattern redaction of command lines in text: the value of `NAME=VALUE` after an `env`
/// word (any NAME) or with a secret-looking NAME, the value of a secret flag (`--api-key
/// VALUE`, `--token=VALUE`) or header (`X-Api-Key: VALUE`), and URL credentials (password,
/// credential query parameters). `None` when nothing matched.
pub fn redact_command_lines(text: &str) -> Option<String> {
    if !text.contains('=') && !text.contains("--") && !text.contains("://") && !text.contains(':') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    // Whether the previous word was `env` or an assignment after it.
    let mut after_env = false;
    // Whether the previous word asks for a secret value next (`--api-key`, `X-Api-Key:`).
    let mut value_next = false;
    let mut rest = text;
    while !rest.is_empty() {
        let sep_len = rest.find(|c: char| !is_separator(c)).unwrap_or(rest.len());
        let (sep, after) = rest.split_at(sep_len);
        out.push_str(sep);
        if sep.contains('\n') {
            after_env = false;
            value_next = false;
        }
        if after.is_empty() {
            break;
        }
        let word_len = after.find(is_separator).unwrap_or(after.len());
        let (word, after) = after.split_at(word_len);
        rest = after;
        // Already redacted (`[redacted]`, its brackets being separators), or a reference that
        // names a variable and holds no value.
        let done = (word == "redacted" && sep.ends_with('[') && rest.starts_with(']'))
            || is_reference(word);
        if done {
            out.push_str(word);
            value_next = false;
            after_env = false;
            continue;
        }
        if value_next && ["bearer", "basic"].contains(&word.to_ascii_lowercase().as_str()) {
            // `Authorization: Bearer …`: the credential after the scheme is the pattern
            // redaction's of `Bearer`.
            out.push_str(word);
            value_next = false;
            continue;
        }
        if value_next && !word.starts_with('-') && word != REDACTED {
            out.push_str(REDACTED);
            changed = true;
            value_next = false;
            continue;
        }
        value_next = false;
        if word == "env" {
            out.push_str(word);
            after_env = true;
            continue;
        }
        let redacted = redact_word(word, after_env);
        after_env = after_env && assignment(word).is_some();
        value_next = redacted.is_none()
            && (secret_flag(word).is_some_and(|_| !word.contains('='))
                || word.strip_suffix(':').is_some_and(|h| {
                    // A header name (`X-Api-Key:`), not a sentence (`needs a token:`).
                    (h.contains('-') || h.eq_ignore_ascii_case("authorization"))
                        && !h.contains(':')
                        && secret_header(h)
                }));
        match redacted {
            Some(r) => {
                out.push_str(&r);
                changed = true;
            }
            None => out.push_str(word),
        }
    }
    changed.then_some(out)
}

/// One word, redacted: `None` when it holds nothing to hide.
fn redact_word(word: &str, after_env: bool) -> Option<String> {
    if let Some((name, value)) = assignment(word)
        && !value.is_empty()
        && value != REDACTED
        && !is_reference(value)
        && (after_env || secret_key(name))
    {
        return Some(format!("{name}={}", REDACTED));
    }
    if let Some(flag) = secret_flag(word)
        && let Some((_, v)) = word.split_once('=')
        && !v.is_empty()
        && v != REDACTED
        && !is_reference(v)
    {
        return Some(format!("{flag}={}", REDACTED));
    }
    if word.contains("://") {
        let (scrubbed, vars) = scrub_url(word);
        if !vars.is_empty() {
            let mut s = scrubbed;
            for (name, _) in vars {
                s = s.replace(&format!("${{{name}}}"), REDACTED);
            }
            return Some(s);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        shell_words::split(s).unwrap()
    }

    #[test]
    fn env_assignments_become_names() {
        let s = scrub_words(words(
            "env GITHUB_PAT=ghp_x DATABASE_URL=postgres://u:pass@h/db npx -y some-server",
        ))
        .unwrap();
        assert_eq!(s.command, "npx");
        assert_eq!(s.args, ["-y", "some-server"]);
        assert_eq!(s.file_args, ["-y", "some-server"]);
        assert_eq!(
            s.env,
            [
                ("GITHUB_PAT".to_string(), "ghp_x".to_string()),
                (
                    "DATABASE_URL".to_string(),
                    "postgres://u:pass@h/db".to_string()
                )
            ]
        );
        assert_eq!(s.kept_out(), ["GITHUB_PAT", "DATABASE_URL"]);
        // The bare form, without `env`.
        let s = scrub_words(words("API_KEY=k1 node s.js")).unwrap();
        assert_eq!((s.command.as_str(), s.env.len()), ("node", 1));
        assert!(scrub_words(words("env A=1")).is_err());
    }

    #[test]
    fn secret_flags_headers_and_urls_become_references() {
        let s = scrub_words(words(
            "npx srv --api-key sk-live-1 --token=tok-2 --port 3000 --header 'Authorization: Bearer abc.def' \
             --github-token ${GH} https://user:pw@example.com/x?api_key=k3&page=2",
        ))
        .unwrap();
        assert_eq!(
            s.file_args,
            [
                "srv",
                "--api-key",
                "${API_KEY}",
                "--token=${TOKEN}",
                "--port",
                "3000",
                "--header",
                "Authorization: Bearer ${AUTH_TOKEN}",
                "--github-token",
                "${GH}",
                "https://user:${URL_PASSWORD}@example.com/x?api_key=${API_KEY_2}&page=2",
            ]
        );
        assert_eq!(s.args[2], "sk-live-1");
        assert_eq!(
            s.kept_out(),
            [
                "API_KEY",
                "TOKEN",
                "AUTH_TOKEN",
                "URL_PASSWORD",
                "API_KEY_2"
            ]
        );
        let (url, vars) = scrub_url("https://tok123@h.example/mcp?key=abc&x=1#f");
        assert_eq!(url, "https://${URL_USER}@h.example/mcp?key=${KEY}&x=1#f");
        assert_eq!(vars.len(), 2);
        assert_eq!(scrub_url("http://127.0.0.1:3000/mcp").1, []);
    }

    #[test]
    fn command_lines_in_text_are_redacted() {
        let r = |s: &str| redact_command_lines(s).unwrap_or_else(|| s.to_string());
        assert_eq!(
            r("upstream `env GITHUB_PAT=ghp_x FOO=bar npx s` exited"),
            "upstream `env GITHUB_PAT=[redacted] FOO=[redacted] npx s` exited"
        );
        assert_eq!(
            r("ran npx s --api-key sk-1 --port 3"),
            "ran npx s --api-key [redacted] --port 3"
        );
        assert_eq!(r(r#"["--token=abc","x"]"#), r#"["--token=[redacted]","x"]"#);
        assert_eq!(r(r#"["--api-key","abc"]"#), r#"["--api-key","[redacted]"]"#);
        assert_eq!(r("MY_API_KEY=abc node"), "MY_API_KEY=[redacted] node");
        assert_eq!(r("x-api-key: abc1"), "x-api-key: [redacted]");
        // Done already, or only a name: left alone.
        assert_eq!(redact_command_lines("--api-key [redacted] x"), None);
        assert_eq!(
            redact_command_lines("--api-key '${API_KEY}' --token=${TOKEN}"),
            None
        );
        assert_eq!(
            r("GET https://u:pw@h/x?token=t1&page=2 failed"),
            "GET https://u:[redacted]@h/x?token=[redacted]&page=2 failed"
        );
        // Ordinary text is left alone.
        for plain in [
            "a=b c=d",
            "see https://example.com/docs?page=2",
            "--port 3000 --verbose",
            "time: 12:30",
            "error: --http needs a token: set MCP_GEN_UI_TOKEN",
        ] {
            assert_eq!(redact_command_lines(plain), None, "{plain}");
        }
    }
}
