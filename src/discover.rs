//! Discover stage: connect to the upstream, `initialize`, and list every tool (all pages).
//! (Owned by the transport work.)
