#pragma once
// GraphTurbo's concatenation, copy and redistribution operators (OSDI'23 §3.5, Figs. 8 and 9) in
// the DSA plans (dsa_plans.h), made explicit:
//
//  - Where: a consumer instance reads a tensor x written by another sub-graph (a "crossing"
//    read) in pieces written by two or more producer tasks ("concatenation ops before each
//    consumer of multiple producers", Fig. 8). For every such (x, consumer sub-graph B) the graph
//    gets one Concat op x -> x' (one input: the values are x's) that B's ops read instead of x.
//  - In the plan: the Concat op is the first op of the consumer instance's first task that reads
//    x' on each cluster (the instance's kernel starts by concatenating its inputs). When a later
//    step of the instance reads x' too, that task writes x': the whole outputs of the producer
//    instances its need touches that no earlier instance concatenated (Fig. 8 concatenates
//    instance outputs), in the scope the allocation gives; otherwise x' is an intermediate of the
//    task, computed tile by tile where the tiles need it, in the local buffer.
//  - Copies and redistributions are the concatenation's input pieces (one per producer task),
//    classified by §3.5's rules once the scopes are allocated:
//      copy            the piece's level (the producer's scope of x) differs from x''s level
//                      (Fig. 9 left: GB -> LB);
//      redistribution  both are the local level (L1) and the producer's binding of x differs from
//                      the binding the consumer infers for x' (Algorithm 4's infer_binding of its
//                      plain binding; Fig. 9 right: communication between cores);
//      neither         the piece stays in its level and layout (a concatenation within the LB or
//                      GB, "lightweight").
//    A piece that is both a copy and a binding change counts as a copy.
//  - Cost: nothing of their own: the DSA model charges the Concat as any data-movement op (bytes
//    written at the local buffer's bandwidth, unit_cost.h, and x' in the tile's working set when
//    it is an intermediate) and each piece as the transfer its path costs (cluster bus between
//    cores or from the LLB, DMA from DDR); x' written is one more tensor for the allocation.
//  - Why not separate tasks: a task per piece (in a stage before the consumer) was tried first;
//    x' then lives beside x in the same level during that stage (the model cannot alias a
//    concatenation's output with its inputs), and BERT-128's 6 MiB FFN activation went to DDR:
//    GraphTurbo fell from 507 to 41 sentences/s.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/graph/graph.h"
#include "common/plan/plan.h"
#include "reproductions/graphturbo/instances.h"

namespace dgs::graphturbo {

// One crossing read of a consumer instance on one cluster (from a plan without the ops).
struct CrossingRead {
  int tensor = -1;               // x
  int subgraph = -1;             // B, the consumer's sub-graph
  int instance = -1;             // the consumer instance
  int cluster = 0;               // placement.index[0] of the reading tasks
  int first_stage = 0;           // the consumer instance's first stage
  Region need;                   // bounding box of the instance's needs of x on this cluster
  std::vector<int64_t> binding;  // the first reading task's binding (of its primary output)
  // Producer tasks (stage, task) whose written region of x intersects `need`, in plan order.
  std::vector<std::pair<int, int>> writers;
};

// Every crossing read of `plan` (on `g`, whose ops keep the schedule's indices); `stage_instance`:
// the instance of every stage (-1: none). Refuses a writer that is not before the consumer
// instance's first stage.
std::vector<CrossingRead> crossing_reads(const Graph& g, const Plan& plan,
                                         const std::vector<int>& stage_instance, const Schedule& s);

// (x, B) pairs read in two or more producer pieces by some consumer instance.
std::vector<std::pair<int, int>> concat_sites(const std::vector<CrossingRead>& reads);

// `g` with one Concat op per site (named after B's first op reading x: "<op>.concat"), read by
// B's ops instead of x. `concat_tensor`: (x, B) -> x'.
Graph with_concat_ops(const Graph& g, const std::vector<std::pair<int, int>>& sites,
                      const Grouping& gr, std::map<std::pair<int, int>, int>* concat_tensor);

// One movement task of a plan with the ops.
struct MovementPiece {
  int stage = 0, task = 0;  // the consumer task holding the Concat op
  int tensor = -1;          // x
  int concat_tensor = -1;   // x'
  int instance = -1, cluster = 0;
  bool kept = false;                      // x' is an intermediate of the task (local level)
  std::pair<int, int> writer;             // the producer task
  std::vector<int64_t> source_binding;    // the producer's binding of x
  std::vector<int64_t> inferred_binding;  // the consumer's, for x'
  // The piece's binding after its op (set_piece_bindings): a redistribution resets the tuple to
  // the smaller factor along each dimension (§3.5: element-wise min of source and inferred); a
  // copy or an in-place piece keeps the source's.
  std::vector<int64_t> binding;
};

// The cluster a task runs on: the first index of its placement (0 when it has none).
int cluster_of(const Task& t);

// The binding of tensor `x` as task `t` writes it: the task's own when x is its primary output
// and the ranks agree, else plain_binding of its written region.
std::vector<int64_t> written_binding(const Graph& g, const Task& t, int x, int cores);

struct MovementCounts {
  int concats = 0;          // consumer-instance concatenations of two or more pieces
  int pieces = 0;           // movement tasks
  int copies = 0;           // pieces between levels
  int redistributions = 0;  // L1 pieces whose binding changes
  int in_place = 0;         // neither
};
enum class PieceKind { Copy, Redistribution, InPlace };
// §3.5's kind of `piece` of `plan` (after its scopes are set); `local_level`: the hardware's local
// level name (absent scope = the DRAM level).
PieceKind piece_kind(const Plan& plan, const MovementPiece& piece, const std::string& local_level);

// §3.5's rule for the binding of a redistribution's output: the smaller factor along each
// dimension (element-wise minimum; the ranks must agree).
std::vector<int64_t> redistribution_binding(const std::vector<int64_t>& source,
                                            const std::vector<int64_t>& inferred);

// Sets every piece's `binding` (after the plan's scopes are set).
void set_piece_bindings(const Plan& plan, std::vector<MovementPiece>& pieces,
                        const std::string& local_level);

// Counts the pieces of cluster `cluster` of `plan` (after its scopes are set).
MovementCounts count_movement(const Plan& plan, const std::vector<MovementPiece>& pieces,
                              const std::string& local_level, int cluster = 0);

}  // namespace dgs::graphturbo
