//! Secrets and random ids: the one constant-time compare of a presented token against the
//! expected one, and the one maker of random hex strings (tokens, session ids, temporary names).
//! Book: reference/security.md.

/// Compares secrets without stopping at the first difference, so response timing does not tell
/// an attacker how much of a guess was right (only the length can differ early, and that is no
/// secret: every token of ours has a fixed length).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `bytes` random bytes from the OS, as lowercase hex (twice as many digits). For secrets: an
/// error when the OS has no randomness to give.
pub fn random_hex(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)?;
    Ok(hex::encode(buf))
}

/// Like [`random_hex`], for names that only need to be unique, never secret (session ids,
/// temporary files): without OS randomness, the time, the process id and a counter stand in.
pub fn unique_hex(bytes: usize) -> String {
    random_hex(bytes).unwrap_or_else(|_| {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mixed = nanos
            ^ (u128::from(std::process::id()) << 96)
            ^ (u128::from(COUNTER.fetch_add(1, Ordering::Relaxed)) << 64);
        let digits = hex::encode(mixed.to_le_bytes());
        digits.chars().cycle().take(bytes * 2).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_only_when_every_byte_is() {
        assert!(constant_time_eq(b"s3cret", b"s3cret"));
        assert!(constant_time_eq(b"", b""));
        assert!(!constant_time_eq(b"s3cret", b"s3creT"));
        assert!(!constant_time_eq(b"s3cret", b"s3cre"));
        assert!(!constant_time_eq(b"", b"x"));
        assert!(!constant_time_eq(b"\x00", b"\x80"));
    }

    #[test]
    fn random_hex_has_twice_the_digits_and_differs() {
        let a = random_hex(16).unwrap();
        let b = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
        assert_eq!(unique_hex(6).len(), 12);
        assert_eq!(unique_hex(40).len(), 80);
        assert_ne!(unique_hex(16), unique_hex(16));
    }
}
