//! The builtin generator: deterministic, offline. (Owned by the builtin-UI work.)
