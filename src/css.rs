//! The one CSS tokenizer (CSS Syntax Level 3, section 4): every reader of CSS in mcp-gen-ui (the
//! validator's loads and contrast rules, the llm post-processing) sees the tokens a browser sees,
//! escapes decoded, with byte spans into the source and 0-based line numbers. It never fails
//! and never panics: malformed CSS gives `BadString`/`BadUrl`/`Delim` tokens as in a browser.
//! `loads` on top of it finds what a stylesheet fetches (book: reference/validator.md).

use std::ops::Range;

/// The kind of a token; names follow CSS Syntax Level 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    /// `name(`: `value` is the name.
    Function,
    /// `@name`: `value` is the name.
    AtKeyword,
    /// `#name`: `value` is the name.
    Hash,
    /// `"…"`/`'…'`: `value` is the decoded text.
    String,
    /// A string cut by a newline.
    BadString,
    /// An unquoted `url(…)`: `value` is the decoded URL. (`url("…")` is a `Function` then a
    /// `String`.)
    Url,
    BadUrl,
    Delim(char),
    Number,
    Percentage,
    /// `12px`: `value` is the number's text, `unit` the unit.
    Dimension,
    Whitespace,
    Cdo,
    Cdc,
    Colon,
    Semicolon,
    Comma,
    OpenSquare,
    CloseSquare,
    OpenParen,
    CloseParen,
    OpenCurly,
    CloseCurly,
    Comment,
}

/// One token.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub kind: Kind,
    /// Where it is in the source (byte offsets, on char boundaries).
    pub span: Range<usize>,
    /// 0-based line of its first character.
    pub line: usize,
    /// The decoded name, text or URL (see `Kind`); the source text for the other kinds.
    pub value: String,
    /// The unit of a `Dimension`, decoded; empty otherwise.
    pub unit: String,
    /// The numeric value of a `Number`, `Percentage` or `Dimension`.
    pub number: f64,
    /// A `String`, `Url` or `Comment` that the end of the text cut short (no closing quote,
    /// `)` or `*/`).
    pub unclosed: bool,
}

impl Token {
    /// True for an `Ident`, `Function` or `AtKeyword` whose name is `name` (ASCII case-blind).
    pub fn is(&self, kind: Kind, name: &str) -> bool {
        self.kind == kind && self.value.eq_ignore_ascii_case(name)
    }
}

/// All tokens of `css`, in order; their spans cover the source without gaps.
pub fn tokenize(css: &str) -> Vec<Token> {
    Tokenizer::new(css).collect()
}

