/*!
Mneme benchmark folders: a folder holding `scenario.json`, `query.txt` and
the `without_mneme` / `with_mneme` responses (scenarios.md §2), read as Mneme
writes them so that its benchmarks run unchanged.

Keys that mneme-gate does not use are warnings, not errors, and the id falls
back to the folder name, as in Mneme. Under profile `mneme` a folder is read
as Mneme 0.10.0 reads it: `scenario_type` and
`expected_exposed_decision_ids` are read, assertions are Mneme's two types,
a `.json` answer is read leniently as Mneme does, and
`expected_failure_terms` is not read (Mneme judges a text side with its
prompt enforcer, see `crate::verdict`). It does not walk folders (`load` does)
and never opens a response file: it only picks `.json` over `.txt`, and
checks the one picked without opening it (inside the suite root, a regular
file, not too large). Every file of the folder is read inside the suite
root. JSON types and serde_json's errors are worded by `crate::describe`.
*/

use std::fs;
use std::path::Path;
use std::sync::Arc;

use crate::describe::{json_error, json_type};
use crate::profile::Family;

use super::assertions::{assertion_spec, Assertion, AssertionKind, AssertionSpec, Matcher, ParsedAssertion, Severity};
use super::error::SuiteError;
use super::node::Node;
use super::read::{SuiteRoot, Unreadable};
use super::root::{Folder, Probe};
use super::scenario::{
    LoadedRoot, ReadDigest, ResponseFormat, ResponseRef, Scenario, ScenarioType, SuiteFormat, DEFAULT_CATEGORY,
};

/// scenario.json keys of Mneme's enforcement-quality benchmark, which only
/// profile `mneme` reads (profile `default` ignores them with a warning).
const MNEME_IGNORED_KEYS: &[&str] = &["scenario_type", "expected_exposed_decision_ids"];

const MNEME_KEYS: &[&str] = &[
    "name",
    "category",
    "description",
    "expected_protected_decision_ids",
    "acceptable_decision_ids",
    "expected_failure_terms",
    "assertions",
];

/// Loads the Mneme benchmark folder `dir` (which holds `scenario.json`):
/// `rel`, its path from the suite root as the walk found it (empty: the
/// root itself), or `None` when its `scenario.json` is the root itself, as
/// given (it may be a symlink anywhere, as a root folder may).
pub(super) fn load_mneme_dir(
    dir: &Path,
    root: &SuiteRoot<'_>,
    rel: Option<&Path>,
    out: &mut LoadedRoot,
    errors: &mut Vec<SuiteError>,
) {
    let json_path = dir.join("scenario.json");
    // The folder is known without resolving it (the walk followed no
    // symlink to it), for its four files and the verdict's reads of its
    // responses; a root the user named as its `scenario.json` may be a
    // symlink anywhere, and is read by itself.
    let folder = rel.map(|rel| Arc::new(Folder::walked(root.canonical, rel)));
    let named = rel.is_none();
    let text = match if named {
        root.read_text(&json_path, true)
    } else {
        root.read_text_in(folder.as_deref(), dir, "scenario.json")
    } {
        Ok(t) => t,
        Err(e) => {
            errors.push(e.into_error(&json_path, "scenario.json"));
            return;
        }
    };
    let folder_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| fs::canonicalize(dir).ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())))
        .unwrap_or_default();
    let query = match root.read_text_in(folder.as_deref(), dir, "query.txt") {
        Ok(q) => Some(q),
        Err(Unreadable::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            errors.push(e.into_error(&dir.join("query.txt"), "query.txt"));
            return;
        }
    };
    // Hashed here, for the suite's fingerprint, while the bytes are at hand.
    let query_digest = query.as_deref().map(crate::digest::sha256_hex);
    let (scenario, mut errs, warnings) = parse_mneme(&text, &json_path, &folder_name, query, root, folder.as_ref());
    errors.append(&mut errs);
    out.warnings.extend(warnings);
    if let Some(mut s) = scenario {
        s.read.push((json_path, ReadDigest::of(crate::digest::sha256_hex(&text))));
        if let Some(digest) = query_digest {
            s.read.push((dir.join("query.txt"), ReadDigest::of(digest)));
        }
        out.scenarios.push(s);
    }
}

