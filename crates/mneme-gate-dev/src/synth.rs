/*!
Seeded synthetic memories and scenario suites.

Benchmarks and performance tests need memories and suites far larger than any
hand-written fixture, and they need the *same* ones on every machine: this
module generates a `project_memory.json` (see `spec/retrieval.md` §1) and a
suite in either layout of `spec/scenarios.md` from a seed and a few sizes.
The output is a pure function of those inputs, byte for byte; it uses its own
SplitMix64 generator and integer arithmetic for every random choice, and never
iterates a hash map.

The text is made to look like real text to a tokenizer, not to a reader:
pronounceable pseudo-words whose frequencies follow Zipf's law (the word of
rank `r` is drawn with weight `1/r`, and frequent words are shorter), sprinkled
with English function words so that stopword and short-token filters have work
to do. Records share topic words, so a task hits several records and ranking
matters.

It does not check that a generated suite passes: tasks are built from the
expected records' words (and scoped records get a file path their globs
match), which makes retrieval likely, not certain.
*/

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Version of the generator; recorded in the memory's `meta.generator`.
///
/// Bump it whenever a change alters the bytes generated for a given spec
/// (the `output_is_pinned` test will insist).
pub const SYNTH_VERSION: &str = "mneme-gate.synth/1";

/// A SplitMix64 generator: small, fast, and the same on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// A generator for one named stream of `seed`, independent of the others.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut mix = SplitMix64::new(seed ^ stream.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        SplitMix64::new(mix.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-high.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// An index in `0..n` (`n > 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.index(hi - lo + 1)
    }

    /// A float in `[0, 1)` with 53 random bits (exact on every platform).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// One word of a non-empty list.
    pub fn pick_str(&mut self, items: &[&'static str]) -> &'static str {
        items[self.index(items.len())]
    }

    /// Shuffles in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.index(i + 1);
            items.swap(i, j);
        }
    }
}

/// Words that must never be generated: English function words used as filler
/// and the words the `mneme` profile drops.
const RESERVED: &[&str] = &[
    "a", "add", "an", "and", "are", "be", "by", "for", "from", "get", "in", "is", "it", "must", "no", "not", "of",
    "on", "or", "run", "set", "should", "the", "to", "use", "with", "when", "into", "only", "never", "always", "per",
    "via", "so", "that", "this", "we", "new",
];

/// Function words sprinkled into running text (most are stopwords).
const FILLER: &[&str] = &[
    "the", "the", "the", "and", "and", "of", "of", "to", "to", "a", "in", "for", "with", "is", "must", "be", "on",
    "from", "by", "not", "that", "this", "when", "into", "only", "use",
];

const ONSETS: &[&str] = &[
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "cr", "dr", "st",
    "tr", "pl", "gr", "sh", "ch", "th", "qu", "sl",
];
const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "a", "e", "i", "o", "a", "e", "ai", "ea", "ou", "y"];
const CODAS: &[&str] = &["n", "r", "s", "l", "t", "m", "x", "d", "nd", "st", "rk", "ck", "ng", "sh"];

/// A vocabulary of pronounceable pseudo-words with Zipf-distributed frequency.
#[derive(Debug, Clone)]
pub struct Vocabulary {
    words: Vec<String>,
    /// `cumulative[r]` is the total weight of ranks `0..=r`; rank `r` weighs
    /// `2^40 / (r + 1)`.
    cumulative: Vec<u64>,
}

impl Vocabulary {
    /// `size` distinct words (at least 1) drawn from `seed`.
    pub fn new(size: usize, seed: u64) -> Self {
        let size = size.max(1);
        let mut rng = SplitMix64::stream(seed, 1);
        let mut seen = std::collections::HashSet::with_capacity(size);
        let mut words = Vec::with_capacity(size);
        while words.len() < size {
            let rank = words.len();
            // Zipf's law of abbreviation: frequent words are shorter.
            let syllables = match rank {
                0..=99 => 1,
                100..=999 => 1 + rng.index(2),
                _ => 2 + rng.index(2),
            };
            let mut word = String::new();
            for i in 0..syllables {
                word.push_str(rng.pick_str(ONSETS));
                word.push_str(rng.pick_str(VOWELS));
                if syllables == 1 || (i + 1 == syllables && rng.chance(0.5)) {
                    word.push_str(rng.pick_str(CODAS));
                }
            }
            // Rare words are at least 4 letters, so the `mneme` profile
            // (tokens of 4 or more) keeps every topic word.
            let min_len = if rank < 100 { 3 } else { 4 };
            if word.len() < min_len || RESERVED.contains(&word.as_str()) || !seen.insert(word.clone()) {
                continue;
            }
            words.push(word);
        }
        let mut cumulative = Vec::with_capacity(size);
        let mut total = 0u64;
        for r in 0..size {
            total += (1u64 << 40) / (r as u64 + 1);
            cumulative.push(total);
        }
        Vocabulary { words, cumulative }
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Always false: a vocabulary has at least one word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The word of rank `rank` (0 is the most frequent).
    pub fn word(&self, rank: usize) -> &str {
        &self.words[rank]
    }

    /// A word drawn with weight `1 / (rank + 1)`.
    pub fn sample(&self, rng: &mut SplitMix64) -> &str {
        self.sample_ranks(rng, 0, self.len())
    }

    /// A word of rank in `lo..hi` (clamped to the vocabulary), drawn with the
    /// same Zipf weights restricted to that range.
    pub fn sample_ranks(&self, rng: &mut SplitMix64, lo: usize, hi: usize) -> &str {
        let hi = hi.min(self.len()).max(1);
        let lo = lo.min(hi - 1);
        let base = if lo == 0 { 0 } else { self.cumulative[lo - 1] };
        let x = base + rng.below(self.cumulative[hi - 1] - base);
        let rank = self.cumulative[lo..hi].partition_point(|&c| c <= x) + lo;
        &self.words[rank]
    }
}

/// What a generated memory looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSpec {
    /// Records in the retrieval pool under profile `default`: active decision
    /// records plus active items of type `decision`, `rule` or `anti_pattern`.
    pub decisions: usize,
    /// The seed; the same seed and sizes give the same bytes.
    pub seed: u64,
    /// Share of pool records written as Mneme v2 decision records
    /// (`decisions[]` with a `decision` field); the rest are items.
    pub decision_record_share: f64,
    /// Share of item records with a path-glob `scope`.
    pub scoped_share: f64,
    /// Extra `preference` / `fact` items, as a share of `decisions`.
    pub noise_share: f64,
    /// Extra retired records (`superseded`, `deprecated`, ...), as a share of
    /// `decisions`.
    pub retired_share: f64,
    /// Number of distinct words (a few hundred at least, so that topic words
    /// come from the rarer, longer part of the vocabulary).
    pub vocabulary: usize,
}

impl Default for CorpusSpec {
    fn default() -> Self {
        CorpusSpec {
            decisions: 200,
            seed: 0,
            decision_record_share: 0.25,
            scoped_share: 0.4,
            noise_share: 0.1,
            retired_share: 0.03,
            vocabulary: 3000,
        }
    }
}

