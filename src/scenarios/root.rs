/*!
The suite root rule, and bounded reads: the one place where a file that a
suite names is opened.

A suite arrives in a pull request and runs in CI next to secrets, so it may
read nothing outside its root. Path text is not enough: a symlink inside the
root can name `/proc/self/environ`, `/etc/hostname` or `/dev/zero`. So every
file is resolved (canonical, symlinks followed) and must land inside the
canonical suite root; a symlink that leads outside is refused and named,
with its target. It must also be a regular file (a FIFO blocks a reader
forever, a character device never ends), checked before it is opened, and
no larger than a cap: checked by its size first, then enforced while it is
read (at most cap + 1 bytes are read), since a file in `/proc` says it is
empty and a file may grow.

A file in a folder that resolves inside the root ([`Folder`]) is read
without resolving its own path: it is opened without following a symlink
and without blocking, and checked once open (`fstat`), as `crate::confine`
opens every file; a symlink, a special file or a file too large there is
left to the checks above, which say why it is refused. A folder is resolved
once: a Mneme folder is known from the walk that found it, and the folders
of a native suite's responses are resolved the first time one is named
([`Folders`]).

The loader checks suite files (`read`), Mneme files and responses through
here; `verdict` reads responses through [`read_through`] too, with the
canonical root, the cap and the folder that the loader put in each
[`ResponseRef`](super::ResponseRef).
*/

use std::fs::{self, Metadata};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::memo::Memo;

/// Why a file that a suite names is not read.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// It could not be resolved, opened or read (it may not exist).
    Io(io::Error),
    /// A symlink on its way leads outside the suite root.
    Outside {
        /// The symlink, as the suite's path spells it.
        link: PathBuf,
        /// What the symlink says.
        target: PathBuf,
        /// Where it leads, when that is not `target` as written.
        resolved: Option<PathBuf>,
        /// The canonical suite root.
        root: PathBuf,
    },
    /// Not a regular file: what it is instead ("a named pipe (FIFO)").
    NotRegular { kind: &'static str },
    /// Larger than `limit` bytes: its size, or `None` when it said it was
    /// smaller but held more when read.
    TooLarge { size: Option<u64>, limit: u64 },
}

/// Which cap a file is read under: it names the limit to raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cap {
    /// `max_response_bytes`.
    Response,
    /// `max_suite_file_bytes`: suite files, `scenario.json`, `query.txt`.
    SuiteFile,
}

impl Cap {
    fn advice(self) -> &'static str {
        match self {
            Cap::Response => "shorten it, or raise `limits.max_response_bytes` in mneme-gate.yaml if a response this large is intended",
            Cap::SuiteFile => {
                "split it into smaller files, or raise `limits.max_suite_file_bytes` in mneme-gate.yaml if a file this large is intended"
            }
        }
    }
}

impl Refusal {
    /// Why `subject` (`` `responses/c.txt` ``, "the suite file") is refused,
    /// in one line saying what to do; `cap` names the limit that raises its
    /// size cap. An I/O error is given as the error's own text.
    pub(crate) fn reason(&self, subject: &str, cap: Cap) -> String {
        match self {
            Refusal::Io(e) => format!("cannot read {subject}: {e}"),
            Refusal::Outside { link, target, resolved, root } => {
                let resolved = match resolved {
                    Some(r) if r != target => format!(" (which resolves to {})", r.display()),
                    _ => String::new(),
                };
                format!(
                    "{subject} leads outside the suite root {}: {} is a symlink to {}{resolved}; a suite may \
                     read only files inside its root: copy the file into the suite instead of linking to it",
                    root.display(),
                    link.display(),
                    target.display()
                )
            }
            Refusal::NotRegular { kind } => format!(
                "{subject} is {kind}, not a regular file; a suite may read only regular files: replace it with \
                 a file"
            ),
            Refusal::TooLarge { size, limit } => {
                let size = match size {
                    Some(n) => format!("{n} bytes, larger than"),
                    None => "larger than".to_string(),
                };
                format!("{subject} is {size} the limit ({limit} bytes); {} (docs/scenarios.md, Limits)", cap.advice())
            }
        }
    }
}

