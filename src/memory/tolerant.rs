/*!
The tolerant loader: the memory text read by the located reader
(`memory::located_json`), every record shape-checked and mapped onto a
[`Decision`] (spec §1), every problem a [`Diagnostic`](super::Diagnostic)
with its line, column and record id.

Why it exists: it is the reference. Its messages are the ones users see, it
goes on after a syntax error or a bad record so that `validate` lists every
problem at once, and the fast path (`memory::fast`) is only allowed to skip
it where it would give the very same memory.

It deliberately does not decide what is in the pool: records that pass
their shape checks go to `memory::pool` as [`Candidate`]s, as the fast
path's do.
*/

use std::path::Path;
use std::sync::Arc;

use super::decision_index;
use super::glob::{compile_glob, quoted};
use super::located_json::{self, Member, Node, Value};
use super::migrate::migrate;
use super::pool::{build_pool, Segment};
use super::rules::{python_strip, selector_problem, FORBID_LITERAL};
use super::{Decision, Memory, Rare, RecordKind, Rule, Sections, Severity};
use crate::profile::Family;

/// Parses memory text, reporting every problem with its line and column.
pub(super) fn parse(path: &Path, text: String, family: Family) -> Memory {
    let parsed = located_json::parse(&text);
    let mut memory = Memory::empty(path, family, Vec::new());
    memory.text = text;
    if let Some(root) = &parsed.root {
        Loader { memory: &mut memory, family, broken: Vec::new() }.load_root(root);
    }
    for e in parsed.errors {
        memory.push(Severity::Error, e.offset, None, e.message);
    }
    memory.sort_diagnostics();
    memory
}

struct Loader<'m> {
    memory: &'m mut Memory,
    family: Family,
    /// The ids and offsets of records left out for their errors: their ids
    /// are still taken ([`Loader::duplicates_of_broken`]).
    broken: Vec<(String, usize)>,
}

/// Collects field problems of one record.
struct Fields<'a> {
    node: &'a Node,
    problems: Vec<(usize, String)>,
}

impl<'a> Fields<'a> {
    fn new(node: &'a Node) -> Self {
        Fields { node, problems: Vec::new() }
    }

    /// A present, non-null member.
    fn member(&self, key: &str) -> Option<&'a Node> {
        self.node.get(key).filter(|n| n.value != Value::Null)
    }

    fn required_str(&mut self, key: &str, what: &str) -> Option<String> {
        match self.node.get(key) {
            None | Some(Node { value: Value::Null, .. }) => {
                self.problems.push((self.node.offset, format!("missing required field `{key}` ({what})")));
                None
            }
            Some(n) => match &n.value {
                Value::String(s) if s.trim().is_empty() => {
                    self.problems.push((n.offset, format!("field `{key}` is empty: give it {what}")));
                    None
                }
                Value::String(s) => Some(s.clone()),
                other => {
                    self.problems
                        .push((n.offset, format!("field `{key}` must be a string, found {}", other.type_name())));
                    None
                }
            },
        }
    }

    fn opt_str(&mut self, key: &str) -> Option<String> {
        let n = self.member(key)?;
        match &n.value {
            Value::String(s) => Some(s.clone()),
            other => {
                self.problems.push((n.offset, format!("field `{key}` must be a string, found {}", other.type_name())));
                None
            }
        }
    }

    /// `sections` (what `mneme-gate import` writes): absent or null is
    /// empty; an object whose `summary`, `decision`, `context`, `options`,
    /// `consequences` and `subsections` are strings, other members read
    /// past.
    fn sections(&mut self) -> Sections {
        let mut out = Sections::default();
        let Some(n) = self.member("sections") else { return out };
        match &n.value {
            Value::Null => {}
            Value::Object(members) => {
                for m in members {
                    let slot = match m.key.as_str() {
                        "summary" => &mut out.summary,
                        "decision" => &mut out.decision,
                        "context" => &mut out.context,
                        "options" => &mut out.options,
                        "consequences" => &mut out.consequences,
                        "subsections" => &mut out.subsections,
                        _ => continue,
                    };
                    match &m.node.value {
                        Value::String(s) => *slot = s.clone(),
                        Value::Unreadable => {}
                        other => self.problems.push((
                            m.node.offset,
                            format!("`sections.{}` must be a string, found {}", m.key, other.type_name()),
                        )),
                    }
                }
            }
            other => self.problems.push((
                n.offset,
                format!("field `sections` must be an object of strings, found {}", other.type_name()),
            )),
        }
        out
    }

    /// A list of strings; with `one_ok`, a single string is a one-element list.
    fn str_list(&mut self, key: &str, one_ok: bool) -> Vec<String> {
        self.str_list_at(key, one_ok).into_iter().map(|(_, s)| s).collect()
    }

    fn str_list_at(&mut self, key: &str, one_ok: bool) -> Vec<(usize, String)> {
        let Some(n) = self.member(key) else { return Vec::new() };
        let expected = if one_ok { "a string or a list of strings" } else { "a list of strings" };
        match &n.value {
            Value::String(s) if one_ok => vec![(n.offset, s.clone())],
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match &item.value {
                        Value::String(s) => out.push((item.offset, s.clone())),
                        // A syntax error, already reported.
                        Value::Unreadable => {}
                        other => self.problems.push((
                            item.offset,
                            format!("`{key}[{i}]` must be a string, found {} ({key} is {expected})", other.type_name()),
                        )),
                    }
                }
                out
            }
            other => {
                self.problems
                    .push((n.offset, format!("field `{key}` must be {expected}, found {}", other.type_name())));
                Vec::new()
            }
        }
    }
}

