#!/usr/bin/env bash
# Measures `mneme-gate context` end to end (process start to exit) on a
# generated 5,000-decision corpus; prints the median of N runs.
# Usage: bash bench/context.sh [RUNS]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
cargo build --release --locked --quiet
cargo build --release --locked --quiet -p mneme-gate-dev
bin=target/release/mneme-gate
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
target/release/mneme-gate-dev synth --decisions 5000 --seed 7 --out "$dir" 2>/dev/null
python3 - "$bin" "$dir/project_memory.json" "$runs" <<'PY'
import statistics, subprocess, sys, time
bin, memory, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmd = [bin, "context", "--memory", memory, "--task",
       "Add a refund endpoint that writes the reversal to the ledger",
       "--file", "services/payments/refunds.py"]
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)  # warm the page cache
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    times.append((time.perf_counter() - t) * 1000)
times.sort()
print(f"context, 5,000 decisions ({memory.rsplit('/',1)[0]}): median {statistics.median(times):.1f} ms, "
      f"min {times[0]:.1f} ms, max {times[-1]:.1f} ms over {runs} runs")
PY
