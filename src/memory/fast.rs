/*!
The fast path of [`Memory::parse`](super::Memory::parse): `serde_json`
straight into the few typed values the mapping of spec §1 reads, with no
tree of located nodes in between.

It is only an accelerator. It either yields exactly the candidates the
tolerant path (`memory::tolerant`) would yield, or it gives up ([`Bail`])
and the caller runs the tolerant path, whose messages (with line and
column) are the ones users see. It gives up on *anything unusual*:

- any syntax error, a byte-order mark, nesting deeper than [`MAX_DEPTH`];
- a repeated member name in any object (the tolerant path warns), a member
  name written with escapes;
- anything that makes the tolerant path report an error or a warning other
  than a duplicate id: a missing, empty or mistyped field the record's shape
  reads, a non-object record, `meta` that is not an object, neither
  `decisions` nor `items`, a rule that is not a well-formed `FORBID_LITERAL`
  rule (`memory::rules`), an invalid scope glob, a `decision_index`.

What remains (well-formed records, ineligible types, inactive statuses,
duplicate ids) goes through the same `build_pool` as the tolerant path. The
one position the candidates need, a record's offset (the `{`), is recovered
from the borrowed first member name: only whitespace separates them.

Deliberately not done here: wording a problem (the fast path has no
messages, only [`Bail`]), lines and columns (`memory::lines`), pool rules
(`memory::pool`).

Why hand-written visitors rather than `#[derive(Deserialize)]` records:
derived raw records with `serde_json::value::RawValue` for the record
offsets were tried (commit dd29d2d) and were slower. A record has to be
read twice (as a `RawValue`, for its offset, then into the struct), and
what `serde_json` skips or keeps raw it neither depth-checks nor decodes
(lone surrogates), so every record also needed a scan of its own. Medians,
interleaved A/B runs, release builds, two shared cores; visitors (before)
against derived records:

| corpus          | command    | runs | wall              | CPU (user+sys)    |
|-----------------|------------|------|-------------------|-------------------|
| 5,000 (3 MB)    | `validate` | 30   | 96.1 → 109.0 ms   | 48.4 → 52.3 ms    |
| 5,000 (3 MB)    | `context`  | 30   | 106.6 → 118.1 ms  | 51.2 → 56.6 ms    |
| 200,000 (131 MB)| `validate` | 10   | 3,042 → 3,742 ms  | 1,976 → 2,298 ms  |
| 200,000 (131 MB)| `context`  | 10   | 3,131 → 3,498 ms  | 2,073 → 2,252 ms  |

(corpora from `mneme-gate synth --decisions N --seed 7`; `context --task
"how do we store payments"`): 8 to 23 % slower, above the 5 % allowed.
*/

use std::fmt;

use rustc_hash::FxHashSet;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::glob::compile_glob;
use super::migrate::migrate;
use super::pool::Candidate;
use super::rules::{python_strip, selector_problem, FORBID_LITERAL};
use super::{Decision, RecordKind, Rule, Sections};
use crate::profile::Family;

/// Nesting (root = 0) beyond which the fast path gives up; the tolerant
/// reader's own limit (128) is larger, so it alone decides such files.
const MAX_DEPTH: usize = 100;

/// The member names of one object read so far, to give up on a repeated
/// one: a few inline (records name a handful of members the mapping does not
/// read, if any), a set beyond.
struct Names<'de> {
    few: [&'de str; 8],
    len: usize,
    many: Option<FxHashSet<&'de str>>,
}

impl<'de> Names<'de> {
    fn new() -> Self {
        Names { few: [""; 8], len: 0, many: None }
    }

    /// `Err(Bail)` when `name` was read before.
    fn insert<E: de::Error>(&mut self, name: &'de str) -> Result<(), E> {
        let new = match &mut self.many {
            Some(set) => set.insert(name),
            None if self.few[..self.len].contains(&name) => false,
            None if self.len < self.few.len() => {
                self.few[self.len] = name;
                self.len += 1;
                true
            }
            None => {
                let mut set: FxHashSet<&'de str> = self.few.iter().copied().collect();
                set.insert(name);
                self.many = Some(set);
                true
            }
        };
        if new {
            Ok(())
        } else {
            Err(de::Error::custom(Bail))
        }
    }
}

/// The fast path gave up; run the tolerant one.
#[derive(Debug)]
pub(super) struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not for the fast path")
    }
}

impl std::error::Error for Bail {}

impl de::Error for Bail {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Bail
    }
}

