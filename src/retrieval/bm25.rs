//! Profile `default`'s arithmetic: BM25F over token sets, in integers only.
//!
//! Every quantity is an integer and every division rounds down (toward
//! minus infinity, `div_euclid`), so the same corpus and query give the same
//! score, to the thousandth, on every machine; no platform `ln` or `exp` is
//! called. `docs/retrieval.md` gives the formulas with a worked example, and
//! `tests/reference/bm25_ref.py` implements them independently.
//!
//! For a query token `t` and a decision `d` (`N` pool decisions, `df` of
//! them holding `t` in some scored field):
//!
//! - `idf = log2((2(N + 16) + 2) / (2df + 1))` in thousandths ([`idf_milli`]),
//!   which is BM25's `ln(1 + (N − df + ½) / (df + ½))` in base 2 over a pool
//!   counted 16 decisions larger ([`IDF_PRIOR`]): always positive, small for
//!   a token most decisions hold;
//! - per field `f` of `d` holding `t`: its length `L` (distinct tokens) and
//!   the pool's total `T` give `norm = (1 − b) + b × L × N / T` ([`norm_milli`]),
//!   and `x_f = weight_f / norm` ([`field_part`]);
//! - `x = Σ x_f`, saturated `s = x × (k1 + 1) / (k1 + x)` ([`saturate`]);
//! - the token's contribution is `idf × s` ([`contribution`]); a token of the
//!   edited file's path that is not a task token counts `path_weight` of it
//!   ([`path_part`]), and only when `df ≤ path_max_df × N` ([`informative`]);
//!   each word of the path (`dotcom-rendering`, `LedgerClient.py`) counts
//!   once, by its best token in the decision ([`each_path_word`]).
//!
//! The task's words that say what kind of change it is (`add`, `fix`,
//! `refactor`, `use`: [`TASK_VERBS`]) are not scored: a decision titled
//! "Remove the aggregator layer" does not govern every removal.

use crate::profile::{Bm25f, Milli};

/// The words with which a change says what kind of change it is rather than
/// what it is about: the verbs commit subjects and change requests begin
/// with (`Add …`, `Remove …`, `Fix …`), in their common forms, and the
/// Conventional Commits types that read as words (`feat`, `chore`). Profile
/// `default` does not score them as task words (a path word is never one);
/// decisions keep them. Sorted, for [`is_task_verb`].
pub const TASK_VERBS: &[&str] = &[
    "add",
    "added",
    "adding",
    "adds",
    "allow",
    "allows",
    "change",
    "changed",
    "changes",
    "chore",
    "clean",
    "cleanup",
    "create",
    "created",
    "delete",
    "deleted",
    "disable",
    "disabled",
    "enable",
    "enabled",
    "feat",
    "fix",
    "fixed",
    "fixes",
    "handle",
    "implement",
    "implemented",
    "improve",
    "improved",
    "improvements",
    "initial",
    "introduce",
    "introduced",
    "introduces",
    "make",
    "merge",
    "merged",
    "move",
    "moved",
    "moves",
    "refactor",
    "refactored",
    "refactoring",
    "remove",
    "removed",
    "removes",
    "removing",
    "rename",
    "renamed",
    "replace",
    "replaced",
    "revert",
    "set",
    "support",
    "update",
    "updated",
    "updates",
    "updating",
    "upgrade",
    "upgraded",
    "use",
];

/// Whether a task token scores as the task's: under BM25F (`bm25`), not
/// when it is one of the [`TASK_VERBS`]. The one rule of the index and the
/// compiled index.
pub fn scores_as_task_word(token: &str, bm25: bool, tokenizer: &crate::tokenize::Tokenizer) -> bool {
    !bm25 || !(is_task_verb(token, tokenizer.stems()) || tokenizer.folds() && is_folded_task_verb(token))
}

/// Whether the folded task token `token` ([`crate::tokenize::fold_plural`])
/// is the folding of one of the [`TASK_VERBS`] (`improvements` →
/// `improvement`).
fn is_folded_task_verb(token: &str) -> bool {
    static FOLDED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let folded = FOLDED.get_or_init(|| {
        let mut v: Vec<String> = TASK_VERBS.iter().map(|w| crate::tokenize::fold_plural(w).into_owned()).collect();
        v.sort();
        v.dedup();
        v
    });
    folded.binary_search_by(|s| s.as_str().cmp(token)).is_ok()
}