/// Parses a Mneme `scenario.json` (its text and path), with the folder name
/// (the id when `name` is absent) and the content of `query.txt` (`None`
/// when the file is missing). Response files are looked up beside
/// `scenario.json`: `.json` preferred over `.txt`, through `folder` (the
/// folder resolved once) when it can vouch for them. Returns the scenario (if
/// valid), the errors and the warnings.
fn parse_mneme(
    text: &str,
    json_path: &Path,
    folder_name: &str,
    query: Option<String>,
    root: &SuiteRoot<'_>,
    folder: Option<&Arc<Folder>>,
) -> (Option<Scenario>, Vec<SuiteError>, Vec<String>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            errors.push(SuiteError::Syntax {
                path: json_path.to_path_buf(),
                line: e.line().max(1),
                column: e.column().max(1),
                message: json_error(&e),
            });
            return (None, errors, warnings);
        }
    };
    let Some(obj) = value.as_object() else {
        errors.push(SuiteError::WrongType {
            path: json_path.to_path_buf(),
            line: 1,
            column: 1,
            field: "scenario.json".to_string(),
            expected: "an object".to_string(),
            found: found(&value),
        });
        return (None, errors, warnings);
    };
    let key_at = |key: &str| json_key_position(text, key).unwrap_or((1, 1));
    let mut wrong = |key: &str, expected: &str, v: &serde_json::Value| {
        let (line, column) = key_at(key);
        errors.push(SuiteError::WrongType {
            path: json_path.to_path_buf(),
            line,
            column,
            field: key.to_string(),
            expected: expected.to_string(),
            found: found(v),
        });
    };
    let mut get_string = |key: &str| -> Option<String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => {
                wrong(key, "a string", other);
                None
            }
        }
    };
    let name = get_string("name");
    let category = get_string("category");
    let description = get_string("description");
    let mut get_list = |key: &str| -> Vec<String> {
        match obj.get(key) {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::Array(items)) if items.iter().all(serde_json::Value::is_string) => {
                items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()
            }
            Some(other) => {
                wrong(key, "a list of strings", other);
                Vec::new()
            }
        }
    };
    let expect = get_list("expected_protected_decision_ids");
    let acceptable = get_list("acceptable_decision_ids");
    let mneme = root.family == Family::Mneme;
    // Profile mneme judges a text side as Mneme does, without these terms
    // (Mneme never reads them).
    let failure_terms = if mneme { Vec::new() } else { get_list("expected_failure_terms") };
    let assertions = match obj.get("assertions") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(items)) if mneme => mneme_assertions(items),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, a)| assertion_spec(i + 1, &Node::from_json(a), &root.shared.patterns))
            .collect(),
        Some(other) => vec![AssertionSpec {
            index: 1,
            line: None,
            column: None,
            parsed: ParsedAssertion::Invalid {
                reason: format!("scenario.json `assertions` must be a list, found {}", found(other)),
            },
        }],
    };
    let mut problems = Vec::new();
    let (scenario_type, exposed) = if mneme { quality_keys(obj, &mut problems) } else { Default::default() };
    for key in obj.keys() {
        if MNEME_KEYS.contains(&key.as_str()) || (mneme && MNEME_IGNORED_KEYS.contains(&key.as_str())) {
            continue;
        }
        let what = if MNEME_IGNORED_KEYS.contains(&key.as_str()) {
            "is not supported by mneme-gate and was ignored"
        } else {
            "is not a Mneme scenario key and was ignored"
        };
        let (line, column) = key_at(key);
        warnings.push(format!("{}:{line}:{column}: `{key}` {what}", json_path.display()));
    }
    let task = query.as_deref().map(str::trim).filter(|q| !q.is_empty()).map(str::to_string);
    let dir = json_path.parent().unwrap_or(Path::new(""));
    if task.is_none() {
        errors.push(SuiteError::MissingField {
            path: dir.join("query.txt"),
            line: 1,
            column: 1,
            field: "query.txt".to_string(),
            hint: "a query.txt beside scenario.json holding the task".to_string(),
        });
    }
    let id = name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| folder_name.to_string());
    if id.trim().is_empty() {
        errors.push(SuiteError::MissingField {
            path: json_path.to_path_buf(),
            line: 1,
            column: 1,
            field: "name".to_string(),
            hint: "`\"name\": \"<scenario id>\"`".to_string(),
        });
    }
    if !errors.is_empty() {
        return (None, errors, warnings);
    }
    // A side is `.json` if that exists (a dangling symlink does not), else
    // `.txt`. A regular file of the resolved folder within the cap is what
    // `SuiteRoot::response` would accept, found with one `lstat`; anything
    // else is looked up and checked by its path.
    let side = |stem: &str| -> Option<ResponseRef> {
        let max_bytes = root.limits.max_response_bytes;
        let json_format = if mneme { ResponseFormat::MnemeStructured } else { ResponseFormat::Structured };
        for (name, format) in
            [(format!("{stem}.json"), json_format), (format!("{stem}.txt"), ResponseFormat::MnemeText)]
        {
            let path = dir.join(&name);
            match folder.map_or(Probe::Unknown, |f| f.probe(&name, max_bytes)) {
                Probe::Usable => return Some(root.usable_response(name, path, format, folder.cloned())),
                Probe::Absent => continue,
                Probe::Unknown if path.exists() => return Some(root.response(name, path, format)),
                Probe::Unknown => continue,
            }
        }
        None
    };
    let scenario = Scenario {
        id,
        category: category.filter(|c| !c.trim().is_empty()).unwrap_or_else(|| DEFAULT_CATEGORY.to_string()),
        description: description.unwrap_or_default(),
        task: task.unwrap_or_default(),
        file: None,
        expect,
        acceptable,
        control: side("without_mneme"),
        governed: side("with_mneme"),
        assertions,
        expected_failure_terms: failure_terms,
        scenario_type,
        exposed,
        problems,
        commit: None,
        review: Default::default(),
        source: json_path.to_path_buf(),
        line: 1,
        column: 1,
        suite_root: root.path.to_path_buf(),
        format: SuiteFormat::Mneme,
        read: Vec::new(),
    };
    (Some(scenario), errors, warnings)
}

