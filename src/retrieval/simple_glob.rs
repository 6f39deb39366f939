//! Matching the common scope globs without compiling a regex.
//!
//! A scope glob is compiled by globset into a regex the first time a path
//! needs it, and the regex is kept until the process ends: on a memory of
//! 5,000 decisions and 3,600 distinct globs, those regexes held 10.6 MiB,
//! and building them took about 2 % of a run. Most scope globs are plain
//! paths with `*`, `?` and `**` (`services/payments/**`, `**/test_*.py`,
//! `src/*/mod.rs`), which this matches directly, component by component,
//! exactly as globset matches them with `literal_separator` set (what
//! `memory::compile_glob` builds): `*` is any run of bytes but `/`, `?` one
//! byte but `/`, `**` as a whole component any number of components (at
//! least one when it ends the glob, as globset's trailing `/**` is `/.*`).
//! Any other glob (a class `[...]`, alternatives `{a,b}`, an escape, `**`
//! inside a component) is left to globset. Differential tests below hold
//! both to the same answers.

/// A glob made only of literal bytes, `*`, `?` and whole-component `**`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SimpleGlob {
    /// The glob's components, split at `/`.
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// `**`: any number of components.
    AnyComponents,
    /// Literal bytes, `*` and `?`, within one component.
    Component(Box<[u8]>),
}

impl SimpleGlob {
    /// The glob, when it is simple enough to be matched here; `None` for
    /// anything globset must match.
    pub(super) fn new(glob: &str) -> Option<SimpleGlob> {
        if glob.bytes().any(|b| matches!(b, b'[' | b']' | b'{' | b'}' | b'\\')) {
            return None;
        }
        // globset reads a leading `**/` as one token, and a glob that is
        // that token alone as `**`: everything.
        let glob = if glob == "**/" { "**" } else { glob };
        let mut parts = Vec::new();
        for component in glob.split('/') {
            if component == "**" {
                // Two in a row are one, as globset reads them (`a/**/**/b`
                // is `a/**/b`; the trailing `/` of a scope makes `a/**/`
                // `a/**/**`, which is `a/**`).
                if parts.last() != Some(&Part::AnyComponents) {
                    parts.push(Part::AnyComponents);
                }
            } else if component.contains("**") {
                return None;
            } else {
                parts.push(Part::Component(component.as_bytes().into()));
            }
        }
        Some(SimpleGlob { parts })
    }

    /// Whether `path` matches the glob, as globset's matcher says.
    pub(super) fn is_match(&self, path: &str) -> bool {
        // The whole glob `**` is everything (a path always has a component,
        // if only an empty one).
        if let [Part::AnyComponents] = self.parts.as_slice() {
            return true;
        }
        let components: Vec<&[u8]> = path.as_bytes().split(|&b| b == b'/').collect();
        matches_from(&self.parts, &components)
    }
}

/// Whether `components` match `parts`: a `**` takes any number of
/// components, at least one when it is the last part (`a/**` is `a/.*`:
/// `a` alone does not match, `a/` does). The `**` parts are few, so the
/// backtracking stays small.
fn matches_from(parts: &[Part], components: &[&[u8]]) -> bool {
    match parts.split_first() {
        None => components.is_empty(),
        Some((Part::AnyComponents, rest)) => {
            if rest.is_empty() {
                return !components.is_empty();
            }
            (0..=components.len()).any(|skip| matches_from(rest, &components[skip..]))
        }
        Some((Part::Component(pattern), rest)) => match components.split_first() {
            Some((first, others)) => wildcard_match(pattern, first) && matches_from(rest, others),
            None => false,
        },
    }
}

/// Whether `text` (one component: no `/`) matches `pattern`, whose `*` is
/// any run of bytes and `?` any one byte: the classic greedy match that
/// backtracks to the last `*` only.
fn wildcard_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn globset_says(glob: &str, path: &str) -> bool {
        crate::memory::compile_glob(glob).unwrap().compile_matcher().is_match(path)
    }

    /// The glob as the memory compiled it (a trailing `/` is `/**`).
    fn simple(glob: &str) -> Option<SimpleGlob> {
        SimpleGlob::new(crate::memory::compile_glob(glob).unwrap().glob())
    }

    #[test]
    fn the_common_scope_globs_match_as_globset_matches_them() {
        let globs = [
            "**",
            "**/",
            "**/*.py",
            "**/test_*.py",
            "services/payments/**",
            "services/payments/",
            "services/payments",
            "src/*/mod.rs",
            "src/**/*.rs",
            "a/**/b/**",
            "a?c/*",
            "*",
            "/**",
            "a//b",
            "*.*",
            "**/ü*",
            "caf?",
            "a/**/",
            "a/**/**/b",
            "**/**",
        ];
        let paths = [
            "",
            "/",
            "a",
            "a/",
            "a/b",
            "a//b",
            "a/x/b/c",
            "a/b/",
            "abc/d",
            "abc/d/e",
            "services/payments",
            "services/payments/",
            "services/payments/refunds.py",
            "services/payments/x/y.py",
            "services/paymentsx/y.py",
            "src/x/mod.rs",
            "src/x/y/mod.rs",
            "src/mod.rs",
            "src/a.rs",
            "x/test_a.py",
            "test_a.py",
            "/test_a.py",
            "x.py",
            "ün/üx",
            "üx",
            "café",
            "cafe",
            "a/x/",
        ];
        for glob in globs {
            let simple = simple(glob).unwrap_or_else(|| panic!("{glob} is simple"));
            for path in paths {
                assert_eq!(simple.is_match(path), globset_says(glob, path), "{glob} on {path:?}");
            }
        }
    }

    #[test]
    fn anything_else_is_left_to_globset() {
        for glob in ["*.{rs,py}", "[ab]/x", "a\\*b", "a**", "**b/c", "x/***"] {
            assert_eq!(simple(glob), None, "{glob}");
        }
    }

    /// A glob of a few components, each `**` or a few of `a`, `b`, `ü`,
    /// `.`, `*`, `?`; and paths over the same bytes.
    fn glob_strategy() -> impl Strategy<Value = String> {
        let component = prop_oneof![
            1 => Just("**".to_string()),
            4 => proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("ü"), Just("."), Just("*"), Just("?")], 0..4)
                .prop_map(|v| v.concat()),
        ];
        proptest::collection::vec(component, 1..5).prop_map(|v| v.join("/"))
    }

    fn path_strategy() -> impl Strategy<Value = String> {
        proptest::collection::vec(prop_oneof![Just("a"), Just("b"), Just("ü"), Just("."), Just("/")], 0..8)
            .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        #[test]
        fn a_simple_glob_matches_what_globset_matches(glob in glob_strategy(), paths in proptest::collection::vec(path_strategy(), 1..12)) {
            let Ok(compiled) = crate::memory::compile_glob(&glob) else { return Ok(()) };
            let Some(simple) = SimpleGlob::new(compiled.glob()) else { return Ok(()) };
            let matcher = compiled.compile_matcher();
            for path in &paths {
                prop_assert_eq!(simple.is_match(path), matcher.is_match(path), "{} on {:?}", glob, path);
            }
        }
    }
}
