/*!
Scope globs (spec §5): how an item record's `scope` strings compile, once,
at load time, so that an invalid glob is a diagnostic with a line and column
rather than a failure in the middle of retrieval.

It deliberately only compiles: matching paths against the globs (and the
glob sets built from them) belongs to `retrieval`.

Why the limits ([`MAX_GLOB_BYTES`], [`MAX_GLOB_NESTING`]): `Glob::new` only
parses; the regex behind a glob is compiled later, when `retrieval` builds
its `GlobSet`, and that can fail (regex nesting past 250 levels, an
automaton past 10 MiB). A glob that parses but cannot compile must be
refused here, with its line and column, and not found out in the middle of
retrieval. Both limits are far above any real path glob and keep every glob
that passes them compilable on its own, which `retrieval` relies on (a test
below holds the worst globs within the limits to it).
*/

use globset::{Glob, GlobBuilder};

/// The longest scope glob accepted, in bytes. A glob compiles to roughly
/// 100 bytes of automaton per byte at worst (`*?*?…`), against globset's
/// limit of 10 MiB per set: 4 KiB keeps a glob 25 times below it.
pub(crate) const MAX_GLOB_BYTES: usize = 4096;

/// The deepest nesting of alternations `{…}` accepted. Each level is a
/// group of the regex, whose parser refuses more than 250.
pub(crate) const MAX_GLOB_NESTING: usize = 32;

/// Compiles one scope glob with the semantics of spec §5: `/` is only
/// matched literally, a trailing `/` means everything under that folder.
/// The error is a sentence for a diagnostic.
pub(crate) fn compile_glob(pattern: &str) -> Result<Glob, String> {
    if pattern.is_empty() {
        return Err("the glob is empty".into());
    }
    if pattern.len() > MAX_GLOB_BYTES {
        return Err(format!(
            "the glob is {} bytes long, more than the {MAX_GLOB_BYTES} allowed: shorten it, or split it into several `scope` entries",
            pattern.len()
        ));
    }
    let nesting = brace_nesting(pattern);
    if nesting > MAX_GLOB_NESTING {
        return Err(format!(
            "alternations `{{...}}` are nested {nesting} deep, more than the {MAX_GLOB_NESTING} allowed: flatten them (`{{a,b,c}}` rather than `{{a,{{b,{{c}}}}}}`), or split the glob into several `scope` entries"
        ));
    }
    let expanded;
    let pattern = if pattern.ends_with('/') {
        expanded = format!("{pattern}**");
        expanded.as_str()
    } else {
        pattern
    };
    GlobBuilder::new(pattern).literal_separator(true).build().map_err(|e| match e.kind() {
        globset::ErrorKind::UnclosedClass => "unclosed character class `[`: close it with `]`".to_string(),
        globset::ErrorKind::UnclosedAlternates => "unclosed alternation `{`: close it with `}`".to_string(),
        globset::ErrorKind::UnopenedAlternates => "`}` without a matching `{`".to_string(),
        globset::ErrorKind::NestedAlternates => "nested alternations `{a,{b,c}}` are not supported".to_string(),
        _ => e.kind().to_string(),
    })
}

/// A glob as quoted in a message: whole when short, else its start, an
/// ellipsis and its length, so that a hostile glob cannot flood the output.
pub(super) fn quoted(pattern: &str) -> String {
    const SHOWN: usize = 60;
    if pattern.chars().count() <= SHOWN {
        return format!("\"{pattern}\"");
    }
    let head: String = pattern.chars().take(SHOWN).collect();
    format!("\"{head}...\" ({} bytes)", pattern.len())
}

/// How deep `{` nest in `pattern`, every `{` and `}` counted, escaped or
/// inside a class: never less than the nesting globset sees.
fn brace_nesting(pattern: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in pattern.bytes() {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_the_spec_forms() {
        let matches = |glob: &str, path: &str| compile_glob(glob).unwrap().compile_matcher().is_match(path);
        assert!(matches("services/payments/", "services/payments/a/b.py"));
        assert!(!matches("services/payments/", "services/paymentsx/a.py"));
        assert!(matches("src/*.rs", "src/a.rs"));
        assert!(!matches("src/*.rs", "src/x/a.rs"));
        assert!(!matches("src/?.rs", "src//.rs"));
        assert!(matches("**/test_*.py", "a/b/test_x.py"));
        assert!(matches("**/test_*.py", "test_x.py"));
        assert!(matches("a/**/b", "a/b"));
        assert!(matches("a/**/b", "a/x/y/b"));
        assert!(matches("a/**", "a/x/y"));
        assert!(matches("src/a**", "src/abc"));
        assert!(!matches("src/a**", "src/a/b"));
        assert!(matches("web/{app,lib}/*.ts", "web/lib/x.ts"));
        assert!(matches("v[12]/x", "v2/x"));
        assert!(!matches("v[!12]/x", "v2/x"));
        assert!(!matches("Src/*", "src/a"));
        assert!(!matches("src/*", "x/src/a"));
        assert!(compile_glob("src/[ab").is_err());
        assert!(compile_glob("").is_err());
        assert!(matches("src/{a,{b,c}}/x", "src/c/x"));
    }

    /// A glob that parses but whose regex cannot be compiled is refused at
    /// load, with what to do; every glob within the limits compiles alone.
    #[test]
    fn globs_that_could_not_be_compiled_are_refused() {
        let compiles_alone = |glob: Glob| globset::GlobSetBuilder::new().add(glob).build().is_ok();
        let deep = |n: usize| format!("{}a{}", "{".repeat(n), "}".repeat(n));
        for n in [250, 130, 33] {
            let e = compile_glob(&deep(n)).unwrap_err();
            assert!(
                e.starts_with(&format!(
                    "alternations `{{...}}` are nested {n} deep, more than the 32 allowed: flatten them"
                )),
                "{e}"
            );
        }
        assert_eq!(quoted(&deep(250)), format!("\"{}...\" (501 bytes)", "{".repeat(60)));
        assert_eq!(quoted("src/é/"), "\"src/é/\"");
        let e = compile_glob(&"*?".repeat(60_000)).unwrap_err();
        assert_eq!(
            e,
            "the glob is 120000 bytes long, more than the 4096 allowed: shorten it, or split it into several `scope` entries"
        );
        let worst = [
            deep(MAX_GLOB_NESTING),
            format!("{}{}{}", "{*?,".repeat(MAX_GLOB_NESTING), "*?".repeat(1900), "}".repeat(MAX_GLOB_NESTING)),
            "*?".repeat(MAX_GLOB_BYTES / 2),
            "{*,?}".repeat(MAX_GLOB_BYTES / 5),
            "[!é]".repeat(MAX_GLOB_BYTES / 5),
            "**/".repeat(MAX_GLOB_BYTES / 3),
            format!("{}/", "a".repeat(MAX_GLOB_BYTES - 1)),
        ];
        for glob in worst {
            assert!(glob.len() <= MAX_GLOB_BYTES, "{}", glob.len());
            let compiled = compile_glob(&glob).unwrap_or_else(|e| panic!("{e}: {glob}"));
            assert!(compiles_alone(compiled), "{glob}");
        }
    }
}