/// A member value as the mapping sees it.
enum Val {
    Null,
    Str(String),
    List(Vec<String>),
    /// An array holding something other than a string.
    MixedList,
    /// Any other type.
    Other,
}

/// `rules`: null, an array of well-formed rules (each as Mneme reads it),
/// an array of rules that only profile `default` accepts without a word (of
/// type `FORBID_LITERAL`, path lists that are lists), or anything else.
enum Rules {
    Null,
    Ok(Vec<Rule>),
    DefaultOnly,
    Other,
}

/// The members of one record the mapping may read; `None` is absent.
#[derive(Default)]
struct Raw {
    offset: usize,
    id: Option<Val>,
    decision: Option<Val>,
    rationale: Option<Val>,
    status: Option<Val>,
    title: Option<Val>,
    item_type: Option<Val>,
    content: Option<Val>,
    scope: Option<Val>,
    constraints: Option<Val>,
    constraint: Option<Val>,
    tags: Option<Val>,
    anti_patterns: Option<Val>,
    /// Scope globs of a decision record (what `mneme-gate import` writes).
    paths: Option<Val>,
    rules: Option<Rules>,
    /// A decision record's text by part (what `mneme-gate import` writes).
    sections: Option<Sections>,
}

/// The records of a memory text, mapped, in the order `build_pool` wants
/// them (decision records, then items), and how many records were seen.
/// The candidates come in segments, to be read one after the other.
pub(super) fn load(text: &str, family: Family) -> Result<(usize, Vec<Vec<Candidate>>), Bail> {
    let mut de = serde_json::Deserializer::from_str(text);
    let root = RootSeed { base: text.as_ptr() as usize, text, family }.deserialize(&mut de).map_err(|_| Bail)?;
    de.end().map_err(|_| Bail)?;
    let (decisions, items) = match root {
        Root::Array(items) => (Vec::new(), items),
        Root::Object { decisions, items } => (decisions, items),
    };
    let records = decisions.len() + items.len();
    // Decision records first, then the item records of `decisions`, then `items`.
    if decisions.iter().all(|c| c.decision.kind == RecordKind::DecisionRecord) {
        return Ok((records, vec![decisions, items]));
    }
    let (decision_records, items_in_decisions) =
        decisions.into_iter().partition(|c| c.decision.kind == RecordKind::DecisionRecord);
    Ok((records, vec![decision_records, items_in_decisions, items]))
}

/// `required_str`: a string that is not blank.
fn required(v: Option<Val>) -> Result<String, Bail> {
    match v {
        Some(Val::Str(s)) if !s.trim().is_empty() => Ok(s),
        _ => Err(Bail),
    }
}

/// `opt_str`: absent or null is empty.
fn optional(v: Option<Val>) -> Result<Option<String>, Bail> {
    match v {
        None | Some(Val::Null) => Ok(None),
        Some(Val::Str(s)) => Ok(Some(s)),
        _ => Err(Bail),
    }
}

/// `str_list`: absent or null is empty; with `one_ok` a string is one item.
fn list(v: Option<Val>, one_ok: bool) -> Result<Vec<String>, Bail> {
    match v {
        None | Some(Val::Null) => Ok(Vec::new()),
        Some(Val::List(l)) => Ok(l),
        Some(Val::Str(s)) if one_ok => Ok(vec![s]),
        _ => Err(Bail),
    }
}

