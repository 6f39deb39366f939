/*!
Small helpers for the wording of messages: the allowed key that a typo most
likely meant, and a message folded onto one line.

A leaf: it knows nothing of suites, YAML or JSON, and it decides nothing
about what a message says.
*/

/// `s` with every run of whitespace, newlines included, as one space.
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The allowed key closest to `key`, if it is close enough to be a typo.
pub(super) fn suggest(key: &str, allowed: &[&str]) -> Option<String> {
    allowed
        .iter()
        .map(|a| (edit_distance(key, a), *a))
        .filter(|(d, a)| *d <= 2.max(a.len() / 4) && *d < a.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a.to_string())
}

/// The Levenshtein distance between `a` and `b`, counted in characters.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
