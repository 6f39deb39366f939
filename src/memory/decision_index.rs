/*!
A persisted `decision_index` (Mneme 0.10.0's canonical decision store, schema
`mneme.decision-index/v1`), read under profile `mneme` only.

When a memory file has a top-level `decision_index`, Mneme 0.10.0 takes its
decisions from it: it validates the section (every identity and digest
recomputed), projects the active decisions, and refuses the file unless
`decisions[]` holds exactly that projection (`decisions[]` is then a
compatibility snapshot). It no longer migrates `items[]`. This module does
the validation, the projection and the comparison, with Mneme's rules and in
Mneme's order, so that profile `mneme` refuses what Mneme refuses and
retrieves from what Mneme retrieves from.

Why a whole module for a section that retrieval never reads: once it has
been verified, `decisions[]` equals the projection field by field, so the
pool is simply the decision records of `decisions[]` (the tolerant loader
reads them as usual). What this module decides is whether the file is
acceptable at all, and it words the first problem, as Mneme stops at the
first. It does no I/O beyond resolving the paths an ADR source names (as
Mneme does), and knows nothing of pools, tokens or scores.

The identities are SHA-256 digests of Python's `json.dumps(..., sort_keys=True,
separators=(",", ":"), ensure_ascii=True)`; [`canonical`] writes that form.
*/

use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use super::located_json::{Node, Value};
use super::rules::{python_strip, selector_problem};

/// The schema a `decision_index` section declares.
pub(super) const SCHEMA: &str = "mneme.decision-index/v1";

const LIFECYCLES: [&str; 4] = ["active", "superseded", "deprecated", "inactive"];
const BINDING_AUTHORITIES: [&str; 3] = ["version", "protection", "legacy_unknown"];
const SOURCE_TYPES: [&str; 3] = ["adr", "runtime", "proposal"];
const COMMON_SOURCE_KEYS: [&str; 5] =
    ["source_type", "source_locator", "source_revision", "observed_at", "verification_status"];
const PROPOSAL_SOURCE_KEYS: [&str; 7] = [
    "proposal_id",
    "producer_key",
    "content_fingerprint",
    "origin_classification",
    "proposed_at",
    "source_reference",
    "accepted_decision_id",
];

/// The first problem found, at a byte offset of the memory text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct IndexError {
    pub(super) offset: usize,
    pub(super) message: String,
    /// The decision the problem is about, when it is a record of decisions[].
    pub(super) record: Option<String>,
}

type Checked<T> = Result<T, IndexError>;

fn fail<T>(node: &Node, message: String) -> Checked<T> {
    Err(IndexError { offset: node.offset, message: format!("{message} (Mneme 0.10.0 refuses the file)"), record: None })
}

/// A typed rule as Mneme's runtime holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RuntimeRule {
    kind: String,
    value: String,
    include: Option<Vec<String>>,
    exclude: Vec<String>,
}

/// One active decision, projected from the index the way Mneme projects it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Projected {
    id: String,
    decision: String,
    rationale: String,
    scope: Vec<String>,
    constraints: Vec<String>,
    anti_patterns: Vec<String>,
    created_at: String,
    updated_at: String,
    rules: Vec<RuntimeRule>,
    /// `{"selector": ..., "sha": ...}` entries, `sha` only when not empty.
    test_evidence: Vec<Vec<(String, String)>>,
    source_path: String,
}

/// Checks the file's `decision_index` section and its `decisions[]`
/// snapshot as Mneme 0.10.0 does when it loads the file: `Ok` when Mneme
/// would read it, else the first problem. `decisions` is the top-level
/// `decisions` member, if any; `memory_path` the file (ADR sources resolve
/// against its folder).
pub(super) fn check(section: &Node, decisions: Option<&Node>, memory_path: &Path) -> Checked<()> {
    let projected = project(section, memory_path)?;
    verify_snapshot(section, decisions, &projected, memory_path)
}

// ---------------------------------------------------------------------------
// Values, as Python's `json` module and `isinstance` see them.

fn member<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.get(key)
}

fn is_object(node: &Node) -> bool {
    matches!(node.value, Value::Object(_))
}

