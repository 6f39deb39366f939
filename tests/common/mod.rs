//! What the CLI tests of the baseline gate and of coverage share: the real
//! binary run in a folder with git left on (unless `env` turns it off), its
//! exit code checked, and git in throw-away repositories.

use std::path::Path;
use std::process::Command;

pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary in `dir` with `env`. Git info stays on (these tests are
/// about it) unless the caller turns it off with [`OFF`].
pub fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mneme-gate"));
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1").env_remove("GITHUB_ACTIONS").env_remove("COLUMNS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Out {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[track_caller]
pub fn expect(out: Out, code: i32, what: &str) -> Out {
    assert_eq!(out.code, Some(code), "{what}\nstdout:\n{}\nstderr:\n{}", out.stdout, out.stderr);
    out
}

/// Git info off.
pub const OFF: &[(&str, &str)] = &[("MNEME_GATE_GIT", "off")];

/// git in `dir` with a fixed identity and no system or user configuration;
/// its standard output, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
