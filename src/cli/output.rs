/*!
Everything the command line writes goes through here.

Standard output carries what the user asked for: a failed write there is an
error (exit 3), except a closed pipe (`| head`), which is how a reader says
it has seen enough. Standard error carries notes and warnings: a failed
write there is ignored, since there is nowhere left to say so. Report files
are written atomically, so a report is whole or absent.
*/

use std::io::{self, Write};
use std::path::Path;

use super::settings::Destination;
use crate::describe::{defuse_json, defuse_lines};
use crate::error::Error;

/// Writes to standard output and flushes.
pub(crate) fn stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(|source| Error::Write { path: None, source })
}

/// Writes text meant for a reader (a table, findings, a context block) to
/// standard output, defused with [`defuse_lines`] (`colour`: the text holds
/// the tool's own colour sequences).
pub(crate) fn text(text: &str, colour: bool) -> Result<(), Error> {
    stdout(defuse_lines(text, colour).as_bytes())
}

/// Writes a JSON document (or JSON lines) to standard output, defused with
/// [`defuse_json`].
pub(crate) fn json(text: &str) -> Result<(), Error> {
    stdout(defuse_json(text).as_bytes())
}

/// Writes to standard error, ignoring failure.
pub(crate) fn stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// One line on standard error, prefixed with the tool's name. Notes and
/// errors quote strings from the inputs, so this is the last line of defence
/// against a workflow command or a terminal escape hidden in one: control
/// characters other than the line breaks between the lines of an error are
/// shown escaped, and no line can start with `::` ([`defuse_lines`]).
pub(crate) fn note(line: &str) {
    stderr(&format!("mneme-gate: {}\n", defuse_lines(line, false)));
}

/// Writes a file atomically, creating its folder, so that it is whole or
/// absent. A device or a pipe (`/dev/stdout`, `>(jq .)`) cannot be replaced,
/// only written to, so it is written in place; nothing ever renames over it.
pub(crate) fn file(path: &Path, text: &str) -> Result<(), Error> {
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(err)?;
            f.write_all(text.as_bytes()).and_then(|_| f.flush()).map_err(err)
        }
        _ => crate::atomic::write_atomically(path, text.as_bytes()).map_err(err),
    }
}

/// Writes a baseline atomically. Unlike a report, it is read back by later
/// runs, so a target that is not a regular file (a folder, a pipe, a
/// device) is refused as an input error rather than written through.
pub(crate) fn baseline(path: &Path, text: &str) -> Result<(), Error> {
    crate::atomic::write_atomically(path, text.as_bytes()).map_err(|source| match source.kind() {
        std::io::ErrorKind::InvalidInput => Error::Usage(format!("cannot pin the baseline: {source}")),
        _ => Error::Write { path: Some(path.to_path_buf()), source },
    })
}

/// What a report is, for [`report`]: a JSON document or text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Json,
    Text,
}

/// Writes a report to its destination. On standard output (which a CI
/// runner reads for workflow commands) it is defused first: a JSON document
/// with [`defuse_json`] (the same value), any other text with
/// [`defuse_lines`]. A file is written as rendered.
pub(crate) fn report(destination: &Destination, text: &str, kind: Kind) -> Result<(), Error> {
    match destination {
        Destination::Stdout => match kind {
            Kind::Json => stdout(defuse_json(text).as_bytes()),
            Kind::Text => stdout(defuse_lines(text, false).as_bytes()),
        },
        Destination::File(path) => file(path, text),
    }
}

/// The terminal text of a command: on standard output, or on standard
/// error when a report took standard output.
pub(crate) fn terminal(text: &str, report_on_stdout: bool) -> Result<(), Error> {
    if report_on_stdout {
        stderr(text);
        Ok(())
    } else {
        stdout(text.as_bytes())
    }
}
