//! Python's canonical JSON (`json.dumps(..., sort_keys=True,
//! separators=(",", ":"), ensure_ascii=True)`) and the SHA-256 identities
//! built on it.

use std::fmt::Write as _;

use super::values::integer;
use crate::memory::located_json::{Node, Value};

/// A value to write canonically: a node of the file, or one built here.
pub(super) enum J<'a> {
    Node(&'a Node),
    Str(&'a str),
    List(Vec<J<'a>>),
}

pub(super) fn strs(items: &[String]) -> J<'_> {
    J::List(items.iter().map(|s| J::Str(s)).collect())
}

/// `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`.
pub(super) fn canonical(value: &J<'_>) -> String {
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
pub(super) fn python_float_repr(x: f64) -> String {
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

pub(super) fn sha256_hex(value: &J<'_>) -> String {
    crate::digest::sha256_hex(canonical(value))
}
