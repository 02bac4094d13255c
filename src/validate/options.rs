//! What every rule file may need from the validate stage itself: the per-file options and two
//! constants. A leaf, so `document` and `repair` never import the module root that calls them.

/// Per-file context for the rules.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Origins declared in the tool's CSP config (`[tools.NAME] csp`): connect/resource/frame
    /// domains, e.g. "https://cdn.example.com".
    pub allowed_origins: Vec<String>,
    /// The file was written by an LLM: prompt-injection signs become errors (else warnings).
    pub llm_output: bool,
}

/// Marks what the llm generator injects (its runtime and the runtime's styles).
pub(crate) const RUNTIME_ATTR: &str = "data-mcp-gen-ui-runtime";

/// The parser and tree walks recurse; a big private stack keeps deep (hostile) nesting from
/// overflowing the caller's.
pub(crate) const STACK_BYTES: usize = 256 * 1024 * 1024;
