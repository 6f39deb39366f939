//! What the integration tests share: the real binary run through one
//! builder, [`Test`], its output drained while it runs and its exit code
//! checked; git in throw-away repositories; fixture folders copied.
//!
//! ```ignore
//! let out = Test::new().args(["validate", "--memory", SMALL]).code(0);
//! assert!(out.stderr.contains("records"), "{}", out.stderr);
//! ```

// Each test binary uses the part of these helpers it needs.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long a run may take before it is killed and the test fails with
/// what it printed: a safety net against a hang (a named pipe waited on, a
/// pipe nobody reads), never a measure of speed.
pub const TIMEOUT: Duration = Duration::from_secs(600);

/// The crate root: where the fixtures and the bundled example live.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One run of a program (the `mneme-gate` binary unless [`Test::program`]
/// names another), built up then run with [`Test::run`] or [`Test::code`].
///
/// The defaults make a run the same on every machine: from the crate root,
/// `NO_COLOR=1`, git info off (`MNEME_GATE_GIT=off`; [`Test::git_on`] turns
/// it back on), no `GITHUB_ACTIONS`, `GITHUB_STEP_SUMMARY` nor `COLUMNS`
/// from the environment, standard input empty, output decoded as UTF-8 (a
/// run that prints anything else fails unless [`Test::lossy`] says so), and
/// killed after [`TIMEOUT`].
pub struct Test {
    command: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    lossy: bool,
    stdout: Option<Stdio>,
    stderr: Option<Stdio>,
}

impl Default for Test {
    fn default() -> Self {
        Test::new()
    }
}

impl Test {
    /// The `mneme-gate` binary, from the crate root.
    pub fn new() -> Test {
        Test::program(env!("CARGO_BIN_EXE_mneme-gate"))
    }

    /// Another program (`sh` to set a limit, say) with the same defaults.
    pub fn program(program: impl AsRef<OsStr>) -> Test {
        let mut command = Command::new(program);
        command
            .current_dir(root())
            .env("NO_COLOR", "1")
            .env("MNEME_GATE_GIT", "off")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("COLUMNS");
        Test { command, stdin: None, timeout: TIMEOUT, lossy: false, stdout: None, stderr: None }
    }

    /// Runs from `dir` instead of the crate root.
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Test {
        self.command.current_dir(dir);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Test {
        self.command.arg(arg);
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Test {
        self.command.args(args);
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Test {
        self.command.env(key, value);
        self
    }

    /// Each `(key, value)` of `env`, as [`Test::env`].
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(mut self, env: impl IntoIterator<Item = (K, V)>) -> Test {
        self.command.envs(env);
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Test {
        self.command.env_remove(key);
        self
    }

    /// Git info as the binary's default has it (the variable unset).
    pub fn git_on(self) -> Test {
        self.env_remove("MNEME_GATE_GIT")
    }

    /// `bytes` on standard input, written on a thread then closed (a run
    /// that exits without reading them is no failure).
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Test {
        self.stdin = Some(bytes.as_ref().to_vec());
        self
    }

    /// Standard output to `to` (a file, `/dev/full`, nowhere) rather than
    /// captured; [`Run::stdout`] is then empty.
    pub fn stdout_to(mut self, to: impl Into<Stdio>) -> Test {
        self.stdout = Some(to.into());
        self
    }

    /// Standard error to `to` rather than captured.
    pub fn stderr_to(mut self, to: impl Into<Stdio>) -> Test {
        self.stderr = Some(to.into());
        self
    }

    /// Kills the run after `limit` instead of [`TIMEOUT`]. A safety net,
    /// not a measure: make it minutes.
    pub fn timeout(mut self, limit: Duration) -> Test {
        self.timeout = limit;
        self
    }

    /// Output that is not UTF-8 is decoded with replacement characters
    /// rather than failing the test.
    pub fn lossy(mut self) -> Test {
        self.lossy = true;
        self
    }

    /// The command line, for messages.
    fn describe(&self) -> String {
        let program = Path::new(self.command.get_program()).file_name().unwrap_or_default().to_string_lossy();
        let args: Vec<_> = self.command.get_args().map(OsStr::to_string_lossy).collect();
        format!("`{program} {}`", args.join(" "))
    }

    /// Starts the run and returns at once: for a test that acts while it
    /// runs (kills it at a moment of its own choosing). Its output is
    /// drained on threads as it comes.
    pub fn spawn(mut self) -> Running {
        let stdin = if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() };
        let what = self.describe();
        let mut child = self
            .command
            .stdin(stdin)
            .stdout(self.stdout.take().unwrap_or_else(Stdio::piped))
            .stderr(self.stderr.take().unwrap_or_else(Stdio::piped))
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        let writer = self.stdin.take().map(|bytes| {
            let mut pipe = child.stdin.take().expect("piped");
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = pipe.write_all(&bytes);
            })
        });
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        };
        let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        Running {
            child,
            what,
            writer,
            stdout,
            stderr,
            deadline: Instant::now() + self.timeout,
            timeout: self.timeout,
            lossy: self.lossy,
        }
    }

