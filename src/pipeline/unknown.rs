//! The one error for a tool name that is not there, wherever a tool is named on the command line.

use crate::report;

/// How many available tools the error names before it only counts the rest.
const LISTED: usize = 20;

/// A tool named on the command line that neither the upstream nor the lock knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool {
    pub name: String,
    /// Whether the upstream was asked too (else only the lock was).
    pub online: bool,
    /// Every tool that is known, in the order they were listed.
    pub available: Vec<String>,
}

impl UnknownTool {
    /// `Err(UnknownTool)` unless `name` is among `available`.
    pub fn check<'a>(
        name: &str,
        online: bool,
        available: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Result<(), UnknownTool> {
        if available.clone().into_iter().any(|a| a == name) {
            return Ok(());
        }
        let mut names: Vec<String> = Vec::new();
        for a in available {
            if !names.iter().any(|n| n == a) {
                names.push(a.to_string());
            }
        }
        Err(UnknownTool {
            name: name.to_string(),
            online,
            available: names,
        })
    }

    /// The available name closest to the one given, when it is close enough to be a typo.
    fn nearest(&self) -> Option<&str> {
        let limit = (self.name.chars().count() / 3).max(2);
        self.available
            .iter()
            .map(|a| (edit_distance(&self.name, a), a))
            .filter(|(d, _)| *d <= limit)
            .min_by_key(|(d, _)| *d)
            .map(|(_, a)| a.as_str())
    }
}

impl std::fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no tool named `{}` {}",
            report::display_name(&self.name),
            if self.online {
                "upstream or in the lock"
            } else {
                "in the lock"
            }
        )?;
        if let Some(n) = self.nearest() {
            write!(f, " (did you mean `{}`?)", report::display_name(n))?;
        }
        if self.available.is_empty() {
            write!(f, "; available: none (run `mcp-gen-ui generate`)")
        } else {
            // A server may list thousands of tools: name the first few, count the rest.
            let names: Vec<String> = self
                .available
                .iter()
                .take(LISTED)
                .map(|n| report::display_name(n))
                .collect();
            write!(f, "; available: {}", names.join(", "))?;
            match self.available.len().saturating_sub(LISTED) {
                0 => Ok(()),
                more => write!(f, " and {more} more (`mcp-gen-ui list` shows them all)"),
            }
        }
    }
}

impl std::error::Error for UnknownTool {}

/// Levenshtein distance over characters (names are short: the quadratic cost is nothing).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_wording_with_the_available_tools_and_a_near_match() {
        let e = UnknownTool::check("get_forcast", true, ["get_forecast", "search"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no tool named `get_forcast` upstream or in the lock (did you mean `get_forecast`?); \
             available: get_forecast, search"
        );
        let e = UnknownTool::check("zzz", false, []).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no tool named `zzz` in the lock; available: none (run `mcp-gen-ui generate`)"
        );
        assert!(UnknownTool::check("search", true, ["get_forecast", "search"]).is_ok());
        let e = UnknownTool::check("x", true, ["a", "a"]).unwrap_err();
        assert_eq!(e.available, vec!["a"]);
        let many: Vec<String> = (0..1000).map(|i| format!("tool_{i}")).collect();
        let e = UnknownTool::check("nope", true, many.iter().map(String::as_str)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("tool_19 and 980 more (`mcp-gen-ui list` shows them all)"),
            "{text}"
        );
        assert!(!text.contains("tool_20,"), "{text}");
        // The nearest name is offered even when it is not among the first listed.
        let e = UnknownTool::check("tool_999x", true, many.iter().map(String::as_str)).unwrap_err();
        assert!(e.to_string().contains("did you mean `tool_999`?"), "{e}");
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("ab", "ab"), 0);
    }
}
