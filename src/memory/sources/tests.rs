use super::*;

#[test]
fn specs_name_a_kind_or_a_json_file() {
    assert_eq!(DecisionSource::parse_spec(Path::new("adr:docs/adr")), DecisionSource::new(SourceKind::Adr, "docs/adr"));
    assert_eq!(DecisionSource::parse_spec(Path::new("claude:")), DecisionSource::new(SourceKind::Claude, "."));
    assert_eq!(DecisionSource::parse_spec(Path::new("m.json")), DecisionSource::new(SourceKind::Json, "m.json"));
    assert_eq!(DecisionSource::parse_spec(Path::new("C:/m.json")), DecisionSource::new(SourceKind::Json, "C:/m.json"));
    assert_eq!(
        DecisionSource::parse_spec(Path::new("json:a:b.json")),
        DecisionSource::new(SourceKind::Json, "a:b.json")
    );
    assert_eq!(DecisionSource::new(SourceKind::Cursor, "./.cursor/rules/").label(), "cursor:.cursor/rules");
    assert_eq!(DecisionSource::new(SourceKind::Claude, "/").label(), "claude:/");
    assert_eq!(slug("Run it — now!"), "run-it-now");
    assert_eq!(slug("¿?"), "section");
    assert!(slug(&"x".repeat(100)).len() <= 64);
    assert!(is_anti_heading("don'ts"));
    assert!(is_anti_heading("what not to do"));
    assert!(is_anti_heading("anti patterns"));
    assert!(is_anti_heading("forbidden"));
    assert!(!is_anti_heading("decision outcome"));
}