/// `Loader::record` for a record with no problem, else [`Bail`].
fn map(r: Raw, in_decisions: bool, family: Family) -> Result<Candidate, Bail> {
    let id = required(r.id)?;
    let is_decision_record = in_decisions && matches!(r.decision, Some(ref v) if !matches!(v, Val::Null));
    let decision = if is_decision_record {
        let title = required(r.decision)?;
        let content = optional(r.rationale)?.unwrap_or_default();
        let tags = list(r.scope, false)?;
        let constraint = list(r.constraints, false)?;
        let anti_patterns = list(r.anti_patterns, false)?;
        let status = optional(r.status)?;
        // Mneme ignores `paths`, and so does profile `mneme`.
        let paths = match family {
            Family::Default => list(r.paths, true)?,
            Family::Mneme => Vec::new(),
        };
        let mut globs = Vec::with_capacity(paths.len());
        for pattern in &paths {
            globs.push(compile_glob(pattern).map_err(|_| Bail)?);
        }
        let rules = match (r.rules, family) {
            (None | Some(Rules::Null), _) => Vec::new(),
            (Some(Rules::Ok(rules)), Family::Mneme) => rules,
            (Some(Rules::Ok(_) | Rules::DefaultOnly), Family::Default) => Vec::new(),
            (Some(Rules::DefaultOnly | Rules::Other), _) => return Err(Bail),
        };
        Decision {
            id,
            title,
            tags,
            constraint,
            anti_patterns,
            content,
            sections: r.sections.unwrap_or_default(),
            paths,
            status,
            superseded_by: None,
            kind: RecordKind::DecisionRecord,
            offset: r.offset,
            origin: None,
            globs,
            rules,
        }
    } else {
        if in_decisions && r.title.is_none() {
            return Err(Bail);
        }
        let item_type =
            if in_decisions && r.item_type.is_none() { "decision".to_string() } else { required(r.item_type)? };
        let title = required(r.title)?;
        let content = optional(r.content)?.unwrap_or_default();
        let constraint = list(r.constraint, true)?;
        let tags = list(r.tags, false)?;
        let scope = list(r.scope, true)?;
        let anti_patterns = list(r.anti_patterns, false)?;
        let status = optional(r.status)?;
        let mut d = Decision {
            id,
            title,
            tags,
            constraint,
            anti_patterns,
            content,
            sections: Default::default(),
            paths: Vec::new(),
            status,
            superseded_by: None,
            kind: RecordKind::Item(String::new()),
            offset: r.offset,
            origin: None,
            globs: Vec::new(),
            rules: Vec::new(),
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

enum Root {
    Array(Vec<Candidate>),
    Object { decisions: Vec<Candidate>, items: Vec<Candidate> },
}

#[derive(Clone, Copy)]
struct RootSeed<'t> {
    base: usize,
    text: &'t str,
    family: Family,
}

impl<'de> DeserializeSeed<'de> for RootSeed<'_> {
    type Value = Root;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Root, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RootSeed<'_> {
    type Value = Root;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a memory file")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Root, A::Error> {
        Ok(Root::Array(RecordsSeed { root: self, depth: 0, in_decisions: false }.visit_seq(seq)?))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Root, A::Error> {
        let (mut decisions, mut items, mut meta) = (None, None, false);
        let mut others = Names::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "decisions" | "items" => {
                    let slot = if key == "decisions" { &mut decisions } else { &mut items };
                    if slot.is_some() {
                        return Err(de::Error::custom(Bail));
                    }
                    *slot = Some(map.next_value_seed(TopArray(RecordsSeed {
                        root: self,
                        depth: 1,
                        in_decisions: key == "decisions",
                    }))?);
                }
                // A persisted decision index: the tolerant path reads it.
                "decision_index" => return Err(de::Error::custom(Bail)),
                "meta" => {
                    if std::mem::replace(&mut meta, true) {
                        return Err(de::Error::custom(Bail));
                    }
                    map.next_value_seed(Meta)?;
                }
                _ => {
                    others.insert(key)?;
                    map.next_value_seed(Ignore(1))?
                }
            }
        }
        if decisions.is_none() && items.is_none() {
            // The tolerant path warns that nothing can be retrieved.
            return Err(de::Error::custom(Bail));
        }
        Ok(Root::Object {
            decisions: decisions.flatten().unwrap_or_default(),
            items: items.flatten().unwrap_or_default(),
        })
    }
}

/// `meta`: an object or null, else the tolerant path warns.
struct Meta;

impl<'de> DeserializeSeed<'de> for Meta {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Meta {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        Ignore(1).visit_map(map)
    }
}

/// `decisions` or `items`: null (`None` inside) or an array of records.
struct TopArray<'t>(RecordsSeed<'t>);

impl<'de> DeserializeSeed<'de> for TopArray<'_> {
    type Value = Option<Vec<Candidate>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopArray<'_> {
    type Value = Option<Vec<Candidate>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of records or null")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.visit_seq(seq).map(Some)
    }
}

/// The elements of an array of records at `depth`.
#[derive(Clone, Copy)]
struct RecordsSeed<'t> {
    root: RootSeed<'t>,
    depth: usize,
    /// The array is `decisions` (else `items` or the top-level array).
    in_decisions: bool,
}

impl<'de> RecordsSeed<'_> {
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Candidate>, A::Error> {
        // Room for as many records as the text could hold at a few hundred
        // bytes each: pages never touched cost nothing, growth copies would.
        let mut out = Vec::with_capacity(self.root.text.len() / 256);
        let in_decisions = self.in_decisions;
        while let Some(raw) = seq.next_element_seed(RecordSeed { root: self.root, depth: self.depth + 1 })? {
            out.push(map(raw, in_decisions, self.root.family).map_err(de::Error::custom)?);
        }
        Ok(out)
    }
}

