#!/usr/bin/env bash
# Fetches CUTLASS's C++ headers, pinned, into DEST:
#   tools/fetch_cutlass.sh DEST
#   tools/fetch_cutlass.sh --build-dir BUILD   (DEST = BUILD/_deps/cutlass-<version>, the folder
#                                              CMake's DGS_CUTLASS_DIR defaults to)
# CUTLASS is header-only; the nvidia-cutlass wheel on PyPI ships its headers
# (cutlass_library/source/include, tools/util/include) and its examples. The wheel is downloaded
# once with pip (no install, no Python at run time), its SHA-256 checked against the pinned one,
# and three folders unpacked into DEST:
#   include/                          cutlass/ and cute/
#   tools/util/include/               cutlass/util/ (host helpers)
#   examples/13_two_tensor_op_fusion/ the back-to-back GEMM/convolution fusion kernels (the
#                                     kernels GraphTurbo's §5.6 CUTLASS baseline uses; they are
#                                     not part of CUTLASS's include/)
# Idempotent: DEST/.dgs_cutlass_<version> marks a complete unpack; with it nothing is fetched.
# build.sh calls this when nvcc is found; CMake calls it at configure time when DEST lacks it.
set -euo pipefail

VERSION=4.2.0.0
SHA256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
if [ "${1:-}" = "--build-dir" ] && [ -n "${2:-}" ]; then
  DEST="$2/_deps/cutlass-$VERSION"
elif [ -n "${1:-}" ] && [ "${1:-}" != "--build-dir" ]; then
  DEST=$1
else
  echo "usage: tools/fetch_cutlass.sh DEST | --build-dir BUILD" >&2
  exit 2
fi
STAMP="$DEST/.dgs_cutlass_$VERSION"

if [ -f "$STAMP" ]; then exit 0; fi

for tool in python3 sha256sum; do
  if ! command -v "$tool" > /dev/null; then
    echo "fetch_cutlass: $tool not found (needed to fetch the nvidia-cutlass==$VERSION wheel)" >&2
    exit 1
  fi
done
if ! python3 -m pip --version > /dev/null 2>&1; then
  echo "fetch_cutlass: pip not found (Debian: apt-get install python3-pip)" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== fetching CUTLASS $VERSION headers (pip download nvidia-cutlass==$VERSION)"
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" \
  "nvidia-cutlass==$VERSION"
whl=$(find "$tmp" -maxdepth 1 -name "nvidia_cutlass-$VERSION-*.whl" | head -n 1)
if [ -z "$whl" ]; then
  echo "fetch_cutlass: pip downloaded no nvidia_cutlass-$VERSION wheel" >&2
  exit 1
fi
got=$(sha256sum "$whl" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "fetch_cutlass: $(basename "$whl") has SHA-256 $got, expected $SHA256" >&2
  exit 1
fi

# A wheel is a zip file; unpack only the C++ parts, then move them into place in one step.
python3 - "$whl" "$tmp/unpacked" <<'PY'
import sys, zipfile
prefixes = ("cutlass_library/source/include/",
            "cutlass_library/source/tools/util/include/",
            "cutlass_library/source/examples/13_two_tensor_op_fusion/")
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(prefixes)])
PY
src="$tmp/unpacked/cutlass_library/source"
if [ ! -f "$src/include/cutlass/cutlass.h" ]; then
  echo "fetch_cutlass: the wheel has no cutlass_library/source/include/cutlass/cutlass.h" >&2
  exit 1
fi
rm -rf "$DEST.partial"
mkdir -p "$DEST.partial/tools/util" "$DEST.partial/examples"
mv "$src/include" "$DEST.partial/include"
mv "$src/tools/util/include" "$DEST.partial/tools/util/include"
mv "$src/examples/13_two_tensor_op_fusion" "$DEST.partial/examples/13_two_tensor_op_fusion"
echo "nvidia-cutlass==$VERSION sha256=$SHA256" > "$DEST.partial/.dgs_cutlass_$VERSION"
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$DEST.partial" "$DEST"
echo "== CUTLASS $VERSION headers in $DEST"
