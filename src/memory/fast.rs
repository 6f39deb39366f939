/*!
The fast path of [`Memory::parse`](super::Memory::parse): `serde_json`
into derived raw records ([`RawRecord`]) that borrow from the text, with no
tree of located nodes in between.

It is only an accelerator. It either yields exactly the candidates the
tolerant path (`memory::tolerant`) would yield, or it gives up ([`Bail`])
and the caller runs the tolerant path, whose messages (with line and
column) are the ones users see. It gives up on *anything unusual*:

- any syntax error, a byte-order mark, nesting deeper than [`MAX_DEPTH`];
- a repeated member name among those the mapping reads (`decisions`,
  `items`, `meta`, a record's fields);
- anything that makes the tolerant path report an error or a warning other
  than a duplicate id: a missing, empty or mistyped field the record's shape
  reads, a non-object record, `meta` that is not an object, neither
  `decisions` nor `items`, `rules` that are not all `FORBID_LITERAL`, an
  invalid scope glob.

What remains (well-formed records, ineligible types, inactive statuses,
duplicate ids) goes through the same `build_pool` as the tolerant path.

How positions are kept: every record is first read as a
[`RawValue`], a slice of the text, so its offset (the `{`) is where that
slice starts. The members whose type depends on the record's shape (a
decision record reads `rationale`, an item `content`, ...) are kept as
`RawValue`s too and typed once the shape is known.

What `serde_json` does not check in what it skips or keeps raw, the
tolerant reader does: nesting (no depth limit there) and `\u` escapes of
lone surrogates. [`checked`] and [`check_outside`] make up for it.

Deliberately not done here: wording a problem (the fast path has no
messages, only [`Bail`]), lines and columns (`memory::lines`), pool rules
(`memory::pool`).
*/

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::glob::compile_glob;
use super::migrate::migrate;
use super::pool::Candidate;
use super::{Decision, RecordKind};
use crate::profile::Family;

/// Nesting (root = 0) from which the fast path gives up; the tolerant
/// reader's own limit (128) is larger, so it alone decides such files.
const MAX_DEPTH: usize = 100;

/// The fast path gave up; run the tolerant one.
#[derive(Debug)]
pub(super) struct Bail;

impl From<serde_json::Error> for Bail {
    fn from(_: serde_json::Error) -> Bail {
        Bail
    }
}

/// The members of one record the mapping may read, as written; `None` is
/// absent or null, except for `type` (see [`present`]). `id`, `status` and
/// `anti_patterns` are read alike by both shapes, so they are typed here; the
/// others are typed by [`map`] once the shape is known.
#[derive(Deserialize)]
struct RawRecord<'a> {
    id: Option<String>,
    status: Option<String>,
    anti_patterns: Option<Vec<String>>,
    #[serde(borrow)]
    decision: Option<&'a RawValue>,
    #[serde(borrow)]
    rationale: Option<&'a RawValue>,
    #[serde(borrow)]
    constraints: Option<&'a RawValue>,
    #[serde(borrow)]
    rules: Option<&'a RawValue>,
    #[serde(borrow)]
    title: Option<&'a RawValue>,
    /// `null` here is not absent: an item in `decisions` without a `type`
    /// is a `decision`, one with `"type": null` is an error.
    #[serde(borrow, rename = "type", default, deserialize_with = "present")]
    item_type: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    constraint: Option<&'a RawValue>,
    #[serde(borrow)]
    tags: Option<&'a RawValue>,
    #[serde(borrow)]
    scope: Option<&'a RawValue>,
}

/// A member that is present, `null` included.
fn present<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<&'a RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// The top-level object as the mapping reads it. `decisions` and `items`
/// are `None` when absent, empty when null.
#[derive(Deserialize)]
struct RawRoot<'a> {
    #[serde(borrow, default, deserialize_with = "records")]
    decisions: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default, deserialize_with = "records")]
    items: Option<Vec<&'a RawValue>>,
    #[serde(borrow)]
    meta: Option<&'a RawValue>,
}

/// `decisions` or `items`: an array of records, or null (none).
fn records<'de: 'a, 'a, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<&'a RawValue>>, D::Error> {
    Option::<Vec<&RawValue>>::deserialize(d).map(|records| Some(records.unwrap_or_default()))
}

