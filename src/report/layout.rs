/*!
Fitting text to a terminal's width: how wide a string shows, and long lines
wrapped with a hanging indent.

The width is decided once by the command line (`COLUMNS`, else the width of
the terminal the text goes to, else none) and handed to the writers as plain
data; `None` means a file or a pipe, where a line is as long as it needs to
be and nothing here changes it. Only text meant for people is wrapped:
tables are laid out by comfy-table to the same width, and line-oriented
output that tools read (`validate`, the context block, JSON) never is.
*/

/// The narrowest width text is laid out to: below it tables cannot keep
/// their columns apart, so a smaller `COLUMNS` is taken as this.
pub const MIN_WIDTH: usize = 40;

/// How many columns `s` takes in a terminal, approximately: one per
/// character, two for East Asian wide and full-width characters (and
/// emoji), none for combining marks and zero-width characters. Control
/// characters never reach here (they are shown escaped first).
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    match c as u32 {
        0x0300..=0x036F
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x200B..=0x200F
        | 0x20D0..=0x20FF
        | 0xFE00..=0xFE0F
        | 0xFE20..=0xFE2F => 0,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// `text` (one line) as lines of at most `width` columns: broken at spaces,
/// each continuation line indented by the line's own indent plus `hang`
/// columns; a word longer than a line is cut. Without a width, or when it
/// fits, the line itself.
pub fn wrap(text: &str, width: Option<usize>, hang: usize) -> Vec<String> {
    let Some(width) = width else { return vec![text.to_string()] };
    if self::width(text) <= width {
        return vec![text.to_string()];
    }
    let lead = text.len() - text.trim_start_matches(' ').len();
    let indent = " ".repeat((lead + hang).min(width / 2));
    wrap_with(text, width, &indent)
}

/// Like [`wrap`], with continuation lines starting with `prefix` (a diff
/// line keeps its `-` or `+` column, say).
pub fn wrap_with(text: &str, columns: usize, prefix: &str) -> Vec<String> {
    let prefix_width = width(prefix);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    // Nothing but the indent or the prefix on the line yet.
    let mut fresh = true;
    let mut rest = text;
    while !rest.is_empty() {
        // The next word, with the spaces before it.
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        let word_end = rest[spaces..].find(' ').map_or(rest.len(), |i| spaces + i);
        let (gap, word) = (&rest[..spaces], &rest[spaces..word_end]);
        rest = &rest[word_end..];
        // The spaces where a line is broken are dropped, except the indent
        // of the first line.
        let keep_gap = !fresh || out.is_empty();
        let need = if keep_gap { width(gap) } else { 0 } + width(word);
        if used + need <= columns {
            if keep_gap {
                line.push_str(gap);
            }
            line.push_str(word);
            used += need;
            fresh &= word.is_empty();
            continue;
        }
        if !fresh {
            out.push(std::mem::take(&mut line));
            line.push_str(prefix);
            used = prefix_width;
        } else if keep_gap {
            line.push_str(gap);
            used += width(gap);
        }
        // A word longer than what is left of a line is cut.
        let mut word = word;
        while used + width(word) > columns {
            let cut = cut_at(word, columns.saturating_sub(used).max(1));
            line.push_str(&word[..cut]);
            out.push(std::mem::take(&mut line));
            line.push_str(prefix);
            used = prefix_width;
            word = &word[cut..];
        }
        line.push_str(word);
        used += width(word);
        fresh &= word.is_empty();
    }
    if out.is_empty() || !fresh {
        out.push(line);
    }
    out
}

/// The byte index before which `s` takes at most `columns` (at least one
/// character).
fn cut_at(s: &str, columns: usize) -> usize {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        let w = char_width(c);
        if used + w > columns && i > 0 {
            return i;
        }
        used += w;
    }
    s.len()
}

/// An id cut into lines of at most `columns` after its separators (`-`,
/// `_`, `.`, `/`, `:`), for a table column narrower than the id; a piece
/// with no separator is cut where it must.
pub fn break_id(id: &str, columns: usize) -> String {
    if width(id) <= columns {
        return id.to_string();
    }
    let mut lines: Vec<String> = vec![String::new()];
    for piece in id.split_inclusive(['-', '_', '.', '/', ':']) {
        let last = lines.last_mut().expect("one line at least");
        if width(last) + width(piece) <= columns || last.is_empty() {
            last.push_str(piece);
        } else {
            lines.push(piece.to_string());
        }
        // A piece longer than the column is cut.
        while width(lines.last().expect("one line")) > columns {
            let long = lines.pop().expect("one line");
            let cut = cut_at(&long, columns);
            lines.push(long[..cut].to_string());
            lines.push(long[cut..].to_string());
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_columns_not_bytes() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("→ — ×"), 5);
        assert_eq!(width("日本"), 4);
        assert_eq!(width("e\u{301}"), 1);
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_a_hanging_indent() {
        assert_eq!(wrap("short", Some(10), 2), ["short"]);
        assert_eq!(wrap("a long line of words", None, 2), ["a long line of words"]);
        assert_eq!(
            wrap("FAIL recall: one two three four", Some(16), 5),
            ["FAIL recall: one", "     two three", "     four"]
        );
        assert_eq!(wrap("    indented words here", Some(14), 2), ["    indented", "      words", "      here"]);
        let cut = wrap("x".repeat(25).as_str(), Some(10), 0);
        assert_eq!(cut, ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"]);
        for line in wrap(&format!("ab {} cd", "é".repeat(30)), Some(12), 3) {
            assert!(width(&line) <= 12, "{line}");
        }
        assert_eq!(wrap_with("-a bb cc", 5, "-  "), ["-a bb", "-  cc"]);
    }

    #[test]
    fn ids_break_after_their_separators() {
        assert_eq!(break_id("short-id", 20), "short-id");
        assert_eq!(break_id("product-description-rendered", 12), "product-\ndescription-\nrendered");
        assert_eq!(break_id("abcdefghij", 4), "abcd\nefgh\nij");
        for line in break_id("a-very-long-identifier_with.parts", 7).lines() {
            assert!(width(line) <= 7, "{line}");
        }
    }
}
