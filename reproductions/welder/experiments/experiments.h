#pragma once
// The experiments of repro_welder (one small function per figure/table, listed in
// experiment_list.cpp) and their shared helpers.
#include <string>
#include <vector>

#include "cli/cli.h"
#include "models/zoo.h"
#include "reproductions/welder/scheduler.h"

namespace dgs::welder {

// The GPU of an experiment (ExperimentContext::gpu(): --hw when given, else the experiment's
// default_hardware) as the scheduler's architecture, with or without FP16 tensor cores.
WelderArch experiment_arch(const ExperimentContext& ctx, bool fp16_tc);

// A zoo model (or --model) as a tile-graph.
TileGraph model_tile_graph(const std::string& name, const ZooOptions& opts);

// The latency of schedule `s` of `tg` in milliseconds as evaluate() prices the plan Welder writes
// (to_plan) on arch's GPU (arch.gpu, required), each Fused task's kernels the ones Welder's search
// chose (welder_fused_kernels): the plan checked, then the GPU model. Every latency an item reports
// is this one. It equals Welder's own sum of its kernels' profiled latencies (s.metrics.latency_ms)
// up to rounding, since each stage is one kernel on one stream and the model adds nothing between
// them (tests/welder/welder_evaluate_test.cpp). Welder's other figures (memory transactions, IRS,
// kernel counts) are its own tile-traffic model's (cost_model.h), which the GPU model does not
// count: its kernels' traffic is DRAM and L2 bytes, not Welder's 32-B sectors of every tile.
double evaluated_latency_ms(const TileGraph& tg, const Schedule& s, const WelderArch& arch);

// Schedules `tg` with every variant in `variants` (in order).
std::vector<Schedule> run_variants(const TileGraph& tg, const WelderArch& arch,
                                   const std::vector<Variant>& variants);

// The same for zoo models, kept for the rest of the process: --all schedules the same model on
// the same GPU in several items (Figs. 1, 9, 10, 12, 13 and Tables 3, 4 share cases), and a
// schedule is a function of the tile-graph, the architecture and the options only, so a case met
// again is taken from memory with the same result. Keyed by the model's name and zoo options, every
// field of the architecture (its GPU config's included) and the schedule options; a tile-graph's
// schedules share one memo of its custom regions (as run_variants' variants do) and, on one
// architecture, the tile searches of their sub-graphs (GroupSearchCache). Not for timing a
// schedule (Table 5 times schedule_graph itself).
const TileGraph& zoo_tile_graph(const std::string& name, const ZooOptions& opts);
const Schedule& zoo_schedule(const std::string& name, const ZooOptions& opts,
                             const WelderArch& arch, const ScheduleOptions& options);
// evaluated_latency_ms of zoo_schedule(name, opts, arch, options), kept as the schedule is.
double zoo_latency_ms(const std::string& name, const ZooOptions& opts, const WelderArch& arch,
                      const ScheduleOptions& options);
// zoo_schedule of each variant (default options otherwise), in order; the schedules are the
// memo's (valid for the rest of the process).
std::vector<const Schedule*> zoo_variants(const std::string& name, const ZooOptions& opts,
                                          const WelderArch& arch,
                                          const std::vector<Variant>& variants);
// zoo_latency_ms of variant `v` (default options otherwise).
double zoo_variant_latency_ms(const std::string& name, const ZooOptions& opts,
                              const WelderArch& arch, Variant v);
// Schedules and evaluates (zoo_variant_latency_ms) the variants of every case, one case per CPU
// at a time, larger batches first (a case's variants in order, as zoo_variants runs them;
// different tile-graphs share nothing), into the memo: an item's loop then finds them there, with
// the same schedules and latencies as computing them one by one. `done` (if any) is called with a
// case's `label` as its variants end.
struct ZooVariantsCase {
  std::string name;
  ZooOptions opts;
  WelderArch arch;
  std::vector<Variant> variants;
  std::string label;  // the case in a progress line
};
void prefetch_zoo_variants(const std::vector<ZooVariantsCase>& cases, const ProgressFn& done = {});

// Table 2's ten models, in the paper's order, with the zoo name of each ("" = not in the zoo).
struct Table2Model {
  std::string label;
  std::string zoo;
  bool batch64;  // artifact: the 7 models evaluated at batch 64
};
extern const std::vector<Table2Model> kTable2;
// The geometric mean of `v` (NaN when empty).
double geomean(const std::vector<double>& v);
// `c` as a claim against a stand-in (Claim::stand_in).
Claim stand_in_claim(Claim c, const char* stand_in);
// One row per kernel of a schedule (model, variant, ops, first/last op, tile, grid, smem,
// latency, transactions): written beside each experiment as <id>_kernels.csv.
Table group_table();
void add_group_rows(Table& t, const std::string& model, const TileGraph& tg, const Schedule& s);

// Writes the notes every Welder experiment shares (which algorithm ran, the open choices).
void note_common_choices(ExperimentContext& ctx, const WelderArch& arch);
// experiment_arch(ctx, fp16_tc) with those notes written: how an experiment starts.
WelderArch noted_experiment_arch(ExperimentContext& ctx, bool fp16_tc);

// Experiment bodies.
void run_fig2(ExperimentContext& ctx);   // §2 traffic example + Fig. 2
void run_fig13(ExperimentContext& ctx);  // ablation
void run_fig14(ExperimentContext& ctx);  // input-size sweep
void run_fig1(ExperimentContext& ctx);
void run_end_to_end(ExperimentContext& ctx, const std::string& fig);  // Figs. 9-12, 15
void run_table3(ExperimentContext& ctx);
void run_table4(ExperimentContext& ctx);
void run_table5(ExperimentContext& ctx);
void run_table6(ExperimentContext& ctx);
void run_table7(ExperimentContext& ctx);

// The stand-in of the "similar to Ansor" claims: the suite has no Ansor.
inline constexpr const char* kAnsorStandIn = "the suite's Ansor-like rule-based fusion for Ansor";

}  // namespace dgs::welder