/// The records of a memory text, mapped, in the order `build_pool` wants
/// them (decision records, then items), and how many records were seen.
/// The candidates come in segments, to be read one after the other.
pub(super) fn load(text: &str, family: Family) -> Result<(usize, Vec<Vec<Candidate>>), Bail> {
    let (decisions, items, depth) = match text.trim_start_matches([' ', '\t', '\n', '\r']).as_bytes().first() {
        Some(b'[') => (Vec::new(), serde_json::from_str::<Vec<&RawValue>>(text)?, 1),
        Some(b'{') => {
            let root: RawRoot<'_> = serde_json::from_str(text)?;
            if root.meta.is_some_and(|meta| !meta.get().starts_with('{')) {
                // The tolerant path warns that `meta` is ignored.
                return Err(Bail);
            }
            if root.decisions.is_none() && root.items.is_none() {
                // The tolerant path warns that nothing can be retrieved.
                return Err(Bail);
            }
            (root.decisions.unwrap_or_default(), root.items.unwrap_or_default(), 2)
        }
        _ => return Err(Bail),
    };
    check_outside(text, &decisions, &items)?;
    let base = text.as_ptr() as usize;
    let decisions = map_all(&decisions, true, depth, base, family)?;
    let items = map_all(&items, false, depth, base, family)?;
    let records = decisions.len() + items.len();
    // Decision records first, then the item records of `decisions`, then `items`.
    if decisions.iter().all(|c| c.decision.kind == RecordKind::DecisionRecord) {
        return Ok((records, vec![decisions, items]));
    }
    let (decision_records, items_in_decisions) =
        decisions.into_iter().partition(|c| c.decision.kind == RecordKind::DecisionRecord);
    Ok((records, vec![decision_records, items_in_decisions, items]))
}

/// The checks of [`checked`] for the text outside the records (the root,
/// `meta`, the members nobody reads), which `serde_json` skipped unseen.
fn check_outside(text: &str, decisions: &[&RawValue], items: &[&RawValue]) -> Result<(), Bail> {
    let start = |r: &&RawValue| r.get().as_ptr() as usize - text.as_ptr() as usize;
    // The records of each array are in text order; the arrays in either.
    let (first, second) = match (decisions.first(), items.first()) {
        (Some(d), Some(i)) if start(i) < start(d) => (items, decisions),
        _ => (decisions, items),
    };
    let mut outside = Vec::new();
    let mut at = 0;
    for r in first.iter().chain(second) {
        outside.push(&text[at..start(r)]);
        at = start(r) + r.get().len();
    }
    outside.push(&text[at..]);
    // The root is a container at depth 0, as a record is one at its depth.
    let deep = outside.iter().map(|s| brackets(s)).sum::<usize>() > MAX_DEPTH
        && outside.iter().fold((0, 0, false, false), |state, s| nest(s, state)).1 > MAX_DEPTH;
    if deep {
        return Err(Bail);
    }
    if outside.iter().any(|s| has_surrogate_escape(s)) {
        // Rare enough to decode the whole text for.
        serde_json::from_str::<serde_json::Value>(text)?;
    }
    Ok(())
}

fn map_all(
    records: &[&RawValue],
    in_decisions: bool,
    depth: usize,
    base: usize,
    family: Family,
) -> Result<Vec<Candidate>, Bail> {
    let mut out = Vec::with_capacity(records.len());
    for raw in records {
        let json = raw.get();
        // A derived struct would also take an array, its fields in order.
        if !json.starts_with('{') {
            return Err(Bail);
        }
        checked(raw, depth)?;
        let record: RawRecord<'_> = serde_json::from_str(json)?;
        out.push(map(record, json.as_ptr() as usize - base, in_decisions, family)?);
    }
    Ok(out)
}

/// Gives up where `serde_json`, skipping `value` (at `depth`) or keeping it
/// raw, is laxer than the tolerant reader: nesting to [`MAX_DEPTH`], and
/// `\u` escapes of surrogates, which it does not pair up unless it decodes
/// the string.
fn checked(value: &RawValue, depth: usize) -> Result<(), Bail> {
    let json = value.get();
    // Brackets, in strings or not, bound the nesting; follow it exactly
    // only when there are many.
    if depth + brackets(json) > MAX_DEPTH && depth + nest(json, (0, 0, false, false)).1 > MAX_DEPTH {
        return Err(Bail);
    }
    if has_surrogate_escape(json) {
        // Decoding every string pairs them, or fails.
        serde_json::from_str::<serde_json::Value>(json)?;
    }
    Ok(())
}

/// How many `[` and `{` there are in `json`, strings included.
fn brackets(json: &str) -> usize {
    // `[` and `{` differ in one bit; byte-wide sums, 255 bytes at a time,
    // keep the count in wide vector lanes.
    json.as_bytes().chunks(255).map(|c| c.iter().map(|&b| u8::from(b | 0x20 == b'{')).sum::<u8>() as usize).sum()
}

