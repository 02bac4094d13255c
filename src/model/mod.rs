//! The model: a tool as the upstream sent it, its hash, the names derived from it, the view hints
//! vocabulary, and the names of the files mcp-gen-ui manages in the output directory.

mod canonical;
pub mod confirm;
mod hints;
mod layout;
mod naming;
mod page_uri;
pub mod text;
mod tool;

pub use canonical::{canonical_json, sha256_hex};
pub use hints::{Density, Hints, ThemeHint, ViewKind};
pub use layout::{
    LOCK_FILE, PENDING_LOCK_FILE, RUN_LOCK_FILE, TEMP_SUFFIX, TOOLS_FILE, is_managed_name,
};
pub use naming::{
    assign_stems, file_stem, hashed_stem, header_comment, server_slug, stem_of_path, ui_uri,
    uri_for_path, valid_widget_name, widget_path,
};
pub use page_uri::{VERSION_DIGITS, page_uri, split_page_uri, uri_version, versioned_uri};
pub use tool::{HASHED_FIELDS, Tool, ToolError, tools_from_raw};
