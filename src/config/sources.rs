//! `memory:` in `mneme-gate.yaml`: one memory file, or a list of decision
//! sources (see `crate::memory::sources`).
//!
//! ```yaml
//! memory:
//!   - project_memory.json          # a JSON memory file
//!   - adr: docs/adr/                # architecture decision records
//!     id_prefix: DEC-               #   ids DEC-0001, … (default ADR-)
//!     proposed: inactive            #   Proposed ADRs out of the pool (default active)
//!     id_from: front_matter         #   or `number`, `stem` (see docs/sources.md)
//!   - cursor: .cursor/rules/
//!   - copilot: .github/
//!   - claude: .
//!   - agents: .                     # AGENTS.md files, each scoped to its folder
//! ```
//!
//! Read with a hand-written visitor rather than an untagged enum, so that
//! a mistake is said in words at its line (an untagged enum only says that
//! nothing matched).

use std::fmt;
use std::path::PathBuf;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::memory::sources::{IdFrom, Proposed};
use crate::memory::{DecisionSource, SourceKind};

/// `memory:` as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryConfig {
    /// One memory file.
    One(String),
    /// A list of sources, in pool order.
    Many(Vec<SourceEntry>),
}

/// One source of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEntry {
    pub kind: SourceKind,
    pub path: String,
    pub id_prefix: Option<String>,
    pub proposed: Option<Proposed>,
    pub id_from: Option<IdFrom>,
    /// Where the path is written (a list element written as a path alone
    /// has no place of its own: the place of `memory:` stands for it).
    pub at: Option<serde_saphyr::Location>,
}

impl SourceEntry {
    /// The source, its path resolved by `resolve`.
    pub fn source(&self, resolve: impl Fn(&str) -> PathBuf) -> DecisionSource {
        let mut s = DecisionSource::new(self.kind, resolve(&self.path));
        s.id_prefix = self.id_prefix.clone();
        s.proposed = self.proposed.unwrap_or_default();
        s.id_from = self.id_from.unwrap_or_default();
        s
    }
}

const KINDS: &str = "`adr`, `cursor`, `copilot`, `claude`, `agents` or `json`";

impl<'de> Deserialize<'de> for MemoryConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MemoryVisitor)
    }
}

struct MemoryVisitor;

