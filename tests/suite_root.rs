//! A suite arrives in a pull request and runs in CI with secrets in the
//! environment, so it must read nothing outside its root, and nothing that
//! never ends. The real binary runs suites built in a temporary folder, with
//! symlinks (made here, never committed) that lead outside the root to
//! planted secrets, `/proc/self/environ` and `/dev/zero`, a FIFO, a response
//! larger than the cap and a sparse 2 GB file: each is refused, named, and
//! no secret reaches standard output, standard error or a report. Every run
//! is killed after minutes (a safety net, not a measure): a read that never
//! ends fails the test instead of hanging it.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

mod common;

use common::Test;

/// When a run is killed: every run here refuses at once, and a read that
/// never ends is the bug; minutes, so that a loaded machine never fails it.
const TIMEOUT: Duration = Duration::from_secs(300);

/// A secret planted outside the suite root.
const SECRET: &str = "SECRET_8f3a1c_MUST_NOT_LEAK";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// The JSON, Markdown and JUnit reports (empty when not written).
    reports: [String; 3],
}

impl Run {
    /// Everything the run wrote.
    fn outputs(&self) -> [(&str, &str); 5] {
        [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("report.json", &self.reports[0]),
            ("report.md", &self.reports[1]),
            ("report.xml", &self.reports[2]),
        ]
    }

    fn assert_nowhere(&self, secret: &str) {
        for (name, text) in self.outputs() {
            assert!(!text.contains(secret), "{name} holds the secret:\n{text}");
        }
    }

    /// The scenario `id` of the JSON report.
    fn scenario(&self, id: &str) -> serde_json::Value {
        let report: serde_json::Value = serde_json::from_str(&self.reports[0]).expect("a JSON report");
        let scenarios = report["scenarios"].as_array().expect("scenarios");
        scenarios.iter().find(|s| s["id"] == id).unwrap_or_else(|| panic!("no scenario {id}: {report}")).clone()
    }

    fn ids(&self) -> Vec<String> {
        let report: serde_json::Value = serde_json::from_str(&self.reports[0]).expect("a JSON report");
        report["scenarios"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_string()).collect()
    }

    /// The explanation of a MALFORMED scenario.
    fn malformed(&self, id: &str) -> String {
        let s = self.scenario(id);
        assert_eq!(s["verdict"], "MALFORMED", "{s}");
        s["explanation"].as_str().unwrap().to_string()
    }
}

/// A suite folder `suite/` (with `responses/`), the memory beside it, and a
/// folder `outside/` holding planted secrets.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("suite/responses")).unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/suite/project_memory.json"),
            dir.path().join("memory.json"),
        )
        .unwrap();
        fs::write(dir.path().join("outside/secret.txt"), format!("token={SECRET}\n")).unwrap();
        Fixture { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// `suite/s.yaml`: one scenario `id` whose governed answer is
    /// `responses/<response>`, checked with a regex that would copy the
    /// secret into every report if it were read.
    fn scenario(&self, id: &str, response: &str) {
        self.write("suite/s.yaml", &scenario(id, response));
    }

    /// Runs `mneme-gate run` on `suite` (or `root`), writing every report,
    /// with `env` added; killed after [`TIMEOUT`].
    fn run_on(&self, root: &str, env: &[(&str, &str)]) -> Run {
        for report in ["report.json", "report.md", "report.xml"] {
            let _ = fs::remove_file(self.path(report));
        }
        let out = Test::new()
            .args(["run", "--memory", "memory.json", "--scenarios", root, "--no-baseline"])
            .args(["--json", "report.json", "--markdown", "report.md", "--junit", "report.xml"])
            .dir(self.dir.path())
            .envs(env.iter().copied())
            .timeout(TIMEOUT)
            .lossy()
            .run();
        let run = Run {
            code: out.code,
            stdout: out.stdout,
            stderr: out.stderr,
            reports: ["report.json", "report.md", "report.xml"]
                .map(|r| fs::read_to_string(self.path(r)).unwrap_or_default()),
        };
        // 0 or 1: judged; 2: the suite did not load. Never a crash.
        assert!(matches!(run.code, 0..=2), "exit {}\nstdout:\n{}\nstderr:\n{}", run.code, run.stdout, run.stderr);
        run
    }

    fn run(&self) -> Run {
        self.run_on("suite", &[])
    }
}

fn scenario(id: &str, response: &str) -> String {
    format!(
        "scenarios:\n  - id: {id}\n    task: Add a refund endpoint that posts to the ledger\n    expect: [PAY-001]\n    \
         responses:\n      governed: responses/{response}\n    assertions:\n      - forbidden_text: {{ regex: \
         \"[A-Za-z_]*SECRET[A-Za-z0-9_=]*\" }}\n"
    )
}

