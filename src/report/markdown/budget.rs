//! The byte budget of the Markdown summary: the summary is built piece by
//! piece within [`BUDGET`], and what does not fit is counted by kind and
//! named in a closing note.

use super::escape::no_command_lines;

/// Bytes a summary may take, the closing note included: under GitHub's
/// 1 MiB (1,048,576 bytes) step-summary limit.
pub const BUDGET: usize = 1_000_000;

/// Room kept under the budget for the closing note.
const NOTE_ROOM: usize = 600;

/// What a piece of the summary is, to say what was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Heading,
    Rule,
    Figure,
    Chart,
    Category,
    Warning,
    List,
    Changed,
    Statistics,
    Problem,
}

impl Kind {
    fn words(self) -> &'static str {
        match self {
            Kind::Heading => "part(s) of the heading",
            Kind::Rule => "gate rule(s)",
            Kind::Figure => "row(s) of the suite figures",
            Kind::Chart => "chart(s) of the suite figures",
            Kind::Category => "row(s) of the verdicts by category",
            Kind::Warning => "warning(s)",
            Kind::List => "list(s) of new or removed scenarios",
            Kind::Changed => "changed scenario(s) of the comparison with the baseline",
            Kind::Statistics => "statistics of the comparison with the baseline",
            Kind::Problem => "scenario(s) that did not pass",
        }
    }
}

/// The summary being written, within its budget.
pub(super) struct Doc {
    pub(super) out: String,
    pub(super) budget: usize,
    /// What was left out, by kind, in the order first met; once anything
    /// is, every later piece is too.
    pub(super) left: Vec<(Kind, usize)>,
}

impl Doc {
    /// A piece of layout (a table header, a blank line): left out without
    /// being counted once the budget is spent.
    pub(super) fn push(&mut self, piece: &str) {
        let piece = no_command_lines(piece);
        if self.fits(&piece) {
            self.out.push_str(&piece);
        }
    }

    /// A piece of content, counted when it is left out.
    pub(super) fn item(&mut self, kind: Kind, piece: &str) {
        let piece = no_command_lines(piece);
        if self.fits(&piece) {
            self.out.push_str(&piece);
            return;
        }
        match self.left.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => self.left.push((kind, 1)),
        }
    }

    fn fits(&self, piece: &str) -> bool {
        self.left.is_empty() && self.out.len() + piece.len() + NOTE_ROOM <= self.budget
    }

    pub(super) fn finish(mut self) -> String {
        if self.left.is_empty() {
            return self.out;
        }
        // A blank line ends any table or list the cut fell in.
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push_str(if self.out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        let what: Vec<String> = self.left.iter().map(|(k, n)| format!("{n} {}", k.words())).collect();
        self.out.push_str(&format!(
            "> **This summary was cut short** to stay under GitHub's 1 MiB step-summary limit. Left out: {}. \
             The JSON report (`--json`) has everything.\n",
            what.join("; ")
        ));
        self.out
    }
}
