//! Probes: every pool decision asked for with its own words, its title as
//! the task, once without a file and once with a path each of its scope
//! globs matches; a decision that does not come back in the top `k` for one
//! of them is shadowed.

use rayon::prelude::*;

use super::{GlobEntry, Probe, Scored, Shadowed};
use crate::profile::Field;
use crate::retrieval::{field_texts, Index, Query, Scratch};

/// The shadowed decisions, in pool order, and the globs no path could be
/// made for.
pub(super) fn shadowed(index: &Index) -> (Vec<Shadowed>, Vec<GlobEntry>) {
    let results: Vec<(Option<Shadowed>, Vec<GlobEntry>)> = (0..index.decisions().len())
        .into_par_iter()
        .map_init(Scratch::default, |scratch, d| probe_one(index, d, scratch))
        .collect();
    let mut shadowed = Vec::new();
    let mut unprobed = Vec::new();
    for (s, u) in results {
        shadowed.extend(s);
        unprobed.extend(u);
    }
    (shadowed, unprobed)
}

/// Whether `text` has a token under the index's tokenizer.
fn has_tokens(index: &Index, text: &str) -> bool {
    let mut any = false;
    index.tokenizer().each_token(text, &mut |_| any = true);
    any
}

/// The task of a decision's probes: its title, or all of its text when the
/// title has no tokens; `None` when nothing has.
pub(super) fn probe_text(index: &Index, d: usize) -> Option<String> {
    let decision = index.decision(d);
    if has_tokens(index, &decision.title) {
        return Some(decision.title.clone());
    }
    let sections = index.profile().reads_sections();
    let all: Vec<&str> = Field::ALL.iter().flat_map(|&f| field_texts(decision, f, sections)).collect();
    let all = all.join(" ");
    has_tokens(index, &all).then_some(all)
}

fn probe_one(index: &Index, d: usize, scratch: &mut Scratch) -> (Option<Shadowed>, Vec<GlobEntry>) {
    let decision = index.decision(d);
    let Some(task) = probe_text(index, d) else { return (None, Vec::new()) };
    let mut files: Vec<(Option<String>, Option<String>)> = vec![(None, None)];
    let mut unprobed = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut matches = Vec::new();
    for (written, glob) in decision.paths.iter().zip(&decision.globs) {
        if !seen.insert(glob.glob()) {
            continue;
        }
        let path = representative(glob.glob());
        index.matching_scope_globs(&path, &mut matches);
        if matches.iter().any(|&g| index.scope_glob(g).0.glob() == glob.glob()) {
            files.push((Some(path), Some(written.clone())));
        } else {
            unprobed.push(GlobEntry { id: decision.id.clone(), glob: written.clone() });
        }
    }
    let k = index.profile().k;
    let group = index.copy_group(d);
    let mut probes = Vec::new();
    for (file, glob) in files {
        let query = Query { task: &task, file: file.as_deref() };
        let top = index.retrieve_with(query, k, scratch);
        if top.hits.iter().any(|h| index.copy_group(h.pool) == group) {
            continue;
        }
        let all = index.retrieve_with(query, usize::MAX, scratch);
        let rank = all.hits.iter().position(|h| index.copy_group(h.pool) == group).map(|i| i + 1);
        let score = index.scores_of(query, &[d], scratch)[0];
        probes.push(Probe {
            task: task.clone(),
            file,
            glob,
            score: score.as_f64(),
            rank,
            beaten_by: top
                .hits
                .iter()
                .map(|h| Scored { id: index.decision(h.pool).id.clone(), score: h.score.as_f64() })
                .collect(),
        });
    }
    let shadowed =
        (!probes.is_empty()).then(|| Shadowed { id: decision.id.clone(), title: decision.title.clone(), probes });
    (shadowed, unprobed)
}

/// A path `glob` (as compiled: `/` matched only literally) matches, made
/// from the glob itself: `**/` as no folder, a final `**`, `*` and `?` as
/// `x`, a class as a character it holds (or, negated, one it does not), an
/// alternation as its first branch. The caller checks that the glob matches
/// it (a class can defeat this).
pub(crate) fn representative(glob: &str) -> String {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::new();
    synthesize(&chars, &mut out);
    out
}

/// Appends to `out` a text `chars` (a glob, or a branch of an alternation)
/// matches. Linear in the glob's length: globset refuses nested
/// alternations, so each character is read once.
fn synthesize(chars: &[char], out: &mut String) {
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                if let Some(&c) = chars.get(i + 1) {
                    out.push(c);
                }
                i += 2;
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                if chars.get(i) == Some(&'/') {
                    i += 1;
                } else {
                    out.push('x');
                }
            }
            '*' | '?' => {
                out.push('x');
                i += 1;
            }
            '[' => {
                let (c, end) = class_member(chars, i);
                out.push(c);
                i = end;
            }
            '{' => {
                // The first branch stands for the alternation.
                let close = chars[i..].iter().position(|&c| c == '}').map(|p| i + p);
                let Some(close) = close else {
                    out.push('{');
                    i += 1;
                    continue;
                };
                let comma = chars[i..close].iter().position(|&c| c == ',').map_or(close, |p| i + p);
                synthesize(&chars[i + 1..comma], out);
                i = close + 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// A character the class at `chars[start]` (`[`) matches, and the index
/// after the class.
fn class_member(chars: &[char], start: usize) -> (char, usize) {
    let mut i = start + 1;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut ranges: Vec<(char, char)> = Vec::new();
    let mut first = true;
    while i < chars.len() && (first || chars[i] != ']') {
        first = false;
        let lo = chars[i];
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&c| c != ']') {
            ranges.push((lo, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((lo, lo));
            i += 1;
        }
    }
    let end = (i + 1).min(chars.len());
    let inside = |c: char| ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
    let c = if negated {
        ['x', 'q', 'z', '_', '0', '9', 'a'].into_iter().find(|&c| !inside(c)).unwrap_or('x')
    } else {
        ranges.first().map_or('x', |r| r.0)
    };
    (c, end)
}

#[cfg(test)]
mod tests {
    use super::representative;

    #[test]
    fn a_representative_path_is_made_from_the_glob() {
        let cases = [
            ("services/payments/**", "services/payments/x"),
            ("services/**/*.sql", "services/x.sql"),
            ("**/Dockerfile", "Dockerfile"),
            ("infra/k8s/**/*.{yaml,yml}", "infra/k8s/x.yaml"),
            ("web/src/[a-c]*.ts", "web/src/ax.ts"),
            ("web/[!x]?.ts", "web/qx.ts"),
            ("data/dags/**/*.py", "data/dags/x.py"),
            ("README.md", "README.md"),
            ("a\\*b", "a*b"),
            ("{api,web}/**", "api/x"),
            ("src/{*.rs,lib/**}", "src/x.rs"),
            ("a{,b}c", "ac"),
        ];
        for (glob, path) in cases {
            assert_eq!(representative(glob), path, "{glob}");
        }
        // Linear: thousands of alternations in one glob are read once.
        let long = "{a,b}".repeat(800);
        assert_eq!(representative(&long), "a".repeat(800));
    }
}
