/*!
A seeded generator of memory texts for the test that the fast and tolerant
paths agree, written here so that the test does not depend on `synth` (which
makes realistic corpora for benchmarks, all of them well-formed).

It aims at the corners instead: both top-level shapes, every JSON type in
every field the mapping reads (and in those it ignores), strings with
escapes and non-ASCII characters, member names written with escapes,
repeated members (in records, in the values they hold, in `rules` and at
the top: a second `decisions`), every status, duplicate ids (also spelt differently),
invalid globs, odd whitespace, deep nesting and, in corpora that are not
`clean`, malformed fields and broken syntax.

A `clean` corpus holds nothing the tolerant path would report other than
duplicate ids (no repeated member, which is a warning), so the fast path
must take it. The generator deliberately
does not know what the loaders make of a text: the test compares them.
*/

/// splitmix64: small, seeded, good enough to pick cases.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A JSON value as text to be laid out: leaves are written as they are.
enum J {
    Raw(String),
    List(Vec<J>),
    /// Member names are written as they are too (quotes and escapes included).
    Obj(Vec<(String, J)>),
}

fn raw(s: &str) -> J {
    J::Raw(s.to_string())
}

/// Pieces of string contents, as JSON source text.
const PIECES: [&str; 24] = [
    "payments",
    "ledger",
    "store",
    "Zoë",
    "日本",
    "😀",
    " ",
    " ",
    "-",
    "src",
    "how",
    "we",
    "€",
    r#"\""#,
    r"\\",
    r"\/",
    r"\n",
    r"\t",
    r"\u00e9",
    r"\u20ac",
    r"\ud83d\ude00",
    r"\u0041",
    r"\b\f\r",
    "\u{7f}",
];

const TYPES: [&str; 7] = ["decision", "rule", "anti_pattern", "preference", "fact", "Rule", "ad\\u0072"];
const STATUSES: [&str; 10] =
    ["accepted", "proposed", "Superseded", "DEPRECATED", "rejected", "retired", " Retired ", "active", "", "retire"];
const GLOBS: [&str; 8] = ["src/", "src/**/*.rs", "web/{app,lib}/*.ts", "v[12]/x", "**/test_*.py", "a\\/b/", "*", "é/"];
const BAD_GLOBS: [&str; 4] = ["src/[ab", "", "a/{b", "x}/y"];

struct Gen<'r> {
    rng: &'r mut Rng,
    clean: bool,
    /// How many ids there are to pick from: fewer than records, duplicates.
    ids: usize,
}

