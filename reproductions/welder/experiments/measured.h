#pragma once
// Welder Fig. 2 in measured mode: the §2 Matmul+Softmax (A [98304x64] . B [64x128], row softmax)
// run on the live GPU, FP32 on CUDA cores as the paper's V100 run:
//   - with the suite's GEMM and GEMM+softmax templates (common/cuda/gemm_kernels.h,
//     gemm_softmax_kernels.h) at the tiles Welder's scheduler chose (the nearest instantiated
//     template tile): the Matmul alone, the Softmax alone, their unfused sequence, each operator
//     alone at the fused kernel's tile, and the fused kernel ("(suite ...)" rows);
//   - with library-class kernels, the pair the claim compares: "unfused" = cuBLAS's SGEMM then
//     the softmax at its own tile, "fused" = CUTLASS's SIMT GEMM with the row softmax in its
//     epilogue (common/cuda/library_kernels.h), and cuBLAS's Matmul alone.
// Each kernel is checked once against the CPU reference executor (common/cuda/kernel_testbed.h)
// and timed with CUDA events (warm-up + median of repeats, common/cuda/runtime.h) on the same
// device buffers it was checked on.
//
// Without a GPU (or in a build without CUDA) measure_fig2 throws one-line dgs::Error.
#include <cstdint>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "reproductions/welder/cost_model.h"

namespace dgs::welder {

// §2's shapes: A [rows x k], B [k x n], C = A.B, D = Softmax(C) over rows of n.
inline constexpr int64_t kFig2Rows = 98304, kFig2K = 64, kFig2N = 128;

// What the model-mode Fig. 2 computes (fig2.cpp): the tile of each kernel the
// scheduler chose and its predicted latency.
struct Fig2Model {
  std::string arch_name;
  std::vector<int64_t> matmul_tile, softmax_tile, fused_tile;  // output tiles [rows x cols]
  double matmul_ms = 0, softmax_ms = 0;                        // each with its own best tile
  double matmul_aligned_ms = 0, softmax_aligned_ms = 0;        // each at the fused tile
  double fused_ms = 0;
  double unfused_ms() const { return matmul_ms + softmax_ms; }
};
// The model-mode schedule of the §2 graph on `arch` (defined in fig2.cpp).
Fig2Model fig2_model(const WelderArch& arch);

// One measured kernel (or kernel sequence) of Fig. 2.
struct Fig2Measurement {
  std::string kernel;       // "Matmul (own tile)", ..., "unfused", "fused"
  std::string model_tile;   // the tile the scheduler chose, "[16x128]"
  std::string kernel_tile;  // what ran: "gemm_softmax 16x128", "cublasSgemm + ..."
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int64_t launches = 0;   // kernels one run launches, read from the KernelLauncher
  bool verified = false;  // output equals the CPU reference (kGpuTolerance)
  std::string check;      // the comparison, one line per output
  double model_ms = 0;    // the model-mode prediction
};
struct Fig2Measured {
  std::string device;  // the live GPU's name
  std::vector<Fig2Measurement> rows;
  const Fig2Measurement& row(const std::string& kernel) const;  // throws dgs::Error if absent
};

// Runs measured Fig. 2 (model prediction on the experiment's --hw, by default the live GPU's
// config), emits its table and claims into `ctx`, and returns the measurements. Throws dgs::Error
// (one line) without a usable GPU.
Fig2Measured measure_fig2(ExperimentContext& ctx);

// A tile as "[AxBxC]".
std::string tile_str(const std::vector<int64_t>& t);

}  // namespace dgs::welder
