//! A compiled index as a file: its header, its name, and how it is read
//! and written.
//!
//! The file is the header, the directory and the records of `compiled.rs`.
//! The header holds a magic string, the format version, the SHA-256 of
//! every setting the index depends on ([`settings_digest`]: the format,
//! this binary's version and build, the whole effective profile), the
//! SHA-256 of the memory file's bytes it was compiled from, the memory
//! file's [`Stamp`] when it was settled as those bytes were read, and the
//! lengths of the directory and the records with the directory's XXH64.
//!
//! A file is read like any other input: a regular file of at most
//! [`MAX_CACHE_BYTES`], exactly as long as its header says. Only the header
//! and the directory are read when it is opened; each record is read when a
//! query needs it and checked against its own XXH64 ([`Records`]). It is
//! written atomically (`crate::atomic`), so a reader sees a whole file or
//! none. Whoever reads it compares its keys ([`Cached`]); anything that does
//! not match ([`Stale`], [`super::Corrupt`]) means it is ignored and rebuilt.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::compiled::{Corrupt, Parts, Records};
use super::stamp::{xxh64, Stamp, STAMP_BYTES};
use crate::profile::Profile;

/// The version of the layout of `compiled.rs` and of this header. Any
/// change to either bumps it.
pub const FORMAT: u32 = 2;

const MAGIC: &[u8; 8] = b"mgindex\0";

/// Where each part of the header is.
const FORMAT_AT: usize = 8;
const SETTINGS_AT: usize = 12;
const CONTENT_AT: usize = 44;
const STAMPED_AT: usize = 76;
const STAMP_AT: usize = 77;
const DIRECTORY_LEN_AT: usize = STAMP_AT + STAMP_BYTES;
const DIRECTORY_SUM_AT: usize = DIRECTORY_LEN_AT + 8;
const RECORDS_LEN_AT: usize = DIRECTORY_SUM_AT + 8;
const HEADER: usize = RECORDS_LEN_AT + 8;

/// The largest cache file read (1 GiB): twice the largest memory file, and
/// more than any compiled index of one.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;

/// A SHA-256.
pub type Digest32 = [u8; 32];

/// The digest of everything but the memory's bytes that a compiled index
/// depends on: the format, the binary identified by `build`
/// ([`super::build_identity`]) and the whole profile.
pub fn settings_digest(profile: &Profile, build: &str) -> Digest32 {
    let mut h = Sha256::new();
    h.update(FORMAT.to_le_bytes());
    for part in [build, profile.family.name(), &serde_json::to_string(profile).expect("a profile serialises")] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.finalize().into()
}

/// The SHA-256 of a memory file's bytes.
pub fn content_digest(bytes: &[u8]) -> Digest32 {
    Sha256::digest(bytes).into()
}

/// Why a cache file was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// There is none.
    Missing,
    /// It could not be read: not a regular file, too large, an I/O error.
    Unreadable,
    /// Too short for a header, or not a compiled index at all.
    NotAnIndex,
    /// Another format version.
    Format(u32),
    /// The file is not as long as its header says.
    Length,
    /// The directory is not the one the header was written with.
    Checksum,
}

/// The cache file of a memory file under some settings: one file per
/// memory path and settings, replaced when the memory changes, named by the
/// SHA-256 of the canonical path and the settings (so that no path from
/// the inputs ever becomes part of a file name).
pub fn file_for(dir: &Path, memory: &Path, settings: &Digest32) -> PathBuf {
    let canonical = std::fs::canonicalize(memory).unwrap_or_else(|_| memory.to_path_buf());
    let mut name = Sha256::new();
    name.update(canonical.as_os_str().as_encoded_bytes());
    name.update(settings);
    let digest = name.finalize();
    let hex = crate::digest::hex(&digest[..16]);
    dir.join(format!("{hex}.idx"))
}