    /// Starts the run for a conversation: see [`Session`].
    pub fn session(mut self) -> Session {
        use std::io::BufRead;
        let what = self.describe();
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(self.stderr.take().unwrap_or_else(Stdio::piped))
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        let (send, lines) = std::sync::mpsc::channel();
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = child.stderr.take();
        let stderr = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = stderr {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        });
        let stdin = child.stdin.take();
        Session { child, what, stdin, lines, stderr, timeout: self.timeout }
    }

    /// Runs to the end (or kills the run after its timeout and fails).
    pub fn run(self) -> Run {
        self.spawn().wait()
    }

    /// Runs to the end and fails unless the exit code is `expected`, with
    /// the command line and both outputs in the message.
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        self.run().code(expected)
    }
}

/// A conversation with a run (a server on standard input and output, say):
/// lines sent, lines read back one at a time, each read bounded by the
/// run's timeout (see [`Test::session`]).
pub struct Session {
    child: Child,
    what: String,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
    timeout: Duration,
}

impl Session {
    /// Writes `line` and a newline to the run's standard input.
    #[track_caller]
    pub fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("standard input is open");
        writeln!(stdin, "{line}").and_then(|()| stdin.flush()).unwrap_or_else(|e| panic!("{}: {e}", self.what));
    }

    /// The next line of standard output (without its newline), or `None`
    /// once the run has closed it. Fails when none comes within the timeout.
    #[track_caller]
    pub fn line(&mut self) -> Option<String> {
        match self.lines.recv_timeout(self.timeout) {
            Ok(line) => Some(line),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                panic!("{}: no line within {:?}", self.what, self.timeout)
            }
        }
    }

    /// Closes standard input and waits for the end (killed and failing
    /// after the timeout): the exit status, the lines of standard output
    /// not read yet, and standard error.
    pub fn end(mut self) -> Run {
        drop(self.stdin.take());
        let deadline = Instant::now() + self.timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited on") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} did not end within {:?} once its input was closed", self.what, self.timeout);
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stdout: String = self.lines.iter().map(|line| line + "\n").collect();
        let stderr = String::from_utf8_lossy(&join(self.stderr)).into_owned();
        let code = status.code().unwrap_or_else(|| panic!("{} ended by a signal ({status})\n{stderr}", self.what));
        Run { what: self.what, status, code, stdout, stderr }
    }
}

/// A run under way (see [`Test::spawn`]).
pub struct Running {
    child: Child,
    what: String,
    writer: Option<std::thread::JoinHandle<()>>,
    stdout: std::thread::JoinHandle<Vec<u8>>,
    stderr: std::thread::JoinHandle<Vec<u8>>,
    deadline: Instant,
    timeout: Duration,
    lossy: bool,
}

