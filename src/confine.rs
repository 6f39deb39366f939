/*!
Confinement: the one rule for every path the tool reads, writes or deletes
on behalf of the repository under test.

The repository arrives in a pull request and runs in CI next to secrets, so
a symbolic link it commits must never carry a read, a write or a delete
outside it, and a special file it commits (a named pipe, `/dev/zero`
through a link) must never hang the run or exhaust its memory:

- **Reads** ([`read_regular`], [`read_inside`], [`read_as_written`]): the
  file is opened first, without blocking (`O_NONBLOCK`, so a named pipe
  swapped in at any moment cannot block the open), and the opened file is
  checked (`fstat`): a regular file only, at most a cap, counted again while
  reading. There is no window between a check and the open. A path written
  inside the repository (relative, without `..`) is resolved component by
  component by the kernel and must land inside the repository root; the
  file is then opened by its resolved path with `O_NOFOLLOW`.
- **Writes** ([`check_output`]): an output path that lies inside the
  repository must not pass through a symbolic link (the link is named and
  the write refused); a path outside the repository, given explicitly
  (`$GITHUB_STEP_SUMMARY`, `/tmp/report.json`), is written as given.
- **Deletes** ([`check_delete`]): only a file (or a link itself, never its
  target) whose folder resolves inside the repository root.

The bytes read become text with [`utf8_text`], which places the first byte
that is not UTF-8 at its line and column, the same way for every input.

The repository root is the working folder's nearest ancestor holding
`.git` (the working folder itself when there is none), as the shell that
runs the tool sees it.

A leaf: it depends on nothing in the crate.
*/

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Why a path is not read, written or deleted.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Opening or reading failed (a missing file included).
    Io(io::Error),
    /// Not a regular file: what it is, in words ("a named pipe (FIFO)").
    NotAFile(&'static str),
    /// The file holds more than `limit` bytes.
    TooLarge { limit: u64 },
    /// A symbolic link on the way leads outside the repository root.
    Outside { link: PathBuf, target: PathBuf, root: PathBuf },
    /// A symbolic link on the way leads nowhere.
    Dangling { link: PathBuf, target: PathBuf },
    /// An output inside the repository passes through a symbolic link.
    Link { link: PathBuf, target: PathBuf },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Io(e) => write!(f, "{e}"),
            Refusal::NotAFile(kind) => write!(f, "it is {kind}, not a regular file"),
            Refusal::TooLarge { limit } => write!(f, "it holds more than {limit} bytes"),
            Refusal::Outside { link, target, root } => write!(
                f,
                "{} is a symbolic link to {}, which leads outside the repository {}; the tool reads, writes \
                 and deletes nothing outside the repository through a link: put the file itself there",
                link.display(),
                target.display(),
                root.display()
            ),
            Refusal::Dangling { link, target } => write!(
                f,
                "{} is a symbolic link to {}, which does not exist (a dangling link): remove the link or \
                 create what it names",
                link.display(),
                target.display()
            ),
            Refusal::Link { link, target } => write!(
                f,
                "{} is a symbolic link (to {}) inside the repository; an output is never written through a \
                 link the repository holds: remove the link, or name a path outside the repository",
                link.display(),
                target.display()
            ),
        }
    }
}

impl From<Refusal> for io::Error {
    fn from(r: Refusal) -> io::Error {
        match r {
            Refusal::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// What a file that is not a regular file is, in words.
pub(crate) fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Opens `path` for reading without blocking (a named pipe opens at once
/// instead of waiting for a writer), then checks the opened file: a regular
/// file only. `nofollow`: the last component must not be a symbolic link.
pub(crate) fn open_regular(path: &Path, nofollow: bool) -> Result<(File, Metadata), Refusal> {
    let file = open_flags(path, nofollow).map_err(|e| describe_open_error(path, e))?;
    let meta = file.metadata().map_err(Refusal::Io)?;
    if !meta.is_file() {
        return Err(Refusal::NotAFile(kind(&meta)));
    }
    Ok((file, meta))
}

/// Opens `path` for reading without blocking on a named pipe; the caller
/// checks what was opened (`File::metadata`).
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    open_flags(path, false)
}

fn open_flags(path: &Path, nofollow: bool) -> io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY;
        if nofollow {
            flags |= libc::O_NOFOLLOW;
        }
        options.custom_flags(flags);
    }
    #[cfg(not(unix))]
    let _ = nofollow;
    options.open(path)
}

/// A failed open, said precisely: a dangling link is named as one.
fn describe_open_error(path: &Path, e: io::Error) -> Refusal {
    if e.kind() == io::ErrorKind::NotFound {
        if let Some(d) = dangling_link(path) {
            return d;
        }
    }
    Refusal::Io(e)
}

/// The first symbolic link on the way to `path` that leads nowhere.
fn dangling_link(path: &Path) -> Option<Refusal> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        let meta = fs::symlink_metadata(&prefix).ok()?;
        if meta.file_type().is_symlink() && fs::metadata(&prefix).is_err() {
            let target = fs::read_link(&prefix).ok()?;
            return Some(Refusal::Dangling { link: prefix, target });
        }
    }
    None
}