/// `_require_str`: a string (not empty when `non_empty`); `None` is a
/// missing member (Python's `None`).
fn require_str<'a>(parent: &Node, node: Option<&'a Node>, label: &str, non_empty: bool) -> Checked<&'a str> {
    match node.map(|n| &n.value) {
        Some(Value::String(s)) if !(non_empty && s.is_empty()) => Ok(s),
        _ => {
            let qualifier = if non_empty { "non-empty " } else { "" };
            fail(node.unwrap_or(parent), format!("decision_index: {label} must be a {qualifier}string"))
        }
    }
}

/// `_require_str(raw.get(key, ""))`: absent is the empty string.
fn str_or_empty<'a>(parent: &'a Node, key: &str, label: &str) -> Checked<&'a str> {
    match member(parent, key) {
        None => Ok(""),
        Some(n) => require_str(parent, Some(n), label, false),
    }
}

fn require_list<'a>(parent: &Node, node: Option<&'a Node>, label: &str) -> Checked<&'a [Node]> {
    match node.map(|n| &n.value) {
        Some(Value::Array(items)) => Ok(items),
        _ => fail(node.unwrap_or(parent), format!("decision_index: {label} must be a list")),
    }
}

fn require_object<'a>(node: &'a Node, label: &str) -> Checked<&'a Node> {
    if is_object(node) {
        Ok(node)
    } else {
        fail(node, format!("decision_index: {label} must be an object"))
    }
}

/// `_str_list(raw.get(key, []))`.
fn str_list(parent: &Node, key: &str, label: &str) -> Checked<Vec<String>> {
    let Some(node) = member(parent, key) else { return Ok(Vec::new()) };
    str_list_of(node, label)
}

fn str_list_of(node: &Node, label: &str) -> Checked<Vec<String>> {
    let Value::Array(items) = &node.value else {
        return fail(node, format!("decision_index: {label} must be a list"));
    };
    items
        .iter()
        .map(|i| match &i.value {
            Value::String(s) => Ok(s.clone()),
            _ => fail(i, format!("decision_index: {label} must contain only strings")),
        })
        .collect()
}

/// A JSON integer (no fraction, no exponent) as Python reads it: its
/// digits without a sign, and whether it is negative. Nothing else.
fn integer(node: &Node) -> Option<(String, bool)> {
    let Value::Number(text) = &node.value else { return None };
    if text.contains(['.', 'e', 'E']) {
        return None;
    }
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.as_str()),
    };
    let digits = digits.trim_start_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    Some((digits.to_string(), negative && digits != "0"))
}

// ---------------------------------------------------------------------------
// Python's canonical JSON and the identities built on it.

/// A value to write canonically: a node of the file, or one built here.
enum J<'a> {
    Node(&'a Node),
    Str(&'a str),
    List(Vec<J<'a>>),
}

fn strs(items: &[String]) -> J<'_> {
    J::List(items.iter().map(|s| J::Str(s)).collect())
}

/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`.
fn canonical(value: &J<'_>) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

fn write_value(value: &J<'_>, out: &mut String) {
    match value {
        J::Str(s) => write_str(s, out),
        J::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        J::Node(node) => write_node(node, out),
    }
}

fn write_node(node: &Node, out: &mut String) {
    match &node.value {
        // A record the reader could not parse: the file has an error already
        // and is refused whatever this compares.
        Value::Null | Value::Unreadable => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(text) => write_number(text, out),
        Value::String(s) => write_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            // A repeated key keeps its last value, as a Python dict does.
            let mut keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(key, out);
                out.push(':');
                write_node(node.get(key).expect("a key of this object"), out);
            }
            out.push('}');
        }
    }
}

/// A string with `ensure_ascii`: everything outside ` `..`~` escaped, code
/// points above U+FFFF as surrogate pairs.
fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// A number as Python reads and writes it: an integer keeps its digits, any
/// other number is a float written as `repr(float)`.
fn write_number(text: &str, out: &mut String) {
    let node = Node { offset: 0, value: Value::Number(text.to_string()) };
    if let Some((digits, negative)) = integer(&node) {
        if negative {
            out.push('-');
        }
        out.push_str(&digits);
        return;
    }
    let x: f64 = text.parse().unwrap_or(f64::NAN);
    out.push_str(&python_float_repr(x));
}

/// `repr(x)` of a Python float: the shortest digits that read back, in
/// fixed notation when the decimal exponent is in -4..16, else scientific
/// with a signed exponent of at least two digits.
fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let sci = format!("{:e}", x.abs());
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` has an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let decpt = exponent + 1;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let n = digits.len() as i32;
    if -4 < decpt && decpt <= 16 {
        let body = if decpt <= 0 {
            format!("0.{}{digits}", "0".repeat((-decpt) as usize))
        } else if decpt >= n {
            format!("{digits}{}.0", "0".repeat((decpt - n) as usize))
        } else {
            format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
        };
        format!("{sign}{body}")
    } else {
        let rest = if n > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let e = decpt - 1;
        let esign = if e < 0 { '-' } else { '+' };
        format!("{sign}{}{rest}e{esign}{:02}", &digits[..1], e.abs())
    }
}

