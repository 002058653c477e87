#pragma once
// Welder's two-step scheduler (OSDI'23 Fig. 7) and the ablation variants of Fig. 13.
//
//  * Welder-none: one kernel per operator (layout-only operators are views and launch none);
//    every operator still gets its own best tile (intra-operator schedule).
//  * Welder-base: edges may be connected at the register level only (compute_inline): the
//    consumer reads the producer's tile element for element, or the producer is injective and is
//    inlined into the consumer; a register-connected component holds at most one reduction.
//  * Welder: register and shared-memory levels.
//  * Ansor-like: rule-based fusion (an anchor operator and the chain of element-wise operators
//    after it, each with a single consumer), no search over connection levels.
//
// The graph-connecting step is the paper's Fig. 7 loop (not the artifact's greedy group growth):
// operators in topological order, each out-edge tries every memory level the variant allows; the
// "profile" of a level is the analytic latency of the best of the top-k tile configurations of
// every kernel the edge touches (the producer's and the consumer's group under that connection).
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/plan/plan.h"
#include "reproductions/welder/cost_model.h"

namespace dgs::welder {

enum class Variant { None, Base, Welder, AnsorLike };
std::string variant_name(Variant v);  // "Welder-none", "Welder-base", "Welder", "Ansor-like"
// The scheduler name of a variant (schedulers.h): "welder.none", "welder.base", "welder",
// "welder.ansor".
std::string scheduler_name(Variant v);

// What the graph-connecting step minimises when it picks an edge's level. The paper's rule
// (Fig. 7 line 8) keeps the level whose kernels profile fastest: Latency, the "profile" being the
// analytic latency of the best of the top-k tiles. Transactions (the 32-B global-memory
// transactions of the kernels the edge touches) is not the paper's rule: Fig. 13 runs it only as
// a sensitivity study of its transaction claim.
enum class ConnectCost { Latency, Transactions };

// Tile searches (schedule_group) of sub-graphs by signature (group_signature), shared by the
// scheduling runs of one tile-graph with one architecture and one set of search limits (e.g. the
// variants of a model: every variant tiles the operators alone, Welder-base and Welder many of
// the same register-connected groups). A run that meets a signature an earlier run searched takes
// that run's result, as it already does within a run for identical sub-graphs; its own counters
// (Schedule::subgraphs_tuned, ...) count the signature as tuned all the same, so a run reports
// what it reports without the cache. The caller keys caches by architecture (a cache does not
// compare architectures); a cache refuses a second tile-graph or other search limits
// (dgs::Error).
class GroupSearchCache {
 public:
  // The id of the signature of `grp`; the sub-graph is searched (schedule_group, custom regions
  // memoised in `memo`) when no run searched one of that signature before.
  int find_or_search(const TileGraph& g, const KernelGroup& grp, const WelderArch& arch,
                     const SearchLimits& limits, CustomRegionMemo* memo);
  const GroupResult& result(int id) const { return results_[static_cast<size_t>(id)]; }
  size_t size() const { return results_.size(); }

 private:
  struct IdentityHash {
    size_t operator()(const std::vector<int>& v) const;
  };
  std::deque<GroupResult> results_;                    // by signature id
  std::unordered_map<std::string, int> by_signature_;  // signature -> id
  // The same group again (ops, -1, then producer, consumer, level per edge) -> its signature's
  // id, without building the signature.
  std::unordered_map<std::vector<int>, int, IdentityHash> by_identity_;
  std::vector<int> identity_;  // the key being looked up
  const TileGraph* graph_ = nullptr;
  SearchLimits limits_;
};

struct ScheduleOptions {
  Variant variant = Variant::Welder;
  SearchLimits limits;
  ConnectCost connect_cost = ConnectCost::Latency;
  // Memo of custom input regions to use (and fill); it may be shared by runs on the same
  // tile-graph (e.g. the variants of one model). Null: the run keeps a memo of its own.
  CustomRegionMemo* regions = nullptr;
  // Tile searches shared with other runs on the same tile-graph, architecture and limits (see
  // GroupSearchCache). Null: the run keeps its own.
  GroupSearchCache* searches = nullptr;
};

struct ScheduledGroup {
  KernelGroup group;
  GroupResult result;
};

struct PlanMetrics {
  int kernels = 0;          // groups that launch a kernel
  double transactions = 0;  // 32-B global-memory transactions
  double irs_mib = 0;       // bytes kernels write to global memory, MiB
  double latency_ms = 0;    // sum of kernel latencies (analytic)
};

struct Schedule {
  Variant variant = Variant::Welder;
  std::string algorithm;               // which connecting algorithm ran
  std::vector<ScheduledGroup> groups;  // in a topological order
  PlanMetrics metrics;
  int subgraphs_tuned = 0;        // distinct sub-graphs tiled (signature cache misses)
  int64_t candidates_costed = 0;  // top-k configs profiled, summed over those sub-graphs
  int64_t tiles_visited = 0;      // tiles propagated by the searches
};

Schedule schedule_graph(const TileGraph& g, const WelderArch& arch, const ScheduleOptions& opt);

// Whether edge producer->consumer may be connected at the register level.
bool register_eligible(const TileGraph& g, int producer, int consumer);

// The schedule as a dgs::Plan: one stage per group, a Fused task with its kept tensors and tile
// (a layout-only group is a Fused task of Reshape-like ops, which launches no kernel). `graph` must
// be the graph the tile-graph was built from (tensor and op indices refer to it).
Plan to_plan(const Schedule& s, const TileGraph& tg, const std::string& graph_name);
// The same, and for each group of `s` the index of the plan's stage that computes it
// (`group_stage`, one entry per group): a group whose graph ops all sit in an earlier stage's
// task (another output of a multi-output operator) maps to the stage that holds its first op;
// -1 for a group without graph ops (hand-built tile-graphs).
Plan to_plan(const Schedule& s, const TileGraph& tg, const std::string& graph_name,
             std::vector<int>* group_stage);

}  // namespace dgs::welder
