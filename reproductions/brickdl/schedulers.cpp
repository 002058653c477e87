#include "reproductions/brickdl/schedulers.h"

#include <optional>
#include <string>

#include "reproductions/brickdl/brick_plan.h"
#include "reproductions/brickdl/network_model.h"
#include "reproductions/brickdl/perf_model.h"

namespace dgs {

namespace {

using brickdl::MergeVariant;

constexpr const char* kOwnModelNote =
    "fused kernels: BrickDL's own analytic model (reproductions/brickdl/perf_model.cpp), the one "
    "Fig. 7 prices with";

std::optional<std::string> gpu_for_bricks(const HardwareSpec& hw) {
  if (hw.kind != "gpu") return "targets hardware of kind gpu, not " + hw.kind;
  if (!hw.gpu) return hw.name + " carries no GPU description";
  return std::nullopt;
}

// BrickDL bricks activations with spatial dims: a graph without a convolution or pooling layer
// has none of the stencil chains it merges.
bool has_stencil_layer(const Graph& g) {
  for (int op = 0; op < g.num_ops(); ++op) {
    const OpKind k = g.op(op).kind;
    if ((k == OpKind::Conv || k == OpKind::MaxPool || k == OpKind::AveragePool) &&
        brickdl::brick_mergeable(g, op))
      return true;
  }
  return false;
}

// The merge variant forced by the option `variant`, or nullopt (auto: the paper's rule).
std::optional<MergeVariant> variant_option(const SchedulerOptionValues& options) {
  const std::string& v = options.get_choice("variant", {"auto", "padded", "memoized"});
  if (v == "padded") return MergeVariant::Padded;
  if (v == "memoized") return MergeVariant::Memoized;
  return std::nullopt;
}

class BrickdlScheduler final : public DescribedScheduler {
 public:
  BrickdlScheduler()
      : DescribedScheduler(
            {.name = "brickdl",
             .paper = "brickdl",
             .hardware_kinds = {"gpu"},
             .description =
                 "BrickDL's static model (§3.3) on the whole network, as Fig. 7 runs it: reverse "
                 "partition into merged subgraphs under the L2 size (at most one change of "
                 "resolution, pooling closes a subgraph), brick size by rho <= tau, padded or "
                 "memoized bricks by the 15% data-growth rule, cuDNN per brick unit for the rest, "
                 "layout conversions between the two",
             .options = {{"variant", SchedulerOption::Type::String, "auto",
                          "bricks of every merged subgraph: auto (the paper's delta > 15% rule "
                          "picks memoized, else padded), padded or memoized (the variants Fig. 8 "
                          "compares)"}}}) {}
  std::optional<std::string> cannot_target(const HardwareSpec& hw) const override {
    if (auto why = gpu_for_bricks(hw)) return why;
    if (hw.gpu->l2_bytes <= 0) return hw.name + " states no L2 size (the partition's bound)";
    if (hw.gpu->core_clock_mhz <= 0)
      return hw.name + " states no core clock (T_atomic is " +
             std::to_string(static_cast<int>(brickdl::kAtomicRoundTripCycles)) + " SM cycles)";
    return std::nullopt;
  }
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& options) const override {
    const std::optional<MergeVariant> force = variant_option(options);
    if (!has_stencil_layer(g))
      throw SchedulerNotApplicable(
          name() + ": " + g.name +
          " has no convolution or pooling layer on spatial dims, so no chain that BrickDL "
          "merges into bricks (its bricks block the batch and spatial dims, §3.3.4); everything "
          "would run on cuDNN, which is brickdl.cudnn");
    const GpuSpec& spec = *hw.gpu;
    const brickdl::NetworkSchedule s = brickdl::schedule_network(g, spec, force);
    ScheduleResult r;
    r.plan = brickdl::network_plan(g, s);
    r.evaluation.gpu_fused_kernels = brickdl::brickdl_fused_kernels(g, s);
    int merged = 0, padded = 0;
    for (const brickdl::NetworkPart& p : s.parts) {
      merged += p.subgraph.merged;
      padded += p.subgraph.merged && p.variant == MergeVariant::Padded;
    }
    r.search.note =
        std::to_string(s.parts.size()) + " subgraphs, " + std::to_string(merged) + " merged (" +
        std::to_string(padded) + " padded, " + std::to_string(merged - padded) + " memoized), " +
        std::to_string(s.converted.size()) + " layout conversions; " + kOwnModelNote +
        ": a brick kernel per merged subgraph, the memoized bricks' atomics as one "
        "kernel after it (" +
        brickdl::atomic_cost_note(spec) + "), conversion kernels, cuDNN units with epilogues";
    return r;
  }
};

class BrickdlCudnnScheduler final : public DescribedScheduler {
 public:
  BrickdlCudnnScheduler()
      : DescribedScheduler(
            {.name = "brickdl.cudnn",
             .paper = "brickdl",
             .hardware_kinds = {"gpu"},
             .description =
                 "BrickDL's baseline (Figs. 7-11): cuDNN layer by layer, one library call per "
                 "brick unit, its element-wise ops (bias, BN folded for inference, ReLU, the "
                 "residual add as cudnnConvolutionBiasActivationForward's z) in the epilogue; "
                 "unlike `sequential`, which launches a kernel per operator"}) {}
  std::optional<std::string> cannot_target(const HardwareSpec& hw) const override {
    return gpu_for_bricks(hw);
  }
  ScheduleResult schedule(const Graph& g, const HardwareSpec&,
                          const SchedulerOptionValues&) const override {
    ScheduleResult r;
    r.plan = brickdl::cudnn_baseline_plan(g);
    r.evaluation.gpu_fused_kernels = brickdl::brickdl_fused_kernels();
    r.search.note = std::string(kOwnModelNote) +
                    " (cudnn_unit_kernels: a unit's anchor kernel by the GPU model's rules, "
                    "with the residual operand's read)";
    return r;
  }
};

}  // namespace

SchedulerList brickdl_schedulers() {
  SchedulerList list;
  list.push_back(std::make_unique<BrickdlScheduler>());
  list.push_back(std::make_unique<BrickdlCudnnScheduler>());
  return list;
}

}  // namespace dgs
