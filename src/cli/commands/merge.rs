//! `mneme-gate merge PART.json...`: the partial reports of every partition
//! of a run (`run --partition K/N`) merged into the report a single run
//! would have built, then everything `run` does with it: the baseline
//! comparison, the gate, the reports, the step outputs and the exit code.

use std::path::Path;
use std::time::Instant;

use super::run::conclude;
use crate::baseline::MAX_BASELINE_BYTES;
use crate::cli::plan::Ran;
use crate::cli::settings::{MemorySettings, MergeSettings};
use crate::cli::suite::load_memory;
use crate::error::Error;
use crate::memory::{read_report, size_in_words, ReadError, Sources};
use crate::profile::{Family, Profile};
use crate::report::partition::{self, Partial, PartitionError};
use crate::report::{display_path, hex_sha256};
use crate::retrieval::Index;

pub(crate) fn execute(s: MergeSettings) -> Result<i32, Error> {
    let started = Instant::now();
    let mut parts = Vec::with_capacity(s.parts.len());
    for path in &s.parts {
        parts.push((display_path(path), load(path)?));
    }
    let filter: Vec<String> = parts.first().map(|(_, p)| p.suite.filter.clone()).unwrap_or_default();
    let report = partition::merge(parts, &s.gate)?;

    // What the partitions ran on, as `run` knows it of its suite: whether
    // it was filtered, and the memory file (loaded for --memory-ref only).
    for pattern in &filter {
        globset::Glob::new(pattern)
            .map_err(|e| Error::Usage(format!("--filter `{pattern}` is not a valid glob: {}", e.kind())))?;
    }
    let family = Family::parse(&report.fingerprint.profile.name).unwrap_or(Family::Default);
    let path = s.memory.clone().unwrap_or_else(|| report.fingerprint.memory.path.clone().into());
    let memory = MemorySettings { sources: Sources::json(path), profile: Profile::named(family) };
    let index = match &s.conclude.memory_ref {
        None => None,
        Some(_) => {
            let loaded = load_memory(&memory)?;
            if hex_sha256(loaded.text().as_bytes()) != report.fingerprint.memory.sha256 {
                return Err(Error::Usage(format!(
                    "--memory-ref: {} is not the memory file the partitions ran on (its sha256 differs); pass the one they ran on with --memory",
                    display_path(&memory.label())
                )));
            }
            Some(Index::build(loaded, memory.profile.clone()))
        }
    };
    let ran = Ran { gate: &s.gate, filtered: !filter.is_empty(), memory: &memory, index: index.as_ref() };
    conclude(&s.conclude, report, ran, started, None)
}

/// Reads a partial report: a regular file (or this process's standard
/// input named by a path) of at most [`MAX_BASELINE_BYTES`], in UTF-8.
fn load(path: &Path) -> Result<Partial, Error> {
    let label = display_path(path);
    let bytes = match read_report(path, MAX_BASELINE_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadError::Io(source)) => return Err(Error::Read { path: path.to_path_buf(), source }),
        Err(ReadError::NotAFile(kind)) => {
            return Err(Error::Usage(format!("the partial report {label} is {kind}, not a regular file")))
        }
        Err(ReadError::TooLarge { limit }) => {
            return Err(Error::Usage(format!(
                "the partial report {label} is larger than {}, the most mneme-gate reads: it is not one mneme-gate wrote; cut the run into more partitions",
                size_in_words(limit)
            )))
        }
    };
    let text = match crate::confine::utf8_text(bytes) {
        Ok(text) => text,
        Err(crate::confine::NotUtf8 { line, column, .. }) => {
            return Err(PartitionError::Parse {
                path: label,
                line,
                column,
                message: "the file is not valid UTF-8".into(),
            }
            .into());
        }
    };
    Ok(partition::parse(&label, &text)?)
}
