//! The host page, embedded in the binary (no npm at run time): HTML, CSS and JavaScript under
//! `src/preview/assets/`, plus the per-load boot data the page reads.

use serde_json::Value;

pub const HOST_HTML: &str = include_str!("assets/host.html");
pub const HOST_JS: &str = include_str!("assets/host.js");
pub const HOST_CSS: &str = include_str!("assets/host.css");

/// Where the boot data goes in `host.html`.
const BOOT_MARK: &str = "{{BOOT}}";
/// Where the token goes in `host.html` (the URLs of the page's script and style sheet).
const TOKEN_MARK: &str = "{{TOKEN}}";

/// The host page with `boot` as a JSON data block. Tool names, descriptions and schemas come
/// from the upstream, so `<` is escaped: nothing in them can close the script element.
pub fn host_html(boot: &Value, token: &str) -> String {
    let json = boot
        .to_string()
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    // The token is hex from `guard::new_token`; it needs no escaping in an attribute.
    HOST_HTML
        .replace(TOKEN_MARK, token)
        .replacen(BOOT_MARK, &json, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_data_cannot_break_out_of_its_script_element() {
        let boot = serde_json::json!({"tools": [{"name": "</script><script>alert(1)</script>"}]});
        let html = host_html(&boot, "abc");
        assert_eq!(
            html.matches("</script>").count(),
            HOST_HTML.matches("</script>").count()
        );
        let start = html.find("{\"tools\"").unwrap();
        let end = html[start..].find("</script>").unwrap() + start;
        let back: Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(back, boot);
    }

    #[test]
    fn the_page_loads_its_script_and_has_the_mark() {
        assert!(HOST_HTML.contains(BOOT_MARK));
        assert!(HOST_HTML.contains("host.js?token={{TOKEN}}"));
        assert!(HOST_JS.contains("ui/initialize"));
    }
}
