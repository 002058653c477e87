// Welder Fig. 2 in measured mode (see measured.h). Calls only the CUDA-free headers of
// common/cuda/, so it compiles in the build without CUDA, where every entry point throws.
#include "reproductions/welder/experiments/measured.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <utility>

#include "common/cuda/device.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/kernel_testbed.h"
#include "common/cuda/library_kernels.h"
#include "common/cuda/runtime.h"
#include "common/graph/graph.h"
#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

namespace {

// row_softmax runs one warp per row and at most this many rows (warps) per block
// (common/cuda/gemm_softmax_kernels.cu refuses more).
constexpr int kMaxSoftmaxRowsPerBlock = 32;

// |log2(a / b)|: how far an instantiated tile extent is from the scheduler's.
double log_distance(double a, double b) {
  return std::abs(std::log2(a / b));
}

void check_tile_rank(const std::vector<int64_t>& t, const std::string& what) {
  if (t.size() != 2 || t[0] <= 0 || t[1] <= 0)
    throw Error("fig2 measured: the " + what + " tile " + tile_str(t) +
                " is not a positive [rows x cols] tile");
}

// The instantiated GEMM tile nearest to a [rows x cols] output tile (smallest sum of the log2
// ratios of both extents; the first of equals). gpu::gemm_tiles() includes 32x64, Fig. 2's
// standalone-optimal Matmul tile, and gpu::gemm_softmax_tiles() 16x128, its aligned fused tile.
gpu::GemmTile nearest_gemm_tile(const std::vector<int64_t>& t) {
  check_tile_rank(t, "Matmul");
  gpu::GemmTile best;
  double best_d = std::numeric_limits<double>::infinity();
  for (const gpu::GemmTile& g : gpu::gemm_tiles()) {
    const double d = log_distance(g.bm, static_cast<double>(t[0])) +
                     log_distance(g.bn, static_cast<double>(t[1]));
    if (d < best_d) best_d = d, best = g;
  }
  return best;
}

// The instantiated fused GEMM+softmax tile (of `tiles`: the suite's SoftmaxTile or CUTLASS's)
// whose row (n_max) holds `n` columns and whose row count is nearest to the scheduler's.
template <class Tile>
Tile nearest_fused_tile(const std::vector<Tile>& tiles, const std::vector<int64_t>& t, int64_t n,
                        const std::string& kernels) {
  check_tile_rank(t, "fused");
  const Tile* best = nullptr;
  double best_d = std::numeric_limits<double>::infinity();
  for (const Tile& s : tiles) {
    if (s.n_max < n) continue;
    const double d = log_distance(s.bm, static_cast<double>(t[0]));
    if (d < best_d) best_d = d, best = &s;
  }
  if (!best)
    throw Error("fig2 measured: no instantiated " + kernels + " tile holds a row of " +
                std::to_string(n) + " columns");
  return *best;
}

// rows_per_block of the unfused softmax for a [rows x cols] tile.
int softmax_rows_per_block(const std::vector<int64_t>& t) {
  check_tile_rank(t, "Softmax");
  return static_cast<int>(std::clamp<int64_t>(t[0], 1, kMaxSoftmaxRowsPerBlock));
}

// The CPU-reference fragments: A.B, Softmax(C), and Softmax(A.B).
enum class Fragment { Matmul, Softmax, MatmulSoftmax };

Graph fig2_fragment(Fragment f) {
  Graph g;
  Attributes axis;
  axis.set("axis", int64_t{-1});
  if (f == Fragment::Softmax) {
    g.name = "fig2_softmax";
    const int c = g.add_input("C", {kFig2Rows, kFig2N});
    g.mark_output(g.op(g.add_op(OpKind::Softmax, "softmax", {c}, axis)).outputs.at(0));
    return g;
  }
  g.name = f == Fragment::Matmul ? "fig2_matmul" : "fig2_matmul_softmax";
  const int a = g.add_input("A", {kFig2Rows, kFig2K});
  const int b = g.add_weight("B", {kFig2K, kFig2N});
  const int c = g.op(g.add_op(OpKind::MatMul, "mm", {a, b})).outputs.at(0);
  if (f == Fragment::Matmul) {
    g.mark_output(c);
    return g;
  }
  g.mark_output(g.op(g.add_op(OpKind::Softmax, "softmax", {c}, axis)).outputs.at(0));
  return g;
}

using KernelRun = std::function<void(gpu::KernelLauncher&, const gpu::DeviceTensors&)>;

// Checks `run` against the CPU reference and times it on the same device buffers: one run
// (its launches counted), then the event timer (warm-up + median of repeats); the outputs
// compared are those of the last timed run (every kernel here rewrites its whole output).
Fig2Measurement measure_kernel(const Graph& g, const KernelRun& run, uint64_t seed) {
  Fig2Measurement m;
  gpu::Timing timing;
  int64_t launches = -1;
  const gpu::KernelCheck c = gpu::check_kernel(
      g,
      [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
        const int64_t before = l.launches();
        run(l, d);
        launches = l.launches() - before;
        timing = gpu::time_with_events([&] { run(l, d); }, l.stream());
      },
      seed);
  m.median_ms = timing.median_ms;
  m.min_ms = timing.min_ms;
  m.max_ms = timing.max_ms;
  m.launches = launches;
  m.verified = c.passed;
  m.check = c.str(g);
  return m;
}

gpu::MatrixArg a_arg(const gpu::DeviceTensors& d) {
  return gpu::row_major(d.at("A"), kFig2K);
}
gpu::MatrixArg b_arg(const gpu::DeviceTensors& d) {
  return gpu::row_major(d.at("B"), kFig2N);
}

// The instantiated kernels' tiles nearest to the scheduler's (Matmul, Softmax, and both at the
// fused tile), with the softmax launches described.
struct Fig2KernelTiles {
  gpu::GemmTile mm;
  int sm_rows = 0;
  gpu::GemmTile mm_aligned;
  int sm_aligned_rows = 0;
  gpu::SoftmaxTile fused;
  std::string sm_desc, sm_aligned_desc;
};

Fig2KernelTiles fig2_kernel_tiles(const Fig2Model& model) {
  Fig2KernelTiles t;
  t.mm = nearest_gemm_tile(model.matmul_tile);
  t.sm_rows = softmax_rows_per_block(model.softmax_tile);
  t.mm_aligned = nearest_gemm_tile(model.fused_tile);
  t.sm_aligned_rows = softmax_rows_per_block(model.fused_tile);
  t.fused = nearest_fused_tile(gpu::gemm_softmax_tiles(), model.fused_tile, kFig2N,
                               "gemm_softmax (common/cuda/gemm_softmax_kernels.h)");
  t.sm_desc = "row_softmax " + std::to_string(t.sm_rows) + " rows/block";
  t.sm_aligned_desc = "row_softmax " + std::to_string(t.sm_aligned_rows) + " rows/block";
  return t;
}

// The measured rows against the model's and the paper's.
void emit_fig2_measured_table(ExperimentContext& ctx, const Fig2Measured& out,
                              const Fig2Model& model, const PaperData& p2) {
  Table t({"kernel", "model_tile", "kernel_tile", "measured_ms", "min_ms", "max_ms", "launches",
           "verified", "model_ms", "paper_measured_ms"});
  for (const Fig2Measurement& r : out.rows) {
    Cell paper = Missing{};
    if (r.kernel == "unfused" || r.kernel == "fused")
      paper = *p2.value({{"quantity", r.kernel + "_latency"}}, "value");
    t.add_row({r.kernel, r.model_tile, r.kernel_tile, r.median_ms, r.min_ms, r.max_ms, r.launches,
               std::string(r.verified ? "yes" : "NO"), r.model_ms, paper});
  }
  ctx.emit_table("Figure 2 - Matmul+Softmax, unfused vs fused (measured on " + out.device +
                     "; model column: " + model.arch_name + ")",
                 t);
}

// How the kernels were timed, tiled and checked.
void note_fig2_measured(ExperimentContext& ctx, const Fig2Measured& out, const Fig2Model& model,
                        const Fig2KernelTiles& tiles, const gpu::CutlassSoftmaxTile& cutlass_tile,
                        uint64_t seed) {
  const gpu::TimingProtocol protocol;
  ctx.note("measured on " + out.device + " (the paper: V100); CUDA events, " +
           std::to_string(protocol.warmup) + " warm-up runs, median of " +
           std::to_string(protocol.repeats) + " repeats of " + std::to_string(protocol.number) +
           " runs; launches read from the KernelLauncher for one run");
  ctx.note("model_ms is the model-mode prediction on " + model.arch_name +
           " (--hw; in measured mode by default the live GPU's config), Welder's cost model of "
           "generated kernels, not of the kernels that ran (gpu_validate prices those)");
  ctx.note(
      "tiles: the scheduler's tile mapped to the nearest instantiated template tile "
      "(common/cuda/gemm_kernels.h, gemm_softmax_kernels.h): Matmul " +
      tile_str(model.matmul_tile) + " -> gemm " + tiles.mm.str() + ", Softmax " +
      tile_str(model.softmax_tile) + " -> " + tiles.sm_desc + ", fused " +
      tile_str(model.fused_tile) + " -> gemm_softmax " + tiles.fused.str() +
      ", aligned Matmul -> gemm " + tiles.mm_aligned.str() + ", aligned Softmax -> " +
      tiles.sm_aligned_desc);
  ctx.note(
      "library kernels (the claim's pair): unfused = cuBLAS SGEMM (FP32, CUDA cores: "
      "CUBLAS_DEFAULT_MATH) then the softmax above at its own tile; fused = CUTLASS " +
      std::string(gpu::kCutlassVersion) + " SIMT GEMM whose epilogue normalises each whole row " +
      "before its one store (tile " + cutlass_tile.str() + ", the instantiated tile nearest to " +
      tile_str(model.fused_tile) +
      "; common/cuda/cutlass/cutlass_gemm_softmax.cu); the suite's "
      "own tiled kernels are the '(suite ...)' rows");
  std::ostringstream check_note;
  check_note << "workload: the §2 simplification (one shared B [64x128], FP32, CUDA cores, no "
                "scale or mask); each kernel checked once against the CPU reference executor "
                "(seed "
             << seed << ", rtol " << gpu::kGpuTolerance.rtol << ", atol " << gpu::kGpuTolerance.atol
             << ")";
  ctx.note(check_note.str());
  for (const Fig2Measurement& r : out.rows)
    if (!r.verified) ctx.note("CHECK FAILED for " + r.kernel + ": " + r.check);
}

}  // namespace

