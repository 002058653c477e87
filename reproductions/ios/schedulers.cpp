#include "reproductions/ios/schedulers.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "reproductions/ios/network.h"
#include "reproductions/ios/scheduler.h"

namespace dgs {

namespace {

using ios::IosSchedule;
using ios::Network;
using ios::PartRule;
using ios::StrategySet;

constexpr int64_t kMaxPartUnits = 64;  // make_network's limit (bitmask states)

const SchedulerOption kMaxPartSize{
    "max_part_size", SchedulerOption::Type::Int, "50",
    "a block is split into parts of at most this many schedule units, searched one by one "
    "(1..64; the authors' max_part_size in every experiment script)"};
const SchedulerOption kPartition{
    "partition", SchedulerOption::Type::String, "auto",
    "how the network is cut into blocks: 'blocks' (a block ends where one value is live: "
    "reproductions/ios/network.h), 'name_prefix' (one block per op-name prefix, NasNet's cells), "
    "'auto' (name_prefix for graphs named nasnet*, randwire* or ios_fig1_2, blocks otherwise, as "
    "repro_ios)"};

const GpuSpec& gpu_of(const std::string& scheduler, const HardwareSpec& hw) {
  if (!hw.gpu)
    throw Error(scheduler + ": " + hw.file + ": hardware of kind '" + hw.kind +
                "' carries no GPU description");
  return *hw.gpu;
}

// The IOS network of `g` (schedule units, blocks, parts). A graph whose units make_network cannot
// order is not applicable. `partition` is one of kPartition's values.
Network network_of(const std::string& scheduler, const Graph& g, const std::string& partition,
                   int64_t max_part_size) {
  PartRule rule = ios::default_part_rule(g.name);
  if (partition == "blocks") {
    rule = PartRule::Blocks;
  } else if (partition == "name_prefix") {
    rule = PartRule::NamePrefix;
  }
  try {
    return ios::make_network(g, rule, static_cast<int>(max_part_size));
  } catch (const Error& e) {
    throw SchedulerNotApplicable(scheduler + ": " + e.what());
  }
}

Network network_of(const std::string& scheduler, const Graph& g, const SchedulerOptionValues& o) {
  const int64_t max_part_size = o.get_int_in("max_part_size", 1, kMaxPartUnits);
  return network_of(scheduler, g, o.get_choice("partition", {"auto", "blocks", "name_prefix"}),
                    max_part_size);
}

// Refuses, before the search, a network with a part whose DP needs more than `max_transitions`
// transitions or more than kIosMaxSearchStates states: counted without costing any stage (the
// DP's counting mode, tens of times faster than the search), so that a wide part is refused in
// seconds instead of searched for minutes (a DLRM part of width 26: millions of endings per
// state before the states reach the budget).
void refuse_oversized_parts(const std::string& scheduler, const Network& net,
                            StrategySet strategies, const ios::Pruning& prune,
                            uint64_t max_transitions) {
  for (const ios::Part& p : net.parts) {
    const ios::PartDag d = ios::part_dag(net, p);
    std::string why;
    try {
      (void)ios::count_part(d, strategies, prune, ios::kIosMaxSearchStates, max_transitions);
    } catch (const ios::TransitionBudgetExceeded& e) {
      why = std::to_string(e.budget) + " DP transitions (option max_transitions)";
    } catch (const ios::StateBudgetExceeded& e) {
      why = std::to_string(e.budget) + " DP states (kIosMaxSearchStates)";
    }
    if (!why.empty())
      throw SchedulerNotApplicable(scheduler + ": block '" + p.block + "' (part " +
                                   std::to_string(p.index_in_block) + ", " + std::to_string(d.n) +
                                   " units, width " + std::to_string(ios::dag_width(d)) +
                                   ") needs more than " + why +
                                   "; a smaller max_part_size splits it, smaller r and s prune "
                                   "its transitions");
  }
}

std::string parts_note(const Network& net) {
  return std::to_string(net.units.size()) + " schedule units in " +
         std::to_string(net.parts.size()) + " parts of " + std::to_string(net.num_blocks()) +
         " blocks";
}

// What every IOS scheduler shares: the paper, the hardware kind, the plan's kernel options.
class IosSchedulerBase : public DescribedScheduler {
 public:
  IosSchedulerBase(std::string name, std::string description,
                   std::vector<SchedulerOption> options = {})
      : DescribedScheduler({.name = std::move(name),
                            .paper = "ios",
                            .hardware_kinds = {"gpu"},
                            .description = std::move(description),
                            .options = std::move(options)}) {}
};

// The options of the DP schedulers.
std::vector<SchedulerOption> search_options() {
  const ios::Pruning defaults;
  return {{"r", SchedulerOption::Type::Int, std::to_string(defaults.max_group_size),
           "pruning: at most r schedule units per group of a stage (0..64, 0: no limit; the "
           "thesis' default r = 3)"},
          {"s", SchedulerOption::Type::Int, std::to_string(defaults.max_num_groups),
           "pruning: at most s groups per stage (0..64, 0: no limit; the thesis' default s = 8)"},
          {"max_transitions", SchedulerOption::Type::Int, "50000000",
           "refuse (not applicable) a network with a part whose DP enumerates more transitions, "
           "counted before the search (0: no limit, as repro_ios; not from the thesis: the "
           "largest part of the thesis' networks, RandWire-WS's, needs 38.7 million, searched "
           "in about 17 s on 2 cores)"},
          kMaxPartSize,
          kPartition};
}

// The DP of the thesis (Algorithm 1) with one of its three strategy sets.
class IosSearchScheduler final : public IosSchedulerBase {
 public:
  IosSearchScheduler(std::string name, StrategySet strategies, std::string description)
      : IosSchedulerBase(std::move(name), std::move(description), search_options()),
        strategies_(strategies) {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& o) const override {
    const GpuSpec& spec = gpu_of(name(), hw);
    const int64_t max_transitions =
        o.get_int_in("max_transitions", 0, std::numeric_limits<int64_t>::max(), ">= 0");
    const ios::Pruning prune{
        static_cast<int>(o.get_int_in("r", 0, kMaxPartUnits, "0..64 (0: no limit)")),
        static_cast<int>(o.get_int_in("s", 0, kMaxPartUnits, "0..64 (0: no limit)"))};
    const Network net = network_of(name(), g, o);
    if (max_transitions > 0)
      refuse_oversized_parts(name(), net, strategies_, prune,
                             static_cast<uint64_t>(max_transitions));
    ios::GpuModelStageCost cost(spec);
    ios::SearchStats stats;
    IosSchedule found;
    try {
      found = ios::ios_schedule(net, strategies_, prune, cost, &stats);
    } catch (const ios::SearchBudgetExceeded& e) {
      throw SchedulerNotApplicable(name() + ": " + e.what());
    }
    ScheduleResult r;
    r.plan = ios::to_plan(net, found);
    r.search.states = static_cast<int64_t>(stats.states);
    r.search.candidates = static_cast<int64_t>(stats.stages_costed);
    r.search.note = found.name +
                    " DP (thesis Algorithm 1), pruning r=" + std::to_string(prune.max_group_size) +
                    " s=" + std::to_string(prune.max_num_groups) + ", " + parts_note(net) +
                    "; candidates: distinct stages costed, by " + cost.describe() +
                    " (simulated stage + the stage-sync rule: the DP's objective is evaluate()'s "
                    "latency), " +
                    std::to_string(cost.simulations()) + " stage simulations; " +
                    ios::to_string_u128(stats.schedules) + " schedules in the pruned space";
    return r;
  }

