/*!
The tokenizers of spec §3: text in, a *set* of tokens out.

Two families exist. `default` lowercases with Unicode rules, splits on
anything that is not a Unicode letter or digit, drops short tokens and the
English stopwords of `stopwords-en.txt`, and optionally stems (Snowball
English, also called Porter2). `mneme` reproduces Mneme 0.10: lowercase, runs
of ASCII `[a-z0-9]`, at least four characters, six stopwords.

Token *sets* are what scoring needs; callers collect into whatever set type
suits them (the index interns them, explain keeps the strings).
*/

use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use crate::profile::Family;

const DEFAULT_STOPWORDS: &str = include_str!("stopwords-en.txt");
const MNEME_STOPWORDS: [&str; 6] = ["add", "use", "not", "get", "set", "run"];

fn default_stopwords() -> &'static FxHashSet<&'static str> {
    static SET: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| DEFAULT_STOPWORDS.lines().map(str::trim).filter(|l| !l.is_empty()).collect())
}

/// A configured tokenizer. Cheap to share between threads.
pub struct Tokenizer {
    family: Family,
    min_len: usize,
    stemmer: Option<rust_stemmers::Stemmer>,
    /// Identifiers are split too (profile `default`): see [`Tokenizer::splitting`].
    split: bool,
    /// English plurals are folded to their singular (profile `default`
    /// without `stem`): see [`fold_plural`].
    fold: bool,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("family", &self.family)
            .field("min_len", &self.min_len)
            .field("stem", &self.stemmer.is_some())
            .field("split", &self.split)
            .field("fold", &self.fold)
            .finish()
    }
}

impl Tokenizer {
    pub fn new(family: Family, min_len: usize, stem: bool) -> Self {
        let stemmer = stem.then(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
        Tokenizer { family, min_len, stemmer, split: false, fold: false }
    }

    /// The tokenizer of a profile (family, `min_token_len`, `stem`, and
    /// for profile `default` identifier splitting and, unless it stems,
    /// plural folding).
    pub fn for_profile(profile: &crate::profile::Profile) -> Self {
        let mut t = Tokenizer::new(profile.family, profile.min_token_len, profile.stem);
        t.split = profile.splits_identifiers() && profile.family == Family::Default;
        t.fold = t.split && !profile.stem;
        t
    }

    /// [`Tokenizer::new`] that also splits identifiers: a *word* is a
    /// maximal run of letters, digits and the joiners `_`, `-` and `.`
    /// (joiners at its ends trimmed); the word gives itself whole, each of
    /// its joiner-separated segments whole, and each segment's case parts
    /// (`HTTPServerError` gives `http`, `server`, `error`; `meshTimeout`
    /// gives `mesh`, `timeout`). `MeshTimeout.cs` gives `meshtimeout.cs`,
    /// `meshtimeout`, `mesh`, `timeout` and `cs`. Each is lowercased and
    /// filtered (length, stopwords) and stemmed like any token.
    pub fn splitting(family: Family, min_len: usize, stem: bool) -> Self {
        let mut t = Tokenizer::new(family, min_len, stem);
        t.split = family == Family::Default;
        t
    }

    /// Whether identifiers are split (a token is then not always a run).
    pub(crate) fn splits(&self) -> bool {
        self.split
    }

    pub(crate) fn is_stopword(&self, token: &str) -> bool {
        match self.family {
            Family::Default => default_stopwords().contains(token),
            Family::Mneme => MNEME_STOPWORDS.contains(&token),
        }
    }

    /// Calls `emit` for every token of `text`, in text order; a token can be
    /// emitted more than once (the caller's set collapses duplicates).
    pub fn each_token(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        if self.split {
            return each_identifier_piece(text, &mut |piece| {
                let lower;
                let run: &str = if piece.chars().any(|c| c.is_uppercase() || c.to_lowercase().next() != Some(c)) {
                    lower = piece.to_lowercase();
                    &lower
                } else {
                    piece
                };
                if self.keeps(run) {
                    self.emit_kept(run, emit);
                }
            });
        }
        self.each_run(text, &mut |run| {
            if self.keeps(run) {
                self.emit_kept(run, emit);
            }
        });
    }

    /// A kept run as its token: stemmed, or its plural folded, or as it is.
    fn emit_kept(&self, run: &str, emit: &mut dyn FnMut(&str)) {
        match &self.stemmer {
            Some(stemmer) => emit(&stemmer.stem(run)),
            None if self.fold => emit(&fold_plural(run)),
            None => emit(run),
        }
    }

    /// Whether the tokenizer folds plurals ([`fold_plural`]).
    pub(crate) fn folds(&self) -> bool {
        self.fold
    }

    /// Whether the tokenizer stems (a token is then not its run).
    pub(crate) fn stems(&self) -> bool {
        self.stemmer.is_some()
    }

    /// Whether a run of [`Tokenizer::each_run`] is a token: long enough
    /// and not a stopword. [`Tokenizer::each_token`] emits exactly the runs
    /// it keeps (stemmed when the tokenizer stems).
    pub(crate) fn keeps(&self, run: &str) -> bool {
        let long_enough = if run.is_ascii() { run.len() >= self.min_len } else { run.chars().count() >= self.min_len };
        long_enough && !self.is_stopword(run)
    }

    /// Calls `each` for every non-empty run of letters and digits of the
    /// lowercased `text`, in text order, before any filter.
    pub(crate) fn each_run(&self, text: &str, each: &mut dyn FnMut(&str)) {
        if text.is_ascii() && self.family == Family::Default {
            // ASCII: lowercase run by run, on the stack, instead of the text.
            return byte_runs(text, |b| b.is_ascii_alphanumeric(), &mut |run| {
                let mut buf = [0u8; 64];
                if !run.bytes().any(|b| b.is_ascii_uppercase()) {
                    each(run);
                } else if run.len() <= buf.len() {
                    let lower = &mut buf[..run.len()];
                    lower.copy_from_slice(run.as_bytes());
                    lower.make_ascii_lowercase();
                    each(std::str::from_utf8(lower).expect("ASCII"));
                } else {
                    each(&run.to_ascii_lowercase());
                }
            });
        }
        let lowered;
        let lower: &str = if text.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
            lowered = text.to_lowercase();
            &lowered
        } else {
            text
        };
        match self.family {
            // For ASCII text, Unicode letters and digits are exactly the ASCII
            // ones: split on bytes.
            Family::Default if lower.is_ascii() => byte_runs(lower, |b| b.is_ascii_alphanumeric(), each),
            Family::Default => {
                for run in lower.split(|c: char| !c.is_alphanumeric()) {
                    if !run.is_empty() {
                        each(run);
                    }
                }
            }
            // Runs of ASCII `[a-z0-9]`: every other byte, a byte of a
            // non-ASCII character included, separates.
            Family::Mneme => byte_runs(lower, |b| b.is_ascii_lowercase() || b.is_ascii_digit(), each),
        }
    }