impl CorpusSpec {
    /// The default spec with `decisions` pool records and `seed`.
    pub fn new(decisions: usize, seed: u64) -> Self {
        CorpusSpec { decisions, seed, ..CorpusSpec::default() }
    }
}

/// Share of a count, rounded to the nearest whole number.
fn share(count: usize, share: f64) -> usize {
    (count as f64 * share.clamp(0.0, 1e6)).round() as usize
}

/// The type of a generated record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SynthKind {
    /// A Mneme v2 decision record in `decisions[]`.
    DecisionRecord,
    /// An item of type `decision`.
    Decision,
    /// An item of type `rule`.
    Rule,
    /// An item of type `anti_pattern`.
    AntiPattern,
    /// An item of type `preference` (never in the pool).
    Preference,
    /// An item of type `fact` (never in the pool).
    Fact,
}

impl SynthKind {
    /// The item `type`, or `None` for a decision record.
    pub fn item_type(self) -> Option<&'static str> {
        match self {
            SynthKind::DecisionRecord => None,
            SynthKind::Decision => Some("decision"),
            SynthKind::Rule => Some("rule"),
            SynthKind::AntiPattern => Some("anti_pattern"),
            SynthKind::Preference => Some("preference"),
            SynthKind::Fact => Some("fact"),
        }
    }

    fn id_prefix(self) -> &'static str {
        match self {
            SynthKind::DecisionRecord => "dec",
            SynthKind::Decision => "adr",
            SynthKind::Rule => "rule",
            SynthKind::AntiPattern => "anti",
            SynthKind::Preference => "pref",
            SynthKind::Fact => "fact",
        }
    }
}

/// One generated record, with what a suite needs to know about it.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthRecord {
    pub id: String,
    pub kind: SynthKind,
    /// `superseded`, `deprecated`, ... for retired records.
    pub status: Option<String>,
    pub title: String,
    pub content: String,
    pub constraints: Vec<String>,
    pub anti_patterns: Vec<String>,
    pub tags: Vec<String>,
    /// Path globs (items only).
    pub scope: Vec<String>,
    /// A path that the first glob of `scope` matches.
    pub sample_path: Option<String>,
    /// The topic words the record is about.
    pub key_words: Vec<String>,
    /// A dependency an answer that ignores this record would add.
    pub forbidden_dependency: String,
    /// A folder an answer that ignores this record would write into.
    pub forbidden_path: String,
    /// Whether `constraint` is written as a string rather than a list.
    constraint_as_string: bool,
    /// Whether `scope` is written as a string rather than a list.
    scope_as_string: bool,
    forbid_literal: Option<String>,
    priority: &'static str,
    created_at: String,
}

impl SynthRecord {
    /// In the retrieval pool under profile `default`.
    pub fn in_default_pool(&self) -> bool {
        self.status.is_none() && !matches!(self.kind, SynthKind::Preference | SynthKind::Fact)
    }

    /// In the retrieval pool under profile `mneme` (decision records, rules
    /// and anti-patterns).
    pub fn in_mneme_pool(&self) -> bool {
        self.in_default_pool() && self.kind != SynthKind::Decision
    }
}

/// A generated memory.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub spec: CorpusSpec,
    pub vocabulary: Vocabulary,
    /// Every record in file order: decision records first, then items.
    pub records: Vec<SynthRecord>,
}

/// Generates the memory described by `spec`.
pub fn corpus(spec: &CorpusSpec) -> Corpus {
    let vocabulary = Vocabulary::new(spec.vocabulary, spec.seed);
    let mut rng = SplitMix64::stream(spec.seed, 2);

    let n_records = share(spec.decisions, spec.decision_record_share).min(spec.decisions);
    let n_items = spec.decisions - n_records;
    let n_noise = share(spec.decisions, spec.noise_share);
    let n_retired = share(spec.decisions, spec.retired_share);
    let n_retired_records = n_retired / 3;

    // (kind, retired) slots in file order.
    let mut head: Vec<(SynthKind, bool)> = Vec::with_capacity(n_records + n_retired_records);
    head.extend((0..n_records).map(|_| (SynthKind::DecisionRecord, false)));
    head.extend((0..n_retired_records).map(|_| (SynthKind::DecisionRecord, true)));
    rng.shuffle(&mut head);
    let mut tail: Vec<(SynthKind, bool)> = Vec::new();
    for i in 0..n_items + (n_retired - n_retired_records) {
        let kind = match rng.index(20) {
            0..=7 => SynthKind::Decision,
            8..=14 => SynthKind::Rule,
            _ => SynthKind::AntiPattern,
        };
        tail.push((kind, i >= n_items));
    }
    for _ in 0..n_noise {
        let kind = if rng.chance(0.5) { SynthKind::Preference } else { SynthKind::Fact };
        tail.push((kind, false));
    }
    rng.shuffle(&mut tail);

    let total = head.len() + tail.len();
    let width = total.to_string().len().max(4);
    let mut writer = RecordWriter { vocabulary: &vocabulary, rng, scoped_share: spec.scoped_share };
    let records = head
        .into_iter()
        .chain(tail)
        .enumerate()
        .map(|(i, (kind, retired))| {
            let id = format!("{}-{:0width$}", kind.id_prefix(), i + 1);
            writer.record(id, kind, retired)
        })
        .collect();

    Corpus { spec: spec.clone(), vocabulary, records }
}

/// The `project_memory.json` text of the memory described by `spec`.
pub fn corpus_json(spec: &CorpusSpec) -> String {
    corpus(spec).to_json()
}

struct RecordWriter<'v> {
    vocabulary: &'v Vocabulary,
    rng: SplitMix64,
    scoped_share: f64,
}

/// Ranks topic words are drawn from: not the commonest (short) words.
const TOPIC_RANKS: (usize, usize) = (100, usize::MAX);

