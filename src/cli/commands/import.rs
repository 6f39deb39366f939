//! `mneme-gate import`: the decisions of any sources as one Mneme memory
//! file, the same bytes for the same sources.

use std::path::Path;

use crate::cli::output;
use crate::cli::settings::{Destination, ImportSettings};
use crate::error::{exit, Error};
use crate::memory::sources::{self, export};

pub(crate) fn execute(s: ImportSettings) -> Result<i32, Error> {
    let read = sources::read(&s.memory.sources, s.memory.profile.family)?;
    let label = s.memory.sources.label();
    let records = read.records;
    let memory = read.memory.refuse_errors()?;
    for w in memory.warnings() {
        output::note(&w.render(Path::new(&label)));
    }
    let dir = match &s.out {
        Destination::File(path) => path.parent().map(Path::to_path_buf).unwrap_or_default(),
        Destination::Stdout => Default::default(),
    };
    let text = export::mneme_json(&records, &label, &dir);
    match &s.out {
        Destination::Stdout => output::stdout(text.as_bytes())?,
        Destination::File(path) => {
            output::file(path, &text)?;
            output::text(
                &format!(
                    "wrote {}: {} record(s) from {label}, {} in the retrieval pool (profile {})\n",
                    path.display(),
                    records.len(),
                    memory.pool.len(),
                    s.memory.profile.name
                ),
                false,
            )?;
        }
    }
    Ok(exit::OK)
}