/// Reads an opened file, at most `limit` bytes (one more is read to know it
/// is too large; the length it says is checked first).
pub(crate) fn read_opened(file: File, meta: &Metadata, limit: u64) -> Result<Vec<u8>, Refusal> {
    if meta.len() > limit {
        return Err(Refusal::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(Refusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::TooLarge { limit });
    }
    Ok(bytes)
}

/// Reads the regular file at `path` (symbolic links followed), at most
/// `limit` bytes: for a path the user named explicitly.
pub(crate) fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let (file, meta) = open_regular(path, false)?;
    read_opened(file, &meta, limit)
}

/// Where the bytes of a file stop being UTF-8: the 1-based line and column
/// (in characters) of the first invalid byte, and the byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotUtf8 {
    pub line: usize,
    pub column: usize,
    pub byte: u8,
}

/// The bytes read as UTF-8 text, or where they stop being UTF-8.
pub(crate) fn utf8_text(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Everything before `at` is valid UTF-8.
        let before = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        NotUtf8 {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
            byte: bytes[at],
        }
    })
}

/// The repository root: the nearest ancestor of the working folder holding
/// `.git`, or the working folder; canonical.
pub(crate) fn repository_root() -> io::Result<PathBuf> {
    // Asked for every file read: remembered for the working folder it was
    // found from (the hook changes folder once, to its input's).
    static LAST: std::sync::Mutex<Option<(PathBuf, PathBuf)>> = std::sync::Mutex::new(None);
    let cwd = std::env::current_dir()?;
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((from, root)) = &*last {
        if *from == cwd {
            return Ok(root.clone());
        }
    }
    let root = find_repository_root(&cwd)?;
    *last = Some((cwd, root.clone()));
    Ok(root)
}

fn find_repository_root(cwd: &Path) -> io::Result<PathBuf> {
    let cwd = fs::canonicalize(cwd)?;
    let mut at: &Path = &cwd;
    loop {
        if fs::symlink_metadata(at.join(".git")).is_ok() {
            return Ok(at.to_path_buf());
        }
        match at.parent() {
            Some(p) => at = p,
            None => return Ok(cwd),
        }
    }
}

/// Whether `path`, as written, names something inside `root` (canonical):
/// relative without `..`, or absolute below `root` without `..`.
pub(crate) fn written_inside(path: &Path, root: &Path) -> bool {
    if path.components().any(|c| c == Component::ParentDir) {
        return false;
    }
    if path.is_absolute() {
        return path.starts_with(root);
    }
    !path.components().any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
}

/// Resolves `path` (every symbolic link on the way) and checks that it
/// lands inside the canonical `root`; returns the resolved path. A link that
/// leads outside, or nowhere, is named.
pub(crate) fn resolve_inside(root: &Path, path: &Path) -> Result<PathBuf, Refusal> {
    match fs::canonicalize(path) {
        Ok(c) if c.starts_with(root) => Ok(c),
        Ok(c) => Err(escaping_link(root, path).map(|e| outside(root, e)).unwrap_or(Refusal::Outside {
            link: path.to_path_buf(),
            target: c,
            root: root.to_path_buf(),
        })),
        Err(e) => Err(escaping_link(root, path)
            .map(|e| outside(root, e))
            .or_else(|| dangling_link(path))
            .unwrap_or(Refusal::Io(e))),
    }
}

/// Reads `path`, which must resolve inside the canonical `root`, be a
/// regular file and hold at most `limit` bytes.
pub(crate) fn read_inside(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let resolved = resolve_inside(root, path)?;
    let (file, meta) = open_regular(&resolved, true)?;
    read_opened(file, &meta, limit)
}

/// Reads a file of the repository: a path written inside the repository
/// ([`written_inside`]) must resolve inside it ([`read_inside`]); any other
/// path was named explicitly and is read as given ([`read_regular`]).
pub(crate) fn read_as_written(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    match repository_root() {
        Ok(root) if written_inside(path, &root) => read_inside(&root, path, limit),
        _ => read_regular(path, limit),
    }
}

