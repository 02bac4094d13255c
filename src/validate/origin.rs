//! What a stylesheet loads: the URLs of its `@import`s and `url()`s (the origin rules live in
//! `crate::origins`), read from the tokens of `crate::css`.

use crate::css::LoadKind;

/// Where a stylesheet fetches from: `@import` targets and `url()`s, the latter split by whether
/// they sit inside an `@font-face` rule.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CssRefs {
    pub imports: Vec<(usize, String)>,
    pub fonts: Vec<(usize, String)>,
    pub other: Vec<(usize, String)>,
}

/// What `css` loads, by kind; line numbers are 0-based offsets inside `css`. The tokenizer
/// decodes escapes, since `u\72l(` is `url(` to a browser.
pub fn css_refs(css: &str) -> CssRefs {
    let mut refs = CssRefs::default();
    for load in crate::css::loads(css) {
        let list = match load.kind {
            LoadKind::Import => &mut refs.imports,
            LoadKind::Font => &mut refs.fonts,
            LoadKind::Other => &mut refs.other,
        };
        list.push((load.line, load.url));
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_refs_found() {
        let css = "@import 'https://a.example/x.css';\n@import url(\"b.css\");\n\
                   @font-face { font-family: X; src: url(https://f.example/x.woff2) }\n\
                   body { background: URL( 'https://i.example/bg.png' ) }\n\
                   /* url(https://comment.example/) */ .x { mask: u\\72l(https://e.example/m.svg) }";
        let refs = css_refs(css);
        assert_eq!(
            refs.imports,
            vec![
                (0, "https://a.example/x.css".to_string()),
                (1, "b.css".to_string())
            ]
        );
        assert_eq!(
            refs.fonts,
            vec![(2, "https://f.example/x.woff2".to_string())]
        );
        assert_eq!(
            refs.other,
            vec![
                (3, "https://i.example/bg.png".to_string()),
                (4, "https://e.example/m.svg".to_string())
            ]
        );
    }

    #[test]
    fn text_that_only_looks_like_a_url_is_not_a_load() {
        // The old hand-written scanner read these as fetches; a browser does not.
        let refs = css_refs(
            ".a::after { content: 'url(https://s.example/x)' } .b { --u: \"@import 'https://t.example/y.css'\" }",
        );
        assert_eq!(refs, CssRefs::default());
    }

    #[test]
    fn css_ident_ending_in_url_is_not_url() {
        assert!(css_refs(".x { --myurl(a) }").other.is_empty());
    }
}