/// Mneme's assertions (profile `mneme`): objects whose `type` is
/// `forbidden_dependency` or `forbidden_path_pattern` and whose `value` is a
/// non-empty string, other keys ignored. Like Mneme, the first entry that is
/// not one makes the scenario MALFORMED, with that entry's reason.
fn mneme_assertions(items: &[serde_json::Value]) -> Vec<AssertionSpec> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let spec = |parsed| AssertionSpec { index: i + 1, line: None, column: None, parsed };
        let reason = match item {
            serde_json::Value::Object(map) => {
                let kind = match map.get("type").and_then(serde_json::Value::as_str) {
                    Some("forbidden_dependency") => Some(AssertionKind::ForbiddenDependency),
                    Some("forbidden_path_pattern") => Some(AssertionKind::ForbiddenPath),
                    _ => None,
                };
                match (kind, map.get("value")) {
                    (None, _) => {
                        let found = map.get("type").map_or_else(|| "none".to_string(), found);
                        format!(
                            "scenario.json assertions[{i}]: unknown assertion type ({found}); Mneme 0.10.0 knows \
                             forbidden_dependency and forbidden_path_pattern"
                        )
                    }
                    (Some(kind), Some(serde_json::Value::String(v))) if !v.is_empty() => {
                        let matcher = Matcher::Substring(v.clone());
                        out.push(spec(ParsedAssertion::Valid(Assertion { kind, matcher, severity: Severity::Hard })));
                        continue;
                    }
                    (Some(_), _) => format!("scenario.json assertions[{i}]: `value` must be a non-empty string"),
                }
            }
            other => format!("scenario.json assertions[{i}] must be an object, found {}", found(other)),
        };
        return vec![spec(ParsedAssertion::Invalid { reason })];
    }
    out
}