impl RecordWriter<'_> {
    fn common(&mut self) -> String {
        self.vocabulary.sample(&mut self.rng).to_string()
    }

    fn topic(&mut self) -> String {
        self.vocabulary.sample_ranks(&mut self.rng, TOPIC_RANKS.0, TOPIC_RANKS.1).to_string()
    }

    /// A sentence of `lo..=hi` words mixing common words, key words and filler.
    fn sentence(&mut self, keys: &[String], lo: usize, hi: usize) -> String {
        let n = self.rng.range(lo, hi);
        let mut out = String::new();
        for i in 0..n {
            if i > 0 {
                out.push(' ');
            }
            let roll = self.rng.index(100);
            if roll < 30 {
                out.push_str(self.rng.pick_str(FILLER));
            } else if roll < 42 {
                out.push_str(self.rng.pick(keys).as_str());
            } else {
                let w = self.common();
                out.push_str(&w);
            }
        }
        capitalize(&mut out);
        out.push('.');
        out
    }

    fn record(&mut self, id: String, kind: SynthKind, retired: bool) -> SynthRecord {
        let k0 = self.topic();
        let k1 = self.topic();
        let z = self.common();
        let keys = vec![k0.clone(), k1.clone()];

        let title_templates: &[&str] = match kind {
            SynthKind::DecisionRecord | SynthKind::Decision => &[
                "Use {k0} for {k1} {z}",
                "{K0} goes through the {k1} {z}",
                "Keep {k0} {k1} in {z}",
                "Store {k1} in {k0} only",
                "One {k0} per {k1}",
                "{K1} {z} must be {k0}",
            ],
            SynthKind::Rule => &[
                "Keep {k0} {k1} {z}",
                "Always {z} {k0} before {k1}",
                "{K0} must stay {k1}",
                "Route {k1} through the {k0} {z}",
            ],
            SynthKind::AntiPattern => {
                &["{K0} {k1} in {z}", "Calling {k0} from {k1}", "Bypassing the {k0} {k1} {z}", "Ad hoc {k1} {k0}"]
            }
            SynthKind::Preference => &["Prefer {k0} over {k1}", "{K0} first for {z}"],
            SynthKind::Fact => &["{K0} {k1}", "The {z} {k0} is {k1}"],
        };
        let template = *self.rng.pick(title_templates);
        let title = fill(template, &k0, &k1, &z);

        let dep = format!("{}-{}", k0, self.common());
        let path = format!("{k1}/");

        let n_constraints = match kind {
            SynthKind::Preference | SynthKind::Fact => self.rng.index(2),
            _ => self.rng.range(1, 3),
        };
        let mut constraints = Vec::with_capacity(n_constraints);
        let first_form = self.rng.index(5);
        for i in 0..n_constraints {
            let z = self.common();
            let z2 = self.common();
            let c = match (first_form + i) % 5 {
                0 => format!("no {k0} in {z}"),
                1 => format!("{k1} only via {k0}_{z}"),
                2 => format!("never call {z} from {k1}"),
                3 => format!("{z} {z2} must use {k0}"),
                _ => format!("keep {k1} {z} out of {z2}"),
            };
            constraints.push(c);
        }

        let n_anti = match kind {
            SynthKind::AntiPattern => self.rng.range(1, 3),
            SynthKind::Preference | SynthKind::Fact => 0,
            _ => self.rng.index(3),
        };
        let mut anti_patterns = Vec::with_capacity(n_anti);
        for i in 0..n_anti {
            let z = self.common();
            let a = match i {
                0 => format!("add {dep}"),
                1 => format!("introduce {k1} {z}"),
                _ => format!("write {z} under {path}"),
            };
            anti_patterns.push(a);
        }

        let n_sentences = self.rng.range(1, 3);
        let mut content = String::new();
        for i in 0..n_sentences {
            if i > 0 {
                content.push(' ');
            }
            let s = self.sentence(&keys, 6, 18);
            content.push_str(&s);
        }

        let n_tags = self.rng.range(1, 4);
        let mut tags: Vec<String> = Vec::with_capacity(n_tags);
        tags.push(k0.clone());
        while tags.len() < n_tags {
            let tag = match self.rng.index(3) {
                0 => format!("{}-{}", self.common(), k1),
                1 => k1.clone(),
                _ => self.vocabulary.sample_ranks(&mut self.rng, 0, 200).to_string(),
            };
            if !tags.contains(&tag) {
                tags.push(tag);
            } else {
                break;
            }
        }

        let is_item = kind != SynthKind::DecisionRecord;
        let (scope, sample_path) = if is_item && self.rng.chance(self.scoped_share) {
            let (first, sample) = self.glob(&k0, &k1);
            let mut globs = vec![first];
            if self.rng.chance(0.25) {
                let (second, _) = self.glob(&k1, &k0);
                if !globs.contains(&second) {
                    globs.push(second);
                }
            }
            (globs, Some(sample))
        } else {
            (Vec::new(), None)
        };
        let scope_as_string = scope.len() == 1 && self.rng.chance(0.5);
        let constraint_as_string = constraints.len() == 1 && self.rng.chance(0.5);

        let status = if retired {
            let s = match self.rng.index(10) {
                0..=5 => "superseded",
                6 => "Superseded",
                7 => "deprecated",
                8 => "rejected",
                _ => "retired",
            };
            Some(s.to_string())
        } else {
            None
        };
        let forbid_literal =
            (kind == SynthKind::DecisionRecord && self.rng.chance(0.2)).then(|| format!("import {}", k0));
        let priority = *self.rng.pick(&["high", "medium", "medium", "low"]);
        let created_at = format!("2025-{:02}-{:02}T00:00:00Z", self.rng.range(1, 12), self.rng.range(1, 28));

        SynthRecord {
            id,
            kind,
            status,
            title,
            content,
            constraints,
            anti_patterns,
            tags,
            scope,
            sample_path,
            key_words: keys,
            forbidden_dependency: dep,
            forbidden_path: path,
            constraint_as_string,
            scope_as_string,
            forbid_literal,
            priority,
            created_at,
        }
    }

    /// A path glob about `a` and `b`, and a path it matches.
    fn glob(&mut self, a: &str, b: &str) -> (String, String) {
        let c = self.vocabulary.sample_ranks(&mut self.rng, 0, 300).to_string();
        match self.rng.index(6) {
            0 | 1 => (format!("services/{a}/**"), format!("services/{a}/{b}/{c}.py")),
            2 => {
                let mut component = b.to_string();
                capitalize(&mut component);
                if self.rng.chance(0.3) {
                    ("web/src/**/*.tsx".to_string(), format!("web/src/{a}/{component}.tsx"))
                } else {
                    (format!("web/src/{a}/**/*.tsx"), format!("web/src/{a}/{component}.tsx"))
                }
            }
            3 => (format!("{a}/{b}/"), format!("{a}/{b}/{c}.go")),
            4 => (format!("src/{a}/**/*.{{rs,py}}"), format!("src/{a}/{c}.rs")),
            _ => (format!("**/{a}_*.py"), format!("lib/{c}/{a}_{b}.py")),
        }
    }
}

fn fill(template: &str, k0: &str, k1: &str, z: &str) -> String {
    let mut k0_cap = k0.to_string();
    capitalize(&mut k0_cap);
    let mut k1_cap = k1.to_string();
    capitalize(&mut k1_cap);
    let mut out = template
        .replace("{K0}", &k0_cap)
        .replace("{K1}", &k1_cap)
        .replace("{k0}", k0)
        .replace("{k1}", k1)
        .replace("{z}", z);
    capitalize(&mut out);
    out
}

fn capitalize(s: &mut String) {
    if let Some(first) = s.get(..1) {
        let upper = first.to_ascii_uppercase();
        s.replace_range(..1, &upper);
    }
}

// ---- JSON shapes ----

#[derive(Serialize)]
struct MemoryJson<'a> {
    meta: MetaJson,
    decisions: Vec<DecisionJson<'a>>,
    items: Vec<ItemJson<'a>>,
}

#[derive(Serialize)]
struct MetaJson {
    name: String,
    description: &'static str,
    generator: &'static str,
    seed: u64,
    pool: usize,
}

#[derive(Serialize)]
struct RuleJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    value: &'a str,
}

