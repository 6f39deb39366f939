/*!
A YAML tree that remembers where every node is.

A suite file is read through serde-saphyr into [`Node`], every child
[`Spanned`] with its location, rather than straight into typed structs: a
typed read stops at the first problem, while validating a `Node` by hand
reports every problem of a file, each at its `line:column`. A Mneme
`scenario.json` value is turned into the same tree (without locations), so
that one validator reads the assertions of both layouts.

It only holds and locates values: what a value must be is decided by the
files that read it (`native`, `mneme`, `assertions`).
*/

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

/// A YAML value read through serde-saphyr, every child with its location,
/// so that validation can report every problem of a file with its place.
#[derive(Debug)]
pub(super) enum Node {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Seq(Vec<Spanned<Node>>),
    Map(Vec<(Spanned<String>, Spanned<Node>)>),
}

impl Node {
    pub(super) fn kind(&self) -> String {
        match self {
            Node::Null => "nothing (null)".to_string(),
            Node::Bool(b) => format!("the boolean `{b}`"),
            Node::Number(n) => format!("the number `{n}`"),
            Node::Str(_) => "a string".to_string(),
            Node::Seq(_) => "a list".to_string(),
            Node::Map(_) => "a mapping".to_string(),
        }
    }

    /// A hint for a scalar that YAML did not read as a string.
    pub(super) fn quote_hint(&self) -> &'static str {
        match self {
            Node::Bool(_) | Node::Number(_) => " (quote it to make it a string)",
            _ => "",
        }
    }

    pub(super) fn from_json(v: &serde_json::Value) -> Spanned<Node> {
        let node = match v {
            serde_json::Value::Null => Node::Null,
            serde_json::Value::Bool(b) => Node::Bool(*b),
            serde_json::Value::Number(n) => Node::Number(n.to_string()),
            serde_json::Value::String(s) => Node::Str(s.clone()),
            serde_json::Value::Array(a) => Node::Seq(a.iter().map(Node::from_json).collect()),
            serde_json::Value::Object(o) => {
                Node::Map(o.iter().map(|(k, v)| (unspanned(k.clone()), Node::from_json(v))).collect())
            }
        };
        unspanned(node)
    }
}

fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned { value, referenced: Location::UNKNOWN, defined: Location::UNKNOWN }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NodeVisitor;
        impl<'de> Visitor<'de> for NodeVisitor {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Node, D2::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_char<E>(self, v: char) -> Result<Node, E> {
                Ok(Node::Str(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Node, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => Ok(Node::Str(s.to_owned())),
                    Err(_) => Err(E::custom("binary values are not supported")),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element()? {
                    out.push(item);
                }
                Ok(Node::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    out.push(entry);
                }
                Ok(Node::Map(out))
            }
        }
        d.deserialize_any(NodeVisitor)
    }
}

/// 1-based line and column of a node; `None` when unknown.
pub(super) fn pos<T>(s: &Spanned<T>) -> Option<(usize, usize)> {
    let l = s.referenced.line() as usize;
    let c = s.referenced.column() as usize;
    (l > 0).then_some((l, c.max(1)))
}

pub(super) fn pos_or_1<T>(s: &Spanned<T>) -> (usize, usize) {
    pos(s).unwrap_or((1, 1))
}