impl Gen<'_> {
    /// True with chance 1/n, never in a clean corpus.
    fn flaw(&mut self, n: usize) -> bool {
        !self.clean && self.rng.one_in(n)
    }

    /// A string that is not blank: a word, then any pieces.
    fn text(&mut self) -> String {
        let mut s = String::from("\"");
        s.push_str(self.rng.pick(&PIECES[..6]));
        for _ in 0..self.rng.below(5) {
            s.push_str(self.rng.pick(&PIECES));
        }
        s.push('"');
        s
    }

    fn id(&mut self) -> String {
        let n = self.rng.below(self.ids);
        match self.rng.below(8) {
            0 => format!("\"d\\u002d{n}\""),
            1 => format!("\"déc-{n}\""),
            _ => format!("\"d-{n}\""),
        }
    }

    /// Any value at all, nested up to `depth`.
    fn any(&mut self, depth: usize) -> J {
        match self.rng.below(if depth == 0 { 5 } else { 7 }) {
            0 => raw("null"),
            1 => raw(self.rng.pick(&["true", "false"])),
            2 => raw(self.rng.pick(&["0", "-1.5e3", "12", "1E+2", "3.25"])),
            3 | 4 => J::Raw(self.text()),
            5 => J::List((0..self.rng.below(4)).map(|_| self.any(depth - 1)).collect()),
            _ => {
                let mut members: Vec<(String, J)> =
                    (0..self.rng.below(4)).map(|i| (format!("\"k{i}\""), self.any(depth - 1))).collect();
                if !members.is_empty() && self.flaw(10) {
                    // A repeated member, deep inside a record.
                    members.push((format!("\"k{}\"", self.rng.below(members.len())), self.any(depth - 1)));
                }
                J::Obj(members)
            }
        }
    }

    /// A value that is not a string (nor null).
    fn not_a_string(&mut self) -> J {
        loop {
            let v = self.any(2);
            if !matches!(&v, J::Raw(s) if s.starts_with('"') || s == "null") {
                return v;
            }
        }
    }

    /// A required string: present, a non-blank string in a clean corpus.
    fn required(&mut self, value: String) -> Option<J> {
        if self.flaw(12) {
            return match self.rng.below(4) {
                0 => None,
                1 => Some(raw("null")),
                2 => Some(raw(self.rng.pick(&["\"\"", "\"  \"", "\"\\t\""]))),
                _ => Some(self.not_a_string()),
            };
        }
        Some(J::Raw(value))
    }

    /// An optional string: absent, null or a string.
    fn optional(&mut self, value: String) -> Option<J> {
        if self.flaw(12) {
            return Some(self.not_a_string());
        }
        match self.rng.below(4) {
            0 => None,
            1 => Some(raw("null")),
            _ => Some(J::Raw(value)),
        }
    }

    /// A list of strings; with `one_ok`, a single string will do.
    fn list(&mut self, one_ok: bool, globs: bool) -> Option<J> {
        let item = |g: &mut Gen<'_>| {
            if globs {
                let bad = g.flaw(6);
                J::Raw(format!("\"{}\"", if bad { g.rng.pick(&BAD_GLOBS) } else { g.rng.pick(&GLOBS) }))
            } else {
                J::Raw(g.text())
            }
        };
        if self.flaw(12) {
            return Some(match self.rng.below(3) {
                0 => item(self),
                1 => J::List(vec![item(self), self.not_a_string()]),
                _ => self.not_a_string(),
            });
        }
        match self.rng.below(6) {
            0 => None,
            1 => Some(raw("null")),
            2 if one_ok => Some(item(self)),
            _ => Some(J::List((0..self.rng.below(4)).map(|_| item(self)).collect())),
        }
    }

    /// `rules` of a decision record.
    fn rules(&mut self) -> Option<J> {
        let rule = |g: &mut Gen<'_>| {
            if g.flaw(8) {
                return match g.rng.below(4) {
                    0 => J::Obj(vec![("\"type\"".into(), J::Raw(g.text()))]),
                    1 => J::Obj(vec![("\"value\"".into(), raw("\"x\""))]),
                    2 => J::Obj(vec![("\"type\"".into(), g.not_a_string())]),
                    _ => g.not_a_string(),
                };
            }
            let mut members = vec![("\"type\"".to_string(), raw("\"FORBID_LITERAL\""))];
            // Profile mneme refuses a rule without a value, as Mneme does.
            if !g.flaw(2) {
                members.push(("\"value\"".into(), J::Raw(g.text())));
            }
            if !g.clean && g.rng.one_in(4) {
                // Path selectors, well-formed or not, lists or not.
                let key = g.rng.pick(&["\"include_paths\"", "\"exclude_paths\""]);
                let value = match g.rng.below(5) {
                    0 => raw("\"src/**\""),
                    1 => raw("[]"),
                    2 => raw("[\"/abs\", \"a/../b\"]"),
                    _ => raw("[\"src/**\", \"services/*.py\"]"),
                };
                members.push((key.to_string(), value));
            }
            if g.flaw(4) {
                // A repeated `type`: the last one counts, with a warning.
                members.insert(0, ("\"type\"".into(), g.any(1)));
            }
            J::Obj(members)
        };
        if self.flaw(15) {
            return Some(self.not_a_string());
        }
        match self.rng.below(4) {
            0 => None,
            1 => Some(raw("null")),
            _ => Some(J::List((0..self.rng.below(3)).map(|_| rule(self)).collect())),
        }
    }

    /// A record of `decisions` (`in_decisions`), of `items` or of a top-level array.
    fn record(&mut self, in_decisions: bool) -> J {
        if self.flaw(25) {
            return self.not_a_string();
        }
        let mut m: Vec<(&str, Option<J>)> = Vec::new();
        let id = self.id();
        m.push(("id", self.required(id)));
        let decision_record = in_decisions && self.rng.below(3) > 0;
        if decision_record {
            let text = self.text();
            m.push(("decision", self.required(text)));
            let text = self.text();
            m.push(("rationale", self.optional(text)));
            m.push(("scope", self.list(false, false)));
            m.push(("constraints", self.list(false, false)));
            m.push(("rules", self.rules()));
            // Not read for a decision record: any type will do.
            for key in ["title", "type", "content", "tags", "constraint"] {
                if self.rng.one_in(4) {
                    m.push((key, Some(self.any(2))));
                }
            }
        } else {
            if in_decisions && self.rng.one_in(3) {
                m.push(("decision", Some(raw("null"))));
            }
            let ty = format!("\"{}\"", self.rng.pick(&TYPES));
            let ty = if in_decisions && self.rng.one_in(3) { None } else { self.required(ty) };
            m.push(("type", ty));
            let text = self.text();
            m.push(("title", self.required(text)));
            let text = self.text();
            m.push(("content", self.optional(text)));
            m.push(("constraint", self.list(true, false)));
            m.push(("tags", self.list(false, false)));
            m.push(("scope", self.list(true, true)));
            // Not read for an item: any type will do.
            for key in ["rationale", "constraints", "rules"] {
                if self.rng.one_in(5) {
                    m.push((key, Some(self.any(2))));
                }
            }
            if !in_decisions && self.rng.one_in(5) {
                m.push(("decision", Some(self.any(1))));
            }
        }
        m.push(("anti_patterns", self.list(false, false)));
        let status = format!("\"{}\"", self.rng.pick(&STATUSES));
        m.push(("status", self.optional(status)));
        let mut members: Vec<(String, J)> =
            m.into_iter().filter_map(|(k, v)| v.map(|v| (format!("\"{k}\""), v))).collect();
        let mut keys = vec!["\"created_at\"", "\"extra\"", "\"examples\"", "\"Id\"", "\"\\u00e9t\""];
        // The fast path gives up on member names written with escapes.
        keys.truncate(if self.clean { 4 } else { 5 });
        for _ in 0..self.rng.below(3) {
            let key = keys[self.rng.below(keys.len())];
            if self.clean {
                // Each once: a repeated member is a warning.
                keys.retain(|&k| k != key);
            }
            let deep = if self.clean { 3 } else { 5 };
            members.push((key.to_string(), self.any(deep)));
        }
        if self.rng.one_in(30) {
            let depth = if self.clean { 20 } else { 90 + self.rng.below(45) };
            members.push(("\"nested\"".into(), nest(depth)));
        }
        if self.flaw(15) && !members.is_empty() {
            // A repeated member, or one whose name is written with escapes.
            let i = self.rng.below(members.len());
            let key = members[i].0.clone();
            if self.rng.one_in(2) {
                let value = self.any(1);
                members.push((key, value));
            } else if let Some(c) = key.chars().nth(1).filter(char::is_ascii_alphanumeric) {
                members[i].0 = format!("\"\\u{:04x}{}", c as u32, &key[2..]);
            }
        }
        shuffle(self.rng, &mut members);
        J::Obj(members)
    }

    fn records(&mut self, n: usize, in_decisions: bool) -> J {
        J::List((0..n).map(|_| self.record(in_decisions)).collect())
    }

    fn root(&mut self, records: usize) -> J {
        if self.flaw(20) {
            return self.any(1);
        }
        if self.rng.one_in(4) {
            return self.records(records, false);
        }
        let in_decisions = self.rng.below(records + 1);
        let mut members = Vec::new();
        let (with_decisions, with_items) = match self.rng.below(4) {
            0 => (true, false),
            1 => (false, true),
            _ => (true, true),
        };
        let mut top = |g: &mut Gen<'_>, key: &str, n: usize, in_d: bool, wanted: bool| {
            if g.flaw(15) {
                members.push((key.to_string(), g.not_a_string()));
            } else if wanted {
                let value = if n == 0 && g.rng.one_in(3) { raw("null") } else { g.records(n, in_d) };
                members.push((key.to_string(), value));
            }
        };
        top(self, "\"decisions\"", if with_items { in_decisions } else { records }, true, with_decisions);
        top(self, "\"items\"", if with_decisions { records - in_decisions } else { records }, false, with_items);
        match self.rng.below(3) {
            0 => {}
            1 => members.push(("\"meta\"".into(), if self.flaw(4) { self.not_a_string() } else { self.meta() })),
            _ => members.push(("\"meta\"".into(), raw("null"))),
        }
        if self.rng.one_in(3) {
            members.push(("\"examples\"".into(), self.any(3)));
        }
        if !members.is_empty() && self.flaw(8) {
            // A repeated top-level member: a second `decisions` hides the first.
            let (key, _) = &members[self.rng.below(members.len())];
            let key = key.clone();
            let n = self.rng.below(4);
            let value = if key == "\"meta\"" { self.meta() } else { self.records(n, key == "\"decisions\"") };
            members.push((key, value));
        }
        shuffle(self.rng, &mut members);
        J::Obj(members)
    }

    fn meta(&mut self) -> J {
        J::Obj(vec![("\"name\"".into(), J::Raw(self.text())), ("\"seed\"".into(), raw("7"))])
    }
}

