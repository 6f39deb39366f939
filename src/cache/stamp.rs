//! What a file's metadata proves about its bytes, and a checksum for the
//! bytes of a cache file.
//!
//! [`Stamp`]: the device, inode, size, modification and change times of a
//! file (one `stat`). Any write changes the change time (`ctime`), which no
//! program can set back, so the same stamp means the same bytes, as git's
//! index assumes, provided the stamp was *settled* when the bytes were
//! read: a write in the same timestamp tick as the previous one could keep
//! every field, so a stamp younger than [`RACY`] at reading proves nothing.
//! Only Unix has a change time and an inode; elsewhere no stamp is taken
//! and the bytes are always read and hashed.
//!
//! [`xxh64`]: XXH64 (Yann Collet's, seed 0), which detects a damaged cache
//! body at memory speed. It guards against accidents (a torn or flipped
//! file), not against someone who can write the cache folder: they could
//! write any bytes with a matching checksum, as they could write any file
//! of the user's. The memory file itself is keyed by SHA-256.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// How old a file's last change must be, when its bytes are read, for its
/// stamp to prove them unchanged later (timestamps tick coarsely, and a
/// network file system's clock may differ a little from this one).
pub const RACY: Duration = Duration::from_secs(2);

/// A file's metadata, as far as a change of its bytes shows in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(unix), allow(dead_code))]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// The encoded size of a stamp.
pub const STAMP_BYTES: usize = 8 * 7;

impl Stamp {
    /// The stamp of the file at `path` (after symbolic links), or `None`
    /// (no such file, or not on Unix).
    pub fn of(path: &Path) -> Option<Stamp> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(Stamp {
                dev: m.dev(),
                ino: m.ino(),
                len: m.len(),
                mtime: (m.mtime(), m.mtime_nsec()),
                ctime: (m.ctime(), m.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    /// Whether the file's last change was at least `racy` before `now`.
    pub fn settled(&self, now: SystemTime, racy: Duration) -> bool {
        let last = self.mtime.max(self.ctime);
        let Ok(secs) = u64::try_from(last.0) else { return true };
        let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, u32::try_from(last.1).unwrap_or(0).min(999_999_999));
        changed + racy <= now
    }

    pub fn encode(&self) -> [u8; STAMP_BYTES] {
        let mut out = [0u8; STAMP_BYTES];
        let words = [
            self.dev,
            self.ino,
            self.len,
            self.mtime.0 as u64,
            self.mtime.1 as u64,
            self.ctime.0 as u64,
            self.ctime.1 as u64,
        ];
        for (i, w) in words.iter().enumerate() {
            out[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    pub fn decode(bytes: &[u8; STAMP_BYTES]) -> Stamp {
        let w = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        Stamp { dev: w(0), ino: w(1), len: w(2), mtime: (w(3) as i64, w(4) as i64), ctime: (w(5) as i64, w(6) as i64) }
    }
}

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1)
}

fn merge(acc: u64, value: u64) -> u64 {
    (acc ^ round(0, value)).wrapping_mul(P1).wrapping_add(P4)
}

fn u64_at(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().expect("8 bytes"))
}

/// XXH64 of `data` with seed 0.
pub fn xxh64(data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(32);
    let mut h = if data.len() >= 32 {
        let mut v = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
        for chunk in chunks.by_ref() {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, u64_at(&chunk[8 * i..]));
            }
        }
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for lane in v {
            h = merge(h, lane);
        }
        h
    } else {
        P5
    };
    h = h.wrapping_add(data.len() as u64);
    let mut rest = chunks.remainder();
    while rest.len() >= 8 {
        h = (h ^ round(0, u64_at(rest))).rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
        rest = &rest[8..];
    }
    if rest.len() >= 4 {
        let word = u64::from(u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")));
        h = (h ^ word.wrapping_mul(P1)).rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
        rest = &rest[4..];
    }
    for &byte in rest {
        h = (h ^ u64::from(byte).wrapping_mul(P5)).rotate_left(11).wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xxh64_gives_the_reference_values() {
        // From the reference implementation (Python's `xxhash`, seed 0).
        assert_eq!(xxh64(b""), 0xef46_db37_51d8_e999);
        assert_eq!(xxh64(b"a"), 0xd24e_c4f1_a98c_6e5b);
        assert_eq!(xxh64(b"abc"), 0x44bc_2cf5_ad77_0999);
        assert_eq!(xxh64(b"0123456789abcdef0123456789abcdef"), 0x642a_9495_8e71_e6c5);
        let mut long: Vec<u8> = (0..=255u8).cycle().take(768).collect();
        long.extend_from_slice(b"xyz");
        assert_eq!(xxh64(&long), 0xe921_a1b4_5bd7_79f8);
    }

    #[cfg(unix)]
    #[test]
    fn a_write_changes_the_stamp_and_a_fresh_stamp_is_not_settled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "one").unwrap();
        let first = Stamp::of(&path).unwrap();
        assert_eq!(Stamp::decode(&first.encode()), first);
        let now = SystemTime::now();
        assert!(!first.settled(now, RACY), "just written");
        assert!(first.settled(now + RACY + Duration::from_secs(1), RACY));
        std::fs::write(&path, "two").unwrap();
        // Its own modification time, whatever the clock's tick (no sleep).
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(SystemTime::UNIX_EPOCH).unwrap();
        assert_ne!(Stamp::of(&path), Some(first), "same size, new bytes: another stamp");
        assert_eq!(Stamp::of(&dir.path().join("gone")), None);
    }
}