/// The tokens of `css`, one at a time.
pub struct Tokenizer<'a> {
    src: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Tokenizer<'a> {
    pub fn new(src: &'a str) -> Tokenizer<'a> {
        Tokenizer {
            src,
            pos: 0,
            line: 0,
        }
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.src.get(self.pos..)?.chars().nth(n)
    }

    fn peek(&self) -> Option<char> {
        self.peek_at(0)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        // CRLF counts once: the CR is the newline, the LF after it is not.
        if c == '\n' && self.src.as_bytes().get(self.pos.wrapping_sub(2)) != Some(&b'\r')
            || matches!(c, '\r' | '\u{c}')
        {
            self.line += 1;
        }
        Some(c)
    }

    fn starts_with(&self, s: &str) -> bool {
        self.src.get(self.pos..).is_some_and(|r| r.starts_with(s))
    }

    /// `\` followed by anything but a newline starts an escape.
    fn valid_escape_at(&self, n: usize) -> bool {
        self.peek_at(n) == Some('\\') && !self.peek_at(n + 1).is_none_or(is_newline)
    }

    fn ident_start_at(&self, n: usize) -> bool {
        match self.peek_at(n) {
            Some('-') => {
                self.peek_at(n + 1)
                    .is_some_and(|c| c == '-' || is_name_start(c))
                    || self.valid_escape_at(n + 1)
            }
            Some('\\') => self.valid_escape_at(n),
            Some(c) => is_name_start(c),
            None => false,
        }
    }

    fn number_start_at(&self, n: usize) -> bool {
        let digit = |k: usize| self.peek_at(k).is_some_and(|c| c.is_ascii_digit());
        match self.peek_at(n) {
            Some('+' | '-') => digit(n + 1) || (self.peek_at(n + 1) == Some('.') && digit(n + 2)),
            Some('.') => digit(n + 1),
            Some(c) => c.is_ascii_digit(),
            None => false,
        }
    }

    /// After the `\`: a hex escape (with one optional whitespace after it) or a literal char.
    fn escape(&mut self) -> char {
        let mut hex = String::new();
        while hex.len() < 6 && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            hex.extend(self.bump());
        }
        if hex.is_empty() {
            return self.bump().unwrap_or('\u{FFFD}');
        }
        if self.peek().is_some_and(is_whitespace) {
            self.bump();
        }
        u32::from_str_radix(&hex, 16)
            .ok()
            .filter(|v| *v != 0)
            .and_then(char::from_u32)
            .unwrap_or('\u{FFFD}')
    }

    fn name(&mut self) -> String {
        let mut out = String::new();
        loop {
            match self.peek() {
                Some(c) if is_name(c) => {
                    out.push(c);
                    self.bump();
                }
                Some('\\') if self.valid_escape_at(0) => {
                    self.bump();
                    out.push(self.escape());
                }
                _ => return out,
            }
        }
    }

    fn string(&mut self, quote: char) -> (Kind, String) {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == quote {
                self.bump();
                return (Kind::String, out);
            }
            if is_newline(c) {
                // Not consumed: the newline becomes whitespace.
                return (Kind::BadString, out);
            }
            self.bump();
            if c == '\\' {
                match self.peek() {
                    None => {}
                    Some(n) if is_newline(n) => {
                        self.bump();
                        if n == '\r' && self.peek() == Some('\n') {
                            self.bump();
                        }
                    }
                    Some(_) => out.push(self.escape()),
                }
            } else {
                out.push(if c == '\0' { '\u{FFFD}' } else { c });
            }
        }
        (Kind::String, out)
    }

    fn number(&mut self) -> (String, f64) {
        let start = self.pos;
        if matches!(self.peek(), Some('+' | '-')) {
            self.bump();
        }
        let digits = |t: &mut Self| {
            while t.peek().is_some_and(|c| c.is_ascii_digit()) {
                t.bump();
            }
        };
        digits(self);
        if self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
            digits(self);
        }
        if matches!(self.peek(), Some('e' | 'E'))
            && (self.peek_at(1).is_some_and(|c| c.is_ascii_digit())
                || (matches!(self.peek_at(1), Some('+' | '-'))
                    && self.peek_at(2).is_some_and(|c| c.is_ascii_digit())))
        {
            self.bump();
            self.bump();
            digits(self);
        }
        let text = self.src.get(start..self.pos).unwrap_or("").to_string();
        let value = text.parse().unwrap_or(0.0);
        (text, value)
    }

    fn numeric(&mut self) -> (Kind, String, String, f64) {
        let (text, value) = self.number();
        if self.ident_start_at(0) {
            let unit = self.name();
            (Kind::Dimension, text, unit, value)
        } else if self.peek() == Some('%') {
            self.bump();
            (Kind::Percentage, text, String::new(), value)
        } else {
            (Kind::Number, text, String::new(), value)
        }
    }

    /// After `url(` and its whitespace, an unquoted URL up to `)`.
    fn url(&mut self) -> (Kind, String) {
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return (Kind::Url, out),
                Some(')') => {
                    self.bump();
                    return (Kind::Url, out);
                }
                Some(c) if is_whitespace(c) => {
                    while self.peek().is_some_and(is_whitespace) {
                        self.bump();
                    }
                    if matches!(self.peek(), None | Some(')')) {
                        self.bump();
                        return (Kind::Url, out);
                    }
                    self.bad_url_rest();
                    return (Kind::BadUrl, out);
                }
                Some('"' | '\'' | '(') => {
                    self.bad_url_rest();
                    return (Kind::BadUrl, out);
                }
                Some(c) if is_non_printable(c) => {
                    self.bad_url_rest();
                    return (Kind::BadUrl, out);
                }
                Some('\\') => {
                    if self.valid_escape_at(0) {
                        self.bump();
                        out.push(self.escape());
                    } else {
                        self.bad_url_rest();
                        return (Kind::BadUrl, out);
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.bump();
                }
            }
        }
    }

    fn bad_url_rest(&mut self) {
        while let Some(c) = self.peek() {
            if c == ')' {
                self.bump();
                return;
            }
            if self.valid_escape_at(0) {
                self.bump();
                self.escape();
            } else {
                self.bump();
            }
        }
    }

    /// An ident, a function, or a `url(…)`.
    fn ident_like(&mut self) -> (Kind, String) {
        let name = self.name();
        if self.peek() != Some('(') {
            return (Kind::Ident, name);
        }
        self.bump();
        if !name.eq_ignore_ascii_case("url") {
            return (Kind::Function, name);
        }
        // `url(` then a quote (after whitespace) is a function taking a string.
        let mut n = 0;
        while self.peek_at(n).is_some_and(is_whitespace) {
            n += 1;
        }
        if matches!(self.peek_at(n), Some('"' | '\'')) {
            return (Kind::Function, name);
        }
        while self.peek().is_some_and(is_whitespace) {
            self.bump();
        }
        self.url()
    }

    fn comment(&mut self) {
        self.bump();
        self.bump();
        while self.peek().is_some() && !self.starts_with("*/") {
            self.bump();
        }
        self.bump();
        self.bump();
    }

    /// The next token's kind, value, unit and number (the position moves past it).
    fn next_kind(&mut self, c: char) -> (Kind, String, String, f64) {
        let plain = |k: Kind| (k, String::new(), String::new(), 0.0);
        let named = |k: Kind, v: String| (k, v, String::new(), 0.0);
        if self.starts_with("/*") {
            self.comment();
            return plain(Kind::Comment);
        }
        if is_whitespace(c) {
            while self.peek().is_some_and(is_whitespace) {
                self.bump();
            }
            return plain(Kind::Whitespace);
        }
        if self.starts_with("<!--") {
            (0..4).for_each(|_| {
                self.bump();
            });
            return plain(Kind::Cdo);
        }
        if self.starts_with("-->") {
            (0..3).for_each(|_| {
                self.bump();
            });
            return plain(Kind::Cdc);
        }
        if self.number_start_at(0) {
            return self.numeric();
        }
        if self.ident_start_at(0) {
            let (k, v) = self.ident_like();
            return named(k, v);
        }
        match c {
            '"' | '\'' => {
                self.bump();
                let (k, v) = self.string(c);
                named(k, v)
            }
            '#' if self.peek_at(1).is_some_and(is_name) || self.valid_escape_at(1) => {
                self.bump();
                named(Kind::Hash, self.name())
            }
            '@' if self.ident_start_at(1) => {
                self.bump();
                named(Kind::AtKeyword, self.name())
            }
            _ => {
                self.bump();
                plain(match c {
                    '(' => Kind::OpenParen,
                    ')' => Kind::CloseParen,
                    '[' => Kind::OpenSquare,
                    ']' => Kind::CloseSquare,
                    '{' => Kind::OpenCurly,
                    '}' => Kind::CloseCurly,
                    ',' => Kind::Comma,
                    ':' => Kind::Colon,
                    ';' => Kind::Semicolon,
                    other => Kind::Delim(other),
                })
            }
        }
    }
}