fn sha256_hex(value: &J<'_>) -> String {
    crate::digest::sha256_hex(canonical(value))
}

// ---------------------------------------------------------------------------
// Validation and projection (Mneme's `load_persisted_decision_index` and
// `project_canonical_index`), in Mneme's order: the first problem wins.

struct Version<'a> {
    node: &'a Node,
    id: &'a str,
    decision_id: &'a str,
    revision: &'a str,
    statement: &'a str,
    rationale: &'a str,
    scope: Vec<String>,
    constraints: Vec<String>,
    anti_patterns: Vec<String>,
}

struct Binding<'a> {
    version_id: &'a str,
    /// The sequence as Python compares it: (length, digits).
    sequence: (usize, String),
    rule: RuntimeRule,
}

fn project(section: &Node, memory_path: &Path) -> Checked<Vec<Projected>> {
    let root = require_object(section, "the section")?;
    if member(root, "schema").and_then(Node::as_str) != Some(SCHEMA) {
        return fail(member(root, "schema").unwrap_or(root), format!("decision_index: `schema` must be {SCHEMA:?}"));
    }
    let logical_rows = require_list(root, member(root, "decisions"), "decision_index.decisions")?;
    let version_rows = require_list(root, member(root, "versions"), "decision_index.versions")?;
    let rule_rows = require_list(root, member(root, "rules"), "decision_index.rules")?;

    let mut versions: Vec<Version<'_>> = Vec::with_capacity(version_rows.len());
    for (index, raw) in version_rows.iter().enumerate() {
        require_object(raw, &format!("versions[{index}]"))?;
        let at = |key: &str| format!("versions[{index}].{key}");
        let id = require_str(raw, member(raw, "version_id"), &at("version_id"), true)?;
        if versions.iter().any(|v| v.id == id) {
            return fail(raw, format!("decision_index: duplicate version_id {id:?}"));
        }
        let decision_id = require_str(raw, member(raw, "decision_id"), &at("decision_id"), true)?;
        let revision = require_str(raw, member(raw, "revision"), &at("revision"), true)?;
        let statement = require_str(raw, member(raw, "statement"), &at("statement"), false)?;
        let rationale = str_or_empty(raw, "rationale", &at("rationale"))?;
        let scope = str_list(raw, "context_scope", &at("context_scope"))?;
        let constraints = str_list(raw, "constraints", &at("constraints"))?;
        let anti_patterns = str_list(raw, "anti_patterns", &at("anti_patterns"))?;
        let digest = require_str(raw, member(raw, "content_digest"), &at("content_digest"), true)?;
        let expected = sha256_hex(&J::List(vec![
            J::Str(statement),
            J::Str(rationale),
            strs(&scope),
            strs(&constraints),
            strs(&anti_patterns),
        ]));
        if digest != expected {
            return fail(
                member(raw, "content_digest").unwrap_or(raw),
                format!("decision_index: version {id:?} has a content_digest that does not match its content"),
            );
        }
        let occurrence = member(raw, "occurrence_source_identity");
        require_list(raw, occurrence, &at("occurrence_source_identity"))?;
        let predecessor = match member(raw, "supersedes_version_id").map(|n| &n.value) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                return fail(
                    member(raw, "supersedes_version_id").unwrap_or(raw),
                    format!("decision_index: {} must be a string or null", at("supersedes_version_id")),
                )
            }
        };
        let predecessor = predecessor.filter(|p| !p.is_empty()).unwrap_or("-");
        let identity = sha256_hex(&J::List(vec![
            J::Str(decision_id),
            J::Str(digest),
            J::Node(occurrence.expect("checked above")),
            J::Str(predecessor),
        ]));
        if id != format!("dver-{}", &identity[..32]) {
            return fail(raw, format!("decision_index: version {id:?} does not match its identity"));
        }
        versions.push(Version {
            node: raw,
            id,
            decision_id,
            revision,
            statement,
            rationale,
            scope,
            constraints,
            anti_patterns,
        });
    }
    for v in &versions {
        let predecessor = member(v.node, "supersedes_version_id").and_then(Node::as_str);
        if let Some(p) = predecessor {
            if !versions.iter().any(|w| w.id == p && w.decision_id == v.decision_id) {
                return fail(v.node, format!("decision_index: version {:?} has an invalid predecessor {p:?}", v.id));
            }
        }
    }

    let mut bindings: Vec<Binding<'_>> = Vec::with_capacity(rule_rows.len());
    let mut keys: Vec<(&str, &str, &str)> = Vec::new();
    for (index, raw) in rule_rows.iter().enumerate() {
        require_object(raw, &format!("rules[{index}]"))?;
        let at = |key: &str| format!("rules[{index}].{key}");
        let rule_id = require_str(raw, member(raw, "rule_id"), &at("rule_id"), true)?;
        let decision_id = require_str(raw, member(raw, "decision_id"), &at("decision_id"), true)?;
        let version_id = require_str(raw, member(raw, "decision_version_id"), &at("decision_version_id"), true)?;
        let Some(version) = versions.iter().find(|v| v.id == version_id && v.decision_id == decision_id) else {
            return fail(raw, format!("decision_index: rule {rule_id:?} does not resolve to its decision and version"));
        };
        let display = require_str(raw, member(raw, "decision_version"), &at("decision_version"), true)?;
        if display != version.revision {
            return fail(raw, format!("decision_index: rule {rule_id:?} names another revision than its version"));
        }
        let sequence = member(raw, "sequence").and_then(integer).filter(|(_, negative)| !negative);
        let Some((sequence, _)) = sequence else {
            return fail(raw, format!("decision_index: rule {rule_id:?} sequence must be a non-negative integer"));
        };
        let sequence = (sequence.len(), sequence);
        if bindings.iter().any(|b| b.version_id == version_id && b.sequence == sequence) {
            return fail(
                raw,
                format!("decision_index: duplicate rule sequence {} for version {version_id:?}", sequence.1),
            );
        }
        let kind = require_str(raw, member(raw, "rule_type"), &at("rule_type"), true)?;
        let payload = match member(raw, "rule_payload") {
            Some(p) => require_object(p, &at("rule_payload"))?,
            None => return fail(raw, format!("decision_index: {} must be an object", at("rule_payload"))),
        };
        let Value::Object(payload_members) = &payload.value else { unreachable!("checked to be an object") };
        if payload_members.iter().any(|m| m.key != "value") || payload_members.is_empty() {
            return fail(
                payload,
                format!("decision_index: rule {rule_id:?} payload must hold `value` and nothing else"),
            );
        }
        let value = require_str(payload, member(payload, "value"), &at("rule_payload.value"), true)?;
        let applicability = match member(raw, "applicability") {
            None => None,
            Some(a) => Some(require_object(a, &at("applicability"))?),
        };
        if let Some(authority) = member(raw, "binding_authority") {
            if !authority.as_str().is_some_and(|a| BINDING_AUTHORITIES.contains(&a)) {
                return fail(authority, format!("decision_index: rule {rule_id:?} has an invalid binding_authority"));
            }
        }
        if let Some(Node { value: Value::Object(members), .. }) = applicability {
            if let Some(m) = members.iter().find(|m| m.key != "include_paths" && m.key != "exclude_paths") {
                return fail(
                    &m.node,
                    format!("decision_index: rule {rule_id:?} applicability has an unsupported field {:?}", m.key),
                );
            }
        }
        let include = match applicability.and_then(|a| member(a, "include_paths")) {
            None => None,
            Some(n) => Some(str_list_of(n, "include_paths")?),
        };
        let exclude = match applicability.and_then(|a| member(a, "exclude_paths")) {
            None => Vec::new(),
            Some(n) => str_list_of(n, "exclude_paths")?,
        };
        let rule = RuntimeRule { kind: kind.to_string(), value: value.to_string(), include, exclude };
        if let Some(why) = runtime_rule_problem(&rule) {
            return fail(raw, format!("decision_index: rule {rule_id:?} is invalid: {why}"));
        }
        let empty = Node { offset: 0, value: Value::Object(Vec::new()) };
        let digest = sha256_hex(&J::List(vec![J::Str(value), J::Node(applicability.unwrap_or(&empty))]));
        if rule_id != format!("{decision_id}:{kind}:{}", &digest[..32]) {
            return fail(raw, format!("decision_index: rule {rule_id:?} does not match its identity"));
        }
        if keys.contains(&(decision_id, version_id, rule_id)) {
            return fail(raw, format!("decision_index: duplicate rule binding {rule_id:?}"));
        }
        keys.push((decision_id, version_id, rule_id));
        bindings.push(Binding { version_id, sequence, rule });
    }

    let mut ids: Vec<&str> = Vec::with_capacity(logical_rows.len());
    let mut active_versions: Vec<&str> = Vec::with_capacity(logical_rows.len());
    let mut out = Vec::new();
    for (index, raw) in logical_rows.iter().enumerate() {
        require_object(raw, &format!("decisions[{index}]"))?;
        let at = |key: &str| format!("decisions[{index}].{key}");
        let id = require_str(raw, member(raw, "decision_id"), &at("decision_id"), true)?;
        if ids.contains(&id) {
            return fail(raw, format!("decision_index: duplicate decision_id {id:?}"));
        }
        if id.starts_with("dprop-") {
            return fail(
                raw,
                format!("decision_index: decision id {id:?} uses the reserved proposal namespace `dprop-`"),
            );
        }
        ids.push(id);
        let class = require_str(raw, member(raw, "decision_class"), &at("decision_class"), true)?;
        if class != "architecture" {
            return fail(raw, format!("decision_index: decision {id:?} has an unsupported decision_class {class:?}"));
        }
        let lifecycle = require_str(raw, member(raw, "lifecycle_status"), &at("lifecycle_status"), true)?;
        if !LIFECYCLES.contains(&lifecycle) {
            return fail(raw, format!("decision_index: decision {id:?} has an invalid lifecycle_status {lifecycle:?}"));
        }
        let active = require_str(raw, member(raw, "active_version_id"), &at("active_version_id"), true)?;
        if active_versions.contains(&active) {
            return fail(raw, format!("decision_index: version {active:?} is active for more than one decision"));
        }
        active_versions.push(active);
        let Some(version) = versions.iter().find(|v| v.id == active && v.decision_id == id) else {
            return fail(
                raw,
                format!("decision_index: decision {id:?} has an active_version_id that is not one of its versions"),
            );
        };
        let created_at = str_or_empty(version.node, "created_at", &format!("the created_at of version {active:?}"))?;
        let updated_at = str_or_empty(raw, "updated_at", &format!("the updated_at of decision {id:?}"))?;
        let source_path = source_evidence(version.node, id, memory_path)?;
        let test_evidence = test_evidence(raw, id)?;
        relationships(raw, id)?;
        let mut rules: Vec<&Binding<'_>> = bindings.iter().filter(|b| b.version_id == active).collect();
        rules.sort_by(|a, b| a.sequence.cmp(&b.sequence));
        if lifecycle == "active" {
            out.push(Projected {
                id: id.to_string(),
                decision: version.statement.to_string(),
                rationale: version.rationale.to_string(),
                scope: version.scope.clone(),
                constraints: version.constraints.clone(),
                anti_patterns: version.anti_patterns.clone(),
                created_at: created_at.to_string(),
                updated_at: updated_at.to_string(),
                rules: rules.into_iter().map(|b| b.rule.clone()).collect(),
                test_evidence,
                source_path,
            });
        }
    }
    for v in &versions {
        if !ids.contains(&v.decision_id) {
            return fail(v.node, format!("decision_index: version {:?} belongs to no decision", v.id));
        }
    }
    Ok(out)
}

