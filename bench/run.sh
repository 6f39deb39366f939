#!/usr/bin/env bash
# The benchmark: mneme-gate against the real Mneme and against the parse-only
# floor, context latency, peak memory, scaling and threads, each row with its
# target; a memory of a million small records (`synth --small`) under
# `validate` and `run`; `context` and `hook claude` from the compiled index
# cache (5,000 and 50,000 decisions), and the MCP server's memory_search timed from the PyPI `mcp` client
# (tests/reference/mcp_client.py, which installs it into target/mcp-venv);
# `coverage` on the big case; and `run` under profile default (BM25F) against
# profile classic.
#
#   bash bench/run.sh [--runs N] [--quick]
#
# It builds the release binary (the product as shipped) and the development
# tool (mneme-gate-dev: synth, floor), installs mneme-hq 0.10.0 into
# target/mneme-venv (PyPI, through tests/reference/mneme-venv.sh), generates
# seeded inputs under target/bench/ (reused when present), times whole-process runs (medians, min and max) and
# prints a Markdown table, also written to target/bench/results.md.
# --quick uses small sizes (a smoke test of the script, not numbers to quote).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "bench: unknown argument: $1" >&2; exit 2 ;;
  esac
done

# Two builds, not one: built together, the product would get the tool's
# `schema` feature (cargo unifies features), and it is measured as shipped.
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p mneme-gate-dev
bin="$PWD/target/release/mneme-gate"
dev="$PWD/target/release/mneme-gate-dev"

# Mneme 0.10.0 from PyPI, in the virtual environment the checks share.
mneme="$(bash tests/reference/mneme-venv.sh)"

mkdir -p target/bench
python3 - "$bin" "$dev" "$mneme" "$runs" "$quick" <<'PY'
import json, os, platform, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path

bin, dev, mneme, runs, quick = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
root = Path("target/bench").resolve()
env = {**os.environ, "MNEME_GATE_GIT": "off", "NO_COLOR": "1"}

D, S = (1000, 2000) if quick else (5000, 10000)          # the big native case
BIG_MEMORY = 100_000 if quick else 1_000_000             # records of the memory-scale case
MD, MS = (100, 200) if quick else (500, 1000)            # the Mneme-layout case


def generate(decisions, scenarios, layout="native", seed=7, small=False, one_file=False):
    out = root / f"{layout}-{decisions}x{scenarios}-s{seed}{'-small' if small else ''}{'-one-file' if one_file else ''}"
    if not (out / "project_memory.json").exists():
        subprocess.run([dev, "synth", "--decisions", str(decisions), "--scenarios", str(scenarios),
                        "--seed", str(seed), "--layout", layout, "--out", str(out), *(["--small"] if small else []),
                        *(["--per-file", "0"] if one_file else [])],
                       check=True, capture_output=True)
    return out


def size_of(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def measure(cmd, cwd, n, ok=(0, 1), stdin=None, extra_env=None):
    """Median, min and max seconds, and the largest peak RSS (KiB) of n runs."""
    times, rss = [], 0
    with tempfile.NamedTemporaryFile() as t:
        for _ in range(n):
            start = time.perf_counter()
            done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name, *cmd], cwd=cwd, env={**env, **(extra_env or {})},
                                  input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            times.append(time.perf_counter() - start)
            if done.returncode not in ok:
                sys.exit(f"bench: {' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")
            rss = max(rss, int(Path(t.name).read_text().split()[-1]))
    return statistics.median(times), min(times), max(times), rss


def run_cmd(d, extra=()):
    return [bin, "run", "--quiet", "--no-baseline", "--memory", "project_memory.json",
            "--scenarios", "scenarios", *extra]


def fmt(m):
    med, lo, hi, _ = m
    return f"{med:.3f} s (min {lo:.3f}, max {hi:.3f})"


def mib(kib):
    return f"{kib / 1024:.0f} MiB"


rows, notes = [], []
big = generate(D, S)
big_size = size_of(big)

run_big = measure(run_cmd(big), big, runs)
# Profile default (BM25F) against the token-overlap profile it replaced, now `classic`.
run_classic = measure(run_cmd(big, ["--profile", "classic"]), big, runs)
over_classic = run_big[0] / run_classic[0]
floor_big = measure([dev, "floor", "--memory", "project_memory.json", "--scenarios", "scenarios"], big, runs)
# The coverage analysis (every scenario ranked, every decision probed, overlap).
coverage_big = measure([bin, "coverage", "--memory", "project_memory.json", "--scenarios", "scenarios",
                        "--json", os.devnull], big, runs, ok=(0,))
