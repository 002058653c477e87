#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a bounded time, from seed corpora, and fails on the
# first finding (a crash, a sanitizer report, an error message that is not one line, an
# allocation over 2 GiB, an input taking over 10 s).
#   fuzz/run_fuzzers.sh [SECONDS_PER_TARGET (default 60)] [TARGET ...]
# Environment: FUZZ_BUILD_DIR (default build-fuzz; configured and built here if missing),
# FUZZ_WORK_DIR (default $FUZZ_BUILD_DIR/fuzz-work: corpora grow there between runs, findings
# are written to $FUZZ_WORK_DIR/findings/). A long local run: fuzz/run_fuzzers.sh 3600.
# libFuzzer runs with -seed=${FUZZ_SEED:-1}, so a run repeats its mutations on any machine;
# FUZZ_RUNS=N also stops a target after N executions (whichever limit comes first).
# Prints, per target, the executions run and the corpus size; on a finding, its first lines, the
# stack's first frames and the input as base64; exits 1 on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_onnx_loader fuzz_hw_config fuzz_plan fuzz_csv)
B=${FUZZ_BUILD_DIR:-build-fuzz}
WORK=${FUZZ_WORK_DIR:-$B/fuzz-work}

if [ ! -f "$B/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDGS_FUZZ=ON -DDGS_ENABLE_CUDA=OFF -DDGS_BUILD_TESTS=OFF -DDGS_BUILD_MICROBENCH=OFF
fi
cmake --build "$B" -j "${JOBS:-$(nproc)}" --target "${TARGETS[@]}"

# Seed corpora (copied, so that the sources are never written).
seed() {  # seed TARGET FILE...
  local d="$WORK/seeds/$1"
  shift
  mkdir -p "$d"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$d/$(echo "$f" | tr '/' '_')"
  done
}
rm -rf "$WORK/seeds"
# The regression inputs seed too, except those named *_timeout.* (refused, but in seconds under
# ASan: a seed over -timeout would be a finding at every run).
seed fuzz_onnx_loader models/onnx/*.onnx /usr/share/libonnx-testdata/data/*/*/model.onnx \
  $(ls tests/reliability/fuzz_regressions/onnx_loader/*.onnx | grep -v '_timeout\.')
seed fuzz_hw_config hw_configs/*.json tests/reliability/fuzz_regressions/hw_config/*.json
seed fuzz_plan common/plan/examples/*.json tests/reliability/fuzz_regressions/plan/*.json
seed fuzz_csv data/*/*.csv

mkdir -p "$WORK/findings"
failed=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$WORK/corpus/$t"
  log="$WORK/$t.log"
  rc=0
  start=$SECONDS
  "$B/$t" "$WORK/corpus/$t" "$WORK/seeds/$t" -max_total_time="$SECONDS_PER_TARGET" \
    -seed="${FUZZ_SEED:-1}" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -max_len=65536 -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$WORK/findings/$t-" > "$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  corpus=$(ls "$WORK/corpus/$t" | wc -l)
  if [ $rc -ne 0 ]; then
    echo "$t: FINDING after $execs executions (exit $rc); see $log and $WORK/findings/"
    grep -m3 -E 'ERROR|runtime error|finding|Crash|leak' "$log" || true
    # The stack's first frames and the input itself (libFuzzer's base64 of it), so that a finding
    # on another machine (CI) can be reproduced here: the same -seed does not repeat a run
    # across builds. To rerun: echo '<base64>' | base64 -d > crash; $B/$t crash
    grep -m6 -E '^ +#[0-5] ' "$log" || true
    grep -m1 '^Base64: ' "$log" |
      awk 'length($0) <= 8200 { print; next } { print "Base64: (an input over 6 KB: see the findings)" }' ||
      true
    failed=1
  else
    echo "$t: $execs executions in $((SECONDS - start)) s, no finding (corpus $corpus inputs)"
  fi
done
exit $failed
