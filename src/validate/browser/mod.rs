//! The browser judge (book: reference/llm.md, "Pages run before they are kept"): each candidate
//! llm page is loaded in a local Chromium or Chrome inside the review host, with a tool-input and
//! a result, and judged on what really happens there.
//!
//! Files: `launch` starts the browser (fresh profile, DevTools on a pipe), `cdp` speaks the
//! protocol, `host` serves the host page and the page under judgment, `session` is one page's
//! tab (requests outside the local host blocked, console heard), `run` does the checks,
//! `probe.js` is what runs inside the page's frame, `args` checks a call against the schema,
//! `fix` repairs what can be repaired without a model, `types` holds what they share.

mod args;
mod cdp;
mod fix;
mod host;
mod launch;
mod run;
mod session;
mod types;

pub use args::errors as argument_errors;
pub use fix::repair_contrast;
pub use run::{Judge, shown_values};
pub use types::{BrowserFinding, ContrastFix, PageToJudge, Theme};
