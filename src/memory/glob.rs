/*!
Scope globs (spec §5): how an item record's `scope` strings compile, once,
at load time, so that an invalid glob is a diagnostic with a line and column
rather than a failure in the middle of retrieval.

It deliberately only compiles: matching paths against the globs (and the
glob sets built from them) belongs to `retrieval`.
*/

use globset::{Glob, GlobBuilder};

/// Compiles one scope glob with the semantics of spec §5: `/` is only
/// matched literally, a trailing `/` means everything under that folder.
/// The error is a sentence for a diagnostic.
pub(crate) fn compile_glob(pattern: &str) -> Result<Glob, String> {
    if pattern.is_empty() {
        return Err("the glob is empty".into());
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
    }
}
