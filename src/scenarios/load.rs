/*!
Loading: walking the suite roots, reading their files in parallel, and
checking that ids are unique across all of them.

A folder root is walked recursively in sorted path order (hidden entries
skipped, symlinked folders not followed, so never walked outside the root).
The root is made canonical first (it may be a symlink); every file found in
it is read only if it resolves inside that canonical root (`root`). Its files are independent, so they
are parsed on the current rayon pool and gathered back in that order: the
result never depends on the number of threads. Every error of every file is
kept, so one load reports them all.

It parses nothing itself: a YAML file goes to `native`, a Mneme folder to
`mneme`.
*/

use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use super::error::SuiteError;
use super::mneme::load_mneme_dir;
use super::native::load_native_file;
use super::read::{Shared, SuiteLimits, SuiteRoot};
use super::root::canonical_root;
use super::scenario::{LoadedRoot, Scenario, Suite};
use crate::profile::Family;

impl Suite {
    /// Loads every suite root, in the order given. A root is a folder (walked
    /// recursively), a `*.yaml` / `*.yml` file, or a Mneme folder or its
    /// `scenario.json`. All errors found are returned together. Files are
    /// read within the default [`SuiteLimits`].
    pub fn load<P: AsRef<Path>>(roots: &[P]) -> Result<Suite, Vec<SuiteError>> {
        Suite::load_with(roots, &SuiteLimits::default())
    }

    /// [`Suite::load`], reading files within `limits` (and checking each
    /// response against `limits.max_response_bytes`).
    pub fn load_with<P: AsRef<Path>>(roots: &[P], limits: &SuiteLimits) -> Result<Suite, Vec<SuiteError>> {
        Suite::load_for(roots, limits, Family::Default)
    }

    /// [`Suite::load_with`] for a run under the profile family `family`:
    /// under `mneme`, Mneme benchmark folders are read exactly as Mneme
    /// 0.10.0 reads them (its enforcement-quality keys, its assertion types,
    /// its structured answers).
    pub fn load_for<P: AsRef<Path>>(
        roots: &[P],
        limits: &SuiteLimits,
        family: Family,
    ) -> Result<Suite, Vec<SuiteError>> {
        let mut suite = Suite { roots: Vec::new(), scenarios: Vec::new(), warnings: Vec::new() };
        let mut errors = Vec::new();
        let mut seen_roots: Vec<PathBuf> = Vec::new();
        for root in roots {
            let root = root.as_ref();
            let key = normalize_lexically(root);
            if seen_roots.contains(&key) {
                suite.warnings.push(format!("suite root {} was given twice; it is loaded once", root.display()));
                continue;
            }
            seen_roots.push(key);
            let (loaded, mut errs) = read_root(root, limits, family);
            suite.roots.push(loaded.root);
            // The first root's vector becomes the suite's: moved, not
            // copied, so the scenarios are never held twice.
            if suite.scenarios.is_empty() {
                suite.scenarios = loaded.scenarios;
            } else {
                suite.scenarios.extend(loaded.scenarios);
            }
            suite.warnings.extend(loaded.warnings);
            errors.append(&mut errs);
        }
        check_unique_ids(&suite.scenarios, &mut errors);
        if errors.is_empty() {
            Ok(suite)
        } else {
            // Each file's errors in line order, the files in the order met.
            let mut files: HashMap<PathBuf, usize> = HashMap::new();
            for e in &errors {
                let next = files.len();
                files.entry(e.path().to_path_buf()).or_insert(next);
            }
            errors.sort_by_key(|e| (files[e.path()], e.line_column().unwrap_or((0, 0))));
            Err(errors)
        }
    }
}

/// Loads one suite root. Ids are checked for uniqueness within the root.
/// Files are read within the default [`SuiteLimits`].
pub fn load_root(root: &Path) -> Result<LoadedRoot, Vec<SuiteError>> {
    load_root_with(root, &SuiteLimits::default())
}

/// [`load_root`], reading files within `limits`.
pub fn load_root_with(root: &Path, limits: &SuiteLimits) -> Result<LoadedRoot, Vec<SuiteError>> {
    let (loaded, mut errors) = read_root(root, limits, Family::Default);
    check_unique_ids(&loaded.scenarios, &mut errors);
    if errors.is_empty() {
        Ok(loaded)
    } else {
        Err(errors)
    }
}

