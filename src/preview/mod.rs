//! `preview`: a local browser host for trying generated UIs against the live upstream.
//!
//! One process holds one upstream session and an HTTP server on 127.0.0.1. The browser page it
//! serves is a small MCP Apps host (our own, embedded in the binary): it loads a tool's UI in a
//! sandboxed iframe under the MCP Apps CSP, speaks the host side of the protocol over
//! `postMessage`, and relays the UI's `tools/call` to this server, which forwards it upstream.
//!
//! ```text
//! UI (iframe, opaque origin) ⇄ postMessage ⇄ host page ⇄ POST /rpc ⇄ preview server ⇄ upstream
//! ```

mod assets;
pub mod csp;
pub mod guard;
mod server;
pub mod upstream;

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use crate::config::Config;
use crate::report::Printer;

pub use upstream::{Upstream, UpstreamError};

/// How long requests in flight may finish after Ctrl-C before the server stops anyway.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Why a preview could not start.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    #[error("cannot listen on 127.0.0.1:{port} (pick another --port, or 0 for any free port)")]
    Bind { port: u16, source: std::io::Error },
    #[error("cannot draw a random token from the operating system: {0}")]
    Random(String),
    #[error("the preview server failed: {0}")]
    Serve(std::io::Error),
}

/// What to preview.
#[derive(Debug, Clone, Default)]
pub struct PreviewOptions {
    /// 0 picks any free port.
    pub port: u16,
    /// The tool shown first (the page's default is the first tool in the lock).
    pub initial_tool: Option<String>,
}

/// A started preview: the upstream is live and the server is bound, not yet serving.
pub struct Preview {
    listener: tokio::net::TcpListener,
    shared: Arc<server::Shared>,
    addr: SocketAddr,
}

impl Preview {
    /// Starts the upstream (within the config's connect timeout) and binds 127.0.0.1:`port`.
    pub async fn start(
        cfg: &Config,
        opts: &PreviewOptions,
        printer: Printer,
    ) -> Result<Preview, PreviewError> {
        let spec = cfg.upstream().map_err(|e| {
            PreviewError::Upstream(UpstreamError::Start {
                upstream: "(none)".into(),
                reason: e.to_string(),
            })
        })?;
        let token = guard::new_token().map_err(|e| PreviewError::Random(e.to_string()))?;
        // Bind first: a taken port should fail before a server process is started.
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, opts.port))
            .await
            .map_err(|source| PreviewError::Bind {
                port: opts.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| PreviewError::Bind {
            port: opts.port,
            source,
        })?;
        let upstream = Upstream::start(spec, cfg.connect_timeout, cfg.protocol).await?;
        let shared = Arc::new(server::Shared {
            guard: guard::Guard::new(token, addr.port()),
            cfg: cfg.clone(),
            upstream: Arc::new(upstream),
            initial_tool: opts.initial_tool.clone(),
            printer,
        });
        Ok(Preview {
            listener,
            shared,
            addr,
        })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL, token included: whoever has it can call the upstream's tools.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.addr.port(),
            self.shared.guard.token()
        )
    }

    /// The tools the upstream listed at start.
    pub fn upstream_tools(&self) -> &[crate::model::Tool] {
        &self.shared.upstream.tools
    }

    /// Serves until `shutdown` resolves, then shuts the upstream down cleanly. When the upstream
    /// ends on its own the server keeps running (its calls fail with the reason) and a warning
    /// says so.
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), PreviewError> {
        let Preview {
            listener, shared, ..
        } = self;
        let watcher = {
            let upstream = shared.upstream.clone();
            let printer = shared.printer.clone();
            tokio::spawn(async move {
                if let Some(reason) = upstream.closed().await {
                    printer.warn(format!(
                        "upstream {} {reason}; tool calls now fail. Restart `mcp-gen-ui preview`.",
                        upstream.describe
                    ));
                }
            })
        };
        let app = server::router(shared.clone());
        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        let signal = async move {
            shutdown.await;
            let _ = stopping_tx.send(());
        };
        // Small JSON answers must not wait for the browser's delayed ACK (Nagle).
        use axum::serve::ListenerExt as _;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let server = std::future::IntoFuture::into_future(
            axum::serve(listener, app).with_graceful_shutdown(signal),
        );
        // A call stuck in a hung upstream must not keep Ctrl-C from working.
        let forced = async {
            if stopping_rx.await.is_ok() {
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        let served = tokio::select! {
            r = server => r,
            () = forced => Ok(()),
        };
        watcher.abort();
        let _ = watcher.await;
        let upstream = shared.upstream.clone();
        drop(shared);
        // The router (and its clones of the state) are gone once `serve` returned.
        match Arc::try_unwrap(upstream) {
            Ok(u) => u.shutdown().await,
            // Dropping the last handle shuts the upstream down as well.
            Err(still_shared) => drop(still_shared),
        }
        served.map_err(PreviewError::Serve)
    }
}

/// A future that resolves on Ctrl-C or SIGTERM. The handlers are installed when this is called,
/// not when the future is first polled, so call it before announcing the URL: a signal sent
/// right after must stop the preview cleanly instead of killing it (and orphaning the upstream).
/// Must be called inside a tokio runtime.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let int = signal(SignalKind::interrupt()).ok();
        let term = signal(SignalKind::terminate()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(int) => {}
                () = wait(term) => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}
