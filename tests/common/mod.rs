//! What the CLI tests of the baseline gate and of coverage share: the real
//! binary run in a folder with git left on (unless `env` turns it off), its
//! exit code checked, and git in throw-away repositories.

// Each test binary uses the part of these helpers it needs.
#![allow(dead_code)]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

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
    git_with(dir, args, &[])
}

/// [`git`] with more environment variables (fixed commit dates, say).
pub fn git_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Runs `command` to its end, its standard output and error drained on
/// threads (a child that fills a pipe nobody reads would block forever),
/// and kills it if it has not ended after `limit`: what a test of a
/// special file (a named pipe, `/dev/zero`) needs, where a hang is the bug.
/// `limit` is a safety net, not a measure: make it minutes.
pub fn output_within(command: Command, limit: Duration) -> Output {
    output_within_input(command, None, limit)
}

/// [`output_within`] with `input` on standard input (written on a thread,
/// then closed; a child that exits without reading it is no failure).
pub fn output_within_input(mut command: Command, input: Option<&[u8]>, limit: Duration) -> Output {
    let stdin = if input.is_some() { Stdio::piped() } else { Stdio::null() };
    let mut child =
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary runs");
    let writer = input.map(|bytes| {
        let (mut pipe, bytes) = (child.stdin.take().expect("piped"), bytes.to_vec());
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(&bytes);
        })
    });
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped")));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child can be waited on") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not end within {limit:?} (a special file waited on, or a quadratic input)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(writer) = writer {
        writer.join().expect("the writer ends");
    }
    Output { status, stdout: stdout.join().expect("the reader ends"), stderr: stderr.join().expect("the reader ends") }
}

/// Copies the folder `from` into `to`, recursively (a fixture a test may
/// change).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