/// Reads one suite root: the valid scenarios and every error (ids not
/// checked).
fn read_root(root: &Path, limits: &SuiteLimits, family: Family) -> (LoadedRoot, Vec<SuiteError>) {
    let mut errors = Vec::new();
    let mut loaded = LoadedRoot { root: root.to_path_buf(), scenarios: Vec::new(), warnings: Vec::new() };
    let meta = match fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            errors.push(SuiteError::Io {
                path: root.to_path_buf(),
                message: format!("cannot read the suite path: {e}; check the path given"),
            });
            return (loaded, errors);
        }
    };
    // A file root is replaced by the folder holding it.
    let (dir, file) = if meta.is_dir() {
        (root.to_path_buf(), None)
    } else {
        let parent = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        (parent, Some(root))
    };
    loaded.root = dir.clone();
    let canonical = match canonical_root(&dir) {
        Ok(c) => c,
        Err(e) => {
            errors.push(SuiteError::Io {
                path: dir.clone(),
                message: format!("cannot resolve the suite root: {e}; check the path given"),
            });
            return (loaded, errors);
        }
    };
    let shared = Shared::default();
    let suite_root = SuiteRoot { path: &dir, canonical: &canonical, limits, shared: &shared, family };
    match file {
        None if names_a_file(&dir.join("scenario.json")) => {
            load_mneme_dir(&dir, &suite_root, Some(Path::new("")), &mut loaded, &mut errors)
        }
        None => {
            let mut found = Vec::new();
            walk(&dir, Path::new(""), &mut found, &mut errors);
            found.sort_by(|a, b| a.sort_key().cmp(b.sort_key()));
            // Files are independent: parse them on the current rayon pool,
            // then gather in sorted path order (the order never depends on
            // the number of threads). One file a task: with rayon's own
            // split, a thread could take a quarter of the files as one task
            // and parse them alone while the other had nothing left.
            use rayon::prelude::*;
            let parts: Vec<(LoadedRoot, Vec<SuiteError>)> = found
                .into_par_iter()
                .with_max_len(1)
                .map(|item| {
                    let mut part = LoadedRoot { root: dir.clone(), scenarios: Vec::new(), warnings: Vec::new() };
                    let mut errs = Vec::new();
                    match item {
                        Found::Native { path, rel_dir } => {
                            load_native_file(&path, &suite_root, &rel_dir, false, &mut part, &mut errs)
                        }
                        Found::Mneme { dir, rel } => {
                            load_mneme_dir(&dir, &suite_root, Some(&rel), &mut part, &mut errs)
                        }
                    }
                    (part, errs)
                })
                .collect();
            // One allocation of the final size, not a vector grown by
            // doubling that keeps up to half its size spare.
            loaded.scenarios.reserve_exact(parts.iter().map(|(part, _)| part.scenarios.len()).sum());
            for (part, mut errs) in parts {
                loaded.scenarios.extend(part.scenarios);
                loaded.warnings.extend(part.warnings);
                errors.append(&mut errs);
            }
        }
        Some(file) if is_yaml(file) => {
            load_native_file(file, &suite_root, Path::new(""), true, &mut loaded, &mut errors)
        }
        Some(file) if file.file_name().and_then(|n| n.to_str()) == Some("scenario.json") => {
            load_mneme_dir(&dir, &suite_root, None, &mut loaded, &mut errors)
        }
        Some(file) => {
            errors.push(SuiteError::Io {
                path: file.to_path_buf(),
                message: "not a suite: give a folder, a .yaml / .yml suite file, or a Mneme \
                          scenario.json"
                    .to_string(),
            });
            return (loaded, errors);
        }
    }
    if loaded.scenarios.is_empty() && errors.is_empty() {
        errors.push(SuiteError::NoScenarios { path: root.to_path_buf() });
    }
    (loaded, errors)
}

fn check_unique_ids(scenarios: &[Scenario], errors: &mut Vec<SuiteError>) {
    let mut first: HashMap<&str, &Scenario> = HashMap::new();
    for s in scenarios {
        match first.get(s.id.as_str()) {
            None => {
                first.insert(&s.id, s);
            }
            Some(f) => {
                let already = errors.iter().any(|e| match e {
                    SuiteError::DuplicateId { second, .. } => *second == s.location(),
                    SuiteError::OverlappingRoots { location, .. } => *location == s.location(),
                    _ => false,
                });
                if already {
                    continue;
                }
                if f.source == s.source && f.line == s.line {
                    errors.push(SuiteError::OverlappingRoots {
                        id: s.id.clone(),
                        location: s.location(),
                        first_root: f.suite_root.clone(),
                        second_root: s.suite_root.clone(),
                    });
                } else {
                    errors.push(SuiteError::DuplicateId {
                        id: s.id.clone(),
                        first: f.location(),
                        second: s.location(),
                    });
                }
            }
        }
    }
}

