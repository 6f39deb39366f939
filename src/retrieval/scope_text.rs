//! The scope pre-filter for an index kept outside [`super::Index`] (the
//! compiled cache of `crate::cache`), which holds its scope globs as text.
//!
//! It matches a path the way an index built for one query does (see
//! `Scopes::matches_into`): only the globs whose literal text can occur in
//! the path are compiled, with the options the memory file's globs were
//! compiled with, into one small `GlobSet`. The semantics are globset's,
//! the same as the index's, so a compiled cache can never scope a query
//! differently from the index.

use globset::Glob;

use super::scope::{GlobSets, LiteralFilter};

/// The indices (ascending) of the glob texts (as compiled at load, a
/// trailing `/` already expanded: [`Glob::glob`]) that match `path`.
///
/// A text that does not compile is an error: the texts come from a cache
/// file, which is never trusted.
pub fn scope_matches(globs: &[&str], path: &str, out: &mut Vec<usize>) -> Result<(), String> {
    out.clear();
    let candidates: Vec<usize> = (0..globs.len()).filter(|&g| LiteralFilter::new(globs[g]).may_match(path)).collect();
    if candidates.is_empty() {
        return Ok(());
    }
    let mut compiled: Vec<Glob> = Vec::with_capacity(candidates.len());
    for &g in &candidates {
        let glob = crate::memory::compile_glob(globs[g])?;
        if glob.glob() != globs[g] {
            // A text ending in `/` expands: it was never a compiled glob's text.
            return Err(format!("`{}` is not the text of a compiled glob", globs[g]));
        }
        compiled.push(glob);
    }
    let mut hits = Vec::new();
    GlobSets::build(&compiled.iter().collect::<Vec<_>>()).matches_into(path, &mut hits);
    out.extend(hits.into_iter().map(|i| candidates[i]));
    out.sort_unstable();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_as_a_glob_set_of_the_compiled_globs_does() {
        let written = ["services/payments/", "**/test_*.py", "src/{a,b}/**", "docs/*.md", "x"];
        let compiled: Vec<Glob> = written.iter().map(|g| crate::memory::compile_glob(g).unwrap()).collect();
        let texts: Vec<&str> = compiled.iter().map(Glob::glob).collect();
        let all = GlobSets::build(&compiled.iter().collect::<Vec<_>>());
        for path in
            ["services/payments/refunds.py", "a/test_x.py", "src/b/c/d", "docs/a.md", "docs/a/b.md", "x", "y", ""]
        {
            let (mut want, mut got) = (Vec::new(), Vec::new());
            all.matches_into(path, &mut want);
            scope_matches(&texts, path, &mut got).unwrap();
            assert_eq!(got, want, "{path}");
        }
    }

    #[test]
    fn a_text_that_is_no_compiled_glob_is_an_error() {
        let mut out = Vec::new();
        assert!(scope_matches(&["src/"], "src/a", &mut out).is_err(), "a trailing `/` is expanded at load");
        assert!(scope_matches(&["src/[a"], "src/a", &mut out).is_err());
        assert!(scope_matches(&["other/[a"], "src/a", &mut out).is_ok(), "not a candidate: never compiled");
    }
}
