//! The static wrapper: a transparent MCP proxy that adds the generated UIs to an upstream server.
//!
//! [`run`] is the one way in: it loads the UI files (checked against the lock), starts the host
//! transport and stops it again. Inside, `router` rewrites the few messages the wrapper changes
//! (per request: `capabilities` says what the host behind each request supports, in either
//! protocol era), `ui_resources` holds the verified UI files in memory, `session` ties one host
//! session to one upstream connection (restarting it when it dies), `host_stdio` /
//! `host_http` are the two ways a host can reach us (`messages` parses what either receives),
//! and `watch` reloads the files for `--watch`. `hosts` holds the options for other kinds of
//! host, carried out by `embed` (MCP-UI hosts) and `openai` (Apps SDK hosts).

pub mod capabilities;
pub mod embed;
pub mod host_http;
pub mod host_stdio;
pub mod hosts;
pub mod messages;
pub mod openai;
pub mod router;
pub mod rpc_error;
pub mod session;
pub mod shutdown;
pub mod ui_resources;
pub mod watch;

use std::sync::Arc;

use crate::config::Config;
use crate::mcp::ConnectOptions;

pub use host_http::{HttpOptions, TOKEN_ENV};
pub use ui_resources::Strictness;

use hosts::HostOptions;
use router::RouterOptions;
use session::Shared;
use ui_resources::Catalog;

/// Everything `serve` needs, resolved from the command line and the config.
pub struct Options {
    pub cfg: Config,
    /// `--allow-stale`: serve UI files that no longer match the lock, with a warning.
    pub strictness: Strictness,
    /// `--watch`: reload the UI files when they change.
    pub watch: bool,
    /// `--embed-ui` (MCP-UI hosts).
    pub embed_ui: bool,
    /// `--apps-sdk` (OpenAI Apps SDK hosts).
    pub apps_sdk: bool,
    /// `--http`: serve streamable HTTP with these options; `None` serves one host on stdio.
    pub http: Option<HttpOptions>,
}

/// Runs the wrapper until the host goes (stdio) or a signal stops it (both). Start-up problems
/// (lock, files, upstream) are errors; once serving, upstream failures are handled by restarting
/// it.
pub async fn run(opts: Options) -> anyhow::Result<()> {
    note_protocol(&opts.cfg);
    let catalog = load_catalog(&opts.cfg, opts.strictness)?;
    let (catalog_tx, catalog_rx) = tokio::sync::watch::channel(Arc::new(catalog));
    let shared = Arc::new(shared_state(&opts, catalog_rx)?);
    let watcher = opts
        .watch
        .then(|| tokio::spawn(watch::run(opts.cfg.clone(), catalog_tx.clone())));
    let result = start_host(shared, opts.http).await;
    // Stopped (the transports drain what is in flight themselves): the watcher goes too.
    if let Some(w) = watcher {
        w.abort();
    }
    drop(catalog_tx);
    result
}

/// The `protocol` setting is for our own client (generate, diff, check, preview): serve never
/// translates eras, each host request reaches the upstream in the host's own era.
fn note_protocol(cfg: &Config) {
    if cfg.protocol != crate::mcp::negotiate::Protocol::Auto {
        tracing::info!(
            target: "serve",
            "protocol = \"{}\" applies to mcp-gen-ui's own client only; serve passes each host's era through unchanged",
            cfg.protocol
        );
    }
}

/// Reads the UI files the lock records, each checked against its sha256 (`strictness` says
/// whether a mismatch stops the start or is a warning), and logs what will be served.
fn load_catalog(cfg: &Config, strictness: Strictness) -> anyhow::Result<Catalog> {
    let spec = cfg.upstream()?;
    let catalog = Catalog::load(cfg, strictness)?;
    for w in &catalog.warnings {
        tracing::warn!(target: "serve", "{w}");
    }
    tracing::info!(target: "serve", upstream = %spec.describe(), uis = catalog.tools.len(), "starting");
    Ok(catalog)
}

/// What every session shares; `catalog` follows the UI files (`--watch`).
fn shared_state(
    opts: &Options,
    catalog: tokio::sync::watch::Receiver<Arc<Catalog>>,
) -> anyhow::Result<Shared> {
    let cfg = &opts.cfg;
    let spec = cfg.upstream()?.clone();
    Ok(Shared {
        router: RouterOptions {
            stale: cfg.file.serve.stale,
            watch: opts.watch,
            // Named in errors the host gets, which no log writer redacts: a key on the
            // command line stays out (book: reference/security.md).
            upstream: crate::secrets::redact(&spec.describe()).into_owned(),
            hosts: HostOptions::from_config(cfg, opts.embed_ui, opts.apps_sdk),
            wait_limit: cfg.connect_timeout,
        },
        connect: ConnectOptions {
            forward_stderr: true,
            stderr_prefix: "[upstream] ".into(),
            max_message_bytes: host_stdio::MAX_MESSAGE_BYTES,
            // A stdio host gets plain tools/call answers as the upstream's bytes (mcp::peek).
            raw_responses: opts.http.is_none(),
            ..ConnectOptions::default()
        },
        spec,
        catalog,
        init_timeout: cfg.connect_timeout,
        upstream_failed: tokio::sync::Notify::new(),
    })
}

/// Serves the host over the transport the options chose, until it stops.
async fn start_host(shared: Arc<Shared>, http: Option<HttpOptions>) -> anyhow::Result<()> {
    match http {
        Some(opts) => host_http::run(shared, opts).await,
        None => host_stdio::run(shared).await,
    }
}
