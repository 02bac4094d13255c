//! The `mcp-gen-ui` binary: everything lives in the library; this only hands over.

fn main() -> std::process::ExitCode {
    mcp_gen_ui::cli::main()
}
