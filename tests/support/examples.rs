//! The example servers (package `mcp-gen-ui-examples`, sources in `examples/`), built once per
//! test binary with the same command as `tests/run-all.sh`, so a lone `cargo test --test X`
//! works and a full run builds nothing twice.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The path of an example server binary, building the examples first if needed.
pub fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        // `cargo test` sets CARGO_PKG_*, CARGO_MANIFEST_* … for the test; passing them on makes
        // the inner build's fingerprints differ from a plain `cargo build`, rebuilding each time.
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy().into_owned();
            let set_for_tests = [
                "CARGO_PKG_",
                "CARGO_MANIFEST_",
                "CARGO_CRATE_",
                "CARGO_BIN_",
                "CARGO_TARGET_TMPDIR",
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_RUSTC_CURRENT_DIR",
            ];
            if set_for_tests.iter().any(|p| k.starts_with(p)) {
                cmd.env_remove(&k);
            }
        }
        let status = cmd
            .args(BUILD_ARGS)
            .arg("--quiet")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .map_err(|e| e.to_string())?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("cargo {} failed: {status}", BUILD_ARGS.join(" ")))
        }
    });
    if let Err(e) = built {
        panic!("{e}");
    }
    // Test binaries live in <target>/<profile>/deps/; the example servers in <target>/<profile>/.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let path = profile_dir.join(name);
    assert!(
        path.exists(),
        "{} is missing after the build",
        path.display()
    );
    path
}

/// Exactly what `tests/run-all.sh` builds (a no-op after it).
const BUILD_ARGS: &[&str] = &["build", "--workspace", "--all-targets", "--all-features"];
