//! `serve --watch`: polls the lock and the UI files and swaps in a new catalog when they change.
//!
//! Polling (every `INTERVAL`) instead of OS file events keeps it dependency-free and behaves the
//! same on every platform and file system; the file set is small.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::watch;

use super::ui_resources::{Catalog, Strictness};
use crate::config::Config;

const INTERVAL: Duration = Duration::from_millis(300);

/// Size and modification time of each file (`None` when missing): cheap change detection.
fn stamp(files: &[PathBuf]) -> Vec<Option<(u64, SystemTime)>> {
    files
        .iter()
        .map(|p| {
            std::fs::metadata(p)
                .ok()
                .map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)))
        })
        .collect()
}

/// Watches until the receivers are all gone. Reloads are lenient (a file that no longer matches
/// the lock is served with a warning): `--watch` is for hand-editing and regenerating live.
pub async fn run(cfg: Config, tx: watch::Sender<Arc<Catalog>>) {
    let mut files = tx.borrow().watched_files(&cfg.out_dir);
    let mut last = stamp(&files);
    let mut tick = tokio::time::interval(INTERVAL);
    loop {
        tick.tick().await;
        if tx.is_closed() {
            return;
        }
        let now = stamp(&files);
        if now == last {
            continue;
        }
        last = now;
        match Catalog::load(&cfg, Strictness::AllowStale) {
            Ok(cat) => {
                for w in &cat.warnings {
                    tracing::warn!(target: "serve", "{w}");
                }
                files = cat.watched_files(&cfg.out_dir);
                last = stamp(&files);
                if **tx.borrow() != cat {
                    tracing::info!(target: "serve", tools = cat.tools.len(), "UI files changed: reloaded");
                    let _ = tx.send(Arc::new(cat));
                }
            }
            Err(e) => {
                tracing::warn!(target: "serve", "UI files changed but cannot be reloaded: {e}")
            }
        }
    }
}
