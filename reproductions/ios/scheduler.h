#pragma once
// IOS schedules of a whole network: the five schedules of the thesis
// (Sequential, Greedy, IOS-Merge, IOS-Parallel, IOS-Both), the stage cost
// interface (GPU model in model mode, measured stage latency in measured mode),
// memoisation, and conversion to a dgs::Plan.
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"
#include "common/util/error.h"
#include "reproductions/ios/dp.h"
#include "reproductions/ios/network.h"

namespace dgs::ios {

// One stage of a schedule, over schedule units (global unit indices).
struct IosStage {
  bool merge = false;                    // operator merge: one merged convolution
  std::vector<std::vector<int>> groups;  // concurrent execution: groups run on separate streams
  int num_units() const;
};

struct IosSchedule {
  std::string name;                   // "Sequential", "Greedy", "IOS-Both", ...
  std::vector<IosStage> stages;       // in execution order
  std::vector<int> part_first_stage;  // index of each part's first stage (for
                                      // per-block reports)
};

// ---------------------------------------------------------------------------------------------
// Stage cost
// ---------------------------------------------------------------------------------------------
class StageCostModel {
 public:
  virtual ~StageCostModel() = default;
  // Latency in microseconds of `stage` run alone, measured the way the authors'
  // profiler measures a stage: a multi-group stage includes the device
  // synchronisation after it (the GPU model's rule, stage_ends_with_sync).
  virtual double stage_latency_us(const Network& net, const IosStage& stage) = 0;
  virtual std::string describe() const = 0;
  // A lower bound on stage_latency_us(net, stage), much cheaper to compute: with one, the DP
  // skips endings that cannot win (solve_part with a lower bound; same schedule). Models without
  // one (has_lower_bound() false) have every ending costed.
  virtual bool has_lower_bound() const { return false; }
  virtual double stage_latency_lower_bound_us(const Network& net, const IosStage& stage);
  // A tighter lower bound, costlier than stage_latency_lower_bound_us (asked only for stages the
  // DP is about to cost); default: that bound.
  virtual double stage_latency_tight_lower_bound_us(const Network& net, const IosStage& stage) {
    return stage_latency_lower_bound_us(net, stage);
  }
  // A key of what the costs of `part`'s stages of at most `max_groups` groups (<= 0: any number)
  // depend on, its units named by their position in the part: two parts with the same DAG
  // (`dag`, part_dag's) and equal non-empty keys get equal stage_latency_us for every such stage,
  // unit for unit, so ios_schedule solves the second with the first's result (the DP's result
  // and statistics are a function of the DAG and the stages' costs; the bounds only prune).
  // Empty (the default): no key, every part is searched.
  virtual std::string part_cost_key(const Network& net, const PartDag& dag, const Part& part,
                                    int max_groups) {
    (void)net, (void)dag, (void)part, (void)max_groups;
    return {};
  }
  // A cheap necessary condition for equal part_cost_keys: two parts whose keys are equal have
  // equal signatures, so ios_schedule compares the signatures first and builds the keys only of
  // parts whose signatures match. Empty (the default): every part's signature is equal.
  virtual std::string part_cost_signature(const Network& net, const Part& part) {
    (void)net, (void)part;
    return {};
  }
};

// The suite's GPU performance model (common/gpumodel): each group's units'
// kernels on one stream (Conv+bias+Relu as one kernel, as the authors' engine
// fuses it), a merged stage as one merged convolution (kernels_for_merged_task);
// simulate_stage, with the GPU model's L2 residency rule (l2_residency.h) between consecutive
// kernels of a group's stream; plus the GPU model's synchronisation (stage_sync_cost_us), so
// that the DP's objective is evaluate_schedule's latency. Kernels are computed once per unit;
// stages whose kernels are identical (e.g. the same branch of two identical
// cells) are simulated once (simulations() counts the simulations run); with its lower bounds
// the DP skips simulating stages that cannot win (the same schedule).
class GpuModelStageCost : public StageCostModel {
 public:
  explicit GpuModelStageCost(GpuSpec spec) : spec_(std::move(spec)) {}
  double stage_latency_us(const Network& net, const IosStage& stage) override;
  std::string describe() const override { return "GPU model (" + spec_.name + ")"; }
  // The GPU model's bound (stage_latency_lower_bound_us of the units' kernels, plus the
  // synchronisation); a merged stage is bounded by 0 + its (zero) synchronisation.
  bool has_lower_bound() const override { return true; }
  double stage_latency_lower_bound_us(const Network& net, const IosStage& stage) override;
  // The cheap bound with this stage's own L2 residency savings (the cheap one assumes the most
  // any stage could save: it needs no key), and from a simulated stage whose groups are the same
  // except one that is a prefix of the stage's
  // (the DP costs the smaller closures of a state's sub-states first): both simulations are the
  // same event for event until that group's last kernel ends in the smaller stage (at e), so the
  // stage takes at least e plus the least times of the kernels it appends there, plus the
  // synchronisation. Likewise from a simulated stage of the first units of every group, with the
  // earliest such e among the groups that append kernels. Only groups after which no group
  // launches kernels (the host issues a stage stream by stream, so a grown group delays the
  // later ones). 0 when no such stage was simulated.
  double stage_latency_tight_lower_bound_us(const Network& net, const IosStage& stage) override;
  // The units' signatures (their kernels), the L2 residency rule's savings between every pair of
  // kernels that may follow each other on a group's stream (a unit's consecutive kernels; the
  // last kernel of a unit and the first of a later unit in the closure of a common head) at every
  // number of launching streams up to max_groups and the part's units, and the merged kernels of
  // every subset of each merge class: what a stage's key (stages_) is made of. Empty when a
  // merge class has more than kMaxMergeClassForKey units.
  std::string part_cost_key(const Network& net, const PartDag& dag, const Part& part,
                            int max_groups) override;
  static constexpr int kMaxMergeClassForKey = 8;
  // The units' signatures: the key's first part, without the L2 savings and merged kernels
  // (parts of one DAG whose units' kernels differ, e.g. SqueezeNet's fire modules, build no key).
  std::string part_cost_signature(const Network& net, const Part& part) override;
  const GpuSpec& spec() const { return spec_; }
  int64_t simulations() const { return simulations_; }
  int64_t simulated_kernels() const { return simulated_kernels_; }  // summed over simulations
  // Starts another search on this cost model (ios_schedule on the same network, any strategies
  // and pruning): the search then sees exactly what a fresh GpuModelStageCost would show it (its
  // bounds use only the stages it has asked for; simulations() and simulated_kernels() count
  // from 0 every distinct stage it asks for), so its schedule and statistics are a fresh
  // search's; the stages an earlier search simulated are not simulated again.
  void start_search() {
    ++search_;
    simulations_ = 0;
    simulated_kernels_ = 0;
  }