/// Whether the task token `token` is one of the [`TASK_VERBS`]; `stemmed`
/// when the tokenizer stems (the token is then compared with the stems of
/// the list).
pub fn is_task_verb(token: &str, stemmed: bool) -> bool {
    if !stemmed {
        return TASK_VERBS.binary_search(&token).is_ok();
    }
    static STEMS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let stems = STEMS.get_or_init(|| {
        let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
        let mut v: Vec<String> = TASK_VERBS.iter().map(|w| stemmer.stem(w).into_owned()).collect();
        v.sort();
        v.dedup();
        v
    });
    stems.binary_search_by(|s| s.as_str().cmp(token)).is_ok()
}

/// A task without what says where it is filed and who wrote it
/// ([`about_part`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct About<'a> {
    /// The text that is scored.
    pub text: String,
    /// The label and number left out (`feature #15063`).
    pub label: &'a str,
    /// The credit left out (`(NoResponseMate)`), if any.
    pub credit: Option<&'a str>,
}

/// The words of a task that say what it is about, for profile `default`:
/// the task without the label of a reference number that opens it (the
/// word before the `#123` that is the task's first word, after any leading
/// `[…]` or `(…)` groups: `PR #412: …`, `Story #2158: …`, and `bug
/// #13133 …`, `feature #15063 …`, `minor #15003 …`, as Symfony's
/// pull-request tool titles its merges) and, in a task that opens with such
/// a label, without the credit that ends it (`(NoResponseMate)`,
/// `(Tomanhez, GSadee)`). The label says which list the number is in, and
/// the credit who wrote the change: neither is what the change is about, and
/// a decision titled "Feature Coverage in API" governs no more features
/// than any other. `None` when there is nothing to leave out.
pub fn about_part(task: &str) -> Option<About<'_>> {
    let bytes = task.as_bytes();
    let mut i = 0;
    // Leading groups: `[API]`, `(On getgov-za)`.
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let close = match bytes.get(i) {
            Some(b'[') => ']',
            Some(b'(') => ')',
            _ => break,
        };
        match task[i..].find(close) {
            Some(end) => i += end + 1,
            None => break,
        }
    }
    let word_start = i;
    while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
        i += 1;
    }
    let word_end = i;
    while i < bytes.len() && bytes[i] == b' ' {
        i += 1;
    }
    if word_end == word_start || bytes.get(i) != Some(&b'#') {
        return None;
    }
    i += 1;
    let digits = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits || bytes.get(i).is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let label = &task[word_start..i];
    if bytes.get(i) == Some(&b':') {
        i += 1;
    }
    let mut rest = &task[i..];
    let mut credit = None;
    // The credit: the last `(…)`, a list of names without spaces.
    if let Some(body) = rest.trim_end().strip_suffix(')') {
        if let Some(open) = body.rfind('(') {
            let names = &body[open + 1..];
            let is_name = |n: &str| {
                !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '[' | ']'))
            };
            if !names.trim_start().starts_with('#') && names.split(',').map(str::trim).all(is_name) {
                credit = Some(&rest[open..body.len() + 1]);
                rest = &body[..open];
            }
        }
    }
    Some(About { text: format!("{}{}", &task[..word_start], rest), label, credit })
}

/// Fractional bits of [`log2_q`].
pub const LOG2_FRACTION_BITS: u32 = 16;

/// `log2(a / b)` for `a ≥ b ≥ 1`, in units of `2^-16`, computed with integer
/// operations only: the quotient in 64.64 fixed point, its integer part from
/// the bit length, then one fraction bit per squaring (each square truncated
/// to 64 fraction bits). Exact to within a few units of the last bit, and
/// the same bits everywhere. `a < b` or `b = 0` gives 0.
pub fn log2_q(a: u64, b: u64) -> i64 {
    if b == 0 || a <= b {
        return 0;
    }
    const ONE: u128 = 1 << 64;
    // x = a / b in 64.64 fixed point (a / b < 2^64, so it fits).
    let x: u128 = ((a as u128) << 64) / b as u128;
    // Integer part: x >= 2^(64 + n).
    let n = 127 - x.leading_zeros() as i64 - 64;
    // y = x / 2^n, in [1, 2) as 1.64 fixed point... kept as 2.62 so that y² fits.
    let mut y: u128 = (x >> n) >> 2; // 62 fraction bits
    let one: u128 = ONE >> 2;
    let mut fraction: i64 = 0;
    for _ in 0..LOG2_FRACTION_BITS {
        y = (y * y) >> 62;
        fraction <<= 1;
        if y >= 2 * one {
            y >>= 1;
            fraction |= 1;
        }
    }
    (n << LOG2_FRACTION_BITS) + fraction
}