/// Why Mneme's `Rule` would refuse these fields, if it would.
fn runtime_rule_problem(rule: &RuntimeRule) -> Option<String> {
    if rule.kind != super::rules::FORBID_LITERAL {
        return Some(format!("unknown rule type {:?}", rule.kind));
    }
    if python_strip(&rule.value).is_empty() {
        return Some("the value must be a non-empty string".into());
    }
    if let Some(include) = &rule.include {
        if include.is_empty() {
            return Some("include_paths must not be empty".into());
        }
        if let Some(why) = include.iter().find_map(|p| selector_problem(p)) {
            return Some(why.to_string());
        }
    } else if !rule.exclude.is_empty() {
        return Some("exclude_paths require include_paths".into());
    }
    rule.exclude.iter().find_map(|p| selector_problem(p)).map(str::to_string)
}

/// The runtime `source_path` of a version's first source evidence, after
/// checking every entry (`_parse_source_evidence`, `_source_path_of`).
fn source_evidence(version: &Node, id: &str, memory_path: &Path) -> Checked<String> {
    let Some(node) = member(version, "source_evidence") else { return Ok(String::new()) };
    let rows = require_list(version, Some(node), &format!("the source_evidence of decision {id:?}"))?;
    let mut first = None;
    for (index, item) in rows.iter().enumerate() {
        require_object(item, &format!("source_evidence[{index}]"))?;
        let at = |key: &str| format!("source_evidence[{index}].{key}");
        let kind = require_str(item, member(item, "source_type"), &at("source_type"), true)?;
        if !SOURCE_TYPES.contains(&kind) {
            return fail(
                item,
                format!("decision_index: decision {id:?} has source evidence of an unknown source_type {kind:?}"),
            );
        }
        let Value::Object(members) = &item.value else { unreachable!("checked to be an object") };
        let allowed =
            |k: &str| COMMON_SOURCE_KEYS.contains(&k) || (kind == "proposal" && PROPOSAL_SOURCE_KEYS.contains(&k));
        if let Some(m) = members.iter().find(|m| !allowed(&m.key)) {
            return fail(
                &m.node,
                format!("decision_index: decision {id:?} source evidence has an unsupported field {:?}", m.key),
            );
        }
        let locator = str_or_empty(item, "source_locator", &at("source_locator"))?;
        for key in &COMMON_SOURCE_KEYS[2..] {
            str_or_empty(item, key, &at(key))?;
        }
        if kind == "proposal" {
            for key in PROPOSAL_SOURCE_KEYS {
                require_str(item, member(item, key), &at(key), true)?;
            }
            if member(item, "accepted_decision_id").and_then(Node::as_str) != Some(id) {
                return fail(
                    item,
                    format!("decision_index: the proposal provenance of decision {id:?} names another decision"),
                );
            }
        }
        first.get_or_insert((kind, locator));
    }
    Ok(match first {
        None | Some(("proposal", _)) => String::new(),
        Some(("adr", locator)) if !locator.is_empty() && !locator.starts_with('/') => {
            resolve(&parent_of(memory_path).join(locator)).to_string_lossy().into_owned()
        }
        Some((_, locator)) => locator.to_string(),
    })
}