 private:
  // The unit's kernels (computed once; the caches reset when `net` changes). Inline for the
  // known units of the current network: the searches ask millions of times.
  const std::vector<KernelLaunch>& unit_kernels(const Network& net, int unit) {
    const size_t u = static_cast<size_t>(unit);
    if (net_ == &net && unit_known_.size() == net.units.size() && unit_known_[u])
      return unit_kernels_[u];
    return compute_unit_kernels(net, unit);
  }
  const std::vector<KernelLaunch>& compute_unit_kernels(const Network& net, int unit);
  // A small id per distinct kernel sequence of a unit (equal ids: identical kernels).
  int32_t unit_signature(const Network& net, int unit) {
    const size_t u = static_cast<size_t>(unit);
    if (net_ == &net && unit_known_.size() == net.units.size() && unit_signature_[u] >= 0)
      return unit_signature_[u];
    return compute_unit_signature(net, unit);
  }
  int32_t compute_unit_signature(const Network& net, int unit);
  const KernelWorkBound& unit_bound(const Network& net, int unit);
  // Appends the key of the concurrent stage `stage` (each group cut to (*lengths)[g] units when
  // given): its units' signatures per group and the L2 residency rule's savings, which it also
  // leaves in savings_ (one per kernel, groups in order).
  void append_concurrent_key(const Network& net, const IosStage& stage,
                             const std::vector<size_t>* lengths, std::string& key);
  // l2_resident_bytes(prev -> next) at the share of `launching` streams, computed once per pair.
  double l2_savings(const Network& net, const KernelLaunch& prev, const KernelLaunch& next,
                    size_t launching, double share);
  struct L2PairKey {
    const KernelLaunch* prev;
    const KernelLaunch* next;
    size_t launching;
    bool operator==(const L2PairKey&) const = default;
  };
  struct L2PairHash {
    size_t operator()(const L2PairKey& k) const {
      const size_t a = std::hash<const void*>()(k.prev), b = std::hash<const void*>()(k.next);
      return (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x7f4a7c15 + (a << 6)) ^ (k.launching << 1);
    }
  };
  std::unordered_map<L2PairKey, double, L2PairHash> l2_savings_;
  // kernel_work_bound of a unit kernel whose DRAM bytes the L2 rule cut by `saved`.
  const KernelWorkBound& saved_kernel_bound(const KernelLaunch& k, double saved);
  struct SavedHash {
    size_t operator()(const std::pair<const KernelLaunch*, double>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<double>()(p.second);
    }
  };
  std::unordered_map<std::pair<const KernelLaunch*, double>, KernelWorkBound, SavedHash>
      saved_bounds_;
  // A unit kernel (in unit_kernels_) whose DRAM bytes the L2 rule cut by `saved` (> 0), made
  // once: the simulations then take it by reference (a node's address never changes).
  const KernelLaunch& saved_kernel(const KernelLaunch& k, double saved);
  std::unordered_map<std::pair<const KernelLaunch*, double>, KernelLaunch, SavedHash>
      saved_kernels_;
  GpuSpec spec_;
  const Network* net_ = nullptr;  // the network unit_kernels_ belongs to
  std::vector<std::vector<KernelLaunch>> unit_kernels_;
  std::vector<char> unit_known_;
  std::vector<int32_t> unit_signature_;      // -1: not yet computed
  std::vector<KernelWorkBound> unit_bound_;  // sum over the unit's kernels
  std::vector<char> unit_bound_known_;
  std::vector<KernelWorkBound> stream_bounds_;  // scratch