impl Iterator for Tokenizer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let c = self.peek()?;
        let (start, line) = (self.pos, self.line);
        let (kind, value, unit, number) = self.next_kind(c);
        let text = self.src.get(start..self.pos).unwrap_or("");
        let unclosed = match kind {
            Kind::Comment => text.len() < 4 || !text.ends_with("*/"),
            Kind::Url => !text.ends_with(')'),
            Kind::String => !closed_string(text),
            _ => false,
        };
        if self.pos == start {
            // Cannot happen (every branch consumes a char); a guard against looping forever.
            self.bump();
        }
        let value = match kind {
            Kind::Ident
            | Kind::Function
            | Kind::AtKeyword
            | Kind::Hash
            | Kind::String
            | Kind::BadString
            | Kind::Url
            | Kind::BadUrl
            | Kind::Number
            | Kind::Percentage
            | Kind::Dimension => value,
            _ => self.src.get(start..self.pos).unwrap_or("").to_string(),
        };
        Some(Token {
            kind,
            span: start..self.pos,
            line,
            value,
            unit,
            number,
            unclosed,
        })
    }
}

/// Whether a string token's text ends with its (unescaped) closing quote.
fn closed_string(text: &str) -> bool {
    let Some(quote) = text.chars().next() else {
        return false;
    };
    let inner = text.get(1..).unwrap_or("");
    let Some(body) = inner.strip_suffix(quote) else {
        return false;
    };
    // An odd run of backslashes before the last quote escapes it.
    body.chars().rev().take_while(|c| *c == '\\').count() % 2 == 0
}

fn is_newline(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{c}')
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t') || is_newline(c)
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii() || c == '\0'
}

fn is_name(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-'
}

fn is_non_printable(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{e}'..='\u{1f}' | '\u{7f}')
}

/// What a stylesheet fetches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadKind {
    /// `@import "…"` or `@import url(…)`.
    Import,
    /// A `url()` inside an `@font-face` rule.
    Font,
    /// Any other `url()`.
    Other,
}