/// An open cache file whose header and directory are whole and of this
/// format; its keys are for the reader to compare, and its records are
/// read one by one ([`Records`]).
#[derive(Debug)]
pub struct Cached {
    file: File,
    header: [u8; HEADER],
    directory: Vec<u8>,
    records_len: u64,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

impl Cached {
    /// Opens a cache file and reads its header and directory.
    pub fn open(path: &Path) -> Result<Cached, Stale> {
        let unreadable = |_| Stale::Unreadable;
        // Checked before opening (opening a named pipe blocks) and after.
        let meta = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Stale::Missing),
            other => other.map_err(unreadable)?,
        };
        if !meta.is_file() {
            return Err(Stale::Unreadable);
        }
        // Opened without blocking: a named pipe swapped in after the check is refused, not waited on.
        let (mut file, meta) = crate::confine::open_regular(path, false).map_err(|_| Stale::Unreadable)?;
        if !meta.is_file() || meta.len() > MAX_CACHE_BYTES {
            return Err(Stale::Unreadable);
        }
        let mut header = [0u8; HEADER];
        if meta.len() < HEADER as u64 {
            return Err(Stale::NotAnIndex);
        }
        file.read_exact(&mut header).map_err(unreadable)?;
        check_header(&header, meta.len())?;
        let mut directory = vec![0u8; u64_at(&header, DIRECTORY_LEN_AT) as usize];
        file.read_exact(&mut directory).map_err(|_| Stale::Length)?;
        if xxh64(&directory) != u64_at(&header, DIRECTORY_SUM_AT) {
            return Err(Stale::Checksum);
        }
        Ok(Cached { file, header, records_len: u64_at(&header, RECORDS_LEN_AT), directory })
    }

    pub fn settings(&self) -> &[u8] {
        &self.header[SETTINGS_AT..CONTENT_AT]
    }

    pub fn content(&self) -> &[u8] {
        &self.header[CONTENT_AT..STAMPED_AT]
    }

    /// The memory file's stamp, settled when its bytes were read, if any.
    pub fn stamp(&self) -> Option<Stamp> {
        (self.header[STAMPED_AT] == 1)
            .then(|| Stamp::decode(self.header[STAMP_AT..DIRECTORY_LEN_AT].try_into().expect("a stamp")))
    }

    /// The directory (checked against its checksum).
    pub fn directory(&self) -> &[u8] {
        &self.directory
    }

    /// The whole compiled index, every record read (to write it again).
    pub fn parts(&self) -> std::io::Result<Parts> {
        let mut records = vec![0u8; self.records_len as usize];
        let mut file = &self.file;
        file.seek(SeekFrom::Start((HEADER + self.directory.len()) as u64))?;
        file.read_exact(&mut records)?;
        Ok(Parts { directory: self.directory.clone(), records })
    }
}

impl Records for Cached {
    fn record(&self, offset: u64, len: u32, sum: u64) -> Result<Cow<'_, [u8]>, Corrupt> {
        let past = || Corrupt("a record past the end of the file".into());
        if offset.checked_add(u64::from(len)).is_none_or(|end| end > self.records_len) {
            return Err(past());
        }
        let mut bytes = vec![0u8; len as usize];
        let mut file = &self.file;
        file.seek(SeekFrom::Start((HEADER + self.directory.len()) as u64 + offset))
            .and_then(|_| file.read_exact(&mut bytes))
            .map_err(|_| past())?;
        if xxh64(&bytes) != sum {
            return Err(Corrupt("a record whose checksum does not match".into()));
        }
        Ok(Cow::Owned(bytes))
    }
}

/// Checks a header's shape against the length of its file.
fn check_header(header: &[u8; HEADER], file_len: u64) -> Result<(), Stale> {
    if &header[..FORMAT_AT] != MAGIC {
        return Err(Stale::NotAnIndex);
    }
    let format = u32::from_le_bytes(header[FORMAT_AT..SETTINGS_AT].try_into().expect("4 bytes"));
    if format != FORMAT {
        return Err(Stale::Format(format));
    }
    let (directory, records) = (u64_at(header, DIRECTORY_LEN_AT), u64_at(header, RECORDS_LEN_AT));
    let total = directory.checked_add(records).and_then(|x| x.checked_add(HEADER as u64));
    if total != Some(file_len) {
        return Err(Stale::Length);
    }
    Ok(())
}

/// The bytes of a cache file.
pub fn encode(settings: &Digest32, content: &Digest32, stamp: Option<&Stamp>, parts: &Parts) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + parts.directory.len() + parts.records.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(settings);
    out.extend_from_slice(content);
    out.push(u8::from(stamp.is_some()));
    out.extend_from_slice(&stamp.map(Stamp::encode).unwrap_or([0; STAMP_BYTES]));
    out.extend_from_slice(&(parts.directory.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxh64(&parts.directory).to_le_bytes());
    out.extend_from_slice(&(parts.records.len() as u64).to_le_bytes());
    out.extend_from_slice(&parts.directory);
    out.extend_from_slice(&parts.records);
    out
}

