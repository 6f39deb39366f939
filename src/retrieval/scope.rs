//! The scope pre-filter: which of the pool's distinct scope globs match a
//! path, with one `GlobSet` built for all queries, or, for an index that
//! answers one query, with only the globs a cheap literal test keeps.

use std::sync::{Arc, OnceLock};

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};
use rustc_hash::FxHashMap;

use super::simple_glob::SimpleGlob;

/// The distinct scope globs of the pool and how a path is matched to them.
#[derive(Debug)]
pub(super) struct Scopes {
    /// All distinct globs, bucketed for any number of queries (batch
    /// use), or `None` when built for one query (see
    /// [`Index::build_for_query`]).
    pub(super) set: Option<PrefixSets>,
    /// Per distinct glob: the decisions that carry it.
    pub(super) owner: Vec<Vec<u32>>,
    /// Per distinct glob: the glob (as compiled at load).
    pub(super) globs: Vec<Arc<Glob>>,
    /// Per distinct glob: literals every matching path must contain.
    pub(super) filters: Vec<LiteralFilter>,
}

/// Globs compiled into `GlobSet`s: one in the common case, several when
/// globset cannot build them all as one (its automata are capped at
/// 10 MiB, and a memory file can hold any number of distinct globs).
///
/// Never fewer matches than the globs give one by one: a set that does not
/// build is split in two, down to single globs, and a single glob always
/// builds, since `memory::compile_glob` refused any glob it could not (its
/// limits of length and nesting).
#[derive(Debug)]
pub(super) struct GlobSets {
    /// Each set and the index of its first glob among those it was built of.
    sets: Vec<(usize, GlobSet)>,
}

impl GlobSets {
    pub(super) fn build(globs: &[&Glob]) -> GlobSets {
        let mut sets = Vec::with_capacity(1);
        build_sets(globs, 0, &mut sets);
        GlobSets { sets }
    }

    /// How many sets the globs took.
    #[cfg(test)]
    pub(super) fn set_count(&self) -> usize {
        self.sets.len()
    }

    /// The indices (ascending) of the globs that match `path`.
    pub(super) fn matches_into(&self, path: &str, out: &mut Vec<usize>) {
        match self.sets.as_slice() {
            [(_, set)] => set.matches_into(path, out),
            sets => {
                out.clear();
                let mut hits = Vec::new();
                for (start, set) in sets {
                    set.matches_into(path, &mut hits);
                    out.extend(hits.iter().map(|i| start + i));
                }
            }
        }
    }
}

fn build_sets(globs: &[&Glob], start: usize, out: &mut Vec<(usize, GlobSet)>) {
    let mut builder = GlobSetBuilder::new();
    for &glob in globs {
        builder.add(glob.clone());
    }
    match builder.build() {
        Ok(set) => out.push((start, set)),
        Err(_) if globs.len() > 1 => {
            let half = globs.len() / 2;
            build_sets(&globs[..half], start, out);
            build_sets(&globs[half..], start + half, out);
        }
        // Never silently an empty set: that would put every scoped
        // decision out of scope. The limits of loading rule this out.
        Err(e) => panic!(
            "the scope glob `{}` was accepted when the memory file was loaded but cannot be compiled ({e}); \
             this is a bug of the glob limits in memory::glob, please report it",
            globs.first().map_or("", |g| g.glob())
        ),
    }
}

/// The distinct globs of a batch index, bucketed so that a path is checked
/// against the few globs that can match it, not against every glob of the
/// pool (globset tries each glob that shares an extension, `*.py`, one by
/// one):
///
/// - by the literal text that starts every path a glob matches (its
///   [`LiteralFilter::start`]: `src/api` for `src/api/**/*.py`), looked up
///   with each prefix of the path;
/// - a glob `**/NAME` (`NAME` without `/`, starting with literal text:
///   `**/test_*.py`) by that text, which starts the last segment of every
///   path it matches, looked up with each prefix of the path's last segment;
/// - any other glob (`**/*.sql`, `{a,b}/**`) is a candidate for every path.
///
/// A candidate is then checked with its [`LiteralFilter`], and, when that
/// cheap test passes, with the glob itself, compiled the first time it is
/// needed. The matches are exactly globset's for each glob, as one
/// `GlobSet` of them all gives: a glob is left out for a path only when the
/// path lacks text that every path the glob matches has.
#[derive(Debug)]
pub(super) struct PrefixSets {
    /// Per literal start: its globs.
    by_prefix: FxHashMap<Box<str>, Vec<usize>>,
    /// The byte lengths of those starts, ascending.
    lengths: Vec<usize>,
    /// Per literal start of the last segment (`**/NAME` globs): its globs.
    by_name: FxHashMap<Box<str>, Vec<usize>>,
    name_lengths: Vec<usize>,
    /// Every other glob.
    rest: Vec<usize>,
    /// Per glob, its matcher, made on first use.
    matchers: Vec<OnceLock<Matcher>>,
}

