//! Cassettes: one file per request, `<key>.json` in the cassette folder,
//! JSON with sorted keys, holding the canonical request, the reply, the
//! usage, the latency of the answering attempt, and which scenarios' arms
//! used it when it was recorded (to tell a stale cassette from a missing
//! one).
//!
//! A cassette comes from a pull request like any input: it is read only if
//! it resolves inside the cassette folder (symlinks followed), is a regular
//! file and holds at most [`MAX_CASSETTE_BYTES`]; its request must hash to
//! its name, so an edited request is refused rather than replayed for a
//! request it no longer is. It is written atomically.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::scenarios::{read_inside, Refusal};

use super::client::Exchange;
use super::reply::{Reply, Usage};
use super::request::{sorted, ChatRequest};
use super::{Arm, ModelError};

/// The schema written in every cassette.
pub const CASSETTE_SCHEMA: &str = "mneme-gate.cassette/v1";

/// The largest cassette read (16 MiB: a reply is at most 8 MiB).
pub const MAX_CASSETTE_BYTES: u64 = 16 * 1024 * 1024;

/// A scenario's arm that used a cassette.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Use {
    pub scenario: String,
    /// `governed` or `control`.
    pub arm: String,
}

impl Use {
    pub fn new(scenario: &str, arm: Arm) -> Use {
        Use { scenario: scenario.to_string(), arm: arm.as_str().to_string() }
    }
}

/// One recorded exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    pub key: String,
    pub request: ChatRequest,
    pub exchange: Exchange,
    /// Sorted, no repeats.
    pub uses: Vec<Use>,
}

/// The file's shape.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CassetteFile {
    schema: String,
    key: String,
    request: serde_json::Value,
    reply: Reply,
    usage: Usage,
    latency_ms: u64,
    uses: Vec<Use>,
}

impl Cassette {
    /// The file's text: pretty JSON, keys sorted, a final newline.
    pub fn to_json(&self) -> String {
        let mut uses = self.uses.clone();
        uses.sort();
        uses.dedup();
        let file = CassetteFile {
            schema: CASSETTE_SCHEMA.to_string(),
            key: self.key.clone(),
            request: self.request.canonical(),
            reply: self.exchange.reply.clone(),
            usage: self.exchange.usage,
            latency_ms: self.exchange.latency_ms,
            uses,
        };
        let value = sorted(serde_json::to_value(file).expect("a cassette always serialises"));
        let mut text = serde_json::to_string_pretty(&value).expect("a cassette always serialises");
        text.push('\n');
        text
    }

    /// Reads a cassette's text; `name` is the key its file name gives. The
    /// error is the reason it cannot be used.
    pub fn parse(text: &str, name: &str) -> Result<Cassette, String> {
        let file: CassetteFile = serde_json::from_str(text).map_err(|e| {
            format!(
                "not a cassette: {} (line {}, column {})",
                crate::describe::json_error(&e),
                e.line(),
                e.column().max(1)
            )
        })?;
        if file.schema != CASSETTE_SCHEMA {
            return Err(format!(
                "its schema is `{}`, not `{CASSETTE_SCHEMA}`",
                crate::describe::printable(&file.schema)
            ));
        }
        if file.key != name {
            return Err("its `key` is not its file name".into());
        }
        let request = ChatRequest::from_canonical(&file.request)?;
        if request.key() != file.key {
            return Err("its request does not hash to its key (it was edited)".into());
        }
        if let Some(bad) = file.uses.iter().find(|u| Arm::parse(&u.arm).is_none()) {
            return Err(format!(
                "`uses` names the arm `{}`; use `governed` or `control`",
                crate::describe::printable(&bad.arm)
            ));
        }
        Ok(Cassette {
            key: file.key,
            request,
            exchange: Exchange { reply: file.reply, usage: file.usage, latency_ms: file.latency_ms },
            uses: file.uses,
        })
    }
}

/// The cassette folder.
#[derive(Debug, Clone)]
pub struct Folder {
    pub dir: PathBuf,
}

/// A file of the folder, read: its cassette or why it is not one.
pub type Listed = (PathBuf, Result<Cassette, String>);

