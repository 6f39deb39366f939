//! `mneme-gate suggest`: for each expected decision a scenario misses, the
//! verified one-word edit that fixes it, or why there is none.

use crate::cli::output;
use crate::cli::settings::SuggestSettings;
use crate::cli::suite::load_for_analysis;
use crate::describe::defuse_lines;
use crate::error::{exit, Error};
use crate::report::suggest as render;
use crate::retrieval::Index;
use crate::suggest::{self, Format, Place};

pub(crate) fn execute(s: SuggestSettings) -> Result<i32, Error> {
    let settings = &s.suite;
    let (memory, pool, scenarios) = load_for_analysis(settings)?;
    let label = settings.memory.label().display().to_string();
    let places = places(&memory, &label);
    let index = Index::build(memory, settings.memory.profile.clone());
    let progress = output::Progress::new(None, "misses examined");
    let suggestions = pool.install(|| suggest::suggest(&index, &scenarios, &places, s.max, &|| progress.tick()));
    progress.finish();
    if s.json {
        output::json(&render::json(&suggestions))?;
    } else {
        output::text(&defuse_lines(&render::text(&suggestions, s.width), false), false)?;
    }
    Ok(exit::OK)
}

/// Where each pool decision is written: its file and line, and whether an
/// edit can be written there ([`Format`]).
fn places(memory: &crate::memory::Memory, label: &str) -> Vec<Option<Place>> {
    let mut per_file: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for d in &memory.pool {
        if let Some(o) = d.origin() {
            *per_file.entry(o.file.as_str()).or_default() += 1;
        }
    }
    memory
        .pool
        .iter()
        .map(|d| match d.origin() {
            Some(o) => {
                let format = if o.file.ends_with(".json") {
                    Format::MemoryFile
                } else if per_file.get(o.file.as_str()).copied().unwrap_or(0) > 1 {
                    Format::SharedMarkdown
                } else {
                    Format::Markdown
                };
                Some(Place { file: o.file.clone(), line: o.line, format })
            }
            None => {
                Some(Place { file: label.to_string(), line: memory.line_col(d.offset).0, format: Format::MemoryFile })
            }
        })
        .collect()
}