/// The canonical form of a suite root (its folder, symlinks followed): what
/// every file the suite reads is checked against. The root itself may be a
/// symlink: it was given by the user, not by the suite.
pub(super) fn canonical_root(root: &Path) -> io::Result<PathBuf> {
    fs::canonicalize(if root.as_os_str().is_empty() { Path::new(".") } else { root })
}

/// Checks, without opening it, that `path` resolves inside the canonical
/// suite `root`, is a regular file (or a folder, which the read then
/// refuses with the system's words) and is at most `max_bytes` long.
/// Returns its canonical path and metadata.
pub(crate) fn check_inside(root: &Path, path: &Path, max_bytes: u64) -> Result<(PathBuf, Metadata), Refusal> {
    let canonical = match fs::canonicalize(path) {
        Ok(c) => c,
        // A link that leads outside is refused even when its target does
        // not exist: what a suite is told must not depend on what is
        // outside its root.
        Err(e) => return Err(escaping_link(root, path).unwrap_or(Refusal::Io(e))),
    };
    if !canonical.starts_with(root) {
        return Err(escaping_link(root, path).unwrap_or_else(|| Refusal::Outside {
            link: path.to_path_buf(),
            target: canonical,
            resolved: None,
            root: root.to_path_buf(),
        }));
    }
    let meta = fs::metadata(&canonical).map_err(Refusal::Io)?;
    check_kind_and_size(&meta, max_bytes)?;
    Ok((canonical, meta))
}

/// Reads `path`, which must resolve inside the canonical suite `root`, be
/// a regular file and hold at most `max_bytes` bytes ([`check_inside`]).
pub(crate) fn read_inside(root: &Path, path: &Path, max_bytes: u64) -> Result<Vec<u8>, Refusal> {
    read_through(None, root, path, max_bytes)
}

/// Reads a file the user named (a suite root given as a file, which may be
/// a symlink anywhere, as a root folder may): it must still be a regular
/// file of at most `max_bytes` bytes.
pub(super) fn read_regular(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Refusal> {
    let meta = fs::metadata(path).map_err(Refusal::Io)?;
    check_kind_and_size(&meta, max_bytes)?;
    read_bounded(path, max_bytes)
}

/// A folder of the suite resolved once (canonical, inside the canonical
/// suite root), so that the few files a Mneme folder holds are checked and
/// read without resolving each path again: every component of its path was
/// resolved when the folder was, so a file in it is inside the root unless
/// the file itself is a symlink, which [`Folder::read`] refuses to follow
/// (`O_NOFOLLOW`) and [`Folder::probe`] sees (`lstat`). Whatever this fast
/// path cannot vouch for (a symlink, a special file, a file too large, an
/// error) it leaves to the path-by-path checks ([`check_inside`],
/// [`read_inside`]), which word the refusal: the answers are theirs.
///
/// Resolving each file path with `realpath` was most of the system calls of
/// a run on a Mneme suite (`getcwd` and a `readlink` per component, for
/// each of the four files of a folder, twice for a response).
#[derive(Debug)]
pub(super) struct Folder {
    canonical: PathBuf,
}

/// The folders of a suite root resolved so far ([`Folder::resolve`]), shared
/// by the threads that read its files: the responses of a native suite are
/// mostly in a few folders, each resolved once, not once per response.
pub(super) type Folders = Memo<PathBuf, Option<Arc<Folder>>>;

impl Folders {
    /// `dir` resolved inside the canonical `root` ([`Folder::resolve`]),
    /// resolved the first time it is asked for.
    pub(super) fn get(&self, root: &Path, dir: &Path) -> Option<Arc<Folder>> {
        self.get_or_make(dir, || Folder::resolve(root, dir).map(Arc::new))
    }
}

/// What [`Folder::probe`] found at a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Probe {
    /// A regular file (not a symlink) of at most the cap: [`check_inside`]
    /// would accept it.
    Usable,
    /// Nothing at that name (not even a dangling symlink).
    Absent,
    /// Anything else: a symlink, a special file, a folder, a file too large,
    /// an error; the caller checks the path by itself.
    Unknown,
}