/// Lists nested `depth` deep.
fn nest(depth: usize) -> J {
    (0..depth).fold(raw("1"), |inner, _| J::List(vec![inner]))
}

fn shuffle<T>(rng: &mut Rng, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// Whitespace between tokens: compact, pretty, or anything JSON allows.
#[derive(Clone, Copy)]
enum Layout {
    Compact,
    Pretty,
    Odd,
}

fn space(rng: &mut Rng, layout: Layout, out: &mut String, indent: usize) {
    match layout {
        Layout::Compact => {}
        Layout::Pretty => {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', indent * 2));
        }
        Layout::Odd => {
            for _ in 0..rng.below(3) {
                out.push_str(rng.pick(&[" ", "\t", "\n", "\r\n", "  "]));
            }
        }
    }
}

fn write(j: &J, rng: &mut Rng, layout: Layout, out: &mut String, indent: usize) {
    match j {
        J::Raw(s) => out.push_str(s),
        J::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(rng, layout, out, indent + 1);
                write(item, rng, layout, out, indent + 1);
            }
            if !items.is_empty() {
                space(rng, layout, out, indent);
            }
            out.push(']');
        }
        J::Obj(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(rng, layout, out, indent + 1);
                out.push_str(key);
                if matches!(layout, Layout::Odd) {
                    space(rng, layout, out, 0);
                }
                out.push(':');
                space(rng, Layout::Odd, out, 0);
                write(value, rng, layout, out, indent + 1);
            }
            if !members.is_empty() {
                space(rng, layout, out, indent);
            }
            out.push('}');
        }
    }
}