 private:
  StrategySet strategies_;
};

class IosGreedyScheduler final : public IosSchedulerBase {
 public:
  IosGreedyScheduler()
      : IosSchedulerBase(
            "ios.greedy",
            "the IOS thesis' Greedy baseline: part by part, each stage runs every ready schedule "
            "unit (at most max_streams) on its own stream; Conv+bias+Relu as one kernel "
            "(reproductions/ios greedy_schedule)",
            {{"max_streams", SchedulerOption::Type::Int, std::to_string(ios::kGreedyMaxStreams),
              "at most this many ready units per stage (>= 1; the authors' 10)"},
             kMaxPartSize,
             kPartition}) {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& o) const override {
    (void)gpu_of(name(), hw);
    const int max_streams = static_cast<int>(o.get_int_in("max_streams", 1, kMaxPartUnits));
    const Network net = network_of(name(), g, o);
    ScheduleResult r;
    r.plan = ios::to_plan(net, ios::greedy_schedule(net, max_streams));
    r.search.note = "a rule, no search; " + parts_note(net);
    return r;
  }
};

class IosSequentialScheduler final : public IosSchedulerBase {
 public:
  IosSequentialScheduler()
      : IosSchedulerBase(
            "ios.sequential",
            "the IOS thesis' Sequential baseline: one schedule unit per stage on one stream, with "
            "IOS's kernel options (a Conv's bias and Relu folded into its kernel, as the authors' "
            "engine); the suite's `sequential` runs one op per stage without that folding "
            "(reproductions/ios sequential_schedule)") {}
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    (void)gpu_of(name(), hw);
    const Network net =
        network_of(name(), g, kPartition.default_value, std::stoll(kMaxPartSize.default_value));
    ScheduleResult r;
    r.plan = ios::to_plan(net, ios::sequential_schedule(net));
    r.search.note = "a rule, no search; " + parts_note(net);
    return r;
  }
};

}  // namespace

SchedulerList ios_schedulers() {
  SchedulerList list;
  list.push_back(std::make_unique<IosSearchScheduler>(
      "ios", StrategySet::Both,
      "IOS-Both (Ding et al., MLSys'21; thesis Algorithm 1): a dynamic program over each block "
      "part's endings picks every stage as concurrent groups on separate streams or one merged "
      "convolution, stage latencies from the GPU model; Conv+bias+Relu as one kernel "
      "(reproductions/ios)"));
  list.push_back(std::make_unique<IosSearchScheduler>(
      "ios.merge", StrategySet::Merge,
      "IOS-Merge: the IOS dynamic program with operator merge only (a stage is one schedule unit "
      "or one merged convolution of units reading the same input)"));
  list.push_back(std::make_unique<IosSearchScheduler>(
      "ios.parallel", StrategySet::Parallel,
      "IOS-Parallel: the IOS dynamic program with concurrent execution only (a stage's groups "
      "on separate streams, no merge)"));
  list.push_back(std::make_unique<IosGreedyScheduler>());
  list.push_back(std::make_unique<IosSequentialScheduler>());
  return list;
}

}  // namespace dgs
