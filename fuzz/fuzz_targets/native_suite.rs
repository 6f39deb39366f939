//! A native suite file (`*.yaml`, scenarios.md §1): the input is written as
//! `suite.yaml` in a scratch folder and loaded with `Suite::load`, then every
//! scenario is judged. The folder also holds the response files of
//! `tests/fixtures/suites/broken/responses/`, so that a suite naming them
//! (the seeds do) reaches the verdict code with real answers.
//!
//! Invariants checked beyond "never panics":
//!
//! - every error has a 1-based place and its message starts with it;
//! - every scenario has an id and a task, and every response path it
//!   resolves stays inside the suite root (`../`, absolute paths refused);
//! - a verdict's explanation is one line;
//! - a file cut into pieces of whole entries (as big suite files are read)
//!   reads as it reads whole.

#![no_main]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mneme_gate::scenarios::{self, ResponseRef, Suite};
use mneme_gate::verdict;

/// The response files every input can name, as in the fixture suite.
const RESPONSES: &[(&str, &[u8])] = &[
    ("array.json", include_bytes!("../../tests/fixtures/suites/broken/responses/array.json")),
    ("clean.json", include_bytes!("../../tests/fixtures/suites/broken/responses/clean.json")),
    ("control.md", include_bytes!("../../tests/fixtures/suites/broken/responses/control.md")),
    ("governed-no-ledger.txt", include_bytes!("../../tests/fixtures/suites/broken/responses/governed-no-ledger.txt")),
    ("governed.md", include_bytes!("../../tests/fixtures/suites/broken/responses/governed.md")),
    ("hard-governed.json", include_bytes!("../../tests/fixtures/suites/broken/responses/hard-governed.json")),
    ("invalid.json", include_bytes!("../../tests/fixtures/suites/broken/responses/invalid.json")),
    ("latin1.txt", include_bytes!("../../tests/fixtures/suites/broken/responses/latin1.txt")),
    ("refused.json", include_bytes!("../../tests/fixtures/suites/broken/responses/refused.json")),
    ("soft-todo.json", include_bytes!("../../tests/fixtures/suites/broken/responses/soft-todo.json")),
    ("unknown-field.json", include_bytes!("../../tests/fixtures/suites/broken/responses/unknown-field.json")),
    ("violating.json", include_bytes!("../../tests/fixtures/suites/broken/responses/violating.json")),
    ("wrong-types.json", include_bytes!("../../tests/fixtures/suites/broken/responses/wrong-types.json")),
];

/// One scratch folder per process, holding the responses; each input
/// overwrites `suite.yaml` and nothing else, so runs are reproducible.
fn root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let dir = mneme_gate_fuzz::scratch().keep();
        fs::create_dir(dir.join("responses")).expect("responses folder");
        for (name, bytes) in RESPONSES {
            fs::write(dir.join("responses").join(name), bytes).expect("response file");
        }
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let root = root();
    let suite_file = root.join("suite.yaml");
    fs::write(&suite_file, data).expect("write the input");
    if let Ok(text) = std::str::from_utf8(data) {
        assert_ne!(scenarios::pieces_read_as_whole(text), Some(false), "read in pieces, the file reads otherwise");
    }
    match Suite::load(&[&suite_file]) {
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in &errors {
                if let (Some(line), Some(column)) = (e.line(), e.column()) {
                    assert!(line >= 1 && column >= 1, "error at {line}:{column}: {e}");
                }
                assert!(e.to_string().starts_with(&e.location()), "message without its place: {e}");
            }
        }
        Ok(suite) => {
            for s in &suite.scenarios {
                assert!(!s.id.trim().is_empty(), "scenario without an id");
                assert!(!s.task.is_empty(), "scenario {} without a task", s.id);
                assert!(s.line >= 1 && s.column >= 1);
                for response in [&s.control, &s.governed].into_iter().flatten() {
                    if let ResponseRef::Resolved { path, .. } = response {
                        assert!(inside(path, root), "response {} outside the suite root", path.display());
                    }
                }
                let missed: Vec<String> = s.expect.iter().skip(1).cloned().collect();
                for missed in [&[][..], &missed[..]] {
                    let v = verdict::judge(s, missed);
                    assert!(!v.explanation.contains(['\n', '\r']), "explanation on several lines: {:?}", v.explanation);
                }
            }
        }
    }
});

/// `path` is `root` or below it, lexically (no `..` left in it).
fn inside(path: &Path, root: &Path) -> bool {
    path.starts_with(root) && !path.components().any(|c| matches!(c, std::path::Component::ParentDir))
}
