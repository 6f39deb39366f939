//! Inputs found by the fuzz targets (`fuzz/`, docs/fuzzing.md), kept so that
//! what they broke stays fixed. Each input is a file under
//! `tests/fixtures/fuzz/`, named `<target>-<what it shows>`, fed to the same
//! public entry point as its target; each test asserts the proper outcome
//! (an error with its place, never a panic).
//!
//! A test marked `#[ignore]` is a finding not fixed yet: the reason names
//! it; drop the `#[ignore]` with the fix.

use std::path::{Path, PathBuf};

use mneme_gate::baseline;
use mneme_gate::memory::{Memory, Severity};
use mneme_gate::profile::Family;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz").join(name)
}

/// `memory`: a file that is not UTF-8 is one error, whatever comes before
/// the first invalid byte.
#[test]
fn memory_invalid_utf8_is_one_error() {
    for family in [Family::Default, Family::Mneme] {
        let m = Memory::read(&fixture("memory-invalid-utf8-after-non-ascii.json"), family).unwrap();
        assert_eq!(m.diagnostics.len(), 1, "{:?}", m.diagnostics);
        let d = &m.diagnostics[0];
        assert_eq!(d.severity, Severity::Error);
        assert!(d.message.contains("not valid UTF-8"), "{}", d.message);
        assert!(m.pool.is_empty());
    }
}

/// `memory`: the error points at the first invalid byte. The input is
/// `éé` then the byte 0xFF, then two newlines: the place is 1:3.
#[test]
fn memory_invalid_utf8_points_at_the_first_invalid_byte() {
    let m = Memory::read(&fixture("memory-invalid-utf8-after-non-ascii.json"), Family::Default).unwrap();
    let d = &m.diagnostics[0];
    assert_eq!((d.line, d.column), (1, 3), "{}", d.message);
}

/// `baseline`: a report that lists the same decision twice in a scenario's
/// `retrieved` (mneme-gate never writes one; here `anti-002` at ranks 1 and
/// 4 with k = 3) is refused when read, and the refusal names the scenario
/// and the decision.
#[test]
fn baseline_with_a_decision_retrieved_twice_is_refused_in_words() {
    let text = std::fs::read_to_string(fixture("baseline-retrieved-id-twice.json")).unwrap();
    let e = baseline::parse("baseline-retrieved-id-twice.json", &text).unwrap_err();
    assert_eq!(
        e.to_string(),
        "baseline-retrieved-id-twice.json: the baseline is not a mneme-gate report: scenario \
         `feature_boundary_violation` retrieves `anti-002` twice; re-pin it with `mneme-gate baseline`"
    );
}

/// `markdown_source`: carriage returns inside a line of front matter (not
/// before a newline) are line breaks to YAML, so the place of a YAML error
/// was past the end of the file. Fixed: they are read as spaces, and the
/// place is a line of the front matter.
#[test]
fn markdown_source_lone_carriage_returns_keep_the_line() {
    use mneme_gate::memory::sources::parse_file;
    use mneme_gate::memory::SourceKind;
    let data = std::fs::read(fixture("markdown_source-lone-carriage-returns")).unwrap();
    let text = String::from_utf8_lossy(&data[1..]);
    let lines = text.split('\n').count();
    for family in [Family::Default, Family::Mneme] {
        let (decisions, diagnostics) = parse_file(SourceKind::Claude, "api.md", &text, family);
        assert!(!diagnostics.is_empty());
        for d in &diagnostics {
            assert!((1..=lines).contains(&d.line), "line {} of {lines}: {}", d.line, d.message);
        }
        assert_eq!(decisions.len(), 1);
    }
}

/// `markdown_source`: an ADR title that starts with a letter then a
/// character of several bytes (`U�…`) was cut inside that character while
/// looking for an `ADR` prefix. Fixed: the prefix is looked up by
/// characters; the title is kept as written.
#[test]
fn markdown_source_title_is_never_cut_inside_a_character() {
    use mneme_gate::memory::sources::parse_file;
    use mneme_gate::memory::SourceKind;
    let data = std::fs::read(fixture("markdown_source-title-cut-inside-a-character")).unwrap();
    let text = String::from_utf8_lossy(&data[1..]);
    for family in [Family::Default, Family::Mneme] {
        let (decisions, _) = parse_file(SourceKind::Adr, "0001-use-x.md", &text, family);
        assert_eq!(decisions.len(), 1);
        assert!(decisions[0].title.starts_with('U'), "{}", decisions[0].title);
    }
}

/// `compiled_index`: the committed seed is the bundled example's compiled
/// directory as the fuzz target builds it, and it opens against the
/// target's records. A seed that no longer opens (the format or the index
/// changed) would leave the target fuzzing only the header checks.
#[test]
fn compiled_index_seed_is_the_fixtures_directory() {
    use mneme_gate::cache::{compile, Compiled};
    use mneme_gate::profile::Profile;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("fixtures/project_memory.json")).unwrap();
    let profile = Profile::named(Family::Default);
    let memory = Memory::parse(Path::new("project_memory.json"), text, profile.family);
    let parts = compile(&memory, &profile).expect("the bundled example compiles");
    let seed = std::fs::read(root.join("fuzz/seeds/compiled_index/bundled-example-directory")).unwrap();
    assert!(
        seed == parts.directory,
        "fuzz/seeds/compiled_index is stale ({} bytes, the directory is {}): run fuzz/make_seeds.sh",
        seed.len(),
        parts.directory.len()
    );
    assert!(Compiled::open(&seed, &parts.records).is_ok(), "the seed does not open");
}

/// `native_suite`: a control character in a comment before the list made a
/// file read in pieces (which left those lines out) read otherwise than
/// whole. The lines before the first entry are now read too.
#[test]
fn native_suite_read_in_pieces_reads_the_lines_before_the_list() {
    let text = std::fs::read(fixture("native_suite-control-characters-before-the-list.yaml")).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert_ne!(mneme_gate::scenarios::pieces_read_as_whole(&text), Some(false));
}