jobs1 = measure(run_cmd(big, ["--jobs", "1"]), big, runs)
jobs2 = measure(run_cmd(big, ["--jobs", "2"]), big, runs)
# The same scenarios and memory with the suite in one YAML file instead of a hundred.
big_one = generate(D, S, one_file=True)
big_one_size = size_of(big_one)
run_one = measure(run_cmd(big_one), big_one, runs)
jobs1_one = measure(run_cmd(big_one, ["--jobs", "1"]), big_one, runs)
jobs2_one = measure(run_cmd(big_one, ["--jobs", "2"]), big_one, runs)

mn = generate(MD, MS, "mneme")
ours_mn = measure(run_cmd(mn, ["--profile", "mneme"]), mn, runs)
theirs = measure([mneme, "benchmark", "scenarios", "--memory", "project_memory.json",
                  "--json", str(mn / "mneme.json")], mn, max(1, min(runs, 3)), ok=(0, 1))

ctx_corpus = generate(D, 0)
ctx_cmd = [bin, "context", "--memory", "project_memory.json", "--task",
           "Add a refund endpoint that writes the reversal to the ledger", "--file", "services/payments/refunds.py"]
# The agent's loop: `context` and `hook claude` answer from the compiled index cache
# (kept under target/bench/cache here); the first run, which compiles it, and runs without it are
# measured apart.
cache_dir = root / "cache"
shutil.rmtree(cache_dir, ignore_errors=True)


def settle(corpus):
    """Waits until the memory file is older than the cache's racy margin (2 s): a file changed
    more recently is read and hashed on every run, as the cache must (docs/agents.md#the-cache),
    which a freshly generated corpus would measure instead of the cache."""
    age = time.time() - (corpus / "project_memory.json").stat().st_mtime
    if age < 2.5:
        time.sleep(2.5 - age)


settle(ctx_corpus)
env["MNEME_GATE_CACHE_DIR"] = str(cache_dir)
ctx_first = measure(ctx_cmd, ctx_corpus, 1, ok=(0,))
ctx = measure(ctx_cmd, ctx_corpus, 30 if not quick else 5, ok=(0,))
ctx_plain = measure(ctx_cmd, ctx_corpus, 10 if not quick else 3, ok=(0,), extra_env={"MNEME_GATE_CACHE": "off"})
hook_input = json.dumps({"session_id": "bench", "cwd": str(ctx_corpus), "hook_event_name": "PreToolUse",
                         "tool_name": "Edit", "tool_input": {"file_path": str(ctx_corpus / "services/payments/refunds.py"),
                                                             "old_string": "pass", "new_string": "ledger.post_reversal(charge)"}})
hook = measure([bin, "hook", "claude", "--memory", str(ctx_corpus / "project_memory.json")], ctx_corpus,
               30 if not quick else 5, ok=(0,), stdin=hook_input)
# Ten times the decisions: the cache compiled once, then `context` and `hook claude` from it.
D_LARGE = D * 10
ctx_large_corpus = generate(D_LARGE, 0)
settle(ctx_large_corpus)
measure(ctx_cmd, ctx_large_corpus, 1, ok=(0,))
ctx_large = measure(ctx_cmd, ctx_large_corpus, 30 if not quick else 5, ok=(0,))
hook_large_input = hook_input.replace(str(ctx_corpus), str(ctx_large_corpus))
hook_large = measure([bin, "hook", "claude", "--memory", str(ctx_large_corpus / "project_memory.json")], ctx_large_corpus,
                     30 if not quick else 5, ok=(0,), stdin=hook_large_input)
mcp_out = subprocess.run([sys.executable, "tests/reference/mcp_client.py", "--bin", bin, "--memory",
                          str(ctx_corpus / "project_memory.json"), "--latency", "200" if not quick else "20"],
                         env=env, capture_output=True, text=True)
if mcp_out.returncode != 0:
    sys.exit(f"bench: the MCP latency check failed:\n{mcp_out.stdout}{mcp_out.stderr}")
mcp = json.loads(mcp_out.stdout.strip().splitlines()[-1])
mcp_ms = mcp["median_ms"]

