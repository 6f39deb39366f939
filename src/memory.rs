/*!
Loading `project_memory.json` (spec §1): the two top-level shapes, decision
records and item records, the mapping of both onto one canonical
[`Decision`], Mneme's migration of items, and the retrieval pool.

Loading never stops at the first problem: every record is checked and every
problem becomes a [`Diagnostic`] with a line, a column and the record id when
known, so that `validate` can list them all. Commands that retrieve refuse a
memory with errors; warnings (a duplicate id, say) are printed and the run
goes on.

This file is the entry point (`Memory::read`, [`Memory::load`],
[`Memory::parse`]) and the one error of loading ([`MemoryError`]); the work
is in its children, one concept each:

- `record`: [`Memory`], [`Decision`], [`Excluded`], [`Diagnostic`], what the
  rest of the crate reads;
- `fast`: the fast loader, `serde_json` straight into records, for
  well-formed files (the common case);
- `tolerant` over `located_json`: the reference loader and its JSON reader
  that keeps byte positions and recovers after errors, for everything else;
- `pool`: the pool rules both loaders end in; `migrate`: Mneme's migration
  of items; `glob`: scope globs; `lines`: lines and columns of offsets;
- `file`: reading a file a pull request controls (only a regular file, at
  most a cap), for the memory file and for the baseline and configuration;
- `sources`: the memory read from a list of decision sources (ADR folders,
  Cursor, Copilot and Claude Code rule files, memory files) rather than one
  memory file ([`Memory::read_sources`]), every record with its `file:line`,
  and the file `mneme-gate import` writes.

This module knows nothing of tokens or scores; the index is built from its
output by `retrieval`.
*/

use std::fmt;
use std::path::{Path, PathBuf};

use crate::profile::Family;

mod count;
mod decision_index;
mod fast;
mod file;
mod glob;
mod lines;
mod located_json;
mod migrate;
mod pool;
mod record;
pub use pool::{is_inactive, INACTIVE_STATUSES};
mod rules;
mod unique;
pub use rules::{is_python_space, python_strip};
pub mod sources;
mod tolerant;
pub use count::MAX_MEMORY_ITEMS;
pub use sources::{DecisionSource, SourceKind, Sources};

pub(crate) use file::{read_regular, read_report, size_in_words, ReadError};
pub(crate) use glob::compile_glob;

/// The largest memory file read, in bytes (512 MiB): far above any real
/// corpus (200,000 decisions are about 130 MB), and a bound on what a
/// hostile one can make the gate hold in memory.
pub const MAX_MEMORY_BYTES: u64 = 512 * 1024 * 1024;
pub use record::{Decision, Diagnostic, Excluded, Memory, Severity};
pub use record::{Exclusion, Origin, Rare, RecordKind, Rule, Sections};

/// The memory file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("cannot read the memory file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The path is a folder, a named pipe, a device: not a file to read.
    #[error(
        "the memory file {} is {kind}, not a regular file: give the path of the JSON file itself (--memory or `memory:` in mneme-gate.yaml)",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    /// The file is larger than [`MAX_MEMORY_BYTES`].
    #[error(
        "the memory file {} is larger than {}, the most mneme-gate reads: check that the path names the memory file, or split the memory",
        path.display(),
        size_in_words(*limit)
    )]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{}", InvalidMessage { path, diagnostics, family: *family })]
    Invalid { path: PathBuf, diagnostics: Vec<Diagnostic>, family: Family },
    /// A source of a list cannot be read at all (a missing folder, a link
    /// out of the repository).
    #[error("cannot read the decision source {label}: {message}")]
    Source { label: String, message: String },
    /// The sources have errors.
    #[error("{}", SourcesMessage { label, diagnostics })]
    InvalidSources { label: String, diagnostics: Vec<Diagnostic> },
}

/// The message of [`MemoryError::InvalidSources`].
struct SourcesMessage<'a> {
    label: &'a str,
    diagnostics: &'a [Diagnostic],
}

impl fmt::Display for SourcesMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let errors: Vec<&Diagnostic> = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
        write!(f, "the decision sources ({}) have {} error(s):", self.label, errors.len())?;
        for d in errors {
            write!(f, "\n  {}", d.render(Path::new(self.label)))?;
        }
        write!(f, "\nrun `mneme-gate validate` on the same sources to see every problem")
    }
}

/// The message of [`MemoryError::Invalid`]: every error, then how to see
/// the warnings too.
struct InvalidMessage<'a> {
    path: &'a Path,
    diagnostics: &'a [Diagnostic],
    family: Family,
}

impl fmt::Display for InvalidMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path;
        let errors: Vec<&Diagnostic> = self.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
        write!(f, "the memory file {} has {} error(s):", path.display(), errors.len())?;
        for d in errors {
            write!(f, "\n  {}", d.render(path))?;
        }
        // Some problems exist under one profile only (a rule Mneme refuses).
        let profile = if self.family == Family::Mneme { " --profile mneme" } else { "" };
        write!(f, "\nrun `mneme-gate validate --memory {}{profile}` to see every problem", path.display())
    }
}