#[derive(Serialize)]
struct DecisionJson<'a> {
    id: &'a str,
    decision: &'a str,
    rationale: &'a str,
    scope: &'a [String],
    constraints: &'a [String],
    anti_patterns: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rules: Vec<RuleJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    created_at: &'a str,
    updated_at: &'a str,
}

#[derive(Serialize)]
#[serde(untagged)]
enum OneOrMany<'a> {
    One(&'a str),
    Many(&'a [String]),
}

#[derive(Serialize)]
struct ItemJson<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    title: &'a str,
    content: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    constraint: Option<OneOrMany<'a>>,
    tags: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<OneOrMany<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    anti_patterns: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a str>,
    priority: &'static str,
    created_at: &'a str,
}

fn one_or_many(list: &[String], as_string: bool) -> Option<OneOrMany<'_>> {
    match list {
        [] => None,
        [one] if as_string => Some(OneOrMany::One(one)),
        many => Some(OneOrMany::Many(many)),
    }
}

impl Corpus {
    /// Ids of the pool under profile `default`, in pool order.
    pub fn pool_ids(&self) -> Vec<&str> {
        self.records.iter().filter(|r| r.in_default_pool()).map(|r| r.id.as_str()).collect()
    }

    /// The record with `id`.
    pub fn record(&self, id: &str) -> Option<&SynthRecord> {
        self.records.iter().find(|r| r.id == id)
    }

    /// Makes every record small: its title, the first sentence of its
    /// content cut to eight words, its first tag and its scope; no
    /// constraints, anti-patterns or rules. With [`Corpus::to_json_compact`],
    /// the memory-scale benchmark's input (about 200 bytes a record).
    pub fn shrink(&mut self) {
        for r in &mut self.records {
            let first = r.content.split(". ").next().unwrap_or_default();
            let mut short: String = first.split(' ').take(8).collect::<Vec<_>>().join(" ");
            if !short.ends_with('.') {
                short.push('.');
            }
            r.content = short;
            r.constraints.clear();
            r.anti_patterns.clear();
            r.tags.truncate(1);
            r.forbid_literal = None;
        }
    }

    /// The memory as pretty-printed `project_memory.json` text.
    pub fn to_json(&self) -> String {
        self.json(true)
    }

    /// The memory as `project_memory.json` text on one line.
    pub fn to_json_compact(&self) -> String {
        self.json(false)
    }

    fn json(&self, pretty: bool) -> String {
        let mut decisions = Vec::new();
        let mut items = Vec::new();
        for r in &self.records {
            match r.kind.item_type() {
                None => decisions.push(DecisionJson {
                    id: &r.id,
                    decision: &r.title,
                    rationale: &r.content,
                    scope: &r.tags,
                    constraints: &r.constraints,
                    anti_patterns: &r.anti_patterns,
                    rules: r.forbid_literal.iter().map(|value| RuleJson { kind: "FORBID_LITERAL", value }).collect(),
                    status: r.status.as_deref(),
                    created_at: &r.created_at,
                    updated_at: &r.created_at,
                }),
                Some(kind) => items.push(ItemJson {
                    id: &r.id,
                    kind,
                    title: &r.title,
                    content: &r.content,
                    constraint: one_or_many(&r.constraints, r.constraint_as_string),
                    tags: &r.tags,
                    scope: one_or_many(&r.scope, r.scope_as_string),
                    anti_patterns: &r.anti_patterns,
                    status: r.status.as_deref(),
                    priority: r.priority,
                    created_at: &r.created_at,
                }),
            }
        }
        let memory = MemoryJson {
            meta: MetaJson {
                name: format!("synthetic-{}", self.spec.seed),
                description: "Synthetic memory generated by mneme-gate's synth module.",
                generator: SYNTH_VERSION,
                seed: self.spec.seed,
                pool: self.spec.decisions,
            },
            decisions,
            items,
        };
        let mut out = if pretty { serde_json::to_string_pretty(&memory) } else { serde_json::to_string(&memory) }
            .expect("memory serialises");
        out.push('\n');
        out
    }
}

// ---- suites ----

/// What a generated suite looks like.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteSpec {
    /// Number of scenarios.
    pub scenarios: usize,
    /// The seed; the same seed, sizes and corpus give the same bytes.
    pub seed: u64,
    /// Share of ungoverned scenarios (empty `expect`).
    pub ungoverned_share: f64,
    /// Share of governed scenarios expecting two ids.
    pub multi_expect_share: f64,
    /// Share of scenarios with `acceptable` ids.
    pub acceptable_share: f64,
    /// Share of scenarios with a file path. When one expected record is
    /// scoped, the path is one its first glob matches (so the scope filter
    /// keeps it); with no scoped expected record, a random `src/<w>/<w>.py`
    /// at half this share; with two scoped expected records, none.
    pub file_share: f64,
    /// Share of governed scenarios with recorded responses (Layer 2).
    pub responses_share: f64,
    /// Share of those whose governed response still violates (a FAIL).
    pub governed_violation_share: f64,
    /// Draw expected ids only from the `mneme` profile's pool.
    pub mneme_pool: bool,
    /// Scenarios per YAML file in the native layout (at least 1).
    pub scenarios_per_file: usize,
}

impl Default for SuiteSpec {
    fn default() -> Self {
        SuiteSpec {
            scenarios: 100,
            seed: 0,
            ungoverned_share: 0.1,
            multi_expect_share: 0.15,
            acceptable_share: 0.2,
            file_share: 0.5,
            responses_share: 0.3,
            governed_violation_share: 0.0,
            mneme_pool: false,
            scenarios_per_file: 100,
        }
    }
}

impl SuiteSpec {
    /// The default spec with `scenarios` scenarios and `seed`.
    pub fn new(scenarios: usize, seed: u64) -> Self {
        SuiteSpec { scenarios, seed, ..SuiteSpec::default() }
    }
}

/// An assertion of a generated scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SynthAssertion {
    ForbiddenDependency(String),
    ForbiddenPath(String),
    /// A soft `forbidden_text` regex (native layout only).
    SoftForbiddenRegex(String),
}

/// A structured response (`spec/scenarios.md` §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SynthResponse {
    pub refused: bool,
    pub files_changed: Vec<String>,
    pub dependencies_added: Vec<String>,
    pub text: String,
}

impl SynthResponse {
    fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("response serialises");
        out.push('\n');
        out
    }
}

/// One generated scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthScenario {
    pub id: String,
    pub category: String,
    pub description: String,
    pub task: String,
    pub file: Option<String>,
    pub expect: Vec<String>,
    pub acceptable: Vec<String>,
    pub failure_terms: Vec<String>,
    pub assertions: Vec<SynthAssertion>,
    /// `(control, governed)`.
    pub responses: Option<(SynthResponse, SynthResponse)>,
}

