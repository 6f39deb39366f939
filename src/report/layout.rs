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

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The narrowest width text is laid out to: below it tables cannot keep
/// their columns apart, so a smaller `COLUMNS` is taken as this.
pub const MIN_WIDTH: usize = 40;

/// How many columns `s` takes in a terminal, as comfy-table measures the
/// cells of a table (both use `unicode-width`): one per character, two for
/// East Asian wide and full-width characters and most emoji, none for
/// combining marks and zero-width characters. Control characters never
/// reach here (they are shown escaped first).
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

fn char_width(c: char) -> usize {
    UnicodeWidthChar::width(c).unwrap_or(0)
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
/// line keeps its `-` or `+` column, say). Laid out by `textwrap`: first
/// fit, broken at ASCII spaces only (a path or an id with `-` or `/` stays
/// whole unless it is longer than a line, and then it is cut), the first
/// line's indent kept, the spaces where a line breaks dropped.
pub fn wrap_with(text: &str, columns: usize, prefix: &str) -> Vec<String> {
    let options = textwrap::Options::new(columns.max(1))
        .subsequent_indent(prefix)
        .break_words(true)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
    textwrap::wrap(text, options).into_iter().map(std::borrow::Cow::into_owned).collect()
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