impl Folder {
    /// `dir` resolved, or `None` when it cannot be or does not lie inside
    /// the canonical `root` (each file is then checked by its own path,
    /// which names the link that leads out).
    pub(super) fn resolve(root: &Path, dir: &Path) -> Option<Folder> {
        let canonical = fs::canonicalize(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }).ok()?;
        canonical.starts_with(root).then_some(Folder { canonical })
    }

    /// The folder `rel` of the canonical suite `root`, as the walk found it:
    /// each component of `rel` a name the walk listed as a folder, not a
    /// symlink (it follows none), so that the folder's canonical path is the
    /// root's joined with `rel`, with no system call to resolve it.
    pub(super) fn walked(root: &Path, rel: &Path) -> Folder {
        debug_assert!(rel.components().all(|c| matches!(c, std::path::Component::Normal(_))));
        Folder { canonical: if rel.as_os_str().is_empty() { root.to_path_buf() } else { root.join(rel) } }
    }

    /// The folder's canonical path.
    #[cfg(test)]
    pub(super) fn canonical(&self) -> &Path {
        &self.canonical
    }

    /// What is at `name` in the folder, without following a symlink.
    pub(super) fn probe(&self, name: &str, max_bytes: u64) -> Probe {
        match fs::symlink_metadata(self.canonical.join(name)) {
            Ok(meta) if meta.is_file() && meta.len() <= max_bytes => Probe::Usable,
            Ok(_) => Probe::Unknown,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Probe::Absent,
            Err(_) => Probe::Unknown,
        }
    }

    /// The bytes of the regular file `name` of the folder, of at most
    /// `max_bytes`: opened without following a symlink and without blocking,
    /// checked on the opened file (`fstat`), read within the cap. `None`
    /// when it is anything else, or cannot be read: the caller reads it by
    /// its path, which refuses it or says why.
    pub(super) fn read(&self, name: &str, max_bytes: u64) -> Option<Vec<u8>> {
        let (file, meta) = crate::confine::open_regular(&self.canonical.join(name), true).ok()?;
        crate::confine::read_opened(file, &meta, max_bytes).ok()
    }
}

/// [`read_inside`], through `folder` when the caller resolved the file's
/// folder already (when the suite loaded: a response the verdict reads
/// costs no resolving of its path again), else through its folder resolved
/// here.
pub(super) fn read_through(
    folder: Option<&Folder>,
    root: &Path,
    path: &Path,
    max_bytes: u64,
) -> Result<Vec<u8>, Refusal> {
    // The common case, a regular file in a folder inside the root, through
    // its folder resolved ([`Folder::read`]): that saves resolving the file's
    // own path and checking it before it is opened (it is checked once
    // opened). Anything else, by the path, which says why it is refused.
    if let (Some(parent), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) {
        let resolved;
        let folder = match folder {
            Some(folder) => Some(folder),
            None => {
                resolved = Folder::resolve(root, parent);
                resolved.as_ref()
            }
        };
        if let Some(bytes) = folder.and_then(|f| f.read(name, max_bytes)) {
            return Ok(bytes);
        }
    }
    let (canonical, _) = check_inside(root, path, max_bytes)?;
    read_bounded(&canonical, max_bytes)
}

