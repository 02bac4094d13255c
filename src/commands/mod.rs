//! One function per subcommand.
pub mod serve;
