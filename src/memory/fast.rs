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

use std::cell::RefCell;
use std::fmt;
use std::sync::Arc;

use globset::Glob;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::de::{self, DeserializeSeed};

use super::glob::compile_glob;
use super::migrate::migrate;
use super::pool::Segment;
use super::{Decision, Rare, RecordKind, Rule, Sections};
use crate::profile::Family;

mod document;
mod values;

use document::{Root, RootSeed};

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
pub(super) fn load(text: &str, family: Family) -> Result<(usize, Vec<Segment>), Bail> {
    let mut de = serde_json::Deserializer::from_str(text);
    let globs = RefCell::new(Globs::default());
    let root = RootSeed { base: text.as_ptr() as usize, text, family, globs: &globs }
        .deserialize(&mut de)
        .map_err(|_| Bail)?;
    drop(globs);
    de.end().map_err(|_| Bail)?;
    let (decisions, items) = match root {
        Root::Array(items) => (Vec::new(), items),
        Root::Object { decisions, items } => (decisions, items),
    };
    let records = decisions.len() + items.len();
    // Decision records first, then the item records of `decisions`, then `items`.
    if decisions.iter().all(|d| d.kind == RecordKind::DecisionRecord) {
        return Ok((records, vec![Segment::of(decisions), Segment::of(items)]));
    }
    let (decision_records, items_in_decisions) =
        decisions.into_iter().partition(|d| d.kind == RecordKind::DecisionRecord);
    Ok((records, vec![Segment::of(decision_records), Segment::of(items_in_decisions), Segment::of(items)]))
}

/// The scope globs compiled while loading, by pattern: a pattern written by
/// many records (a synthetic memory of a million records writes 435,000
/// globs, 82,500 of them distinct) is compiled and held once.
pub(super) type Globs = FxHashMap<String, Arc<Glob>>;

/// The compiled glob of `pattern`, from `globs` or compiled and kept there.
fn shared_glob(globs: &mut Globs, pattern: &str) -> Result<Arc<Glob>, Bail> {
    if let Some(glob) = globs.get(pattern) {
        return Ok(Arc::clone(glob));
    }
    let glob = Arc::new(compile_glob(pattern).map_err(|_| Bail)?);
    globs.insert(pattern.to_string(), Arc::clone(&glob));
    Ok(glob)
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
fn map(r: Raw, in_decisions: bool, family: Family, shared: &mut Globs) -> Result<Decision, Bail> {
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
            globs.push(shared_glob(shared, pattern)?);
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
            paths,
            kind: RecordKind::DecisionRecord,
            offset: r.offset,
            globs,
            rare: Rare { sections: r.sections.unwrap_or_default(), status, rules, ..Rare::default() }.boxed(),
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
            paths: Vec::new(),
            kind: RecordKind::Item(String::new()),
            offset: r.offset,
            globs: Vec::new(),
            rare: Rare { status, ..Rare::default() }.boxed(),
        };
        match family {
            Family::Default => {
                d.globs.reserve_exact(scope.len());
                for pattern in &scope {
                    d.globs.push(shared_glob(shared, pattern)?);
                }
                d.paths = scope;
            }
            Family::Mneme => migrate(&mut d, &item_type),
        }
        d.kind = RecordKind::Item(item_type);
        d
    };
    Ok(decision)
}
