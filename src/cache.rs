/*!
The compiled index cache: `context` and the agent hook answer one query per
process, and loading and indexing a whole memory file for it costs far more
than the query. The first run compiles what a query needs into one flat
file (`compiled`); later runs read it, check it, and answer from it without
parsing the JSON.

Why it can be trusted: a cache file is an input like any other, and
nothing in it is believed until it is checked. It is used only when its
header names the SHA-256 of the memory file's bytes as read by this very
run, this binary's build and the whole effective profile, and its body
has the SHA-256 the header records (`store`); every read of the body is
bounds-checked (`compiled`). Anything else (a missing, stale, truncated or
damaged file, or a body that does not hold together) is ignored: the run
loads the memory file the ordinary way, answers from the ordinary index,
and writes a new cache file atomically. What it answers is the same either
way: `Compiled::retrieve` follows `Index::retrieve` rule for rule, and the
differential tests run both on generated corpora in both profiles.

Where the files live is the caller's choice ([`answer`] takes the folder):
the command line uses a folder of the user's cache (`$XDG_CACHE_HOME`),
never the repository, so a pull request cannot ship a cache file. This is
the one module outside `cli` that writes a file: its own cache.

It deliberately does not print: warnings of the memory file come back in
the [`Answer`] for the caller to print.
*/

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::memory::{read_regular, Diagnostic, Memory, MemoryError, ReadError, MAX_MEMORY_BYTES};
use crate::profile::Profile;
use crate::retrieval::{Index, Query, Retrieval};
use crate::tokenize::Tokenizer;

mod compiled;
mod hot;
mod stamp;
mod store;
#[cfg(test)]
mod tests;

pub use compiled::{compile, Compiled, Corrupt, Parts, Records, Shown};
pub use hot::{Hot, Loaded};
pub use stamp::{Stamp, RACY};
pub use store::{Stale, MAX_CACHE_BYTES};

/// One query answered: the memory's warnings, the ranking, and what the
/// context block shows of each retrieved decision, in rank order.
#[derive(Debug)]
pub struct Answer {
    pub warnings: Vec<Diagnostic>,
    pub retrieval: Retrieval,
    pub shown: Vec<Shown>,
    pub origin: AnswerOrigin,
    /// The index the answer came from, when it was built for it.
    _index: Option<Index>,
}

impl Answer {
    /// Ends the answer without freeing the index it was built from, for a
    /// process that exits right after it: freeing a 5,000-decision index
    /// costs milliseconds, and exiting frees it anyway.
    pub fn leak(self) {
        std::mem::forget(self);
    }
}

/// What answered a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerOrigin {
    /// The memory file, loaded and indexed (no cache, or none usable).
    Memory,
    /// A cache file whose memory bytes were read and hashed again.
    CacheByHash,
    /// A cache file whose memory file has the settled stamp it was read
    /// with: its bytes were not read at all.
    CacheByStamp,
}

/// Reads a memory file's bytes as [`Memory::read`] does (a regular file, at
/// most [`MAX_MEMORY_BYTES`]), with the same errors.
pub fn read_memory(path: &Path) -> Result<Vec<u8>, MemoryError> {
    read_regular(path, MAX_MEMORY_BYTES).map_err(|e| {
        let path = path.to_path_buf();
        match e {
            ReadError::Io(source) => MemoryError::Read { path, source },
            ReadError::NotAFile(kind) => MemoryError::NotAFile { path, kind },
            ReadError::TooLarge { limit } => MemoryError::TooLarge { path, limit },
        }
    })
}

/// `sha256:` and the hex SHA-256 of some bytes.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("sha256:{}", crate::digest::sha256_hex(bytes))
}

/// Parses memory bytes and refuses a memory with errors, as
/// [`Memory::load`] does (bytes that are not UTF-8 are read again by
/// [`Memory::load`], which words that error).
pub fn parse_memory(path: &Path, bytes: Vec<u8>, family: crate::profile::Family) -> Result<Memory, MemoryError> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => return Memory::load(path, family),
    };
    let memory = Memory::parse(path, text, family);
    if memory.has_errors() {
        return Err(MemoryError::Invalid { path: memory.path.clone(), diagnostics: memory.diagnostics, family });
    }
    Ok(memory)
}

/// What identifies this binary's build: its version, and the size and
/// modification time of the executable (a rebuilt binary never reads a
/// cache another build wrote). `None` when the executable cannot be found:
/// then nothing is cached.
pub fn build_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!("{} {} {}", env!("CARGO_PKG_VERSION"), meta.len(), modified.as_nanos()))
}