fn test_evidence(raw: &Node, id: &str) -> Checked<Vec<Vec<(String, String)>>> {
    let Some(node) = member(raw, "test_evidence") else { return Ok(Vec::new()) };
    let rows = require_list(raw, Some(node), &format!("the test_evidence of decision {id:?}"))?;
    let mut out = Vec::with_capacity(rows.len());
    for (index, item) in rows.iter().enumerate() {
        require_object(item, &format!("test_evidence[{index}]"))?;
        let selector = str_or_empty(item, "selector", &format!("test_evidence[{index}].selector"))?;
        let sha = str_or_empty(item, "sha", &format!("test_evidence[{index}].sha"))?;
        let mut entry = vec![("selector".to_string(), selector.to_string())];
        if !sha.is_empty() {
            entry.push(("sha".to_string(), sha.to_string()));
        }
        out.push(entry);
    }
    Ok(out)
}

fn relationships(raw: &Node, id: &str) -> Checked<()> {
    let Some(node) = member(raw, "relationships") else { return Ok(()) };
    let rows = require_list(raw, Some(node), &format!("the relationships of decision {id:?}"))?;
    for (index, item) in rows.iter().enumerate() {
        require_object(item, &format!("relationships[{index}]"))?;
        let kind = require_str(item, member(item, "type"), &format!("relationships[{index}].type"), true)?;
        require_str(
            item,
            member(item, "target_decision_id"),
            &format!("relationships[{index}].target_decision_id"),
            true,
        )?;
        if kind != "supersedes" {
            return fail(
                item,
                format!("decision_index: decision {id:?} has an unsupported relationship type {kind:?}"),
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The compatibility snapshot (`verify_compatibility_snapshot`).

/// The first field in which row `index` of `decisions[]` differs from the
/// projected decision, or `None` when they are equal as Python compares
/// Mneme's runtime decisions.
fn row_difference(row: &Node, p: &Projected, memory_path: &Path) -> Checked<Option<&'static str>> {
    if !is_object(row) {
        return fail(row, "decisions[] must hold decision records (objects)".into());
    }
    let text = |key: &str, default: &str, want: &str| match member(row, key) {
        None => default == want,
        Some(n) => n.as_str() == Some(want),
    };
    let list = |key: &str, want: &[String]| match member(row, key).map(|n| &n.value) {
        None => want.is_empty(),
        Some(Value::Array(items)) => {
            items.len() == want.len() && items.iter().zip(want).all(|(i, w)| i.as_str() == Some(w))
        }
        Some(_) => false,
    };
    let Some(id) = member(row, "id") else { return fail(row, "a decision record has no `id`".into()) };
    let Some(_) = member(row, "decision") else { return fail(row, "a decision record has no `decision`".into()) };
    let checks: [(&'static str, bool); 10] = [
        ("id", id.as_str() == Some(p.id.as_str())),
        ("decision", text("decision", "\u{0}", &p.decision)),
        ("rationale", text("rationale", "", &p.rationale)),
        ("scope", list("scope", &p.scope)),
        ("constraints", list("constraints", &p.constraints)),
        ("anti_patterns", list("anti_patterns", &p.anti_patterns)),
        ("created_at", text("created_at", "", &p.created_at)),
        ("updated_at", text("updated_at", "", &p.updated_at)),
        ("rules", row_rules(row).as_deref() == Some(p.rules.as_slice())),
        ("test_evidence", row_test_evidence(row)? == p.test_evidence),
    ];
    if let Some((field, _)) = checks.iter().find(|(_, same)| !same) {
        return Ok(Some(field));
    }
    if row_source_path(row, &p.id, memory_path) != p.source_path {
        return Ok(Some("source"));
    }
    if !text("status", "active", "active") {
        return Ok(Some("status"));
    }
    Ok(None)
}

/// The typed rules of a row, or `None` when they are not all well-formed
/// (the loader reports those).
fn row_rules(row: &Node) -> Option<Vec<RuntimeRule>> {
    let Some(node) = member(row, "rules") else { return Some(Vec::new()) };
    let Value::Array(items) = &node.value else { return None };
    items
        .iter()
        .map(|r| {
            let kind = member(r, "type")?.as_str()?.to_string();
            let value = member(r, "value")?.as_str()?.to_string();
            let strings = |n: &Node| match &n.value {
                Value::Array(i) => i.iter().map(|s| s.as_str().map(str::to_string)).collect::<Option<Vec<_>>>(),
                _ => None,
            };
            let include = match member(r, "include_paths") {
                None => None,
                Some(n) => Some(strings(n)?),
            };
            let exclude = match member(r, "exclude_paths") {
                None => Vec::new(),
                Some(n) => strings(n)?,
            };
            Some(RuntimeRule { kind, value, include, exclude })
        })
        .collect()
}

/// `[e for e in (record.get("test_evidence") or []) if isinstance(e, dict)]`,
/// as `(key, string value)` pairs; an entry holding a value that is not a
/// string can never equal a projected one and is kept as a non-match.
fn row_test_evidence(row: &Node) -> Checked<Vec<Vec<(String, String)>>> {
    let Some(node) = member(row, "test_evidence") else { return Ok(Vec::new()) };
    match &node.value {
        Value::Array(items) => Ok(items
            .iter()
            .filter_map(|e| match &e.value {
                Value::Object(members) => {
                    let mut keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
                    keys.sort_unstable();
                    keys.dedup();
                    let mut entry: Vec<(String, String)> = keys
                        .into_iter()
                        .map(|k| {
                            (k.to_string(), e.get(k).and_then(Node::as_str).map_or("\u{0}".into(), str::to_string))
                        })
                        .collect();
                    // Projected entries are `selector` then `sha`.
                    entry.sort_by_key(|(k, _)| (k != "selector", k.clone()));
                    Some(entry)
                }
                _ => None,
            })
            .collect()),
        Value::Null | Value::String(_) | Value::Object(_) | Value::Bool(false) => Ok(Vec::new()),
        Value::Number(n) if n.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') => Ok(Vec::new()),
        _ => fail(node, "decision_index: `test_evidence` of a decision record must be a list".into()),
    }
}

/// `_resolved_adr_source_path`: an `adr` source whose file is named after the
/// decision, resolved against the memory file's folder.
fn row_source_path(row: &Node, id: &str, memory_path: &Path) -> String {
    let Some(source) = member(row, "source").filter(|s| is_object(s)) else { return String::new() };
    if member(source, "type").and_then(Node::as_str) != Some("adr") {
        return String::new();
    }
    let Some(raw) = member(source, "path").and_then(Node::as_str).filter(|p| !p.is_empty()) else {
        return String::new();
    };
    let name = python_path_name(raw);
    let suffix = match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[i..],
        _ => "",
    };
    let named = name == format!("{id}.md") || name.starts_with(&format!("{id}-"));
    if !suffix.eq_ignore_ascii_case(".md") || !named {
        return String::new();
    }
    resolve(&parent_of(memory_path).join(raw)).to_string_lossy().into_owned()
}

/// `PurePosixPath(p).name`: the last component, `.` components dropped.
fn python_path_name(p: &str) -> &str {
    p.split('/').rfind(|c| !c.is_empty() && *c != ".").filter(|_| p != "/").unwrap_or("")
}

fn verify_snapshot(
    section: &Node,
    decisions: Option<&Node>,
    projected: &[Projected],
    memory_path: &Path,
) -> Checked<()> {
    let rows: &[Node] = match decisions {
        None => &[],
        Some(n) => require_list(section, Some(n), "decisions")?,
    };
    let diverges = |node: &Node, what: String| {
        fail(
            node,
            format!(
                "decisions[] diverges from the decision_index: {what}; decisions[] must be the index's active \
                 decisions exactly (rebuild it with Mneme, or remove the decision_index)"
            ),
        )
    };
    for (i, (row, p)) in rows.iter().zip(projected).enumerate() {
        let named = |mut e: IndexError| {
            e.record = member(row, "id").and_then(Node::as_str).map(str::to_string);
            e
        };
        if let Some(field) = row_difference(row, p, memory_path).map_err(named)? {
            let e = diverges(row, format!("decisions[{i}] differs from active decision {:?} in `{field}`", p.id));
            return e.map_err(named);
        }
    }
    if rows.len() != projected.len() {
        let at = decisions.unwrap_or(section);
        return diverges(
            at,
            format!("decisions[] holds {} record(s), the index {} active decision(s)", rows.len(), projected.len()),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Paths, as Python's `Path.resolve()` makes them.

/// The folder of the memory file, absolute.
fn parent_of(memory_path: &Path) -> PathBuf {
    let absolute = if memory_path.is_absolute() {
        memory_path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(memory_path)
    };
    resolve(&absolute).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `os.path.realpath` without `strict`: symbolic links followed where they
/// exist, `.` and `..` applied, the rest kept as written.
fn resolve(path: &Path) -> PathBuf {
    resolve_depth(path, 0)
}

fn resolve_depth(path: &Path, depth: usize) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                let next = out.join(name);
                match std::fs::read_link(&next) {
                    Ok(target) if depth < 40 => out = resolve_depth(&out.join(target), depth + 1),
                    _ => out = next,
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
