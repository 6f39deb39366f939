//! Unique ids for sections that repeat a heading (`## Rules` twice gives
//! `x/rules` and `x/rules-2`), in time linear in the sections: a file of
//! thousands of identical headings must not take quadratic time.

use std::collections::{HashMap, HashSet};

/// The ids given so far, and for each id asked for twice the next suffix
/// to try.
#[derive(Debug, Default)]
pub(crate) struct Used {
    ids: HashSet<String>,
    next: HashMap<String, u64>,
}

/// `id` when it is not used yet, else `id-K` for the smallest `K` of 2 or
/// more that is free; the id returned is marked used. Each suffix tried is
/// tried once per id, so `n` calls take time linear in `n`.
pub(crate) fn unique_id(used: &mut Used, id: String) -> String {
    if used.ids.insert(id.clone()) {
        return id;
    }
    let mut k = used.next.get(&id).copied().unwrap_or(2);
    let mut candidate = format!("{id}-{k}");
    while used.ids.contains(&candidate) {
        k += 1;
        candidate = format!("{id}-{k}");
    }
    used.next.insert(id, k + 1);
    used.ids.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_get_the_smallest_free_suffix() {
        let mut used = Used::default();
        let ids: Vec<String> =
            ["a", "a", "a-2", "a", "a-3", "a", "b"].iter().map(|s| unique_id(&mut used, s.to_string())).collect();
        // `a-2` asked for after it was given: it gets `a-2-2`.
        assert_eq!(ids, ["a", "a-2", "a-2-2", "a-3", "a-3-2", "a-4", "b"]);
    }

    #[test]
    fn many_repeats_take_linear_time() {
        // 200,000 identical headings: quadratic would be 2e10 probes.
        let mut used = Used::default();
        let mut last = String::new();
        for _ in 0..200_000 {
            last = unique_id(&mut used, "x/rules".into());
        }
        assert_eq!(last, "x/rules-200000");
    }
}
