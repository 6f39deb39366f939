/*!
Reading an input file that a pull request controls: only a regular file
(symbolic links followed), and never more than a cap, counted while reading.

Why it exists: the memory file, the configuration and the baselines are
files of the repository under test, so any of them can be a named pipe
(reading it would hang the gate until CI kills it), a device (`/dev/zero`
never ends) or a file far larger than any real one (read whole, it would
exhaust memory). The memory file is read here, and so are the baseline and
the configuration (`crate::baseline`, `crate::config`), each with its own
cap and its own error.

One exception, for saved reports only ([`read_report`]): the process's own
standard input, named by a path (`mneme-gate diff OLD /dev/stdin`), is read
whatever it is, since whoever runs the command supplies it; it is still
read no further than the cap. Any other pipe or device is refused.

It deliberately does not word the errors for users: [`ReadError`] says what
happened, each caller says which file and what to do.
*/

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Why an input file was not read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Opening or reading failed (a missing file included).
    Io(std::io::Error),
    /// The path is not a regular file: what it is, in words ("a folder",
    /// "a named pipe (FIFO)", …).
    NotAFile(&'static str),
    /// The file holds more than `limit` bytes.
    TooLarge { limit: u64 },
}

/// Whether `meta` is that of this process's standard input (a pipe, a
/// terminal, `/dev/null`), however the path that led to it was spelt.
#[cfg(unix)]
fn is_standard_input(meta: &Metadata) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else { return false };
    File::from(fd).metadata().is_ok_and(|stdin| stdin.dev() == meta.dev() && stdin.ino() == meta.ino())
}

#[cfg(not(unix))]
fn is_standard_input(_: &Metadata) -> bool {
    false
}

/// [`read_regular`], and also the process's standard input when `path`
/// leads to it (`/dev/stdin`): for saved reports, which a command line may
/// pipe in. At most `limit` bytes of it are read.
pub(crate) fn read_report(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && is_standard_input(&meta) => {
            let mut bytes = Vec::new();
            std::io::stdin().lock().take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
            if bytes.len() as u64 > limit {
                return Err(ReadError::TooLarge { limit });
            }
            Ok(bytes)
        }
        _ => read_regular(path, limit),
    }
}

/// Reads the regular file at `path` (after symbolic links), at most
/// `limit` bytes, through [`crate::confine`]: opened without blocking (a
/// named pipe is refused, never waited on), the opened file checked, the
/// size counted while reading; a path written inside the repository must
/// resolve inside it.
pub(crate) fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    crate::confine::read_as_written(path, limit).map_err(ReadError::from)
}

impl From<crate::confine::Refusal> for ReadError {
    fn from(r: crate::confine::Refusal) -> ReadError {
        use crate::confine::Refusal;
        match r {
            Refusal::Io(e) => ReadError::Io(e),
            Refusal::NotAFile(kind) => ReadError::NotAFile(kind),
            Refusal::TooLarge { limit } => ReadError::TooLarge { limit },
            dangling @ Refusal::Dangling { .. } => {
                ReadError::Io(std::io::Error::new(std::io::ErrorKind::NotFound, dangling.to_string()))
            }
            other => ReadError::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string())),
        }
    }
}

impl From<ReadError> for std::io::Error {
    fn from(e: ReadError) -> std::io::Error {
        match e {
            ReadError::Io(e) => e,
            ReadError::NotAFile(kind) => {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("it is {kind}, not a regular file"))
            }
            ReadError::TooLarge { limit } => std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("it holds more than {}", size_in_words(limit)),
            ),
        }
    }
}

/// A cap in words: `512 MiB`, `1 MiB`, `4096 bytes`.
pub(crate) fn size_in_words(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_never_past_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_regular(&file, 10).unwrap(), b"0123456789");
        assert!(matches!(read_regular(&file, 9), Err(ReadError::TooLarge { limit: 9 })));
        assert!(matches!(read_regular(dir.path(), 10), Err(ReadError::NotAFile("a folder"))));
        assert!(matches!(read_regular(&dir.path().join("gone"), 10), Err(ReadError::Io(_))));
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            assert_eq!(read_regular(&link, 10).unwrap(), b"0123456789");
            if Path::new("/dev/zero").exists() {
                assert!(matches!(
                    read_regular(Path::new("/dev/zero"), 10),
                    Err(ReadError::NotAFile("a character device"))
                ));
            }
        }
        // A regular file whose size says 0 and that holds more than the cap
        // (as a file growing while read would): the cap is counted while reading.
        let status = Path::new("/proc/self/status");
        if std::fs::metadata(status).is_ok_and(|m| m.is_file() && m.len() == 0) {
            assert!(matches!(read_regular(status, 10), Err(ReadError::TooLarge { limit: 10 })));
            assert!(read_regular(status, 1 << 20).unwrap().len() > 10);
        }
        assert_eq!(size_in_words(512 * 1024 * 1024), "512 MiB");
        assert_eq!(size_in_words(4096), "4096 bytes");
    }
}