/// Breaks the syntax of `text` somewhere.
fn break_syntax(rng: &mut Rng, text: &mut String) {
    let at = |rng: &mut Rng, text: &str| {
        let mut i = rng.below(text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    match rng.below(6) {
        0 => text.insert(0, '\u{feff}'),
        1 => text.push_str(" x"),
        2 => {
            let i = at(rng, text);
            text.truncate(i);
        }
        3 => {
            if let Some(i) = text.rfind([']', '}']) {
                text.insert(i, ',');
            }
        }
        4 => {
            if let Some(i) = text.find(',') {
                text.remove(i);
            }
        }
        _ => {
            let i = at(rng, text);
            text.insert_str(i, rng.pick(&["{", "]", "\"", ":", "01", "\\ud800"]));
        }
    }
}

/// A memory text of about `records` records.
pub(super) fn corpus(rng: &mut Rng, records: usize, clean: bool) -> String {
    let mut g = Gen { rng, clean, ids: records.max(1) * 3 / 4 + 1 };
    let root = g.root(records);
    let layout = g.rng.pick(&[Layout::Compact, Layout::Pretty, Layout::Odd]);
    let mut text = String::new();
    write(&root, g.rng, layout, &mut text, 0);
    if !clean && g.rng.one_in(10) {
        break_syntax(g.rng, &mut text);
    }
    text
}
