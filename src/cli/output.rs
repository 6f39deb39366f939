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
use crate::error::Error;

/// Writes to standard output and flushes.
pub(crate) fn stdout(bytes: &[u8]) -> Result<(), Error> {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|_| out.flush()).map_err(|source| Error::Write { path: None, source })
}

/// Writes to standard error, ignoring failure.
pub(crate) fn stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}

/// One line on standard error, prefixed with the tool's name.
pub(crate) fn note(line: &str) {
    stderr(&format!("mneme-gate: {line}\n"));
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

/// Writes a report to its destination.
pub(crate) fn report(destination: &Destination, text: &str) -> Result<(), Error> {
    match destination {
        Destination::Stdout => stdout(text.as_bytes()),
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
