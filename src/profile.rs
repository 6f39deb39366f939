/*!
Scoring profiles (spec §3-4, §6): the named starting points `default` and
`mneme`, and the effective profile after configuration overrides.

Weights, the tag boost and `min_score` are held in integer thousandths
([`Milli`]) so that a score is an exact integer sum and two machines can
never disagree on a tie.
*/

use std::fmt;

use serde::{Serialize, Serializer};

/// Profile `default`'s abstention threshold: a decision must score above
/// it to be retrieved (calibrated as `docs/retrieval.md` says).
pub const DEFAULT_MIN_SCORE: Milli = Milli(5000);

/// An exact decimal with three fractional digits, stored as thousandths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Milli(pub i64);

impl Milli {
    pub const ZERO: Milli = Milli(0);

    /// Converts a configured number; refuses more than three decimal places
    /// and values too large to add up safely.
    pub fn from_f64(value: f64) -> Result<Milli, String> {
        if !value.is_finite() {
            return Err(format!("{value} is not a finite number"));
        }
        let scaled = value * 1000.0;
        let rounded = scaled.round();
        if (scaled - rounded).abs() > 1e-6 * rounded.abs().max(1.0) {
            return Err(format!("{value} has more than three decimal places"));
        }
        if rounded.abs() > 1e12 {
            return Err(format!("{value} is too large"));
        }
        Ok(Milli(rounded as i64))
    }

    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl fmt::Display for Milli {
    /// At most three fractional digits, at least one: `7.5`, `3.0`, `0.125`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (int, frac) = (abs / 1000, abs % 1000);
        let mut digits = format!("{frac:03}");
        while digits.len() > 1 && digits.ends_with('0') {
            digits.pop();
        }
        write!(f, "{sign}{int}.{digits}")
    }
}

impl Serialize for Milli {
    /// A JSON number whose shortest representation is the exact decimal.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

impl schemars::JsonSchema for Milli {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Milli".into()
    }

    fn inline_schema() -> bool {
        true
    }

    /// What [`Milli`] serialises to: a number, exact to three decimals.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "number", "description": "An exact decimal with at most three digits after the point."})
    }
}

/// The family decides what overrides cannot change: the tokenizer, how item
/// records migrate, which item types are eligible, and the empty-query rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Default,
    Mneme,
}

impl Family {
    pub fn parse(name: &str) -> Option<Family> {
        match name {
            "default" => Some(Family::Default),
            "mneme" => Some(Family::Mneme),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Default => "default",
            Family::Mneme => "mneme",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Weights {
    pub title: Milli,
    pub tags: Milli,
    pub constraint: Milli,
    pub anti_patterns: Milli,
    pub content: Milli,
}

/// The scored fields, in the order explain and the index use: the five
/// canonical fields, which every profile scores, then the five sections of
/// an ADR ([`crate::memory::Sections`]), which only profile `default` scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Title,
    Tags,
    Constraint,
    AntiPatterns,
    Content,
    Summary,
    Decision,
    Context,
    Options,
    Consequences,
}

impl Field {
    /// The canonical fields (profiles `classic` and `mneme` score these only).
    pub const ALL: [Field; 5] = [Field::Title, Field::Tags, Field::Constraint, Field::AntiPatterns, Field::Content];
    /// The section fields, scored by profile `default` only.
    pub const SECTIONS: [Field; 5] =
        [Field::Summary, Field::Decision, Field::Context, Field::Options, Field::Consequences];
    /// Every field, canonical first.
    pub const EVERY: [Field; 10] = [
        Field::Title,
        Field::Tags,
        Field::Constraint,
        Field::AntiPatterns,
        Field::Content,
        Field::Summary,
        Field::Decision,
        Field::Context,
        Field::Options,
        Field::Consequences,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Tags => "tags",
            Field::Constraint => "constraint",
            Field::AntiPatterns => "anti_patterns",
            Field::Content => "content",
            Field::Summary => "summary",
            Field::Decision => "decision",
            Field::Context => "context",
            Field::Options => "options",
            Field::Consequences => "consequences",
        }
    }
}

impl Weights {
    /// The weight of a canonical field (0 for a section field, which only
    /// [`Bm25f::sections`] weighs).
    pub fn of(&self, field: Field) -> Milli {
        match field {
            Field::Title => self.title,
            Field::Tags => self.tags,
            Field::Constraint => self.constraint,
            Field::AntiPatterns => self.anti_patterns,
            Field::Content => self.content,
            _ => Milli::ZERO,
        }
    }
}

/// The weights of the section fields (profile `default` only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SectionWeights {
    pub summary: Milli,
    pub decision: Milli,
    pub context: Milli,
    pub options: Milli,
    pub consequences: Milli,
}

