//! The settings of the commands an agent runs (`hook`, `mcp`) and the folder
//! of the caches they and `context` share.
//!
//! The hook fails open, so nothing about it is resolved before it runs:
//! [`hook`] keeps the flags as given, and [`hook_memory`] resolves them (the
//! configuration file included) inside the hook, where any error becomes a
//! line on standard error and exit 0.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::super::args::{HookAgent, HookArgs, McpArgs, MemoryArgs};
use super::MemorySettings;
use crate::config::Config;
use crate::error::Error;
use crate::hook::Agent;

/// `hook`: the agent, and the flags to resolve when it runs.
#[derive(Debug)]
pub(crate) struct HookSettings {
    pub agent: Agent,
    /// `--config`, as given.
    pub config: Option<PathBuf>,
    pub memory: MemoryArgs,
    /// Where compiled indexes and session prompts are kept (`None`: nowhere).
    pub cache: Option<PathBuf>,
}

/// `mcp`: the memory file and profile it serves.
#[derive(Debug)]
pub(crate) struct McpSettings {
    pub memory: MemorySettings,
}

pub(crate) fn agent(agent: HookAgent) -> Agent {
    match agent {
        HookAgent::Claude => Agent::Claude,
        HookAgent::Gemini => Agent::Gemini,
    }
}

pub(crate) fn hook(config: Option<PathBuf>, args: HookArgs) -> HookSettings {
    HookSettings { agent: agent(args.agent), config, memory: args.memory, cache: cache_dir() }
}

/// The hook's memory file and profile, resolved as `context` resolves
/// them, from the working folder the hook runs in.
pub(crate) fn hook_memory(s: &HookSettings) -> Result<MemorySettings, Error> {
    let config = Config::discover(s.config.as_deref())?;
    super::memory(&config, &s.memory)
}

pub(crate) fn mcp(config: &Config, args: McpArgs) -> Result<McpSettings, Error> {
    let mut memory = super::memory(config, &args.memory)?;
    // The server may be started from anywhere and runs for long: an
    // absolute path keeps naming the same file.
    if let Ok(cwd) = std::env::current_dir() {
        memory.sources = memory.sources.absolute(&cwd);
    }
    Ok(McpSettings { memory })
}

/// The folder of mneme-gate's caches ([`cache_dir_from`] of the environment).
pub(crate) fn cache_dir() -> Option<PathBuf> {
    let env = super::super::environment::Environment::get();
    cache_dir_from(|name| env.var_os(name).map(OsString::from), cfg!(target_os = "macos"), cfg!(windows))
}

/// Where caches go: none with `MNEME_GATE_CACHE=off`; `MNEME_GATE_CACHE_DIR`
/// when set to an absolute path; else the user's cache folder (`$XDG_CACHE_HOME` when it is an
/// absolute path, else `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on
/// Windows, `~/.cache` elsewhere) with `mneme-gate` appended. Never a folder
/// of the repository, which a pull request controls.
pub(crate) fn cache_dir_from(var: impl Fn(&str) -> Option<OsString>, macos: bool, windows: bool) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if set("MNEME_GATE_CACHE").is_some_and(|v| v == "off") {
        return None;
    }
    let absolute = |v: OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    // Only an absolute one: the hook runs in the folder its input names, a
    // relative path would name a folder of the repository.
    if let Some(dir) = set("MNEME_GATE_CACHE_DIR").and_then(absolute) {
        return Some(dir);
    }
    let base = if let Some(xdg) = set("XDG_CACHE_HOME").and_then(absolute) {
        xdg
    } else if windows {
        set("LOCALAPPDATA").and_then(absolute)?
    } else {
        let home = set("HOME").and_then(absolute)?;
        if macos {
            home.join("Library/Caches")
        } else {
            home.join(".cache")
        }
    };
    Some(base.join("mneme-gate"))
}

/// The compiled indexes, under the cache folder.
pub(crate) fn index_dir(cache: &Path) -> PathBuf {
    cache.join("index")
}

/// The sessions' last prompts, under the cache folder.
pub(crate) fn sessions_dir(cache: &Path) -> PathBuf {
    cache.join("sessions")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(vars: &[(&str, &str)], macos: bool, windows: bool) -> Option<PathBuf> {
        let vars: Vec<(String, OsString)> = vars.iter().map(|(k, v)| (k.to_string(), OsString::from(v))).collect();
        cache_dir_from(|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()), macos, windows)
    }

    #[test]
    fn the_cache_is_the_users_unless_told_otherwise() {
        let home = [("HOME", "/home/u")];
        assert_eq!(dir(&home, false, false), Some("/home/u/.cache/mneme-gate".into()));
        assert_eq!(dir(&home, true, false), Some("/home/u/Library/Caches/mneme-gate".into()));
        assert_eq!(dir(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/x")], true, false), Some("/x/mneme-gate".into()));
        assert_eq!(
            dir(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "rel")], false, false),
            Some("/home/u/.cache/mneme-gate".into())
        );
        assert_eq!(
            dir(&[("MNEME_GATE_CACHE_DIR", "c"), ("HOME", "/home/u")], false, false),
            Some("/home/u/.cache/mneme-gate".into()),
            "a relative cache folder would be inside the repository"
        );
        assert_eq!(dir(&[("MNEME_GATE_CACHE_DIR", "/c"), ("HOME", "/home/u")], false, false), Some("/c".into()));
        assert_eq!(dir(&[("MNEME_GATE_CACHE", "off"), ("MNEME_GATE_CACHE_DIR", "c")], false, false), None);
        assert_eq!(dir(&[], false, false), None, "no home, no cache");
        assert_eq!(dir(&[("HOME", "")], false, false), None);
        #[cfg(windows)]
        assert_eq!(
            dir(&[("LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local")], false, true),
            Some("C:\\Users\\u\\AppData\\Local\\mneme-gate".into())
        );
        #[cfg(not(windows))]
        assert_eq!(dir(&[("LOCALAPPDATA", "/l")], false, true), Some("/l/mneme-gate".into()));
    }
}