scale_s = [measure(run_cmd(p), p, runs) for p in (generate(D, S // 4), generate(D, S // 2), big)]

# One suite file of 10,000 and of 100,000 scenarios (a single big file used
# to be refused by the YAML parser's fixed node budget).
def generate_one_file(scenarios):
    out = root / f"native-one-file-{scenarios}"
    if not (out / "project_memory.json").exists():
        subprocess.run([sys.executable, "tests/fixtures/gen_native_suite.py", "--scenarios", str(scenarios),
                        "--out", str(out)], check=True, capture_output=True)
    return out


OS, OB = (2000, 20000) if quick else (10000, 100000)
one_small = measure(run_cmd(None), generate_one_file(OS), runs)
one_big = measure(run_cmd(None), generate_one_file(OB), max(1, min(runs, 3)))
per_small, per_big = one_small[0] / OS * 1e6, one_big[0] / OB * 1e6
scale_d = [measure(run_cmd(p), p, runs) for p in (generate(D // 4, S), generate(D // 2, S), big)]

# A memory of a million small records, checked by `validate` and run against a
# 1,000-scenario suite: peak RSS over the bytes read (the memory file; for `run`, the suite too).
huge = generate(BIG_MEMORY, 1000, small=True)
huge_memory = (huge / "project_memory.json").stat().st_size
huge_size = size_of(huge)
huge_runs = max(1, min(runs, 3))
huge_validate = measure([bin, "validate", "--memory", "project_memory.json"], huge, huge_runs)
huge_run = measure(run_cmd(huge), huge, huge_runs)
rss_validate = huge_validate[3] * 1024 / huge_memory
rss_run = huge_run[3] * 1024 / huge_size

# Do the two tools agree on the Mneme-layout suite? (Reported, not hidden.)
ours_report = Path(tempfile.mkdtemp()) / "r.json"
subprocess.run(run_cmd(mn, ["--profile", "mneme", "--json", str(ours_report)]), cwd=mn, env=env,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
o = json.loads(ours_report.read_text())
m = json.loads((mn / "mneme.json").read_text())
ours = {s["id"]: s for s in o["scenarios"]}


def agrees(r):
    s = ours.get(r["name"])
    return s is not None and (
        s["verdict"] == r["verdict"]
        and [x["id"] for x in s["retrieved"]] == r["layer1"]["retrieved_ids"]
        and (s["violations"]["control"], s["violations"]["governed"])
        == (r["baseline_violation_count"], r["enhanced_violation_count"])
    )


same = sum(agrees(r) for r in m["results"])

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
ratio = theirs[0] / ours_mn[0]
over_floor = run_big[0] / floor_big[0]
grow_s = scale_s[2][0] / scale_s[0][0]
grow_d = scale_d[2][0] / scale_d[0][0]
speedup = jobs1[0] / jobs2[0]
speedup_one = jobs1_one[0] / jobs2_one[0]
rss_ratio = run_big[3] * 1024 / big_size
rss_ratio_one = run_one[3] * 1024 / big_one_size


def verdict(ok, text):
    return ("met" if ok else "missed") + f" ({text})"


lines = [
    f"Machine: {os.cpu_count()} cores, {cpu}; {rustc}; {platform.python_version()} for Mneme; "
    f"medians of {runs} whole-process runs (Mneme: {max(1, min(runs, 3))}; context: {30 if not quick else 5})"
    + (" — QUICK SIZES, not for quoting" if quick else ""),
    "",
    "| what | result | peak RSS | target |",
    "|---|---|---|---|",
    f"| `run`, {S:,} scenarios × {D:,} decisions (native, {big_size / 2**20:.0f} MiB of input) | {fmt(run_big)} | {mib(run_big[3])} | |",
    f"| parse-only floor (`mneme-gate-dev floor`), same input | {fmt(floor_big)} | {mib(floor_big[3])} | |",
    f"| run / floor | {over_floor:.2f}× | | ≤ 1.5×: {verdict(over_floor <= 1.5, f'{over_floor:.2f}×')} |",
    f"| `run --profile classic` (token overlap, no BM25F), same input | {fmt(run_classic)} | {mib(run_classic[3])} | |",
    f"| `run` (default, BM25F) / `run --profile classic` | {over_classic:.2f}× | | ≤ 1.2×: {verdict(over_classic <= 1.2, f'{over_classic:.2f}×')} |",
    f"| `coverage`, {D:,} decisions × {S:,} scenarios (`--json`) | {fmt(coverage_big)} | {mib(coverage_big[3])} | ≤ 3 s: {verdict(coverage_big[0] <= 3, f'{coverage_big[0]:.2f} s')} |",
    f"| `run --profile mneme`, {MS:,} × {MD:,} (Mneme layout) | {fmt(ours_mn)} | {mib(ours_mn[3])} | |",
    f"| Mneme 0.10.0 `mneme benchmark`, same suite | {fmt(theirs)} | {mib(theirs[3])} | |",
    f"| Mneme / mneme-gate | {ratio:.0f}× | | ≥ 300×: {verdict(ratio >= 300, f'{ratio:.0f}×')} |",
    f"| `context`, {D:,} decisions (from the compiled index cache) | {ctx[0] * 1000:.1f} ms (min {ctx[1] * 1000:.1f}, max {ctx[2] * 1000:.1f}) | {mib(ctx[3])} | ≤ 10 ms: {verdict(ctx[0] <= 0.010, f'{ctx[0] * 1000:.1f} ms')} |",
    f"| `hook claude`, {D:,} decisions (an `Edit`'s `PreToolUse`) | {hook[0] * 1000:.1f} ms (min {hook[1] * 1000:.1f}, max {hook[2] * 1000:.1f}) | {mib(hook[3])} | ≤ 10 ms: {verdict(hook[0] <= 0.010, f'{hook[0] * 1000:.1f} ms')} |",
    f"| `context` / `hook claude`, {D_LARGE:,} decisions (from the cache) | {ctx_large[0] * 1000:.1f} / {hook_large[0] * 1000:.1f} ms (max {ctx_large[2] * 1000:.1f} / {hook_large[2] * 1000:.1f}) | {mib(ctx_large[3])} / {mib(hook_large[3])} | ≤ 25 ms: {verdict(max(ctx_large[0], hook_large[0]) <= 0.025, f'{ctx_large[0] * 1000:.1f} / {hook_large[0] * 1000:.1f} ms')} |",
    f"| `context` without the cache (`MNEME_GATE_CACHE=off`) / its first run, which compiles it | {ctx_plain[0] * 1000:.1f} / {ctx_first[0] * 1000:.1f} ms | {mib(ctx_plain[3])} / {mib(ctx_first[3])} | |",
    f"| MCP `memory_search`, {D:,} decisions ({mcp['calls']} calls from the PyPI `mcp` client, after start) | {mcp_ms:.2f} ms (min {mcp['min_ms']:.2f}, max {mcp['max_ms']:.2f}; the client's floor, `memory_health`: {mcp['floor_median_ms']:.2f}) | | ≤ 1 ms: {verdict(mcp_ms <= 1.0, f'{mcp_ms:.2f} ms')} |",
    f"| scenarios ×1 / ×2 / ×4 ({S // 4:,} / {S // 2:,} / {S:,}) | {scale_s[0][0]:.3f} / {scale_s[1][0]:.3f} / {scale_s[2][0]:.3f} s | | 1×→4× ≤ 4.4×: {verdict(grow_s <= 4.4, f'{grow_s:.2f}×')} |",
    f"| decisions ×1 / ×2 / ×4 ({D // 4:,} / {D // 2:,} / {D:,}), {S:,} scenarios | {scale_d[0][0]:.3f} / {scale_d[1][0]:.3f} / {scale_d[2][0]:.3f} s | | 1×→4× ≤ 1.5×: {verdict(grow_d <= 1.5, f'{grow_d:.2f}×')} |",
    f"| one suite file, {OS:,} / {OB:,} scenarios | {one_small[0]:.3f} / {one_big[0]:.3f} s ({per_small:.0f} / {per_big:.0f} µs a scenario) | {mib(one_small[3])} / {mib(one_big[3])} | per scenario ≤ 1.25×: {verdict(per_big <= 1.25 * per_small, f'{per_big / per_small:.2f}×')} |",
    f"| `--jobs 1` / `--jobs 2` on {S:,} × {D:,} | {jobs1[0]:.3f} / {jobs2[0]:.3f} s | | speed-up ≥ 1.6×: {verdict(speedup >= 1.6, f'{speedup:.2f}×')} |",
    f"| `--jobs 1` / `--jobs 2`, the same suite in one file | {jobs1_one[0]:.3f} / {jobs2_one[0]:.3f} s | | speed-up ≥ 1.6×: {verdict(speedup_one >= 1.6, f'{speedup_one:.2f}×')} |",
    f"| peak RSS / input size ({S:,} × {D:,}) | {rss_ratio:.2f}× | | ≤ 4×: {verdict(rss_ratio <= 4, f'{rss_ratio:.2f}×')} |",
    f"| `run`, the same suite in one file ({big_one_size / 2**20:.0f} MiB of input) | {fmt(run_one)} | {mib(run_one[3])} | |",
    f"| peak RSS / input size, the suite in one file | {rss_ratio_one:.2f}× | | ≤ 4×: {verdict(rss_ratio_one <= 4, f'{rss_ratio_one:.2f}×')} |",
    f"| `validate` / `run` (1,000 scenarios), memory of {BIG_MEMORY:,} small records ({huge_memory / 2**20:.0f} MiB; with the suite {huge_size / 2**20:.0f} MiB) | {fmt(huge_validate)} / {fmt(huge_run)} | {mib(huge_validate[3])} / {mib(huge_run[3])} | |",
    f"| peak RSS / input size, {BIG_MEMORY:,}-record memory, `validate` / `run` | {rss_validate:.2f}× / {rss_run:.2f}× | | ≤ 3×: {verdict(max(rss_validate, rss_run) <= 3, f'{rss_validate:.2f}× / {rss_run:.2f}×')} |",
    "",
    f"Agreement with Mneme on the {MS:,}-scenario Mneme-layout suite (`run --profile mneme`): the same "
    f"verdict, retrieved ids and violation counts in {same}/{len(m['results'])} scenarios.",
]
text = "\n".join(lines) + "\n"
(root / "results.md").write_text(text)
print(text)
PY
