//! Shared by the fuzz targets (`fuzz_targets/`) and the seed maker
//! (`examples/make_seeds.rs`): the structured input of `mneme_folder`, with
//! an encoder so that seeds can be built from the repository's fixtures, and
//! a scratch folder per input.
//!
//! Nothing here is part of mneme-gate; it only drives its public API.

use std::fs;
use std::io;
use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};

/// A scratch folder for one input, removed when dropped. Under `$TMPDIR`
/// (`.ci/fuzz.sh` points it at a RAM disk when there is one).
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("mneme-fuzz-").tempdir().expect("a scratch folder")
}

/// The files of a Mneme benchmark folder (scenarios.md §2). Every file but
/// `scenario.json` may be absent; each is raw bytes, so invalid UTF-8 is
/// tried too. `scenario.json` comes last and takes the rest of the input,
/// so most of a mutation lands in it.
#[derive(Arbitrary, Debug, Clone, PartialEq, Eq)]
pub struct MnemeFolder<'a> {
    /// Bit `i` set: the `i`-th expected id counts as missed by retrieval
    /// when the scenario is judged.
    pub missed: u8,
    pub query: Option<&'a [u8]>,
    pub without_json: Option<&'a [u8]>,
    pub without_txt: Option<&'a [u8]>,
    pub with_json: Option<&'a [u8]>,
    pub with_txt: Option<&'a [u8]>,
    pub scenario: &'a [u8],
}

impl<'a> MnemeFolder<'a> {
    /// The optional files, with their names.
    pub fn files(&self) -> [(&'static str, Option<&'a [u8]>); 5] {
        [
            ("query.txt", self.query),
            ("without_mneme.json", self.without_json),
            ("without_mneme.txt", self.without_txt),
            ("with_mneme.json", self.with_json),
            ("with_mneme.txt", self.with_txt),
        ]
    }

    /// Writes the folder's files into `dir` (which must exist).
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        fs::write(dir.join("scenario.json"), self.scenario)?;
        for (name, bytes) in self.files() {
            if let Some(bytes) = bytes {
                fs::write(dir.join(name), bytes)?;
            }
        }
        Ok(())
    }

    /// The input bytes that `arbitrary` decodes back into `self` (the
    /// inverse of `MnemeFolder::arbitrary_take_rest`, which is what
    /// `fuzz_target!` calls). Checked by decoding: panics if the layout of
    /// the `arbitrary` crate in use ever differs from the one assumed here.
    pub fn encode(&self) -> Vec<u8> {
        // The front is read in order; every slice length is read from the
        // end of what remains, in as many bytes as that remaining length
        // needs. Those byte counts depend on the total, so find the fixed
        // point of the total length.
        let mut back_len = 0;
        loop {
            let (front, back) = self.layout(back_len);
            if back.len() == back_len {
                let mut bytes = front;
                bytes.extend(back);
                let decoded =
                    MnemeFolder::arbitrary_take_rest(Unstructured::new(&bytes)).expect("the encoding decodes");
                assert_eq!(&decoded, self, "MnemeFolder::encode disagrees with the arbitrary crate");
                return bytes;
            }
            back_len = back.len();
        }
    }

    /// The front bytes and the length bytes (in file order), assuming the
    /// length bytes take `back_len` bytes in all.
    fn layout(&self, back_len: usize) -> (Vec<u8>, Vec<u8>) {
        let slices: usize = self.files().iter().filter_map(|(_, b)| b.map(<[u8]>::len)).sum();
        let flags = self.files().len();
        let total = 1 + flags + slices + self.scenario.len() + back_len;
        let mut front = vec![self.missed];
        // Length fields in the order they are read; the first read is last.
        let mut lengths: Vec<Vec<u8>> = Vec::new();
        let mut remaining = total - 1;
        for (_, bytes) in self.files() {
            front.push(u8::from(bytes.is_some()));
            remaining = remaining.saturating_sub(1);
            let Some(bytes) = bytes else { continue };
            let size = length_bytes(remaining, bytes.len());
            remaining = remaining.saturating_sub(size.len() + bytes.len());
            lengths.push(size);
            front.extend_from_slice(bytes);
        }
        front.extend_from_slice(self.scenario);
        let back = lengths.into_iter().rev().flatten().collect();
        (front, back)
    }
}

/// The bytes `Unstructured::arbitrary_byte_size` reads (from the end of
/// `remaining` bytes) to yield `len`: 1, 2, 4 or 8 bytes depending on
/// `remaining`, the value big-endian in as many leading bytes as the range
/// needs.
fn length_bytes(remaining: usize, len: usize) -> Vec<u8> {
    if remaining <= 1 {
        // Nothing or one byte left: the length is 0 (the byte is dropped).
        return vec![0; remaining];
    }
    let width = if remaining <= 256 {
        1
    } else if remaining <= 65_537 {
        2
    } else if remaining as u64 <= u32::MAX as u64 + 4 {
        4
    } else {
        8
    };
    // While `encode` looks for the total length, `remaining` may be short
    // of the real one; the final layout is checked by decoding it.
    let max = (remaining - width) as u64;
    let used = (1..=width).take_while(|&i| i == 1 || max >> (8 * (i - 1)) > 0).count();
    let mut out = vec![0u8; width];
    for (i, byte) in out.iter_mut().take(used).enumerate() {
        *byte = (len as u64 >> (8 * (used - 1 - i))) as u8;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_round_trips() {
        let big = vec![b'x'; 70_000];
        let mid = vec![b'y'; 300];
        let cases = [
            MnemeFolder {
                missed: 0,
                query: None,
                without_json: None,
                without_txt: None,
                with_json: None,
                with_txt: None,
                scenario: b"",
            },
            MnemeFolder {
                missed: 3,
                query: Some(b"q"),
                without_json: Some(b""),
                without_txt: None,
                with_json: Some(&mid),
                with_txt: Some(b"t"),
                scenario: b"{}",
            },
            MnemeFolder {
                missed: 255,
                query: Some(&big),
                without_json: Some(&mid[..255]),
                without_txt: Some(&mid[..1]),
                with_json: Some(b""),
                with_txt: Some(&big[..256]),
                scenario: &mid,
            },
        ];
        for case in cases {
            case.encode();
        }
    }
}