/// The constants of profile `default`'s scoring (BM25F over token sets, in
/// exact integer arithmetic: see `docs/retrieval.md` and
/// [`crate::retrieval::bm25`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Bm25f {
    /// Saturation: a term's weighted, length-normalised occurrence `x`
    /// counts `x × (k1 + 1) / (k1 + x)`.
    pub k1: Milli,
    /// Length normalisation (0 none, 1 full), the same for every field.
    pub b: Milli,
    /// A token of the edited file's path that is not a task token counts
    /// this share of its score ...
    pub path_weight: Milli,
    /// ... and only when at most this share of the pool's decisions hold it
    /// (an informative path segment; `src` and the project's name are not).
    pub path_max_df: Milli,
    pub sections: SectionWeights,
    /// A task that is a chore ([`crate::chore`]: a typo fix, a dependency
    /// bump, a formatting, changelog or documentation-only change)
    /// retrieves nothing.
    pub skip_chores: bool,
}

impl Bm25f {
    pub fn section(&self, field: Field) -> Milli {
        match field {
            Field::Summary => self.sections.summary,
            Field::Decision => self.sections.decision,
            Field::Context => self.sections.context,
            Field::Options => self.sections.options,
            Field::Consequences => self.sections.consequences,
            _ => Milli::ZERO,
        }
    }
}

/// A profile as named on the command line or in `mneme-gate.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// mneme-gate's BM25F profile.
    Default,
    /// mneme-gate's first profile (weighted token overlap), kept unchanged.
    Classic,
    /// Mneme 0.10.0, as published.
    Mneme,
}

impl Named {
    pub fn parse(name: &str) -> Option<Named> {
        match name {
            "default" => Some(Named::Default),
            "classic" => Some(Named::Classic),
            "mneme" => Some(Named::Mneme),
            _ => None,
        }
    }

    pub fn family(self) -> Family {
        match self {
            Named::Default | Named::Classic => Family::Default,
            Named::Mneme => Family::Mneme,
        }
    }
}

/// The effective profile: everything that decides a ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Profile {
    /// The named profile this one starts from.
    pub name: &'static str,
    #[serde(skip)]
    pub family: Family,
    pub weights: Weights,
    pub tag_boost: Milli,
    pub min_token_len: usize,
    pub stem: bool,
    pub k: usize,
    pub min_score: Milli,
    /// Profile `default`'s BM25F constants; `None` for the token-overlap
    /// profiles `classic` and `mneme` (whose reports keep their bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25f: Option<Bm25f>,
}

impl Profile {
    /// The named profile of a family: `default` or `mneme`.
    pub fn named(family: Family) -> Profile {
        match family {
            Family::Default => Profile::of(Named::Default),
            Family::Mneme => Profile::of(Named::Mneme),
        }
    }

    /// A named profile, as published.
    pub fn of(named: Named) -> Profile {
        match named {
            Named::Default => Profile {
                name: "default",
                family: Family::Default,
                weights: Weights {
                    title: Milli(5000),
                    tags: Milli(2500),
                    constraint: Milli(1000),
                    anti_patterns: Milli(1500),
                    content: Milli(1500),
                },
                tag_boost: Milli(1000),
                min_token_len: 3,
                stem: false,
                k: 3,
                min_score: DEFAULT_MIN_SCORE,
                bm25f: Some(Bm25f {
                    k1: Milli(10000),
                    b: Milli(500),
                    path_weight: Milli(500),
                    path_max_df: Milli(500),
                    sections: SectionWeights {
                        summary: Milli(2000),
                        decision: Milli(500),
                        context: Milli(750),
                        options: Milli(1000),
                        consequences: Milli(500),
                    },
                    skip_chores: true,
                }),
            },
            Named::Classic => Profile {
                name: "classic",
                family: Family::Default,
                weights: Weights {
                    title: Milli(3000),
                    tags: Milli(2500),
                    constraint: Milli(1500),
                    anti_patterns: Milli(1500),
                    content: Milli(1000),
                },
                tag_boost: Milli(1000),
                min_token_len: 3,
                stem: false,
                k: 3,
                min_score: Milli::ZERO,
                bm25f: None,
            },
            Named::Mneme => Profile {
                name: "mneme",
                family: Family::Mneme,
                weights: Weights {
                    title: Milli(1000),
                    tags: Milli(2000),
                    constraint: Milli(1500),
                    anti_patterns: Milli(1500),
                    content: Milli(500),
                },
                tag_boost: Milli::ZERO,
                min_token_len: 4,
                stem: false,
                k: 3,
                min_score: Milli::ZERO,
                bm25f: None,
            },
        }
    }

    /// The named profile this one starts from.
    pub fn base(&self) -> Profile {
        Named::parse(self.name).map_or_else(|| Profile::named(self.family), Profile::of)
    }

    /// Whether the profile scores an ADR's sections (profile `default`):
    /// then `content` also holds the text of its Context's and Decision's
    /// sub-sections ([`crate::retrieval::field_texts`]).
    pub fn reads_sections(&self) -> bool {
        self.bm25f.is_some()
    }