/// Decisions added to the pool's count in [`idf_milli`], holding no token:
/// in a memory of a handful of decisions every word is "common" by BM25's
/// count, and no match could clear the abstention threshold. The prior
/// makes a word held by one decision of two as informative as one held by
/// one decision of eighteen; past a few hundred decisions it no longer
/// matters.
pub const IDF_PRIOR: u64 = 16;

/// `idf` in thousandths: `log2((2(N + 16) + 2) / (2df + 1))` ([`IDF_PRIOR`]),
/// from [`log2_q`], times 1000, rounded down.
pub fn idf_milli(n: u64, df: u64) -> i64 {
    let n = n.saturating_add(IDF_PRIOR);
    let q = log2_q(n.saturating_mul(2).saturating_add(2), df.saturating_mul(2).saturating_add(1));
    (q * 1000).div_euclid(1 << LOG2_FRACTION_BITS)
}

/// A field's length normalisation in thousandths:
/// `1000 − b + b × L × N / T`, rounded down, and at least 1. A field empty
/// in the whole pool (`T = 0`) holds no token, and counts 1000.
pub fn norm_milli(b: Milli, len: u64, total: u64, n: u64) -> i64 {
    if total == 0 {
        return 1000;
    }
    let b = b.0 as i128;
    let v = ((1000 - b) * total as i128 + b * len as i128 * n as i128).div_euclid(total as i128);
    v.max(1) as i64
}

/// `weight × 1000 / norm`, rounded down: one field's share of `x`.
pub fn field_part(weight: Milli, norm: i64) -> i64 {
    (weight.0 as i128 * 1000).div_euclid(norm.max(1) as i128) as i64
}

/// `x × (k1 + 1000) / (k1 + x)`, rounded down; 0 when `x ≤ 0`.
pub fn saturate(x: i64, k1: Milli) -> i64 {
    if x <= 0 {
        return 0;
    }
    let (x, k1) = (x as i128, k1.0.max(0) as i128);
    (x * (k1 + 1000)).div_euclid(k1 + x) as i64
}

/// `idf × s / 1000`, rounded down: a token's contribution.
pub fn contribution(idf: i64, s: i64) -> i64 {
    (idf as i128 * s as i128).div_euclid(1000) as i64
}

/// The words of a normalised path, numbered from 0: its `/`-separated
/// parts (`dotcom-rendering`, `src`, `Island.tsx`). A word's tokens are
/// its spellings (`island.tsx`, `island`, `tsx`), so a decision earns, for
/// each word, the contribution of the best token it holds, not their sum:
/// one folder or file name is one piece of evidence, however many ways it
/// is written.
pub fn each_path_word<'a>(path: &'a str, each: &mut dyn FnMut(u32, &'a str)) {
    for (i, word) in path.split('/').filter(|w| !w.is_empty()).enumerate() {
        each(i as u32, word);
    }
}

/// The best path token of one path word, per decision ([`each_path_word`]):
/// every posting of the word's tokens is [`offered`](PathWordBest::offer),
/// then the word's best per decision is added to the scores
/// ([`PathWordBest::add_to`]) before the next word.
#[derive(Debug, Default)]
pub struct PathWordBest {
    best: Vec<i64>,
    touched: Vec<u32>,
}

impl PathWordBest {
    /// Offers `part` (already [`path_part`]) for decision `d` of a pool of
    /// `n`.
    pub fn offer(&mut self, n: usize, d: usize, part: i64) {
        if self.best.len() != n {
            self.best = vec![0; n];
        }
        if part > self.best[d] {
            if self.best[d] == 0 {
                self.touched.push(d as u32);
            }
            self.best[d] = part;
        }
    }

    /// Adds the word's best per decision to `score` and forgets the word.
    pub fn add_to(&mut self, score: &mut [i64]) {
        for &d in &self.touched {
            score[d as usize] += self.best[d as usize];
            self.best[d as usize] = 0;
        }
        self.touched.clear();
    }
}

/// Keeps each token of `(word, token)` pairs once, with the first word
/// that has it, ordered by word and then token.
pub fn first_word_of_each(pairs: &mut Vec<(u32, u32)>) {
    pairs.sort_unstable_by_key(|&(w, t)| (t, w));
    pairs.dedup_by_key(|p| p.1);
    pairs.sort_unstable();
}