  std::string key_;         // scratch: the key of a stage
  std::string prefix_key_;  // scratch
  // The key and savings of the stage whose tight bound was computed last (tight_net_ null: none),
  // for stage_latency_us when it is asked for that stage next.
  const Network* tight_net_ = nullptr;
  std::vector<std::vector<int>> tight_groups_;
  std::string tight_key_;
  std::vector<double> tight_savings_;
  std::vector<size_t> prefix_len_;                       // scratch
  std::vector<double> savings_;                          // scratch: L2 residency per kernel
  std::vector<std::vector<const KernelLaunch*>> refs_;   // scratch: a simulated stage's kernels
  std::unordered_map<std::string, int32_t> signatures_;  // kernel bytes -> id
  // Per simulated stage, by its key: its latency (with the synchronisation), its kernels, the
  // search that last asked for it, and for a concurrent stage when each stream's last kernel
  // ended (-1: the stream launched nothing).
  struct SimulatedStage {
    double latency_us = 0;
    int64_t kernels = 0;
    uint64_t search = 0;
    std::vector<double> stream_ends;
  };
  // The simulated stages (stages_), found by key through open addressing over (hash, index)
  // slots, the keys in one string (stage_keys_; stage i's ends at stage_key_end_[i]): a lookup
  // touches a slot and, when the hashes match, one key (a map's nodes cost a miss each).
  struct StageSlot {
    uint64_t hash = 0;
    uint32_t index = kNoStage;
  };
  static constexpr uint32_t kNoStage = ~uint32_t{0};
  static constexpr size_t kFirstStageSlots = 1024;  // a power of two
  std::vector<StageSlot> stage_slots_ = std::vector<StageSlot>(kFirstStageSlots);
  std::vector<SimulatedStage> stages_;
  std::vector<size_t> stage_key_end_;
  std::string stage_keys_;
  static uint64_t stage_hash(const std::string& key) { return std::hash<std::string>()(key); }
  uint32_t find_stage(const std::string& key, uint64_t hash) const;  // kNoStage: none
  void add_stage(const std::string& key, uint64_t hash, SimulatedStage stage);
  void clear_stages();
  // The simulated stages a search may see: those it asked for (an earlier search's stage
  // counts as simulated when this search first asks for it).
  const SimulatedStage* seen_in_search(const std::string& key) const {
    const uint32_t i = find_stage(key, stage_hash(key));
    return i != kNoStage && stages_[i].search == search_ ? &stages_[i] : nullptr;
  }
  uint64_t search_ = 0;
  int64_t simulations_ = 0;
  int64_t simulated_kernels_ = 0;
};

// A cost model that forwards every question to another (`inner_`): the base of models that
// change or observe one of them (MemoStageCost; tests that count what a search asks for).
class ForwardingStageCost : public StageCostModel {
 public:
  explicit ForwardingStageCost(StageCostModel& inner) : inner_(inner) {}
  double stage_latency_us(const Network& net, const IosStage& stage) override {
    return inner_.stage_latency_us(net, stage);
  }
  std::string describe() const override { return inner_.describe(); }
  bool has_lower_bound() const override { return inner_.has_lower_bound(); }
  double stage_latency_lower_bound_us(const Network& net, const IosStage& stage) override {
    return inner_.stage_latency_lower_bound_us(net, stage);
  }
  double stage_latency_tight_lower_bound_us(const Network& net, const IosStage& stage) override {
    return inner_.stage_latency_tight_lower_bound_us(net, stage);
  }
  std::string part_cost_key(const Network& net, const PartDag& dag, const Part& part,
                            int max_groups) override {
    return inner_.part_cost_key(net, dag, part, max_groups);
  }
  std::string part_cost_signature(const Network& net, const Part& part) override {
    return inner_.part_cost_signature(net, part);
  }

