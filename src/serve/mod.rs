//! The static wrapper: a transparent MCP proxy that adds the generated UIs to an upstream server.
//!
//! `router` rewrites the few messages the wrapper changes (per request: `capabilities` says what
//! the host behind each request supports, in either protocol era), `ui_resources` holds the verified UI
//! files in memory, `session` ties one host session to one upstream connection (restarting it
//! when it dies), `host_stdio` / `host_http` are the two ways a host can reach us, and `watch`
//! reloads the files for `--watch`. `hosts` holds the options for other kinds of host, carried
//! out by `embed` (MCP-UI hosts) and `openai` (Apps SDK hosts).

pub mod capabilities;
pub mod embed;
pub mod host_http;
pub mod host_stdio;
pub mod hosts;
pub mod openai;
pub mod router;
pub mod session;
pub mod ui_resources;
pub mod watch;

/// Resolves on Ctrl-C or SIGTERM, so that upstream children (in their own process groups, out of
/// reach of signals sent to ours) are shut down rather than orphaned.
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