    /// The fields this profile scores: the five canonical ones, and under
    /// BM25F the five sections too.
    pub fn fields(&self) -> &'static [Field] {
        if self.bm25f.is_some() {
            &Field::EVERY
        } else {
            &Field::ALL
        }
    }

    /// The weight of any field (0 for a section field without BM25F).
    pub fn weight(&self, field: Field) -> Milli {
        match (&self.bm25f, field) {
            (Some(b), Field::Summary | Field::Decision | Field::Context | Field::Options | Field::Consequences) => {
                b.section(field)
            }
            _ => self.weights.of(field),
        }
    }

    /// Whether the tokenizer also splits identifiers (CamelCase, snake_case,
    /// kebab-case, dotted), keeping the whole: profile `default` does.
    pub fn splits_identifiers(&self) -> bool {
        self.bm25f.is_some()
    }

    /// Names the settings that differ from the named profile, for headers
    /// such as `profile default (k=5, weights.title=4.0)`.
    pub fn describe(&self) -> String {
        let base = self.base();
        let mut diffs = Vec::new();
        if self.k != base.k {
            diffs.push(format!("k={}", self.k));
        }
        for &field in self.fields() {
            if self.weight(field) != base.weight(field) {
                diffs.push(format!("weights.{}={}", field.name(), self.weight(field)));
            }
        }
        if self.tag_boost != base.tag_boost {
            diffs.push(format!("tag_boost={}", self.tag_boost));
        }
        if self.min_token_len != base.min_token_len {
            diffs.push(format!("min_token_len={}", self.min_token_len));
        }
        if self.stem != base.stem {
            diffs.push(format!("stem={}", self.stem));
        }
        if self.min_score != base.min_score {
            diffs.push(format!("min_score={}", self.min_score));
        }
        if let (Some(a), Some(b)) = (&self.bm25f, &base.bm25f) {
            for (key, mine, theirs) in [
                ("k1", a.k1, b.k1),
                ("b", a.b, b.b),
                ("path_weight", a.path_weight, b.path_weight),
                ("path_max_df", a.path_max_df, b.path_max_df),
            ] {
                if mine != theirs {
                    diffs.push(format!("bm25f.{key}={mine}"));
                }
            }
            if a.skip_chores != b.skip_chores {
                diffs.push(format!("skip_chores={}", a.skip_chores));
            }
        }
        if diffs.is_empty() {
            self.name.to_string()
        } else {
            format!("{} ({})", self.name, diffs.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_parses_three_decimals_exactly() {
        assert_eq!(Milli::from_f64(2.5), Ok(Milli(2500)));
        assert_eq!(Milli::from_f64(0.125), Ok(Milli(125)));
        assert_eq!(Milli::from_f64(-1.001), Ok(Milli(-1001)));
        assert_eq!(Milli::from_f64(0.1 + 0.2), Ok(Milli(300)));
        assert!(Milli::from_f64(0.0005).is_err());
        assert!(Milli::from_f64(f64::NAN).is_err());
        assert!(Milli::from_f64(1e300).is_err());
    }

    #[test]
    fn milli_prints_at_most_three_digits() {
        let shown: Vec<String> = [7500, 3000, 125, 0, -1500, 10, 12345].iter().map(|&m| Milli(m).to_string()).collect();
        assert_eq!(shown, ["7.5", "3.0", "0.125", "0.0", "-1.5", "0.01", "12.345"]);
        assert_eq!(serde_json::to_string(&Milli(7500)).unwrap(), "7.5");
        assert_eq!(serde_json::to_string(&Milli(1)).unwrap(), "0.001");
        assert_eq!(serde_json::to_string(&Milli(3000)).unwrap(), "3.0");
    }

    #[test]
    fn named_profiles_follow_the_spec_table() {
        let d = Profile::named(Family::Default);
        assert_eq!(
            (d.weights.title, d.weights.tags, d.tag_boost, d.min_token_len),
            (Milli(5000), Milli(2500), Milli(1000), 3)
        );
        let b = d.bm25f.unwrap();
        assert_eq!((b.k1, b.b, b.path_max_df, b.skip_chores), (Milli(10000), Milli(500), Milli(500), true));
        let m = Profile::named(Family::Mneme);
        assert_eq!(
            (m.weights.title, m.weights.content, m.tag_boost, m.min_token_len),
            (Milli(1000), Milli(500), Milli(0), 4)
        );
        assert_eq!(d.describe(), "default");
        let mut custom = d.clone();
        custom.k = 5;
        custom.weights.title = Milli(4000);
        assert_eq!(custom.describe(), "default (k=5, weights.title=4.0)");
        custom.bm25f.as_mut().unwrap().skip_chores = false;
        assert_eq!(custom.describe(), "default (k=5, weights.title=4.0, skip_chores=false)");
    }
}