/// Opens a file already checked and reads at most `max_bytes + 1` bytes of
/// it: one more than allowed is enough to know it is too large.
fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Refusal> {
    // Without blocking: a named pipe swapped in after the check is refused below.
    let file = crate::confine::open_nonblocking(path).map_err(Refusal::Io)?;
    // What was opened may not be what was checked (replaced in between).
    let meta = file.metadata().map_err(Refusal::Io)?;
    check_kind_and_size(&meta, max_bytes)?;
    let expected = usize::try_from(meta.len().min(max_bytes)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(expected.saturating_add(1));
    (&file).take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(Refusal::Io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(Refusal::TooLarge { size: None, limit: max_bytes });
    }
    Ok(bytes)
}

/// A regular file of at most `max_bytes`, or a folder (reading it fails
/// with the system's message, as it always did); anything else is refused
/// before it is opened: opening a FIFO waits for a writer.
fn check_kind_and_size(meta: &Metadata, max_bytes: u64) -> Result<(), Refusal> {
    let kind = meta.file_type();
    if kind.is_file() {
        if meta.len() > max_bytes {
            return Err(Refusal::TooLarge { size: Some(meta.len()), limit: max_bytes });
        }
        return Ok(());
    }
    if kind.is_dir() {
        return Ok(());
    }
    Err(Refusal::NotRegular { kind: special_kind(&kind) })
}

#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> &'static str {
    "a special file"
}

