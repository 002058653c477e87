#include "reproductions/brickdl/experiments/measured.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <optional>

#include "common/cuda/brick_kernels.h"
#include "common/cuda/cudnn_conv3d.h"
#include "common/cuda/device_fault.h"
#include "common/cuda/runtime.h"
#include "common/cuda/tensor_kernels.h"
#include "models/zoo.h"

namespace dgs::brickdl {

namespace {

// Values do not change the kernels' speed; constants keep the set-up on the device.
constexpr float kFillValue = 0.01f;
// §4.1: the mean of 20 runs (after warm-up), --full-protocol, for every kernel. By default cuDNN
// per layer and the brick conversion take 3 timed runs after one warm-up (milliseconds each).
const gpu::TimingProtocol kPaperProtocol{.warmup = 2, .number = 1, .repeats = 20};
const gpu::TimingProtocol kShortProtocol{.warmup = 1, .number = 1, .repeats = 3};
// The brick kernels by default: no warm-up run at full size (one run of each kernel on a small
// chain loads the module first; a run takes seconds, so a full-size warm-up only doubles the
// time), then timed runs until kShortProtocol.repeats or until they add up to this budget, at
// least one. On the H200 (2026-11-28) a brick kernel run of Fig. 10 took 3-10 s: one run each.
constexpr double kBrickBudgetMs = 2000;

double mean_of(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Timed runs of `run` (no warm-up): until `max_runs` or until they add up to `budget_ms`.
gpu::Timing time_within_budget(const std::function<void()>& run, const gpu::Stream& stream,
                               int max_runs, double budget_ms) {
  const gpu::TimingProtocol one{.warmup = 0, .number = 1, .repeats = 1};
  gpu::Timing t;
  while (another_timed_run(t.samples_ms, max_runs, budget_ms))
    t.samples_ms.push_back(gpu::time_with_events(run, stream, one).samples_ms.at(0));
  t.median_ms = gpu::median_of(t.samples_ms);
  t.min_ms = *std::min_element(t.samples_ms.begin(), t.samples_ms.end());
  t.max_ms = *std::max_element(t.samples_ms.begin(), t.samples_ms.end());
  return t;
}

std::string milliseconds(double ms) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f ms", ms);
  return s;
}

gpu::DeviceBuffer filled(gpu::KernelLauncher& l, int64_t count) {
  gpu::DeviceBuffer b(static_cast<size_t>(count) * sizeof(float));
  gpu::fill(l, b.floats(), count, kFillValue);
  return b;
}

// The chain's layers, from the graph's convolutions, with their weights and biases filled on the
// device (kept alive in `weights`).
std::vector<gpu::BrickConvLayer> conv_layers(const Graph& g, gpu::KernelLauncher& launcher,
                                             std::vector<gpu::DeviceBuffer>& weights) {
  std::vector<gpu::BrickConvLayer> layers;
  for (int op : g.topo_order()) {
    const Op& o = g.op(op);
    if (o.kind != OpKind::Conv) continue;
    gpu::BrickConvLayer L;
    L.in_channels = g.tensor(o.inputs[0]).shape[1];
    L.out_channels = g.tensor(o.outputs[0]).shape[1];
    L.kernel = o.attrs.get_ints("kernel_shape", {3}).at(0);
    weights.push_back(filled(launcher, g.tensor(o.inputs[1]).numel()));
    L.weight = weights.back().floats();
    weights.push_back(filled(launcher, g.tensor(o.inputs[2]).numel()));
    L.bias = weights.back().floats();
    layers.push_back(L);
  }
  return layers;
}

// How the runs were timed and which algorithms cuDNN used.
void note_measured_protocol(ExperimentContext& ctx, bool full,
                            const gpu::TimingProtocol& protocol) {
  const std::string brick_protocol =
      full ? std::to_string(protocol.warmup) + " warm-up run(s) then " +
                 std::to_string(protocol.repeats) +
                 " timed runs (the paper's protocol, §4.1: the mean of 20 runs; --full-protocol)"
           : "no warm-up at full size (one run of each kernel on a one-brick chain loads the "
             "module first), then timed runs until " +
                 std::to_string(protocol.repeats) + " or until they add up to " +
                 std::to_string(static_cast<int>(kBrickBudgetMs / 1000)) +
                 " s, at least one (the runs column; shortened from the paper's 20 runs after "
                 "warm-up, §4.1: a run takes seconds and varies by far less than the variants "
                 "differ; --full-protocol restores it)";
  ctx.note("measured: CUDA events, mean and median; cuDNN per layer and the brick conversion: " +
           std::to_string(protocol.warmup) + " warm-up run(s) then " +
           std::to_string(protocol.repeats) + " timed runs; brick kernels: " + brick_protocol +
           "; brick conversion (input to bricks, output back) timed separately; the suite's "
           "brick kernels are direct convolutions (one thread per output element), not per-brick "
           "cuDNN calls (the public cuDNN API cannot be called from a kernel)");
  ctx.note(std::string("cuDNN baseline's algorithms: ") +
           (full
                ? "cuDNN's search (cudnnFindConvolutionForwardAlgorithm, the fastest of every "
                  "algorithm run once)"
                : "cuDNN's heuristic ranking (cudnnGetConvolutionForwardAlgorithm_v7, its first "
                  "algorithm that runs; the search runs every algorithm once, seconds per layer at "
                  "these sizes; --full-protocol uses it)"));
}

}  // namespace

bool another_timed_run(const std::vector<double>& samples_ms, int max_runs, double budget_ms) {
  if (samples_ms.empty()) return max_runs > 0;
  return static_cast<int>(samples_ms.size()) < max_runs &&
         std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0) < budget_ms;
}