/// Writes a cache file atomically (creating its folder).
pub fn write(
    file: &Path,
    settings: &Digest32,
    content: &Digest32,
    stamp: Option<&Stamp>,
    parts: &Parts,
) -> std::io::Result<()> {
    crate::atomic::write_atomically(file, &encode(settings, content, stamp, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Family;

    fn settings() -> Digest32 {
        settings_digest(&Profile::named(Family::Default), "build")
    }

    fn parts() -> Parts {
        Parts { directory: b"directory".to_vec(), records: b"0123456789".to_vec() }
    }

    #[test]
    fn the_settings_digest_covers_the_build_and_the_whole_profile() {
        let mut k5 = Profile::named(Family::Default);
        k5.k = 5;
        let digests = [
            settings(),
            settings_digest(&Profile::named(Family::Mneme), "build"),
            settings_digest(&k5, "build"),
            settings_digest(&Profile::named(Family::Default), "other build"),
        ];
        for (i, a) in digests.iter().enumerate() {
            assert!(digests[i + 1..].iter().all(|b| a != b), "{i}");
        }
    }

    /// Writes `bytes` as a cache file and opens it.
    fn open(bytes: &[u8]) -> Result<Cached, Stale> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.idx");
        std::fs::write(&path, bytes).unwrap();
        Cached::open(&path)
    }

    #[test]
    fn a_file_holds_its_keys_and_its_records_are_checked() {
        let content = content_digest(b"memory");
        let cached = open(&encode(&settings(), &content, None, &parts())).unwrap();
        assert_eq!((cached.settings(), cached.content(), cached.stamp()), (&settings()[..], &content[..], None));
        assert_eq!(cached.directory(), b"directory");
        assert_eq!(cached.parts().unwrap(), parts());
        assert_eq!(cached.record(2, 3, xxh64(b"234")).unwrap(), &b"234"[..]);
        assert!(cached.record(2, 3, xxh64(b"235")).is_err(), "another checksum");
        assert!(cached.record(8, 3, xxh64(b"89")).is_err(), "past the end");
        assert!(cached.record(u64::MAX, 3, 0).is_err());
    }

    #[test]
    fn a_damaged_file_is_refused() {
        let file = encode(&settings(), &content_digest(b"memory"), None, &parts());
        assert_eq!(open(&file[..HEADER - 1]).unwrap_err(), Stale::NotAnIndex);
        assert_eq!(open(b"{\"decisions\": []}").unwrap_err(), Stale::NotAnIndex);
        assert_eq!(open(&[b'x'; HEADER + 10]).unwrap_err(), Stale::NotAnIndex);
        assert_eq!(open(&file[..file.len() - 1]).unwrap_err(), Stale::Length);
        assert_eq!(open(&[&file[..], b"x"].concat()).unwrap_err(), Stale::Length);
        let mut flipped = file.clone();
        flipped[HEADER + 1] ^= 1;
        assert_eq!(open(&flipped).unwrap_err(), Stale::Checksum);
        let mut other_format = file.clone();
        other_format[FORMAT_AT] = 99;
        assert_eq!(open(&other_format).unwrap_err(), Stale::Format(99));
        let mut lying = file.clone();
        lying[DIRECTORY_LEN_AT..DIRECTORY_LEN_AT + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(open(&lying).unwrap_err(), Stale::Length);
    }

    #[cfg(unix)]
    #[test]
    fn a_stamp_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        std::fs::write(&path, "m").unwrap();
        let stamp = Stamp::of(&path).unwrap();
        let cached = open(&encode(&settings(), &content_digest(b"m"), Some(&stamp), &parts())).unwrap();
        assert_eq!(cached.stamp(), Some(stamp));
    }

    #[test]
    fn files_are_named_by_path_and_settings_and_only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let memory = dir.path().join("project_memory.json");
        std::fs::write(&memory, "{}").unwrap();
        let cache = dir.path().join("cache");
        let file = file_for(&cache, &memory, &settings());
        assert_eq!(Cached::open(&file).unwrap_err(), Stale::Missing);
        write(&file, &settings(), &content_digest(b"{}"), None, &parts()).unwrap();
        assert_eq!(Cached::open(&file).unwrap().directory(), b"directory");
        // The same file however the memory path is spelt; another per profile.
        assert_eq!(file_for(&cache, &dir.path().join(".").join("project_memory.json"), &settings()), file);
        assert_ne!(file_for(&cache, &memory, &settings_digest(&Profile::named(Family::Mneme), "build")), file);
        // A folder where the file should be is unreadable, not a crash.
        let folder = file_for(&cache, &dir.path().join("other.json"), &settings());
        std::fs::create_dir_all(&folder).unwrap();
        assert_eq!(Cached::open(&folder).unwrap_err(), Stale::Unreadable);
    }
}