/// The first symlink on the way to `path`, in a folder inside `root`, that
/// leads outside `root` ([`crate::confine::escaping_link`]), as a refusal.
fn escaping_link(root: &Path, path: &Path) -> Option<Refusal> {
    crate::confine::escaping_link(root, path).map(|e| Refusal::Outside {
        link: e.link,
        target: e.target,
        resolved: e.resolved,
        root: root.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("suite/responses")).unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        let root = canonical_root(&dir.path().join("suite")).unwrap();
        (dir, root)
    }

    #[test]
    fn a_file_inside_reads_and_a_link_inside_too() {
        let (dir, root) = root();
        let suite = dir.path().join("suite");
        fs::write(suite.join("responses/a.txt"), "answer").unwrap();
        assert_eq!(read_inside(&root, &suite.join("responses/a.txt"), 100).unwrap(), b"answer");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("a.txt", suite.join("responses/b.txt")).unwrap();
            assert_eq!(read_inside(&root, &suite.join("responses/b.txt"), 100).unwrap(), b"answer");
        }
        let missing = read_inside(&root, &suite.join("responses/nope.txt"), 100).unwrap_err();
        assert!(matches!(missing, Refusal::Io(e) if e.kind() == io::ErrorKind::NotFound));
    }

    #[cfg(unix)]
    #[test]
    fn links_that_lead_outside_are_named_with_their_target() {
        use std::os::unix::fs::symlink;
        let (dir, root) = root();
        let suite = dir.path().join("suite");
        let secret = dir.path().join("outside/secret.txt");
        fs::write(&secret, "SECRET").unwrap();
        // The file itself, a folder on the way, a chain, a dangling link.
        symlink(&secret, suite.join("responses/c.txt")).unwrap();
        symlink(dir.path().join("outside"), suite.join("out")).unwrap();
        symlink("c.txt", suite.join("responses/chain.txt")).unwrap();
        symlink("../../outside/nope.txt", suite.join("responses/dangling.txt")).unwrap();
        let cases = [
            ("responses/c.txt", "responses/c.txt", secret.clone()),
            ("out/secret.txt", "out", dir.path().join("outside")),
            ("responses/chain.txt", "responses/chain.txt", PathBuf::from("c.txt")),
            ("responses/dangling.txt", "responses/dangling.txt", PathBuf::from("../../outside/nope.txt")),
        ];
        for (file, want_link, want_target) in cases {
            match read_inside(&root, &suite.join(file), 100) {
                Err(Refusal::Outside { link, target, .. }) => {
                    assert_eq!((link, target), (suite.join(want_link), want_target), "{file}")
                }
                other => panic!("{file}: {other:?}"),
            }
        }
        let reason = read_inside(&root, &suite.join("responses/chain.txt"), 100)
            .unwrap_err()
            .reason("`responses/chain.txt`", Cap::Response);
        assert_eq!(
            reason,
            format!(
                "`responses/chain.txt` leads outside the suite root {}: {} is a symlink to c.txt (which resolves to \
                 {}); a suite may read only files inside its root: copy the file into the suite instead of \
                 linking to it",
                root.display(),
                suite.join("responses/chain.txt").display(),
                fs::canonicalize(&secret).unwrap().display()
            )
        );
        assert!(!reason.contains("SECRET"));
    }

    #[cfg(unix)]
    #[test]
    fn the_root_and_the_folders_above_it_may_be_links() {
        let (dir, _) = root();
        let link = dir.path().join("suite-link");
        std::os::unix::fs::symlink(dir.path().join("suite"), &link).unwrap();
        fs::write(dir.path().join("suite/responses/a.txt"), "answer").unwrap();
        let root = canonical_root(&link).unwrap();
        assert_eq!(read_inside(&root, &link.join("responses/a.txt"), 100).unwrap(), b"answer");
    }

    #[test]
    fn sizes_are_capped_by_length_and_while_reading() {
        let (dir, root) = root();
        let path = dir.path().join("suite/big.txt");
        fs::write(&path, vec![b'x'; 101]).unwrap();
        assert!(matches!(read_inside(&root, &path, 100), Err(Refusal::TooLarge { size: Some(101), limit: 100 })));
        assert_eq!(read_inside(&root, &path, 101).unwrap().len(), 101);
        // A sparse file is refused by its length, without being read.
        let sparse = dir.path().join("suite/sparse.txt");
        fs::File::create(&sparse).unwrap().set_len(1 << 40).unwrap();
        assert!(
            matches!(read_inside(&root, &sparse, 100), Err(Refusal::TooLarge { size: Some(s), .. }) if s == 1 << 40)
        );
        let reason =
            Refusal::TooLarge { size: Some(2_097_152), limit: 1_048_576 }.reason("`responses/big.txt`", Cap::Response);
        assert_eq!(
            reason,
            "`responses/big.txt` is 2097152 bytes, larger than the limit (1048576 bytes); shorten it, or raise \
             `limits.max_response_bytes` in mneme-gate.yaml if a response this large is intended \
             (docs/scenarios.md, Limits)"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_that_say_they_are_small_are_still_capped() {
        // /proc files say they are empty: the cap holds while reading.
        let root = canonical_root(Path::new("/proc/self")).unwrap();
        let maps = root.join("maps");
        let all = fs::read(&maps).unwrap();
        assert!(all.len() > 10);
        assert!(matches!(read_inside(&root, &maps, 10), Err(Refusal::TooLarge { size: None, limit: 10 })));
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_before_they_are_opened() {
        let (dir, root) = root();
        let fifo = dir.path().join("suite/pipe.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(made.success());
        // Opening it would block until a writer comes: it must not be opened.
        assert!(matches!(read_inside(&root, &fifo, 100), Err(Refusal::NotRegular { kind: "a named pipe (FIFO)" })));
        let dev = canonical_root(Path::new("/dev")).unwrap();
        assert!(matches!(
            read_inside(&dev, &dev.join("zero"), 100),
            Err(Refusal::NotRegular { kind: "a character device" })
        ));
        assert_eq!(
            Refusal::NotRegular { kind: "a named pipe (FIFO)" }.reason("`pipe.txt`", Cap::Response),
            "`pipe.txt` is a named pipe (FIFO), not a regular file; a suite may read only regular files: replace it \
             with a file"
        );
        // A folder is read, and the read fails with the system's words.
        assert!(matches!(read_inside(&root, &dir.path().join("suite/responses"), 100), Err(Refusal::Io(_))));
    }
}