const Fig2Measurement& Fig2Measured::row(const std::string& kernel) const {
  for (const Fig2Measurement& r : rows)
    if (r.kernel == kernel) return r;
  throw Error("fig2 measured: no row '" + kernel + "'");
}

std::string tile_str(const std::vector<int64_t>& t) {
  std::ostringstream r;
  r << '[';
  for (size_t i = 0; i < t.size(); ++i) r << (i ? "x" : "") << t[i];
  r << ']';
  return r.str();
}

Fig2Measured measure_fig2(ExperimentContext& ctx) {
  std::string why;
  if (!cuda_gpu_available(&why)) throw Error("fig2 --mode measured needs an NVIDIA GPU: " + why);

  const WelderArch arch = noted_experiment_arch(ctx, false);
  const Fig2Model model = fig2_model(arch);
  Fig2Measured out;
  out.device = gpu::query_gpu_spec(0).name;
  const uint64_t seed = ctx.options().seed;

  const Fig2KernelTiles tiles = fig2_kernel_tiles(model);
  const gpu::GemmTile& mm_tile = tiles.mm;
  const int sm_rows = tiles.sm_rows;
  const gpu::GemmTile& mm_aligned_tile = tiles.mm_aligned;
  const int sm_aligned_rows = tiles.sm_aligned_rows;
  const gpu::SoftmaxTile& fused_tile = tiles.fused;

  const Graph g_mm = fig2_fragment(Fragment::Matmul);
  const Graph g_sm = fig2_fragment(Fragment::Softmax);
  const Graph g_both = fig2_fragment(Fragment::MatmulSoftmax);

  auto gemm_run = [](const gpu::GemmTile& t) {
    return [t](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
      gpu::gemm(l, t, 1, kFig2Rows, kFig2N, kFig2K, a_arg(d), b_arg(d),
                gpu::row_major_out(d.at("mm:0"), kFig2N));
    };
  };
  auto softmax_run = [](int rows_per_block) {
    return [rows_per_block](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
      gpu::row_softmax(l, rows_per_block, kFig2Rows, kFig2N, d.at("C"), d.at("softmax:0"));
    };
  };
  const std::string& sm_desc = tiles.sm_desc;

  auto add = [&](Fig2Measurement m, const std::string& kernel, const std::string& model_tile,
                 const std::string& kernel_tile, double model_ms) {
    ctx.progress("kernel " + kernel + " (" + kernel_tile + "): checked and timed");
    m.kernel = kernel;
    m.model_tile = model_tile;
    m.kernel_tile = kernel_tile;
    m.model_ms = model_ms;
    out.rows.push_back(std::move(m));
  };
  add(measure_kernel(g_mm, gemm_run(mm_tile), seed), "Matmul (own tile)",
      tile_str(model.matmul_tile), "gemm " + mm_tile.str(), model.matmul_ms);
  add(measure_kernel(g_sm, softmax_run(sm_rows), seed), "Softmax (own tile)",
      tile_str(model.softmax_tile), sm_desc, model.softmax_ms);
  add(measure_kernel(
          g_both,
          [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
            float* c = d.at("mm:0");
            gpu::gemm(l, mm_tile, 1, kFig2Rows, kFig2N, kFig2K, a_arg(d), b_arg(d),
                      gpu::row_major_out(c, kFig2N));
            gpu::row_softmax(l, sm_rows, kFig2Rows, kFig2N, c, d.at("softmax:0"));
          },
          seed),
      "unfused (suite tiles)", tile_str(model.matmul_tile) + " + " + tile_str(model.softmax_tile),
      "gemm " + mm_tile.str() + " + " + sm_desc, model.unfused_ms());
  add(measure_kernel(g_mm, gemm_run(mm_aligned_tile), seed), "Matmul (aligned tile)",
      tile_str(model.fused_tile), "gemm " + mm_aligned_tile.str(), model.matmul_aligned_ms);
  add(measure_kernel(g_sm, softmax_run(sm_aligned_rows), seed), "Softmax (aligned tile)",
      tile_str(model.fused_tile), tiles.sm_aligned_desc, model.softmax_aligned_ms);
  add(measure_kernel(
          g_both,
          [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
            gpu::gemm_softmax(l, fused_tile, 1, kFig2Rows, kFig2N, kFig2K, a_arg(d), b_arg(d),
                              gpu::row_major_out(d.at("softmax:0"), kFig2N));
          },
          seed),
      "fused (suite gemm_softmax)", tile_str(model.fused_tile), "gemm_softmax " + fused_tile.str(),
      model.fused_ms);
  // Library-class kernels, the pair the claim compares: cuBLAS's SGEMM then the softmax at its
  // own tile (unfused), and CUTLASS's SIMT GEMM with the row softmax in its epilogue (fused).
  gpu::BlasContext blas(false);  // FP32 on CUDA cores, as the paper's V100 FP32 run
  const gpu::CutlassSoftmaxTile cutlass_tile =
      nearest_fused_tile(gpu::cutlass_gemm_softmax_tiles(), model.fused_tile, kFig2N,
                         "CUTLASS GEMM+softmax (common/cuda/library_kernels.h)");
  add(measure_kernel(
          g_mm,
          [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
            gpu::cublas_sgemm(l, blas, kFig2Rows, kFig2N, kFig2K, d.at("A"), d.at("B"),
                              d.at("mm:0"));
          },
          seed),
      "Matmul (cuBLAS)", "-", "cublasSgemm", model.matmul_ms);
  add(measure_kernel(
          g_both,
          [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
            float* c = d.at("mm:0");
            gpu::cublas_sgemm(l, blas, kFig2Rows, kFig2N, kFig2K, d.at("A"), d.at("B"), c);
            gpu::row_softmax(l, sm_rows, kFig2Rows, kFig2N, c, d.at("softmax:0"));
          },
          seed),
      "unfused", "- + " + tile_str(model.softmax_tile), "cublasSgemm + " + sm_desc,
      model.unfused_ms());
  add(measure_kernel(
          g_both,
          [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& d) {
            gpu::cutlass_gemm_softmax(l, cutlass_tile, kFig2Rows, kFig2N, kFig2K, d.at("A"),
                                      d.at("B"), d.at("softmax:0"));
          },
          seed),
      "fused", tile_str(model.fused_tile), cutlass_tile.str() + " gemm+softmax epilogue",
      model.fused_ms);

  const PaperData p2 = ctx.paper_data("fig2.csv");
  emit_fig2_measured_table(ctx, out, model, p2);
  note_fig2_measured(ctx, out, model, tiles, cutlass_tile, seed);

  const double measured_speedup = out.row("unfused").median_ms / out.row("fused").median_ms;
  ctx.emit_claims(
      {{"Fig. 2 fused speedup over unfused (measured)", p2.source({{"quantity", "speedup"}}),
        *p2.value({{"quantity", "speedup"}}, "value"), measured_speedup, ClaimKind::Ratio, "x"}});
  for (const Fig2Measurement& r : out.rows)
    if (!r.verified)
      throw Error("fig2 measured: the " + r.kernel + " result differs from the CPU reference");
  return out;
}

}  // namespace dgs::welder
