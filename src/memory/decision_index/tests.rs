//! The expected digests and canonical texts below are what Mneme 0.10.0's
//! own functions (`_canonical_json`, `content_digest_of`, `version_id_of`,
//! `rule_id_of`) return for the same values, in Python 3.11.

use super::canonical::{canonical, python_float_repr, sha256_hex, strs, J};
use super::paths::resolve;
use super::snapshot::{python_path_name, row_source_path};
use super::*;
use crate::memory::located_json;
use crate::memory::located_json::Value;
use std::path::PathBuf;

fn node(json: &str) -> Node {
    let parsed = located_json::parse(json);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    parsed.root.unwrap()
}

#[test]
fn canonical_json_is_pythons() {
    let value = node(
        r#"["a\u00e9\ud83d\ude00\u007f\n\"\\/", 1, -0, 1.0, 1e16, 1.5e-5, 0.0001, 123456789012345678901234, -2.5e300, 1e22, true, null, {"b": 1, "a": [1, 2.50], "b": 1}]"#,
    );
    assert_eq!(
        canonical(&J::Node(&value)),
        r#"["a\u00e9\ud83d\ude00\u007f\n\"\\/",1,0,1.0,1e+16,1.5e-05,0.0001,123456789012345678901234,-2.5e+300,1e+22,true,null,{"a":[1,2.5],"b":1}]"#
    );
    assert_eq!(python_float_repr(100.0), "100.0");
    assert_eq!(python_float_repr(1e15), "1000000000000000.0");
    assert_eq!(python_float_repr(-0.0), "-0.0");
    assert_eq!(python_float_repr(f64::INFINITY), "Infinity");
}

#[test]
fn identities_are_mnemes() {
    let strs = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let (scope, constraints) = (strs(&["storage"]), strs(&["no postgres"]));
    let digest = sha256_hex(&J::List(vec![
        J::Str("Use JSON"),
        J::Str("why"),
        strs_of(&scope),
        strs_of(&constraints),
        J::List(vec![]),
    ]));
    assert_eq!(digest, "7f25391ced2593464c705821453034f7fd5520f7e683cd785f5bc67a61849399");
    let occurrence = node(r#"["legacy-decisions", "D1", 3, 2.0]"#);
    let id = sha256_hex(&J::List(vec![J::Str("D1"), J::Str("abc"), J::Node(&occurrence), J::Str("-")]));
    assert_eq!(format!("dver-{}", &id[..32]), "dver-4036e8a3ebddede145f0a8bfa9bb3ed4");
    let applicability = node(r#"{"include_paths": ["src/**"]}"#);
    let rule = sha256_hex(&J::List(vec![J::Str("psycopg2"), J::Node(&applicability)]));
    assert_eq!(&rule[..32], "3ea67da76a680613a6be43c14a9d8115");
}

fn strs_of(items: &[String]) -> J<'_> {
    strs(items)
}

fn migrated() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme/migrated/project_memory.json"),
    )
    .unwrap()
}

fn check_text(text: &str) -> Checked<()> {
    let root = node(text);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/mneme/migrated/project_memory.json");
    check(root.get("decision_index").unwrap(), root.get("decisions"), &path)
}

#[test]
fn what_mneme_wrote_is_accepted_and_each_edit_is_refused() {
    let text = migrated();
    assert_eq!(check_text(&text), Ok(()));
    let refused = [
        ("\"schema\": \"mneme.decision-index/v1\"", "\"schema\": \"v2\"", "`schema` must be"),
        (
            "\"statement\": \"Use JSON storage only\"",
            "\"statement\": \"Use YAML\"",
            "content_digest that does not match",
        ),
        ("\"lifecycle_status\": \"active\"", "\"lifecycle_status\": \"retired\"", "invalid lifecycle_status"),
        ("\"decision_class\": \"architecture\"", "\"decision_class\": \"product\"", "unsupported decision_class"),
        ("\"no ORM\"", "\"no ORMs\"", "diverges from the decision_index"),
    ];
    for (from, to, why) in refused {
        assert!(text.contains(from), "{from}");
        let edited = text.replacen(from, to, 1);
        let e = check_text(&edited).unwrap_err();
        assert!(e.message.contains(why) && e.message.contains("Mneme 0.10.0 refuses"), "{from}: {}", e.message);
    }
    // One decision record fewer than the index projects.
    let root = node(&text);
    let rows = match &root.get("decisions").unwrap().value {
        Value::Array(rows) => rows.len(),
        _ => unreachable!(),
    };
    let short = Node { offset: 0, value: Value::Array(Vec::new()) };
    let e = check(root.get("decision_index").unwrap(), Some(&short), Path::new("m.json")).unwrap_err();
    assert!(e.message.contains(&format!("0 record(s), the index {rows} active decision(s)")), "{}", e.message);
}

#[test]
fn an_adr_source_resolves_against_the_memory_folder() {
    let row =
        node(r#"{"id": "ADR-7", "decision": "x", "source": {"type": "adr", "path": "docs/adr/ADR-7-use-json.md"}}"#);
    let path = row_source_path(&row, "ADR-7", Path::new("/repo/.mneme/project_memory.json"));
    assert_eq!(path, "/repo/.mneme/docs/adr/ADR-7-use-json.md");
    let other = node(r#"{"id": "ADR-7", "decision": "x", "source": {"type": "adr", "path": "docs/adr/ADR-8.md"}}"#);
    assert_eq!(row_source_path(&other, "ADR-7", Path::new("/repo/m.json")), "");
    assert_eq!(python_path_name("a/b/"), "b");
    assert_eq!(python_path_name("a/./"), "a");
    assert_eq!(resolve(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
}
