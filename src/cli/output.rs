/*!
Everything the command line writes goes through here.

Standard output carries what the user asked for: a failed write there is an
error (exit 3), except a closed pipe (`| head`), which is how a reader says
it has seen enough. Standard error carries notes and warnings: a failed
write there is ignored, since there is nowhere left to say so. Report files
are written atomically, so a report is whole or absent; the one exception is
the job summary of GitHub Actions, which every step of a job shares, so a
report is appended to it ([`append`]).
*/

use super::environment::Environment;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::describe::{defuse_json, defuse_lines};
use crate::error::Error;
use crate::report::layout;

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
    file_bytes(path, text.as_bytes())
}

/// [`file`] for bytes that need not be UTF-8 (a user's `.gitignore`).
pub(crate) fn file_bytes(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    confined(path)?;
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(err)?;
            f.write_all(bytes).and_then(|_| f.flush()).map_err(err)
        }
        _ => crate::atomic::write_atomically(path, bytes).map_err(err),
    }
}

/// Refuses (exit 2) an output path inside the repository that passes
/// through a symbolic link or names a pipe or a device
/// ([`crate::confine::check_output`]): a pull request controls those links.
pub(crate) fn confined(path: &Path) -> Result<(), Error> {
    crate::confine::check_output(path).map_err(|refusal| {
        Error::Usage(format!(
            "refusing to write {}: {refusal}",
            crate::describe::printable(&path.display().to_string())
        ))
    })
}

/// Appends a text to a file in one write, after a blank line when the file
/// already holds something (the job summary, `$GITHUB_STEP_SUMMARY`, which
/// the steps before this one may have written to), so that it starts a
/// Markdown block of its own.
pub(crate) fn append(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::{Read, Seek, SeekFrom};
    let err = |source| Error::Write { path: Some(path.to_path_buf()), source };
    let mut f = std::fs::OpenOptions::new().read(true).append(true).create(true).open(path).map_err(err)?;
    let separator = match f.metadata().map_err(err)?.len() {
        0 => "",
        _ => {
            let mut last = [0u8];
            f.seek(SeekFrom::End(-1)).and_then(|_| f.read_exact(&mut last)).map_err(err)?;
            if last[0] == b'\n' {
                "\n"
            } else {
                "\n\n"
            }
        }
    };
    f.write_all(format!("{separator}{text}").as_bytes()).and_then(|_| f.flush()).map_err(err)
}

/// Whether `path` is the job summary of GitHub Actions: the same file as
/// `$GITHUB_STEP_SUMMARY`, compared as canonical paths (so `./summary.md`,
/// an absolute path and a symbolic link to it are all the same file).
pub(crate) fn is_step_summary(path: &Path) -> bool {
    let Some(summary) = Environment::get().var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) else {
        return false;
    };
    match (std::fs::canonicalize(path), std::fs::canonicalize(summary)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes a baseline atomically. Unlike a report, it is read back by later
/// runs, so a target that is not a regular file (a folder, a pipe, a
/// device) is refused as an input error rather than written through.
pub(crate) fn baseline(path: &Path, text: &str) -> Result<(), Error> {
    confined(path)?;
    crate::atomic::write_atomically(path, text.as_bytes()).map_err(|source| match source.kind() {
        std::io::ErrorKind::InvalidInput => Error::Usage(format!("cannot pin the baseline: {source}")),
        _ => Error::Write { path: Some(path.to_path_buf()), source },
    })
}

/// What a report is, for [`report`]: a JSON document, the Markdown summary
/// (which may go to the job summary), or other text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Json,
    Markdown,
    Text,
}

