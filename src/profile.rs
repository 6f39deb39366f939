/*!
Scoring profiles (spec §3-4, §6): the named starting points `default` and
`mneme`, and the effective profile after configuration overrides.

Weights, the tag boost and `min_score` are held in integer thousandths
([`Milli`]) so that a score is an exact integer sum and two machines can
never disagree on a tie.
*/

use std::fmt;

use serde::{Serialize, Serializer};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Weights {
    pub title: Milli,
    pub tags: Milli,
    pub constraint: Milli,
    pub anti_patterns: Milli,
    pub content: Milli,
}

/// The canonical fields, in the order explain and the index use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Title,
    Tags,
    Constraint,
    AntiPatterns,
    Content,
}

impl Field {
    pub const ALL: [Field; 5] = [Field::Title, Field::Tags, Field::Constraint, Field::AntiPatterns, Field::Content];

    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Tags => "tags",
            Field::Constraint => "constraint",
            Field::AntiPatterns => "anti_patterns",
            Field::Content => "content",
        }
    }
}

impl Weights {
    pub fn of(&self, field: Field) -> Milli {
        match field {
            Field::Title => self.title,
            Field::Tags => self.tags,
            Field::Constraint => self.constraint,
            Field::AntiPatterns => self.anti_patterns,
            Field::Content => self.content,
        }
    }
}

/// The effective profile: everything that decides a ranking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
}

impl Profile {
    pub fn named(family: Family) -> Profile {
        match family {
            Family::Default => Profile {
                name: "default",
                family,
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
            },
            Family::Mneme => Profile {
                name: "mneme",
                family,
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
            },
        }
    }

    /// Names the settings that differ from the named profile, for headers
    /// such as `profile default (k=5, weights.title=4.0)`.
    pub fn describe(&self) -> String {
        let base = Profile::named(self.family);
        let mut diffs = Vec::new();
        if self.k != base.k {
            diffs.push(format!("k={}", self.k));
        }
        for field in Field::ALL {
            if self.weights.of(field) != base.weights.of(field) {
                diffs.push(format!("weights.{}={}", field.name(), self.weights.of(field)));
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
            (Milli(3000), Milli(2500), Milli(1000), 3)
        );
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
    }
}