    /// The token set of `text`, sorted (for display and tests).
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.each_token(text, &mut |t| out.push(t.to_string()));
        out.sort();
        out.dedup();
        out
    }
}

/// An English plural as its singular, by its ending (the first rule that
/// applies; a token of ASCII lower-case letters only, at least four long;
/// any other token is left as it is):
///
/// | ending | becomes | examples |
/// |---|---|---|
/// | `ies`, not `aies` or `eies`, five letters or more | `y` | `policies` → `policy`, `entries` → `entry` |
/// | `sses` | `ss` | `classes` → `class`, `processes` → `process` |
/// | `shes`, `ches`, `xes`, `zzes`, five letters or more | without `es` | `flushes` → `flush`, `patches` → `patch`, `indexes` → `index` |
/// | `s`, not `ss`, `us` or `is` | without `s` | `endpoints` → `endpoint`, `responses` → `response`, `keys` → `key` |
///
/// Decisions and tasks are folded alike, so "Reorganize flushes" meets
/// "Remove flush from handlers". A word that only looks plural is cut as
/// well (`kubernetes` → `kubernete`, `status` is kept), on both sides,
/// which keeps it matching itself; a plural of another form is not folded
/// (`caches` → `cach`, not `cache`).
pub fn fold_plural(word: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let n = word.len();
    if n < 4 || !word.bytes().all(|b| b.is_ascii_lowercase()) || !word.ends_with('s') {
        return Cow::Borrowed(word);
    }
    let ends = |tail: &str| word.ends_with(tail);
    if n >= 5 && ends("ies") && !ends("aies") && !ends("eies") {
        return Cow::Owned(format!("{}y", &word[..n - 3]));
    }
    if ends("sses") || n >= 5 && (ends("shes") || ends("ches") || ends("xes") || ends("zzes")) {
        return Cow::Borrowed(&word[..n - 2]);
    }
    if ends("ss") || ends("us") || ends("is") {
        return Cow::Borrowed(word);
    }
    Cow::Borrowed(&word[..n - 1])
}

fn is_joiner(c: char) -> bool {
    matches!(c, '_' | '-' | '.')
}