#[derive(Clone, Copy)]
struct RecordSeed<'t> {
    root: RootSeed<'t>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = Raw;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut r = Raw::default();
        let mut others = Names::new();
        let mut first = true;
        let inner = self.depth + 1;
        while let Some(key) = map.next_key::<&'de str>()? {
            if first {
                first = false;
                r.offset = self.record_offset(key).ok_or_else(|| de::Error::custom(Bail))?;
            }
            let slot = match key {
                "id" => &mut r.id,
                "decision" => &mut r.decision,
                "rationale" => &mut r.rationale,
                "status" => &mut r.status,
                "title" => &mut r.title,
                "type" => &mut r.item_type,
                "content" => &mut r.content,
                "scope" => &mut r.scope,
                "constraints" => &mut r.constraints,
                "constraint" => &mut r.constraint,
                "tags" => &mut r.tags,
                "anti_patterns" => &mut r.anti_patterns,
                "paths" => &mut r.paths,
                "rules" => {
                    if r.rules.is_some() {
                        return Err(de::Error::custom(Bail));
                    }
                    r.rules = Some(map.next_value_seed(RulesSeed(inner))?);
                    continue;
                }
                "sections" => {
                    if r.sections.is_some() {
                        return Err(de::Error::custom(Bail));
                    }
                    r.sections = Some(map.next_value_seed(SectionsSeed(inner))?);
                    continue;
                }
                _ => {
                    others.insert(key)?;
                    map.next_value_seed(Ignore(inner))?;
                    continue;
                }
            };
            if slot.is_some() {
                return Err(de::Error::custom(Bail));
            }
            *slot = Some(map.next_value_seed(ValSeed(inner))?);
        }
        if first {
            // `{}`: no id, an error in the tolerant path.
            return Err(de::Error::custom(Bail));
        }
        Ok(r)
    }
}

impl RecordSeed<'_> {
    /// The offset of the `{` before the first member name `key`, which
    /// borrows from the text.
    fn record_offset(&self, key: &str) -> Option<usize> {
        let quote = (key.as_ptr() as usize).checked_sub(self.root.base)?.checked_sub(1)?;
        let bytes = self.root.text.as_bytes();
        if bytes.get(quote) != Some(&b'"') {
            return None;
        }
        let mut i = quote;
        while i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
            i -= 1;
        }
        (i > 0 && bytes[i - 1] == b'{').then(|| i - 1)
    }
}

/// A member value at depth `.0`.
struct ValSeed(usize);