/// Writes a report to its destination. On standard output (which a CI
/// runner reads for workflow commands) it is defused first: a JSON document
/// with [`defuse_json`] (the same value), any other text with
/// [`defuse_lines`]. A file is written as rendered, atomically, except the
/// Markdown summary sent to the job summary of GitHub Actions
/// ([`is_step_summary`]), which is appended to what the job's other steps
/// wrote there.
pub(crate) fn report(destination: &Destination, text: &str, kind: Kind) -> Result<(), Error> {
    match destination {
        Destination::Stdout => match kind {
            Kind::Json => stdout(defuse_json(text).as_bytes()),
            Kind::Markdown | Kind::Text => stdout(defuse_lines(text, false).as_bytes()),
        },
        Destination::File(path) if kind == Kind::Markdown && is_step_summary(path) => append(path, text),
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

/// A progress count on standard error, drawn only when it is a terminal:
/// a bar of `len` steps, or a spinner when the number of steps is not
/// known. `what` names the steps (`candidates`, `misses examined`).
pub(crate) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(crate) fn new(len: Option<usize>, what: &str) -> Progress {
        use std::io::IsTerminal;
        if !io::stderr().is_terminal() {
            return Progress(None);
        }
        let (bar, template) = match len {
            Some(n) => {
                (indicatif::ProgressBar::new(n as u64), format!("{{bar:40}} {{pos}}/{{len}} {what} {{elapsed}}"))
            }
            None => (indicatif::ProgressBar::new_spinner(), format!("{{spinner}} {{pos}} {what} {{elapsed}}")),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    /// One step done (from any thread).
    pub(crate) fn tick(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Clears the line it drew.
    pub(crate) fn finish(self) {
        if let Some(bar) = self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Where a report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    Stdout,
    File(PathBuf),
}

impl Destination {
    pub(crate) fn of(path: &Path) -> Destination {
        if path.as_os_str() == "-" {
            Destination::Stdout
        } else {
            Destination::File(path.to_path_buf())
        }
    }

    /// The file, when the report goes to one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Destination::Stdout => None,
            Destination::File(p) => Some(p),
        }
    }
}

/// The stream a command's text for people goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// The columns text for people is laid out to: `COLUMNS` when it is a
/// positive number, else the width of the terminal `stream` is, else none
/// (a file or a pipe, where a long line is fine). Never below
/// [`layout::MIN_WIDTH`]. Resolved here once; the writers get the number.
pub(crate) fn text_width(stream: Stream) -> Option<usize> {
    width_from(Environment::get().text("COLUMNS"), || {
        let size = match stream {
            Stream::Stdout => terminal_size::terminal_size_of(std::io::stdout()),
            Stream::Stderr => terminal_size::terminal_size_of(std::io::stderr()),
        };
        size.map(|(w, _)| usize::from(w.0))
    })
}

/// [`text_width`] from the value of `COLUMNS` and the terminal's width.
pub(crate) fn width_from(columns: Option<&str>, terminal: impl FnOnce() -> Option<usize>) -> Option<usize> {
    let columns = columns.and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0);
    columns.or_else(terminal).filter(|&w| w > 0).map(|w| w.max(layout::MIN_WIDTH))
}

/// The columns `--help` wraps to: [`text_width`] of standard output, else
/// [`HELP_WIDTH`], so help that is piped or captured reads the same
/// everywhere.
pub(crate) fn help_width() -> usize {
    text_width(Stream::Stdout).unwrap_or(HELP_WIDTH)
}

/// The width of `--help` when it goes to a file or a pipe and `COLUMNS` is
/// not set.
pub(crate) const HELP_WIDTH: usize = 100;

/// Whether colour may be used on standard output.
pub(crate) fn colour_stdout() -> bool {
    use std::io::IsTerminal;
    !Environment::get().no_color() && std::io::stdout().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_is_columns_else_the_terminal_else_none() {
        assert_eq!(width_from(Some("80"), || Some(120)), Some(80));
        assert_eq!(width_from(None, || Some(120)), Some(120));
        assert_eq!(width_from(Some("wide"), || Some(120)), Some(120));
        assert_eq!(width_from(Some("0"), || None), None);
        assert_eq!(width_from(None, || None), None, "a file or a pipe: no width");
        assert_eq!(width_from(Some("12"), || None), Some(layout::MIN_WIDTH));
    }
}
