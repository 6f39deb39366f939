//! The visitors of the fast path over the document and its records: the root
//! object (`meta`, `decisions` or `items`), a top-level array, and each
//! record's members into a `Raw` record.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::values::{Ignore, RulesSeed, SectionsSeed, ValSeed};
use super::{map, Bail, Globs, Names, Raw};
use crate::memory::Decision;
use crate::profile::Family;

pub(super) enum Root {
    Array(Vec<Decision>),
    Object { decisions: Vec<Decision>, items: Vec<Decision> },
}

#[derive(Clone, Copy)]
pub(super) struct RootSeed<'t> {
    pub(super) base: usize,
    pub(super) text: &'t str,
    pub(super) family: Family,
    /// The scope globs compiled so far, shared by the records that write them.
    pub(super) globs: &'t RefCell<Globs>,
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
    type Value = Option<Vec<Decision>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopArray<'_> {
    type Value = Option<Vec<Decision>>;
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
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Decision>, A::Error> {
        // Room for as many records as the text could hold at a few hundred
        // bytes each: pages never touched cost nothing, growth copies would.
        let mut out = Vec::with_capacity(self.root.text.len() / 256);
        let in_decisions = self.in_decisions;
        while let Some(raw) = seq.next_element_seed(RecordSeed { root: self.root, depth: self.depth + 1 })? {
            let mut globs = self.root.globs.borrow_mut();
            out.push(map(raw, in_decisions, self.root.family, &mut globs).map_err(de::Error::custom)?);
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
