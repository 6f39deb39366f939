//! Where a scenario's `path:line` links in the Markdown summary: a file at the
//! run's commit on GitHub, or nowhere; each path segment percent-encoded.

use std::path::{Component, Path};

/// Where a scenario's `path:line` links: a file at the run's commit on
/// GitHub, or nowhere (the text stays plain). Plain data, resolved once by
/// the command line; the default links nowhere.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Links {
    /// `SERVER/OWNER/REPO/blob/SHA/`.
    base: Option<String>,
    /// The working directory inside the repository, one name per folder
    /// (report paths are relative to the working directory).
    dir: Vec<String>,
}

impl Links {
    /// Links into `repository` (`owner/name`) on `server` at commit `sha`
    /// (40 or 64 hex digits), for a run whose working directory is `dir`
    /// inside the repository (empty at its root). Any value that does not
    /// look like what GitHub sets gives no links rather than a wrong one.
    pub fn github(server: &str, repository: &str, sha: &str, dir: &Path) -> Links {
        let server = server.trim_end_matches('/');
        let server_ok =
            server.strip_prefix("https://").or_else(|| server.strip_prefix("http://")).is_some_and(|rest| {
                !rest.is_empty()
                    && !rest.starts_with('/')
                    && rest.chars().all(|c| c.is_ascii_alphanumeric() || "-._~:/".contains(c))
            });
        let name_ok = |s: &str| {
            !s.is_empty() && s != "." && s != ".." && s.chars().all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
        };
        let repository_ok = repository.split_once('/').is_some_and(|(owner, name)| name_ok(owner) && name_ok(name));
        let sha_ok = matches!(sha.len(), 40 | 64) && sha.chars().all(|c| c.is_ascii_hexdigit());
        if !(server_ok && repository_ok && sha_ok) {
            return Links::default();
        }
        let mut folders = Vec::new();
        for part in dir.components() {
            match part {
                Component::CurDir => {}
                Component::Normal(name) => match name.to_str() {
                    Some(name) => folders.push(name.to_string()),
                    None => return Links::default(),
                },
                _ => return Links::default(),
            }
        }
        Links { base: Some(format!("{server}/{repository}/blob/{sha}/")), dir: folders }
    }

    /// Whether file references become links.
    pub fn enabled(&self) -> bool {
        self.base.is_some()
    }

    /// The URL of `line` (from 1; 0: the file) of `path`, a path relative to
    /// the working directory with `/` separators as reports write it. `None`
    /// without links, or for a path outside the repository.
    pub fn to(&self, path: &str, line: usize) -> Option<String> {
        let base = self.base.as_ref()?;
        if path.starts_with('/') || path.split('/').next().is_some_and(|first| first.ends_with(':')) {
            return None; // absolute, or a Windows drive
        }
        let mut parts: Vec<&str> = self.dir.iter().map(String::as_str).collect();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                name => parts.push(name),
            }
        }
        if parts.is_empty() {
            return None;
        }
        let encoded: Vec<String> = parts.iter().map(|p| percent_encoded(p)).collect();
        let anchor = if line > 0 { format!("#L{line}") } else { String::new() };
        Some(format!("{base}{}{anchor}", encoded.join("/")))
    }
}

/// Every byte but the unreserved ones of RFC 3986 (`A-Z a-z 0-9 - . _ ~`).
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A path segment with every byte but the unreserved ones percent-encoded
/// (upper-case hex): safe in a Markdown link and an HTML attribute.
fn percent_encoded(segment: &str) -> String {
    percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_links_point_at_the_line_of_the_file_at_the_commit() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let links = Links::github("https://github.com/", "octo/repo", sha, Path::new(""));
        let base = format!("https://github.com/octo/repo/blob/{sha}/");
        assert_eq!(links.to("scenarios/payments.yaml", 26), Some(format!("{base}scenarios/payments.yaml#L26")));
        assert_eq!(links.to("./a/../b c/x#y?.yaml", 0), Some(format!("{base}b%20c/x%23y%3F.yaml")));
        assert_eq!(links.to("a/)](<x>\"\n.yaml", 1), Some(format!("{base}a/%29%5D%28%3Cx%3E%22%0A.yaml#L1")));
        assert_eq!(links.to("../outside.yaml", 1), None, "outside the repository");
        assert_eq!(links.to("/abs/a.yaml", 1), None);
        assert_eq!(links.to("C:/a.yaml", 1), None);
        // A run in a folder of the checkout: paths are relative to it.
        let nested = Links::github("https://ghe.example.com:8443", "o/r", sha, Path::new("sub/dir"));
        let base = format!("https://ghe.example.com:8443/o/r/blob/{sha}/");
        assert_eq!(nested.to("s.yaml", 3), Some(format!("{base}sub/dir/s.yaml#L3")));
        assert_eq!(nested.to("../../s.yaml", 3), Some(format!("{base}s.yaml#L3")));
        assert_eq!(nested.to("../../../s.yaml", 3), None);
        // Anything that does not look like GitHub's values: no links.
        for (server, repository, sha) in [
            ("github.com", "o/r", sha),
            ("javascript:alert(1)//", "o/r", sha),
            ("https://github.com\" onclick=\"x", "o/r", sha),
            ("https://github.com", "o/r/extra", sha),
            ("https://github.com", "o/..", sha),
            ("https://github.com", "o/r", "main"),
            ("https://github.com", "o/r", &sha[..39]),
        ] {
            assert!(!Links::github(server, repository, sha, Path::new("")).enabled(), "{server} {repository} {sha}");
        }
        assert!(!Links::github("https://github.com", "o/r", sha, Path::new("/abs")).enabled());
        assert_eq!(Links::default().to("a.yaml", 1), None);
    }
}
