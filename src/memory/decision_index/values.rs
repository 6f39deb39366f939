//! Values of the `decision_index` section as Python's `json` module and
//! `isinstance` see them: members, strings, lists, objects and integers, each
//! read or refused with Mneme's words.

use super::{fail, Checked};
use crate::memory::located_json::{Node, Value};

pub(super) fn member<'a>(node: &'a Node, key: &str) -> Option<&'a Node> {
    node.get(key)
}

pub(super) fn is_object(node: &Node) -> bool {
    matches!(node.value, Value::Object(_))
}

/// `_require_str`: a string (not empty when `non_empty`); `None` is a
/// missing member (Python's `None`).
pub(super) fn require_str<'a>(parent: &Node, node: Option<&'a Node>, label: &str, non_empty: bool) -> Checked<&'a str> {
    match node.map(|n| &n.value) {
        Some(Value::String(s)) if !(non_empty && s.is_empty()) => Ok(s),
        _ => {
            let qualifier = if non_empty { "non-empty " } else { "" };
            fail(node.unwrap_or(parent), format!("decision_index: {label} must be a {qualifier}string"))
        }
    }
}

/// `_require_str(raw.get(key, ""))`: absent is the empty string.
pub(super) fn str_or_empty<'a>(parent: &'a Node, key: &str, label: &str) -> Checked<&'a str> {
    match member(parent, key) {
        None => Ok(""),
        Some(n) => require_str(parent, Some(n), label, false),
    }
}

pub(super) fn require_list<'a>(parent: &Node, node: Option<&'a Node>, label: &str) -> Checked<&'a [Node]> {
    match node.map(|n| &n.value) {
        Some(Value::Array(items)) => Ok(items),
        _ => fail(node.unwrap_or(parent), format!("decision_index: {label} must be a list")),
    }
}

pub(super) fn require_object<'a>(node: &'a Node, label: &str) -> Checked<&'a Node> {
    if is_object(node) {
        Ok(node)
    } else {
        fail(node, format!("decision_index: {label} must be an object"))
    }
}

/// `_str_list(raw.get(key, []))`.
pub(super) fn str_list(parent: &Node, key: &str, label: &str) -> Checked<Vec<String>> {
    let Some(node) = member(parent, key) else { return Ok(Vec::new()) };
    str_list_of(node, label)
}

pub(super) fn str_list_of(node: &Node, label: &str) -> Checked<Vec<String>> {
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
pub(super) fn integer(node: &Node) -> Option<(String, bool)> {
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
