#pragma once
// The fixed kernel suite of gpu_validate: what the five papers' measured modes run, each case
// priced by the GPU model on a GPU config and, on a live GPU, measured.
//
//   cudnn_conv      every distinct convolution of ResNet-50 and Inception V3 (zoo) at batch 1
//                   and 32, one cuDNN call each through the stage executor (the algorithm cuDNN
//                   finds fastest, FP32 on CUDA cores, Conv+bias+ReLU where the network has it);
//                   priced by the model's library rules (kernels_for_op, with the library-call
//                   terms of model_internal.h: fixed cost per call, Winograd, the config's
//                   gemm_fp32)
//   suite_*         the suite's own kernels at every instantiated tile: GEMM (1024^3; Welder
//                   Fig. 2's 98304x128x64; BERT-base attention scores at batch 64), implicit-GEMM
//                   3x3 convolution, fused GEMM+softmax, the MLP chain (NeRF), row softmax,
//                   element-wise, pooling; priced by the suite-kernel families
//                   (common/gpumodel/kernel_family.h)
//   sequence        several of the suite's kernels on one stream (Fig. 2 unfused, the NeRF MLP
//                   layer by layer)
//   multi_stream    one stage of 2 and of 4 concurrent cuDNN convolutions (IOS Fig. 1.2's
//                   convolutions), each on its own stream, ended by a device synchronisation
//   e2e_ios         IOS Fig. 1.2's five schedules (Sequential, Greedy, IOS-Merge, -Parallel,
//                   -Both; searched with the model on the config), end to end on the stage
//                   executor
//   e2e_graphturbo  GraphTurbo Table 5's ResNet18-Tailor at batch 64, cuDNN per layer
//   e2e_welder      Welder Fig. 13's ViT-S/32 at batch 8, Welder-none and Welder, each kernel one
//                   launch of the tile-program interpreter; priced as what runs (each kernel a
//                   suite_tile_program launch, suite_kernels.h: tile_program_kernel); the model
//                   before: Welder's own latency of the schedule as generated kernels
// Layer normalization has no kernel in the suite (the stage executor refuses it; cuDNN has none),
// so the suite has no layer-norm case.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/cuda/runtime.h"
#include "common/graph/graph.h"
#include "common/hw/hardware.h"

namespace dgs::validation {

struct MeasureOptions {
  gpu::TimingProtocol timing{2, 5, 5};  // warm-up, runs per sample, samples (median)
  uint64_t seed = 1;
  // The config the model is validated on: the end-to-end cases that search a schedule (IOS
  // Fig. 1.2's, Welder Fig. 13's) measure the schedule searched on it, the one predict_ms prices.
  // Null: the live device's spec (gpu::query_gpu_spec: no efficiency section, so its schedules
  // may differ from the priced ones; the H200 run of 2026-11-28 was measured so).
  const GpuSpec* search_config = nullptr;
};

// One kernel of an end-to-end case priced alone (gpu_validate_kernels.csv; Welder Fig. 13's
// schedules, kernel by kernel).
struct KernelPrediction {
  std::string name;    // the kernel (a tile program: its first and last op)
  std::string detail;  // what the model prices: tiles, blocks, the busiest thread's waits, ...
  double predicted_ms = 0;
};

struct ValidationCase {
  std::string id;      // unique and stable, e.g. "gemm.1024.64x64x8/4x4"
  std::string family;  // the summary's group: a suite family, cudnn_conv, sequence, ...
  std::string shape;   // what it computes
  bool end_to_end = false;
  // The model's latency (ms) on `spec`: with the suite-kernel model, and as the model priced the
  // same launches before it (library-class efficiencies; equal for library kernels).
  std::function<double(const GpuSpec&)> predict_ms;
  std::function<double(const GpuSpec&)> predict_before_ms;
  // Runs the case on the live GPU, returns the median latency (ms). Throws without a GPU.
  std::function<double(const MeasureOptions&)> measure_ms;
  // After measure_ms: what the GPU ran where the library chose it (e.g. "cuDNN algorithm
  // FFT_TILING"), which gpu_validate appends to the row's source; empty or unset: nothing to add.
  std::function<std::string()> measured_detail;
  // The algorithm the model's search took on `spec` (cuDNN convolutions: "implicit GEMM 128x64",
  // "Winograd F(2x2,3x3) 64x32", model_conv_algorithm); unset for the other cases.
  std::function<std::string(const GpuSpec&)> model_algorithm;
  // End-to-end cases also timed kernel by kernel (Welder Fig. 13): the model's time of each
  // kernel alone on `spec`, in launch order; unset for the other cases.
  std::function<std::vector<KernelPrediction>(const GpuSpec&)> predict_kernels;
  // After measure_ms: the median time (ms) of each kernel launched alone, in launch order (empty:
  // not timed).
  std::function<std::vector<double>()> measured_kernels;
};

// The id of kernel `index` of case `case_id` in a replay file and in gpu_validate_kernels.csv:
// "<case_id>/k<index>" (e.g. "welder_fig13.vit_s32.b8.Welder/k12").
std::string kernel_row_id(const std::string& case_id, size_t index);
// What a live kernel row's source says before its kernel's name ("...; kernel 7 launched alone;
// kernel: NAME"): a replay checks the name against the kernel priced at that index.
inline constexpr const char* kKernelNameTag = "; kernel: ";

// "cuDNN algorithm NAME" (+ " (fused Conv+bias+ReLU call)" when `fused`) for a cuDNN forward
// algorithm's cudnnConvolutionFwdAlgo_t value (0 IMPLICIT_GEMM, 1 IMPLICIT_PRECOMP_GEMM, 2 GEMM,
// 3 DIRECT, 4 FFT, 5 FFT_TILING, 6 WINOGRAD, 7 WINOGRAD_NONFUSED; another value: its number).
std::string cudnn_algorithm_detail(int algo, bool fused);

// The candidate the model's algorithm search (library_conv_call, common/gpumodel/model_internal.h)
// takes for convolution `op` of `g` on `spec`, Conv+ReLU folded as cuDNN runs it: "implicit GEMM
// TMxTN" or "Winograd F(2x2,RxR) TMxTN" (the GEMM kernel's output tile); "" when op launches no
// GEMM-class kernel.
std::string model_conv_algorithm(const Graph& g, int op, const GpuSpec& spec);

// The suite, in a fixed order. `full`: ResNet-50 and Inception V3 convolutions at batch 32 too
// and every end-to-end case (gpu_validate's default); false: batch 1 only (quicker).
std::vector<ValidationCase> validation_cases(bool full = true);

// Schedule-vs-schedule comparisons: the latency of `a` over that of `b` (a speedup of b over a
// when > 1), measured and predicted; its sign (which is faster) must agree.
struct CasePair {
  std::string a, b;
  std::string what;
};
std::vector<CasePair> validation_pairs();

}  // namespace dgs::validation