impl Folder {
    pub fn new(dir: impl Into<PathBuf>) -> Folder {
        Folder { dir: dir.into() }
    }

    /// Where the cassette of `key` is.
    pub fn path_of(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The canonical folder, or `None` when it does not exist. A folder
    /// written inside the repository (the configuration's, always) must
    /// resolve inside the repository root, every component in turn: a
    /// linked `cassettes/` never carries a read out of the repository. A
    /// folder named outside it (`--cassettes /elsewhere`) is read as given.
    fn root(&self) -> Result<Option<PathBuf>, ModelError> {
        use crate::confine;
        if let Ok(repository) = confine::repository_root() {
            if confine::written_inside(&self.dir, &repository) {
                return match confine::resolve_inside(&repository, &self.dir) {
                    Ok(root) => Ok(Some(root)),
                    Err(confine::Refusal::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(refusal) => {
                        Err(ModelError::CassetteFolder { path: self.dir.clone(), reason: refusal.to_string() })
                    }
                };
            }
        }
        match fs::canonicalize(&self.dir) {
            Ok(root) => Ok(Some(root)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => {
                Err(ModelError::Cassette { path: self.dir.clone(), reason: format!("the folder cannot be read: {e}") })
            }
        }
    }

    /// The cassette of `key`, `None` when there is none.
    pub fn read(&self, key: &str) -> Result<Option<Cassette>, ModelError> {
        let Some(root) = self.root()? else { return Ok(None) };
        let path = self.path_of(key);
        match read_file(&root, &path, key) {
            Ok(c) => Ok(Some(c)),
            Err(None) => Ok(None),
            Err(Some(reason)) => Err(ModelError::Cassette { path, reason }),
        }
    }

    /// Writes a cassette atomically.
    pub fn write(&self, cassette: &Cassette) -> Result<(), ModelError> {
        let path = self.path_of(&cassette.key);
        // Never through a symbolic link of the repository (a linked `cassettes/`).
        crate::confine::check_output(&path)
            .map_err(std::io::Error::from)
            .and_then(|()| crate::atomic::write_atomically(&path, cassette.to_json().as_bytes()))
            .map_err(|source| ModelError::WriteCassette { path, source })
    }

    /// Every `*.json` file of the folder (not its subfolders), in name order,
    /// each read as a cassette. A missing folder lists nothing.
    pub fn list(&self) -> Result<Vec<Listed>, ModelError> {
        let Some(root) = self.root()? else { return Ok(Vec::new()) };
        let entries = fs::read_dir(&root).map_err(|e| ModelError::Cassette {
            path: self.dir.clone(),
            reason: format!("the folder cannot be read: {e}"),
        })?;
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names
            .into_iter()
            .map(|name| {
                let path = self.dir.join(&name);
                let key = name.trim_end_matches(".json");
                let read = read_file(&root, &path, key).map_err(|e| e.unwrap_or_else(|| "it disappeared".into()));
                (path, read)
            })
            .collect())
    }
}

/// Reads and checks one cassette file: `Err(None)` when it does not exist,
/// `Err(Some(reason))` when it cannot be used.
fn read_file(root: &Path, path: &Path, key: &str) -> Result<Cassette, Option<String>> {
    let bytes = read_inside(root, path, MAX_CASSETTE_BYTES).map_err(|refusal| match refusal {
        Refusal::Io(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Refusal::Io(e) => Some(format!("it cannot be read: {e}")),
        Refusal::Outside { link, target, .. } => Some(format!(
            "it leads outside the cassette folder {}: {} is a symlink to {}; a cassette may not: copy the file instead",
            root.display(),
            link.display(),
            target.display()
        )),
        Refusal::NotRegular { kind } => Some(format!("it is {kind}, not a regular file")),
        Refusal::TooLarge { .. } => {
            Some(format!("it is larger than {} MiB, the most a cassette may hold", MAX_CASSETTE_BYTES / (1024 * 1024)))
        }
    })?;
    let text = String::from_utf8(bytes).map_err(|_| Some("it is not valid UTF-8".to_string()))?;
    Cassette::parse(&text, key).map_err(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::prompt::Message;
    use crate::model::request::tests::settings;

    fn cassette() -> Cassette {
        let request = ChatRequest::new(&settings(), "/v1/chat/completions", &[Message::user("task")], false, 0);
        Cassette {
            key: request.key(),
            request,
            exchange: Exchange {
                reply: Reply { content: Some("answer".into()), model: Some("m-1".into()), ..Reply::default() },
                usage: Usage { prompt_tokens: Some(3), completion_tokens: Some(1) },
                latency_ms: 42,
            },
            uses: vec![Use::new("b", Arm::Control), Use::new("a", Arm::Governed)],
        }
    }

    #[test]
    fn a_cassette_is_sorted_json_that_reads_back() {
        let c = cassette();
        let text = c.to_json();
        let keys: Vec<&str> = text.lines().filter(|l| l.starts_with("  \"")).map(|l| l.trim()).collect();
        let mut sorted_keys = keys.clone();
        sorted_keys.sort();
        assert_eq!(keys, sorted_keys, "{text}");
        assert!(text.contains("\"latency_ms\": 42"), "{text}");
        let back = Cassette::parse(&text, &c.key).unwrap();
        assert_eq!(back.uses, [Use::new("a", Arm::Governed), Use::new("b", Arm::Control)]);
        assert_eq!((back.request, back.exchange), (c.request, c.exchange));
    }

    #[test]
    fn an_edited_or_foreign_cassette_is_refused() {
        let c = cassette();
        let text = c.to_json();
        let edited = text.replace("\"content\": \"task\"", "\"content\": \"other task\"");
        assert_eq!(
            Cassette::parse(&edited, &c.key).unwrap_err(),
            "its request does not hash to its key (it was edited)"
        );
        assert_eq!(Cassette::parse(&text, "0000").unwrap_err(), "its `key` is not its file name");
        assert!(Cassette::parse(&text.replace("cassette/v1", "cassette/v9"), &c.key).unwrap_err().contains("schema"));
        assert!(Cassette::parse("{\"x\": 1}", &c.key).unwrap_err().starts_with("not a cassette: unknown field `x`"));
        assert!(Cassette::parse(&text.replace("\"arm\": \"control\"", "\"arm\": \"both\""), &c.key)
            .unwrap_err()
            .contains("`both`"));
    }

    #[test]
    fn the_folder_reads_only_regular_files_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let folder = Folder::new(dir.path().join("cassettes"));
        let c = cassette();
        assert_eq!(folder.read(&c.key).unwrap(), None, "no folder yet");
        assert!(folder.list().unwrap().is_empty());
        folder.write(&c).unwrap();
        let mut sorted_uses = c.clone();
        sorted_uses.uses.sort();
        assert_eq!(folder.read(&c.key).unwrap(), Some(sorted_uses));
        fs::write(folder.dir.join("junk.json"), "[]").unwrap();
        fs::write(folder.dir.join("notes.txt"), "ignored").unwrap();
        let listed = folder.list().unwrap();
        assert_eq!(listed.len(), 2);
        assert!(listed.iter().any(|(p, r)| p.ends_with("junk.json") && r.is_err()));
        #[cfg(unix)]
        {
            let outside = dir.path().join("outside.json");
            fs::write(&outside, c.to_json()).unwrap();
            let other = ChatRequest { sample: 1, ..c.request.clone() };
            std::os::unix::fs::symlink(&outside, folder.path_of(&other.key())).unwrap();
            let e = folder.read(&other.key()).unwrap_err().to_string();
            assert!(e.contains("leads outside the cassette folder") && e.contains("outside.json"), "{e}");
            let fifo = folder.path_of("fifo");
            if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
                let e = folder.read("fifo").unwrap_err().to_string();
                assert!(e.contains("a named pipe (FIFO), not a regular file"), "{e}");
            }
        }
        let big = folder.path_of("big");
        fs::File::create(&big).unwrap().set_len(MAX_CASSETTE_BYTES + 1).unwrap();
        assert!(folder.read("big").unwrap_err().to_string().contains("larger than 16 MiB"));
    }
}
