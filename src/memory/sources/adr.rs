//! Architecture decision records (Nygard / adr-tools, MADR 2 to 4, log4brains)
//! as decisions: one record per file.
//!
//! | decision | from |
//! |---|---|
//! | id | front matter `id:`, else the number after the prefix (`0001-use-postgres.md` → `ADR-0001`) when no other ADR of that prefix has it, else the prefix and the stem (settled by [`assign_ids`]) |
//! | title | front matter `title`, else the first heading, without its number (`# 1. Use X` → `Use X`) |
//! | status | front matter `status`, else a Status section at the sections' level, else a `Status: …` line before the sections, else a deeper Status section |
//! | content | the text of the Context (or Context and Problem Statement) and Decision (or Decision Outcome) sections; the whole text when there are neither |
//! | constraints | the bullets of the Decision / Decision Outcome section |
//! | anti-patterns | the bullets under a heading that says what not to do (`Don'ts`, `Anti-patterns`, `Avoid`, …) |
//! | sections | the rest of the ADR, by part: summary, decision, context, options, consequences, and the text of the Context's and the Decision's sub-sections (`subsections`, which profile `default` scores with `content`) |
//! | tags | front matter `tags`, else the folders between the source's folder and the file |
//!
//! Statuses are read by their first word: accepted, approved, adopted, active
//! → `accepted`; proposed, proposal, pending, draft → `proposed`; superseded (with the
//! superseding ADR, from the link or the text that follows) → `superseded`;
//! deprecated, obsolete → `deprecated`; rejected, declined, withdrawn →
//! `rejected`; anything else is kept as written, lowercased (`partly
//! superseded` stays in the pool).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::front_matter;
use super::markdown::{self, heading_words, Block, Kind};
pub(crate) use super::walk::{number, unprefixed};
use super::{DecisionSource, FileRecords, IdFrom, Proposed, Record};
use crate::memory::{Origin, Sections, Severity};

/// Whether a file number is a date (`20200926`, log4brains): then it is
/// not a sequence number, several ADRs share it, and the id is the whole
/// file name, as log4brains identifies its ADRs.
pub(crate) fn is_date(n: &str) -> bool {
    let ok = |s: &str, lo: u32, hi: u32| s.parse::<u32>().is_ok_and(|v| (lo..=hi).contains(&v));
    n.len() == 8 && ok(&n[..4], 1970, 2999) && ok(&n[4..6], 1, 12) && ok(&n[6..], 1, 31)
}

/// Whether a file or folder name starts with an ISO date (`2022-02-10-…`,
/// as the Eclipse Dataspace Components name their decision records, or
/// `2022_02_10_…`, as Sylius does): its
/// leading number is a year, not a sequence number, and the id is the whole
/// name, as for [`is_date`].
pub(crate) fn iso_dated(name: &str) -> bool {
    let b = name.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    b.len() >= 10
        && matches!(b[4], b'-' | b'_')
        && b[7] == b[4]
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && is_date(&format!("{}{}{}", &name[..4], &name[5..7], &name[8..10]))
        && !b.get(10).is_some_and(u8::is_ascii_digit)
}

/// What an ADR's id may come from, settled over the whole source by
/// [`assign_ids`] (a number is an id only when no other file of the source
/// has it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IdParts {
    /// Front matter `id:`, as written.
    pub front: Option<String>,
    /// The file's sequence number (not a date), by value: `037` and `0037`
    /// are one number.
    pub number: Option<u64>,
    /// The id the number gives (`ADR-0037`), when there is a number.
    pub number_id: Option<String>,
    /// The id the file name gives: the prefix and the stem (`ADR-0037-x`);
    /// the whole file name after the prefix for a dated (log4brains) or
    /// un-numbered file.
    pub stem_id: String,
    /// The file's stem (the name without `.md`), to resolve a link to it.
    pub stem: String,
    /// The path below the source's folder without `.md`: the last resort
    /// when two files in different folders share a stem.
    pub rel_id: String,
    /// The file name a `Superseded by` link names, its stem.
    pub superseded_stem: Option<String>,
    /// Where the source takes its ids from.
    pub from: IdFrom,
}

/// Whether a Markdown file without a number reads as an ADR: a status (front
/// matter, a Status heading or a `Status:` line) or a Context / Decision
/// heading. Other files of an ADR folder (notes, guides) are not decisions.
fn looks_like_adr(blocks: &[Block], has_sections: bool, status: bool) -> bool {
    has_sections || status || blocks.iter().any(|b| b.heading_level().is_some() && heading_words(&b.text) == "status")
}

/// Whether the innermost open heading that names a part names the Context
/// or the Decision.
fn in_context_or_decision(stack: &[(u8, Option<Part>)]) -> bool {
    matches!(stack.iter().rev().find_map(|&(_, p)| p), Some(Part::Context | Part::Decision))
}

/// The part of an ADR a heading opens, by its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Context,
    Decision,
    Options,
    Consequences,
    Status,
}

