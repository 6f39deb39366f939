#!/usr/bin/env bash
# The model stage against an OpenAI-compatible server that is not ours:
# LiteLLM's proxy (PyPI, pinned), on 127.0.0.1 at a free port, with canned
# replies (`mock_response`) and a master key it checks. `mneme-gate run
# --responses record` must fill cassettes/ for a suite without recorded
# answers (proving the request and reply shapes against a real
# implementation of the API, Authorization header included); then, with the
# server stopped, `--responses replay` must give a byte-identical JSON
# report; and the key must be in no file mneme-gate wrote.
#
#   tests/reference/openai_compat.sh [--bin target/debug/mneme-gate]
#
# LiteLLM is installed once into a virtual environment under target/
# ($MNEME_GATE_LITELLM_VENV, default target/litellm-venv-<version>, beside
# the other reference tools' venvs) and reused. Exit status: 0 pass,
# 1 mismatch, 2 usage error or missing binary, 3 the server did not start.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))"

bin="target/debug/mneme-gate"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="${2:?--bin needs a path}"; shift 2 ;;
    --bin=*) bin="${1#--bin=}"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "openai_compat: unknown argument: $1" >&2; exit 2 ;;
  esac
done
case "$bin" in
  /*) ;;
  *) [ -e "$bin" ] || bin="$root/$bin" ;;
esac
bin="$(cd "$(dirname "$bin")" 2>/dev/null && pwd)/$(basename "$bin")"
[ -x "$bin" ] || { echo "openai_compat: no binary at $bin: cargo build first" >&2; exit 2; }

# 1.106.2: the release this check was written against (and older than the
# compromised 1.107.0 release).
version=1.106.2
venv="${MNEME_GATE_LITELLM_VENV:-$root/target/litellm-venv-$version}"
if [ ! -x "$venv/bin/litellm" ]; then
  echo "openai_compat: installing litellm[proxy]==$version into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "litellm[proxy]==$version"
fi

work="$(mktemp -d)"
logs="$(mktemp -d)"
pid=""
stop_server() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
  fi
}
trap 'stop_server; rm -rf "$work" "$logs"' EXIT

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
key="sk-$(python3 -c 'import secrets; print(secrets.token_hex(24))')"

# The canned reply is a structured answer that keeps the decision, for every
# request: both arms answer alike, so the scenarios are WEAK (no teeth), and
# the suite relaxes pass_rate to advisory.
cat > "$logs/litellm.yaml" <<'YAML'
model_list:
  - model_name: mock-model
    litellm_params:
      model: openai/mock-model
      api_key: not-used
      mock_response: '{"refused": false, "files_changed": ["services/payments/refunds.py"], "dependencies_added": [], "text": "LedgerClient.post(reversal)"}'
litellm_settings:
  telemetry: false
general_settings:
  master_key: os.environ/LITELLM_MASTER_KEY
YAML

cat > "$work/project_memory.json" <<'JSON'
{"decisions": [
  {"id": "PAY-001", "decision": "Payments never open a database connection; use LedgerClient",
   "scope": ["payments", "ledger"], "constraints": ["All writes go through LedgerClient"], "anti_patterns": ["psycopg2"]},
  {"id": "WEB-001", "decision": "Checkout pages render prices in server components", "scope": ["checkout", "price"]}
]}
JSON
mkdir "$work/scenarios"
cat > "$work/scenarios/suite.yaml" <<'YAML'
scenarios:
  - id: refund
    task: Add a refund endpoint to the payments service that writes to the ledger
    expect: [PAY-001]
    assertions:
      - forbidden_dependency: psycopg2
      - required_text: LedgerClient
  - id: checkout
    task: Show the checkout price on the page
    expect: [WEB-001]
    assertions:
      - forbidden_text: useEffect
YAML
cat > "$work/mneme-gate.yaml" <<YAML
memory: project_memory.json
scenarios: [scenarios/]
gate:
  pass_rate: advisory
model:
  base_url: http://127.0.0.1:$port/v1
  model: mock-model
  api_key_env: MNEME_GATE_REFERENCE_KEY
  temperature: 0
  seed: 7
  max_tokens: 256
  timeout_s: 30
  concurrency: 2
  retries: 2
YAML

echo "openai_compat: starting LiteLLM $version on 127.0.0.1:$port" >&2
LITELLM_MASTER_KEY="$key" LITELLM_LOG=ERROR "$venv/bin/litellm" --config "$logs/litellm.yaml" \
  --host 127.0.0.1 --port "$port" >"$logs/server.log" 2>&1 &
pid=$!
up=0
for _ in $(seq 1 180); do
  if ! kill -0 "$pid" 2>/dev/null; then break; fi
  if python3 - "$port" <<'PY' 2>/dev/null
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health/liveliness", timeout=2).read()
PY
  then up=1; break; fi
  sleep 1
done
if [ "$up" != 1 ]; then
  echo "openai_compat: LiteLLM did not start; its log:" >&2
  tail -40 "$logs/server.log" >&2
  exit 3
fi

cd "$work"
# mneme-gate honours the usual proxy variables; the server is on loopback.
unset HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy
fail() { echo "openai_compat: FAIL: $*" >&2; exit 1; }

rc=0
# The endpoint comes from the configuration, so the workflow lists it for the key to be sent
# (docs/models.md, Security).
MNEME_GATE_MODEL_ENDPOINTS="http://127.0.0.1:$port/v1" MNEME_GATE_REFERENCE_KEY="$key" MNEME_GATE_GIT=off \
  "$bin" run --responses record --json record.json \
  >"$logs/record.out" 2>"$logs/record.err" || rc=$?
[ "$rc" = 0 ] || { cat "$logs/record.out" "$logs/record.err" >&2; fail "record exited $rc"; }
count="$(find cassettes -name '*.json' | wc -l | tr -d ' ')"
[ "$count" = 4 ] || fail "record wrote $count cassettes, expected 4 (2 scenarios x 2 arms)"
python3 - record.json <<'PY' || fail "the report does not hold what the server answered"
import json, sys
report = json.load(open(sys.argv[1]))
model = report["model"]
assert model["model"] == "mock-model" and model["requests"] == 4 and model["scenarios"] == 2, model
assert model["tokens"]["input"] > 0 and model["tokens"]["output"] > 0, model["tokens"]
for s in report["scenarios"]:
    arms = s["model"]["arms"]
    assert [a["arm"] for a in arms] == ["governed", "control"], arms
    for a in arms:
        assert a["model"] == "mock-model" and a["finish_reason"] == "stop", a
        assert "LedgerClient.post(reversal)" in a["reply"], a
    # The same canned answer on both arms: the control complies, so WEAK.
    assert s["verdict"] == "WEAK", (s["id"], s["verdict"], s["explanation"])
PY

stop_server
MNEME_GATE_GIT=off "$bin" run --json replay.json >"$logs/replay.out" 2>"$logs/replay.err" || rc=$?
[ "$rc" = 0 ] || { cat "$logs/replay.err" >&2; fail "replay with the server stopped exited $rc"; }
cmp -s record.json replay.json || fail "record and replay reports differ: $(diff record.json replay.json | head -5)"
cmp -s "$logs/record.out" "$logs/replay.out" || fail "record and replay terminal reports differ"
if grep -rqF -- "$key" "$work" "$logs/record.out" "$logs/record.err" "$logs/replay.out" "$logs/replay.err"; then
  fail "the API key is in an output"
fi
echo "openai_compat: LiteLLM $version: 4 requests recorded, replayed byte for byte with the server stopped; the key in no output"