/// The pieces of [`Tokenizer::splitting`], before lowercasing and filters,
/// in text order (a piece may repeat: `a_a` gives `a_a`, `a`, `a`).
pub(crate) fn each_identifier_piece(text: &str, each: &mut dyn FnMut(&str)) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || is_joiner(c))) {
        let word = word.trim_matches(is_joiner);
        if word.is_empty() {
            continue;
        }
        let segments = word.split(is_joiner).filter(|s| !s.is_empty());
        let several_segments = word.contains(is_joiner);
        if several_segments {
            each(word);
        }
        for segment in segments {
            each(segment);
            each_case_part(segment, each);
        }
    }
}

/// The case parts of a segment of letters and digits, when there are
/// several: a boundary before an upper-case letter that follows a lower-case
/// letter or a digit (`meshTimeout`, `v2Api`), and before the last upper-case
/// letter of a run followed by a lower-case one (`HTTPServer`: `HTTP`,
/// `Server`), unless that lower-case letter is a lone `s` (one that ends the
/// segment or comes before an upper-case letter or a digit): a run of
/// capitals and an `s` is an acronym's plural (`SNIs`, `URLsByHost`), and
/// gives the acronym as well (`SNI`; `URLs`, `URL`, `By`, `Host`). Nothing
/// when the segment is one part and no plural (it was given whole).
fn each_case_part(segment: &str, each: &mut dyn FnMut(&str)) {
    // Every boundary is before an upper-case letter that is not the first:
    // most words have none, and cost no more than this scan.
    if !segment.chars().skip(1).any(char::is_uppercase) {
        return;
    }
    let mut chars = segment.char_indices().peekable();
    let Some((_, mut prev)) = chars.next() else { return };
    let mut start = 0;
    while let Some((at, cur)) = chars.next() {
        let next = chars.peek().map(|&(_, c)| c);
        let boundary = cur.is_uppercase()
            && (prev.is_lowercase()
                || prev.is_numeric()
                || (prev.is_uppercase()
                    && next.is_some_and(char::is_lowercase)
                    && !lone_s_at(segment, at + cur.len_utf8())));
        if boundary {
            each_part(&segment[start..at], each);
            start = at;
        }
        prev = cur;
    }
    if start > 0 {
        each_part(&segment[start..], each);
    } else if let Some(acronym) = acronym_of_plural(segment) {
        each(acronym);
    }
}

/// A case part, and the acronym of an acronym's plural (`URLs`: `URL`).
fn each_part(part: &str, each: &mut dyn FnMut(&str)) {
    each(part);
    if let Some(acronym) = acronym_of_plural(part) {
        each(acronym);
    }
}

/// Whether `segment[at..]` begins with an `s` that is not followed by a
/// lower-case letter.
fn lone_s_at(segment: &str, at: usize) -> bool {
    let mut rest = segment[at..].chars();
    rest.next() == Some('s') && !rest.next().is_some_and(char::is_lowercase)
}

/// `SNI` for `SNIs`: a part of two or more upper-case letters and a final
/// `s`.
fn acronym_of_plural(part: &str) -> Option<&str> {
    let acronym = part.strip_suffix('s')?;
    (acronym.chars().nth(1).is_some() && acronym.chars().all(char::is_uppercase)).then_some(acronym)
}

/// The maximal runs of bytes of `text` that are `word` bytes (which must be
/// ASCII, so that every run is whole characters).
fn byte_runs(text: &str, word: impl Fn(u8) -> bool, each: &mut dyn FnMut(&str)) {
    let mut start = None;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if word(b) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            each(&text[s..i]);
        }
    }
    if let Some(s) = start {
        each(&text[s..]);
    }
}

/// Normalises a query path as spec §2 says: `\` becomes `/`, and one
/// leading `./` is removed.
pub fn normalise_path(path: &str) -> String {
    let p = path.replace('\\', "/");
    match p.strip_prefix("./") {
        Some(rest) => rest.to_string(),
        None => p,
    }
}