/// One URL a stylesheet fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Load {
    pub kind: LoadKind,
    pub url: String,
    /// 0-based line of the `url(` or `@import`.
    pub line: usize,
    /// The `url(…)`, or the whole `@import …;` rule.
    pub span: Range<usize>,
}

/// Every URL `css` fetches, in order (comments and strings outside `url()` and `@import` are
/// not fetches).
pub fn loads(css: &str) -> Vec<Load> {
    let toks = tokenize(css);
    let mut out = Vec::new();
    let mut depth = 0usize;
    // Brace depth inside which the current @font-face block is.
    let mut font_face: Option<usize> = None;
    let mut pending_font_face = false;
    let mut i = 0;
    while let Some(t) = toks.get(i) {
        match t.kind {
            Kind::OpenCurly => {
                depth += 1;
                if std::mem::take(&mut pending_font_face) {
                    font_face = Some(depth);
                }
            }
            Kind::CloseCurly => {
                if font_face == Some(depth) {
                    font_face = None;
                }
                depth = depth.saturating_sub(1);
            }
            Kind::Semicolon => pending_font_face = false,
            Kind::AtKeyword if t.value.eq_ignore_ascii_case("font-face") => {
                pending_font_face = true;
            }
            Kind::AtKeyword if t.value.eq_ignore_ascii_case("import") => {
                let end = toks
                    .iter()
                    .skip(i)
                    .position(|t| matches!(t.kind, Kind::Semicolon | Kind::OpenCurly))
                    .map_or(toks.len(), |p| i + p);
                let stop = toks.get(end).map_or(css.len(), |t| match t.kind {
                    Kind::Semicolon => t.span.end,
                    _ => t.span.start,
                });
                let target = toks
                    .get(i + 1..end)
                    .unwrap_or(&[])
                    .iter()
                    .position(|t| !matches!(t.kind, Kind::Whitespace | Kind::Comment))
                    .map(|p| i + 1 + p);
                if let Some(url) = target.and_then(|k| url_at(&toks, k)) {
                    out.push(Load {
                        kind: LoadKind::Import,
                        url: url.0,
                        line: t.line,
                        span: t.span.start..stop,
                    });
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        if let Some((url, last)) = url_at(&toks, i)
            && t.kind != Kind::String
        {
            let end = toks.get(last).map_or(css.len(), |l| l.span.end);
            out.push(Load {
                kind: if font_face.is_some() {
                    LoadKind::Font
                } else {
                    LoadKind::Other
                },
                url,
                line: t.line,
                span: t.span.start..end,
            });
            i = last + 1;
            continue;
        }
        i += 1;
    }
    out
}

/// The URL of the `url(…)` (or, for `@import`, the string) at token `i`, and the index of its
/// last token.
fn url_at(toks: &[Token], i: usize) -> Option<(String, usize)> {
    let t = toks.get(i)?;
    match t.kind {
        Kind::Url | Kind::BadUrl => Some((t.value.trim().to_string(), i)),
        Kind::String => Some((t.value.clone(), i)),
        Kind::Function if t.value.eq_ignore_ascii_case("url") => {
            let mut j = i + 1;
            let mut url = String::new();
            while let Some(n) = toks.get(j) {
                match n.kind {
                    Kind::CloseParen => return Some((url, j)),
                    Kind::String | Kind::BadString if url.is_empty() => url = n.value.clone(),
                    _ => {}
                }
                j += 1;
            }
            Some((url, toks.len().saturating_sub(1)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(css: &str) -> Vec<Kind> {
        tokenize(css)
            .into_iter()
            .filter(|t| t.kind != Kind::Whitespace)
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn every_kind_of_token() {
        use Kind::*;
        assert_eq!(
            kinds(
                "@media a{#x.b:hover>c[d=\"e\"]{w:1.5em;h:50%;z:-3;f:rgb(1,2,3);u:url( a b);v:url(x)}} <!-- --> /* c */ 'bad\n"
            ),
            vec![
                AtKeyword,
                Ident,
                OpenCurly,
                Hash,
                Delim('.'),
                Ident,
                Colon,
                Ident,
                Delim('>'),
                Ident,
                OpenSquare,
                Ident,
                Delim('='),
                String,
                CloseSquare,
                OpenCurly,
                Ident,
                Colon,
                Dimension,
                Semicolon,
                Ident,
                Colon,
                Percentage,
                Semicolon,
                Ident,
                Colon,
                Number,
                Semicolon,
                Ident,
                Colon,
                Function,
                Number,
                Comma,
                Number,
                Comma,
                Number,
                CloseParen,
                Semicolon,
                Ident,
                Colon,
                BadUrl,
                Semicolon,
                Ident,
                Colon,
                Url,
                CloseCurly,
                CloseCurly,
                Cdo,
                Cdc,
                Comment,
                BadString,
            ]
        );
    }

    #[test]
    fn values_are_decoded() {
        let t = tokenize("u\\72l(https://a.example/\\29) \\66 oo 'a\\'b' 12.5px #f\\30 0 @IMPORT");
        assert_eq!(
            (t[0].kind, t[0].value.as_str()),
            (Kind::Url, "https://a.example/)")
        );
        assert_eq!((t[2].kind, t[2].value.as_str()), (Kind::Ident, "foo"));
        assert_eq!((t[4].kind, t[4].value.as_str()), (Kind::String, "a'b"));
        assert_eq!(
            (t[6].kind, t[6].unit.as_str(), t[6].number),
            (Kind::Dimension, "px", 12.5)
        );
        assert_eq!((t[8].kind, t[8].value.as_str()), (Kind::Hash, "f00"));
        assert!(t[10].is(Kind::AtKeyword, "import"));
    }

    #[test]
    fn cut_short_tokens_are_marked() {
        for (css, unclosed) in [
            ("'a'", false),
            ("'a\\\\'", false),
            ("'a\\'", true),
            ("'a", true),
            ("url(x", true),
            ("url(x)", false),
            ("/* a", true),
            ("/**/", false),
            ("/*/", true),
        ] {
            assert_eq!(tokenize(css)[0].unclosed, unclosed, "{css}");
        }
    }

    #[test]
    fn spans_cover_the_source_and_lines_count() {
        let css = "a {\r\n  color: red;\n}\u{c}/* x\n y */ b{}";
        let toks = tokenize(css);
        let mut at = 0;
        for t in &toks {
            assert_eq!(t.span.start, at);
            at = t.span.end;
        }
        assert_eq!(at, css.len());
        let b = toks.iter().find(|t| t.is(Kind::Ident, "b")).unwrap();
        assert_eq!(b.line, 4);
    }

    #[test]
    fn loads_found() {
        let css = "@import 'https://a.example/x.css';\n@import url(\"b.css\") screen;\n\
                   @font-face { font-family: X; src: url(https://f.example/x.woff2) }\n\
                   body { background: URL( 'https://i.example/bg.png' ) }\n\
                   /* url(https://comment.example/) */ .x { mask: u\\72l(https://e.example/m.svg) }\n\
                   .y { content: 'url(https://string.example/)'; --myurl: x(a) }";
        let got: Vec<(LoadKind, usize, &str)> = loads(css)
            .iter()
            .map(|l| (l.kind, l.line, &css[l.span.clone()]))
            .collect();
        assert_eq!(
            got,
            vec![
                (LoadKind::Import, 0, "@import 'https://a.example/x.css';"),
                (LoadKind::Import, 1, "@import url(\"b.css\") screen;"),
                (LoadKind::Font, 2, "url(https://f.example/x.woff2)"),
                (LoadKind::Other, 3, "URL( 'https://i.example/bg.png' )"),
                (LoadKind::Other, 4, "u\\72l(https://e.example/m.svg)"),
            ]
        );
        let urls: Vec<String> = loads(css).into_iter().map(|l| l.url).collect();
        assert_eq!(urls[1], "b.css");
        assert_eq!(urls[3], "https://i.example/bg.png");
        assert_eq!(urls[4], "https://e.example/m.svg");
    }

    proptest::proptest! {
        #[test]
        fn tokens_tile_the_source(css in "[ -~\\n\\r\\t\u{c}éあ]{0,200}") {
            let toks = tokenize(&css);
            let mut at = 0;
            for t in &toks {
                proptest::prop_assert_eq!(t.span.start, at);
                proptest::prop_assert!(t.span.end > t.span.start);
                proptest::prop_assert!(css.is_char_boundary(t.span.end));
                at = t.span.end;
            }
            proptest::prop_assert_eq!(at, css.len());
            for l in loads(&css) {
                proptest::prop_assert!(css.get(l.span.clone()).is_some());
            }
        }

        #[test]
        fn tokens_and_loads_never_panic(css in "(url\\(|@import|@font-face|[\"'(){};:\\\\/*]|<!--|-->|[a-z0-9#.%@ -]{0,6}|\\\\[0-9a-f]{1,7} ?){0,60}") {
            let toks = tokenize(&css);
            proptest::prop_assert_eq!(toks.last().map_or(0, |t| t.span.end), css.len());
            let _ = loads(&css);
        }
    }
}