/// Mneme's enforcement-quality keys (profile `mneme`): `scenario_type`
/// (`violation` when absent or `null`, or `benign`; anything else makes the
/// scenario MALFORMED and leaves it a violation scenario, as in Mneme) and
/// `expected_exposed_decision_ids` (a list of strings).
fn quality_keys(
    obj: &serde_json::Map<String, serde_json::Value>,
    problems: &mut Vec<String>,
) -> (ScenarioType, Vec<String>) {
    let scenario_type = match obj.get("scenario_type") {
        None | Some(serde_json::Value::Null) => ScenarioType::Violation,
        Some(serde_json::Value::String(t)) if t == "violation" => ScenarioType::Violation,
        Some(serde_json::Value::String(t)) if t == "benign" => ScenarioType::Benign,
        Some(other) => {
            problems.push(format!(
                "scenario.json `scenario_type` must be \"violation\" or \"benign\", found {}",
                match other {
                    serde_json::Value::String(t) => format!("{t:?}"),
                    other => found(other),
                }
            ));
            ScenarioType::Violation
        }
    };
    let exposed = match obj.get("expected_exposed_decision_ids") {
        None | Some(serde_json::Value::Null) => Vec::new(),
        Some(serde_json::Value::Array(items)) if items.iter().all(serde_json::Value::is_string) => {
            items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect()
        }
        Some(_) => {
            problems.push("scenario.json `expected_exposed_decision_ids` must be a list of strings".to_string());
            Vec::new()
        }
    };
    (scenario_type, exposed)
}

/// What a wrong value is, for "found ...": a boolean or a number is quoted,
/// as the YAML side quotes it ("the number `3`"), anything else is named
/// by [`json_type`].
fn found(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Bool(b) => format!("the boolean `{b}`"),
        serde_json::Value::Number(n) => format!("the number `{n}`"),
        other => json_type(other).to_string(),
    }
}

