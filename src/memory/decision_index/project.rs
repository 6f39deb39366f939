//! Validation and projection of the `decision_index` section (Mneme's
//! `load_persisted_decision_index` and `project_canonical_index`), in Mneme's
//! order: the first problem wins.

use std::path::Path;

use super::canonical::{sha256_hex, strs, J};
use super::paths::{parent_of, resolve};
use super::values::{integer, member, require_list, require_object, require_str, str_list, str_list_of, str_or_empty};
use super::{
    fail, Checked, Projected, RuntimeRule, BINDING_AUTHORITIES, COMMON_SOURCE_KEYS, LIFECYCLES, PROPOSAL_SOURCE_KEYS,
    SCHEMA, SOURCE_TYPES,
};
use crate::memory::located_json::{Node, Value};
use crate::memory::rules::{python_strip, selector_problem};

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

pub(super) fn project(section: &Node, memory_path: &Path) -> Checked<Vec<Projected>> {
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
    if rule.kind != crate::memory::rules::FORBID_LITERAL {
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

pub(super) fn test_evidence(raw: &Node, id: &str) -> Checked<Vec<Vec<(String, String)>>> {
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
