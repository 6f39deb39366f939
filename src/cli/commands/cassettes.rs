//! `mneme-gate cassettes prune`: the cassettes that no request of the suite
//! uses any more (a decision or a task changed, a scenario was removed, the
//! model settings changed), and the files of the folder that are not
//! cassettes. They are listed, one path a line on standard output, and
//! removed only with `--delete`. A cassette of a `--repeat` sample counts as
//! used when its first sample's request is.

use std::collections::BTreeSet;

use crate::cli::output;
use crate::cli::settings::PruneSettings;
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
        // Only inside the repository: the folder, and every file's folder,
        // resolved; a folder with a cassette's name is skipped, not fatal.
        let root = crate::confine::repository_root().map_err(|e| Error::Infrastructure(e.to_string()))?;
        if let Err(refusal) = crate::confine::resolve_inside(&root, &s.model.cassettes) {
            if !matches!(&refusal, crate::confine::Refusal::Io(e) if e.kind() == std::io::ErrorKind::NotFound) {
                return Err(Error::Usage(format!(
                    "cassettes prune --delete deletes only inside the repository, and the cassette folder {dir} does not resolve inside {}: {refusal}",
                    display_path(&root)
                )));
            }
        }
        let mut removed = 0;
        let mut refused = 0;
        for path in &old {
            let outcome = crate::confine::check_delete(&root, path)
                .map_err(std::io::Error::from)
                .and_then(|()| std::fs::remove_file(path));
            match outcome {
                Ok(()) => removed += 1,
                Err(e) => {
                    refused += 1;
                    output::note(&format!("{}: not removed: {e}", display_path(path)));
                }
            }
        }
        output::note(&format!("removed {removed} of {total} cassette file(s) in {dir}"));
        if refused > 0 {
            return Err(Error::Usage(format!(
                "{refused} unused cassette file(s) in {dir} could not be removed (see above): remove them by hand"
            )));
        }
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
