#!/usr/bin/env bash
# Smoke-runs every cargo-fuzz target of fuzz/ for a short while (see
# docs/fuzzing.md). Fails if any target finds a crash, a timeout or an
# out-of-memory, naming the target and the input that did it.
#
#   bash .ci/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target: the first argument, else $FUZZ_SECONDS, else 20.
# TARGETs: the ones given, else every target of `cargo fuzz list`.
#
# Exploring (the default): each target starts from its committed seeds
# (fuzz/seeds/<target>/, read only) plus a scratch corpus kept between runs
# under fuzz/target/corpus/ (ignored by git), with a random seed, for SECONDS.
#
# Reproducible (FUZZ_RUNS=N, what .ci/run uses): each target runs the
# committed seeds and then exactly N mutations from libFuzzer seed
# $FUZZ_SEED (default 1), starting from the seeds alone, so that the same
# tree gives the same verdict on every machine and every run; SECONDS is
# then ignored. Exploration finds new inputs; CI must not fail at random.
#
# Crashing inputs go to fuzz/artifacts/<target>/.
# Needs rustup's nightly toolchain; installs cargo-fuzz if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
export CARGO_TERM_COLOR=never

seconds="${1:-${FUZZ_SECONDS:-20}}"
[ $# -gt 0 ] && shift
runs="${FUZZ_RUNS:-}"
fuzz_seed="${FUZZ_SEED:-1}"
for n in "$seconds" "$fuzz_seed" ${runs:+"$runs"}; do
  case "$n" in
    '' | *[!0-9]*) echo "fuzz.sh: SECONDS, FUZZ_RUNS and FUZZ_SEED must be whole numbers, got '$n'" >&2; exit 2 ;;
  esac
done

die() {
  echo "fuzz.sh: error: $*" >&2
  exit 2
}

# Prerequisites.
command -v rustup >/dev/null 2>&1 || die "needs rustup (https://rustup.rs): cargo fuzz builds with the nightly toolchain"
cargo +nightly --version >/dev/null 2>&1 \
  || die "needs the nightly toolchain: rustup toolchain install nightly --profile minimal"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked
fi
echo "fuzz.sh: $(cargo +nightly --version), $(cargo fuzz --version)"

# The longest input each target is given (seeds are a few KB; the compiled
# index's directory is 31 KB, and a seed longer than this is cut to it, which
# would leave that target fuzzing only the header checks).
max_len() {
  case "$1" in
    config) echo 4096 ;;
    mneme_folder) echo 8192 ;;
    compiled_index) echo 65536 ;;
    *) echo 16384 ;;
  esac
}

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi
[ "${#targets[@]}" -gt 0 ] || die "no fuzz targets found (cargo fuzz list)"

# Build every target once: the same build `cargo fuzz run` makes (release,
# debug assertions, AddressSanitizer, coverage instrumentation).
start=$(date +%s)
echo "fuzz.sh: building ${targets[*]}"
cargo +nightly fuzz build
host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin_dir="$root/fuzz/target/$host/release"
if [ -n "$runs" ]; then
  echo "fuzz.sh: built in $(($(date +%s) - start)) s; running each target on its seeds plus $runs inputs from seed $fuzz_seed"
else
  echo "fuzz.sh: built in $(($(date +%s) - start)) s; running each target for $seconds s"
fi

# As `cargo fuzz run` does: libgit2 (linked through git2) has two static
# C tables of the same name, which AddressSanitizer's ODR check refuses.
export ASAN_OPTIONS="detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

failed=()
for target in "${targets[@]}"; do
  bin="$bin_dir/$target"
  [ -x "$bin" ] || die "no binary for target '$target' at $bin (cargo fuzz list shows the targets)"
  seeds="$root/fuzz/seeds/$target"
  corpus="$root/fuzz/target/corpus/$target"
  artifacts="$root/fuzz/artifacts/$target"
  work="$root/fuzz/target/fuzz-run/$target"
  [ -d "$seeds" ] || die "target '$target' has no seeds in $seeds"
  rm -rf "$work"
  if [ -n "$runs" ]; then
    # Reproducible: an empty corpus of this run's own, fixed seed and count.
    corpus="$work/corpus"
    budget=(-runs="$runs" -seed="$fuzz_seed")
  else
    budget=(-max_total_time="$seconds")
  fi
  mkdir -p "$corpus" "$artifacts" "$work/tmp"
  touch "$work/started"
  t0=$(date +%s)
  status=0
  # -jobs=1 -workers=1: one fuzzing process, whose output libFuzzer writes to
  # fuzz-0.log in the working folder. Scratch files of the targets go to
  # $work/tmp.
  (cd "$work" && TMPDIR="$work/tmp" "$bin" \
    "${budget[@]}" -rss_limit_mb=2048 -timeout=10 -max_len="$(max_len "$target")" \
    -jobs=1 -workers=1 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "$seeds" >"$work/driver.log" 2>&1) || status=$?
  log="$work/fuzz-0.log"
  [ -f "$log" ] || log="$work/driver.log"
  elapsed=$(($(date +%s) - t0))
  # Inputs libFuzzer wrote during this run (crash-, timeout-, oom-, ...).
  new="$(find "$artifacts" -type f -newer "$work/started" -printf '%f\n' | sort)"
  if [ "$status" -ne 0 ] || [ -n "$new" ]; then
    echo "fuzz.sh: FAILED: target '$target' (exit $status after $elapsed s)" >&2
    # sed, not head, keeps the first 80 lines: it reads them all, so grep
    # never meets a closed pipe (SIGPIPE would fail the pipe and run tail too).
    grep -E 'panicked at|ERROR: libFuzzer|ERROR: AddressSanitizer|SUMMARY' -A 20 "$log" | sed -n '1,80p' >&2 || tail -n 60 "$log" >&2
    while read -r f; do
      [ -n "$f" ] || continue
      echo "fuzz.sh: the input is fuzz/artifacts/$target/$f" >&2
      echo "fuzz.sh:   reproduce: cargo +nightly fuzz run $target fuzz/artifacts/$target/$f" >&2
      echo "fuzz.sh:   minimise:  cargo +nightly fuzz tmin $target fuzz/artifacts/$target/$f" >&2
    done <<<"$new"
    echo "fuzz.sh: full log: ${log#"$root"/}" >&2
    failed+=("$target")
  else
    # libFuzzer's last line: "#RUNS<tab>DONE   cov: ... ft: ... corp: ...".
    stats="$({ grep -E '^#[0-9]+[[:space:]]+DONE' "$log" || true; } | tail -n 1 \
      | sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+/runs \1, /')"
    echo "fuzz.sh: ok: $target in $elapsed s: ${stats:-no final stats}"
  fi
  rm -rf "$work/tmp"
done

total=$(($(date +%s) - start))
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]} (total $total s)" >&2
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets passed (total $total s)"
