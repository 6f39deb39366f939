/*!
Native YAML suite files: a `scenarios:` list in a `*.yaml` / `*.yml` file
(scenarios.md §1).

The file is read into a located [`Node`] tree and validated by hand, so that
one pass reports every problem (a wrong type, an unknown key with the key it
most likely meant, a missing `id` or `task`, a response path that leaves the
suite root), each with its `line:column`, and a bad scenario never hides the
good ones around it.

It does not walk folders or check ids across files (`load` does), and it
never opens a response file (the `verdict` stage does): a response path is
resolved and kept inside the suite root by its text (`..` may not climb
out: a load error), then checked without being opened (a symlink that leads
outside the root, a special file, a file too large: the scenario is
MALFORMED).
*/

use std::path::{Component, Path, PathBuf};

use serde_saphyr::Spanned;

use super::assertions::assertion_spec;
use super::error::SuiteError;
use super::node::{pos_or_1, Node};
use super::read::{read_yaml, read_yaml_piece, SuiteRoot};
use super::scenario::{LoadedRoot, ResponseFormat, ResponseRef, Review, Scenario, SuiteFormat, DEFAULT_CATEGORY};
use super::split;
use super::text::suggest;

/// The keys a native scenario may have, in the order the docs list them.
const SCENARIO_KEYS: &[&str] = &[
    "id",
    "category",
    "description",
    "task",
    "file",
    "expect",
    "acceptable",
    "responses",
    "assertions",
    "commit",
    "review",
];

/// Context of one suite file while it is validated.
struct FileCx<'a> {
    path: &'a Path,
    root: &'a SuiteRoot<'a>,
    rel_dir: &'a Path,
    errors: &'a mut Vec<SuiteError>,
}

impl FileCx<'_> {
    fn wrong_type(&mut self, at: (usize, usize), field: &str, expected: &str, node: &Node) {
        self.errors.push(SuiteError::WrongType {
            path: self.path.to_path_buf(),
            line: at.0,
            column: at.1,
            field: field.to_string(),
            expected: expected.to_string(),
            found: format!("{}{}", node.kind(), node.quote_hint()),
        });
    }

    fn unknown_key(&mut self, key: &Spanned<String>, allowed: &[&str]) {
        let (line, column) = pos_or_1(key);
        self.errors.push(SuiteError::UnknownKey {
            path: self.path.to_path_buf(),
            line,
            column,
            key: key.value.clone(),
            allowed: allowed.iter().map(|s| s.to_string()).collect(),
            suggestion: suggest(&key.value, allowed),
        });
    }

    fn missing(&mut self, at: (usize, usize), field: &str, hint: &str) {
        self.errors.push(SuiteError::MissingField {
            path: self.path.to_path_buf(),
            line: at.0,
            column: at.1,
            field: field.to_string(),
            hint: hint.to_string(),
        });
    }

    /// A string value, or `None` for null; a wrong type is reported.
    fn opt_string(&mut self, field: &str, node: &Spanned<Node>) -> Option<String> {
        match &node.value {
            Node::Str(s) => Some(s.clone()),
            Node::Null => None,
            other => {
                self.wrong_type(pos_or_1(node), field, "a string", other);
                None
            }
        }
    }

    /// A list of strings; null is the empty list; a wrong type is reported.
    fn string_list(&mut self, field: &str, node: &Spanned<Node>) -> Vec<String> {
        match &node.value {
            Node::Null => Vec::new(),
            Node::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    match &item.value {
                        Node::Str(s) if s.trim().is_empty() => self.errors.push(SuiteError::WrongType {
                            path: self.path.to_path_buf(),
                            line: pos_or_1(item).0,
                            column: pos_or_1(item).1,
                            field: format!("{field}[]"),
                            expected: "a decision id".to_string(),
                            found: "an empty string".to_string(),
                        }),
                        Node::Str(s) => out.push(s.clone()),
                        other => self.wrong_type(pos_or_1(item), &format!("{field}[]"), "a string", other),
                    }
                }
                out
            }
            other => {
                let hint = if matches!(other, Node::Str(_)) {
                    format!("a list of strings (write `{field}: [{}]`)", scalar_text(other))
                } else {
                    "a list of strings".to_string()
                };
                self.wrong_type(pos_or_1(node), field, &hint, other);
                Vec::new()
            }
        }
    }

    fn response(&mut self, side: &str, node: &Spanned<Node>) -> Option<ResponseRef> {
        let at = pos_or_1(node);
        let declared = match &node.value {
            Node::Str(s) => s.clone(),
            Node::Null => {
                return Some(ResponseRef::Unusable {
                    declared: String::new(),
                    reason: format!(
                        "`responses.{side}` names no file; give a path relative to the suite \
                         file or remove the key"
                    ),
                })
            }
            other => {
                self.wrong_type(at, &format!("responses.{side}"), "a file path", other);
                return None;
            }
        };
        if declared.trim().is_empty() {
            return Some(ResponseRef::Unusable {
                declared,
                reason: format!("`responses.{side}` is an empty path; give a path relative to the suite file"),
            });
        }
        match resolve_inside_root(self.rel_dir, &declared) {
            Some(rel) => {
                let path = self.root.path.join(&rel);
                let format = response_format_for(&path);
                Some(self.root.response(declared, path, format))
            }
            None => {
                self.errors.push(SuiteError::PathOutsideRoot {
                    path: self.path.to_path_buf(),
                    line: at.0,
                    column: at.1,
                    response: declared,
                    root: self.root.path.to_path_buf(),
                });
                None
            }
        }
    }
}

