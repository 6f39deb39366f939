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

/// A record that passed shape checks, before eligibility and dedup.
pub(super) struct Candidate {
    pub(super) decision: Decision,
    /// The glob problems of this record: (offset, message).
    pub(super) glob_errors: Vec<(usize, String)>,
}

/// Whether a record of this kind may be retrieved under `family`.
fn eligible(kind: &RecordKind, family: Family) -> bool {
    match (kind, family) {
        (RecordKind::DecisionRecord, _) => true,
        (RecordKind::Item(t), Family::Default) => matches!(t.as_str(), "decision" | "rule" | "anti_pattern"),
        (RecordKind::Item(t), Family::Mneme) => matches!(t.as_str(), "rule" | "anti_pattern"),
    }
}

/// Builds the pool of `memory` from the candidates, read segment after
/// segment, and records what is kept out and why. `has_index`: the file has a
/// `decision_index` section (what that changes depends on the profile, see
/// `memory::decision_index`).
pub(super) fn build_pool(memory: &mut Memory, segments: Vec<Vec<Candidate>>, has_index: bool) {
    let family = memory.family;
    let count = segments.iter().map(Vec::len).sum();
    // First every reason (and its diagnostics, in record order), with ids
    // borrowed from the candidates; then the moves into pool and excluded.
    let mut reasons: Vec<Option<Exclusion>> = Vec::with_capacity(count);
    // Record offsets are nearly sorted: a cursor counts lines between
    // them instead of indexing every line start of the file.
    let mut cursor = LineCursor::new();
    let mut starts: Option<Vec<usize>> = None;
    // The first pool record of each id: its offset, and whether it is a
    // decision record.
    let mut seen: HashMap<&str, (usize, bool), FxBuild> = HashMap::default();
    seen.reserve(count);
    for Candidate { decision, glob_errors } in segments.iter().flatten() {
        let is_item = matches!(decision.kind, RecordKind::Item(_));
        // Profile `mneme` follows Mneme 0.10.0, whose retriever ignores
        // `status`; `default` keeps inactive records out.
        let inactive = match family {
            Family::Default => decision.status.as_deref().filter(|s| is_inactive(s)),
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
                memory.push(Severity::Error, *offset, Some(&decision.id), message.clone());
            } else {
                memory.push(
                    Severity::Warning,
                    *offset,
                    Some(&decision.id),
                    format!("{message} (the record is out of the pool, so this is not used yet)"),
                );
            }
        }
        if reason.is_none() {
            seen.entry(&decision.id).or_insert((decision.offset, !is_item));
        }
        reasons.push(reason);
    }
    drop(seen);
    let in_pool = reasons.iter().filter(|r| r.is_none()).count();
    memory.pool.reserve(in_pool);
    memory.excluded.reserve(count - in_pool);
    for (Candidate { decision, .. }, reason) in segments.into_iter().flatten().zip(reasons) {
        match reason {
            None => memory.pool.push(decision),
            Some(reason) => {
                let (line, column) = cursor.line_col(&memory.text, decision.offset);
                memory.excluded.push(Excluded {
                    id: decision.id,
                    title: decision.title,
                    kind: decision.kind,
                    file: None,
                    line,
                    column,
                    reason,
                });
            }
        }
    }
}