/// Adds `text` to the section of the innermost heading of `stack` that
/// names a part (nothing under Status). Anything else (`## Metadata`, `##
/// More Information`, text before the sections) says more about the
/// problem; in an ADR without Context and Decision, the body is the
/// decision.
fn add_to_part(sections: &mut Sections, stack: &[(u8, Option<Part>)], has_sections: bool, text: &str) {
    let into = match stack.iter().rev().find_map(|&(_, p)| p) {
        Some(Part::Status) => return,
        Some(Part::Context) => &mut sections.context,
        Some(Part::Decision) => &mut sections.decision,
        Some(Part::Options) => &mut sections.options,
        Some(Part::Consequences) => &mut sections.consequences,
        None if has_sections => &mut sections.context,
        None => &mut sections.decision,
    };
    push_line(into, text);
}

/// Appends `text` to a part's text, on a line of its own.
fn push_line(into: &mut String, text: &str) {
    if !into.is_empty() {
        into.push('\n');
    }
    into.push_str(text);
}

/// The part a heading names, if any: context first, so that `Decision
/// Drivers` is context and `Decision Outcome` decision.
fn part(w: &str) -> Option<Part> {
    let has = |x: &str| w.split(' ').any(|t| t == x);
    if w == "status" || w.starts_with("status ") {
        return Some(Part::Status);
    }
    if w.contains("consequence") || has("positive") || has("negative") || has("neutral") || has("tradeoffs") {
        return Some(Part::Consequences);
    }
    if w.contains("option") || w.contains("alternative") || w.contains("pros and cons") {
        return Some(Part::Options);
    }
    if w.starts_with("context")
        || w.contains("problem")
        || w.contains("driver")
        || w.contains("background")
        || w.contains("motivation")
        || has("forces")
        || has("requirements")
        || has("assumptions")
    {
        return Some(Part::Context);
    }
    if w.starts_with("decision") || w.contains("outcome") || has("confirmation") || has("implementation") {
        return Some(Part::Decision);
    }
    None
}