#[cfg(test)]
mod tests {
    /// The case parts as they were first written (every character and
    /// every cut collected, then the pieces given): what
    /// [`each_case_part`], which allocates nothing, must give.
    fn case_parts_collected(segment: &str) -> Vec<String> {
        let chars: Vec<(usize, char)> = segment.char_indices().collect();
        let plural = |part: &[(usize, char)]| {
            part.len() >= 3
                && part[part.len() - 1].1 == 's'
                && part[..part.len() - 1].iter().all(|&(_, c)| c.is_uppercase())
        };
        let mut cuts = Vec::new();
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1].1, chars[i].1);
            let next = chars.get(i + 1).map(|&(_, c)| c);
            let after = chars.get(i + 2).map(|&(_, c)| c);
            let lone_s = next == Some('s') && !after.is_some_and(char::is_lowercase);
            let boundary = cur.is_uppercase()
                && (prev.is_lowercase()
                    || prev.is_numeric()
                    || (prev.is_uppercase() && next.is_some_and(char::is_lowercase) && !lone_s));
            if boundary {
                cuts.push(i);
            }
        }
        let mut out = Vec::new();
        if cuts.is_empty() {
            if plural(&chars) {
                out.push(chars[..chars.len() - 1].iter().map(|&(_, c)| c).collect());
            }
            return out;
        }
        cuts.push(chars.len());
        let mut start = 0;
        for cut in cuts {
            let part = &chars[start..cut];
            out.push(part.iter().map(|&(_, c)| c).collect());
            if plural(part) {
                out.push(part[..part.len() - 1].iter().map(|&(_, c)| c).collect());
            }
            start = cut;
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn case_parts_are_found_without_collecting_the_characters(
            segment in "[aAbBsS1ÉéΣσ_]{0,12}"
        ) {
            let mut got = Vec::new();
            each_case_part(&segment, &mut |p| got.push(p.to_string()));
            proptest::prop_assert_eq!(got, case_parts_collected(&segment));
        }
    }

    use super::*;

    fn default() -> Tokenizer {
        Tokenizer::new(Family::Default, 3, false)
    }
    fn mneme() -> Tokenizer {
        Tokenizer::new(Family::Mneme, 4, false)
    }

    #[test]
    fn default_splits_identifiers_paths_and_punctuation() {
        assert_eq!(default().tokens("snake_case"), ["case", "snake"]);
        assert_eq!(default().tokens("services/payments/handler.py"), ["handler", "payments", "services"]);
        assert_eq!(default().tokens("LedgerClient.post(refund)!"), ["ledgerclient", "post", "refund"]);
        assert_eq!(default().tokens("kebab-case-name, x.y"), ["case", "kebab", "name"]);
    }

    #[test]
    fn default_lowercases_unicode_and_keeps_unicode_letters_and_digits() {
        assert_eq!(default().tokens("Größe ÉTÉ naïve"), ["größe", "naïve", "été"]);
        assert_eq!(default().tokens("数据库 连接"), ["数据库"]); // two characters are too short
        assert_eq!(default().tokens("v2 2024 x86"), ["2024", "x86"]);
        assert_eq!(default().tokens("€100 — 50%"), ["100"]);
    }

    #[test]
    fn default_drops_short_tokens_and_stopwords_and_collapses_duplicates() {
        assert_eq!(default().tokens("to be or not to be, the API of an API"), ["api"]);
        assert_eq!(default().tokens("Should we add caching? would you"), ["add", "caching"]);
        assert!(default().tokens("").is_empty());
    }

    #[test]
    fn min_token_len_is_configurable() {
        let t = Tokenizer::new(Family::Default, 2, false);
        assert_eq!(t.tokens("db io x of"), ["db", "io"]); // "x" too short, "of" a stopword
    }

    #[test]
    fn default_stems_only_when_asked() {
        let t = Tokenizer::new(Family::Default, 3, true);
        assert_eq!(t.tokens("connections connecting connected"), ["connect"]);
        assert_eq!(t.tokens("payments"), ["payment"]);
        assert_eq!(default().tokens("payments"), ["payments"]);
    }

    #[test]
    fn mneme_is_ascii_four_plus_with_its_own_stopwords() {
        assert_eq!(mneme().tokens("Should we add multi-agent support?"), ["agent", "multi", "should", "support"]);
        assert_eq!(mneme().tokens("naïve café set get runs"), ["runs"]);
        assert_eq!(mneme().tokens("GPT-4o OpenAI's"), ["openai"]);
        assert_eq!(mneme().tokens("with that this"), ["that", "this", "with"]);
    }

    #[test]
    fn mneme_lowercases_before_filtering_ascii() {
        // U+212A KELVIN SIGN lowercases to ASCII `k`.
        assert_eq!(mneme().tokens("\u{212A}ELVIN"), ["kelvin"]);
    }

    /// The list is the retrieval contract's, byte for byte: its SHA-256 was
    /// taken from the contract's `stopwords-en.txt` when it was copied in.
    #[test]
    fn stopword_list_is_the_contracts() {
        let digest = crate::digest::sha256_hex(DEFAULT_STOPWORDS);
        assert_eq!(digest, "edce7b9292168e6b596715eda16907cb4aae0b45a05dbdf55ba07fa62b76fcc1");
        assert_eq!(default_stopwords().len(), DEFAULT_STOPWORDS.lines().filter(|l| !l.trim().is_empty()).count());
    }

    #[test]
    fn splitting_keeps_the_whole_and_its_parts() {
        let t = Tokenizer::splitting(Family::Default, 3, false);
        assert_eq!(t.tokens("MeshTimeout"), ["mesh", "meshtimeout", "timeout"]);
        assert_eq!(t.tokens("snake_case"), ["case", "snake", "snake_case"]);
        assert_eq!(t.tokens("kebab-case-name"), ["case", "kebab", "kebab-case-name", "name"]);
        assert_eq!(t.tokens("System.Text.Json"), ["json", "system", "system.text.json", "text"]);
        assert_eq!(t.tokens("HTTPServerError"), ["error", "http", "httpservererror", "server"]);
        assert_eq!(t.tokens("parseJSONBody"), ["body", "json", "parse", "parsejsonbody"]);
        // Capitals and a lone `s` are an acronym's plural: it gives the
        // acronym too, and no part `Is`.
        assert_eq!(t.tokens("SNIs"), ["sni", "snis"]);
        assert_eq!(t.tokens("listURLsByHost"), ["host", "list", "listurlsbyhost", "url", "urls"]);
        assert_eq!(t.tokens("DPPs_by_mesh"), ["dpp", "dpps", "dpps_by_mesh", "mesh"]);
        // An `s` that begins a word is no plural; one capital is no acronym.
        assert_eq!(t.tokens("HTTPSession"), ["http", "httpsession", "session"]);
        assert_eq!(t.tokens("HTTPsession"), ["htt", "httpsession", "psession"]);
        assert_eq!(t.tokens("CacheIsStale"), ["cache", "cacheisstale", "stale"]);
        assert_eq!(t.tokens("src/Mesh/MeshTimeout.cs"), ["mesh", "meshtimeout", "meshtimeout.cs", "src", "timeout"]);
        // Joiners at a word's ends are punctuation: a sentence's full stop.
        assert_eq!(t.tokens("Use the cache. -- done_"), ["cache", "done", "use"]);
        assert_eq!(t.tokens("the_of"), ["the_of"]);
        assert_eq!(t.tokens("Übersicht_Größe"), ["größe", "übersicht", "übersicht_größe"]);
        assert!(t.tokens("_-._").is_empty());
        // The same words, split or not, share their plain tokens.
        assert_eq!(default().tokens("timeout policy"), t.tokens("timeout policy"));
    }

    #[test]
    fn splitting_stems_each_piece() {
        let t = Tokenizer::splitting(Family::Default, 3, true);
        assert_eq!(t.tokens("RetryPolicies"), ["polici", "retri", "retrypolici"]);
    }

    #[test]
    fn plurals_are_folded_by_their_ending() {
        for (word, folded) in [
            ("policies", "policy"),
            ("entries", "entry"),
            ("ties", "tie"),
            ("classes", "class"),
            ("processes", "process"),
            ("flushes", "flush"),
            ("patches", "patch"),
            ("indexes", "index"),
            ("buzzes", "buzz"),
            ("sizes", "size"),
            ("endpoints", "endpoint"),
            ("responses", "response"),
            ("keys", "key"),
            ("apis", "apis"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("access", "access"),
            ("axes", "axe"),
            ("gas", "gas"),
            ("flush", "flush"),
            ("über", "über"),
            ("v2s", "v2s"),
            ("Rules", "Rules"),
        ] {
            assert_eq!(fold_plural(word), folded, "{word}");
        }
    }

    #[test]
    fn profile_default_folds_plurals_unless_it_stems() {
        let mut profile = crate::profile::Profile::of(crate::profile::Named::Default);
        let t = Tokenizer::for_profile(&profile);
        assert_eq!(
            t.tokens("Reorganize flushes in MeshPolicies"),
            ["flush", "mesh", "meshpolicy", "policy", "reorganize"]
        );
        profile.stem = true;
        assert!(!Tokenizer::for_profile(&profile).folds());
        let classic = crate::profile::Profile::of(crate::profile::Named::Classic);
        assert_eq!(Tokenizer::for_profile(&classic).tokens("flushes"), ["flushes"]);
    }

    #[test]
    fn paths_are_normalised() {
        assert_eq!(normalise_path("./src\\a\\b.rs"), "src/a/b.rs");
        assert_eq!(normalise_path("././x"), "./x");
        assert_eq!(normalise_path("/abs/x"), "/abs/x");
    }
}
