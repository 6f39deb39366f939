//! The visitors of the fast path over a record's member values: strings and
//! string lists, rules, ADR sections, and values it skips (depth-checked, never
//! kept).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::{Bail, Names, Rules, Val, MAX_DEPTH};
use crate::memory::rules::{python_strip, selector_problem, FORBID_LITERAL};
use crate::memory::{Rule, Sections};

/// A member value at depth `.0`.
pub(super) struct ValSeed(pub(super) usize);

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
        // `serde_json` gives no length: growth leaves room for four strings
        // where a record's list usually holds one or two.
        out.shrink_to_fit();
        Ok(if all_strings { Val::List(out) } else { Val::MixedList })
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Val, A::Error> {
        Ignore(self.0).visit_map(map)?;
        Ok(Val::Other)
    }
}

/// `rules` at depth `.0`.
pub(super) struct RulesSeed(pub(super) usize);

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
pub(super) struct SectionsSeed(pub(super) usize);

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
                "subsections" => &mut out.subsections,
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

pub(super) struct Ignore(pub(super) usize);

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