/// Maps one ADR file. `None` in `records` for a file without a number
/// that does not read as an ADR (a note about it is in `problems`).
pub(crate) fn map(shown: &str, rel: &Path, text: &str, source: &DecisionSource) -> FileRecords {
    let mut out = FileRecords::default();
    // The decision's own path without `.md`: its file's, or its folder's
    // when the decision is a folder of its own (`0007-events/README.md`).
    let stem_path = super::walk::adr_stem_path(rel);
    let stem = stem_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = source.id_prefix.as_deref().unwrap_or("ADR-");
    let file_number = number(&stem);
    let (number_value, number_id) = match file_number {
        Some(n) if !is_date(n) && !iso_dated(&stem) => (n.parse::<u64>().ok(), Some(format!("{prefix}{n}"))),
        _ => (None, None),
    };
    let stem_id = match file_number {
        Some(_) => format!("{prefix}{}", unprefixed(&stem)),
        None => format!("{prefix}{}", super::slug(&stem)),
    };
    // The id problems are reported under until the source settles it.
    let id = number_id.clone().unwrap_or_else(|| stem_id.clone());
    let split = front_matter::split(text);
    if let Some(p) = &split.problem {
        out.error(p.line, p.column, Some(&id), p.message.clone());
    }
    let fm = &split.front;
    let starts = crate::memory::lines::line_starts(text);
    let (blocks, _code) = markdown::without_code(markdown::blocks(split.body, split.body_start, &starts));

    // The nearest heading of every block, by index.
    let mut under: Vec<Option<usize>> = Vec::with_capacity(blocks.len());
    let mut heading = None;
    for (i, b) in blocks.iter().enumerate() {
        under.push(heading);
        if b.heading_level().is_some() {
            heading = Some(i);
        }
    }
    let words = |i: Option<usize>| i.map(|i| heading_words(&blocks[i].text)).unwrap_or_default();

    // Title: front matter, else the first heading of level 1 (else the first
    // heading), without its number, unless it only names a part: a record
    // that opens with `# Decision` or `## Decision` is titled by its file's
    // name.
    let title_heading = blocks
        .iter()
        .position(|b| b.kind == Kind::Heading(1))
        .or_else(|| blocks.iter().position(|b| b.heading_level().is_some()))
        .filter(|&i| !only_a_part_name(&heading_words(&blocks[i].text)));
    let mut line = 1;
    let fm_title = out.text_field(&fm.title, "title", &id);
    let title = match (fm_title, title_heading) {
        (Some(t), _) => {
            line = fm.title.as_ref().map_or(1, |f| f.line);
            t
        }
        (None, Some(i)) => {
            line = blocks[i].line;
            strip_number(&blocks[i].text)
        }
        (None, None) => stem_words(&stem),
    };
    // The level of the ADR's sections: the shallowest heading after the
    // title (`##` under a `#` title).
    let section_level = blocks
        .iter()
        .enumerate()
        .filter(|&(i, b)| Some(i) != title_heading && b.heading_level().is_some())
        .filter_map(|(_, b)| b.heading_level())
        .min();

    // Status: front matter; else a Status section at the sections' level
    // (Nygard's `## Status`); else the status line before the sections
    // (`* Status: accepted`, MADR 2, log4brains) or a heading that holds
    // it (`## Status: Proposed`); else a Status heading deeper in the body
    // (a `#### Status` of some component, which a status line wins over).
    let mut status_text: Option<(String, Vec<String>)> = None;
    if let Some(s) = out.text_field(&fm.status, "status", &id) {
        status_text = Some((s, Vec::new()));
    }
    let status_section = |shallow: bool| {
        let in_section: Vec<&Block> = blocks
            .iter()
            .enumerate()
            .filter(|&(i, b)| {
                b.heading_level().is_none()
                    && words(under[i]) == "status"
                    && under[i].is_some_and(|h| (blocks[h].heading_level() <= section_level) == shallow)
            })
            .map(|(_, b)| b)
            .collect();
        // adr-tools rewrites the status line itself; a later "Superseded by"
        // line wins over an earlier one all the same.
        let pick =
            in_section.iter().find(|b| b.text.to_lowercase().starts_with("superseded")).or_else(|| in_section.first());
        pick.map(|b| (b.text.clone(), b.links.clone()))
    };
    if status_text.is_none() {
        status_text = status_section(true);
    }
    if status_text.is_none() {
        status_text = blocks
            .iter()
            .enumerate()
            .filter(|&(i, b)| {
                let before = under[i].is_none() || under[i] == title_heading;
                (b.heading_level().is_none() && before) || (b.heading_level().is_some() && Some(i) != title_heading)
            })
            .find_map(|(_, b)| inline_status(&b.text).map(|s| (s.to_string(), b.links.clone())));
    }
    if status_text.is_none() {
        status_text = status_section(false);
    }
    let mut superseded_by = None;
    let status = status_text.map(|(text, links)| {
        let (status, by) = read_status(&text, &links);
        superseded_by = by;
        status
    });
    if let Some(by) = out.text_field(&fm.superseded_by, "superseded-by", &id) {
        superseded_by = Some(by);
    }
    let superseded_stem = superseded_by.as_deref().and_then(|r| match linked_decision(r) {
        (folder, true) => Some(folder.to_string()),
        (file, false) => file.strip_suffix(".md").map(str::to_string),
    });
    let superseded_by = superseded_by.map(|r| reference(&r, prefix));

    // Sections.
    let is_context =
        |w: &str| w.starts_with("context") || w.contains("problem statement") || w == "background" || w == "motivation";
    let is_decision = |w: &str| {
        matches!(w, "decision" | "decisions" | "the decision" | "decision outcome" | "decision record")
            || w.starts_with("decision outcome")
    };
    let has_sections = blocks.iter().any(|b| {
        b.heading_level().is_some() && {
            let w = heading_words(&b.text);
            is_context(&w) || is_decision(&w)
        }
    });
    if file_number.is_none() && fm.id.is_none() && !looks_like_adr(&blocks, has_sections, status.is_some()) {
        out.problems.push((
            Severity::Warning,
            1,
            1,
            None,
            "not read as an ADR: it has no number, no status and no Context or Decision heading; number it (`NNNN-title.md`) or add a `Status:` line to make it a decision".into(),
        ));
        return out;
    }
    let mut content = Vec::new();
    let mut constraint = Vec::new();
    let mut anti_patterns = Vec::new();
    let mut sections = Sections::default();
    // The open headings (level, part) around the current block.
    let mut stack: Vec<(u8, Option<Part>)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if let Some(level) = b.heading_level() {
            while stack.last().is_some_and(|&(l, _)| l >= level) {
                stack.pop();
            }
            let p = match part(&heading_words(&b.text)) {
                _ if Some(i) == title_heading => None,
                // A Status heading deep in the body is about something
                // else (a component's status): its text belongs to the part
                // around it.
                Some(Part::Status) if Some(level) > section_level => None,
                p => p,
            };
            stack.push((level, p));
            // A sub-heading says something of its own (`### Option 2:
            // Validate and reject multiple addresses`): its words are
            // scored in the part it opens or falls in. The title, and a
            // heading that is only a part's name (`## Context`, `###
            // Consequences`), are not. Within the Context or the Decision
            // (`### Before` under `## Context`), they are the sub-sections'
            // text.
            if Some(i) != title_heading && !only_a_part_name(&heading_words(&b.text)) {
                if has_sections && in_context_or_decision(&stack) {
                    push_line(&mut sections.subsections, &b.text);
                } else {
                    add_to_part(&mut sections, &stack, has_sections, &b.text);
                }
            }
            continue;
        }
        let w = words(under[i]);
        // The title says what the ADR is about, not what its bullets are.
        let anti = under[i].is_some() && under[i] != title_heading && super::is_anti_heading(&w);
        match b.kind {
            Kind::Item { .. } if anti => {
                anti_patterns.push(b.text.clone());
                continue;
            }
            Kind::Item { .. } if is_decision(&w) => {
                constraint.push(b.text.clone());
                continue;
            }
            Kind::Text | Kind::Row if has_sections && (is_context(&w) || is_decision(&w)) => {
                content.push(b.text.clone());
                continue;
            }
            // The text of the Context's and the Decision's sub-sections (a
            // sub-section that names another part, `### Consequences` under
            // the Decision, is that part's): kept apart from `content`,
            // which profile `classic` reads as it always was.
            Kind::Text | Kind::Row if has_sections && in_context_or_decision(&stack) => {
                push_line(&mut sections.subsections, &b.text);
                continue;
            }
            Kind::Text | Kind::Row if !has_sections && w != "status" && inline_status(&b.text).is_none() => {
                content.push(b.text.clone());
                continue;
            }
            _ => {}
        }
        // What `content` and the constraints do not hold goes to its part:
        // the innermost heading that names one decides.
        let before_sections = under[i].is_none() || under[i] == title_heading;
        if before_sections && metadata_line(&b.text) {
            continue;
        }
        add_to_part(&mut sections, &stack, has_sections, &b.text);
    }
    if let Some(s) =
        out.text_field(&fm.summary, "summary", &id).or_else(|| out.text_field(&fm.description, "description", &id))
    {
        sections.summary = s;
    }
    let front_id = out.text_field(&fm.id, "id", &id).map(|s| s.trim().to_string()).filter(|s| !s.is_empty());

    // Tags: front matter, else the folders below the source's folder.
    let tags = match &fm.tags {
        Some(f) => out.list_field(f, "tags", &id),
        None => stem_path
            .parent()
            .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
            .unwrap_or_default(),
    };
    let forced_inactive = source.proposed == Proposed::Inactive && status.as_deref() == Some("proposed");
    let rel_stem = stem_path.to_string_lossy().replace('\\', "/");
    out.records.push(Record {
        id,
        title,
        tags,
        constraint,
        anti_patterns,
        content: content.join("\n"),
        sections,
        globs: Vec::new(),
        globs_line: 0,
        status,
        superseded_by,
        line,
        forced_inactive,
        file: shown.to_string(),
        id_parts: Some(IdParts {
            front: front_id,
            number: number_value,
            number_id,
            stem_id,
            stem: stem.clone(),
            rel_id: format!("{prefix}{rel_stem}"),
            superseded_stem,
            from: source.id_from,
        }),
        place: String::new(),
    });
    out
}

