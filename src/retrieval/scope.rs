//! The scope pre-filter: which of the pool's distinct scope globs match a
//! path, with one `GlobSet` built for all queries, or, for an index that
//! answers one query, with only the globs a cheap literal test keeps.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The distinct scope globs of the pool and how a path is matched to them.
#[derive(Debug)]
pub(super) struct Scopes {
    /// All distinct globs compiled at build (batch use), or `None` when
    /// built for one query (see [`Index::build_for_query`]).
    pub(super) set: Option<GlobSets>,
    /// Per distinct glob: the decisions that carry it.
    pub(super) owner: Vec<Vec<u32>>,
    /// Per distinct glob: the glob (as compiled at load).
    pub(super) globs: Vec<Glob>,
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

impl Scopes {
    /// The indices (ascending) of the distinct globs that match `path`.
    ///
    /// With the set built at load this is one `GlobSet` lookup. Built for
    /// one query, compiling every glob's regex would dominate the query, so
    /// only the globs whose literal text can occur in `path` (a necessary
    /// condition, see [`LiteralFilter`]) are compiled, into one small
    /// `GlobSet`, and matched: the same globset semantics, on fewer globs.
    pub(super) fn matches_into(&self, path: &str, out: &mut Vec<usize>) {
        match &self.set {
            Some(set) => set.matches_into(path, out),
            None => {
                out.clear();
                let candidates: Vec<usize> =
                    (0..self.globs.len()).filter(|&g| self.filters[g].may_match(path)).collect();
                if candidates.is_empty() {
                    return;
                }
                let globs: Vec<&Glob> = candidates.iter().map(|&g| &self.globs[g]).collect();
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
                }
            }
        }
        assert!(!LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("services/payments/refunds.py"));
        assert!(LiteralFilter::new("src/jeam/**/*.{rs,py}").may_match("src/jeam/a.rs"));
        let filter = LiteralFilter::new("**/tradrefer_*.py");
        assert!(!filter.may_match("services/payments/refunds.py"));
        assert!(filter.may_match("x/tradrefer_a.py"));
    }
}
