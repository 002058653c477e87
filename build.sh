#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine:
#   ./build.sh reproduce   install what is missing, build (Release), run every figure and table
#                          available, in model mode, writing reports/ (the committed expected
#                          results: commit what it rewrites), then reports/index.html and
#                          reports/REPORT.md (repro_report), and print the page's path
#   ./build.sh test        install what is missing, build (Release), run the whole test suite, then
#                          ./build.sh reliability (fuzzers, the suite under ASan+UBSan; SANITIZE=0 skips it)
#   ./build.sh reliability install clang if missing; build everything with clang, AddressSanitizer
#                          and UndefinedBehaviorSanitizer (-fno-sanitize-recover, no CUDA) and
#                          the libFuzzer targets in build-asan/; run each fuzz target for
#                          FUZZ_SECONDS (default 60), then the whole test suite without the tests
#                          matching SANITIZE_EXCLUDE (the --all runs, the default comparison, the GraphTurbo and Atomic
#                          determinism runs: minutes each under ASan; the Release stage runs them)
#   ./build.sh slurm-check  build repro_brickdl and repro_report, then tools/slurm/test_local_slurm.sh:
#                          a sweep on a private single-node Slurm (installs slurm-wlm and munge;
#                          root; a manual check, not part of `test`)
# Both are idempotent: the second run installs nothing and rebuilds only what changed.
# Environment: BUILD_DIR (default build), JOBS (default: number of cores), WERROR=0 drops -Werror.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

PACKAGES=(build-essential cmake ninja-build libeigen3-dev libboost-program-options-dev nlohmann-json3-dev
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata libbenchmark-dev
          libgtest-dev libjemalloc-dev)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# nvcc on PATH or under /usr/local/cuda: the CUDA kernels are built, with CUTLASS's headers.
have_nvcc() {
  command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]
}

# Warnings are errors, in both the GCC and the clang build (the toolchain this script installs
# builds the suite without one); WERROR=0 turns that off, e.g. for a newer compiler's new warnings.
werror_flag() {
  if [ "${WERROR:-1}" = "0" ]; then echo OFF; else echo ON; fi
}

configure() {
  # CUTLASS (header-only, pinned): fetched once with pip into the build folder, where CMake
  # looks for it (cmake/cutlass.cmake); without nvcc nothing is fetched.
  if have_nvcc; then "$ROOT/tools/fetch_cutlass.sh" --build-dir "$BUILD_DIR"; fi
  local gen=()
  # Keep the generator of an existing build folder; a new one uses Ninja.
  [ -f "$BUILD_DIR/CMakeCache.txt" ] || gen=(-G Ninja)
  cmake -S "$ROOT" -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DDGS_WERROR=$(werror_flag)
}

# build [TARGET...]: everything, or only the targets named.
build() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$BUILD_DIR" -j "$JOBS" "${targets[@]}"
}

case "${1:-}" in
  reproduce)
    install_missing $(have_nvcc && echo python3-pip)
    configure
    # Only what reproducing needs: the papers' executables and the page (no tests, no
    # benchmarks). The papers are reproductions/papers.inc's (CMake's DGS_PAPERS), written by
    # CMake to papers.txt.
    mapfile -t papers < "$BUILD_DIR/papers.txt"
    build repro_report repro_compare "${papers[@]/#/repro_}"
    while read -r -u 3 p; do
      echo "== repro_$p --all"
      rc=0
      "$BUILD_DIR/repro_$p" --all --out "$ROOT/reports" || rc=$?
      # exit code 3: nothing of this paper is implemented yet (it says so); anything else fails.
      if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then exit $rc; fi
    done 3< "$BUILD_DIR/papers.txt"
    # The schedulers of every paper side by side (README, "Comparing schedulers").
    echo "== repro_compare (resnet50 and bert_base on a100, stcp920, atomic_mesh)"
    "$BUILD_DIR/repro_compare" --quiet --out "$ROOT/reports"
    echo "== reports written to $ROOT/reports/"
    # One page over every paper's reports (and REPORT.md, the same summary in Markdown).
    "$BUILD_DIR/repro_report" "$ROOT/reports"
    ;;
  test)
    # chromium: the report page's browser test (tests/report/committed_page_test.cpp).
    install_missing chromium $(have_nvcc && echo python3-pip)
    configure
    build
    (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS")
    # Then the reliability stage (sanitizer build, fuzzers, the suite under ASan + UBSan), unless
    # SANITIZE=0 asks for the Release suite only.
    if [ "${SANITIZE:-1}" != "0" ]; then "$ROOT/build.sh" reliability; fi
    ;;
  reliability)
    install_missing clang libclang-rt-14-dev chromium
    # One clang build with ASan + UBSan (-fno-sanitize-recover) for both the fuzz targets and the
    # whole test suite (no CUDA: nvcc's host code is not instrumented). Debug info: line tables
    # only (what a sanitizer's stack trace prints), which compiles faster than full -g.
    ASAN_DIR=${ASAN_BUILD_DIR:-build-asan}
    gen=()
    [ -f "$ASAN_DIR/CMakeCache.txt" ] || gen=(-G Ninja)
    CC=clang CXX=clang++ cmake -S "$ROOT" -B "$ASAN_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DDGS_FUZZ=ON -DDGS_ENABLE_CUDA=OFF -DDGS_BUILD_MICROBENCH=OFF -DDGS_WERROR=$(werror_flag)
    cmake --build "$ASAN_DIR" -j "$JOBS"
    FUZZ_BUILD_DIR="$ASAN_DIR" JOBS=$JOBS "$ROOT/fuzz/run_fuzzers.sh" "${FUZZ_SECONDS:-60}"
    cd "$ASAN_DIR"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --output-on-failure -j "$JOBS" -E "${SANITIZE_EXCLUDE:-PaperReports|CommittedComparison|Determinism.*/(graphturbo|atomic)}"
    ;;
  slurm-check)
    install_missing
    configure
    build repro_brickdl repro_report
    "$ROOT/tools/slurm/test_local_slurm.sh" "$BUILD_DIR" brickdl 3
    ;;
  *)
    echo "usage: ./build.sh reproduce|test|reliability|slurm-check" >&2
    exit 2
    ;;
esac
