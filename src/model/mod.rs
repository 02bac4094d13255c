//! The tool model: a tool as the upstream sent it, its hash, and the names derived from it.

mod canonical;
mod naming;
mod tool;

pub use canonical::{canonical_json, sha256_hex};
pub use naming::{file_stem, header_comment, server_slug, ui_uri, valid_widget_name, widget_path};
pub use tool::{HASHED_FIELDS, Tool, ToolError, tools_from_raw};