enum Found {
    Native {
        path: PathBuf,
        rel_dir: PathBuf,
    },
    /// A Mneme folder, and its path from the root (each component a folder
    /// the walk listed, not a symlink).
    Mneme {
        dir: PathBuf,
        rel: PathBuf,
    },
}

impl Found {
    fn sort_key(&self) -> &Path {
        match self {
            Found::Native { path, .. } => path,
            Found::Mneme { dir, .. } => dir,
        }
    }
}

fn is_yaml(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("yaml") | Some("yml"))
}

/// Whether `path` names something that is not a folder (a file, a symlink
/// to one, a FIFO, ...): reading it says whether it may be read.
fn names_a_file(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_dir())
}

/// Collects suite files and Mneme folders below `dir`. Hidden entries (a
/// name starting with `.`) are skipped; a Mneme folder is a leaf; symlinked
/// folders are not followed (no cycles, and never outside the root). A
/// `.yaml` entry that is a symlink or a special file is collected: reading
/// it refuses it if it leads outside the root or is not a regular file.
fn walk(dir: &Path, rel: &Path, found: &mut Vec<Found>, errors: &mut Vec<SuiteError>) {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(SuiteError::Io { path: dir.to_path_buf(), message: format!("cannot list the folder: {e}") });
            return;
        }
    };
    let mut names: Vec<_> = entries.filter_map(|e| e.ok()).collect();
    names.sort_by_key(|e| e.file_name());
    for entry in names {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(ftype) = entry.file_type() else {
            continue;
        };
        if ftype.is_dir() {
            let sub_rel = rel.join(&name);
            if names_a_file(&path.join("scenario.json")) {
                found.push(Found::Mneme { dir: path, rel: sub_rel });
            } else {
                walk(&path, &sub_rel, found, errors);
            }
        } else if is_yaml(&path) && names_a_file(&path) {
            found.push(Found::Native { path, rel_dir: rel.to_path_buf() });
        }
    }
}