fn has_surrogate_escape(json: &str) -> bool {
    json.contains('\\') && (json.contains("\\ud") || json.contains("\\uD"))
}

/// Follows the nesting of arrays and objects through `json` from `state`
/// (depth, deepest, in a string, after a backslash); returns the new state.
fn nest(json: &str, state: (usize, usize, bool, bool)) -> (usize, usize, bool, bool) {
    let (mut depth, mut deepest, mut in_string, mut escaped) = state;
    for b in json.bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    (depth, deepest, in_string, escaped)
}

/// A JSON string.
fn string(value: &RawValue) -> Result<String, Bail> {
    let json = value.get();
    if !json.starts_with('"') {
        return Err(Bail);
    }
    if json.contains('\\') {
        return Ok(serde_json::from_str(json)?);
    }
    // A valid string without escapes: its contents as they are.
    Ok(json[1..json.len() - 1].to_string())
}

/// `required_str`: a string that is not blank.
fn required(s: Option<String>) -> Result<String, Bail> {
    s.filter(|s| !s.trim().is_empty()).ok_or(Bail)
}

/// `required_str` of a member kept raw.
fn required_raw(value: Option<&RawValue>) -> Result<String, Bail> {
    required(value.map(string).transpose()?)
}

/// `opt_str`: absent or null is none.
fn optional(value: Option<&RawValue>) -> Result<Option<String>, Bail> {
    value.map(string).transpose()
}

/// `str_list`: absent or null is empty; with `one_ok` a string is one item.
fn list(value: Option<&RawValue>, one_ok: bool) -> Result<Vec<String>, Bail> {
    let Some(value) = value else { return Ok(Vec::new()) };
    match value.get().as_bytes()[0] {
        b'[' => Ok(serde_json::from_str(value.get())?),
        b'"' if one_ok => Ok(vec![string(value)?]),
        _ => Err(Bail),
    }
}

/// `rules`: absent, null, or objects whose `type` (the last one, as the
/// tolerant reader resolves repeats) is `FORBID_LITERAL`.
fn rules_ok(value: Option<&RawValue>) -> Result<bool, Bail> {
    let Some(value) = value else { return Ok(true) };
    if !value.get().starts_with('[') {
        return Ok(false);
    }
    let rules: Vec<BTreeMap<Cow<'_, str>, &RawValue>> = serde_json::from_str(value.get())?;
    Ok(rules.iter().all(|rule| rule.get("type").is_some_and(|t| string(t).is_ok_and(|t| t == "FORBID_LITERAL"))))
}

/// `Loader::record` for a record with no problem, else [`Bail`].
fn map(r: RawRecord<'_>, offset: usize, in_decisions: bool, family: Family) -> Result<Candidate, Bail> {
    let id = required(r.id)?;
    let anti_patterns = r.anti_patterns.unwrap_or_default();
    let status = r.status;
    let decision = if in_decisions && r.decision.is_some() {
        let title = required_raw(r.decision)?;
        let content = optional(r.rationale)?.unwrap_or_default();
        let tags = list(r.scope, false)?;
        let constraint = list(r.constraints, false)?;
        if !rules_ok(r.rules)? {
            return Err(Bail);
        }
        Decision {
            id,
            title,
            tags,
            constraint,
            anti_patterns,
            content,
            paths: Vec::new(),
            status,
            kind: RecordKind::DecisionRecord,
            offset,
            globs: Vec::new(),
        }
    } else {
        let item_type =
            if in_decisions && r.item_type.is_none() { "decision".to_string() } else { required_raw(r.item_type)? };
        let title = required_raw(r.title)?;
        let content = optional(r.content)?.unwrap_or_default();
        let constraint = list(r.constraint, true)?;
        let tags = list(r.tags, false)?;
        let scope = list(r.scope, true)?;
        let mut d = Decision {
            id,
            title,
            tags,
            constraint,
            anti_patterns,
            content,
            paths: Vec::new(),
            status,
            kind: RecordKind::Item(String::new()),
            offset,
            globs: Vec::new(),
        };
        match family {
            Family::Default => {
                d.globs.reserve_exact(scope.len());
                for pattern in &scope {
                    d.globs.push(compile_glob(pattern).map_err(|_| Bail)?);
                }
                d.paths = scope;
            }
            Family::Mneme => migrate(&mut d, &item_type),
        }
        d.kind = RecordKind::Item(item_type);
        d
    };
    Ok(Candidate { decision, glob_errors: Vec::new() })
}