/// Whether a heading's words (see [`heading_words`]) are only the name of
/// a part of an ADR (`Context and Problem Statement`, `Considered Options`,
/// `Positive Consequences`, `Status`) or a label (`Don'ts`), with at most a
/// number (`Option 2`): words every ADR has, which say nothing of this one.
fn only_a_part_name(words: &str) -> bool {
    const NAMES: &[&str] = &[
        "context",
        "problem",
        "statement",
        "decision",
        "decisions",
        "outcome",
        "drivers",
        "driver",
        "considered",
        "option",
        "options",
        "alternative",
        "alternatives",
        "pros",
        "cons",
        "and",
        "of",
        "the",
        "consequence",
        "consequences",
        "positive",
        "negative",
        "neutral",
        "status",
        "confirmation",
        "implementation",
        "background",
        "motivation",
        "forces",
        "requirements",
        "assumptions",
        "record",
        "tradeoffs",
        "chosen",
        "more",
        "information",
        "links",
        "notes",
        "don't",
        "don'ts",
        "dont",
        "donts",
        "anti",
        "patterns",
        "antipatterns",
        "avoid",
        "do",
        "not",
        "never",
        "forbidden",
        "summary",
        "details",
    ];
    words.split(' ').filter(|w| !w.is_empty()).all(|w| NAMES.contains(&w) || w.chars().all(|c| c.is_ascii_digit()))
}

/// A `Key: value` line of an ADR's header (`Date: 2020-01-01`, `Deciders:
/// …`, `Technical Story: …`): metadata, not text about the decision.
fn metadata_line(text: &str) -> bool {
    text.split_once(':').is_some_and(|(key, _)| {
        let words = key.split_whitespace().count();
        (1..=3).contains(&words) && key.chars().all(|c| c.is_alphanumeric() || c == ' ' || c == '-')
    })
}

