/*!
Lines and columns of byte offsets in the memory text.

Why it exists: every diagnostic and every record kept out of the pool is
reported as `path:line:column`, while both loaders only keep byte offsets
(the fast path has nothing else to keep). Turning one into the other is
shared here, in two forms that give the same answers: [`line_col`] over the
[`line_starts`] of a text (random access, what [`Memory::line_col`] caches),
and a [`LineCursor`] that counts newlines between offsets asked in nearly
increasing order (what building the pool does, without indexing the file).

Columns count characters, not bytes, and start at 1. It deliberately knows
nothing of JSON.

[`Memory::line_col`]: super::Memory::line_col
*/

/// Maps byte offsets of one text to 1-based line and column: the plain
/// reference the tests check [`LineCursor`] against.
#[cfg(test)]
pub(super) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

#[cfg(test)]
impl<'a> LineIndex<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        LineIndex { text, starts: line_starts(text) }
    }

    pub(super) fn line_col(&self, offset: usize) -> (usize, usize) {
        line_col(self.text, &self.starts, offset)
    }
}

/// The byte offset of every line start of `text`.
pub(super) fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.iter().filter(|&&b| b == b'\n').count() + 1);
    starts.push(0);
    // Eight bytes at a time: a byte of `x` is zero exactly where `word` has
    // a newline, and the mask sets the high bit of exactly those bytes.
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder();
    for (i, chunk) in chunks.enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let x = word ^ 0x0a0a_0a0a_0a0a_0a0a;
        let mut zero = !(((x & LOW7) + LOW7) | x) & !LOW7;
        while zero != 0 {
            starts.push(i * 8 + zero.trailing_zeros() as usize / 8 + 1);
            zero &= zero - 1;
        }
    }
    let base = bytes.len() - tail.len();
    starts.extend(tail.iter().enumerate().filter(|&(_, &b)| b == b'\n').map(|(i, _)| base + i + 1));
    starts
}

/// 1-based line and column (in characters) of `offset`, given the
/// [`line_starts`] of `text` (the tests' reference).
#[cfg(test)]
pub(super) fn line_col(text: &str, starts: &[usize], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let mut end = offset;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (line + 1, text[starts[line]..end].chars().count() + 1)
}

/// [`line_col`], counting the column from `last` (an offset answered
/// before: offset, 0-based line, 1-based column) when `offset` is after it
/// on the same line; also returns what to pass as `last` next time.
pub(super) fn line_col_after(
    text: &str,
    starts: &[usize],
    offset: usize,
    last: Option<(usize, usize, usize)>,
) -> ((usize, usize), (usize, usize, usize)) {
    let offset = offset.min(text.len());
    let line = starts.partition_point(|&s| s <= offset) - 1;
    let mut end = offset;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let column = match last {
        Some((at, at_line, at_column)) if at_line == line && at <= end => at_column + text[at..end].chars().count(),
        _ => text[starts[line]..end].chars().count() + 1,
    };
    ((line + 1, column), (end, line, column))
}

/// Line and column of offsets visited in (mostly) increasing order: the
/// same answers as [`line_col`], counting newlines and characters from the
/// last offset asked (a memory on one line costs no more than one with a
/// record a line: a column is never counted from the line start again
/// unless the cursor moves back).
pub(super) struct LineCursor {
    /// A character boundary.
    offset: usize,
    /// 0-based line of `offset`.
    line: usize,
    /// 1-based column (in characters) of `offset`.
    column: usize,
}

impl LineCursor {
    pub(super) fn new() -> LineCursor {
        LineCursor { offset: 0, line: 0, column: 1 }
    }

    pub(super) fn line_col(&mut self, text: &str, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let newlines = |a: usize, b: usize| text.as_bytes()[a..b].iter().filter(|&&c| c == b'\n').count();
        if offset >= self.offset {
            let span = &text[self.offset..offset];
            match span.rfind('\n') {
                Some(last) => {
                    self.line += newlines(self.offset, offset);
                    self.column = span[last + 1..].chars().count() + 1;
                }
                None => self.column += span.chars().count(),
            }
        } else {
            self.line -= newlines(offset, self.offset);
            let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            self.column = text[start..offset].chars().count() + 1;
        }
        self.offset = offset;
        (self.line + 1, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_after_agrees_with_line_col_in_any_order() {
        let text = "ab\u{e9}c\n\u{1f600}xyz\n\nlast line";
        let starts = line_starts(text);
        let mut last = None;
        let offsets: Vec<usize> = (0..=text.len()).chain((0..=text.len()).rev()).chain([3, 1, 9, 2, 20]).collect();
        for offset in offsets {
            let (got, next) = line_col_after(text, &starts, offset, last);
            assert_eq!(got, line_col(text, &starts, offset), "offset {offset}");
            last = Some(next);
        }
    }

    #[test]
    fn line_starts_finds_every_newline() {
        let text: String = (0..300u32)
            .map(|i| if i % 7 == 0 || i % 11 == 3 { '\n' } else { char::from(b'a' + (i % 26) as u8) })
            .collect();
        for end in 0..text.len() {
            let t = &text[..end];
            let naive: Vec<usize> = std::iter::once(0)
                .chain(t.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1))
                .collect();
            assert_eq!(line_starts(t), naive);
        }
        assert_eq!(line_starts("é\n€\n\u{10a0a}\n"), [0, 3, 7, 12]);
    }

    #[test]
    fn line_and_column_count_characters() {
        let text = "ab\n€é\"x";
        let ix = LineIndex::new(text);
        assert_eq!(ix.line_col(0), (1, 1));
        assert_eq!(ix.line_col(3), (2, 1));
        let quote = text.find('"').unwrap();
        assert_eq!(ix.line_col(quote), (2, 3));
    }

    #[test]
    fn the_line_cursor_agrees_with_line_col() {
        let text = "ab\n€é\"x\n\n  {\"a\": 1}\nlast";
        let index = LineIndex::new(text);
        let mut cursor = LineCursor::new();
        for offset in [0, 3, 5, 4, 9, 1, 12, 13, 30, 7, 0, text.len(), 100, 2, 6, 6, 8, 3, 15, 4] {
            assert_eq!(cursor.line_col(text, offset), index.line_col(offset), "{offset}");
        }
        // Every pair of offsets, forwards and back, on a text with long
        // lines, several-byte characters and offsets inside them.
        let text = "{\"a\": \"é€x\", \"b\": 1}\n\n  [\"\u{10a0a}\", 2,\n\"z\"] é";
        let index = LineIndex::new(text);
        for a in 0..=text.len() + 1 {
            for b in 0..=text.len() + 1 {
                let mut cursor = LineCursor::new();
                assert_eq!(cursor.line_col(text, a), index.line_col(a), "{a}");
                assert_eq!(cursor.line_col(text, b), index.line_col(b), "{a} then {b}");
            }
        }
    }
}
