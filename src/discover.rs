//! TEMPORARY placeholder until the transport branch is merged.
use std::time::Duration;

use crate::mcp::UpstreamSpec;
use crate::model::Tool;

pub struct Discovery {
    pub server_name: String,
    pub initialize_result: serde_json::Value,
    pub tools: Vec<Tool>,
}

#[derive(Debug, thiserror::Error)]
#[error("discover not merged yet")]
pub struct DiscoverError;

pub async fn discover(
    _spec: &UpstreamSpec,
    _timeout: Duration,
) -> Result<Discovery, DiscoverError> {
    Err(DiscoverError)
}