/// The ids of the records of the ADR sources that share a prefix, settled
/// over all of them (see docs/sources.md, "Ids stay put"): each source's
/// `id_from` says where its ids come from; every file gets an id of its
/// own. Returns the warnings, one per shared number or id, with the file
/// and line of its first record.
pub(crate) fn assign_ids(records: &mut [Record]) -> Vec<(Origin, Option<String>, String)> {
    let mut warnings = Vec::new();
    // Numbers several files share.
    let mut by_number: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if let Some(n) = r.id_parts.as_ref().and_then(|p| p.number) {
            by_number.entry(n).or_default().push(i);
        }
    }
    let shared: BTreeMap<u64, Vec<usize>> = by_number.into_iter().filter(|(_, v)| v.len() > 1).collect();
    for r in records.iter_mut() {
        let Some(p) = r.id_parts.clone() else { continue };
        let number_ok = p.number.is_some_and(|n| !shared.contains_key(&n));
        r.id = match p.from {
            IdFrom::FrontMatter if p.front.is_some() => p.front.clone().unwrap_or_default(),
            IdFrom::FrontMatter | IdFrom::Number if number_ok => p.number_id.clone().unwrap_or_default(),
            _ => p.stem_id.clone(),
        };
    }
    // An id that two files still share (two front matters, a front matter
    // that names another file's number, one stem in two folders): each of
    // them takes its path.
    let mut by_id: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in records.iter().enumerate() {
        if r.id_parts.is_some() {
            by_id.entry(r.id.clone()).or_default().push(i);
        }
    }
    for (id, files) in by_id.iter().filter(|(_, v)| v.len() > 1) {
        for &i in files {
            if let Some(p) = &records[i].id_parts {
                records[i].id = p.rel_id.clone();
            }
        }
        let list: Vec<String> = files.iter().map(|&i| format!("{} → {}", records[i].file, records[i].id)).collect();
        let first = &records[files[0]];
        warnings.push((
            Origin { file: first.file.clone(), line: first.line },
            None,
            format!(
                "{} files would share the id \"{id}\": each takes its path ({}); give each its own `id:`",
                files.len(),
                list.join(", ")
            ),
        ));
    }
    for (n, files) in &shared {
        if files.iter().all(|&i| records[i].id_parts.as_ref().is_some_and(|p| p.from == IdFrom::Stem)) {
            continue;
        }
        let list: Vec<String> = files.iter().map(|&i| format!("{} → {}", records[i].file, records[i].id)).collect();
        let number_id = records[files[0]].id_parts.as_ref().and_then(|p| p.number_id.clone()).unwrap_or_default();
        let first = &records[files[0]];
        warnings.push((
            Origin { file: first.file.clone(), line: first.line },
            None,
            format!(
                "{} files share the number {n}, so none of them is \"{number_id}\": {}; a scenario or baseline that names \"{number_id}\" must name one of these ids",
                files.len(),
                list.join(", ")
            ),
        ));
    }
    // `Superseded by` a file: that file's id, now that ids are settled.
    let by_stem: HashMap<String, String> =
        records.iter().filter_map(|r| r.id_parts.as_ref().map(|p| (p.stem.clone(), r.id.clone()))).collect();
    let by_unique_number: HashMap<u64, String> = records
        .iter()
        .filter_map(|r| {
            r.id_parts.as_ref().and_then(|p| p.number).filter(|n| !shared.contains_key(n)).map(|n| (n, r.id.clone()))
        })
        .collect();
    for r in records.iter_mut() {
        let stem = r.id_parts.as_ref().and_then(|p| p.superseded_stem.clone());
        if let Some(id) = stem.and_then(|s| by_stem.get(&s)) {
            r.superseded_by = Some(id.clone());
        } else if let Some(by) = &r.superseded_by {
            let digits: String =
                by.chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
            if let Some(id) = digits.parse::<u64>().ok().and_then(|n| by_unique_number.get(&n)) {
                if by.ends_with(&digits) {
                    r.superseded_by = Some(id.clone());
                }
            }
        }
    }
    warnings
}

/// `Status: accepted` (any case, with or without emphasis already gone):
/// the value.
fn inline_status(text: &str) -> Option<&str> {
    let (key, value) = text.split_once(':')?;
    (key.trim().eq_ignore_ascii_case("status") && !value.trim().is_empty()).then(|| value.trim())
}

/// A status as written → the status recorded, and the superseding ADR as
/// written (a link target or the words after "by").
pub(crate) fn read_status(text: &str, links: &[String]) -> (String, Option<String>) {
    let lower = text.trim().to_lowercase();
    let first = lower.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()).unwrap_or("");
    let status = match first {
        "accepted" | "approved" | "adopted" | "active" | "agreed" | "done" | "implemented" | "decided" => "accepted",
        "proposed" | "proposal" | "pending" | "draft" | "wip" => "proposed",
        // `Superceded`: a misspelling common enough in ADR folders (Simple's
        // Android app writes it in five) that a team means superseded by it.
        "superseded" | "superceded" => "superseded",
        "deprecated" | "obsolete" => "deprecated",
        "rejected" | "declined" | "withdrawn" | "abandoned" => "rejected",
        "retired" => "retired",
        _ if lower.starts_with("in progress") || lower.starts_with("under review") => "proposed",
        _ => {
            let line = lower.lines().next().unwrap_or("").trim();
            return (line.chars().take(80).collect(), None);
        }
    };
    let by = (status == "superseded").then(|| {
        links.first().cloned().or_else(|| {
            // " by " is ASCII: where it starts is a character boundary.
            let t = text.trim();
            let at = t.as_bytes().windows(4).position(|w| w.eq_ignore_ascii_case(b" by "))? + 4;
            Some(t[at..].trim().to_string()).filter(|s| !s.is_empty())
        })
    });
    (status.to_string(), by.flatten())
}

