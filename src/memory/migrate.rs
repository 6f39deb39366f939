/*!
Mneme 0.10's migration of item records (spec §1), applied under profile
`mneme` only: an item becomes a decision the way Mneme's own loader rewrites
it, so that retrieval scores what Mneme scores.

It deliberately does nothing else: which item types reach the pool is a pool
rule (`memory::pool`), and profile `default` never migrates.
*/

use super::Decision;

/// Rewrites an item record of type `item_type` as Mneme does (whatever the
/// type; only `rule` and `anti_pattern` reach the pool): the content becomes
/// the one constraint, tags become `general`, scope is dropped, and an
/// anti-pattern is titled `Avoid: …` with its title as the anti-pattern.
pub(super) fn migrate(d: &mut Decision, item_type: &str) {
    let content = std::mem::take(&mut d.content);
    let constraint = if content.is_empty() { Vec::new() } else { vec![content] };
    d.tags = vec!["general".to_string()];
    d.constraint = constraint;
    d.paths.clear();
    d.globs.clear();
    if item_type == "anti_pattern" {
        d.anti_patterns = vec![d.title.clone()];
        d.title = format!("Avoid: {}", d.title);
    } else {
        d.anti_patterns.clear();
    }
}
