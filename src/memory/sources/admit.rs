//! Admission of the records read from sources into the pool, by the rules of
//! a memory file (`memory::pool`): each record as a canonical decision, with
//! its problems and the warning about a thin decision.

use std::collections::HashMap;
use std::sync::Arc;

use super::Record;
use crate::memory::record::Origin;
use crate::memory::{
    compile_glob, glob, Decision, Diagnostic, Excluded, Exclusion, Memory, Rare, RecordKind, Severity,
};
use crate::profile::Family;

/// The fewest words of its own (content, constraints, anti-patterns and
/// sections, the title aside) a decision file's record should have: fewer,
/// and retrieval reads little more than its title.
const THIN_WORDS: usize = 8;

/// A warning for an ADR whose record holds almost no text of its own (a
/// title and a link to a document elsewhere), unless its status keeps it
/// out of the pool.
pub(super) fn thin(r: &Record) -> Option<String> {
    r.id_parts.as_ref()?;
    // One that its status keeps out of the pool is never retrieved anyway.
    if r.status.as_deref().is_some_and(crate::memory::is_inactive) {
        return None;
    }
    let s = &r.sections;
    let words: usize = [&r.content, &s.summary, &s.decision, &s.context, &s.options, &s.consequences, &s.subsections]
        .iter()
        .chain(r.constraint.iter().collect::<Vec<_>>().iter())
        .chain(r.anti_patterns.iter().collect::<Vec<_>>().iter())
        .map(|t| t.split_whitespace().count())
        .sum();
    (words < THIN_WORDS).then(|| {
        format!(
            "the decision holds almost no text of its own ({words} word(s) besides its title): retrieval has little more than the title to match; write its context and decision here (a link to a document elsewhere is not read)"
        )
    })
}

/// A record to admit to the pool: the decision, its glob problems (line,
/// message), and whether its source's options keep it out whatever its
/// status says.
pub(super) type Admission = (Decision, Vec<(usize, String)>, bool);

/// A record as a canonical decision under `family`, with its glob problems.
pub(super) fn decision(r: Record, family: Family) -> Admission {
    let mut globs = Vec::new();
    let mut paths = Vec::new();
    let mut errors = Vec::new();
    // Mneme ignores the scope globs of a decision record, and so does
    // profile `mneme` (as it does those `import` writes).
    if family == Family::Default {
        for pattern in r.globs {
            match compile_glob(&pattern) {
                Ok(g) => {
                    globs.push(Arc::new(g));
                    paths.push(pattern);
                }
                Err(msg) => {
                    errors.push((r.globs_line, format!("invalid scope glob {}: {msg}", glob::quoted(&pattern))))
                }
            }
        }
    }
    let d = Decision {
        id: r.id,
        title: r.title,
        tags: r.tags,
        constraint: r.constraint,
        anti_patterns: r.anti_patterns,
        content: r.content,
        paths,
        kind: RecordKind::DecisionRecord,
        offset: 0,
        globs,
        rare: Rare {
            sections: r.sections,
            status: r.status,
            superseded_by: r.superseded_by,
            origin: Some(Origin { file: r.file, line: r.line }),
            rules: Vec::new(),
        }
        .boxed(),
    };
    (d, errors, r.forced_inactive)
}

/// The pool rules (`memory::pool`) for records that come with their place,
/// source after source.
pub(super) struct Admit {
    /// The first pool record of each id, where it is.
    pub(super) seen: HashMap<String, Origin>,
}

impl Admit {
    /// Admits the records of one source: `within`, whether two records of
    /// the batch with one id are duplicates (a JSON file's were settled by
    /// its own pool).
    pub(super) fn batch(&mut self, memory: &mut Memory, batch: Vec<Admission>, within: bool) {
        let family = memory.family;
        let mut added: Vec<(String, Origin)> = Vec::new();
        for (d, glob_errors, forced) in batch {
            let origin = d.origin().cloned().expect("records of sources have an origin");
            let inactive = match family {
                Family::Default if forced => d.status().map(str::to_string).or_else(|| Some("proposed".into())),
                Family::Default => d.status().filter(|s| crate::memory::is_inactive(s)).map(str::to_string),
                Family::Mneme => None,
            };
            let reason = if let Some(status) = inactive {
                Some(Exclusion::InactiveStatus { status, superseded_by: d.superseded_by().map(str::to_string) })
            } else if let Some(kept) = self.seen.get(&d.id) {
                match family {
                    Family::Default => {
                        let msg = format!(
                            "duplicate id \"{}\": the record at {kept} wins and this one is dropped; give it a unique id",
                            d.id
                        );
                        memory.diagnostics.push(diag(Severity::Warning, &origin, Some(&d.id), msg));
                        Some(Exclusion::DuplicateId { kept_line: kept.line, kept_file: Some(kept.file.clone()) })
                    }
                    Family::Mneme => {
                        let msg = format!(
                            "duplicate id \"{}\" (also at {kept}): profile mneme keeps every copy in the pool, as Mneme 0.10.0 does, and retrieves the best-ranked one; give it a unique id",
                            d.id
                        );
                        memory.diagnostics.push(diag(Severity::Warning, &origin, Some(&d.id), msg));
                        None
                    }
                }
            } else {
                None
            };
            for (line, message) in glob_errors {
                let at = Origin { file: origin.file.clone(), line };
                if reason.is_none() {
                    memory.diagnostics.push(diag(Severity::Error, &at, Some(&d.id), message));
                } else {
                    let message = format!("{message} (the record is out of the pool, so this is not used yet)");
                    memory.diagnostics.push(diag(Severity::Warning, &at, Some(&d.id), message));
                }
            }
            match reason {
                None => {
                    if within {
                        self.seen.entry(d.id.clone()).or_insert_with(|| origin.clone());
                    } else {
                        added.push((d.id.clone(), origin.clone()));
                    }
                    memory.pool.push(d);
                }
                Some(reason) => memory.excluded.push(Excluded {
                    id: d.id,
                    title: d.title,
                    kind: d.kind,
                    file: Some(origin.file.clone()),
                    line: origin.line,
                    column: 1,
                    reason,
                }),
            }
        }
        for (id, origin) in added {
            self.seen.entry(id).or_insert(origin);
        }
    }
}

pub(super) fn diag(severity: Severity, at: &Origin, id: Option<&str>, message: String) -> Diagnostic {
    Diagnostic {
        severity,
        file: Some(at.file.clone()),
        line: at.line,
        column: 1,
        record_id: id.map(str::to_string),
        message,
    }
}
