//! `preview`: try the generated UIs in a local browser host against the live upstream.

use std::io::IsTerminal;

use anyhow::Context as _;
use clap::Args;

use crate::context::{Context, Outcome};
use crate::lock::Lock;
use crate::preview::{Preview, PreviewOptions, shutdown_signal};

#[derive(Debug, Args)]
pub struct PreviewArgs {
    /// The tool to show first [default: the first tool in the lock]
    #[arg(value_name = "TOOL")]
    pub tool: Option<String>,
    /// Port on 127.0.0.1 (0 = any free port)
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Do not try to open a browser
    #[arg(long)]
    pub no_open: bool,
}

/// Runs `preview` until Ctrl-C (or SIGTERM), then shuts the upstream down.
pub fn run(ctx: &Context, args: &PreviewArgs) -> anyhow::Result<Outcome> {
    ctx.require_server_value()?;
    let cfg = ctx.config()?;
    let lock = Lock::read(&cfg.out_dir)?;
    let names: Vec<&String> = lock.iter().flat_map(|l| l.tools.keys()).collect();
    if names.is_empty() {
        anyhow::bail!(
            "no generated UIs in {}: run `mcp-gen-ui generate` first",
            cfg.out_dir.display()
        );
    }
    if let Some(tool) = &args.tool
        && !names.contains(&tool)
    {
        let list: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        anyhow::bail!(
            "tool {tool:?} has no generated UI in {}: run `mcp-gen-ui generate {tool}`, or pick one of {}",
            cfg.out_dir.display(),
            list.join(", ")
        );
    }
    let opts = PreviewOptions {
        port: args.port,
        initial_tool: args.tool.clone(),
    };
    let rt = ctx.runtime()?;
    let printer = ctx.printer.clone();
    let result = rt.block_on(async {
        let pb = super::spinner(
            &printer,
            format!(
                "Starting upstream {}",
                cfg.upstream().map(|u| u.describe()).unwrap_or_default()
            ),
        );
        // Installed before anything starts: Ctrl-C during a slow start must still stop the
        // upstream's process group rather than kill us and leave it running.
        let mut stop = Box::pin(shutdown_signal());
        let started = tokio::select! {
            p = Preview::start(&cfg, &opts, printer.clone()) => Some(p),
            () = &mut stop => None,
        };
        pb.finish_and_clear();
        let Some(preview) = started else {
            printer.status("Interrupted while starting; upstream shut down.");
            return anyhow::Ok(());
        };
        let preview = preview.context("cannot start the preview")?;
        for name in &names {
            if !preview.upstream_tools().iter().any(|t| &t.name == *name) {
                printer.warn(format!(
                    "tool {name:?} is in the lock but not upstream any more; its calls will fail"
                ));
            }
        }
        let url = preview.url();
        printer.out_capability(format!("Preview: {url}"))?;
        printer.status("Serving on 127.0.0.1 only. Press Ctrl-C to stop.");
        if !args.no_open && std::io::stdout().is_terminal() && std::env::var_os("CI").is_none() {
            open_browser(&url);
        }
        preview.serve(stop).await?;
        printer.status("Preview stopped; upstream shut down.");
        anyhow::Ok(())
    });
    result.map(|()| Outcome::Success)
}

/// Opens `url` in the desktop's browser when an opener exists; silently does nothing otherwise
/// (the URL is printed either way).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = spawned {
        // Reap it in the background so it never lingers as a zombie.
        std::thread::spawn(move || {
            let _ = child.wait();
        });
    }
}
