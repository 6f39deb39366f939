/*!
The pool rules (spec §1): which well-formed records are retrievable under a
profile, which statuses keep a record out, how duplicate ids are resolved,
and in which order the pool is laid out.

Why it exists apart from the loaders: both loaders (fast and tolerant) end
in the same [`build_pool`], so they cannot disagree on these rules. It
deliberately does not look at JSON or check shapes: it receives
[`Candidate`]s, records that already passed their shape checks, and only
decides pool or out (with the diagnostics that go with it).
*/

use std::collections::HashMap;

use super::lines::{line_starts, LineCursor};
use super::{Decision, Excluded, Exclusion, Memory, RecordKind, Severity};
use crate::profile::Family;
use rustc_hash::FxBuildHasher as FxBuild;

/// The statuses that keep a record out of the pool (compared ignoring case).
pub const INACTIVE_STATUSES: [&str; 4] = ["superseded", "deprecated", "rejected", "retired"];

/// Whether a status is one of [`INACTIVE_STATUSES`] (ignoring case and
/// surrounding white space).
pub fn is_inactive(status: &str) -> bool {
    INACTIVE_STATUSES.iter().any(|x| x.eq_ignore_ascii_case(status.trim()))
}

/// Records that passed shape checks, before eligibility and dedup: one
/// segment of the pool order.
#[derive(Default)]
pub(super) struct Segment {
    pub(super) decisions: Vec<Decision>,
    /// The glob problems of its records: (index in `decisions`, offset,
    /// message), in index order.
    pub(super) glob_errors: Vec<(usize, usize, String)>,
}

impl Segment {
    /// A segment of records without glob problems.
    pub(super) fn of(decisions: Vec<Decision>) -> Segment {
        Segment { decisions, glob_errors: Vec::new() }
    }

    /// Adds a record and its glob problems: (offset, message).
    pub(super) fn push(&mut self, decision: Decision, glob_errors: Vec<(usize, String)>) {
        let index = self.decisions.len();
        self.glob_errors.extend(glob_errors.into_iter().map(|(offset, message)| (index, offset, message)));
        self.decisions.push(decision);
    }
}

/// Whether a record of this kind may be retrieved under `family`.
fn eligible(kind: &RecordKind, family: Family) -> bool {
    match (kind, family) {
        (RecordKind::DecisionRecord, _) => true,
        (RecordKind::Item(t), Family::Default) => matches!(t.as_str(), "decision" | "rule" | "anti_pattern"),
        (RecordKind::Item(t), Family::Mneme) => matches!(t.as_str(), "rule" | "anti_pattern"),
    }
}

