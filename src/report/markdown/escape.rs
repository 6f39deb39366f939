//! Escaping for Markdown and HTML that both summaries (the run's and the
//! coverage one) use: code spans, inline text, HTML text, command lines
//! broken up, and fences longer than any backtick run.

use crate::describe::{printable, printable_lines};

/// An id, a path or a name as inline code, on one line and safe in a table
/// cell: a code span (pipes escaped, backticks as `'`), or, when the string
/// holds `<`, `>` or `&` (which a code span would show as entities if they
/// were escaped, and which must be escaped), a `<code>` element whose every
/// HTML or Markdown special character is a numeric entity.
pub(crate) fn code(s: &str) -> String {
    let flat = s.replace(['\r', '\n'], " ");
    let flat = printable(&flat);
    if !flat.contains(['<', '>', '&']) {
        return format!("`{}`", flat.replace('|', "\\|").replace('`', "'"));
    }
    let mut out = String::from("<code>");
    for c in flat.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '`' | '\\' | '*' | '_' | '[' | ']' | '~' | '!' | '#' | '"' | '\'' => {
                out.push_str(&format!("&#{};", u32::from(c)))
            }
            c => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

/// Free text on one line (in a table cell or not): line breaks as spaces,
/// other control characters shown escaped, HTML specials as entities, `|`
/// escaped.
pub(crate) fn inline(s: &str) -> String {
    html(&printable(&s.replace(['\r', '\n'], " "))).replace('|', "\\|")
}

pub(super) fn html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Whether a line would be a workflow command if the summary were printed
/// in a CI log (the runner trims leading blanks, then looks for `::`).
fn command_line(line: &str) -> bool {
    line.trim_start().starts_with("::")
}

/// A piece of the summary in which no line starts with `::`: the first `:`
/// of such a line is written `&#58;`, which renders as `:`. (No string from
/// the inputs can start a line of the summary except in a context-block
/// diff, and [`diff_block`] never puts such a line in a fence, where the
/// entity would show.)
pub(crate) fn no_command_lines(piece: &str) -> std::borrow::Cow<'_, str> {
    if !piece.lines().any(command_line) {
        return std::borrow::Cow::Borrowed(piece);
    }
    let mut out = String::with_capacity(piece.len() + 16);
    for line in piece.split_inclusive('\n') {
        if command_line(line) {
            let blanks = line.len() - line.trim_start().len();
            out.push_str(&line[..blanks]);
            out.push_str("&#58;");
            out.push_str(&line[blanks + 1..]);
        } else {
            out.push_str(line);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A context-block diff: a `diff` fence longer than any backtick run inside
/// it, or, when it holds `<`, `>` or `&` or a line that starts with `::`, a
/// `<pre>` block with entities (in a fence they would be shown as written,
/// and the summary could not be checked for tags). Control characters other
/// than line breaks are shown escaped either way.
pub(super) fn diff_block(body: &str) -> String {
    let body = printable_lines(body);
    if body.contains(['<', '>', '&']) || body.lines().any(command_line) {
        let body = html(&body);
        return format!("<pre>\n{}{}</pre>\n", body, if body.ends_with('\n') { "" } else { "\n" });
    }
    fenced("diff", &body)
}

/// A fenced block whose fence is longer than any backtick run inside it.
pub(super) fn fenced(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{}{}{fence}\n", body, if body.ends_with('\n') { "" } else { "\n" })
}