impl Running {
    /// Whether it is still running. Past its timeout it is killed and the
    /// test fails with its output.
    pub fn running(&mut self) -> bool {
        if self.child.try_wait().expect("the child can be waited on").is_some() {
            return false;
        }
        if Instant::now() > self.deadline {
            let _ = self.child.kill();
            let status = self.child.wait().expect("the child can be waited on");
            let (stdout, stderr) = (join(self.stdout_thread()), join(self.stderr_thread()));
            panic!(
                "{} did not end within {:?} ({status}; a special file waited on, or a quadratic input)\n\
                 stdout:\n{}\nstderr:\n{}",
                self.what,
                self.timeout,
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        }
        true
    }

    fn stdout_thread(&mut self) -> std::thread::JoinHandle<Vec<u8>> {
        std::mem::replace(&mut self.stdout, std::thread::spawn(Vec::new))
    }

    fn stderr_thread(&mut self) -> std::thread::JoinHandle<Vec<u8>> {
        std::mem::replace(&mut self.stderr, std::thread::spawn(Vec::new))
    }

    /// Waits for the end (polling, so that the timeout holds).
    pub fn wait(mut self) -> Run {
        while self.running() {
            std::thread::sleep(Duration::from_millis(10));
        }
        self.finish(false)
    }

    /// Kills it now (SIGKILL on Unix; it may have ended already) and
    /// returns what it printed.
    pub fn kill(mut self) -> Run {
        let _ = self.child.kill();
        self.finish(true)
    }

    fn finish(mut self, killed: bool) -> Run {
        let status = self.child.wait().expect("the child can be waited on");
        if let Some(writer) = self.writer.take() {
            writer.join().expect("the writer ends");
        }
        let (stdout, stderr) = (join(self.stdout_thread()), join(self.stderr_thread()));
        let text = |bytes: Vec<u8>, which: &str| {
            if self.lossy {
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                String::from_utf8(bytes).unwrap_or_else(|e| panic!("{}: {which} is not UTF-8: {e}", self.what))
            }
        };
        let (stdout, stderr) = (text(stdout, "stdout"), text(stderr, "stderr"));
        let code = match status.code() {
            Some(code) => code,
            None if killed => -1,
            None => panic!("{} ended by a signal ({status})\nstdout:\n{stdout}\nstderr:\n{stderr}", self.what),
        };
        Run { what: std::mem::take(&mut self.what), status, code, stdout, stderr }
    }
}

fn join(thread: std::thread::JoinHandle<Vec<u8>>) -> Vec<u8> {
    thread.join().expect("the reader ends")
}

/// What a run did.
#[derive(Debug)]
pub struct Run {
    what: String,
    pub status: ExitStatus,
    /// The exit code; a run ended by a signal fails the test, except one
    /// killed by [`Running::kill`], whose code is -1.
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Fails unless the run exited with `expected`.
    #[track_caller]
    pub fn code(self, expected: i32) -> Run {
        assert_eq!(
            self.status.code(),
            Some(expected),
            "{} ({})\nstdout:\n{}\nstderr:\n{}",
            self.what,
            self.status,
            self.stdout,
            self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_contains(self, part: &str) -> Run {
        assert!(self.stdout.contains(part), "{}: stdout lacks {part:?}\nstdout:\n{}", self.what, self.stdout);
        self
    }

    #[track_caller]
    pub fn stderr_contains(self, part: &str) -> Run {
        assert!(self.stderr.contains(part), "{}: stderr lacks {part:?}\nstderr:\n{}", self.what, self.stderr);
        self
    }

    /// Standard output parsed as JSON (fails with it when it is not).
    #[track_caller]
    pub fn stdout_json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("{}: stdout is not JSON: {e}\n{}", self.what, self.stdout))
    }

    /// Standard output then standard error, for a message.
    pub fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// What [`run`] returns: the exit code as an `Option` (`None` for a signal).
pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary in `dir` with `env`. Git info stays on (these tests are
/// about it) unless the caller turns it off with [`OFF`].
pub fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let out = Test::new().dir(dir).args(args).git_on().envs(env.iter().copied()).run();
    Out { code: out.status.code(), stdout: out.stdout, stderr: out.stderr }
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
    let out = Test::program("git")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .envs(env.iter().copied())
        .run();
    assert!(out.status.success(), "git {args:?}: {}", out.stderr);
    out.stdout.trim().to_string()
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