/// How one glob is matched: directly when it is simple ([`SimpleGlob`]),
/// else by globset's compiled regex.
#[derive(Debug)]
enum Matcher {
    Simple(SimpleGlob),
    Compiled(GlobMatcher),
}

impl Matcher {
    fn new(glob: &Glob) -> Matcher {
        match SimpleGlob::new(glob.glob()) {
            Some(simple) => Matcher::Simple(simple),
            None => Matcher::Compiled(glob.compile_matcher()),
        }
    }

    fn is_match(&self, path: &str) -> bool {
        match self {
            Matcher::Simple(simple) => simple.is_match(path),
            Matcher::Compiled(compiled) => compiled.is_match(path),
        }
    }
}

impl PrefixSets {
    pub(super) fn build(globs: &[Arc<Glob>], filters: &[LiteralFilter]) -> PrefixSets {
        let mut by_prefix: FxHashMap<Box<str>, Vec<usize>> = FxHashMap::default();
        let mut by_name: FxHashMap<Box<str>, Vec<usize>> = FxHashMap::default();
        let mut rest = Vec::new();
        for (g, (glob, filter)) in globs.iter().zip(filters).enumerate() {
            let start = filter.start();
            if !start.is_empty() {
                by_prefix.entry(start.into()).or_default().push(g);
            } else if let Some(name) = name_start(glob.glob()) {
                by_name.entry(name.into()).or_default().push(g);
            } else {
                rest.push(g);
            }
        }
        let lengths_of = |map: &FxHashMap<Box<str>, Vec<usize>>| {
            let mut lengths: Vec<usize> = map.keys().map(|p| p.len()).collect();
            lengths.sort_unstable();
            lengths.dedup();
            lengths
        };
        PrefixSets {
            lengths: lengths_of(&by_prefix),
            name_lengths: lengths_of(&by_name),
            by_prefix,
            by_name,
            rest,
            matchers: (0..globs.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The indices (ascending) of the globs (of `globs`, with their
    /// `filters`, those the buckets were built of) that match `path`.
    pub(super) fn matches_into(
        &self,
        globs: &[Arc<Glob>],
        filters: &[LiteralFilter],
        path: &str,
        out: &mut Vec<usize>,
    ) {
        out.clear();
        let mut check = |g: usize| {
            if filters[g].may_match(path) && self.matchers[g].get_or_init(|| Matcher::new(&globs[g])).is_match(path) {
                out.push(g);
            }
        };
        for_each_prefix(&self.by_prefix, &self.lengths, path, &mut check);
        let name = path.rsplit('/').next().unwrap_or(path);
        for_each_prefix(&self.by_name, &self.name_lengths, name, &mut check);
        self.rest.iter().for_each(|&g| check(g));
        out.sort_unstable();
    }
}

/// Calls `each` with the globs of every key of `map` (whose key lengths are
/// `lengths`, ascending) that starts `text`.
fn for_each_prefix(map: &FxHashMap<Box<str>, Vec<usize>>, lengths: &[usize], text: &str, each: &mut impl FnMut(usize)) {
    for &len in lengths {
        if len > text.len() {
            break;
        }
        if !text.is_char_boundary(len) {
            continue;
        }
        if let Some(globs) = map.get(&text[..len]) {
            globs.iter().for_each(|&g| each(g));
        }
    }
}

/// For a glob `**/NAME` whose `NAME` has no `/` and is made of literal text
/// and the wildcards `*` and `?` only: the literal text `NAME` starts with,
/// which starts the last segment of every path the glob matches (`*` and
/// `?` never match `/`). `None` for any other glob, or an empty start.
fn name_start(glob: &str) -> Option<&str> {
    let name = glob.strip_prefix("**/")?;
    let plain = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '*' | '?');
    if !name.chars().all(plain) {
        return None;
    }
    let start = &name[..name.find(['*', '?']).unwrap_or(name.len())];
    (!start.is_empty()).then_some(start)
}

impl Scopes {
    /// The indices (ascending) of the distinct globs that match `path`.
    ///
    /// With the sets built at load this is a few `GlobSet` lookups (see
    /// [`PrefixSets`]). Built for
    /// one query, compiling every glob's regex would dominate the query, so
    /// only the globs whose literal text can occur in `path` (a necessary
    /// condition, see [`LiteralFilter`]) are compiled, into one small
    /// `GlobSet`, and matched: the same globset semantics, on fewer globs.
    pub(super) fn matches_into(&self, path: &str, out: &mut Vec<usize>) {
        match &self.set {
            Some(set) => set.matches_into(&self.globs, &self.filters, path, out),
            None => {
                out.clear();
                let candidates: Vec<usize> =
                    (0..self.globs.len()).filter(|&g| self.filters[g].may_match(path)).collect();
                if candidates.is_empty() {
                    return;
                }
                let globs: Vec<&Glob> = candidates.iter().map(|&g| &*self.globs[g]).collect();
                let mut hits = Vec::new();
                GlobSets::build(&globs).matches_into(path, &mut hits);
                out.extend(hits.into_iter().map(|i| candidates[i]));
                out.sort_unstable();
            }
        }
    }
}

/// The literal runs of a glob that every path it matches must contain, in
/// order: a cheap necessary condition, never a sufficient one.
///
/// Globs made of letters, digits, `/ . _ -` and the wildcards `*` and `?`
/// are filtered by all their literal runs. Any other character (classes,
/// alternations, escapes, anything globset might treat specially) stops the
/// filter: only the plain text before it must start the path. A `/` next
/// to a wildcard or a special character is left out, because `**/` and
/// `/**` can match nothing at all.
#[derive(Debug)]
pub(super) struct LiteralFilter {
    /// The text between wildcards (empty where two are adjacent); the
    /// first must start the path and the last end it. `None`: only
    /// `prefix` is checked.
    runs: Option<Vec<Box<str>>>,
    /// Text every matching path starts with.
    prefix: Box<str>,
}

impl LiteralFilter {
    pub(super) fn new(glob: &str) -> LiteralFilter {
        let literal = |c: char| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-');
        if let Some(special) = glob.find(|c: char| !literal(c) && !matches!(c, '*' | '?')) {
            let head = &glob[..special];
            let head = &head[..head.find(|c: char| !literal(c)).unwrap_or(head.len())];
            let prefix = head.strip_suffix('/').unwrap_or(head);
            return LiteralFilter { runs: None, prefix: prefix.into() };
        }
        let pieces: Vec<&str> = glob.split(['*', '?']).collect();
        let last = pieces.len() - 1;
        let runs = pieces
            .iter()
            .enumerate()
            .map(|(i, &piece)| {
                let mut run = piece;
                if i > 0 {
                    run = run.strip_prefix('/').unwrap_or(run);
                }
                if i < last {
                    run = run.strip_suffix('/').unwrap_or(run);
                }
                Box::from(run)
            })
            .collect();
        LiteralFilter { runs: Some(runs), prefix: "".into() }
    }

    /// Text every path the glob matches starts with (empty when the glob
    /// starts with a wildcard).
    pub(super) fn start(&self) -> &str {
        match &self.runs {
            Some(runs) => runs.first().map_or("", |r| r),
            None => &self.prefix,
        }
    }

    /// False only when no path without the runs in order can match.
    pub(super) fn may_match(&self, path: &str) -> bool {
        let Some(runs) = &self.runs else { return path.starts_with(&*self.prefix) };
        let Some((first, others)) = runs.split_first() else { return true };
        let Some(mut rest) = path.strip_prefix(&**first) else { return false };
        let Some((last, middle)) = others.split_last() else { return true };
        for run in middle.iter().filter(|r| !r.is_empty()) {
            match rest.find(&**run) {
                Some(i) => rest = &rest[i + run.len()..],
                None => return false,
            }
        }
        rest.ends_with(&**last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_filter_never_drops_a_path_globset_matches() {
        let globs = [
            "services/payments/",
            "services/payments/**",
            "**/test_*.py",
            "a/**/b",
            "a/**",
            "src/a**",
            "src/*.rs",
            "src/?.rs",
            "**",
            "*",
            "x",
            "/abs/*.rs",
            "**/b/**",
            "a/*/c",
            "a*b*c",
            "web/{app,lib}/*.ts",
            "v[12]/x",
            "**/*",
            "a/**/**/b",
            "*/x/*",
            "?",
            "a?b",
            "lit/eral.txt",
            "ün/*.py",
            "src/x/**/*.{rs,py}",
            "src/{a,b}/**",
            "src/x/[ab]*/c",
            "src/x/",
            "a/{b,c/d}/e",
            "s?c/{x}",
            "src/x/**/{c,d}.rs",
            "a\\*b",
            "**/.git/**",
            "**/x?y.rs",
            "**/test_*",
            "**/ün*.py",
        ];
        let paths = [
            "services/payments/refunds.py",
            "services/payments",
            "services/paymentsx/a.py",
            "a/b",
            "a/x/y/b",
            "a",
            "ab",
            "a/b/c",
            "abc",
            "axbxc",
            "src/abc",
            "src/a/b",
            "src/x.rs",
            "src/ab.rs",
            "test_x.py",
            "q/test_x.py",
            "x",
            "y/x",
            "/abs/a.rs",
            "b",
            "b/c",
            "x/b/y",
            "web/lib/x.ts",
            "v2/x",
            "a/b/b",
            "lit/eral.txt",
            "ün/a.py",
            "src/x/a.rs",
            "src/x/y/z.py",
            "src/x",
            "src/a/q",
            "src/b",
            "src/x/a1/c",
            "src/x/b/c",
            "a/c/d/e",
            "a/b/e",
            "sxc/x",
            "src/x/c.rs",
            "a*b",
            ".git/x",
            "p/.git/q",
            "",
            "/",
            "a/",
            "x/x/x",
        ];
        for glob in globs {
            let compiled = crate::memory::compile_glob(glob).unwrap();
            let matcher = compiled.compile_matcher();
            let filter = LiteralFilter::new(compiled.glob());
            for path in paths {
                if matcher.is_match(path) {
                    assert!(filter.may_match(path), "{glob} matches {path} but the filter drops it");
                    assert!(
                        path.starts_with(filter.start()),
                        "{glob} matches {path}, which does not start with its start"
                    );
                }
            }
        }
        // Bucketed by their starts, the globs match what one set of them matches.
        let compiled: Vec<Arc<Glob>> =
            globs.iter().map(|g| Arc::new(crate::memory::compile_glob(g).unwrap())).collect();
        let filters: Vec<LiteralFilter> = compiled.iter().map(|g| LiteralFilter::new(g.glob())).collect();
        let bucketed = PrefixSets::build(&compiled, &filters);
        let one = GlobSets::build(&compiled.iter().map(|g| &**g).collect::<Vec<_>>());
        let more =
            ["ün", "ü", "services", "src/x/a1/c/d", "a/x1y.rs", "x1y.rs", "/x1y.rs", "a/x1y.rs/", "test_", "q/ün1.py"];
        for path in paths.iter().chain(&more) {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            one.matches_into(path, &mut want);
            bucketed.matches_into(&compiled, &filters, path, &mut got);
            assert_eq!(got, want, "{path}");
        }
        assert!(!LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("services/payments/refunds.py"));
        assert!(LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("src/jeam/a.rs"));
        let filter = LiteralFilter::new("**/tradrefer_*.py");
        assert!(!filter.may_match("services/payments/refunds.py"));
        assert!(filter.may_match("x/tradrefer_a.py"));
    }
}
