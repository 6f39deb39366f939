//! The environment variables the command line reads: every one is named in
//! [`NAMES`], read once when first asked for, and handed out typed. The
//! library reads none of these (the model stage reads the API key variable
//! a configuration names, when it asks a model).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::OnceLock;

/// Every variable the command line reads, and what for.
pub(crate) const NAMES: &[&str] = &[
    // GitHub Actions: annotations and the step summary by default, links to the job's commit.
    "GITHUB_ACTIONS",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_SHA",
    "GITHUB_WORKSPACE",
    // The terminal: the width text is laid out to, and no colour.
    "COLUMNS",
    "NO_COLOR",
    // `MNEME_GATE_GIT=off`: no git information in reports, no git lookups.
    "MNEME_GATE_GIT",
    // Where the compiled index cache goes (`settings::agent::cache_dir_from`).
    "MNEME_GATE_CACHE",
    "MNEME_GATE_CACHE_DIR",
    "XDG_CACHE_HOME",
    "HOME",
    "LOCALAPPDATA",
];

/// The values of [`NAMES`] at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Environment {
    vars: BTreeMap<&'static str, OsString>,
}

impl Environment {
    /// The process's environment, read once.
    pub(crate) fn get() -> &'static Environment {
        static READ: OnceLock<Environment> = OnceLock::new();
        READ.get_or_init(|| Environment::from_lookup(|name| std::env::var_os(name)))
    }

    /// The values `lookup` gives for [`NAMES`] (a test's environment).
    pub(crate) fn from_lookup(lookup: impl Fn(&str) -> Option<OsString>) -> Environment {
        Environment { vars: NAMES.iter().filter_map(|&name| lookup(name).map(|v| (name, v))).collect() }
    }

    /// The value of one of [`NAMES`], as the OS gives it.
    pub(crate) fn var_os(&self, name: &str) -> Option<&OsStr> {
        debug_assert!(NAMES.contains(&name), "{name} is not one of the variables the command line reads");
        self.vars.get(name).map(OsString::as_os_str)
    }

    /// The value of one of [`NAMES`] as text, when it is set, not empty and
    /// Unicode.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        self.var_os(name).and_then(OsStr::to_str).filter(|v| !v.is_empty())
    }

    /// In a GitHub Actions job: `GITHUB_ACTIONS=true`.
    pub(crate) fn github_actions(&self) -> bool {
        self.text("GITHUB_ACTIONS") == Some("true")
    }

    /// `MNEME_GATE_GIT=off`: git is not asked.
    pub(crate) fn git_off(&self) -> bool {
        self.text("MNEME_GATE_GIT") == Some("off")
    }

    /// `NO_COLOR` set to anything but the empty string.
    pub(crate) fn no_color(&self) -> bool {
        self.var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Environment {
        Environment::from_lookup(|name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v)))
    }

    #[test]
    fn only_the_named_variables_are_kept_and_read_as_their_meaning() {
        let e = env(&[("GITHUB_ACTIONS", "true"), ("MNEME_GATE_GIT", "off"), ("NO_COLOR", "1"), ("PATH", "/bin")]);
        assert!(e.github_actions() && e.git_off() && e.no_color());
        assert_eq!(e.vars.len(), 3, "PATH is not one of them");
        let e = env(&[("GITHUB_ACTIONS", "1"), ("MNEME_GATE_GIT", "on"), ("NO_COLOR", ""), ("COLUMNS", "")]);
        assert!(!e.github_actions() && !e.git_off() && !e.no_color());
        assert_eq!(e.text("COLUMNS"), None, "empty is unset");
        assert_eq!(Environment::default(), env(&[]));
    }
}