void run_measured_chain(ExperimentContext& ctx, const std::string& model,
                        const std::vector<MeasuredCase>& cases, int64_t short_edge) {
  const bool full = ctx.options().full_protocol;
  const gpu::TimingProtocol protocol = full ? kPaperProtocol : kShortProtocol;
  ZooOptions zo;
  if (!full && short_edge > 0) zo.image_size = short_edge;
  const Graph g = build_zoo_model(model, zo);
  gpu::Stream stream;
  gpu::KernelLauncher launcher(stream);
  std::vector<gpu::DeviceBuffer> weights;
  const std::vector<gpu::BrickConvLayer> layers = conv_layers(g, launcher, weights);
  const Shape& in_shape = g.tensor(g.input_tensors().at(0)).shape;
  const std::array<int64_t, 3> in_dims = {in_shape[2], in_shape[3], in_shape[4]};
  const auto dims = gpu::brick_chain_dims(layers, in_dims);
  const int64_t c0 = layers.front().in_channels, cl = layers.back().out_channels;
  gpu::DeviceBuffer input = filled(launcher, c0 * in_dims[0] * in_dims[1] * in_dims[2]);
  gpu::DeviceBuffer output(
      static_cast<size_t>(cl * dims.back()[0] * dims.back()[1] * dims.back()[2]) * sizeof(float));
  stream.synchronize();

  ctx.progress(
      "cuDNN per layer: " + std::string(full ? "algorithm search" : "heuristic algorithms") +
      " for " + std::to_string(layers.size()) + " layers");
  std::optional<gpu::WorkScope> where;
  where.emplace("cuDNN per layer (" + model + ")");
  gpu::CudnnConv3dChain cudnn(layers, in_dims, stream, full);
  ctx.progress("cuDNN per layer: timing");
  const gpu::Timing base = gpu::time_with_events(
      [&] { cudnn.run(launcher, input.floats(), output.floats()); }, stream, protocol);
  const double base_mean = mean_of(base.samples_ms);

  Table t({"group", "variant", "mean_ms", "median_ms", "runs", "rel_time", "speedup_pct",
           "conversion_ms", "atomics_compulsory", "atomics_conflict", "dram"});
  std::string why;
  gpu::hardware_counters_readable(&why);
  t.add_row({"all layers", "cuDNN", base_mean, base.median_ms,
             static_cast<int64_t>(base.samples_ms.size()), 1.0, 0.0, Missing{}, Missing{},
             Missing{}, why});
  if (!full) {
    // Loads the brick kernels' module: one run of each kernel on a small chain (the first layer,
    // one output brick), so that no timed run pays for it.
    where.reset();
    where.emplace("brick kernels' first run (module load)");
    const int64_t e = cases.front().edge, in_edge = e + layers.front().kernel - 1;
    gpu::BrickChainRunner first_run({layers.front()}, {in_edge, in_edge, in_edge}, e);
    gpu::fill(launcher, first_run.bricked_input(),
              gpu::bricked_floats(c0, {in_edge, in_edge, in_edge}, e), kFillValue);
    first_run.run_padded(launcher);
    first_run.run_memoized(launcher);
    stream.synchronize();
  }
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const MeasuredCase& c = cases[ci];
    ctx.progress("brick configuration " + c.group + " (" + std::to_string(ci + 1) + " of " +
                 std::to_string(cases.size()) + "), edge " + std::to_string(c.edge));
    where.reset();
    where.emplace("brick configuration " + c.group + " of " + model);
    // One runner per subgraph; each reads the previous one's bricked output.
    std::vector<std::unique_ptr<gpu::BrickChainRunner>> subs;
    size_t first = 0;
    for (int n : c.layers) {
      std::vector<gpu::BrickConvLayer> part(
          layers.begin() + static_cast<std::ptrdiff_t>(first),
          layers.begin() + static_cast<std::ptrdiff_t>(first + n));
      subs.push_back(std::make_unique<gpu::BrickChainRunner>(part, dims[first], c.edge));
      if (subs.size() > 1) subs.back()->use_bricked_input(subs[subs.size() - 2]->bricked_output());
      first += static_cast<size_t>(n);
    }
    const gpu::Timing conv = gpu::time_with_events(
        [&] {
          gpu::to_bricks_3d(launcher, input.floats(), subs.front()->bricked_input(), c0, in_dims,
                            c.edge);
          gpu::from_bricks_3d(launcher, subs.back()->bricked_output(), output.floats(), cl,
                              dims.back(), c.edge);
        },
        stream, protocol);
    for (bool memoized : {false, true}) {
      ctx.progress("brick configuration " + c.group + ": " + (memoized ? "memoized" : "padded") +
                   " kernels");
      const gpu::WorkScope kernel_where(memoized ? "memoized brick kernel" : "padded brick kernel");
      const auto run_once = [&] {
        for (auto& s : subs) memoized ? s->run_memoized(launcher) : s->run_padded(launcher);
      };
      const gpu::Timing run =
          full ? gpu::time_with_events(run_once, stream, protocol)
               : time_within_budget(run_once, stream, protocol.repeats, kBrickBudgetMs);
      int64_t comp = 0, confl = 0;
      if (memoized)
        for (auto& s : subs) {
          const gpu::BrickAtomicCounts a = s->atomic_counts();
          comp += a.compulsory;
          confl += a.conflicting;
        }
      const double mean = mean_of(run.samples_ms);
      ctx.progress("brick configuration " + c.group + ": " + (memoized ? "memoized" : "padded") +
                   " kernels: " + std::to_string(run.samples_ms.size()) + " timed run(s), mean " +
                   milliseconds(mean));
      t.add_row({c.group, memoized ? "memoized" : "padded", mean, run.median_ms,
                 static_cast<int64_t>(run.samples_ms.size()), mean / base_mean,
                 (base_mean / mean - 1) * 100, mean_of(conv.samples_ms),
                 memoized ? Cell(comp) : Cell(Missing{}), memoized ? Cell(confl) : Cell(Missing{}),
                 why});
    }
  }
  where.reset();
  if (zo.image_size > 0)
    ctx.note("size: the proxy at " + std::to_string(zo.image_size) + "^3 (" +
             std::to_string(in_dims[0]) +
             "^3 input) instead of its own size, so that the item finishes in about a minute (on "
             "the H200, 2026-11-28, a brick kernel run at the full size took 3-10 s and more for "
             "the deepest chains); --full-protocol runs the full size");
  ctx.emit_table("measured on " + gpu::query_gpu_spec().name + ": " + model +
                     ", cuDNN per layer vs brick kernels (mean and median of the timed runs)",
                 t);
  note_measured_protocol(ctx, full, protocol);
}

}  // namespace dgs::brickdl
