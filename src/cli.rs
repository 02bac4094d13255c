//! Command line: parse, dispatch, decide the exit code.
use std::process::ExitCode;

pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