/// A symbolic link on the way to a path that leads outside a root.
#[derive(Debug)]
pub(crate) struct EscapingLink {
    /// The link, as the path names it.
    pub link: PathBuf,
    /// What the link says.
    pub target: PathBuf,
    /// Where it leads, when that exists.
    pub resolved: Option<PathBuf>,
}

/// The first symbolic link on the way to `path`, in a folder inside `root`,
/// that leads outside `root` (a dangling one by what it says). Only links
/// below the root count: the root itself, and the folders above it, may be
/// links.
pub(crate) fn escaping_link(root: &Path, path: &Path) -> Option<EscapingLink> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        if !matches!(component, Component::Normal(_)) {
            continue;
        }
        let meta = fs::symlink_metadata(&prefix).ok()?;
        if !meta.file_type().is_symlink() {
            continue;
        }
        let parent = match prefix.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Ok(folder) = fs::canonicalize(parent) else { continue };
        if !folder.starts_with(root) {
            continue;
        }
        let Ok(target) = fs::read_link(&prefix) else { continue };
        let (leads_to, resolved) = match fs::canonicalize(&prefix) {
            Ok(c) => (c.clone(), Some(c)),
            Err(_) => (lexical(&folder.join(&target)), None),
        };
        if !leads_to.starts_with(root) {
            return Some(EscapingLink { link: prefix, target, resolved });
        }
    }
    None
}

/// The refusal of a link out of `root`.
fn outside(root: &Path, e: EscapingLink) -> Refusal {
    Refusal::Outside { link: e.link, target: e.target, root: root.to_path_buf() }
}

/// `.` and `..` resolved on the text.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` made absolute against the working folder, `.` and `..` resolved
/// on the text.
pub(crate) fn absolute(path: &Path) -> io::Result<PathBuf> {
    if path.is_absolute() {
        Ok(lexical(path))
    } else {
        Ok(lexical(&fs::canonicalize(std::env::current_dir()?)?.join(path)))
    }
}

/// Where `path` leads, made absolute against the working folder: resolved
/// component by component by the kernel (every symbolic link followed, a
/// `..` taken after the link before it) as far as the path exists, the
/// missing rest on the text. A dangling link leads where it says.
pub(crate) fn resolve_leading(path: &Path) -> io::Result<PathBuf> {
    let mut at = if path.is_absolute() { PathBuf::new() } else { fs::canonicalize(std::env::current_dir()?)? };
    let mut missing = false;
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) if !missing => {
                at.push(name);
                match fs::symlink_metadata(&at) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => missing = true,
                    Err(e) => return Err(e),
                    Ok(m) if m.file_type().is_symlink() => match fs::canonicalize(&at) {
                        Ok(c) => at = c,
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {
                            let target = fs::read_link(&at)?;
                            at.pop();
                            at = lexical(&at.join(target));
                            missing = true;
                        }
                        Err(e) => return Err(e),
                    },
                    Ok(_) => {}
                }
            }
            other => at.push(other),
        }
    }
    Ok(at)
}

/// Checks an output path before it is written: when it lies inside the
/// repository `root`, no component below the root (the file included) may
/// be a symbolic link (the first one is named), and the file, when it
/// exists, may not be a named pipe or a device. A path outside the
/// repository is not checked: it was given explicitly.
pub(crate) fn check_output_in(root: &Path, path: &Path) -> Result<(), Refusal> {
    let full = absolute(path).map_err(Refusal::Io)?;
    let Ok(below) = full.strip_prefix(root) else { return Ok(()) };
    let mut at = root.to_path_buf();
    let last = below.components().count();
    for (i, component) in below.components().enumerate() {
        at.push(component);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&at).unwrap_or_default();
                return Err(Refusal::Link { link: at, target });
            }
            // A named pipe or a device in the repository is never written to.
            Ok(m) if i + 1 == last && !m.is_file() && !m.is_dir() => return Err(Refusal::NotAFile(kind(&m))),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Refusal::Io(e)),
        }
    }
    Ok(())
}

/// [`check_output_in`] the repository root of the working folder.
pub(crate) fn check_output(path: &Path) -> Result<(), Refusal> {
    match repository_root() {
        Ok(root) => check_output_in(&root, path),
        Err(_) => Ok(()),
    }
}

