//! `mneme-gate cassettes prune`: the cassettes that no request of the suite
//! uses any more (a decision or a task changed, a scenario was removed, the
//! model settings changed), and the files of the folder that are not
//! cassettes. They are listed, one path a line on standard output, and
//! removed only with `--delete`. A cassette of a `--repeat` sample counts as
//! used when its first sample's request is.

use std::collections::BTreeSet;

use crate::cli::model::PruneSettings;
use crate::cli::output;
use crate::cli::suite::load_memory;
use crate::describe::printable;
use crate::error::{exit, Error};
use crate::model::cassette::Folder;
use crate::model::stage;
use crate::report::display_path;
use crate::retrieval::Index;
use crate::scenarios::Suite;

pub(crate) fn execute(s: PruneSettings) -> Result<i32, Error> {
    let memory = load_memory(&s.suite.memory)?;
    let suite = Suite::load_with(&s.suite.roots, &s.suite.limits).map_err(Error::Suite)?;
    let index = Index::build(memory, s.suite.memory.profile.clone());
    let plan = stage::plan(&index, &suite.scenarios, &crate::model::Settings { repeat: 1, ..s.model.clone() });
    let current: BTreeSet<&String> = plan.requests.keys().collect();
    let folder = Folder::new(&s.model.cassettes);
    let listed = folder.list()?;
    let total = listed.len();
    let mut old = Vec::new();
    for (path, cassette) in listed {
        match cassette {
            Ok(c) if current.contains(&c.request.base_key()) => {}
            Ok(_) => old.push(path),
            Err(reason) => {
                output::note(&format!("{}: not a usable cassette: {reason}", display_path(&path)));
                old.push(path);
            }
        }
    }
    let mut text = String::new();
    for path in &old {
        text.push_str(&printable(&display_path(path)));
        text.push('\n');
    }
    output::stdout(text.as_bytes())?;
    let dir = display_path(&s.model.cassettes);
    if s.delete {
        for path in &old {
            std::fs::remove_file(path).map_err(|source| Error::Write { path: Some(path.clone()), source })?;
        }
        output::note(&format!("removed {} of {total} cassette file(s) in {dir}", old.len()));
    } else if old.is_empty() {
        output::note(&format!("every one of the {total} cassette file(s) in {dir} is used by the suite"));
    } else {
        output::note(&format!(
            "{} of {total} cassette file(s) in {dir} are not used by the suite; pass --delete to remove them",
            old.len()
        ));
    }
    Ok(exit::OK)
}