/// Builds the pool of `memory` from the segments, read one after the other,
/// and records what is kept out and why. `has_index`: the file has a
/// `decision_index` section (what that changes depends on the profile, see
/// `memory::decision_index`).
///
/// The records are moved into the pool in place, never copied into a second
/// vector: with a million records the candidates and the pool side by side
/// were most of the load's peak.
pub(super) fn build_pool(memory: &mut Memory, segments: Vec<Segment>, has_index: bool) {
    let family = memory.family;
    let count = segments.iter().map(|s| s.decisions.len()).sum();
    // First every reason (and its diagnostics, in record order), with ids
    // borrowed from the segments; then the moves into pool and excluded.
    // Only the records kept out have a reason: (index in pool order, reason).
    let mut reasons: Vec<(usize, Exclusion)> = Vec::new();
    // Record offsets are nearly sorted: a cursor counts lines between
    // them instead of indexing every line start of the file.
    let mut cursor = LineCursor::new();
    let mut starts: Option<Vec<usize>> = None;
    // The first pool record of each id: its offset, and whether it is a
    // decision record.
    let mut seen: HashMap<&str, (usize, bool), FxBuild> = HashMap::default();
    seen.reserve(count);
    let records = segments.iter().flat_map(|s| {
        let mut errors = s.glob_errors.iter().peekable();
        s.decisions.iter().enumerate().map(move |(i, d)| {
            let mut mine = Vec::new();
            while let Some((_, offset, message)) = errors.next_if(|e| e.0 == i) {
                mine.push((*offset, message));
            }
            (d, mine)
        })
    });
    for (index, (decision, glob_errors)) in records.enumerate() {
        let is_item = matches!(decision.kind, RecordKind::Item(_));
        // Profile `mneme` follows Mneme 0.10.0, whose retriever ignores
        // `status`; `default` keeps inactive records out.
        let inactive = match family {
            Family::Default => decision.status().filter(|s| is_inactive(s)),
            Family::Mneme => None,
        };
        let reason = if family == Family::Mneme && has_index && is_item {
            Some(Exclusion::NotMigrated)
        } else if !eligible(&decision.kind, family) {
            let RecordKind::Item(t) = &decision.kind else { unreachable!("decision records are eligible") };
            Some(Exclusion::NotEligibleType { item_type: t.clone() })
        } else if let Some(status) = inactive {
            Some(Exclusion::InactiveStatus { status: status.to_string(), superseded_by: None })
        } else if let Some(&(first, first_is_record)) = seen.get(decision.id.as_str()) {
            // Not the cursor: moving it back to the first copy for every
            // duplicate would be quadratic. The line starts are indexed once,
            // at the first duplicate.
            let starts = starts.get_or_insert_with(|| line_starts(&memory.text));
            let kept_line = starts.partition_point(|&s| s <= first.min(memory.text.len()));
            match family {
                // What `mneme decision-index migrate` writes: the item and its
                // copy in decisions[]. The copy wins, as any first record does.
                Family::Default if has_index && is_item && first_is_record => {
                    Some(Exclusion::MigratedCopy { kept_line })
                }
                Family::Default => {
                    let msg = format!(
                        "duplicate id \"{}\": the record at line {kept_line} wins and this one is dropped; give it a unique id",
                        decision.id
                    );
                    memory.push(Severity::Warning, decision.offset, Some(&decision.id), msg);
                    Some(Exclusion::DuplicateId { kept_line, kept_file: None })
                }
                // Mneme keeps every copy and ranks them all; the best-ranked
                // copy of an id is the one retrieved.
                Family::Mneme => {
                    let msg = format!(
                        "duplicate id \"{}\" (also at line {kept_line}): profile mneme keeps every copy in the pool, as Mneme 0.10.0 does, and retrieves the best-ranked one; give it a unique id",
                        decision.id
                    );
                    memory.push(Severity::Warning, decision.offset, Some(&decision.id), msg);
                    None
                }
            }
        } else {
            None
        };
        // Invalid globs break retrieval only where the record is in the pool.
        for (offset, message) in glob_errors {
            if reason.is_none() {
                memory.push(Severity::Error, offset, Some(&decision.id), message.clone());
            } else {
                memory.push(
                    Severity::Warning,
                    offset,
                    Some(&decision.id),
                    format!("{message} (the record is out of the pool, so this is not used yet)"),
                );
            }
        }
        match reason {
            None => {
                seen.entry(&decision.id).or_insert((decision.offset, !is_item));
            }
            Some(reason) => reasons.push((index, reason)),
        }
    }
    drop(seen);
    let mut pool = concatenate(segments.into_iter().map(|s| s.decisions).collect());
    // The records kept out leave the vector where they are: their id, title
    // and kind move into `excluded`, the rest is dropped.
    memory.excluded.reserve(reasons.len());
    let mut reasons = reasons.into_iter().peekable();
    let mut index = 0;
    pool.retain_mut(|decision| {
        let at = index;
        index += 1;
        let Some((_, reason)) = reasons.next_if(|r| r.0 == at) else { return true };
        let (line, column) = cursor.line_col(&memory.text, decision.offset);
        memory.excluded.push(Excluded {
            id: std::mem::take(&mut decision.id),
            title: std::mem::take(&mut decision.title),
            kind: std::mem::replace(&mut decision.kind, RecordKind::DecisionRecord),
            file: None,
            line,
            column,
            reason,
        });
        false
    });
    // The loaders reserve room for the records a text could hold; give back
    // what is left.
    pool.shrink_to_fit();
    if memory.pool.is_empty() {
        memory.pool = pool;
    } else {
        memory.pool.append(&mut pool);
    }
}

/// The segments as one vector, in order, built in the largest one's buffer:
/// the others are moved in around it (a segment before it shifts it once),
/// so that the largest is never copied into a new buffer.
fn concatenate(mut segments: Vec<Vec<Decision>>) -> Vec<Decision> {
    let Some(largest) = (0..segments.len()).max_by_key(|&i| segments[i].len()) else { return Vec::new() };
    let mut out = std::mem::take(&mut segments[largest]);
    for segment in segments[..largest].iter_mut().rev().filter(|s| !s.is_empty()) {
        out.splice(0..0, std::mem::take(segment));
    }
    for segment in &mut segments[largest + 1..] {
        out.append(segment);
    }
    out
}
