#include "reproductions/welder/schedulers.h"

#include <iomanip>
#include <map>
#include <memory>
#include <sstream>

#include "common/util/error.h"

namespace dgs {

namespace welder {

FusedKernelFn welder_fused_kernels(const Schedule& s, const TileGraph& tg, const WelderArch& arch,
                                   const Plan& plan, const std::vector<int>& group_stage) {
  if (group_stage.size() != s.groups.size())
    throw Error("welder: group_stage has " + std::to_string(group_stage.size()) + " entries for " +
                std::to_string(s.groups.size()) + " groups");
  // The kernels of each stage's task, keyed by the task's ops as the plan lists them.
  using Kernels = std::map<std::vector<int>, std::vector<KernelLaunch>>;
  auto kernels = std::make_shared<Kernels>();
  for (const Stage& st : plan.stages)
    for (const Task& t : st.tasks) (*kernels)[t.ops];
  for (size_t i = 0; i < s.groups.size(); ++i) {
    const ScheduledGroup& sg = s.groups[i];
    if (!sg.result.launches || group_stage[i] < 0) continue;
    const Stage& st = plan.stages.at(static_cast<size_t>(group_stage[i]));
    (*kernels)[st.tasks.at(0).ops].push_back(group_kernel(tg, sg.group, arch, sg.result.best));
  }
  return [kernels](const Graph& g, const Task& t, const GpuSpec&) {
    const auto it = kernels->find(t.ops);
    if (it == kernels->end())
      throw Error("welder: the fused task of op '" +
                  (t.ops.empty() ? std::string("?") : g.op(t.ops[0]).name) +
                  "' is not a task of Welder's plan (its kernels come from Welder's schedule)");
    return it->second;
  };
}

namespace {

const char* const kFusedKernelNote =
    "fused kernels: welder's tile-traffic model, reproductions/welder/cost_model.cpp (each "
    "kernel's best tile as profiled on the GPU model)";

std::string description_of(Variant v) {
  switch (v) {
    case Variant::Welder:
      return "Welder (OSDI'23): tile-graph scheduling; the Fig. 7 graph-connecting loop tries "
             "each edge at the DRAM, register and shared-memory levels and keeps the fastest, "
             "each kernel's tile the best of the top-k of the tile-traffic cost model profiled "
             "on the GPU model; one fused kernel per stage";
    case Variant::Base:
      return "Welder-base (Welder's Fig. 13 ablation): the Fig. 7 loop with edges connected at "
             "the register level only (compute_inline; one reduction per register-connected "
             "component), Welder's tiles";
    case Variant::None:
      return "Welder-none (Welder's Fig. 13 ablation): one kernel per operator (layout-only "
             "operators are views), each with its best tile from Welder's tile search; unlike "
             "'sequential', whose kernels are the GPU model's library kernels (cuDNN/cuBLAS)";
    case Variant::AnsorLike:
      return "Ansor-like (Welder's stand-in for Ansor, Figs. 9-13): TVM/Ansor rule-based fusion "
             "(element-wise epilogues, injective prologues, single consumer, one reduction per "
             "kernel) at the register level, no search over levels; Welder's tiles, not Ansor's "
             "tuned kernels";
  }
  return "?";
}

bool is_fp16_graph(const Graph& g) {
  for (int t : g.input_tensors())
    if (g.tensor(t).dtype == DType::F16) return true;
  return false;
}

std::vector<SchedulerOption> options_of(Variant v) {
  std::vector<SchedulerOption> o = {
      {"topk", SchedulerOption::Type::Int, "20",
       "tile configurations profiled per sub-graph (paper §5.2: 20)"},
      {"max_visits", SchedulerOption::Type::Int, "2000",
       "tiles the best-first tile search visits at most (artifact policy/default.py: 2000)"},
      {"tensor_cores", SchedulerOption::Type::Bool, "true",
       "FP16 graphs: convolutions and matrix products at the GPU's tensor-core peak (the "
       "paper's FP16 setting, Fig. 10); FP32 graphs use the SIMT peak either way"}};
  if (v == Variant::Welder || v == Variant::Base)
    o.push_back({"connect_cost", SchedulerOption::Type::String, "latency",
                 "what the Fig. 7 loop minimises per edge: 'latency' (the paper's rule) or "
                 "'transactions' (Fig. 13's sensitivity study)"});
  return o;
}

class WelderScheduler final : public DescribedScheduler {
 public:
  explicit WelderScheduler(Variant v)
      : DescribedScheduler({.name = welder::scheduler_name(v),
                            .paper = "welder",
                            .hardware_kinds = {"gpu"},
                            .description = description_of(v),
                            .options = options_of(v)}),
        v_(v) {}

  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& options) const override {
    if (!hw.gpu) throw Error(hw.file + ": hardware of kind 'gpu' carries no GPU description");
    ScheduleOptions o;
    o.variant = v_;
    o.limits.topk = static_cast<int>(options.get_int_in("topk", 1, 1000000));
    o.limits.max_visits = static_cast<int>(options.get_int_in("max_visits", 1, 1000000));
    if ((v_ == Variant::Welder || v_ == Variant::Base) &&
        options.get_choice("connect_cost", {"latency", "transactions"}) == "transactions")
      o.connect_cost = ConnectCost::Transactions;
    const bool tc = options.get_bool("tensor_cores") && is_fp16_graph(g);
    const WelderArch arch = arch_from_gpu(*hw.gpu, tc);
    const TileGraph tg = build_tile_graph(g);
    Schedule s;
    try {
      s = schedule_graph(tg, arch, o);
    } catch (const Error& e) {
      // The one way the search fails on a graph: a kernel (an operator alone included) without
      // a tile whose footprint fits the GPU's shared memory.
      const std::string what = e.what();
      if (what.find("no valid tile") != std::string::npos)
        throw SchedulerNotApplicable(name() + ": " + what);
      throw;
    }
    ScheduleResult r;
    std::vector<int> group_stage;
    r.plan = to_plan(s, tg, g.name, &group_stage);
    r.plan.scheduler = name();
    r.evaluation.gpu_fused_kernels = welder_fused_kernels(s, tg, arch, r.plan, group_stage);
    r.search.states = s.tiles_visited;
    r.search.candidates = s.candidates_costed;
    std::ostringstream note;
    note << s.algorithm << "; " << s.metrics.kernels << " kernels, " << s.subgraphs_tuned
         << " sub-graphs tiled; Welder's own latency (sum of its kernels' profiled latencies) "
         << std::setprecision(6) << s.metrics.latency_ms * 1000.0 << " us; " << kFusedKernelNote
         << (tc ? "; FP16 tensor cores" : "");
    r.search.note = note.str();
    return r;
  }

 private:
  Variant v_;
};

}  // namespace

}  // namespace welder

SchedulerList welder_schedulers() {
  SchedulerList list;
  for (welder::Variant v : {welder::Variant::Welder, welder::Variant::Base, welder::Variant::None,
                            welder::Variant::AnsorLike})
    list.push_back(std::make_unique<welder::WelderScheduler>(v));
  return list;
}

}  // namespace dgs
