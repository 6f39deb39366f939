//! A memory file kept loaded and indexed for a long-running server (`mcp`),
//! and reloaded when the file changes.
//!
//! Every [`Hot::refresh`] takes the file's [`Stamp`] (one `stat`). The
//! same stamp means the same bytes, unless the file had changed less than
//! [`RACY`] before its bytes were read: such a file is read and hashed again
//! on every refresh until it is older (on systems without a stamp, always).
//! Another stamp, and a racy file, are read and hashed; new bytes are
//! loaded and indexed. A file that cannot be read or loaded leaves the last good
//! index serving and the problem recorded ([`Hot::problem`]); the same
//! broken bytes are not parsed twice.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::stamp::{Stamp, RACY};
use crate::memory::{Memory, MemoryError, Sources};
use crate::profile::Profile;
use crate::retrieval::Index;

/// What is served: a loaded memory file's index and what health reports.
#[derive(Debug)]
pub struct Loaded {
    pub index: Index,
    /// `sha256:…` of the bytes indexed.
    pub hash: String,
    /// Records seen in the file.
    pub records: usize,
    /// The warnings of loading, rendered as `validate` renders them.
    pub warnings: Vec<String>,
    /// Reading, loading and indexing took this long.
    pub load_time: Duration,
}

/// A memory file kept hot.
#[derive(Debug)]
pub struct Hot {
    path: PathBuf,
    /// Decision sources other than one memory file: read again on every
    /// refresh, and indexed again when their files' bytes changed.
    sources: Option<Sources>,
    profile: Profile,
    loaded: Option<Loaded>,
    /// The metadata the served bytes (or the failing bytes) were read with.
    stamp: Option<Stamp>,
    /// The stamp is too recent to prove anything.
    racy: bool,
    /// The hash of bytes that failed to load, not parsed again.
    failed: Option<String>,
    problem: Option<String>,
}

impl Hot {
    /// Loads the memory file; a failure is recorded, not returned, and the
    /// next refresh tries again.
    pub fn load(path: &Path, profile: Profile) -> Hot {
        let mut hot = Hot {
            path: path.to_path_buf(),
            sources: None,
            profile,
            loaded: None,
            stamp: None,
            racy: true,
            failed: None,
            problem: None,
        };
        hot.read();
        hot
    }

    /// Loads the decision sources: one memory file as [`Hot::load`] does;
    /// any other list is read on every refresh (it has no one stamp), and
    /// indexed again only when what was read differs.
    pub fn load_sources(sources: &Sources, profile: Profile) -> Hot {
        if let Some(path) = sources.single_json() {
            return Hot::load(path, profile);
        }
        let mut hot = Hot {
            path: PathBuf::from(sources.label()),
            sources: Some(sources.clone()),
            profile,
            loaded: None,
            stamp: None,
            racy: true,
            failed: None,
            problem: None,
        };
        hot.read_sources();
        hot
    }

    /// Reads the sources again; a change of any file is indexed.
    fn read_sources(&mut self) {
        let Some(sources) = &self.sources else { return };
        let started = Instant::now();
        let memory = match crate::memory::sources::read(sources, self.profile.family) {
            Ok(read) => read.memory,
            Err(e) => return self.fail(None, e),
        };
        let hash = super::content_hash(memory.text().as_bytes());
        if self.loaded.as_ref().is_some_and(|l| l.hash == hash) {
            self.problem = None;
            return;
        }
        if self.failed.as_ref() == Some(&hash) {
            return;
        }
        match memory.refuse_errors() {
            Ok(memory) => self.serve(memory, hash, started),
            Err(e) => self.fail(Some(hash), e),
        }
    }

    /// Serves a loaded memory.
    fn serve(&mut self, memory: Memory, hash: String, started: Instant) {
        let records = memory.records;
        let warnings = memory.warnings().map(|w| w.render(&self.path)).collect();
        let index = Index::build(memory, self.profile.clone());
        self.loaded = Some(Loaded { index, hash, records, warnings, load_time: started.elapsed() });
        self.failed = None;
        self.problem = None;
    }

    /// Notices a change of the file and reloads it (see the module).
    pub fn refresh(&mut self) {
        if self.sources.is_some() {
            return self.read_sources();
        }
        let stamp = Stamp::of(&self.path);
        if stamp.is_some() && stamp == self.stamp && !self.racy {
            return;
        }
        self.read();
    }

    fn read(&mut self) {
        let started = Instant::now();
        let now = SystemTime::now();
        let stamp = Stamp::of(&self.path);
        self.racy = !stamp.is_some_and(|s| s.settled(now, RACY));
        self.stamp = stamp;
        let bytes = match super::read_memory(&self.path) {
            Ok(bytes) => bytes,
            Err(e) => return self.fail(None, e),
        };
        let hash = super::content_hash(&bytes);
        if self.loaded.as_ref().is_some_and(|l| l.hash == hash) {
            self.problem = None;
            return;
        }
        if self.failed.as_ref() == Some(&hash) {
            return;
        }
        match super::parse_memory(&self.path, bytes, self.profile.family) {
            Ok(memory) => self.serve(memory, hash, started),
            Err(e) => self.fail(Some(hash), e),
        }
    }

