//! A page's URI as hosts see it: the `ui://` name of its file plus `?v=` and the first digits of
//! the page's hash, so a host that caches pages by URI loads a changed page (book:
//! reference/names.md, "Page URIs"); and the reverse, which page and version a host asked for.

use super::naming::uri_for_path;

/// How many hex digits of the page's sha256 its URI carries.
pub const VERSION_DIGITS: usize = 8;

/// The version a page's URI carries: the first [`VERSION_DIGITS`] hex digits of its sha256.
pub fn uri_version(sha256: &str) -> &str {
    sha256.get(..VERSION_DIGITS).unwrap_or(sha256)
}

/// `base` (a page's `ui://` name) as hosts see it: with `?v=<version>`, or alone when the
/// project sets `stable_uris`.
pub fn versioned_uri(base: &str, sha256: &str, stable: bool) -> String {
    if stable {
        base.to_string()
    } else {
        format!("{base}?v={}", uri_version(sha256))
    }
}

/// The URI of the file `path` of the lock, whose bytes hash to `sha256`.
pub fn page_uri(server: &str, path: &str, sha256: &str, stable: bool) -> String {
    versioned_uri(&uri_for_path(server, path), sha256, stable)
}

/// Splits a URI a host asked for into the page's `ui://` name and the version it names (`None`
/// for the name alone). `None` when there is a query other than one `v=` of
/// [`VERSION_DIGITS`] lowercase hex digits, or a fragment: not a URI we hand out.
pub fn split_page_uri(uri: &str) -> Option<(&str, Option<&str>)> {
    if uri.contains('#') {
        return None;
    }
    let Some((base, query)) = uri.split_once('?') else {
        return Some((uri, None));
    };
    let v = query.strip_prefix("v=")?;
    let ok = v.len() == VERSION_DIGITS
        && v.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some((base, Some(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "c19c8fd8df79d9aab38bc3eb168cf5dcaef6f5675ce240d94d3b5651db769cc5";

    #[test]
    fn a_page_uri_is_its_name_plus_eight_digits_of_its_hash() {
        assert_eq!(
            page_uri("weather", "get_forecast.html", SHA, false),
            "ui://weather/get_forecast?v=c19c8fd8"
        );
        assert_eq!(
            page_uri("weather", "get_forecast/chart.html", SHA, false),
            "ui://weather/get_forecast/chart?v=c19c8fd8"
        );
        // Stable URIs: section 12's form alone.
        assert_eq!(
            page_uri("weather", "get_forecast.html", SHA, true),
            "ui://weather/get_forecast"
        );
        assert_eq!(uri_version(SHA), "c19c8fd8");
        // A hash too short to cut (a hand-written lock) is used whole, never a panic.
        assert_eq!(versioned_uri("ui://s/t", "ab", false), "ui://s/t?v=ab");
    }

    #[test]
    fn splitting_accepts_the_name_alone_or_one_version_and_nothing_else() {
        assert_eq!(
            split_page_uri("ui://s/t?v=c19c8fd8"),
            Some(("ui://s/t", Some("c19c8fd8")))
        );
        assert_eq!(split_page_uri("ui://s/t"), Some(("ui://s/t", None)));
        for bad in [
            "ui://s/t?",
            "ui://s/t?v=",
            "ui://s/t?v=c19c8fd",
            "ui://s/t?v=c19c8fd8a",
            "ui://s/t?v=C19C8FD8",
            "ui://s/t?v=c19c8fdz",
            "ui://s/t?v=c19c8fd8&x=1",
            "ui://s/t?x=1",
            "ui://s/t?v=c19c8fd8#frag",
            "ui://s/t#frag",
            "ui://s/t?v=c19c8fd8?v=c19c8fd8",
        ] {
            assert_eq!(split_page_uri(bad), None, "{bad}");
        }
        // What we hand out splits back into its parts.
        let uri = page_uri("s", "t/w.html", SHA, false);
        assert_eq!(split_page_uri(&uri), Some(("ui://s/t/w", Some("c19c8fd8"))));
    }
}
