//! Paths as Python's `Path.resolve()` makes them: the memory file's folder and
//! an ADR source resolved against it.

use std::path::{Component, Path, PathBuf};

/// The folder of the memory file, absolute.
pub(super) fn parent_of(memory_path: &Path) -> PathBuf {
    let absolute = if memory_path.is_absolute() {
        memory_path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(memory_path)
    };
    resolve(&absolute).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// `os.path.realpath` without `strict`: symbolic links followed where they
/// exist, `.` and `..` applied, the rest kept as written.
pub(super) fn resolve(path: &Path) -> PathBuf {
    resolve_depth(path, 0)
}

fn resolve_depth(path: &Path, depth: usize) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                let next = out.join(name);
                match std::fs::read_link(&next) {
                    Ok(target) if depth < 40 => out = resolve_depth(&out.join(target), depth + 1),
                    _ => out = next,
                }
            }
        }
    }
    out
}