/// Where `"key":` first appears in the JSON text (1-based line, column of
/// the opening quote): good enough to point at a top-level key.
fn json_key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let needle = format!("\"{key}\"");
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let at = from + i;
        let after = text[at + needle.len()..].trim_start();
        if after.starts_with(':') {
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |p| p + 1);
            let column = text[line_start..at].chars().count() + 1;
            return Some((line, column));
        }
        from = at + needle.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mneme_json_parsing() {
        let text = "{\n  \"name\": \"x\",\n  \"expected_protected_decision_ids\": \"anti-1\",\n  \"scenario_type\": \"benign\"\n}";
        let (s, e, w) =
            parse_mneme(text, Path::new("b/x/scenario.json"), "x", Some("q".into()), &SuiteRoot::for_tests("b"), None);
        assert!(s.is_none());
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].to_string(),
            "b/x/scenario.json:3:3: `expected_protected_decision_ids` must be a list of strings, found a string"
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("scenario_type"));
        let (_, e, _) =
            parse_mneme("{\"name\": }", Path::new("s.json"), "x", Some("q".into()), &SuiteRoot::for_tests("."), None);
        assert!(matches!(e[0], SuiteError::Syntax { line: 1, column: 10, .. }), "{e:?}");
        let (_, e, _) = parse_mneme("{}", Path::new("d/scenario.json"), "d", None, &SuiteRoot::for_tests("."), None);
        assert!(matches!(&e[0], SuiteError::MissingField { field, .. } if field == "query.txt"));
        let (s, _, _) = parse_mneme(
            "{\"assertions\": {}}",
            Path::new("d/scenario.json"),
            "d",
            Some("q".into()),
            &SuiteRoot::for_tests("."),
            None,
        );
        let s = s.unwrap();
        assert_eq!(s.id, "d");
        assert!(
            matches!(&s.assertions[0].parsed, ParsedAssertion::Invalid { reason } if reason.contains("must be a list"))
        );
    }

    #[test]
    fn wrong_values_are_named_as_the_yaml_side_names_them() {
        let load = |text: &str| {
            parse_mneme(text, Path::new("s.json"), "x", Some("q".into()), &SuiteRoot::for_tests("."), None)
        };
        let (_, e, _) = load("{\"name\": true, \"category\": 2.5, \"description\": [\"d\"]}");
        let found: Vec<_> = e
            .iter()
            .map(|e| match e {
                SuiteError::WrongType { found, .. } => found.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(found, ["the boolean `true`", "the number `2.5`", "a list"]);
        let (_, e, _) = load("null");
        assert_eq!(e[0].to_string(), "s.json:1:1: `scenario.json` must be an object, found null");
        let (s, _, _) = load("{\"assertions\": 7}");
        assert!(
            matches!(&s.unwrap().assertions[0].parsed, ParsedAssertion::Invalid { reason } if reason.ends_with("found the number `7`"))
        );
        let (_, e, _) = load("{\"name\": \"a\"} x");
        assert_eq!(e[0].to_string(), "s.json:1:15: syntax error: trailing characters; fix the file and load it again");
    }

    #[test]
    fn profile_mneme_reads_mnemes_enforcement_quality_keys() {
        let mut root = SuiteRoot::for_tests(".");
        root.family = Family::Mneme;
        let load = |text: &str| parse_mneme(text, Path::new("d/scenario.json"), "d", Some("q".into()), &root, None);
        let (s, e, w) = load(
            r#"{"scenario_type": "benign", "expected_exposed_decision_ids": ["A"], "expected_failure_terms": 3,
               "assertions": [{"type": "forbidden_dependency", "value": "crewai", "severity": "soft"}]}"#,
        );
        let s = s.unwrap();
        assert!(e.is_empty() && w.is_empty(), "{e:?} {w:?}");
        assert_eq!(
            (s.scenario_type, s.exposed.as_slice(), s.problems.len()),
            (ScenarioType::Benign, &["A".to_string()][..], 0)
        );
        let a = s.assertions[0].valid().unwrap();
        assert_eq!((a.kind, a.severity), (AssertionKind::ForbiddenDependency, Severity::Hard));
        let (s, _, _) = load(r#"{"scenario_type": "bening", "expected_exposed_decision_ids": "A"}"#);
        let s = s.unwrap();
        assert_eq!(s.scenario_type, ScenarioType::Violation);
        assert_eq!(s.problems.len(), 2, "{:?}", s.problems);
        let (s, _, _) = load(r#"{"scenario_type": null, "assertions": [{"type": "forbidden_text", "value": "x"}]}"#);
        let s = s.unwrap();
        assert!(s.problems.is_empty());
        assert!(
            matches!(&s.assertions[0].parsed, ParsedAssertion::Invalid { reason } if reason.contains("unknown assertion type"))
        );
        // Profile default keeps today's rules: the keys are ignored, with a warning.
        let (s, _, w) = parse_mneme(
            r#"{"scenario_type": "benign"}"#,
            Path::new("d/scenario.json"),
            "d",
            Some("q".into()),
            &SuiteRoot::for_tests("."),
            None,
        );
        assert_eq!(s.unwrap().scenario_type, ScenarioType::Violation);
        assert!(w[0].contains("not supported by mneme-gate"), "{w:?}");
    }
}
