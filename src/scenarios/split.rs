/*!
A big suite file cut into pieces that can be parsed at the same time.

YAML is parsed from the first byte to the last, so one big suite file would
be read by one thread while the others wait, and its whole tree would be in
memory before the first scenario is made from it. Most big suite files are
one plain list:

```yaml
scenarios:
  - id: a
    task: ...
  - id: b
    task: ...
```

Each entry of such a list starts on a line of its own, at the list's
indentation, with `- `. This file finds those lines and cuts the list into
pieces of whole entries. A piece is parsed on its own as a list, preceded by
as many empty lines as the file has before it, so every `line:column` the
parser reports is the file's own.

Only a file that is plainly that shape is cut ([`pieces`] says `None`
otherwise, and the file is read whole):

- its first line that is neither blank nor a comment is `scenarios:`, and
  every later line that is neither blank nor a comment is an entry line or
  is indented more deeply than the entries;
- it has no `&` (no anchors, so no alias can name a value in another piece),
  no carriage return (YAML counts a lone one as a line break), no other
  character a reader may take for a line break (NEL, U+2028, U+2029) and no
  byte order mark.

A line that starts an entry can only be something else inside a quoted or
flow value that is still open, and then the piece before it does not parse.
So the caller keeps a piece's result only when the piece parses as a list of
exactly as many entries as were found in it, and the lines before the first
entry (in no piece) parse too; it reads the file whole otherwise: errors are
always reported as reading the whole file reports them.
*/

/// Where one piece of a suite file is: whole lines, from the line that
/// starts its first entry to the end of its last entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Piece {
    /// Byte range in the file's text.
    start: usize,
    end: usize,
    /// Lines of the file before the piece.
    lines_before: usize,
    /// Entries that start in the piece.
    pub(super) entries: usize,
}

impl Piece {
    /// The file's text before this piece: for the first piece, the lines
    /// before the list's first entry (comments, `scenarios:`), which no
    /// piece holds and which must be read too.
    pub(super) fn before<'t>(&self, file: &'t str) -> &'t str {
        &file[..self.start]
    }

    /// The piece's text as the parser reads it: preceded by one empty line
    /// for each line of the file before it, so its locations are the file's.
    pub(super) fn text(&self, file: &str) -> String {
        let body = &file[self.start..self.end];
        let mut text = String::with_capacity(self.lines_before + body.len());
        text.extend(std::iter::repeat_n('\n', self.lines_before));
        text.push_str(body);
        text
    }
}