/// Generates the scenarios of a suite over `corpus`.
pub fn suite(corpus: &Corpus, spec: &SuiteSpec) -> Vec<SynthScenario> {
    let targets: Vec<&SynthRecord> = corpus
        .records
        .iter()
        .filter(|r| if spec.mneme_pool { r.in_mneme_pool() } else { r.in_default_pool() })
        .collect();
    let mut rng = SplitMix64::stream(spec.seed, 3);
    let width = spec.scenarios.to_string().len().max(4);
    let vocabulary = &corpus.vocabulary;
    let mut out = Vec::with_capacity(spec.scenarios);

    for n in 0..spec.scenarios {
        let governed = !targets.is_empty() && !rng.chance(spec.ungoverned_share);
        let mut expected: Vec<&SynthRecord> = Vec::new();
        if governed {
            expected.push(*rng.pick(&targets));
            if targets.len() > 1 && rng.chance(spec.multi_expect_share) {
                let second = *rng.pick(&targets);
                if second.id != expected[0].id {
                    expected.push(second);
                }
            }
        }
        let mut acceptable = Vec::new();
        if !targets.is_empty() && rng.chance(spec.acceptable_share) {
            for _ in 0..rng.range(1, 2) {
                let id = &rng.pick(&targets).id;
                if !expected.iter().any(|e| &e.id == id) && !acceptable.contains(id) {
                    acceptable.push(id.clone());
                }
            }
        }

        let z = vocabulary.sample(&mut rng).to_string();
        let z2 = vocabulary.sample(&mut rng).to_string();
        let task = match expected.first() {
            Some(first) => {
                let k0 = &first.key_words[0];
                let k1 = &first.key_words[1];
                let mut task = match rng.index(6) {
                    0 => format!("Add a {z} {k0} endpoint that writes {k1} to the {z2}"),
                    1 => format!("Refactor the {k0} {z} so it {z2} the {k1}"),
                    2 => format!("Should we move {k0} {k1} into a new {z} service?"),
                    3 => format!("Fix the {z} bug in {k0} when {k1} is empty"),
                    4 => format!("Introduce {} to speed up {k1} {z}", first.forbidden_dependency),
                    _ => format!("How should we {z} the {k1} for {k0} {z2}?"),
                };
                for extra in expected.iter().skip(1) {
                    let _ = write!(task, " and keep {} {} working", extra.key_words[0], z2);
                }
                task
            }
            None => {
                let z3 = vocabulary.sample(&mut rng);
                format!("Tidy up the {z} {z2} and the {z3} docs")
            }
        };

        let scoped: Vec<&&SynthRecord> = expected.iter().filter(|r| !r.scope.is_empty()).collect();
        let file = match scoped.as_slice() {
            [one] if rng.chance(spec.file_share) => one.sample_path.clone(),
            [] if rng.chance(spec.file_share * 0.5) => {
                let dir = vocabulary.sample_ranks(&mut rng, 0, 300);
                let name = vocabulary.sample(&mut rng);
                Some(format!("src/{dir}/{name}.py"))
            }
            _ => None,
        };

        let category = match expected.first() {
            None => "control",
            Some(r) if !r.scope.is_empty() => "scope",
            Some(r) if r.kind == SynthKind::AntiPattern => "anti_pattern",
            Some(r) if r.kind == SynthKind::Rule => "dependency",
            Some(_) => "architecture",
        }
        .to_string();

        let mut assertions = Vec::new();
        let mut failure_terms = Vec::new();
        for r in &expected {
            assertions.push(SynthAssertion::ForbiddenDependency(r.forbidden_dependency.clone()));
            assertions.push(SynthAssertion::ForbiddenPath(r.forbidden_path.clone()));
            failure_terms.push(r.forbidden_dependency.clone());
        }
        if let Some(first) = expected.first() {
            if rng.chance(0.1) {
                assertions.push(SynthAssertion::SoftForbiddenRegex(format!("(?i)import {}", first.key_words[0])));
            }
        }

        let responses = (!expected.is_empty() && rng.chance(spec.responses_share)).then(|| {
            let deps: Vec<String> = expected.iter().map(|r| r.forbidden_dependency.clone()).collect();
            let files: Vec<String> = expected.iter().map(|r| format!("{}{}.py", r.forbidden_path, z)).collect();
            let control = SynthResponse {
                refused: false,
                files_changed: files.clone(),
                dependencies_added: deps.clone(),
                text: format!("Added {} and wired it into {}.", deps.join(", "), z2),
            };
            let governed = if rng.chance(spec.governed_violation_share) {
                control.clone()
            } else if rng.chance(0.5) {
                SynthResponse {
                    refused: true,
                    files_changed: Vec::new(),
                    dependencies_added: Vec::new(),
                    text: format!("Declined: {} forbids it.", expected[0].id),
                }
            } else {
                SynthResponse {
                    refused: false,
                    files_changed: vec![format!("src/{z}/{z2}.py")],
                    dependencies_added: Vec::new(),
                    text: format!("Kept to {} and changed only {}.", expected[0].id, z),
                }
            };
            (control, governed)
        });

        let slug = match expected.first() {
            Some(r) => format!("{}-{}", r.key_words[0], r.key_words[1]),
            None => format!("control-{z}"),
        };
        let description = match expected.first() {
            Some(r) => format!("{} ({})", r.title, r.id),
            None => "Ungoverned control: nothing in particular must be injected".to_string(),
        };
        out.push(SynthScenario {
            id: format!("scn-{:0width$}-{slug}", n + 1),
            category,
            description,
            task,
            file,
            expect: expected.iter().map(|r| r.id.clone()).collect(),
            acceptable,
            failure_terms,
            assertions,
            responses,
        });
    }
    out
}