/// Checks that `path` may be deleted on behalf of the repository: its
/// folder resolves inside `root`, and it is a regular file or a symbolic
/// link (the link alone is removed, never what it names).
pub(crate) fn check_delete(root: &Path, path: &Path) -> Result<(), Refusal> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    resolve_inside(root, parent)?;
    let meta = fs::symlink_metadata(path).map_err(Refusal::Io)?;
    if meta.is_file() || meta.file_type().is_symlink() {
        Ok(())
    } else {
        Err(Refusal::NotAFile(kind(&meta)))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_first_byte_that_is_not_utf8_is_placed_in_characters() {
        assert_eq!(utf8_text(b"ok\n".to_vec()).as_deref(), Ok("ok\n"));
        // Columns count characters, not bytes; a line ends at `\n` only.
        let bytes = [&b"{\n  \"t\": \"\xc3\xa9\xc3\xa9"[..], &[0xff], b"\"\n"].concat();
        assert_eq!(utf8_text(bytes), Err(NotUtf8 { line: 2, column: 11, byte: 0xff }));
        assert_eq!(utf8_text(vec![0x80]), Err(NotUtf8 { line: 1, column: 1, byte: 0x80 }));
        assert_eq!(utf8_text(b"a\r\nb\xc3".to_vec()), Err(NotUtf8 { line: 2, column: 2, byte: 0xc3 }));
    }

    fn mkfifo(path: &Path) {
        assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
    }

    #[test]
    fn a_fifo_is_refused_after_a_non_blocking_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        mkfifo(&fifo);
        assert!(matches!(read_regular(&fifo, 10), Err(Refusal::NotAFile("a named pipe (FIFO)"))));
        assert!(matches!(read_regular(Path::new("/dev/zero"), 10), Err(Refusal::NotAFile("a character device"))));
        assert!(matches!(read_regular(dir.path(), 10), Err(Refusal::NotAFile("a folder"))));
        let file = dir.path().join("f");
        fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_regular(&file, 10).unwrap(), b"0123456789");
        assert!(matches!(read_regular(&file, 9), Err(Refusal::TooLarge { limit: 9 })));
    }

    #[test]
    fn a_dangling_link_is_named() {
        let dir = tempfile::tempdir().unwrap();
        symlink("nowhere.yaml", dir.path().join("mneme-gate.yaml")).unwrap();
        let e = read_regular(&dir.path().join("mneme-gate.yaml"), 10).unwrap_err();
        assert!(matches!(&e, Refusal::Dangling { target, .. } if target == Path::new("nowhere.yaml")), "{e:?}");
        assert!(e.to_string().contains("dangling link"), "{e}");
    }

    #[test]
    fn reads_stay_inside_the_root_through_every_component() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let outside = dir.path().join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("copilot-instructions.md"), "CANARY").unwrap();
        symlink(&outside, root.join(".github")).unwrap();
        fs::write(root.join("inside.md"), "ok").unwrap();
        symlink("inside.md", root.join("link.md")).unwrap();
        let root = fs::canonicalize(&root).unwrap();
        assert_eq!(read_inside(&root, &root.join("link.md"), 10).unwrap(), b"ok");
        let e = read_inside(&root, &root.join(".github/copilot-instructions.md"), 100).unwrap_err();
        assert!(matches!(&e, Refusal::Outside { link, .. } if link.ends_with(".github")), "{e:?}");
        assert!(!e.to_string().contains("CANARY"));
    }

    #[test]
    fn outputs_inside_the_root_never_pass_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("reports")).unwrap();
        symlink("/nonexistent/f", root.join("reports/junit.xml")).unwrap();
        symlink("/tmp", root.join("out")).unwrap();
        let e = check_output_in(&root, &root.join("reports/junit.xml")).unwrap_err();
        assert!(matches!(&e, Refusal::Link { link, .. } if link.ends_with("reports/junit.xml")));
        let e = check_output_in(&root, &root.join("out/deep/x.json")).unwrap_err();
        assert!(matches!(&e, Refusal::Link { link, .. } if link.ends_with("out")));
        check_output_in(&root, &root.join("reports/new/x.json")).unwrap();
        check_output_in(&root, Path::new("/elsewhere/summary.md")).unwrap();
    }

    #[test]
    fn deletes_stay_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        let outside = dir.path().join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("a.json"), "{}").unwrap();
        symlink(&outside, root.join("cassettes")).unwrap();
        fs::create_dir_all(root.join("tapes/x.json")).unwrap();
        let root = fs::canonicalize(&root).unwrap();
        assert!(matches!(check_delete(&root, &root.join("cassettes/a.json")), Err(Refusal::Outside { .. })));
        assert!(matches!(check_delete(&root, &root.join("tapes/x.json")), Err(Refusal::NotAFile("a folder"))));
        assert!(written_inside(Path::new("a/b"), &root));
        assert!(!written_inside(Path::new("../b"), &root));
        assert!(!written_inside(Path::new("/etc/passwd"), &root));
    }
}
