#pragma once
// Welder Fig. 13 in measured mode: the ablation's schedules (Welder-none, Welder-base, Welder,
// Ansor-like) of NAFNet, ViT-S/32 and Swin-T (FP32; batch 16, or the paper's 64 with
// --full-protocol; scheduled as model mode schedules them)
// run on the live GPU, ONE kernel launch per launched group: each group compiled into a tile
// program (reproductions/welder/schedule_tile_programs.h) and run by the suite's generic
// tile-program interpreter kernel (common/cuda/tile_program_gpu.h); layout-only groups launch
// nothing (their output is a view of their input's buffer). The whole network is timed with CUDA
// events (warm-up, median of repeats: common/cuda/runtime.h), launches are read from the
// KernelLauncher, transactions are not readable (no CUPTI). Welder-none's output (sample 0) is
// checked against the CPU reference executor at batch 1 with the same weights and input sample;
// every other variant's whole output against Welder-none's.
//
// The kernels are one interpreter, not cuDNN or Welder's generated code: absolute latencies are
// far from the paper's; what the run measures is how the variants compare when every group runs
// as one kernel of the same quality.
//
// Without a GPU (or in a build without CUDA) measure_fig13 throws one-line dgs::Error; the CLI
// refuses earlier (exit 4).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/cuda/device_network.h"
#include "common/cuda/runtime.h"
#include "common/cuda/tile_program_gpu.h"
#include "common/report/report.h"
#include "reproductions/welder/schedule_tile_programs.h"

namespace dgs::welder {

// The models and variants of Fig. 13 (fig13.cpp: both modes use them) and its batch.
struct Fig13Model {
  std::string zoo;
  std::string label;
};
const std::vector<Fig13Model>& fig13_models();
const std::vector<Variant>& fig13_variants();  // in the order model mode schedules them
inline constexpr int64_t kFig13Batch = 64;
// Measured mode's batch unless --full-protocol: the interpreter runs the three networks at batch 64
// in seconds per run each, so the item took minutes; at 16 it takes a quarter of that.
inline constexpr int64_t kFig13MeasuredBatch = 16;

// The paper's Fig. 13 averages (data/welder/fig13.csv), by comparison ("base_vs_none",
// "welder_vs_base", ...) and metric ("latency_reduction", ...); both modes' claims read them.
struct Fig13PaperValues {
  explicit Fig13PaperValues(const ExperimentContext& ctx) : data(ctx.paper_data("fig13.csv")) {}
  PaperData data;
  // Throws dgs::Error naming the file when the row or value is missing.
  double value(const std::string& comparison, const std::string& metric) const;
  std::string source(const std::string& comparison, const std::string& metric) const;
};

struct Fig13MeasuredRow {
  std::string model, variant;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int64_t launches = 0;    // read from the KernelLauncher for one network run
  int kernels_model = 0;   // the scheduler's kernel count (model mode)
  double model_ms = 0;     // the model-mode latency (sum of the analytic kernel latencies)
  int64_t computed_m = 0;  // elements the programs compute per run, millions (recomputation incl.)
  bool verified = false;
  std::string check;  // what it was compared with, and the result
};
struct Fig13Measured {
  std::string device;
  std::vector<Fig13MeasuredRow> rows;
};

// Runs measured Fig. 13 (schedules on the experiment's --hw, by default the live GPU's config, as
// model mode), emits its table, notes and claims into `ctx`. Throws dgs::Error (one line) without a
// usable GPU, or when a variant's output differs from its reference.
Fig13Measured measure_fig13(ExperimentContext& ctx);

// The reduction from `from` to `to` in percent (0 when `from` is not positive).
double reduction_pct(double from, double to);
// `v` with `digits` digits after the point.
std::string fixed(double v, int digits);

}  // namespace dgs::welder