impl Memory {
    /// Reads and parses a memory file; a file that cannot be read (not a
    /// regular file, larger than [`MAX_MEMORY_BYTES`], an I/O failure) is
    /// the only error here. Check [`Memory::has_errors`] before retrieving.
    pub fn read(path: &Path, family: Family) -> Result<Memory, MemoryError> {
        Memory::read_counted(path, family, 0)
    }

    /// [`Memory::read`] after `already` records and list entries of the
    /// same run (the run-wide budget, [`MAX_MEMORY_ITEMS`]).
    pub(crate) fn read_counted(path: &Path, family: Family, already: u64) -> Result<Memory, MemoryError> {
        let bytes = read_regular(path, MAX_MEMORY_BYTES).map_err(|e| {
            let path = path.to_path_buf();
            match e {
                ReadError::Io(source) => MemoryError::Read { path, source },
                ReadError::NotAFile(kind) => MemoryError::NotAFile { path, kind },
                ReadError::TooLarge { limit } => MemoryError::TooLarge { path, limit },
            }
        })?;
        Ok(match crate::confine::utf8_text(bytes) {
            Ok(text) => Memory::parse_counted(path, text, family, already),
            Err(crate::confine::NotUtf8 { line, column, .. }) => {
                let diag = Diagnostic {
                    severity: Severity::Error,
                    file: None,
                    line,
                    column,
                    record_id: None,
                    message: "the file is not valid UTF-8: save it as UTF-8".into(),
                };
                Memory::empty(path, family, vec![diag])
            }
        })
    }

    /// Reads the memory from its sources: one JSON memory file exactly as
    /// [`Memory::read`] does, any other list through [`sources::read`].
    /// Check [`Memory::has_errors`] before retrieving.
    pub fn read_sources(sources: &Sources, family: Family) -> Result<Memory, MemoryError> {
        match sources.single_json() {
            Some(path) => Memory::read(path, family),
            None => Ok(sources::read(sources, family)?.memory),
        }
    }

    /// Reads the memory from its sources and refuses it if it has errors.
    pub fn load_sources(sources: &Sources, family: Family) -> Result<Memory, MemoryError> {
        match sources.single_json() {
            Some(path) => Memory::load(path, family),
            None => sources::read(sources, family)?.memory.refuse_errors(),
        }
    }

    /// The memory, or the error that lists its errors.
    pub(crate) fn refuse_errors(self) -> Result<Memory, MemoryError> {
        if !self.has_errors() {
            return Ok(self);
        }
        Err(match self.label {
            Some(label) => MemoryError::InvalidSources { label, diagnostics: self.diagnostics },
            None => MemoryError::Invalid { path: self.path, diagnostics: self.diagnostics, family: self.family },
        })
    }

    /// Reads a memory file and refuses it if it has errors.
    pub fn load(path: &Path, family: Family) -> Result<Memory, MemoryError> {
        let memory = Memory::read(path, family)?;
        if memory.has_errors() {
            return Err(MemoryError::Invalid { path: memory.path.clone(), diagnostics: memory.diagnostics, family });
        }
        Ok(memory)
    }

    /// Parses memory text. `path` is only used in messages.
    ///
    /// A well-formed file takes the fast path (`memory::fast`); anything
    /// unusual falls back to the tolerant loader, which alone words the
    /// errors. Both give the same `Memory`.
    ///
    /// A text of more than [`MAX_MEMORY_ITEMS`] records and list entries is
    /// refused before either reader builds anything (one error, at its
    /// start): memory stays proportional to the input for every shape.
    pub fn parse(path: &Path, text: String, family: Family) -> Memory {
        Memory::parse_counted(path, text, family, 0)
    }

    /// [`Memory::parse`] after `already` records and list entries of the
    /// same run.
    fn parse_counted(path: &Path, text: String, family: Family, already: u64) -> Memory {
        let items = count::array_elements(&text);
        if already.saturating_add(items) > MAX_MEMORY_ITEMS {
            let diag = Diagnostic {
                severity: Severity::Error,
                file: None,
                line: 1,
                column: 1,
                record_id: None,
                message: too_many_items(already.saturating_add(items)),
            };
            return Memory::empty(path, family, vec![diag]);
        }
        let mut memory = match fast::load(&text, family) {
            Ok((records, candidates)) => {
                let mut memory = Memory::empty(path, family, Vec::new());
                memory.text = text;
                memory.records = records;
                pool::build_pool(&mut memory, candidates, false);
                memory.sort_diagnostics();
                memory
            }
            Err(fast::Bail) => tolerant::parse(path, text, family),
        };
        memory.items = items;
        memory
    }
}

/// The refusal of a memory of more than [`MAX_MEMORY_ITEMS`] records and
/// list entries (`found` of them, or more, in one run).
pub(crate) fn too_many_items(found: u64) -> String {
    format!(
        "the memory holds {found} records and list entries (constraints, anti-patterns, tags, scope), more than \
         {MAX_MEMORY_ITEMS}, the most mneme-gate reads in one run (every JSON memory file and decision source \
         together): split the memory, or trim its lists"
    )
}

#[cfg(test)]
mod tests;