#[cfg(unix)]
fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// The canonical suite root, as the messages name it.
fn canonical(path: &Path) -> String {
    fs::canonicalize(path).unwrap().display().to_string()
}

#[cfg(unix)]
#[test]
fn a_response_linked_outside_the_root_is_malformed_and_never_read() {
    let f = Fixture::new();
    f.scenario("linked", "c.txt");
    symlink(f.path("outside/secret.txt"), f.path("suite/responses/c.txt"));
    let run = f.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    run.assert_nowhere(SECRET);
    let why = run.malformed("linked");
    assert_eq!(
        why,
        format!(
            "Malformed scenario: governed response: `responses/c.txt` leads outside the suite root {}: \
             suite/responses/c.txt is a symlink to {}; a suite may read only files inside its root: copy the file \
             into the suite instead of linking to it.",
            canonical(&f.path("suite")),
            f.path("outside/secret.txt").display()
        )
    );
    // A folder on the way that links outside is named the same way.
    symlink(f.path("outside"), f.path("suite/responses/out"));
    f.scenario("through-a-folder", "out/secret.txt");
    let run = f.run();
    run.assert_nowhere(SECRET);
    let why = run.malformed("through-a-folder");
    assert!(why.contains(&format!("suite/responses/out is a symlink to {}", f.path("outside").display())), "{why}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_response_linked_to_the_environment_is_malformed_and_never_read() {
    let f = Fixture::new();
    f.scenario("environ", "c.txt");
    symlink("/proc/self/environ", f.path("suite/responses/c.txt"));
    let run = f.run_on("suite", &[("PLANTED_SECRET_TOKEN", SECRET)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    run.assert_nowhere(SECRET);
    run.assert_nowhere("PLANTED_SECRET_TOKEN");
    let why = run.malformed("environ");
    assert!(
        why.contains("`responses/c.txt` leads outside the suite root")
            && why.contains("suite/responses/c.txt is a symlink to /proc/self/environ (which resolves to /proc/"),
        "{why}"
    );
}

#[cfg(unix)]
#[test]
fn mneme_files_linked_outside_the_root_are_refused() {
    let f = Fixture::new();
    let folder = "suite/refund";
    f.write(
        &format!("{folder}/scenario.json"),
        r#"{"name": "refund", "expected_protected_decision_ids": ["PAY-001"]}"#,
    );
    // query.txt is the task: a load error (exit 2), naming the link.
    symlink(f.path("outside/secret.txt"), f.path(&format!("{folder}/query.txt")));
    let run = f.run();
    assert_eq!(run.code, 2, "{}", run.stdout);
    run.assert_nowhere(SECRET);
    assert!(
        run.stderr.contains(&format!(
            "suite/refund/query.txt: query.txt leads outside the suite root {}: suite/refund/query.txt is a \
             symlink to {}; ",
            canonical(&f.path("suite")),
            f.path("outside/secret.txt").display()
        )),
        "{}",
        run.stderr
    );
    // A side (with_mneme) is a response: its scenario is MALFORMED.
    fs::remove_file(f.path(&format!("{folder}/query.txt"))).unwrap();
    f.write(&format!("{folder}/query.txt"), "Add a refund endpoint that posts to the ledger");
    symlink(f.path("outside/secret.txt"), f.path(&format!("{folder}/with_mneme.json")));
    let run = f.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    run.assert_nowhere(&format!("token={SECRET}"));
    let why = run.malformed("refund");
    assert!(why.contains("`with_mneme.json` leads outside the suite root"), "{why}");
    // scenario.json itself: a load error.
    fs::rename(f.path(&format!("{folder}/scenario.json")), f.path("outside/scenario.json")).unwrap();
    symlink(f.path("outside/scenario.json"), f.path(&format!("{folder}/scenario.json")));
    let run = f.run();
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("suite/refund/scenario.json: scenario.json leads outside the suite root"),
        "{}",
        run.stderr
    );
}

/// A suite file that links outside the root is a load error (exit 2), not a
/// MALFORMED scenario: its scenarios are only known by reading it, and
/// nothing outside the root may be read.
#[cfg(unix)]
#[test]
fn a_suite_file_linked_outside_the_root_does_not_load() {
    let f = Fixture::new();
    f.write("outside/planted.yaml", &scenario(SECRET, "a.txt"));
    f.scenario("honest", "a.txt");
    f.write("suite/responses/a.txt", "fine");
    symlink(f.path("outside/planted.yaml"), f.path("suite/planted.yaml"));
    let run = f.run();
    assert_eq!(run.code, 2, "{}", run.stdout);
    run.assert_nowhere(SECRET);
    assert!(
        run.stderr.contains(&format!(
            "suite/planted.yaml: the suite file leads outside the suite root {}: suite/planted.yaml is a symlink \
             to {}; ",
            canonical(&f.path("suite")),
            f.path("outside/planted.yaml").display()
        )),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_linked_folder_that_leads_outside_is_not_walked() {
    let f = Fixture::new();
    f.write("outside/more/planted.yaml", &scenario(SECRET, "a.txt"));
    f.scenario("honest", "a.txt");
    f.write("suite/responses/a.txt", "fine");
    symlink(f.path("outside/more"), f.path("suite/more"));
    let run = f.run();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.ids(), ["honest"]);
    run.assert_nowhere(SECRET);
}

#[cfg(unix)]
#[test]
fn links_inside_the_root_and_a_linked_root_are_fine() {
    let f = Fixture::new();
    f.scenario("inside", "link.txt");
    f.write("suite/answers/real.txt", "The endpoint posts to the ledger. token=SECRET_INSIDE");
    symlink("../answers/real.txt", f.path("suite/responses/link.txt"));
    let run = f.run();
    let s = run.scenario("inside");
    assert_eq!(s["verdict"], "FAIL", "{s}");
    assert!(run.reports[0].contains("SECRET_INSIDE"), "the answer was read and checked");
    // The root itself may be a link: it is made canonical first.
    symlink(f.path("suite"), f.path("suite-link"));
    let linked = f.run_on("suite-link", &[]);
    assert_eq!(linked.scenario("inside")["verdict"], "FAIL");
    // So may a suite file given as the root.
    symlink(f.path("suite/s.yaml"), f.path("s-link.yaml"));
    fs::create_dir_all(f.path("responses")).unwrap();
    symlink(f.path("suite/answers/real.txt"), f.path("responses/link.txt"));
    let file = f.run_on("s-link.yaml", &[]);
    assert_eq!(file.scenario("inside")["verdict"], "FAIL", "{}", file.stderr);
}

#[cfg(unix)]
#[test]
fn dev_zero_is_refused_at_once() {
    let f = Fixture::new();
    f.scenario("zero", "zero.txt");
    symlink("/dev/zero", f.path("suite/responses/zero.txt"));
    // (A read of it would never end: the run would be killed, and fail.)
    let run = f.run();
    let why = run.malformed("zero");
    assert!(why.contains("suite/responses/zero.txt is a symlink to /dev/zero"), "{why}");
}

/// A FIFO inside the root: opening it would wait for a writer forever.
#[cfg(unix)]
#[test]
fn a_fifo_inside_the_root_is_refused_without_hanging() {
    let f = Fixture::new();
    f.scenario("pipe", "pipe.txt");
    let made = Command::new("mkfifo").arg(f.path("suite/responses/pipe.txt")).status().expect("mkfifo runs");
    assert!(made.success());
    let run = f.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.malformed("pipe"),
        "Malformed scenario: governed response: `responses/pipe.txt` is a named pipe (FIFO), not a regular file; \
         a suite may read only regular files: replace it with a file."
    );
    // A suite file that is a FIFO does not load, and does not hang either.
    Command::new("mkfifo").arg(f.path("suite/pipe.yaml")).status().unwrap();
    let run = f.run();
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "suite/pipe.yaml: the suite file is a named pipe (FIFO), not a regular file; a suite may read only \
             regular files: replace it with a file"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_response_larger_than_the_cap_is_malformed() {
    let f = Fixture::new();
    f.scenario("big", "big.txt");
    let line = "The endpoint posts to the ledger through LedgerClient, as ADR PAY-001 requires.\n";
    let big: String = line.repeat((2 << 20) / line.len() + 1)[..2 << 20].to_string();
    f.write("suite/responses/big.txt", &big);
    let run = f.run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.malformed("big"),
        "Malformed scenario: governed response: `responses/big.txt` is 2097152 bytes, larger than the limit \
         (1048576 bytes); shorten it, or raise `limits.max_response_bytes` in mneme-gate.yaml if a response this large is intended \
         (docs/scenarios.md, Limits)."
    );
}

#[test]
fn a_sparse_file_is_refused_without_being_read() {
    let f = Fixture::new();
    f.scenario("sparse", "sparse.txt");
    fs::File::create(f.path("suite/responses/sparse.txt")).unwrap().set_len(2 << 30).unwrap();
    // Refused from its size before a byte is read: the message gives the
    // exact size, which a read capped at the limit could not know.
    let run = f.run();
    let why = run.malformed("sparse");
    assert!(why.contains("`responses/sparse.txt` is 2147483648 bytes, larger than the limit (1048576 bytes)"), "{why}");
}