/// A path token's share: `c × path_weight / 1000`, rounded down.
pub fn path_part(c: i64, path_weight: Milli) -> i64 {
    (c as i128 * path_weight.0 as i128).div_euclid(1000) as i64
}

/// Whether a path token held by `df` of `n` decisions counts at all:
/// `df × 1000 ≤ path_max_df × N`.
pub fn informative(df: u64, n: u64, path_max_df: Milli) -> bool {
    (df as i128) * 1000 <= path_max_df.0 as i128 * n as i128
}

/// The score of a task token in a decision (what a posting holds): `fields`
/// are the decision's fields holding it, as (weight, length in the
/// decision, the pool's total length). [`term_score`] gives the same number
/// with every step.
pub fn posting_score(params: &Bm25f, df: u64, n: u64, fields: impl IntoIterator<Item = (Milli, u64, u64)>) -> i64 {
    let x: i64 = fields.into_iter().map(|(w, len, total)| field_part(w, norm_milli(params.b, len, total, n))).sum();
    contribution(idf_milli(n, df), saturate(x, params.k1))
}

/// One field of a decision holding a token, as the score uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct FieldTerm {
    pub field: crate::profile::Field,
    pub weight: Milli,
    /// The field's length in this decision (distinct tokens).
    pub len: u64,
    /// The pool's total length of the field (its average is `total / N`).
    pub total: u64,
    /// `norm_milli(b, len, total, N)`.
    pub norm: Milli,
    /// `field_part(weight, norm)`.
    pub part: Milli,
}

/// Everything one query token contributes to one decision, every constant
/// included, so that it can be printed and rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct TermScore {
    pub token: String,
    /// From the edited file's path only (not a task token).
    pub from_path: bool,
    pub df: u64,
    pub n: u64,
    pub idf: Milli,
    pub fields: Vec<FieldTerm>,
    /// `x`: the sum of the fields' parts.
    pub x: Milli,
    /// `saturate(x, k1)`.
    pub saturated: Milli,
    /// `contribution(idf, saturated)`, then `path_part` for a path token.
    pub contribution: Milli,
    /// A path token another spelling of the same path word (this one)
    /// scores at least as much as in this decision: shown, not counted,
    /// since a path word counts once (ties go to the first token in
    /// byte order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outvoted_by: Option<String>,
}

