//! Id bookkeeping of the router: the key of a host request id, and the cheap hasher of the
//! upstream ids serve hands out itself.

use std::hash::Hasher;

use serde_json::Value;

/// A host request id as the text of its JSON (`7`, `"a"`): the key of `Router::host_ids`.
/// (`unwrap_or_default` cannot happen: digits are UTF-8.)
pub(super) fn id_key(id: &Value) -> String {
    match id.as_u64() {
        // What `Value`'s Display writes, without the formatting machinery (every tool call).
        Some(n) => {
            let mut digits = Vec::with_capacity(20);
            crate::mcp::peek::push_u64(&mut digits, n);
            String::from_utf8(digits).unwrap_or_default()
        }
        None => id.to_string(),
    }
}

/// Hashes the upstream ids serve hands out itself (a counter, so nobody can choose them to
/// collide), more cheaply than the default SipHash.
#[derive(Default)]
pub(super) struct OwnIdHasher(u64);

impl Hasher for OwnIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
