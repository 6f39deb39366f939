//! The run-wide budget of records and list entries: how many a JSON memory
//! text holds, counted before it is parsed.
//!
//! A list entry costs memory of its own whatever its length (a string of one
//! character still takes a string's few dozen bytes), so an 80 MB file of
//! one-character constraints grows sixteen times in memory; a file of normal
//! records about seven times. Counting the elements of every array (records
//! in `decisions` and `items`, constraints, anti-patterns, tags, scope, rules)
//! before either reader builds anything keeps memory proportional to the
//! input for every shape, in one pass over the bytes.

/// The most array elements (records and list entries, over every JSON
/// memory file and decision source of one run) read: about three times the
/// memory-scale benchmark's million small records (2.6 million), and more
/// than a 512 MiB memory of normal records holds (about 5.7 million).
pub const MAX_MEMORY_ITEMS: u64 = 8_000_000;

/// The number of array elements in a JSON text (strings skipped, escapes
/// included); for text that is not JSON, a count of the same kind, never
/// more than the bytes.
pub(crate) fn array_elements(text: &str) -> u64 {
    let bytes = text.as_bytes();
    // One bit a level: the container at that level is an array.
    let mut arrays: Vec<u64> = Vec::new();
    let mut depth = 0usize;
    let mut count = 0u64;
    let mut first = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        i += 1;
        if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
            continue;
        }
        if std::mem::take(&mut first) && c != b']' {
            count += 1;
        }
        match c {
            b'"' => {
                // To the closing quote: a backslash escapes the next byte.
                loop {
                    match bytes.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'"' || b == b'\\')) {
                        None => {
                            i = bytes.len();
                            break;
                        }
                        Some(at) if bytes[i + at] == b'"' => {
                            i += at + 1;
                            break;
                        }
                        Some(at) => i += at + 2,
                    }
                }
            }
            b'[' | b'{' => {
                let (word, bit) = (depth / 64, 1u64 << (depth % 64));
                if arrays.len() <= word {
                    arrays.push(0);
                }
                if c == b'[' {
                    arrays[word] |= bit;
                } else {
                    arrays[word] &= !bit;
                }
                depth += 1;
                first = c == b'[';
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth > 0 && arrays[(depth - 1) / 64] & (1u64 << ((depth - 1) % 64)) != 0 => count += 1,
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_array_element_is_counted_once() {
        assert_eq!(array_elements("{}"), 0);
        assert_eq!(array_elements("[]"), 0);
        assert_eq!(array_elements("[ ]"), 0);
        assert_eq!(array_elements("[1]"), 1);
        assert_eq!(array_elements(r#"{"decisions": [{"id": "A", "tags": ["a", "b"]}, {"id": "B", "scope": []}]}"#), 4);
        // Commas and brackets inside strings are text.
        assert_eq!(array_elements(r#"["a,b", "[c]", "d\"],"]"#), 3);
        assert_eq!(array_elements(r#"["a\\", "b"]"#), 2);
        // An unterminated string ends the count.
        assert_eq!(array_elements(r#"[1, "a, b, c"#), 2);
        assert_eq!(array_elements(r#"{"a": 1, "b": [[1, 2], {"c": [3]}]}"#), 5);
        // Deeper than a word of bits.
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(array_elements(&deep), 200);
    }
}