/// Resolves `.` and `..` without touching the file system.
fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::{ResponseFormat, ResponseRef, SuiteFormat};

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suites")
    }

    #[test]
    fn loads_the_mneme_sample() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme/benchmarks");
        let suite = Suite::load(&[&root]).expect("loads");
        assert_eq!(suite.scenarios.len(), 7);
        let ids: Vec<_> = suite.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "feature_boundary_violation",
                "framework_abstraction_violation",
                "infra_scope_creep_violation",
                "openai_provider_violation",
                "pydantic_dependency_creep",
                "retrieval_complexity_violation",
                "storage_backend_violation",
            ]
        );
        let s = suite.get("storage_backend_violation").unwrap();
        assert_eq!(s.format, SuiteFormat::Mneme);
        assert_eq!(s.category, "architecture");
        assert_eq!(s.task, "We need better scalability for project memory storage. Should we migrate to Postgres?");
        assert_eq!(s.expect, vec!["mneme_storage_json"]);
        assert_eq!((s.line, s.column), (1, 1));
        assert!(s.source.ends_with("storage_backend_violation/scenario.json"));
        assert_eq!(s.assertions.len(), 5);
        assert!(s.assertions.iter().all(|a| a.valid().is_some()));
        assert!(
            matches!(&s.control, Some(ResponseRef::Resolved { format: ResponseFormat::Structured, declared, .. }) if declared == "without_mneme.json")
        );
        assert_eq!(s.expected_failure_terms.len(), 4);
        assert!(suite.warnings.is_empty(), "{:?}", suite.warnings);
        // A single Mneme folder, or its scenario.json, is a root too.
        let single = Suite::load(&[root.join("openai_provider_violation")]).unwrap();
        assert_eq!(single.scenarios[0].id, "openai_provider_violation");
        let file = Suite::load(&[root.join("openai_provider_violation/scenario.json")]).unwrap();
        assert_eq!(file.scenarios[0].id, "openai_provider_violation");
    }

    /// A Mneme folder the walk finds is known without resolving it: the
    /// canonical root joined with the names the walk listed is what
    /// resolving the folder gives, for a root reached through a symlink, a
    /// nested folder and a name with a space; a symlinked folder is not
    /// walked into.
    #[cfg(unix)]
    #[test]
    fn a_walked_mneme_folder_is_the_canonical_root_joined_with_its_names() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        for dir in ["a/one", "a/b c/two", "d/three"] {
            fs::create_dir_all(real.join(dir)).unwrap();
            fs::write(real.join(dir).join("scenario.json"), "{}").unwrap();
        }
        std::os::unix::fs::symlink(real.join("d"), real.join("a/linked")).unwrap();
        let root = tmp.path().join("root");
        std::os::unix::fs::symlink(&real, &root).unwrap();
        let canonical = canonical_root(&root).unwrap();
        let mut found = Vec::new();
        walk(&root, Path::new(""), &mut found, &mut Vec::new());
        let mut walked = Vec::new();
        for item in &found {
            let Found::Mneme { dir, rel } = item else { panic!("only Mneme folders here") };
            let folder = super::super::root::Folder::walked(&canonical, rel);
            assert_eq!(folder.canonical(), fs::canonicalize(dir).unwrap(), "{}", dir.display());
            walked.push(rel.clone());
        }
        let want: Vec<PathBuf> = ["a/b c/two", "a/one", "d/three"].iter().map(PathBuf::from).collect();
        assert_eq!(walked, want, "the symlinked folder a/linked is not walked");
        let at_root = super::super::root::Folder::walked(&canonical, Path::new(""));
        assert_eq!(at_root.canonical(), canonical);
    }

    #[test]
    fn loads_the_broken_suite_without_load_errors() {
        let suite = Suite::load(&[fixtures().join("broken")])
            .unwrap_or_else(|e| panic!("{}", e.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")));
        assert!(suite.scenarios.len() >= 20);
        // Mneme folders and YAML files are mixed, in sorted path order.
        assert!(suite.scenarios.iter().any(|s| s.format == SuiteFormat::Mneme));
        let first = &suite.scenarios[0];
        assert!(first.source.ends_with("broken/malformed.yaml"));
        assert_eq!((first.line, first.column), (4, 5));
    }

    fn load_errors(name: &str) -> Vec<SuiteError> {
        Suite::load(&[fixtures().join(name)]).expect_err("must not load")
    }

    #[test]
    fn load_error_fixtures() {
        let dup = load_errors("duplicate-id");
        assert_eq!(dup.len(), 1, "{dup:?}");
        let msg = dup[0].to_string();
        assert!(msg.contains("b.yaml:5:5: duplicate scenario id `refund-ledger`"), "{msg}");
        assert!(msg.contains("a.yaml:2"), "{msg}");

        let esc = load_errors("escape-root");
        assert_eq!(esc.len(), 2, "{esc:?}");
        assert!(esc.iter().all(|e| matches!(e, SuiteError::PathOutsideRoot { .. })));

        let syn = load_errors("syntax-error");
        assert!(matches!(syn[0], SuiteError::Syntax { .. }), "{syn:?}");
        assert!(syn[0].line().unwrap() > 1);

        let unk = load_errors("unknown-key");
        assert!(unk.iter().any(|e| matches!(e, SuiteError::UnknownKey { key, .. } if key == "expcet")), "{unk:?}");

        let task = load_errors("missing-task");
        assert!(
            task.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "task")),
            "{task:?}"
        );
        assert!(task.iter().any(|e| matches!(e, SuiteError::MissingField { field, .. } if field == "id")), "{task:?}");

        let wrong = load_errors("wrong-type");
        assert!(wrong.iter().all(|e| matches!(e, SuiteError::WrongType { .. })), "{wrong:?}");
    }

    #[test]
    fn ids_are_unique_across_roots() {
        let a = fixtures().join("duplicate-id/a.yaml");
        let b = fixtures().join("duplicate-id/b.yaml");
        let e = Suite::load(&[&a, &b]).unwrap_err();
        assert!(matches!(&e[0], SuiteError::DuplicateId { id, .. } if id == "refund-ledger"));
        // One file loaded through two overlapping roots says so.
        let e = Suite::load(&[fixtures().join("duplicate-id"), a.clone()]).unwrap_err();
        assert!(e.iter().any(|e| matches!(e, SuiteError::OverlappingRoots { .. })), "{e:?}");
        // The same root twice is loaded once.
        let ok = Suite::load(&[&a, &a]).unwrap();
        assert_eq!(ok.warnings.len(), 1);
    }

    #[test]
    fn missing_or_empty_roots_are_errors() {
        let e = Suite::load(&[fixtures().join("does-not-exist")]).unwrap_err();
        assert!(matches!(e[0], SuiteError::Io { .. }));
        let dir = tempfile::tempdir().unwrap();
        let e = Suite::load(&[dir.path()]).unwrap_err();
        assert!(matches!(e[0], SuiteError::NoScenarios { .. }));
    }

    #[test]
    fn walking_is_recursive_sorted_and_skips_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join("b/c")).unwrap();
        fs::create_dir_all(p.join(".hidden")).unwrap();
        let suite = |id: &str| format!("scenarios:\n  - id: {id}\n    task: t\n");
        fs::write(p.join("z.yml"), suite("z")).unwrap();
        fs::write(p.join("b/c/deep.yaml"), suite("deep")).unwrap();
        fs::write(p.join("b.yaml"), suite("b-file")).unwrap();
        fs::write(p.join("a.yaml"), suite("a")).unwrap();
        fs::write(p.join(".hidden/h.yaml"), suite("h")).unwrap();
        fs::write(p.join("notes.txt"), "ignored").unwrap();
        let s = Suite::load(&[p]).unwrap();
        let ids: Vec<_> = s.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "deep", "b-file", "z"]);
        // A response path in a nested file resolves against its own folder.
        fs::write(
            p.join("b/c/deep.yaml"),
            "scenarios:\n  - id: deep\n    task: t\n    responses: { governed: ../../r.json }\n",
        )
        .unwrap();
        let s = Suite::load(&[p]).unwrap();
        let deep = s.get("deep").unwrap();
        assert!(matches!(&deep.governed, Some(ResponseRef::Resolved { path, .. }) if *path == p.join("r.json")));
        assert_eq!(deep.suite_root, p);
    }

    #[test]
    fn errors_serialise_and_display_on_one_line() {
        for name in ["duplicate-id", "escape-root", "syntax-error", "unknown-key", "missing-task", "wrong-type"] {
            for e in load_errors(name) {
                let text = e.to_string();
                assert!(!text.contains('\n'), "{text}");
                assert!(serde_json::to_string(&e).is_ok());
            }
        }
    }

    #[test]
    fn files_are_read_within_the_limits_given() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join("m")).unwrap();
        let yaml = "scenarios:\n  - id: a\n    task: t\n    responses: { governed: r.txt }\n";
        fs::write(p.join("s.yaml"), yaml).unwrap();
        fs::write(p.join("r.txt"), "0123456789").unwrap();
        fs::write(p.join("m/scenario.json"), "{}").unwrap();
        fs::write(p.join("m/query.txt"), "a task of 23 characters").unwrap();
        // Responses: checked when loaded, with the cap carried along.
        let limits = SuiteLimits { max_response_bytes: 9, ..SuiteLimits::default() };
        let s = Suite::load_with(&[p], &limits).unwrap();
        match &s.get("a").unwrap().governed {
            Some(ResponseRef::Unusable { reason, .. }) => assert_eq!(
                reason,
                "`r.txt` is 10 bytes, larger than the limit (9 bytes); shorten it, or raise `limits.max_response_bytes` in mneme-gate.yaml \
                 if a response this large is intended (docs/scenarios.md, Limits)"
            ),
            other => panic!("{other:?}"),
        }
        let s = Suite::load_with(&[p], &SuiteLimits { max_response_bytes: 10, ..limits }).unwrap();
        assert!(
            matches!(&s.get("a").unwrap().governed, Some(ResponseRef::Resolved { max_bytes: 10, canonical_root, .. }) if *canonical_root == fs::canonicalize(p).unwrap())
        );
        // Suite files, scenario.json and query.txt: a load error.
        let limits = SuiteLimits { max_suite_file_bytes: 20, ..SuiteLimits::default() };
        let e = Suite::load_with(&[p], &limits).unwrap_err();
        let messages: Vec<String> = e.iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert_eq!(
            messages[0],
            format!(
                "{}: query.txt is 23 bytes, larger than the limit (20 bytes); split it into smaller files, or raise \
                 `limits.max_suite_file_bytes` in mneme-gate.yaml if a file this large is intended (docs/scenarios.md, Limits)",
                p.join("m/query.txt").display()
            )
        );
        let want = format!("s.yaml: the suite file is {} bytes, larger than the limit (20 bytes)", yaml.len());
        assert!(messages[1].contains(&want), "{messages:?}");
        assert!(e.iter().all(|e| matches!(e, SuiteError::Refused { .. })));
        // `Suite::load` keeps the defaults; YAML limits alone convert.
        assert!(Suite::load(&[p]).is_ok());
        assert!(Suite::load_with(&[p], &SuiteLimits::from(crate::scenarios::YamlLimits::default())).is_ok());
    }

    #[test]
    fn lexical_normalisation() {
        assert_eq!(normalize_lexically(Path::new("./a/../b/.")), PathBuf::from("b"));
    }
}