impl<'de> Visitor<'de> for MemoryVisitor {
    type Value = MemoryConfig;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the path of a memory file, or a list of sources")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<MemoryConfig, E> {
        Ok(MemoryConfig::One(v.to_string()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MemoryConfig, A::Error> {
        let mut out = Vec::new();
        while let Some(entry) = seq.next_element::<SourceEntry>()? {
            out.push(entry);
        }
        if out.is_empty() {
            return Err(de::Error::custom(format!(
                "`memory` is an empty list: name at least one source ({KINDS} with a path)"
            )));
        }
        Ok(MemoryConfig::Many(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<MemoryConfig, A::Error> {
        Err(de::Error::custom(
            "`memory` is a path or a list of sources; write a source as a list element (`- adr: docs/adr/`)",
        ))
    }
}

impl<'de> Deserialize<'de> for SourceEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = SourceEntry;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a memory file, or {KINDS} with a path")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<SourceEntry, E> {
        Ok(SourceEntry {
            kind: SourceKind::Json,
            path: v.to_string(),
            id_prefix: None,
            proposed: None,
            id_from: None,
            at: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SourceEntry, A::Error> {
        let mut kind: Option<(SourceKind, String, serde_saphyr::Location)> = None;
        let mut id_prefix = None;
        let mut proposed = None;
        let mut id_from = None;
        while let Some(key) = map.next_key::<String>()? {
            if let Some(k) = SourceKind::parse(&key) {
                let path: serde_saphyr::Spanned<String> = map
                    .next_value()
                    .map_err(|_: A::Error| de::Error::custom(format!("`{key}` takes a path (a folder or a file)")))?;
                if let Some((first, _, _)) = &kind {
                    return Err(de::Error::custom(format!(
                        "a source has one kind; `{}` and `{key}` are two: write them as two list elements",
                        first.name()
                    )));
                }
                kind = Some((k, path.value, path.referenced));
                continue;
            }
            match key.as_str() {
                "id_prefix" => id_prefix = Some(map.next_value::<String>()?),
                "proposed" => {
                    let v: String = map.next_value()?;
                    proposed = Some(match v.as_str() {
                        "active" => Proposed::Active,
                        "inactive" => Proposed::Inactive,
                        other => {
                            return Err(de::Error::custom(format!(
                                "`proposed` is `{other}`; use `active` (Proposed ADRs are retrieved) or `inactive`"
                            )))
                        }
                    });
                }
                "id_from" => {
                    let v: String = map.next_value()?;
                    id_from = Some(IdFrom::parse(&v).ok_or_else(|| {
                        de::Error::custom(format!(
                            "`id_from` is `{v}`; use `front_matter` (front matter `id:`, else the number, else the file name: the default), `number` or `stem` (docs/sources.md: Ids stay put)"
                        ))
                    })?);
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key `{other}` in a source: a source is {KINDS} with a path, and an `adr` source may add `id_prefix`, `id_from` and `proposed`"
                    )))
                }
            }
        }
        let Some((kind, path, at)) = kind else {
            return Err(de::Error::custom(format!("a source needs its kind and path, as `adr: docs/adr/` ({KINDS})")));
        };
        if kind != SourceKind::Adr && (id_prefix.is_some() || proposed.is_some() || id_from.is_some()) {
            return Err(de::Error::custom(format!(
                "`id_prefix`, `id_from` and `proposed` are for `adr` sources, not `{}`",
                kind.name()
            )));
        }
        let at = Some(at).filter(|l| l.line() > 0);
        Ok(SourceEntry { kind, path, id_prefix, proposed, id_from, at })
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;

    fn parse(text: &str) -> Result<Config, crate::config::ConfigError> {
        Config::parse(Path::new("conf/mneme-gate.yaml"), text)
    }

    #[test]
    fn memory_is_a_file_or_a_list_of_sources() {
        let c = parse("memory:\n  - m.json\n  - adr: docs/adr/\n    id_prefix: DEC-\n    id_from: stem\n    proposed: inactive\n  - cursor: .cursor/rules/\n  - copilot: .github/\n  - claude: .\n").unwrap();
        let s = c.memory_sources(&[]).unwrap();
        assert_eq!(s.root, Path::new("conf"));
        let labels: Vec<String> = s.list.iter().map(DecisionSource::label).collect();
        assert_eq!(
            labels,
            ["conf/m.json", "adr:conf/docs/adr", "cursor:conf/.cursor/rules", "copilot:conf/.github", "claude:conf"]
        );
        assert_eq!(s.list[1].id_prefix.as_deref(), Some("DEC-"));
        assert_eq!(s.list[1].proposed, Proposed::Inactive);
        assert_eq!(s.list[1].id_from, IdFrom::Stem);
        assert_eq!(s.list[0].id_from, IdFrom::FrontMatter);
        let c = parse("memory:\n  - agents: .\n").unwrap();
        assert_eq!(c.memory_sources(&[]).unwrap().list[0].kind, SourceKind::Agents);
        // The flow form fits on one line.
        let c = parse("memory: [adr: docs/adr/, cursor: .cursor/rules/]\n").unwrap();
        assert_eq!(c.memory_sources(&[]).unwrap().list.len(), 2);
        let c = parse("memory: m.json\n").unwrap();
        assert_eq!(c.memory_sources(&[]).unwrap().single_json(), Some(Path::new("conf/m.json")));
        // Flags win, each `KIND:PATH` or a JSON file, relative to the working folder.
        let flags = [PathBuf::from("adr:x"), PathBuf::from("y.json")];
        let s = c.memory_sources(&flags).unwrap();
        assert_eq!(
            (s.list[0].kind, s.list[1].kind, s.root.as_path()),
            (SourceKind::Adr, SourceKind::Json, Path::new("."))
        );
    }

    #[test]
    fn a_mistake_in_a_source_is_said_at_its_line() {
        let cases = [
            ("memory:\n  - adr: a\n    cursor: b\n", 3, "a source has one kind; `adr` and `cursor` are two"),
            ("memory:\n  - adrs: a\n", 2, "unknown key `adrs` in a source"),
            (
                "memory:\n  - cursor: a\n    id_prefix: X\n",
                2,
                "`id_prefix`, `id_from` and `proposed` are for `adr` sources",
            ),
            ("memory:\n  - adr: a\n    id_from: slug\n", 3, "`id_from` is `slug`"),
            ("memory:\n  - adr: a\n    proposed: maybe\n", 3, "`proposed` is `maybe`"),
            ("memory: []\n", 1, "`memory` is an empty list"),
            ("memory:\n  adr: a\n", 2, "`memory` is a path or a list of sources"),
            ("memory:\n  - id_prefix: X\n", 2, "a source needs its kind and path"),
        ];
        for (text, line, start) in cases {
            let e = parse(text).unwrap_err();
            assert!(e.message.starts_with(start), "{text:?}: {e}");
            assert!(e.line.is_some_and(|l| l.abs_diff(line) <= 1), "{text:?}: {e:?}");
        }
    }
}