fn scalar_text(node: &Node) -> String {
    match node {
        Node::Str(s) => s.clone(),
        Node::Number(n) => n.clone(),
        Node::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Loads one native suite file: `root` is its suite root and `rel_dir` its
/// folder relative to the root; `named` when the file is the root itself,
/// as given (it may be a symlink anywhere, as a root folder may). Scenarios
/// go to `out`, problems to `errors`.
pub(super) fn load_native_file(
    path: &Path,
    root: &SuiteRoot<'_>,
    rel_dir: &Path,
    named: bool,
    out: &mut LoadedRoot,
    errors: &mut Vec<SuiteError>,
) {
    let text = match root.read_text(path, named) {
        Ok(t) => t,
        Err(e) => {
            errors.push(e.into_error(path, "the suite file"));
            return;
        }
    };
    let (scenarios, mut errs) = parse_native(&text, path, root, rel_dir);
    if scenarios.is_empty() && errs.is_empty() {
        out.warnings.push(format!("{}: the suite file has no scenarios", path.display()));
    }
    if out.scenarios.is_empty() {
        out.scenarios = scenarios;
    } else {
        out.scenarios.extend(scenarios);
    }
    errors.append(&mut errs);
}

/// The fewest entries of one suite file converted by one task: enough that
/// a small file is not split into tasks that cost more than they do.
const ENTRIES_PER_TASK: usize = 64;

/// Parses the text of a native suite file. `path` is used in messages and as
/// the scenarios' `source`; response paths are resolved against `root`
/// joined with `rel_dir` (the file's folder relative to the root) and must
/// stay inside `root`. The YAML is read within the root's limits. Returns
/// the valid scenarios and every error found.
fn parse_native(text: &str, path: &Path, root: &SuiteRoot<'_>, rel_dir: &Path) -> (Vec<Scenario>, Vec<SuiteError>) {
    if text.len() >= SPLIT_BYTES {
        let threads = rayon::current_num_threads();
        if let Some(parsed) = parse_in_pieces(text, path, root, rel_dir, ENTRIES_PER_TASK, 8 * threads) {
            return parsed;
        }
    }
    parse_whole(text, path, root, rel_dir)
}

/// Suite files of at least this many bytes (about 700 scenarios) are parsed
/// in pieces when they are one plain list (see `split`); smaller files gain
/// nothing from it.
const SPLIT_BYTES: usize = 256 << 10;

/// [`parse_native`] for a file cut into pieces of at least `min_entries`
/// entries, at most `max_pieces` of them (see `split`), parsed and made into
/// scenarios on the rayon pool, each piece's tree dropped once made. `None`
/// when the file is not of the shape `split` cuts, or any piece does not
/// parse as the list of entries found in it: the file is then read whole,
/// which reports its errors.
fn parse_in_pieces(
    text: &str,
    path: &Path,
    root: &SuiteRoot<'_>,
    rel_dir: &Path,
    min_entries: usize,
    max_pieces: usize,
) -> Option<(Vec<Scenario>, Vec<SuiteError>)> {
    use rayon::prelude::*;
    let pieces = split::pieces(text, min_entries, max_pieces)?;
    // The lines before the first entry are in no piece, and a character
    // YAML refuses there (a control character in a comment) must still
    // send the file to the whole reading.
    read_yaml(pieces.first()?.before(text), path, &root.limits.yaml).ok()?;
    let parts: Option<Vec<(Vec<Scenario>, Vec<SuiteError>)>> = pieces
        .par_iter()
        .map(|piece| {
            let doc = read_yaml_piece(&piece.text(text), &root.limits.yaml)?;
            let Node::Seq(items) = doc.value else { return None };
            if items.len() != piece.entries {
                return None;
            }
            let mut errors = Vec::new();
            let mut cx = FileCx { path, root, rel_dir, errors: &mut errors };
            let scenarios = items.iter().filter_map(|item| parse_native_scenario(&mut cx, item)).collect();
            Some((scenarios, errors))
        })
        .collect();
    let parts = parts?;
    let mut scenarios = Vec::with_capacity(parts.iter().map(|(s, _)| s.len()).sum());
    let mut errors = Vec::new();
    for (mut s, mut e) in parts {
        scenarios.append(&mut s);
        errors.append(&mut e);
    }
    Some((scenarios, errors))
}

/// For differential tests and fuzzing: whether the native suite file `text`,
/// cut into the smallest pieces (one entry each, or as few as 64 pieces
/// allow), reads as it reads whole: the same scenarios and the same errors at
/// the same places. `None` when it is not cut (see `split`).
#[doc(hidden)]
pub fn pieces_read_as_whole(text: &str) -> Option<bool> {
    read_in_pieces_and_whole(text, &super::SuiteLimits::default()).map(|(pieces, whole)| pieces == whole)
}

/// What [`pieces_read_as_whole`] compares, within `limits`: the file read in
/// the smallest pieces and read whole (scenarios and errors, as `{:#?}`
/// prints them); `None` when it is not cut.
fn read_in_pieces_and_whole(text: &str, limits: &super::SuiteLimits) -> Option<(String, String)> {
    let root = SuiteRoot {
        path: Path::new("suite"),
        canonical: Path::new("/nonexistent-suite-root"),
        limits,
        shared: &Default::default(),
        family: crate::profile::Family::Default,
    };
    let (file, rel_dir) = (Path::new("suite/suite.yaml"), Path::new(""));
    let pieces = parse_in_pieces(text, file, &root, rel_dir, 1, 64)?;
    Some((format!("{pieces:#?}"), format!("{:#?}", parse_whole(text, file, &root, rel_dir))))
}

/// [`parse_native`] reading the whole file as one YAML document.
fn parse_whole(text: &str, path: &Path, root: &SuiteRoot<'_>, rel_dir: &Path) -> (Vec<Scenario>, Vec<SuiteError>) {
    let mut errors = Vec::new();
    let mut scenarios = Vec::new();
    let doc = match read_yaml(text, path, &root.limits.yaml) {
        Ok(d) => d,
        Err(e) => {
            errors.push(e);
            return (scenarios, errors);
        }
    };
    let mut cx = FileCx { path, root, rel_dir, errors: &mut errors };
    let entries = match &doc.value {
        Node::Null => return (scenarios, errors),
        Node::Map(entries) => entries,
        other => {
            cx.wrong_type(pos_or_1(&doc), "suite file", "a mapping with a `scenarios:` list", other);
            return (scenarios, errors);
        }
    };
    let mut list = None;
    for (key, value) in entries {
        if key.value == "scenarios" {
            list = Some(value);
        } else {
            cx.unknown_key(key, &["scenarios"]);
        }
    }
    let Some(list) = list else {
        cx.missing(pos_or_1(&doc), "scenarios", "a `scenarios:` list (each entry has at least `id` and `task`)");
        return (scenarios, errors);
    };
    match &list.value {
        Node::Null => {}
        Node::Seq(items) => {
            // Entries are independent: convert them on the current rayon pool
            // (one big suite file would otherwise be read by one thread), each
            // with its own errors, then gather both in file order.
            use rayon::prelude::*;
            let (converted, errs): (Vec<Option<Scenario>>, Vec<Vec<SuiteError>>) = items
                .par_iter()
                .with_min_len(ENTRIES_PER_TASK)
                .map(|item| {
                    let mut errors = Vec::new();
                    let mut item_cx = FileCx { path, root, rel_dir, errors: &mut errors };
                    (parse_native_scenario(&mut item_cx, item), errors)
                })
                .unzip();
            scenarios = converted.into_iter().flatten().collect();
            cx.errors.extend(errs.into_iter().flatten());
        }
        other => cx.wrong_type(pos_or_1(list), "scenarios", "a list of scenario mappings", other),
    }
    (scenarios, errors)
}

fn parse_native_scenario(cx: &mut FileCx<'_>, item: &Spanned<Node>) -> Option<Scenario> {
    let at = pos_or_1(item);
    let Node::Map(entries) = &item.value else {
        cx.wrong_type(at, "scenarios[]", "a mapping with at least `id` and `task`", &item.value);
        return None;
    };
    let errors_before = cx.errors.len();
    let mut id = None;
    let mut id_wrong_type = false;
    let mut task_wrong_type = false;
    let mut category = None;
    let mut description = None;
    let mut task = None;
    let mut file = None;
    let mut expect = Vec::new();
    let mut acceptable = Vec::new();
    let mut control = None;
    let mut governed = None;
    let mut assertions = Vec::new();
    let mut commit = None;
    let mut review = Review::Reviewed;
    for (key, value) in entries {
        match key.value.as_str() {
            "id" => {
                id = cx.opt_string("id", value);
                id_wrong_type = !matches!(value.value, Node::Str(_) | Node::Null);
            }
            "category" => category = cx.opt_string("category", value),
            "description" => description = cx.opt_string("description", value),
            "task" => {
                task = cx.opt_string("task", value);
                task_wrong_type = !matches!(value.value, Node::Str(_) | Node::Null);
            }
            "file" => file = cx.opt_string("file", value),
            "commit" => match &value.value {
                Node::Str(c) if is_commit_hash(c) => commit = Some(c.to_ascii_lowercase()),
                Node::Null => {}
                other => cx.wrong_type(pos_or_1(value), "commit", "a full commit hash (40 or 64 hex digits)", other),
            },
            "review" => match &value.value {
                Node::Str(r) if r == "pending" => review = Review::Pending,
                other => cx.wrong_type(
                    pos_or_1(value),
                    "review",
                    "`pending` (remove the key once the scenario is reviewed)",
                    other,
                ),
            },
            "expect" => expect = cx.string_list("expect", value),
            "acceptable" => acceptable = cx.string_list("acceptable", value),
            "responses" => match &value.value {
                Node::Null => {}
                Node::Map(sides) => {
                    for (side, v) in sides {
                        match side.value.as_str() {
                            "control" => control = cx.response("control", v),
                            "governed" => governed = cx.response("governed", v),
                            _ => cx.unknown_key(side, &["control", "governed"]),
                        }
                    }
                }
                other => {
                    cx.wrong_type(pos_or_1(value), "responses", "a mapping with `control` and/or `governed`", other)
                }
            },
            "assertions" => match &value.value {
                Node::Null => {}
                Node::Seq(list) => {
                    assertions = list
                        .iter()
                        .enumerate()
                        .map(|(i, a)| assertion_spec(i + 1, a, &cx.root.shared.patterns))
                        .collect();
                }
                other => cx.wrong_type(
                    pos_or_1(value),
                    "assertions",
                    "a list of assertions (`- forbidden_text: \"...\"`)",
                    other,
                ),
            },
            _ => cx.unknown_key(key, SCENARIO_KEYS),
        }
    }
    let id = id.filter(|s| !s.trim().is_empty());
    let task = task.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
    if id.is_none() && !id_wrong_type {
        cx.missing(at, "id", "`id: <a name unique across the suite>`");
    }
    if task.is_none() && !task_wrong_type {
        cx.missing(at, "task", "`task: <what the agent is asked to do>`");
    }
    if cx.errors.len() > errors_before {
        return None;
    }
    Some(Scenario {
        id: id?,
        category: category.filter(|c| !c.trim().is_empty()).unwrap_or_else(|| DEFAULT_CATEGORY.to_string()),
        description: description.unwrap_or_default(),
        task: task?,
        file: file.filter(|f| !f.trim().is_empty()),
        expect,
        acceptable,
        control,
        governed,
        assertions,
        expected_failure_terms: Vec::new(),
        scenario_type: Default::default(),
        exposed: Vec::new(),
        problems: Vec::new(),
        commit,
        review,
        source: cx.path.to_path_buf(),
        line: at.0,
        column: at.1,
        suite_root: cx.root.path.to_path_buf(),
        format: SuiteFormat::Native,
        read: Vec::new(),
    })
}

/// The response path, relative to the suite root, if it stays inside it.
/// `rel_dir` is the suite file's folder relative to the root.
fn resolve_inside_root(rel_dir: &Path, declared: &str) -> Option<PathBuf> {
    let p = Path::new(declared);
    if p.has_root() || p.is_absolute() || declared.starts_with('\\') {
        return None;
    }
    let mut stack: Vec<std::ffi::OsString> = Vec::new();
    for c in rel_dir.join(p).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                stack.pop()?;
            }
            Component::Normal(n) => stack.push(n.to_os_string()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(stack.iter().collect())
}

/// A full commit hash: 40 (SHA-1) or 64 (SHA-256) hexadecimal digits.
fn is_commit_hash(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn response_format_for(path: &Path) -> ResponseFormat {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("json") => ResponseFormat::Structured,
        _ => ResponseFormat::Text,
    }
}

#[cfg(test)]
mod tests;