impl<'de> DeserializeSeed<'de> for ValSeed {
    type Value = Val;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValSeed {
    type Value = Val;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Val, E> {
        Ok(Val::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Val, E> {
        Ok(Val::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Val, E> {
        Ok(Val::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Val, E> {
        Ok(Val::Other)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Val, E> {
        Ok(Val::Str(s.to_string()))
    }
    fn visit_string<E: de::Error>(self, s: String) -> Result<Val, E> {
        Ok(Val::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom(Bail));
        }
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut all_strings = true;
        while let Some(v) = seq.next_element_seed(ValSeed(self.0 + 1))? {
            match v {
                Val::Str(s) if all_strings => out.push(s),
                _ => all_strings = false,
            }
        }
        Ok(if all_strings { Val::List(out) } else { Val::MixedList })
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Val, A::Error> {
        Ignore(self.0).visit_map(map)?;
        Ok(Val::Other)
    }
}

/// `rules` at depth `.0`.
struct RulesSeed(usize);

impl<'de> DeserializeSeed<'de> for RulesSeed {
    type Value = Rules;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Rules, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RulesSeed {
    type Value = Rules;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("rules")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Rules, E> {
        Ok(Rules::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rules, A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom(Bail));
        }
        let mut rules = Vec::new();
        let (mut strict, mut loose) = (true, true);
        while let Some(read) = seq.next_element_seed(RuleSeed(self.0 + 1))? {
            loose &= read.default_ok;
            match read.rule {
                Some(rule) if strict => rules.push(rule),
                _ => strict = false,
            }
        }
        Ok(match (strict, loose) {
            (true, _) => Rules::Ok(rules),
            (false, true) => Rules::DefaultOnly,
            (false, false) => Rules::Other,
        })
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Rules, E> {
        Ok(Rules::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Rules, E> {
        Ok(Rules::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Rules, E> {
        Ok(Rules::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Rules, E> {
        Ok(Rules::Other)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Rules, E> {
        Ok(Rules::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Rules, A::Error> {
        Ignore(self.0).visit_map(map)?;
        Ok(Rules::Other)
    }
}

/// One element of `rules`, as each profile sees it.
struct RuleRead {
    /// Profile `default` has nothing to say about it: an object of type
    /// `FORBID_LITERAL` whose `include_paths` / `exclude_paths`, if any, are
    /// lists.
    default_ok: bool,
    /// The rule, when profile `mneme` has nothing to say about it either: a
    /// non-empty `value` and well-formed path selectors (`memory::rules`).
    rule: Option<Rule>,
}

impl RuleRead {
    const BAD: RuleRead = RuleRead { default_ok: false, rule: None };
}

/// One element of `rules` at depth `.0`.
struct RuleSeed(usize);

impl<'de> DeserializeSeed<'de> for RuleSeed {
    type Value = RuleRead;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RuleRead, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for RuleSeed {
    type Value = RuleRead;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a rule")
    }
    fn visit_unit<E: de::Error>(self) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<RuleRead, E> {
        Ok(RuleRead::BAD)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<RuleRead, A::Error> {
        Ignore(self.0).visit_seq(seq)?;
        Ok(RuleRead::BAD)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RuleRead, A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom(Bail));
        }
        let (mut kind, mut value, mut include, mut exclude) = (None, None, None, None);
        let mut names = Names::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            names.insert(key)?;
            let slot = match key {
                "type" => &mut kind,
                "value" => &mut value,
                "include_paths" => &mut include,
                "exclude_paths" => &mut exclude,
                _ => {
                    map.next_value_seed(Ignore(self.0 + 1))?;
                    continue;
                }
            };
            *slot = Some(map.next_value_seed(ValSeed(self.0 + 1))?);
        }
        let is_list = |v: &Option<Val>| matches!(v, None | Some(Val::List(_) | Val::MixedList));
        let default_ok =
            matches!(kind, Some(Val::Str(ref t)) if t == FORBID_LITERAL) && is_list(&include) && is_list(&exclude);
        let selectors = |v: Val| match v {
            Val::List(l) if l.iter().all(|p| selector_problem(p).is_none()) => Some(l),
            _ => None,
        };
        let rule = (|| {
            if !default_ok {
                return None;
            }
            let Some(Val::Str(value)) = value else { return None };
            if python_strip(&value).is_empty() {
                return None;
            }
            let include_paths = match include {
                None => None,
                Some(v) => Some(selectors(v).filter(|l| !l.is_empty())?),
            };
            let exclude_paths = match exclude {
                None => Vec::new(),
                Some(v) => selectors(v)?,
            };
            if include_paths.is_none() && !exclude_paths.is_empty() {
                return None;
            }
            Some(Rule { value, include_paths, exclude_paths })
        })();
        Ok(RuleRead { default_ok, rule })
    }
}

/// Any value at depth `.0`, skipped, but never deeper than [`MAX_DEPTH`].
#[derive(Clone, Copy)]
/// `sections`: null, or an object whose known members (`summary`,
/// `decision`, `context`, `options`, `consequences`) are strings; other
/// members are read past. Anything else is for the tolerant reader to say.
struct SectionsSeed(usize);

impl<'de> DeserializeSeed<'de> for SectionsSeed {
    type Value = Sections;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Sections, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for SectionsSeed {
    type Value = Sections;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object of strings")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Sections, E> {
        Ok(Sections::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sections, A::Error> {
        let mut out = Sections::default();
        let mut seen = Names::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            seen.insert(key)?;
            let slot = match key {
                "summary" => &mut out.summary,
                "decision" => &mut out.decision,
                "context" => &mut out.context,
                "options" => &mut out.options,
                "consequences" => &mut out.consequences,
                _ => {
                    map.next_value_seed(Ignore(self.0 + 1))?;
                    continue;
                }
            };
            match map.next_value_seed(ValSeed(self.0 + 1))? {
                Val::Str(s) => *slot = s,
                _ => return Err(de::Error::custom(Bail)),
            }
        }
        Ok(out)
    }
}

struct Ignore(usize);

impl<'de> DeserializeSeed<'de> for Ignore {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Ignore {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom(Bail));
        }
        while seq.next_element_seed(Ignore(self.0 + 1))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.0 >= MAX_DEPTH {
            return Err(de::Error::custom(Bail));
        }
        let mut names = Names::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            names.insert(key)?;
            map.next_value_seed(Ignore(self.0 + 1))?;
        }
        Ok(())
    }
}
