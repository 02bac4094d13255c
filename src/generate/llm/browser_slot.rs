//! The run's browser for judging llm pages: where it is (the lookup `--visual` uses, or none),
//! and the judge, started when the first page needs it and shared by every page of the run.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::validate::browser::Judge;

/// The variable that names the browser (as for `--visual`); `off` turns the judge off.
const VAR: &str = "MCP_GEN_UI_BROWSER";

/// The run's browser: where it is, and the judge once started (or why it could not start).
#[derive(Default)]
pub struct BrowserSlot {
    exe: Option<PathBuf>,
    judge: Mutex<Option<Result<Arc<Judge>, String>>>,
}

impl BrowserSlot {
    /// The browser `--visual` would use (`MCP_GEN_UI_BROWSER`, else the names on the PATH);
    /// none when `MCP_GEN_UI_BROWSER=off` or nothing is found.
    pub fn from_env() -> BrowserSlot {
        let off = std::env::var(VAR).is_ok_and(|v| v.eq_ignore_ascii_case("off"));
        let exe = if off {
            None
        } else {
            crate::review::visual::find_browser(None).ok()
        };
        BrowserSlot {
            exe,
            ..BrowserSlot::default()
        }
    }

    pub fn at(exe: Option<PathBuf>) -> BrowserSlot {
        BrowserSlot {
            exe,
            ..BrowserSlot::default()
        }
    }

    pub fn exe(&self) -> Option<&PathBuf> {
        self.exe.as_ref()
    }

    /// The judge, started on first use (blocking).
    pub(super) fn judge(&self) -> Option<Result<Arc<Judge>, String>> {
        let exe = self.exe.as_ref()?;
        let mut slot = self
            .judge
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(Judge::start(exe).map(Arc::new));
        }
        slot.clone()
    }

    /// Whether a browser was ever started (the builtin path never starts one).
    pub fn started(&self) -> bool {
        self.judge
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|j| j.is_ok())
    }
}