impl Loader<'_> {
    fn error(&mut self, offset: usize, id: Option<&str>, message: String) {
        self.memory.push(Severity::Error, offset, id, message);
    }

    fn warning(&mut self, offset: usize, id: Option<&str>, message: String) {
        self.memory.push(Severity::Warning, offset, id, message);
    }

    fn load_root(&mut self, root: &Node) {
        self.repeated_members(root, None, true);
        let (decisions, items): (Option<&Node>, Option<&Node>) = match &root.value {
            Value::Array(_) => (None, Some(root)),
            Value::Object(_) => {
                if let Some(meta) = root.get("meta") {
                    if !matches!(meta.value, Value::Object(_) | Value::Null) {
                        self.warning(
                            meta.offset,
                            None,
                            format!("`meta` should be an object, found {}; it is ignored", meta.value.type_name()),
                        );
                    }
                }
                let d = self.top_array(root, "decisions");
                let i = self.top_array(root, "items");
                if root.get("decisions").is_none() && root.get("items").is_none() {
                    self.warning(
                        root.offset,
                        None,
                        "the file has neither `decisions` nor `items`: nothing can be retrieved".into(),
                    );
                }
                (d, i)
            }
            other => {
                self.error(
                    root.offset,
                    None,
                    format!("the memory file must be a JSON object or a list, found {}", other.type_name()),
                );
                return;
            }
        };
        // A persisted `decision_index`: profile mneme reads it as Mneme does
        // (`memory::decision_index`); under both profiles it marks the items
        // that Mneme's migration copied into decisions[] (`memory::pool`).
        let index = if matches!(root.value, Value::Object(_)) { root.get("decision_index") } else { None };
        if let (Some(section), Family::Mneme) = (index, self.family) {
            match decision_index::check(section, root.get("decisions"), &self.memory.path.clone()) {
                Ok(()) => self.memory.decision_index = true,
                Err(e) => self.error(e.offset, e.record.as_deref(), e.message),
            }
        }
        let mut decision_records = Segment::default();
        let mut item_records = Segment::default();
        if let Some(Node { value: Value::Array(elements), .. }) = decisions {
            for (i, el) in elements.iter().enumerate() {
                self.memory.records += 1;
                match self.record(el, true, &format!("decisions[{i}]")) {
                    Some((d, errors)) if d.kind == RecordKind::DecisionRecord => decision_records.push(d, errors),
                    Some((d, errors)) => item_records.push(d, errors),
                    None => {}
                }
            }
        }
        let items_label = if matches!(root.value, Value::Array(_)) { "" } else { "items" };
        if let Some(Node { value: Value::Array(elements), .. }) = items {
            for (i, el) in elements.iter().enumerate() {
                self.memory.records += 1;
                if let Some(c) = self.record(el, false, &format!("{items_label}[{i}]")) {
                    item_records.push(c.0, c.1);
                }
            }
        }
        let usable: Vec<(String, usize)> = decision_records
            .decisions
            .iter()
            .chain(&item_records.decisions)
            .map(|d| (d.id.clone(), d.offset))
            .collect();
        build_pool(self.memory, vec![decision_records, item_records], index.is_some());
        self.duplicates_of_broken(usable);
    }

    /// A record with errors stays out of the pool, but its id is taken all
    /// the same: once it is fixed, one of two records with that id is
    /// dropped. So an id shared with a record that has errors is reported as
    /// a duplicate where it repeats (in file order); two usable records that
    /// share one are [`build_pool`]'s to report.
    fn duplicates_of_broken(&mut self, usable: Vec<(String, usize)>) {
        if self.broken.is_empty() {
            return;
        }
        let broken = std::mem::take(&mut self.broken);
        let mut all: Vec<(String, usize, bool)> = usable.into_iter().map(|(id, offset)| (id, offset, false)).collect();
        all.extend(broken.into_iter().map(|(id, offset)| (id, offset, true)));
        all.sort_by_key(|(_, offset, _)| *offset);
        let mut first: std::collections::HashMap<&str, (usize, bool)> = std::collections::HashMap::new();
        let mut found = Vec::new();
        for (id, offset, broken) in &all {
            match first.get(id.as_str()) {
                Some(&(kept, kept_broken)) if kept_broken || *broken => found.push((id, *offset, kept, kept_broken)),
                Some(_) => {}
                None => {
                    first.insert(id, (*offset, *broken));
                }
            }
        }
        for (id, offset, kept, kept_broken) in found {
            let (line, _) = self.memory.line_col(kept);
            let which = if kept_broken { " (which has errors)" } else { "" };
            self.warning(
                offset,
                Some(id),
                format!(
                    "duplicate id \"{id}\": the record at line {line}{which} has it too; give each record a unique id"
                ),
            );
        }
    }

    /// Warns at every occurrence of a member name repeated in an object,
    /// anywhere in `node`: JSON keeps the last one and drops the others
    /// without a word (a second `status` can drop a record, a second
    /// `decisions` the whole first list). `holds_records`: `node` is the root
    /// or an array of records, whose elements name the record of a warning.
    fn repeated_members(&mut self, node: &Node, record: Option<&str>, holds_records: bool) {
        match &node.value {
            Value::Array(elements) => {
                for element in elements {
                    let record = if holds_records { element.get("id").and_then(Node::as_str) } else { record };
                    self.repeated_members(element, record, false);
                }
            }
            Value::Object(members) => {
                self.repeated_in(members, record);
                for m in members {
                    let records = holds_records && matches!(m.key.as_str(), "decisions" | "items");
                    self.repeated_members(&m.node, record, records);
                }
            }
            _ => {}
        }
    }

    /// The warnings of [`Loader::repeated_members`] for one object.
    fn repeated_in(&mut self, members: &[Member], record: Option<&str>) {
        if members.len() < 2 {
            return;
        }
        if members.len() <= 16 {
            let repeated = (1..members.len()).any(|i| members[..i].iter().any(|m| m.key == members[i].key));
            if !repeated {
                return;
            }
        }
        // Positions of the members, grouped by name in source order.
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.sort_by(|&a, &b| members[a].key.cmp(&members[b].key).then(a.cmp(&b)));
        for group in order.chunk_by(|&a, &b| members[a].key == members[b].key).filter(|g| g.len() > 1) {
            let places: Vec<String> = group
                .iter()
                .map(|&i| {
                    let (line, column) = self.memory.line_col(members[i].key_offset);
                    format!("line {line}, column {column}")
                })
                .collect();
            let name = quote(&members[group[0]].key);
            let (read, ignored) = places.split_last().expect("a group of two or more");
            for (n, &i) in group.iter().enumerate() {
                let message = if n + 1 == group.len() {
                    let ones = if ignored.len() == 1 { "the one at" } else { "the ones at" };
                    let are = if ignored.len() == 1 { "is" } else { "are" };
                    format!(
                        "repeated member {name}: this one is read, {ones} {} {are} ignored; keep only one",
                        ignored.join(" and ")
                    )
                } else {
                    format!("repeated member {name}: only the last one ({read}) is read, this one is ignored; keep only one")
                };
                self.warning(members[i].key_offset, record, message);
            }
        }
    }

    fn top_array<'n>(&mut self, root: &'n Node, key: &str) -> Option<&'n Node> {
        let n = root.get(key)?;
        match n.value {
            Value::Array(_) => Some(n),
            Value::Null => None,
            ref other => {
                self.error(n.offset, None, format!("`{key}` must be a list of records, found {}", other.type_name()));
                None
            }
        }
    }

    /// Shape-checks one record and maps it; `None` when it is unusable.
    fn record(&mut self, node: &Node, in_decisions: bool, place: &str) -> Option<(Decision, Vec<(usize, String)>)> {
        if node.value == Value::Unreadable {
            // A syntax error, already reported; counted, nothing to check.
            return None;
        }
        if !matches!(node.value, Value::Object(_)) {
            self.error(
                node.offset,
                None,
                format!("{place} must be an object (a record), found {}", node.value.type_name()),
            );
            return None;
        }
        let mut f = Fields::new(node);
        let id = f.required_str("id", "a unique string id");
        let is_decision_record = in_decisions && node.get("decision").is_some_and(|n| n.value != Value::Null);
        let mut glob_errors = Vec::new();
        let decision = if is_decision_record {
            let title = f.required_str("decision", "the decision itself, one sentence");
            let content = f.opt_str("rationale").unwrap_or_default();
            let tags = f.str_list("scope", false);
            let constraint = f.str_list("constraints", false);
            let anti_patterns = f.str_list("anti_patterns", false);
            let status = f.opt_str("status");
            let sections = f.sections();
            let rules = self.check_rules(&mut f);
            // Scope globs of a decision record (what `mneme-gate import`
            // writes); Mneme ignores them, and so does profile `mneme`.
            let (mut paths, mut globs) = (Vec::new(), Vec::new());
            if self.family == Family::Default {
                for (offset, pattern) in f.str_list_at("paths", true) {
                    match compile_glob(&pattern) {
                        Ok(glob) => {
                            paths.push(pattern);
                            globs.push(Arc::new(glob));
                        }
                        Err(msg) => {
                            glob_errors.push((offset, format!("invalid scope glob {}: {msg}", quoted(&pattern))))
                        }
                    }
                }
            }
            Decision {
                id: id.clone().unwrap_or_default(),
                title: title.unwrap_or_default(),
                tags,
                constraint,
                anti_patterns,
                content,
                paths,
                kind: RecordKind::DecisionRecord,
                offset: node.offset,
                globs,
                rare: Rare { sections, status, rules, ..Rare::default() }.boxed(),
            }
        } else {
            let has_title = node.get("title").is_some();
            if in_decisions && !has_title {
                let msg = format!(
                    "{place} has neither a string `decision` (a decision record) nor a `title` (an item record): add one"
                );
                f.problems.push((node.offset, msg));
            }
            let item_type = if in_decisions && node.get("type").is_none() {
                Some("decision".to_string())
            } else {
                f.required_str("type", "the item type, for example `decision`, `rule` or `anti_pattern`")
            };
            let title = if in_decisions && !has_title { None } else { f.required_str("title", "a short title") };
            let content = f.opt_str("content").unwrap_or_default();
            let constraint = f.str_list("constraint", true);
            let tags = f.str_list("tags", false);
            let scope = f.str_list_at("scope", true);
            let anti_patterns = f.str_list("anti_patterns", false);
            let status = f.opt_str("status");
            let item_type = item_type.unwrap_or_default();
            let mut d = Decision {
                id: id.clone().unwrap_or_default(),
                title: title.unwrap_or_default(),
                tags,
                constraint,
                anti_patterns,
                content,
                paths: Vec::new(),
                kind: RecordKind::Item(item_type.clone()),
                offset: node.offset,
                globs: Vec::new(),
                rare: Rare { status, ..Rare::default() }.boxed(),
            };
            match self.family {
                Family::Default => {
                    for (offset, pattern) in scope {
                        match compile_glob(&pattern) {
                            Ok(glob) => {
                                d.paths.push(pattern);
                                d.globs.push(Arc::new(glob));
                            }
                            Err(msg) => {
                                glob_errors.push((offset, format!("invalid scope glob {}: {msg}", quoted(&pattern))))
                            }
                        }
                    }
                }
                Family::Mneme => migrate(&mut d, &item_type),
            }
            d
        };
        if f.problems.is_empty() {
            return Some((decision, glob_errors));
        }
        let problems = std::mem::take(&mut f.problems);
        for (offset, message) in problems {
            self.error(offset, id.as_deref(), message);
        }
        if let Some(id) = id {
            self.broken.push((id, node.offset));
        }
        None
    }

    /// `rules[]` of a decision record. Profile `default` never uses rules and
    /// checks only their shape, so that typos surface (an unknown type, or
    /// path lists that are not lists, are warnings); profile `mneme` reads
    /// them for its prompt enforcer and refuses, as Mneme 0.10.0 does, every
    /// rule Mneme refuses. Returns the rules read (none under `default`).
    fn check_rules(&mut self, f: &mut Fields<'_>) -> Vec<Rule> {
        let mneme = self.family == Family::Mneme;
        let mut out = Vec::new();
        let Some(rules) = f.member("rules") else { return out };
        let Value::Array(items) = &rules.value else {
            f.problems.push((rules.offset, format!("field `rules` must be a list, found {}", rules.value.type_name())));
            return out;
        };
        let id = f.node.get("id").and_then(Node::as_str).map(str::to_string);
        for (i, rule) in items.iter().enumerate().filter(|(_, r)| r.value != Value::Unreadable) {
            match rule.get("type").map(|n| &n.value) {
                Some(Value::String(t)) if t == FORBID_LITERAL => {}
                Some(Value::String(t)) if mneme => {
                    f.problems.push((
                        rule.offset,
                        format!("rules[{i}] has type `{t}`: Mneme 0.10.0 defines only `FORBID_LITERAL` and refuses any other type (profile mneme follows it)"),
                    ));
                }
                Some(Value::String(t)) => {
                    self.warning(rule.offset, id.as_deref(), format!("rules[{i}] has type `{t}`; only `FORBID_LITERAL` is defined and it is ignored by retrieval"));
                }
                _ => {
                    f.problems.push((rule.offset, format!("rules[{i}] must be an object with a string `type`")));
                    continue;
                }
            }
            let mut bad = false;
            let mut lists = [None, None];
            for (slot, key) in ["include_paths", "exclude_paths"].into_iter().enumerate() {
                let Some(n) = rule.get(key) else { continue };
                let Value::Array(entries) = &n.value else {
                    let message =
                        format!("rules[{i}].{key} must be a list of path selectors, found {}", n.value.type_name());
                    if mneme {
                        f.problems.push((n.offset, format!("{message} (Mneme 0.10.0 refuses it)")));
                        bad = true;
                    } else {
                        self.warning(
                            n.offset,
                            id.as_deref(),
                            format!("{message}; Mneme 0.10.0 refuses such a file, and so does profile mneme"),
                        );
                    }
                    continue;
                };
                lists[slot] = Some((n, entries));
            }
            if !mneme {
                continue;
            }
            let value = match rule.get("value").map(|n| &n.value) {
                Some(Value::String(v)) if !python_strip(v).is_empty() => Some(v.clone()),
                _ => {
                    f.problems.push((
                        rule.offset,
                        format!("rules[{i}] needs a `value`: the literal it forbids, a non-empty string"),
                    ));
                    None
                }
            };
            let selectors = |key: &str, list: Option<(&Node, &Vec<Node>)>, problems: &mut Vec<(usize, String)>| {
                let (_, entries) = list?;
                let mut out = Vec::with_capacity(entries.len());
                for (j, e) in entries.iter().enumerate() {
                    match &e.value {
                        Value::String(p) => match selector_problem(p) {
                            None => out.push(p.clone()),
                            Some(why) => {
                                problems.push((e.offset, format!("rules[{i}].{key}[{j}] {}: {why}", quoted(p))))
                            }
                        },
                        other => problems.push((
                            e.offset,
                            format!("rules[{i}].{key}[{j}] must be a string, found {}", other.type_name()),
                        )),
                    }
                }
                Some(out)
            };
            let before = f.problems.len();
            let include = selectors("include_paths", lists[0], &mut f.problems);
            let exclude = selectors("exclude_paths", lists[1], &mut f.problems).unwrap_or_default();
            if let (Some(include), Some((n, _))) = (&include, lists[0]) {
                if include.is_empty() && f.problems.len() == before {
                    f.problems.push((n.offset, format!("rules[{i}].include_paths is empty: give at least one path selector, or leave it out for a rule that applies everywhere")));
                }
            }
            if rule.get("include_paths").is_none() && !exclude.is_empty() {
                let (n, _) = lists[1].expect("exclude_paths was read");
                f.problems.push((n.offset, format!("rules[{i}].exclude_paths needs include_paths: an exclusion narrows the paths a rule is limited to")));
            }
            bad |= f.problems.len() > before;
            if let (Some(value), false) = (value, bad) {
                out.push(Rule { value, include_paths: include, exclude_paths: exclude });
            }
        }
        out
    }
}

/// A member name as quoted in a message: escaped, and cut when long, so
/// that a hostile name can neither flood the output nor forge a line of it.
fn quote(name: &str) -> String {
    const SHOWN: usize = 60;
    let escaped: String = name.escape_debug().collect();
    if escaped.chars().count() <= SHOWN {
        return format!("\"{escaped}\"");
    }
    let head: String = escaped.chars().take(SHOWN).collect();
    format!("\"{head}...\" ({} bytes)", name.len())
}