 protected:
  StageCostModel& inner_;
};

// Memoises another cost model by (units, strategy) and counts the distinct
// stages costed.
class MemoStageCost : public ForwardingStageCost {
 public:
  explicit MemoStageCost(StageCostModel& inner) : ForwardingStageCost(inner) {}
  double stage_latency_us(const Network& net, const IosStage& stage) override;
  int64_t distinct_stages() const { return static_cast<int64_t>(cache_.size()); }

 private:
  std::map<std::pair<std::vector<int>, bool>, double> cache_;
};

// ---------------------------------------------------------------------------------------------
// Schedules
// ---------------------------------------------------------------------------------------------
// Named constants of the authors' implementation.
inline constexpr int kGreedyMaxStreams = 10;  // Greedy puts at most 10 ready units in a stage

IosSchedule sequential_schedule(const Network& net);
IosSchedule greedy_schedule(const Network& net, int max_streams = kGreedyMaxStreams);

struct SearchStats {
  uint64_t states = 0, transitions = 0, stages_costed = 0;
  Count128 schedules = 0;
  double seconds = 0;  // wall time of the search on this machine (cost model included)
};

// The search's state budget per part: a part (of a block the partition could not cut smaller)
// whose DP needs more states is refused in one line naming its block, instead of searching for
// minutes. Not from the thesis: the largest part of the thesis' networks needs 55,041 states
// (RandWire, counting mode), and a few hundred thousand costed states take seconds.
inline constexpr uint64_t kIosMaxSearchStates = 400000;

// What ios_schedule throws when a part exceeds kIosMaxSearchStates (one line naming the block).
class SearchBudgetExceeded : public Error {
 public:
  using Error::Error;
};

// The DP over every part; stages costed through `cost` (memoised inside the DP
// per part). A part whose DAG and cost.part_cost_key equal an earlier part's takes that part's
// result (the same stages, unit for unit, and statistics) without a search. Throws
// SearchBudgetExceeded naming the block when a part exceeds kIosMaxSearchStates.
IosSchedule ios_schedule(const Network& net, StrategySet strategies, const Pruning& prune,
                         StageCostModel& cost, SearchStats* stats = nullptr);

// ---------------------------------------------------------------------------------------------
// Plans and evaluation
// ---------------------------------------------------------------------------------------------
// Concurrent stage: one Sequential task per group (placed on stream = group index);
// merge stage: one Merged task holding the convolutions and, after each, its
// fused Relu.
Plan to_plan(const Network& net, const IosSchedule& s);

struct ScheduleEval {
  double latency_us = 0;
  std::vector<double> stage_us;        // each stage (incl. the synchronisation after it)
  double avg_active_warps_per_sm = 0;  // time-averaged over the whole run
  double flops = 0;
};

// End-to-end latency of to_plan(net, s) on `hw` (a GPU) through evaluate() (the plan checked,
// then priced by the GPU model) with Conv+Relu folded (KernelOptions::fold_activation);
// synchronisations by the GPU model's rule (needs_stage_sync), the rule GpuModelStageCost charges.
ScheduleEval evaluate_schedule(const Network& net, const IosSchedule& s, const HardwareSpec& hw);
// The same on the GPU `spec` describes (gpu_hardware_spec(spec)), for callers that hold a GpuSpec
// only (the model's validation cases).
ScheduleEval evaluate_schedule(const Network& net, const IosSchedule& s, const GpuSpec& spec);

// Readable one-line description of a stage: "[a | b -> c] merge{d,e}".
std::string describe_stage(const Network& net, const IosStage& st);

}  // namespace dgs::ios
