#!/usr/bin/env bash
# The agent's loop alone, the rows bench/run.sh prints for it, in
# a minute: on a generated 5,000-decision corpus, `context` and `hook claude`
# end to end (fresh processes, from the compiled index cache), `context`
# without the cache, and the MCP server's memory_search timed from the PyPI
# `mcp` client (tests/reference/mcp_client.py; target/mcp-venv).
# Usage: bash bench/agent.sh [RUNS]   (default 30; the MCP client makes 200 calls)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p mneme-gate-dev
bin="$PWD/target/release/mneme-gate"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
target/release/mneme-gate-dev synth --decisions 5000 --seed 7 --out "$dir/corpus" >/dev/null 2>&1
python3 - "$bin" "$dir" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, time
bin, dir, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
corpus = os.path.join(dir, "corpus")
memory = os.path.join(corpus, "project_memory.json")
env = {**os.environ, "MNEME_GATE_CACHE_DIR": os.path.join(dir, "cache"), "MNEME_GATE_GIT": "off"}
env.pop("MNEME_GATE_CACHE", None)
# The memory file must be older than the cache's two-second margin, as a real one is.
time.sleep(2.1)
task = "Add a refund endpoint that writes the reversal to the ledger"
context = [bin, "context", "--memory", memory, "--task", task, "--file", "services/payments/refunds.py"]
hook = [bin, "hook", "claude", "--memory", memory]
edit = json.dumps({"session_id": "bench", "cwd": corpus, "hook_event_name": "PreToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": os.path.join(corpus, "services/payments/refunds.py"),
                                  "old_string": "pass", "new_string": "ledger.post_reversal(charge)"}}).encode()


def ms(cmd, n, stdin=None, extra=None):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=corpus, env={**env, **(extra or {})}, input=stdin, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[0], times[-1]


first = ms(context, 1)
rows = [("context, from the cache", ms(context, runs)), ("hook claude (an Edit's PreToolUse)", ms(hook, runs, edit)),
        ("context without the cache", ms(context, max(5, runs // 3), extra={"MNEME_GATE_CACHE": "off"}))]
for name, (median, low, high) in rows:
    print(f"{name}: median {median:.1f} ms (min {low:.1f}, max {high:.1f}) over {runs} runs")
print(f"context, first run (compiles the cache): {first[0]:.1f} ms")
out = subprocess.run([sys.executable, "tests/reference/mcp_client.py", "--bin", bin, "--memory", memory,
                      "--latency", "200"], capture_output=True, text=True, check=True)
mcp = json.loads(out.stdout.strip().splitlines()[-1])
print(f"MCP memory_search: median {mcp['median_ms']:.2f} ms (min {mcp['min_ms']:.2f}, max {mcp['max_ms']:.2f}) "
      f"over {mcp['calls']} calls, protocol {mcp['protocol']}; the client's floor (memory_health): "
      f"{mcp['floor_median_ms']:.2f} ms")
PY