/// The id of a referenced ADR: the number of a link target's file name
/// (`0015-dns.md`), else the first number of the text (`ADR-0123`,
/// `15. DNS`), with the prefix; else the text as written.
pub(crate) fn reference(text: &str, prefix: &str) -> String {
    let (file, _) = linked_decision(text);
    if let Some(n) = number(file) {
        if is_date(n) || iso_dated(file) {
            let stem = file.strip_suffix(".md").unwrap_or(file);
            return format!("{prefix}{stem}");
        }
        return format!("{prefix}{n}");
    }
    let digits: String = text.chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
    if !digits.is_empty() {
        return format!("{prefix}{digits}");
    }
    text.trim().to_string()
}

/// The name a link to a decision names, without its `#…` or `?…`, and
/// whether it is a folder: a decision kept as a folder of its own is linked
/// by the folder (`../0015-dns/`) or by its file (`../0015-dns/README.md`),
/// and either way it is the folder's name (`0015-dns`, `true`); any other
/// link names its last piece (`0015-dns.md`, `false`).
fn linked_decision(target: &str) -> (&str, bool) {
    let target = target.split(['#', '?']).next().unwrap_or(target);
    let folder = target.ends_with('/');
    let mut pieces = target.trim_end_matches('/').rsplit('/');
    let last = pieces.next().unwrap_or_default();
    match pieces.next() {
        Some(parent) if !folder && super::walk::is_folder_adr_file(last) => (parent, true),
        _ => (last, folder),
    }
}

/// A heading without the ADR number in front: `1. Use X`, `ADR-0001: Use
/// X`, `[ADR-12] Use X`, `0001 Use X` → `Use X`.
pub(crate) fn strip_number(title: &str) -> String {
    let t = title.trim();
    let mut rest = t.trim_start_matches('[').trim_start();
    if rest.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("adr")) {
        rest = rest[3..].trim_start_matches(|c: char| c == '-' || c == '_' || c == '#' || c.is_whitespace());
    } else if !rest.starts_with(|c: char| c.is_ascii_digit()) {
        return t.to_string();
    }
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return t.to_string();
    }
    let after = &rest[digits..];
    let after_sep = after.trim_start_matches(']').trim_start();
    let stripped = match after_sep.chars().next() {
        Some('.' | ':' | ')' | '-' | '–' | '—') => {
            after_sep[after_sep.chars().next().map_or(0, char::len_utf8)..].trim_start()
        }
        Some(_) if after.starts_with(char::is_whitespace) || after.starts_with(']') => after_sep,
        _ => return t.to_string(),
    };
    if stripped.is_empty() {
        t.to_string()
    } else {
        stripped.to_string()
    }
}

