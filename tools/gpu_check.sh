#!/usr/bin/env bash
# The suite's check on a GPU, in one script: on a machine with an NVIDIA GPU and a built suite it
# runs every GPU test, every measured item and gpu_validate, each under a time limit and all
# within a deadline of 8 minutes, then the GPU tests under compute-sanitizer (memcheck, racecheck,
# initcheck) with what time is left, and packs the reports and logs into one archive.
#
#   tools/gpu_check.sh [BUILD_DIR] [ARCHIVE]     (defaults: build, gpu_check_<date>.tar.gz)
#
# Build first (README, "Measured mode"): cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
# && cmake --build build. Environment: GPU_CHECK_DEADLINE (seconds, default 470); GPU_CHECK_HW
# (a config name or file for a GPU that no built-in config matches, passed as --hw).
# Exit codes: 0 every step passed; 1 a step failed or ran out of time (see the summary);
# 2 no built suite in BUILD_DIR; 4 no usable GPU (one line, nothing run).
set -uo pipefail

BUILD=${1:-build}
ARCHIVE=${2:-gpu_check_$(date -u +%Y%m%dT%H%M%SZ).tar.gz}
DEADLINE=${GPU_CHECK_DEADLINE:-470}

for exe in gpu_validate repro_ios repro_welder repro_brickdl repro_graphturbo test_cuda; do
  if [ ! -x "$BUILD/$exe" ]; then
    echo "gpu_check: no built suite in '$BUILD' ($exe missing); build it first (README, 'Measured mode')" >&2
    exit 2
  fi
done

HW_ARGS=()
[ -n "${GPU_CHECK_HW:-}" ] && HW_ARGS=(--hw "$GPU_CHECK_HW")
probe=$("$BUILD/gpu_validate" --probe "${HW_ARGS[@]}" 2>&1)
probe_rc=$?
if [ $probe_rc -ne 0 ]; then
  echo "gpu_check: $probe" >&2
  exit $([ $probe_rc -eq 4 ] && echo 4 || echo 1)
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")
mkdir -p "$WORK/logs" "$WORK/reports"
SUMMARY="$WORK/summary.tsv"
printf 'step\tlimit_s\twall_s\tresult\n' > "$SUMMARY"
echo "$probe" | tee "$WORK/gpu.txt"
START=$(date +%s)
failed=0

# step NAME LIMIT_S COMMAND...: runs COMMAND with stdout and stderr in logs/NAME.log under
# min(LIMIT_S, what is left of the deadline); records its wall time and result.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((DEADLINE - ($(date +%s) - START)))
  if [ $left -lt 5 ]; then
    printf '%s\t%s\t0\tSKIPPED (deadline)\n' "$name" "$limit" >> "$SUMMARY"
    echo "== $name: skipped, the deadline of ${DEADLINE} s is reached"
    failed=1
    return
  fi
  [ $limit -gt $left ] && limit=$left
  echo "== $name (limit ${limit} s)"
  local t0=$(date +%s%N)
  timeout --kill-after=10 "$limit" "$@" > "$WORK/logs/$name.log" 2>&1
  local rc=$?
  local tenths=$((($(date +%s%N) - t0) / 100000000))
  local wall="$((tenths / 10)).$((tenths % 10))"
  local result=ok
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then result="TIMEOUT"; failed=1;
  elif [ $rc -ne 0 ]; then result="FAILED (exit $rc)"; failed=1; fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$limit" "$wall" "$result" >> "$SUMMARY"
  echo "   $result in ${wall%.*} s"
}

R="$WORK/reports"
# 1. The GPU tests (they skip on machines without a GPU; here they run).
step test_cuda 120 "$BUILD/test_cuda"
step test_gpu_items 120 sh -c "'$BUILD/test_welder' --gtest_filter='WelderMeasured.*:WelderTileProgramGpu.*' && '$BUILD/test_ios' --gtest_filter='IosMeasured.*' && '$BUILD/test_cli' --gtest_filter='CliTest.Measured*:MeasuredHardwareTest.*' && '$BUILD/test_compare' --gtest_filter='CompareCli.Measured*'"
# 2. The model against this GPU.
step gpu_validate 150 "$BUILD/gpu_validate" "${HW_ARGS[@]}" --out "$R/gpu_validate"
# 3. Every measured item at its defaults (the shortened protocols; --full-protocol is the
#    papers'), quickest first.
step ios_fig1.2 60 "$BUILD/repro_ios" --fig 1.2 --mode measured "${HW_ARGS[@]}" --out "$R"
step welder_fig2 60 "$BUILD/repro_welder" --fig 2 --mode measured "${HW_ARGS[@]}" --out "$R"
step graphturbo_table5 120 "$BUILD/repro_graphturbo" --table 5 --mode measured "${HW_ARGS[@]}" --out "$R"
step ios_fig4.1_inception_v3 120 "$BUILD/repro_ios" --fig 4.1 --mode measured --model inception_v3 "${HW_ARGS[@]}" --out "$R"
step welder_fig13 120 "$BUILD/repro_welder" --fig 13 --mode measured "${HW_ARGS[@]}" --out "$R"
step brickdl_fig10 120 "$BUILD/repro_brickdl" --fig 10 --mode measured "${HW_ARGS[@]}" --out "$R"
step brickdl_fig11 120 "$BUILD/repro_brickdl" --fig 11 --mode measured "${HW_ARGS[@]}" --out "$R"
# 4. compute-sanitizer over the kernel tests (the stage executor's and the items' tests are
#    left out: under the sanitizers they take many minutes). Limits from the H200 run of
#    2026-11-29: memcheck 28 s, racecheck 82 s (its 60-s limit then killed it part-way); on
#    2026-11-30 (validation/runs/h200_2026-11-30/) memcheck 28.6 s, racecheck 57 s, initcheck
#    26.9 s.
#    initcheck leaves out BrickKernels.CudnnBaseline*: its cuDNN 3-D chain calls
#    cudnnFindConvolutionForwardAlgorithm, which allocates its own input, filter and output
#    buffers and times every algorithm on them uninitialised (100 reports inside cuDNN's
#    implicit_convolveNd_sgemm on that run, none from the suite's memory, and it was still in
#    that test at 240 s); memcheck and racecheck still run that test.
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
KERNEL_TESTS='GemmKernels.*:GemmSoftmaxKernels.*:GemmChainKernels.*:BrickKernels.*:DeviceNetwork.*'
sanitizer() {  # sanitizer TOOL LIMIT_S GTEST_FILTER
  if [ -x "$SAN" ]; then
    step "sanitizer_$1" "$2" "$SAN" --tool "$1" --error-exitcode 3 "$BUILD/test_cuda" --gtest_filter="$3"
  else
    printf 'sanitizer_%s\t%s\t0\tSKIPPED (no compute-sanitizer)\n' "$1" "$2" >> "$SUMMARY"
  fi
}
sanitizer memcheck 60 "$KERNEL_TESTS"
sanitizer racecheck 130 "$KERNEL_TESTS"
sanitizer initcheck 120 "$KERNEL_TESTS:-BrickKernels.CudnnBaseline*"

TOTAL=$(($(date +%s) - START))
echo "total ${TOTAL} s (deadline ${DEADLINE} s)" >> "$SUMMARY"
echo
column -t -s $'\t' "$SUMMARY" 2>/dev/null || cat "$SUMMARY"
tar -C "$WORK" -czf "$ARCHIVE" gpu.txt summary.tsv logs reports
echo "archive: $ARCHIVE (gpu.txt, summary.tsv, logs/, reports/)"
rm -rf "$WORK"
exit $failed