/// Answers one query on the decision sources under `profile`: one memory
/// file through [`answer`] and its cache; any other list of sources (a
/// folder of ADRs, rule files) is read, loaded and indexed every time, as
/// the compiled cache is keyed by one memory file's bytes. The answer is
/// the same either way.
pub fn answer_sources(
    sources: &crate::memory::Sources,
    profile: &Profile,
    query: Query<'_>,
    cache: Option<&Path>,
) -> Result<Answer, MemoryError> {
    match sources.single_json() {
        Some(path) => answer(path, profile, query, cache),
        None => Ok(from_memory(Memory::load_sources(sources, profile.family)?, profile, query)),
    }
}

/// Answers one query on the memory file at `path` under `profile`: from
/// the cache file in `cache` when it was compiled from exactly this file's
/// bytes under this profile by this build, else from the memory itself
/// (and the cache file is written for the next run; one that cannot be
/// written is skipped silently). The errors are those of [`Memory::load`].
///
/// The bytes are known to be the cache's when the file still has the
/// settled [`Stamp`] recorded with them (then they are not read at all),
/// or when their SHA-256 is the one recorded.
pub fn answer(path: &Path, profile: &Profile, query: Query<'_>, cache: Option<&Path>) -> Result<Answer, MemoryError> {
    answer_with(path, profile, query, cache, RACY)
}

/// [`answer`] with the age a stamp must have to be settled (tests).
fn answer_with(
    path: &Path,
    profile: &Profile,
    query: Query<'_>,
    cache: Option<&Path>,
    racy: Duration,
) -> Result<Answer, MemoryError> {
    let Some((dir, settings)) = cache.zip(build_identity()).map(|(dir, b)| (dir, store::settings_digest(profile, &b)))
    else {
        return Ok(from_memory(Memory::load(path, profile.family)?, profile, query));
    };
    let file = store::file_for(dir, path, &settings);
    let cached = store::Cached::open(&file).ok().filter(|c| c.settings() == settings);
    // Taken before the bytes are read: a later write changes the stamp.
    let (now, stamp) = (SystemTime::now(), Stamp::of(path));
    if let Some(c) = &cached {
        if stamp.is_some() && c.stamp() == stamp {
            if let Ok(answer) = from_compiled(c.directory(), c, profile, query) {
                return Ok(Answer { origin: AnswerOrigin::CacheByStamp, ..answer });
            }
        }
    }
    let bytes = read_memory(path)?;
    let content = store::content_digest(&bytes);
    let settled = stamp.filter(|s| s.settled(now, racy));
    if let Some(c) = cached.as_ref().filter(|c| c.content() == content) {
        if let Ok(answer) = from_compiled(c.directory(), c, profile, query) {
            if settled.is_some() && c.stamp() != settled {
                // Settled since: the next run need not read the bytes.
                if let Ok(parts) = c.parts() {
                    let _ = store::write(&file, &settings, &content, settled.as_ref(), &parts);
                }
            }
            return Ok(Answer { origin: AnswerOrigin::CacheByHash, ..answer });
        }
    }
    let memory = parse_memory(path, bytes, profile.family)?;
    if let Some(parts) = compile(&memory, profile) {
        let _ = store::write(&file, &settings, &content, settled.as_ref(), &parts);
    }
    Ok(from_memory(memory, profile, query))
}

/// The answer of a compiled index, or why it cannot give one.
pub fn from_compiled(
    directory: &[u8],
    records: &dyn Records,
    profile: &Profile,
    query: Query<'_>,
) -> Result<Answer, Corrupt> {
    let compiled = Compiled::open(directory, records)?;
    let tokenizer = Tokenizer::for_profile(profile);
    let retrieval = compiled.retrieve(profile, &tokenizer, query)?;
    let shown = retrieval.hits.iter().map(|h| compiled.shown(h.pool)).collect::<Result<_, _>>()?;
    Ok(Answer { warnings: compiled.warnings()?, retrieval, shown, origin: AnswerOrigin::CacheByHash, _index: None })
}

/// The answer of the ordinary index, built for this one query.
pub fn from_memory(memory: Memory, profile: &Profile, query: Query<'_>) -> Answer {
    let warnings = memory.warnings().cloned().collect();
    let index = Index::build_for_query(memory, profile.clone(), query);
    let retrieval = index.retrieve(query);
    let shown = retrieval.hits.iter().map(|h| Shown::from(index.decision(h.pool))).collect();
    Answer { warnings, retrieval, shown, origin: AnswerOrigin::Memory, _index: Some(index) }
}