/// A file stem as a title: the words after the number (`0001-use-postgres`
/// → `use postgres`).
fn stem_words(stem: &str) -> String {
    // A dated name's date is no title (`2022-11-09-api-refactoring`).
    let undated = if iso_dated(stem) { &stem[10..] } else { stem };
    let rest = unprefixed(undated).trim_start_matches(|c: char| c.is_ascii_digit());
    let words: Vec<&str> = rest.split(['-', '_']).filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        stem.to_string()
    } else {
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_stripped_from_titles() {
        for (heading, title) in [
            ("1. Record architecture decisions", "Record architecture decisions"),
            ("ADR-0001: Use Postgres", "Use Postgres"),
            ("ADR 12 - Use X", "Use X"),
            ("[ADR-3] Use X", "Use X"),
            ("0001 Use X", "Use X"),
            ("Use the ADR number as its unique ID", "Use the ADR number as its unique ID"),
            ("3rd party libraries", "3rd party libraries"),
            ("12", "12"),
            ("Adrenaline", "Adrenaline"),
            ("U\u{8b}\u{9a}ßash", "U\u{8b}\u{9a}ßash"),
            ("Aé", "Aé"),
            ("U\u{fffd}ashes", "U\u{fffd}ashes"),
            ("ADR", "ADR"),
        ] {
            assert_eq!(strip_number(heading), title, "{heading}");
        }
        assert_eq!(stem_words("0001-use-postgres"), "use postgres");
        assert_eq!(number("0015-dns.md"), Some("0015"));
        assert_eq!(number("dns.md"), None);
    }

    fn one(text: &str) -> Record {
        let source = DecisionSource::new(crate::memory::SourceKind::Adr, "docs/adr");
        let mut out = map("0007-x.md", Path::new("0007-x.md"), text, &source);
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        out.records.remove(0)
    }

    #[test]
    fn a_record_that_opens_with_a_part_is_titled_by_its_name() {
        let source = DecisionSource::new(crate::memory::SourceKind::Adr, "docs/developer/decision-records");
        let rel = Path::new("2023-12-19-token-handling-refactor/README.md");
        let text = "## Decision\n\nToken generation will be refactored.\n\n## Rationale\n\nLess debt.\n";
        let r = map("README.md", rel, text, &source).records.remove(0);
        assert_eq!(r.title, "token handling refactor");
        assert_eq!(r.content, "Token generation will be refactored.");
        // A heading that says what the record is about stays its title.
        assert_eq!(one("## Use Postgres\n\n## Decision\n\nWe do.\n").title, "Use Postgres");
        // So does a level-1 heading, unless it only names a part.
        let r = map("documentation.md", Path::new("documentation.md"), "# Decision\n\nSplit the specs.\n", &source);
        assert_eq!(r.records[0].title, "documentation");
    }

    #[test]
    fn the_words_of_sub_headings_are_scored_in_their_part() {
        let r = one(
            "# X\n\n## Status\n\nAccepted\n\n## Context\n\nc\n\n## Considered Options\n\n### Option 1\n\none\n\n### Option 2: Validate and reject multiple addresses\n\ntwo\n\n#### Pros and Cons\n\n- fast\n\n## Decision\n\nWe validate.\n\n### Rollout plan\n\nSteps.\n\n### Consequences\n\nMore checks.\n",
        );
        assert_eq!(r.sections.options, "one\nOption 2: Validate and reject multiple addresses\ntwo\nfast");
        // A sub-section of the Decision is the Decision's text; one that
        // names another part is that part's.
        assert_eq!(r.content, "c\nWe validate.");
        assert_eq!(r.sections.subsections, "Rollout plan\nSteps.");
        assert_eq!(r.sections.decision, "");
        assert_eq!(r.sections.consequences, "More checks.");
        assert_eq!(r.sections.context, "");
        assert!(only_a_part_name("considered options") && only_a_part_name("option 1"));
        assert!(!only_a_part_name("rollout plan"));
    }

    /// A Nygard ADR whose whole story is told in sub-sections of its Context
    /// (as dotcom-rendering's `026-better-partial-hydration.md`): their text
    /// and their headings are the Context's text, kept in `subsections`
    /// (profile `default` scores them with `content`).
    #[test]
    fn the_sub_sections_of_the_context_are_its_text() {
        let r = one(concat!(
            "# Improved Partial Hydration\n\n## Context\n\nIt did not scale.\n\n### What is Partial Hydration?\n\n",
            "Islands hydrate parts of a page.\n\n### After\n\nTo create a new island you now:\n\n",
            "1. Wrap the component with `Island`.\n\n#### Consequences\n\nMore script tags.\n"
        ));
        assert_eq!(r.content, "It did not scale.");
        assert_eq!(
            r.sections.subsections,
            "What is Partial Hydration?\nIslands hydrate parts of a page.\nAfter\nTo create a new island you now:"
        );
        // A list is not text: its items stay in the part, as under the Context itself.
        assert_eq!(r.sections.context, "Wrap the component with `Island`.");
        assert_eq!(r.sections.consequences, "More script tags.");
        // A section whose heading names the problem or the decision belongs
        // to them too; its bullets keep their part.
        let r = one(concat!(
            "# X\n\n## Context\n\nc\n\n## Decision Drivers\n\nSpeed matters.\n\n- cost\n\n",
            "## Decision\n\nWe do X.\n\n## Implementation\n\nRoll it out.\n\n- step one\n"
        ));
        assert_eq!(r.content, "c\nWe do X.");
        assert_eq!(r.sections.subsections, "Speed matters.\nRoll it out.");
        assert_eq!((r.sections.context.as_str(), r.sections.decision.as_str()), ("cost", "step one"));
    }

    #[test]
    fn the_status_line_wins_over_a_deep_status_heading() {
        let r = one(
            "# X\n\n* Status: accepted\n\n## Context\n\nc\n\n## Design\n\n### Status\n\nDeprecated fields are shown.\n",
        );
        assert_eq!(r.status.as_deref(), Some("accepted"));
        assert_eq!(r.sections.context, "Design\nDeprecated fields are shown.");
        // Nygard's `## Status` section, written with a no-break space.
        let r = one("# 1. X\n\n##\u{a0}Status\n\nSuperseded by [2. Y](0002-y.md)\n\n## Context\n\nc\n");
        assert_eq!((r.status.as_deref(), r.superseded_by.as_deref()), (Some("superseded"), Some("ADR-0002")));
        let r = one("# X\n\n## Status: Proposed\n\n## Context\n\nc\n");
        assert_eq!(r.status.as_deref(), Some("proposed"));
    }

    #[test]
    fn every_part_of_a_madr_is_read() {
        let r = one(concat!(
            "---\nsummary: In short.\n---\n# Use X\n\n* Status: accepted\n* Deciders: a, b\n\n",
            "## Context and Problem Statement\n\nWe need X.\n\n- a context bullet\n\n### Forces\n\nForce text.\n\n",
            "## Decision Drivers\n\n* driver one\n\n## Considered Options\n\n* X\n* Y\n\n",
            "## Decision Outcome\n\nChosen option: X.\n\n- use X everywhere\n\n### Confirmation\n\nReviews check it.\n\n",
            "### Positive Consequences\n\n* faster\n\n## Pros and Cons of the Options\n\n### Y\n\n* Bad, because slow\n\n",
            "## More Information\n\nSee the wiki.\n"
        ));
        assert_eq!(r.content, "We need X.\nChosen option: X.");
        assert_eq!(r.sections.subsections, "Force text.\nReviews check it.");
        assert_eq!(r.constraint, ["use X everywhere"]);
        let s = &r.sections;
        assert_eq!(s.summary, "In short.");
        assert_eq!(s.context, "a context bullet\ndriver one\nSee the wiki.");
        // `### Y`, the option's own heading, is scored with its text.
        assert_eq!(s.options, "X\nY\nY\nBad, because slow");
        assert_eq!(s.decision, "");
        assert_eq!(s.consequences, "faster");
    }

    #[test]
    fn statuses_are_read_by_their_first_word() {
        let s = |t: &str| read_status(t, &[]);
        assert_eq!(s("Accepted"), ("accepted".into(), None));
        assert_eq!(s("approved on 2020-01-01"), ("accepted".into(), None));
        assert_eq!(s("Pending"), ("proposed".into(), None));
        assert_eq!(s("Proposal"), ("proposed".into(), None));
        assert_eq!(s("Partly superseded"), ("partly superseded".into(), None));
        assert_eq!(s("Superseded by ADR-0123"), ("superseded".into(), Some("ADR-0123".into())));
        assert_eq!(
            read_status(
                "Superceded by [008](./008-screen-architecture-v3.md) on 2019-10-01",
                &["./008-screen-architecture-v3.md".into()]
            ),
            ("superseded".into(), Some("./008-screen-architecture-v3.md".into()))
        );
        assert_eq!(s("Superseded İİ BY x"), ("superseded".into(), Some("x".into())));
        assert_eq!(
            read_status("Superseded by DNS Infrastructure", &["0015-dns-infrastructure.md".into()]),
            ("superseded".into(), Some("0015-dns-infrastructure.md".into()))
        );
        assert_eq!(reference("0015-dns-infrastructure.md", "ADR-"), "ADR-0015");
        assert_eq!(reference("ADR-0123", "ADR-"), "ADR-0123");
        assert_eq!(
            reference("20201016-use-the-adr-slug-as-its-unique-id.md", "ADR-"),
            "ADR-20201016-use-the-adr-slug-as-its-unique-id"
        );
        assert_eq!(reference("0012-x.md#top", "ADR-"), "ADR-0012");
        assert_eq!(reference("../0015-dns/README.md", "ADR-"), "ADR-0015");
        assert_eq!(reference("../0015-dns/", "ADR-"), "ADR-0015");
        assert_eq!(reference("../2022-02-10-use-jackson/README.md", "ADR-"), "ADR-2022-02-10-use-jackson");
        assert!(is_date("20200926"));
        assert!(!is_date("00000001"));
        assert!(!is_date("0001"));
        assert!(iso_dated("2022-02-10-use-jackson") && iso_dated("2022-02-10"));
        assert!(!iso_dated("2022-13-10-x") && !iso_dated("0001-x") && !iso_dated("2022-02-100"));
        assert!(iso_dated("2020_03_03_api_translations") && !iso_dated("2020_03-03_x") && !iso_dated("2020-03_03_x"));
        // Not a date, and no byte offset in the middle of a character.
        assert!(!iso_dated("2022-02-1é.md") && !iso_dated("2022-0é-10") && !iso_dated("20é2-02-10"));
        assert_eq!(number("adr-001-repo"), Some("001"));
        assert_eq!(number("ADR_12_use-x"), Some("12"));
        assert_eq!(number("adr001-add-adr-log"), Some("001"));
        assert_eq!(number("adrian-notes"), None);
        assert_eq!(number("adr-template"), None);
        assert_eq!(number("0007-x"), Some("0007"));
        assert_eq!(reference("adr-015-ibc-packet-receiver.md", "ADR-"), "ADR-015");
        assert_eq!(stem_words("adr-001-repo"), "repo");
        assert_eq!(stem_words("2022-11-09-api-refactoring"), "api refactoring");
        assert_eq!(stem_words("2020_03_03_api_translations"), "api translations");
        assert_eq!(stem_words("20200926-use-x"), "use x");
        assert_eq!(reference("the new one", "ADR-"), "the new one");
        assert_eq!(inline_status("Status: accepted"), Some("accepted"));
        assert_eq!(inline_status("Date: 2020"), None);
    }
}
