//! What `init` reads from a repository: the input split at NUL bytes into
//! `.adr-dir` (written into a scratch repository, then `init::detect_sources`),
//! `.gitignore` (`init::gitignore_additions`) and `.claude/settings.json`
//! (`hook::claude_settings::install`).
//!
//! Invariants checked beyond "never panics":
//!
//! - every source detected is a relative path inside the repository (no
//!   `..`, not absolute), whatever `.adr-dir` says;
//! - the `.gitignore` lines added are new lines, and adding them again adds
//!   nothing;
//! - settings that install the hook install it once: installing again
//!   changes nothing.

#![no_main]

use std::path::{Component, Path};

use libfuzzer_sys::fuzz_target;
use mneme_gate::hook::claude_settings;
use mneme_gate::init;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let adr_dir = parts.next().unwrap_or_default();
    let gitignore = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let settings = String::from_utf8_lossy(parts.next().unwrap_or_default());

    let dir = tempfile::tempdir().expect("a scratch folder");
    std::fs::write(dir.path().join(".adr-dir"), adr_dir).expect("written");
    std::fs::create_dir_all(dir.path().join("docs/adr")).expect("made");
    std::fs::write(dir.path().join("docs/adr/0001-a.md"), "# 1. A\n").expect("written");
    for source in init::detect_sources(dir.path(), None) {
        let path: &Path = &source.path;
        assert!(!path.is_absolute(), "{path:?}");
        assert!(!path.components().any(|c| matches!(c, Component::ParentDir)), "{path:?}");
    }

    if let Some(added) = init::gitignore_additions(&gitignore) {
        let mut both = gitignore.to_string();
        both.push_str(&added);
        assert_eq!(init::gitignore_additions(&both), None, "added twice: {added:?}");
    }

    if let Ok(Some(installed)) = claude_settings::install(Some(&settings)) {
        assert_eq!(claude_settings::install(Some(&installed)), Ok(None), "the hook installed twice");
    }
});
