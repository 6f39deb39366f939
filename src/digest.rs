/*!
SHA-256 in lower-case hex, written once: the fingerprints of a report (the
memory file, the suite's files, the selected ids), the cassette key of a
model request, the decision index's digests, a file's version looked up in
the history, the names of the files the hook and the cache keep.

A leaf: it depends on nothing in the crate.
*/

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, as 64 lower-case hex digits.
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    hex(&Sha256::digest(bytes.as_ref()))
}

/// A SHA-256 fed in parts, for a digest of several pieces.
#[derive(Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn new() -> Hasher {
        Hasher::default()
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: impl AsRef<[u8]>) {
        self.0.update(bytes.as_ref());
    }

    /// The digest of everything added, as 64 lower-case hex digits.
    pub fn hex(self) -> String {
        hex(&self.0.finalize())
    }

    /// The first `n` bytes of the digest, as `2 * n` lower-case hex digits
    /// (a file name that needs no more).
    pub fn hex_prefix(self, n: usize) -> String {
        let digest = self.0.finalize();
        hex(&digest[..n.min(digest.len())])
    }
}

/// Bytes as lower-case hex, two digits each.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_the_standard_ones_in_lower_case_hex() {
        // FIPS 180-2's test vectors.
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let mut h = Hasher::new();
        h.update("a");
        h.update(b"bc");
        assert_eq!(h.hex(), sha256_hex("abc"));
        let mut h = Hasher::new();
        h.update("abc");
        assert_eq!(h.hex_prefix(16), "ba7816bf8f01cfea414140de5dae2223");
        assert_eq!(hex(&[0, 9, 10, 255]), "00090aff");
        // The same as formatting each byte with `{:02x}`, which it replaces.
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(hex(&bytes), bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
}
