#!/usr/bin/env bash
# Prints the path of a `mneme` executable from mneme-hq 0.10.0 (PyPI), installed
# once into a virtual environment that the checks share (bench/run.sh, the
# Mneme parity check). Only the install needs the network.
#
#   tests/reference/mneme-venv.sh [VENV_DIR]     (default: target/mneme-venv)
#
# Exit status: 0 and the path on standard output; 2 when Python cannot make
# the environment or pip cannot install the package (its output on stderr).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${1:-$root/target/mneme-venv}"
python="${PYTHON:-python3}"

if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mneme-hq') != '0.10.0')" 2>/dev/null; then
  "$python" -m venv "$venv" >&2 || { echo "mneme-venv: cannot create $venv (install python3-venv)" >&2; exit 2; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check "mneme-hq==0.10.0" >&2 \
    || { echo "mneme-venv: cannot install mneme-hq==0.10.0 into $venv (PyPI unreachable?)" >&2; exit 2; }
fi
echo "$venv/bin/mneme"
