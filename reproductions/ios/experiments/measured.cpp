#include "reproductions/ios/experiments/measured.h"

#include <algorithm>
#include <optional>

#include "common/cuda/device_fault.h"
#include "common/cuda/stage_executor.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

namespace {

// A group of units as the ops the executor runs, in unit order.
std::vector<int> group_ops(const Network& net, const std::vector<int>& units) {
  std::vector<int> ops;
  for (int u : units) {
    const Unit& unit = net.units.at(static_cast<size_t>(u));
    ops.insert(ops.end(), unit.ops.begin(), unit.ops.end());
  }
  return ops;
}

}  // namespace

gpu::StageExecutorOptions ios_executor_options(uint64_t seed, bool search, bool full_protocol) {
  gpu::StageExecutorOptions opts;
  opts.seed = seed;
  opts.timing = search && !full_protocol ? kIosSearchProtocol : kIosTimingProtocol;
  opts.workspace_bytes = kIosWorkspaceBytes;
  opts.max_streams = kIosMaxStreams;
  opts.allow_tf32 = false;     // the artifact's CUDNN_DEFAULT_MATH: no tensor cores in FP32 on V100
  opts.fuse_conv_relu = true;  // cudnnConvolutionBiasActivationForward
  return opts;
}

MeasuredIosStageCost::MeasuredIosStageCost(const Network& net, uint64_t seed, bool full_protocol,
                                           std::function<void(int64_t)> progress)
    : impl_(std::make_unique<gpu::MeasuredStageCost>(
          *net.graph, ios_executor_options(seed, true, full_protocol))),
      progress_(std::move(progress)) {}

MeasuredIosStageCost::~MeasuredIosStageCost() = default;

double MeasuredIosStageCost::stage_latency_us(const Network& net, const IosStage& stage) {
  std::vector<std::vector<int>> groups;
  for (const std::vector<int>& g : stage.groups) groups.push_back(group_ops(net, g));
  const auto strategy = stage.merge ? gpu::MeasuredStageCost::Strategy::Merge
                                    : gpu::MeasuredStageCost::Strategy::Concurrent;
  const double us = 1000.0 * impl_->stage_latency_ms(groups, strategy);
  const int64_t n = impl_->measurements();
  if (progress_ && n >= reported_ + kProgressEvery) {
    reported_ = n;
    progress_(n);
  }
  return us;
}

int64_t MeasuredIosStageCost::measurements() const {
  return impl_->measurements();
}

void run_schedules_measured(ExperimentContext& ctx, const std::string& title,
                            const std::vector<std::string>& models) {
  const bool full = ctx.options().full_protocol;
  const gpu::TimingProtocol search = full ? kIosTimingProtocol : kIosSearchProtocol;
  auto protocol_str = [](const gpu::TimingProtocol& t) {
    return std::to_string(t.warmup) + " warm-up run(s), median of " + std::to_string(t.repeats) +
           " samples of " + std::to_string(t.number) + " runs";
  };
  ctx.note(
      "measured mode: stage latencies for the DP and end-to-end latencies of each schedule are "
      "measured on this GPU with the suite's CUDA stage executor (cuDNN convolutions with the "
      "algorithm cuDNN finds fastest, FP32 on CUDA cores; CUDA events, warm-up, median of "
      "repeats); pruning r = 3, s = 8");
  ctx.note("timing: the DP's stage measurements " + protocol_str(search) +
           (full ? " (the artifact's protocol, --full-protocol)"
                 : " (shortened from the artifact's " + protocol_str(kIosTimingProtocol) +
                       " so that the search finishes in minutes; --full-protocol restores it)") +
           "; each schedule end to end " + protocol_str(kIosTimingProtocol));
  const PaperData p = ctx.paper_data("fig4_1.csv");
  Table t({"model", "schedule", "measured_ms", "paper_ms", "speedup_vs_sequential",
           "paper_speedup_vs_sequential", "stages", "stages_measured", "kernel_calls"});
  std::string gpu_name;
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const std::string& m = models[mi];
    const std::string of =
        " (" + std::to_string(mi + 1) + " of " + std::to_string(models.size()) + ")";
    ctx.progress("network " + m + of + ": building");
    const Network& net = network(ctx, m, 1);
    MeasuredIosStageCost cost(net, ctx.options().seed, full, [&](int64_t n) {
      ctx.progress("network " + m + ": " + std::to_string(n) + " distinct stages measured");
    });
    std::vector<IosSchedule> schedules = {sequential_schedule(net), greedy_schedule(net)};
    for (StrategySet s : {StrategySet::Merge, StrategySet::Parallel, StrategySet::Both}) {
      ctx.progress("network " + m + ": stage search " + std::string(strategy_set_name(s)) + " (" +
                   std::to_string(cost.measurements()) + " stages measured so far)");
      const gpu::WorkScope where("the " + std::string(strategy_set_name(s)) +
                                 " search of network " + m);
      IosSchedule found = ios_schedule(net, s, Pruning{}, cost);
      found.name = std::string(strategy_set_name(s));
      schedules.push_back(std::move(found));
    }
    gpu::StageExecutor exec(*net.graph, ios_executor_options(ctx.options().seed));
    gpu_name = exec.gpu().name;
    std::optional<double> seq_ms;
    const std::optional<double> paper_seq =
        p.value({{"model", m}, {"schedule", "Sequential"}}, "latency_ms");
    for (const IosSchedule& s : schedules) {
      ctx.progress("network " + m + ": schedule " + s.name + " end to end (" +
                   std::to_string(s.stages.size()) + " stages)");
      const gpu::WorkScope where("schedule " + s.name + " of network " + m);
      const gpu::PlanLatency lat = exec.measure(to_plan(net, s), /*per_stage=*/false);
      if (!seq_ms) seq_ms = lat.network_ms;  // schedules[0] is Sequential
      const std::optional<double> pv = p.value({{"model", m}, {"schedule", s.name}}, "latency_ms");
      t.add_row({m, s.name, lat.network_ms, cell(pv), *seq_ms / lat.network_ms,
                 cell(pv && paper_seq ? std::optional<double>(*paper_seq / *pv) : std::nullopt),
                 static_cast<int64_t>(s.stages.size()), cost.measurements(), lat.kernel_calls});
    }
  }
  ctx.emit_table(title + " (measured on " + gpu_name + ")", t);
}

}  // namespace dgs::ios