    fn fail(&mut self, hash: Option<String>, error: MemoryError) {
        self.failed = hash;
        let serving = if self.loaded.is_some() { "; serving the last good version" } else { "" };
        self.problem = Some(format!("{error}{serving}"));
    }

    /// The index served, or why there is none.
    pub fn loaded(&self) -> Result<&Loaded, &str> {
        self.loaded.as_ref().ok_or_else(|| self.problem.as_deref().unwrap_or("the memory file is not loaded"))
    }

    /// Why the last reload failed, when it did (the last good index, if
    /// any, is still served).
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::Query;

    fn ids(hot: &Hot, task: &str) -> Vec<String> {
        let l = hot.loaded().unwrap();
        l.index.retrieve(Query { task, file: None }).hits.iter().map(|h| l.index.decision(h.pool).id.clone()).collect()
    }

    const A: &str = r#"{"decisions": [{"id": "A", "decision": "Refunds post to the ledger"}]}"#;
    const B: &str = r#"{"decisions": [{"id": "B", "decision": "Refunds post to the ledger"}]}"#;

    /// Decision sources other than one memory file: an edit of any file is
    /// served on the next refresh, a broken one keeps the last good index.
    #[test]
    fn an_edit_of_a_source_is_served_and_a_broken_one_keeps_the_last_good_index() {
        use crate::memory::{DecisionSource, SourceKind, Sources};
        let dir = tempfile::tempdir().unwrap();
        let adr = dir.path().join("adr");
        std::fs::create_dir_all(&adr).unwrap();
        std::fs::write(adr.join("0001-a.md"), "# 1. Refunds post to the ledger\n").unwrap();
        let sources =
            Sources { list: vec![DecisionSource::new(SourceKind::Adr, &adr)], root: dir.path().to_path_buf() };
        let mut hot = Hot::load_sources(&sources, Profile::of(crate::profile::Named::Classic));
        assert_eq!(ids(&hot, "refund ledger"), ["ADR-0001"]);
        std::fs::write(adr.join("0002-b.md"), "# 2. Refunds post to the ledger twice\n").unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger twice"), ["ADR-0002", "ADR-0001"]);
        std::fs::write(adr.join("0003-c.md"), "---\ntitle: [broken\n---\n").unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger twice"), ["ADR-0002", "ADR-0001"], "the last good index serves");
        assert!(hot.problem().is_some_and(|p| p.contains("0003-c.md:")), "{:?}", hot.problem());
        std::fs::remove_file(adr.join("0003-c.md")).unwrap();
        hot.refresh();
        assert_eq!(hot.problem(), None);
    }

    #[test]
    fn an_edit_is_served_and_a_broken_edit_keeps_the_last_good_index() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, A).unwrap();
        let mut hot = Hot::load(&path, Profile::of(crate::profile::Named::Classic));
        assert_eq!(ids(&hot, "refund ledger"), ["A"]);
        assert!(hot.racy, "just written: the metadata proves nothing yet");

        // The same size, another id, written at once: the racy file is hashed again.
        std::fs::write(&path, B).unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger"), ["B"]);
        assert_eq!(hot.problem(), None);

        std::fs::write(&path, "{\"decisions\": [").unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger"), ["B"], "the last good index serves");
        let problem = hot.problem().unwrap();
        assert!(
            problem.starts_with("the memory file ") && problem.ends_with("; serving the last good version"),
            "{problem}"
        );

        std::fs::remove_file(&path).unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger"), ["B"]);
        assert!(hot.problem().unwrap().starts_with("cannot read the memory file"), "{:?}", hot.problem());

        std::fs::write(&path, A).unwrap();
        hot.refresh();
        assert_eq!((ids(&hot, "refund ledger"), hot.problem()), (vec!["A".to_string()], None));
    }

    #[test]
    fn a_file_that_never_loaded_is_reported_and_loaded_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        let mut hot = Hot::load(&path, Profile::of(crate::profile::Named::Classic));
        assert!(hot.loaded().unwrap_err().starts_with("cannot read the memory file"));
        std::fs::write(&path, A).unwrap();
        hot.refresh();
        assert_eq!(ids(&hot, "refund ledger"), ["A"]);
    }

    #[test]
    fn old_unchanged_metadata_is_trusted_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.json");
        std::fs::write(&path, A).unwrap();
        let mut hot = Hot::load(&path, Profile::of(crate::profile::Named::Classic));
        // As if the file had been read long after its last change.
        hot.racy = false;
        let hash = hot.loaded().unwrap().hash.clone();
        hot.loaded.as_mut().unwrap().hash = "sha256:not-the-file".into();
        hot.refresh();
        assert_eq!(hot.loaded().unwrap().hash, "sha256:not-the-file", "not read again");
        hot.racy = true;
        hot.refresh();
        assert_eq!(hot.loaded().unwrap().hash, hash, "read again, and reloaded");
    }
}
