//! The shared `main` of the example servers: stdio by default, or streamable HTTP at `/mcp`
//! with `--http ADDR` (the bound address is printed on stderr, so port 0 works in tests).

use std::process::ExitCode;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt};

/// Transport options shared by every example server.
pub struct ServeArgs {
    pub http: Option<String>,
    pub json_response: bool,
}

/// Takes `--http ADDR` and `--json-response` out of `args`, leaving the server's own.
pub fn take_serve_args(args: &mut Vec<String>) -> Result<ServeArgs, String> {
    let mut out = ServeArgs {
        http: None,
        json_response: false,
    };
    let mut rest = Vec::new();
    let mut it = std::mem::take(args).into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--http" => {
                out.http = Some(
                    it.next()
                        .ok_or("--http needs an address, e.g. 127.0.0.1:3001")?,
                )
            }
            "--json-response" => out.json_response = true,
            _ => rest.push(a),
        }
    }
    *args = rest;
    Ok(out)
}

pub fn run<S, F>(name: &str, args: ServeArgs, make: F) -> ExitCode
where
    S: ServerHandler,
    F: Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
{
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{name}: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let res = rt.block_on(async move {
        match args.http {
            None => {
                let server = make()?;
                let running = match server.serve(rmcp::transport::stdio()).await {
                    Ok(r) => r,
                    // The client left before initializing: nothing went wrong on our side.
                    Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
                    Err(e) => return Err(std::io::Error::other(e.to_string())),
                };
                // Returns when stdin closes: a stdio server must not outlive its client.
                running
                    .waiting()
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                Ok::<(), std::io::Error>(())
            }
            Some(addr) => {
                let mut config = StreamableHttpServerConfig::default();
                if args.json_response {
                    config = config
                        .with_legacy_session_mode(false)
                        .with_json_response(true);
                }
                let service: StreamableHttpService<S, LocalSessionManager> =
                    StreamableHttpService::new(make, Default::default(), config);
                let router = axum::Router::new().nest_service("/mcp", service);
                let listener = tokio::net::TcpListener::bind(&addr).await?;
                let bound = listener.local_addr()?;
                eprintln!("{name} listening on http://{bound}/mcp");
                axum::serve(listener, router).await
            }
        }
    });
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}