/// The score one token earns in one decision: `fields` are the decision's
/// fields holding it, each as (field, weight, its length, the pool's total
/// length of that field).
pub fn term_score(
    params: &Bm25f,
    token: &str,
    from_path: bool,
    df: u64,
    n: u64,
    fields: impl IntoIterator<Item = (crate::profile::Field, Milli, u64, u64)>,
) -> TermScore {
    let idf = idf_milli(n, df);
    let mut x = 0i64;
    let fields: Vec<FieldTerm> = fields
        .into_iter()
        .map(|(field, weight, len, total)| {
            let norm = norm_milli(params.b, len, total, n);
            let part = field_part(weight, norm);
            x += part;
            FieldTerm { field, weight, len, total, norm: Milli(norm), part: Milli(part) }
        })
        .collect();
    let s = saturate(x, params.k1);
    let mut c = contribution(idf, s);
    if from_path {
        c = path_part(c, params.path_weight);
    }
    TermScore {
        token: token.to_string(),
        from_path,
        df,
        n,
        idf: Milli(idf),
        fields,
        x: Milli(x),
        saturated: Milli(s),
        contribution: Milli(c),
        outvoted_by: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_label_and_its_credit_are_not_what_a_task_is_about() {
        let about = |t: &str| about_part(t).map(|a| (a.text, a.label.to_string(), a.credit.map(str::to_string)));
        let own = |t: &str, l: &str, c: Option<&str>| Some((t.to_string(), l.to_string(), c.map(str::to_string)));
        assert_eq!(
            about("feature #15063 [API] Allow overriding xml resource mapping (NoResponseMate)"),
            own(" [API] Allow overriding xml resource mapping ", "feature #15063", Some("(NoResponseMate)"))
        );
        assert_eq!(
            about("refactor #12034 [API][Product] Change identifier (GSadee, Tomanhez)"),
            own(" [API][Product] Change identifier ", "refactor #12034", Some("(GSadee, Tomanhez)"))
        );
        assert_eq!(
            about("minor #15174 Update x requirement (dependabot[bot])"),
            own(" Update x requirement ", "minor #15174", Some("(dependabot[bot])"))
        );
        assert_eq!(about("Story #2177: Pagination on home page"), own(" Pagination on home page", "Story #2177", None));
        assert_eq!(
            about("(On getgov-za) Task #2158: Use biometric auth"),
            own("(On getgov-za)  Use biometric auth", "Task #2158", None)
        );
        // A last group that is no list of names is the task's own.
        assert_eq!(
            about("bug #1 Handle the timeout (when retrying)"),
            own(" Handle the timeout (when retrying)", "bug #1", None)
        );
        assert_eq!(about("bug #1 Fix it (#2)"), own(" Fix it (#2)", "bug #1", None));
        // No label: nothing is left out.
        for task in
            ["Support IPv6 #123", "#5127 - Prevent open redirects", "Add x (#17102)", "Story #12a", "Story #", "é #1"]
        {
            assert_eq!(about_part(task), None, "{task}");
        }
    }

    #[test]
    fn task_verbs_are_sorted_and_found_as_written_or_stemmed() {
        assert!(TASK_VERBS.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        assert!(is_task_verb("remove", false) && is_task_verb("use", false));
        assert!(!is_task_verb("ledger", false) && !is_task_verb("updat", false));
        // Stemmed, `updated` is `updat`, and the list's stems are compared.
        assert!(is_task_verb("updat", true) && is_task_verb("remov", true));
        assert!(!is_task_verb("ledger", true));
    }

    #[test]
    fn log2_is_exact_on_powers_of_two_and_close_elsewhere() {
        assert_eq!(log2_q(1, 1), 0);
        assert_eq!(log2_q(2, 1), 1 << 16);
        assert_eq!(log2_q(1024, 1), 10 << 16);
        assert_eq!(log2_q(3, 3), 0);
        assert_eq!(log2_q(1, 2), 0);
        assert_eq!(log2_q(5, 0), 0);
        let mut state = 11u64;
        for _ in 0..2000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let b = (state >> 40) % 100_000 + 1;
            let a = b + (state >> 20) % 10_000_000;
            let want = (a as f64 / b as f64).log2() * 65536.0;
            let got = log2_q(a, b) as f64;
            assert!((got - want).abs() <= 2.0, "log2({a}/{b}): {got} vs {want}");
            // Rounded down, never up by more than the truncations allow.
            assert!(got <= want + 1e-6, "log2({a}/{b}) rounds down");
        }
    }

    #[test]
    fn log2_never_overflows() {
        assert_eq!(log2_q(u64::MAX, 1), (63 << 16) + 65535);
        assert!(log2_q(u64::MAX, u64::MAX - 1) >= 0);
    }

    #[test]
    fn idf_falls_with_document_frequency_and_stays_positive() {
        let n = 50;
        let idfs: Vec<i64> = (1..=n).map(|df| idf_milli(n, df)).collect();
        assert!(idfs.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(idf_milli(34, 1), 5087); // log2(102 / 3) = 5.087
        assert_eq!(idf_milli(34, 25), 1000); // log2(102 / 51) = 1
        assert!(idf_milli(50, 50) > 0 && idf_milli(50, 50) < 500);
        assert_eq!(idf_milli(1, 1), 3584); // log2(36 / 3): one decision of one still informs
        assert!(idf_milli(u64::MAX, u64::MAX) >= 0);
    }

    #[test]
    fn norm_and_saturation_round_down() {
        // Average length: 1000 exactly.
        assert_eq!(norm_milli(Milli(750), 4, 40, 10), 1000);
        // Five times the average: 250 + 750 × 5.
        assert_eq!(norm_milli(Milli(750), 20, 40, 10), 4000);
        assert_eq!(norm_milli(Milli(750), 0, 0, 10), 1000);
        assert_eq!(norm_milli(Milli(1000), 0, 40, 10), 1);
        assert_eq!(field_part(Milli(1000), 4000), 250);
        assert_eq!(field_part(Milli(3000), 3), 1_000_000);
        // 3.0 saturates to 3 × 2.2 / 4.2 = 1.5714…
        assert_eq!(saturate(3000, Milli(1200)), 1571);
        assert_eq!(saturate(0, Milli(1200)), 0);
        assert_eq!(saturate(-5, Milli(1200)), 0);
        assert_eq!(contribution(5087, 1571), 7991);
        assert_eq!(path_part(7991, Milli(250)), 1997);
        assert_eq!(contribution(-7, 1000), -7);
        assert!(informative(5, 50, Milli(100)));
        assert!(!informative(6, 50, Milli(100)));
    }
}
