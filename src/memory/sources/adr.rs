//! Architecture decision records (Nygard / adr-tools, MADR 2 to 4, log4brains)
//! as decisions: one record per file.
//!
//! | decision | from |
//! |---|---|
//! | id | the file's number, after the prefix: `0001-use-postgres.md` → `ADR-0001` |
//! | title | front matter `title`, else the first heading, without its number (`# 1. Use X` → `Use X`) |
//! | status | front matter `status`, else the Status section's first line, else a `Status: …` line before the sections |
//! | content | the text of the Context (or Context and Problem Statement) and Decision (or Decision Outcome) sections; the whole text when there are neither |
//! | constraints | the bullets of the Decision / Decision Outcome section |
//! | anti-patterns | the bullets under a heading that says what not to do (`Don'ts`, `Anti-patterns`, `Avoid`, …) |
//! | tags | front matter `tags`, else the folders between the source's folder and the file |
//!
//! Statuses are read by their first word: accepted, approved, adopted, active
//! → `accepted`; proposed, pending, draft → `proposed`; superseded (with the
//! superseding ADR, from the link or the text that follows) → `superseded`;
//! deprecated, obsolete → `deprecated`; rejected, declined, withdrawn →
//! `rejected`; anything else is kept as written, lowercased (`partly
//! superseded` stays in the pool).

use std::path::Path;

use super::front_matter;
use super::markdown::{self, heading_words, Block, Kind};
use super::{FileRecords, Proposed, Record, Source};

/// The number an ADR's file name starts with (`0001`), if any.
pub(crate) fn number(file_name: &str) -> Option<&str> {
    let end = file_name.find(|c: char| !c.is_ascii_digit()).unwrap_or(file_name.len());
    (end > 0).then(|| &file_name[..end])
}

/// Whether a file number is a date (`20200926`, log4brains): then it is
/// not a sequence number, several ADRs share it, and the id is the whole
/// file name, as log4brains identifies its ADRs.
pub(crate) fn is_date(n: &str) -> bool {
    let ok = |s: &str, lo: u32, hi: u32| s.parse::<u32>().is_ok_and(|v| (lo..=hi).contains(&v));
    n.len() == 8 && ok(&n[..4], 1970, 2999) && ok(&n[4..6], 1, 12) && ok(&n[6..], 1, 31)
}

/// Maps one ADR file.
pub(crate) fn map(shown: &str, rel: &Path, text: &str, source: &Source) -> FileRecords {
    let mut out = FileRecords::default();
    let name = rel.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".md").or_else(|| name.strip_suffix(".markdown")).unwrap_or(&name).to_string();
    let prefix = source.id_prefix.as_deref().unwrap_or("ADR-");
    let id = match number(&stem) {
        Some(n) if is_date(n) => format!("{prefix}{stem}"),
        Some(n) => format!("{prefix}{n}"),
        None => format!("{prefix}{}", super::slug(&stem)),
    };
    let split = front_matter::split(text);
    if let Some(p) = &split.problem {
        out.error(p.line, p.column, Some(&id), p.message.clone());
    }
    let fm = &split.front;
    let starts = crate::memory::lines::line_starts(text);
    let blocks = markdown::blocks(split.body, split.body_start, &starts);

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
    // heading), without its number.
    let title_heading = blocks
        .iter()
        .position(|b| b.kind == Kind::Heading(1))
        .or_else(|| blocks.iter().position(|b| b.heading_level().is_some()));
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

    // Status.
    let mut status_text: Option<(String, Vec<String>)> = None;
    if let Some(s) = out.text_field(&fm.status, "status", &id) {
        status_text = Some((s, Vec::new()));
    }
    if status_text.is_none() {
        let in_section: Vec<&Block> = blocks
            .iter()
            .enumerate()
            .filter(|&(i, b)| b.heading_level().is_none() && words(under[i]) == "status")
            .map(|(_, b)| b)
            .collect();
        // adr-tools rewrites the status line itself; a later "Superseded by"
        // line wins over an earlier one all the same.
        let pick =
            in_section.iter().find(|b| b.text.to_lowercase().starts_with("superseded")).or_else(|| in_section.first());
        status_text = pick.map(|b| (b.text.clone(), b.links.clone()));
    }
    if status_text.is_none() {
        // `- Status: accepted` (MADR 2, log4brains) or `Status: Accepted`
        // before the sections.
        status_text = blocks
            .iter()
            .enumerate()
            .filter(|&(i, b)| b.heading_level().is_none() && (under[i].is_none() || under[i] == title_heading))
            .find_map(|(_, b)| inline_status(&b.text).map(|s| (s.to_string(), b.links.clone())));
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
    let mut content = Vec::new();
    let mut constraint = Vec::new();
    let mut anti_patterns = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if b.heading_level().is_some() {
            continue;
        }
        let w = words(under[i]);
        // The title says what the ADR is about, not what its bullets are.
        let anti = under[i].is_some() && under[i] != title_heading && super::is_anti_heading(&w);
        match b.kind {
            Kind::Item { .. } if anti => anti_patterns.push(b.text.clone()),
            Kind::Item { .. } if is_decision(&w) => constraint.push(b.text.clone()),
            Kind::Text | Kind::Row if has_sections && (is_context(&w) || is_decision(&w)) => {
                content.push(b.text.clone())
            }
            Kind::Text | Kind::Row if !has_sections && w != "status" && inline_status(&b.text).is_none() => {
                content.push(b.text.clone())
            }
            _ => {}
        }
    }

    // Tags: front matter, else the folders below the source's folder.
    let tags = match &fm.tags {
        Some(f) => out.list_field(f, "tags", &id),
        None => rel
            .parent()
            .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
            .unwrap_or_default(),
    };
    let forced_inactive = source.proposed == Proposed::Inactive && status.as_deref() == Some("proposed");
    out.records.push(Record {
        id,
        title,
        tags,
        constraint,
        anti_patterns,
        content: content.join("\n"),
        globs: Vec::new(),
        globs_line: 0,
        status,
        superseded_by,
        line,
        forced_inactive,
        file: shown.to_string(),
    });
    out
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
        "proposed" | "pending" | "draft" | "wip" => "proposed",
        "superseded" => "superseded",
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
    let file = text.rsplit('/').next().unwrap_or(text);
    if let Some(n) = number(file) {
        if is_date(n) {
            let stem = file.split(['#', '?']).next().unwrap_or(file);
            let stem = stem.strip_suffix(".md").unwrap_or(stem);
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
    let rest = stem.trim_start_matches(|c: char| c.is_ascii_digit());
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

    #[test]
    fn statuses_are_read_by_their_first_word() {
        let s = |t: &str| read_status(t, &[]);
        assert_eq!(s("Accepted"), ("accepted".into(), None));
        assert_eq!(s("approved on 2020-01-01"), ("accepted".into(), None));
        assert_eq!(s("Pending"), ("proposed".into(), None));
        assert_eq!(s("Partly superseded"), ("partly superseded".into(), None));
        assert_eq!(s("Superseded by ADR-0123"), ("superseded".into(), Some("ADR-0123".into())));
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
        assert!(is_date("20200926"));
        assert!(!is_date("00000001"));
        assert!(!is_date("0001"));
        assert_eq!(reference("the new one", "ADR-"), "the new one");
        assert_eq!(inline_status("Status: accepted"), Some("accepted"));
        assert_eq!(inline_status("Date: 2020"), None);
    }
}
