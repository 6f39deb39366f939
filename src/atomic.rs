/*!
Writing an output file atomically: readers, and a process that is killed
halfway, see either the old file whole or the new one whole, never a part.

The bytes go to a temporary file with a unique name (`tempfile` opens it with
`O_EXCL`) in the target's own folder, are flushed to disk, and the file is
renamed over the target, which is atomic within one file system. Concurrent
writers each have their own temporary file, and the last rename wins. A
temporary file is removed by the writer that made it when the write fails; a
killed writer can leave one behind (`.NAME.XXXXXX.tmp`), which nothing here
deletes, since it may belong to another process still writing.

A leaf: it depends on nothing in the crate.
*/

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// How many symbolic links are followed before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` atomically, creating its folder if needed.
///
/// A symbolic link is followed and the file it points to is replaced (in
/// that file's folder), so the link stays a link. A target that exists and
/// is not a regular file (a folder, a FIFO, a device, or a link to one) is
/// refused with [`io::ErrorKind::InvalidInput`]. A new file gets the
/// permissions `File::create` would give it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = regular_target(path)?;
    let dir = folder_of(&target);
    fs::create_dir_all(&dir)?;
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As `File::create`: read and write for all, less the umask.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    // Dropped on any error below, the temporary file is removed.
    let mut file = builder.tempfile_in(&dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(&target).map_err(|e| e.error)?;
    #[cfg(unix)]
    {
        // Make the rename itself durable; not every file system can.
        let _ = fs::File::open(&dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The file to replace: `path`, or the end of the chain of links it starts.
/// It may not exist yet; when it does, it must be a regular file.
fn regular_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        let metadata = match fs::symlink_metadata(&current) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        };
        if metadata.file_type().is_symlink() {
            let link = fs::read_link(&current)?;
            // A relative link is relative to the folder holding it.
            current = match current.parent() {
                Some(dir) => dir.join(link),
                None => link,
            };
            continue;
        }
        if metadata.is_file() {
            return Ok(current);
        }
        let what = if current == path {
            path.display().to_string()
        } else {
            format!("{} (a link to {})", path.display(), current.display())
        };
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{what} is not a regular file; refusing to replace it"),
        ));
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: more than {MAX_LINKS} symbolic links; refusing to follow them", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in a folder, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn writes_and_replaces_whole_files_creating_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reports/deep/baseline.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        assert_eq!(names(&dir.path().join("reports/deep")), ["baseline.json"], "no temporary file is left");
    }

    #[test]
    fn a_bare_file_name_is_written_in_the_working_folder() {
        assert_eq!(folder_of(Path::new("baseline.json")), Path::new("."));
        assert_eq!(folder_of(Path::new("reports/baseline.json")), Path::new("reports"));
        let target = regular_target(Path::new("no-such-file-here.json")).unwrap();
        assert_eq!(target, Path::new("no-such-file-here.json"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_stays_a_link_and_its_file_is_replaced_in_its_own_folder() {
        let dir = tempfile::tempdir().unwrap();
        let real_dir = dir.path().join("real");
        let link_dir = dir.path().join("links");
        fs::create_dir_all(&real_dir).unwrap();
        fs::create_dir_all(&link_dir).unwrap();
        fs::write(real_dir.join("baseline.json"), "old").unwrap();
        // A relative link to a relative link to the file.
        std::os::unix::fs::symlink("../real/baseline.json", link_dir.join("middle.json")).unwrap();
        std::os::unix::fs::symlink("middle.json", link_dir.join("baseline.json")).unwrap();
        let link = link_dir.join("baseline.json");
        write_atomically(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link is still a link");
        assert!(fs::symlink_metadata(link_dir.join("middle.json")).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(real_dir.join("baseline.json")).unwrap(), b"new");
        assert_eq!(names(&real_dir), ["baseline.json"]);
        assert_eq!(names(&link_dir), ["baseline.json", "middle.json"]);
        // A dangling link: the file it names is created.
        std::os::unix::fs::symlink("../real/sub/new.json", link_dir.join("dangling.json")).unwrap();
        write_atomically(&link_dir.join("dangling.json"), b"made").unwrap();
        assert_eq!(fs::read(real_dir.join("sub/new.json")).unwrap(), b"made");
        assert!(fs::symlink_metadata(link_dir.join("dangling.json")).unwrap().file_type().is_symlink());
        // A loop of links is refused, not followed forever.
        std::os::unix::fs::symlink("loop-b", dir.path().join("loop-a")).unwrap();
        std::os::unix::fs::symlink("loop-a", dir.path().join("loop-b")).unwrap();
        let e = write_atomically(&dir.path().join("loop-a"), b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    }

    #[test]
    fn a_folder_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("baseline.json");
        fs::create_dir_all(folder.join("inside")).unwrap();
        let e = write_atomically(&folder, b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), format!("{} is not a regular file; refusing to replace it", folder.display()));
        assert_eq!(names(&folder), ["inside"]);
        assert_eq!(names(dir.path()), ["baseline.json"], "no temporary file is left");
        #[cfg(unix)]
        {
            let link = dir.path().join("link.json");
            std::os::unix::fs::symlink(&folder, &link).unwrap();
            let e = write_atomically(&link, b"x").unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().contains("(a link to "), "{e}");
            assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking_on_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.json");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(status.success());
        // Opening a FIFO for writing would block until a reader comes: the
        // check must not open it.
        let e = write_atomically(&fifo, b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().ends_with("is not a regular file; refusing to replace it"), "{e}");
        assert!(!fs::symlink_metadata(&fifo).unwrap().is_file(), "the FIFO is still there");
        assert_eq!(names(dir.path()), ["out.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_usual_permissions_not_the_temporary_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("made.json");
        fs::File::create(&made).unwrap();
        let usual = fs::metadata(&made).unwrap().permissions().mode() & 0o777;
        let path = dir.path().join("baseline.json");
        write_atomically(&path, b"x").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, usual);
    }

    #[test]
    fn concurrent_writers_never_leave_a_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("baseline.json");
        // Large enough that a torn write would show.
        let contents: Vec<Vec<u8>> = (0..4u8).map(|w| vec![b'a' + w; 256 * 1024]).collect();
        write_atomically(&path, &contents[0]).unwrap();
        std::thread::scope(|scope| {
            for content in &contents {
                let path = &path;
                scope.spawn(move || {
                    for _ in 0..20 {
                        write_atomically(path, content).unwrap();
                    }
                });
            }
            let path = &path;
            let contents = &contents;
            scope.spawn(move || {
                for _ in 0..200 {
                    let now = fs::read(path).unwrap();
                    assert!(contents.contains(&now), "a reader saw a partial file ({} bytes)", now.len());
                }
            });
        });
        assert!(contents.contains(&fs::read(&path).unwrap()));
        assert_eq!(names(dir.path()), ["baseline.json"], "every writer removed or renamed its own temporary file");
    }
}