/// A YAML scalar in double quotes.
fn yaml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn yaml_list(ids: &[String]) -> String {
    let quoted: Vec<String> = ids.iter().map(|s| yaml_str(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Response file paths of a scenario, relative to its YAML file.
fn response_paths(id: &str) -> (String, String) {
    (format!("responses/{id}-control.json"), format!("responses/{id}-governed.json"))
}

/// One native YAML suite file holding `scenarios`; `with_responses` adds the
/// `responses` keys (pointing at `responses/<id>-*.json`).
pub fn scenarios_yaml(scenarios: &[SynthScenario], with_responses: bool) -> String {
    let mut out = String::from("# Generated by mneme-gate's synth module.\nscenarios:\n");
    for s in scenarios {
        let _ = writeln!(out, "  - id: {}", yaml_str(&s.id));
        let _ = writeln!(out, "    category: {}", yaml_str(&s.category));
        let _ = writeln!(out, "    description: {}", yaml_str(&s.description));
        let _ = writeln!(out, "    task: {}", yaml_str(&s.task));
        if let Some(file) = &s.file {
            let _ = writeln!(out, "    file: {}", yaml_str(file));
        }
        let _ = writeln!(out, "    expect: {}", yaml_list(&s.expect));
        if !s.acceptable.is_empty() {
            let _ = writeln!(out, "    acceptable: {}", yaml_list(&s.acceptable));
        }
        if with_responses && s.responses.is_some() {
            let (control, governed) = response_paths(&s.id);
            out.push_str("    responses:\n");
            let _ = writeln!(out, "      control: {}", yaml_str(&control));
            let _ = writeln!(out, "      governed: {}", yaml_str(&governed));
        }
        if !s.assertions.is_empty() {
            out.push_str("    assertions:\n");
            for a in &s.assertions {
                let _ = match a {
                    SynthAssertion::ForbiddenDependency(v) => {
                        writeln!(out, "      - forbidden_dependency: {}", yaml_str(v))
                    }
                    SynthAssertion::ForbiddenPath(v) => {
                        writeln!(out, "      - forbidden_path: {}", yaml_str(v))
                    }
                    SynthAssertion::SoftForbiddenRegex(v) => {
                        writeln!(out, "      - forbidden_text: {{ regex: {}, severity: soft }}", yaml_str(v))
                    }
                };
            }
        }
    }
    out
}

/// The whole suite as one native YAML file, retrieval and assertions only
/// (no `responses`, which would need files beside it).
pub fn suite_yaml(corpus: &Corpus, spec: &SuiteSpec) -> String {
    scenarios_yaml(&suite(corpus, spec), false)
}

/// The on-disk layout of a generated suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteLayout {
    /// `suite-NNNN.yaml` files of `scenarios_per_file` scenarios, responses
    /// under `responses/`.
    Native,
    /// One Mneme benchmark folder per scenario: `scenario.json`, `query.txt`
    /// and, for scenarios with responses, `with_mneme.json` /
    /// `without_mneme.json`. Mneme scenarios have no file path, so `file` is
    /// dropped.
    MnemeFolders,
}

#[derive(Serialize)]
struct MnemeScenarioJson<'a> {
    name: &'a str,
    category: &'a str,
    description: &'a str,
    expected_failure_terms: &'a [String],
    expected_protected_decision_ids: &'a [String],
    acceptable_decision_ids: &'a [String],
    assertions: Vec<MnemeAssertionJson<'a>>,
}

#[derive(Serialize)]
struct MnemeAssertionJson<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    value: &'a str,
}

