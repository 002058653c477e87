#pragma once
// What this executable was built from and with: the part of a run's environment fingerprint that
// is fixed at build time (reports/<paper>/run_info.csv). Generated at every build by
// cmake/build_info.cmake, so the commit is the one the binary was built from.

namespace dgs {

struct BuildInfo {
  const char* commit;      // `git describe --always --dirty` of the source tree ("-dirty": edits)
  const char* build_type;  // CMAKE_BUILD_TYPE, with the sanitizers if any ("Release")
  const char* compiler;    // "GNU 12.2.0"
  const char* cuda;        // "13.0.88", or "none (built without CUDA)"
  const char* cudnn;       // "9.19.0", or "none (built without CUDA)"
};

const BuildInfo& build_info();

}  // namespace dgs