/// The pieces of a suite file written as one plain `scenarios:` list (see
/// the module's notes), each of at least `min_entries` entries, at most
/// `max_pieces` of them, in file order; `None` when the file is not of that
/// shape or would make fewer than two pieces.
pub(super) fn pieces(text: &str, min_entries: usize, max_pieces: usize) -> Option<Vec<Piece>> {
    if text.starts_with('\u{feff}')
        || text.bytes().any(|b| b == b'&' || b == b'\r')
        || text.contains(['\u{85}', '\u{2028}', '\u{2029}'])
    {
        return None;
    }
    // Each entry's first byte and line number (0-based).
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut header = false;
    let mut indent = None;
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        let at = offset;
        offset += line.len();
        let content = line.strip_suffix('\n').unwrap_or(line);
        let rest = content.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        if !header {
            // The key alone; a comment after it, set off by a space.
            let after = content.strip_prefix("scenarios:")?;
            let value = after.trim_start_matches(' ');
            let comment = value.starts_with('#') && value.len() < after.len();
            if !(value.is_empty() || comment) {
                return None;
            }
            header = true;
            continue;
        }
        let depth = content.len() - rest.len();
        let is_entry = rest == "-" || rest.starts_with("- ");
        match indent {
            None if is_entry => indent = Some(depth),
            None => return None,
            Some(i) if depth == i && is_entry => {}
            Some(i) if depth > i => continue,
            Some(_) => return None,
        }
        starts.push((at, number));
    }
    let count = starts.len();
    let size = count.div_ceil(max_pieces.max(1)).max(min_entries.max(1));
    if count < 2 * size {
        return None;
    }
    let pieces = starts
        .chunks(size)
        .enumerate()
        .map(|(i, chunk)| {
            let (start, lines_before) = chunk[0];
            let end = starts.get((i + 1) * size).map_or(text.len(), |&(next, _)| next);
            Piece { start, end, lines_before, entries: chunk.len() }
        })
        .collect();
    Some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str, min: usize, max: usize) -> Option<Vec<String>> {
        pieces(text, min, max).map(|p| p.iter().map(|p| p.text(text)).collect())
    }

    #[test]
    fn cuts_a_plain_list_between_entries_keeping_line_numbers() {
        let text = "# a suite\nscenarios: # all of them\n  - id: a\n    task: x\n\n  # b next\n  - id: b\n    task: |\n      - not an entry\n  - id: c\n";
        let got = texts(text, 1, 10).unwrap();
        assert_eq!(
            got,
            vec![
                "\n\n  - id: a\n    task: x\n\n  # b next\n".to_string(),
                "\n\n\n\n\n\n  - id: b\n    task: |\n      - not an entry\n".to_string(),
                "\n\n\n\n\n\n\n\n\n  - id: c\n".to_string(),
            ]
        );
        let p = pieces(text, 1, 10).unwrap();
        assert_eq!(p.iter().map(|p| p.entries).collect::<Vec<_>>(), vec![1, 1, 1]);
        // The pieces cover the list exactly.
        assert_eq!(p[0].start, text.find("  - id: a").unwrap());
        assert_eq!(p[2].end, text.len());
    }

    #[test]
    fn piece_sizes_follow_the_bounds() {
        let text: String = "scenarios:\n".to_string() + &"- id: x\n  task: t\n".repeat(100);
        let sizes = |min, max| pieces(&text, min, max).map(|p| p.iter().map(|p| p.entries).collect::<Vec<_>>());
        assert_eq!(sizes(10, 4), Some(vec![25, 25, 25, 25]));
        assert_eq!(sizes(10, 3), Some(vec![34, 34, 32]));
        assert_eq!(sizes(1, 64), Some(vec![2; 50]));
        assert_eq!(sizes(40, 4), Some(vec![40, 40, 20]));
        assert_eq!(sizes(50, 64), Some(vec![50, 50]));
        // Fewer than two pieces: not worth cutting.
        assert_eq!(sizes(51, 64), None);
        assert_eq!(sizes(1, 1), None);
    }

    #[test]
    fn refuses_any_other_shape() {
        let entries = "  - id: a\n    task: x\n  - id: b\n    task: y\n";
        let ok = format!("scenarios:\n{entries}");
        assert!(pieces(&ok, 1, 8).is_some());
        for bad in [
            format!("version: 1\nscenarios:\n{entries}"),
            format!("scenarios:\n{entries}other: 1\n"),
            format!("scenarios:\n{entries} - id: c\n"),
            format!("scenarios:\n{entries}  id: c\n"),
            format!("\u{feff}scenarios:\n{entries}"),
            format!("scenarios:\r\n{entries}"),
            format!("scenarios:\n{entries}  - id: c\n    task: x\u{85}y\n"),
            format!("scenarios:\n{entries}  - id: c\n    task: x\u{2028}y\n"),
            format!("scenarios:\n{entries}  - id: c\n    task: &t x\n"),
            format!("---\nscenarios:\n{entries}"),
            format!("scenarios:\n{entries}---\n"),
            format!("scenarios: []\n{entries}"),
            format!("\"scenarios\":\n{entries}"),
            format!("scenarios:\n    task: x\n{entries}"),
            format!("scenarios:\n\t- id: c\n{entries}"),
        ] {
            assert_eq!(pieces(&bad, 1, 8), None, "{bad:?}");
        }
    }
}