/// Writes the suite into `dir` (created if needed) and returns the files
/// written, in the order written.
pub fn write_suite(dir: &Path, corpus: &Corpus, spec: &SuiteSpec, layout: SuiteLayout) -> io::Result<Vec<PathBuf>> {
    let scenarios = suite(corpus, spec);
    let mut written = Vec::new();
    let mut write = |path: PathBuf, text: &str| -> io::Result<()> {
        std::fs::write(&path, text)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))?;
        written.push(path);
        Ok(())
    };
    std::fs::create_dir_all(dir)?;
    match layout {
        SuiteLayout::Native => {
            if scenarios.iter().any(|s| s.responses.is_some()) {
                std::fs::create_dir_all(dir.join("responses"))?;
            }
            let per_file = spec.scenarios_per_file.max(1);
            let files = scenarios.len().div_ceil(per_file);
            let width = files.to_string().len().max(4);
            for (i, chunk) in scenarios.chunks(per_file).enumerate() {
                let name = format!("suite-{:0width$}.yaml", i + 1);
                write(dir.join(name), &scenarios_yaml(chunk, true))?;
                for s in chunk {
                    if let Some((control, governed)) = &s.responses {
                        let (c, g) = response_paths(&s.id);
                        write(dir.join(c), &control.to_json())?;
                        write(dir.join(g), &governed.to_json())?;
                    }
                }
            }
        }
        SuiteLayout::MnemeFolders => {
            for s in &scenarios {
                let folder = dir.join(&s.id);
                std::fs::create_dir_all(&folder)?;
                let assertions = s
                    .assertions
                    .iter()
                    .filter_map(|a| match a {
                        SynthAssertion::ForbiddenDependency(v) => {
                            Some(MnemeAssertionJson { kind: "forbidden_dependency", value: v })
                        }
                        SynthAssertion::ForbiddenPath(v) => {
                            Some(MnemeAssertionJson { kind: "forbidden_path_pattern", value: v })
                        }
                        SynthAssertion::SoftForbiddenRegex(_) => None,
                    })
                    .collect();
                let json = MnemeScenarioJson {
                    name: &s.id,
                    category: &s.category,
                    description: &s.description,
                    expected_failure_terms: &s.failure_terms,
                    expected_protected_decision_ids: &s.expect,
                    acceptable_decision_ids: &s.acceptable,
                    assertions,
                };
                let mut text = serde_json::to_string_pretty(&json).expect("scenario serialises");
                text.push('\n');
                write(folder.join("scenario.json"), &text)?;
                write(folder.join("query.txt"), &format!("{}\n", s.task))?;
                // Mneme requires both text sides in every folder; the JSON
                // sides, when present, are what both tools check.
                match &s.responses {
                    Some((control, governed)) => {
                        write(folder.join("without_mneme.json"), &control.to_json())?;
                        write(folder.join("with_mneme.json"), &governed.to_json())?;
                        write(folder.join("without_mneme.txt"), &format!("{}\n", control.text))?;
                        write(folder.join("with_mneme.txt"), &format!("{}\n", governed.text))?;
                    }
                    None => {
                        let control = if s.failure_terms.is_empty() {
                            "The change edits the file as asked.".to_string()
                        } else {
                            format!("The change adds {}.", s.failure_terms.join(", "))
                        };
                        write(folder.join("without_mneme.txt"), &format!("{control}\n"))?;
                        write(folder.join("with_mneme.txt"), "The change follows the project decisions.\n")?;
                    }
                }
            }
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use std::collections::{BTreeMap, HashSet};

    fn fnv1a(text: &str) -> u64 {
        text.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3))
    }

    /// Benchmarks compare runs over generated inputs: a change to the bytes
    /// must be deliberate. Update the pins and bump `SYNTH_VERSION` together.
    #[test]
    fn output_is_pinned() {
        let c = corpus(&CorpusSpec::new(50, 1));
        let json = c.to_json();
        let yaml = suite_yaml(&c, &SuiteSpec::new(50, 1));
        assert_eq!(SYNTH_VERSION, "mneme-gate.synth/1");
        assert_eq!((json.len(), fnv1a(&json)), (31928, 5329938322566905542), "corpus");
        assert_eq!((yaml.len(), fnv1a(&yaml)), (15909, 15094183168985099362), "suite");
    }

    #[test]
    fn splitmix_known_values() {
        // Reference values of SplitMix64 seeded with 0.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
        let mut r = SplitMix64::new(9);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert!((3..=5).contains(&r.range(3, 5)));
        }
    }

    #[test]
    fn vocabulary_is_distinct_and_zipfian() {
        let v = Vocabulary::new(2000, 7);
        assert_eq!(v.len(), 2000);
        let distinct: HashSet<&str> = (0..v.len()).map(|r| v.word(r)).collect();
        assert_eq!(distinct.len(), 2000);
        for r in 0..v.len() {
            let w = v.word(r);
            assert!(w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase()), "{w}");
            assert!(!RESERVED.contains(&w));
        }
        let mut rng = SplitMix64::new(1);
        let mut counts = vec![0usize; v.len()];
        let index: BTreeMap<&str, usize> = (0..v.len()).map(|r| (v.word(r), r)).collect();
        for _ in 0..200_000 {
            counts[index[v.sample(&mut rng)]] += 1;
        }
        // Rank 1 about twice rank 2, about ten times rank 10 (weights 1/r).
        let ratio2 = counts[0] as f64 / counts[1] as f64;
        let ratio10 = counts[0] as f64 / counts[9] as f64;
        assert!((1.8..2.2).contains(&ratio2), "{ratio2}");
        assert!((8.5..11.5).contains(&ratio10), "{ratio10}");
        // Frequent words are shorter on average.
        let mean_len = |ranks: std::ops::Range<usize>| {
            let n = ranks.len() as f64;
            ranks.map(|r| v.word(r).len()).sum::<usize>() as f64 / n
        };
        assert!(mean_len(0..50) < mean_len(1000..2000));
        for _ in 0..1000 {
            let w = v.sample_ranks(&mut rng, 20, 40);
            assert!((20..40).contains(&index[w]));
        }
    }

    fn small() -> CorpusSpec {
        CorpusSpec::new(300, 42)
    }

    #[test]
    fn corpus_is_deterministic() {
        let a = corpus_json(&small());
        assert_eq!(a, corpus_json(&small()));
        assert_ne!(a, corpus_json(&CorpusSpec::new(300, 43)));
        let c = corpus(&small());
        let s = SuiteSpec::new(200, 5);
        assert_eq!(suite_yaml(&c, &s), suite_yaml(&corpus(&small()), &s));
        assert_ne!(suite_yaml(&c, &s), suite_yaml(&c, &SuiteSpec::new(200, 6)));
    }

    #[test]
    fn shrunk_corpora_are_small_one_line_memories_with_the_same_records() {
        let full = corpus(&CorpusSpec::new(400, 3));
        let mut small = full.clone();
        small.shrink();
        let text = small.to_json_compact();
        assert_eq!(text.find('\n'), Some(text.len() - 1), "one line");
        assert!(text.len() < full.to_json().len() / 2, "{} bytes", text.len());
        assert!(text.len() / small.records.len() < 260, "{} bytes a record", text.len() / small.records.len());
        let memory: Memory = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(memory.decisions.len() + memory.items.len(), full.records.len());
        assert_eq!(small.pool_ids(), full.pool_ids());
        for (s, f) in small.records.iter().zip(&full.records) {
            assert_eq!((&s.id, &s.title, &s.scope, &s.status), (&f.id, &f.title, &f.scope, &f.status));
            assert!(s.constraints.is_empty() && s.anti_patterns.is_empty() && s.tags.len() == 1);
            assert!(s.content.split(' ').count() <= 8 && s.content.ends_with('.'), "{}", s.content);
        }
    }

    #[derive(Deserialize)]
    struct Memory {
        decisions: Vec<serde_json::Value>,
        items: Vec<serde_json::Value>,
    }

    #[test]
    fn corpus_json_is_valid_with_requested_counts() {
        let spec = small();
        let text = corpus_json(&spec);
        let memory: Memory = serde_json::from_str(&text).expect("valid JSON");
        let mut ids = HashSet::new();
        let mut pool = 0;
        let mut types = BTreeMap::new();
        let mut scoped = 0;
        let mut retired = 0;
        for d in &memory.decisions {
            assert!(d["decision"].is_string() && d["id"].is_string());
            assert!(d["scope"].is_array() && d["constraints"].is_array());
            assert!(ids.insert(d["id"].as_str().unwrap().to_string()));
            if d.get("status").is_some() {
                retired += 1;
            } else {
                pool += 1;
            }
        }
        for item in &memory.items {
            assert!(ids.insert(item["id"].as_str().unwrap().to_string()));
            assert!(item["title"].is_string() && item["content"].is_string());
            let ty = item["type"].as_str().unwrap();
            *types.entry(ty).or_insert(0) += 1;
            if item.get("scope").is_some() {
                scoped += 1;
                let scope = &item["scope"];
                assert!(scope.is_string() || scope.is_array());
            }
            if item.get("status").is_some() {
                retired += 1;
            } else if matches!(ty, "decision" | "rule" | "anti_pattern") {
                pool += 1;
            }
            if let Some(c) = item.get("constraint") {
                assert!(c.is_string() || c.is_array());
            }
        }
        assert_eq!(pool, spec.decisions);
        let active_records = memory.decisions.iter().filter(|d| d.get("status").is_none()).count();
        assert_eq!(active_records, share(spec.decisions, spec.decision_record_share));
        assert_eq!(retired, share(spec.decisions, spec.retired_share));
        let noise = types.get("preference").unwrap_or(&0) + types.get("fact").unwrap_or(&0);
        assert_eq!(noise, share(spec.decisions, spec.noise_share));
        for ty in ["decision", "rule", "anti_pattern", "preference", "fact"] {
            assert!(types.get(ty).copied().unwrap_or(0) > 0, "no {ty} items");
        }
        assert!(scoped > 0);
        let c = corpus(&spec);
        assert_eq!(c.pool_ids().len(), spec.decisions);
        assert_eq!(c.records.len(), ids.len());
    }

    #[test]
    fn scope_globs_have_the_documented_forms() {
        let c = corpus(&CorpusSpec::new(1000, 3));
        let mut forms = HashSet::new();
        for r in c.records.iter().filter(|r| !r.scope.is_empty()) {
            let path = r.sample_path.as_deref().unwrap();
            let glob = &r.scope[0];
            let form = if glob.starts_with("services/") {
                assert!(glob.ends_with("/**") && path.starts_with(&glob[..glob.len() - 2]));
                "services"
            } else if glob.starts_with("web/src/") {
                assert!(glob.ends_with("**/*.tsx") && path.ends_with(".tsx"));
                "web"
            } else if glob.starts_with("src/") {
                "src"
            } else if glob.starts_with("**/") {
                "any"
            } else {
                assert!(glob.ends_with('/') && path.starts_with(glob.as_str()));
                "folder"
            };
            forms.insert(form);
            assert!(r.kind.item_type().is_some());
        }
        assert_eq!(forms.len(), 5, "{forms:?}");
    }

    /// A glob the way `spec/retrieval.md` §5 reads it.
    fn matcher(glob: &str) -> globset::GlobMatcher {
        let glob = match glob.strip_suffix('/') {
            Some(folder) => format!("{folder}/**"),
            None => glob.to_string(),
        };
        globset::GlobBuilder::new(&glob).literal_separator(true).build().unwrap().compile_matcher()
    }

    #[test]
    fn sample_paths_match_their_globs() {
        let c = corpus(&CorpusSpec::new(2000, 17));
        let mut checked = 0;
        for r in &c.records {
            if let Some(path) = &r.sample_path {
                assert!(matcher(&r.scope[0]).is_match(path), "{} !~ {path}", r.scope[0]);
                for glob in &r.scope {
                    matcher(glob);
                }
                checked += 1;
            }
        }
        assert!(checked > 300, "{checked}");
    }

    #[test]
    fn topic_words_survive_both_tokenizers() {
        let c = corpus(&small());
        for r in &c.records {
            for w in &r.key_words {
                assert!(w.len() >= 4 && w.bytes().all(|b| b.is_ascii_lowercase()), "{w}");
            }
        }
    }

    #[derive(Deserialize)]
    struct YamlSuite {
        scenarios: Vec<YamlScenario>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct YamlScenario {
        id: String,
        category: String,
        description: String,
        task: String,
        file: Option<String>,
        expect: Vec<String>,
        #[serde(default)]
        acceptable: Vec<String>,
        responses: Option<BTreeMap<String, String>>,
        #[serde(default)]
        assertions: Vec<serde_json::Value>,
    }

    #[test]
    fn suite_yaml_parses_with_unique_ids_from_the_pool() {
        let c = corpus(&small());
        let spec = SuiteSpec::new(500, 9);
        let yaml = suite_yaml(&c, &spec);
        let parsed: YamlSuite = serde_saphyr::from_str(&yaml).expect("valid YAML");
        assert_eq!(parsed.scenarios.len(), 500);
        let pool: HashSet<&str> = c.pool_ids().into_iter().collect();
        let mut ids = HashSet::new();
        let mut ungoverned = 0;
        let mut with_file = 0;
        for s in &parsed.scenarios {
            assert!(ids.insert(s.id.clone()), "duplicate {}", s.id);
            assert!(!s.task.is_empty());
            assert!(s.responses.is_none());
            for id in s.expect.iter().chain(&s.acceptable) {
                assert!(pool.contains(id.as_str()), "{id} not in pool");
            }
            ungoverned += usize::from(s.expect.is_empty());
            with_file += usize::from(s.file.is_some());
            for id in &s.acceptable {
                assert!(!s.expect.contains(id));
            }
        }
        assert!(ungoverned > 20 && ungoverned < 90, "{ungoverned}");
        assert!(with_file > 0);
    }

    #[test]
    fn file_paths_come_from_the_scoped_expected_record() {
        let c = corpus(&small());
        for s in suite(&c, &SuiteSpec::new(400, 1)) {
            let scoped: Vec<&SynthRecord> =
                s.expect.iter().map(|id| c.record(id).unwrap()).filter(|r| !r.scope.is_empty()).collect();
            if let (Some(file), [one]) = (&s.file, scoped.as_slice()) {
                assert_eq!(Some(file), one.sample_path.as_ref());
            }
            if scoped.len() > 1 {
                assert_eq!(s.file, None);
            }
        }
    }

    #[test]
    fn mneme_pool_suites_avoid_decision_items() {
        let c = corpus(&small());
        let spec = SuiteSpec { mneme_pool: true, ..SuiteSpec::new(300, 2) };
        for s in suite(&c, &spec) {
            for id in s.expect.iter().chain(&s.acceptable) {
                assert!(c.record(id).unwrap().in_mneme_pool());
            }
        }
    }

    fn listing(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(dir).unwrap().display().to_string();
                    out.push((rel, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn native_layout_on_disk() {
        let c = corpus(&small());
        let spec = SuiteSpec { scenarios_per_file: 40, ..SuiteSpec::new(100, 4) };
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let written = write_suite(a.path(), &c, &spec, SuiteLayout::Native).unwrap();
        write_suite(b.path(), &c, &spec, SuiteLayout::Native).unwrap();
        assert_eq!(listing(a.path()), listing(b.path()));
        let yamls: Vec<&PathBuf> = written.iter().filter(|p| p.extension().is_some_and(|e| e == "yaml")).collect();
        assert_eq!(yamls.len(), 3);
        let mut total = 0;
        let mut with_responses = 0;
        for y in yamls {
            let parsed: YamlSuite = serde_saphyr::from_str(&std::fs::read_to_string(y).unwrap()).unwrap();
            total += parsed.scenarios.len();
            for s in parsed.scenarios {
                if let Some(r) = s.responses {
                    with_responses += 1;
                    for key in ["control", "governed"] {
                        let text = std::fs::read_to_string(a.path().join(&r[key])).unwrap();
                        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                        assert!(v["refused"].is_boolean() && v["files_changed"].is_array());
                    }
                }
            }
        }
        assert_eq!(total, 100);
        assert!(with_responses > 0);
    }

    #[test]
    fn mneme_layout_on_disk() {
        let c = corpus(&small());
        let spec = SuiteSpec::new(60, 8);
        let a = tempfile::tempdir().unwrap();
        write_suite(a.path(), &c, &spec, SuiteLayout::MnemeFolders).unwrap();
        let folders: Vec<PathBuf> = std::fs::read_dir(a.path()).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(folders.len(), 60);
        let mut with_responses = 0;
        for f in &folders {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(f.join("scenario.json")).unwrap()).unwrap();
            assert_eq!(v["name"].as_str(), f.file_name().and_then(|n| n.to_str()));
            assert!(v["expected_protected_decision_ids"].is_array());
            for a in v["assertions"].as_array().unwrap() {
                let ty = a["type"].as_str().unwrap();
                assert!(ty == "forbidden_dependency" || ty == "forbidden_path_pattern");
            }
            let query = std::fs::read_to_string(f.join("query.txt")).unwrap();
            assert!(!query.trim().is_empty());
            // Mneme itself refuses a folder without both text sides.
            assert!(f.join("with_mneme.txt").is_file() && f.join("without_mneme.txt").is_file());
            if f.join("with_mneme.json").exists() {
                assert!(f.join("without_mneme.json").exists());
                with_responses += 1;
            }
        }
        assert!(with_responses > 0);
        let b = tempfile::tempdir().unwrap();
        write_suite(b.path(), &c, &spec, SuiteLayout::MnemeFolders).unwrap();
        assert_eq!(listing(a.path()), listing(b.path()));
    }

    #[test]
    fn degenerate_sizes() {
        let empty = corpus(&CorpusSpec::new(0, 1));
        let memory: Memory = serde_json::from_str(&empty.to_json()).unwrap();
        assert!(memory.decisions.is_empty() && memory.items.is_empty());
        let scenarios = suite(&empty, &SuiteSpec::new(5, 1));
        assert_eq!(scenarios.len(), 5);
        assert!(scenarios.iter().all(|s| s.expect.is_empty()));
        let one = corpus(&CorpusSpec::new(1, 1));
        assert_eq!(one.pool_ids().len(), 1);
        assert_eq!(suite(&one, &SuiteSpec::new(0, 1)).len(), 0);
        let tiny_vocab = CorpusSpec { vocabulary: 1, ..CorpusSpec::new(10, 1) };
        assert_eq!(corpus(&tiny_vocab).pool_ids().len(), 10);
    }

    #[test]
    fn large_sizes_are_fast() {
        let start = std::time::Instant::now();
        let c = corpus(&CorpusSpec::new(5_000, 11));
        let json = c.to_json();
        let yaml = suite_yaml(&c, &SuiteSpec::new(10_000, 11));
        let elapsed = start.elapsed();
        assert!(json.len() > 1_000_000 && yaml.len() > 1_000_000);
        // Generous: the release build takes a small fraction of this.
        let limit = if cfg!(debug_assertions) { 20 } else { 1 };
        assert!(elapsed.as_secs() < limit, "{elapsed:?}");
    }
}
