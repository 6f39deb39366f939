//! Settling the ids of a read's Markdown records once every source is read:
//! the ADR numbers across `adr` sources, and the ids rule files share.

use std::collections::{BTreeMap, BTreeSet};

use super::admit::{diag, thin};
use super::files::Part;
use super::{adr, DecisionSource, Record, SourceKind};
use crate::memory::record::Origin;
use crate::memory::Severity;

/// Settles the ids of the ADRs of every `adr` source, the sources with
/// one prefix together (two folders each with an `0001` are two
/// decisions, as two files of one folder are; see `adr::assign_ids`), and
/// adds the warnings about shared numbers and thin decisions.
pub(super) fn settle_adr_ids(list: &[DecisionSource], parts: &mut [Part]) {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, source) in list.iter().enumerate() {
        if source.kind != SourceKind::Adr {
            continue;
        }
        let prefix = source.id_prefix.clone().unwrap_or_else(|| "ADR-".into());
        match groups.iter_mut().find(|(p, _)| *p == prefix) {
            Some((_, members)) => members.push(i),
            None => groups.push((prefix, vec![i])),
        }
    }
    for (_, members) in groups {
        let mut joined = Vec::new();
        let mut lens = Vec::new();
        for &i in &members {
            if let Part::Markdown { records, .. } = &mut parts[i] {
                lens.push(records.len());
                joined.append(records);
            }
        }
        let warnings = adr::assign_ids(&mut joined);
        let mut rest = joined.into_iter();
        for (&i, len) in members.iter().zip(lens) {
            if let Part::Markdown { records, .. } = &mut parts[i] {
                records.extend(rest.by_ref().take(len));
            }
        }
        if let Some(Part::Markdown { diagnostics, .. }) = members.first().map(|&i| &mut parts[i]) {
            for (at, id, message) in warnings {
                diagnostics.push(diag(Severity::Warning, &at, id.as_deref(), message));
            }
        }
        for &i in &members {
            if let Part::Markdown { records, diagnostics, .. } = &mut parts[i] {
                for r in records.iter() {
                    if let Some(message) = thin(r) {
                        let at = Origin { file: r.file.clone(), line: r.line };
                        diagnostics.push(diag(Severity::Warning, &at, Some(&r.id), message));
                    }
                }
            }
        }
    }
}

/// Settles the ids of the rule files' records over every source: an id
/// that records of two files would share (a root `AGENTS.md`'s `##
/// Testing` and `testing/AGENTS.md`, both `agents/testing`) is no one's:
/// each of those records takes its file's path after an `@`
/// (`agents/testing@AGENTS.md`, `agents/testing@testing/AGENTS.md`), the
/// same whatever the order the files are read in, and a warning lists them,
/// once per id. An id no other file has is left as it is, so adding a file
/// changes no other id unless it collides, and then loudly. Two copies of one
/// file (read by two sources) are one file: the pool keeps the first.
pub(super) fn settle_rule_ids(parts: &mut [Part]) {
    let mut by_id: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for (p, part) in parts.iter().enumerate() {
        if let Part::Markdown { records, .. } = part {
            for (i, r) in records.iter().enumerate().filter(|(_, r)| r.id_parts.is_none()) {
                by_id.entry(r.id.clone()).or_default().push((p, i));
            }
        }
    }
    for (id, at) in by_id {
        let places: BTreeSet<String> = at.iter().map(|&(p, i)| markdown_record(parts, p, i).place.clone()).collect();
        if places.len() < 2 {
            continue;
        }
        let mut list: Vec<String> = Vec::new();
        for &(p, i) in &at {
            let r = markdown_record_mut(parts, p, i);
            r.id = format!("{id}@{}", r.place);
            let entry = format!("{} → {}", r.file, r.id);
            if !list.contains(&entry) {
                list.push(entry);
            }
        }
        let (p, i) = at[0];
        let first = markdown_record(parts, p, i);
        let at = Origin { file: first.file.clone(), line: first.line };
        let message = format!(
            "{} files would share the id \"{id}\": each takes its file's path ({}); a scenario or baseline that names \"{id}\" must name one of these ids, or rename a heading or a file so that each has an id of its own",
            places.len(),
            list.join(", ")
        );
        if let Part::Markdown { diagnostics, .. } = &mut parts[p] {
            diagnostics.push(diag(Severity::Warning, &at, None, message));
        }
    }
}

/// Record `i` of the Markdown part `p`.
fn markdown_record(parts: &[Part], p: usize, i: usize) -> &Record {
    match &parts[p] {
        Part::Markdown { records, .. } => &records[i],
        Part::Json(_) => unreachable!("only Markdown records are settled"),
    }
}

/// Record `i` of the Markdown part `p`, to change.
fn markdown_record_mut(parts: &mut [Part], p: usize, i: usize) -> &mut Record {
    match &mut parts[p] {
        Part::Markdown { records, .. } => &mut records[i],
        Part::Json(_) => unreachable!("only Markdown records are settled"),
    }
}
