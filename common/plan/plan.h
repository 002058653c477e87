#pragma once
// A Plan is what a scheduler decides, in one representation every evaluator reads (format
// version 2; the JSON form is documented by common/plan/plan.schema.json, with one example per
// kind of task in common/plan/examples/).
//
//   Plan     a sequence of stages that run one after another, plus typed execution options.
//   Stage    tasks that run concurrently (streams of a GPU, cores or engines of an accelerator).
//   Task     a group of operators run as one unit (one kernel, a merged operator, or a sequence of
//            kernels on one unit), computing a REGION of its outputs: the whole tensors by
//            default; a box of them for split instances, atoms and bricks; optionally a slice of
//            one reduction axis (partial sums, accumulated by the rule `accumulate` names).
//
// Which tensors a task writes: the outputs of its ops that are graph outputs or are read by an
// op outside the task, plus any tensor named in `regions` (see task_written_tensors). Everything
// else a task's ops produce stays inside it: it is computed where the task's written regions need
// it (propagated backwards through the shared iteration spaces, common/graph/iteration_space.h),
// recomputing or sharing halos as `halo` says, and never reaches a memory level other tasks read.
//
// An op may appear in several tasks (each computing a region of it: split instances, atoms,
// bricks). Plan::check states the rules: every op is in a task; the written regions of each tensor
// tile it exactly (no gap, no overlap), except partial sums, whose tasks write the same region with
// reduction ranges that partition the axis (one output region's partial sums are not split into
// different regions: a choice of this format); and every region an op of a task reads from memory
// is written by tasks of earlier stages (checked op by op).
//
// Memory levels are names given by the hardware config (a GPU: register, shared, l2, dram,
// host; an accelerator its own, e.g. lb/gb/ddr or sram/hbm); Plan::check with a PlanTarget checks
// them. Results (latency, counters) never live in a plan.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"

namespace dgs {

inline constexpr int kPlanFormatVersion = 2;

enum class TaskKind : uint8_t {
  Sequential,  // the ops run one after another (one kernel each) on the task's unit
  Merged,      // same-input convolutions run as one merged operator (plus epilogue ops)
  Fused        // the ops run as one fused kernel, tile by tile (see `tile`, `kept`, `halo`)
};
std::string_view task_kind_name(TaskKind k);  // "sequential", "merged", "fused"
TaskKind task_kind_from_name(std::string_view s);

// The kind of execution unit a task is placed on.
enum class UnitKind : uint8_t {
  None,     // not placed: the evaluator decides
  Stream,   // a GPU stream; index [s]
  SmSet,    // a set of GPU SMs; index [first SM], `count` SMs
  Cluster,  // an accelerator cluster; index [cluster]
  Core,     // a core of a cluster; index [cluster, core], `count` cores from there
  Engine    // an engine of a 2-D mesh; index [x, y] (x = column, y = row)
};
std::string_view unit_kind_name(UnitKind k);  // "none", "stream", "sm_set", "cluster", ...
UnitKind unit_kind_from_name(std::string_view s);

struct Placement {
  UnitKind unit = UnitKind::None;
  std::vector<int> index;  // the unit's coordinates (see UnitKind); empty when unit == None
  int count = 1;           // units used, consecutive from `index` (the last coordinate counts)
  // How many of the `count` units share each axis of the task's primary output (task_primary_
  // tensor), e.g. (2,4,1,1) for [2,256,28,28] on 8 cores; empty = not bound. Product == count.
  std::vector<int64_t> binding;
  bool operator==(const Placement&) const = default;
};
// Placement on GPU stream `s`.
Placement stream_placement(int s);

// How a tiled fused task treats the halo of its intermediates (elements that the tiles of its
// output need in common, e.g. the borders of a conv chain's intermediate tiles).
enum class HaloMode : uint8_t {
  Recompute,  // every tile computes the whole region it needs (overlaps computed again)
  Share       // every element is computed once, by the first tile that needs it, and kept at
              // `level` for the tiles that need it later (memoized bricks)
};
std::string_view halo_mode_name(HaloMode m);  // "recompute", "share"
HaloMode halo_mode_from_name(std::string_view s);

struct HaloPolicy {
  HaloMode mode = HaloMode::Recompute;
  std::string level;  // Share: the memory level the shared elements live at
  bool operator==(const HaloPolicy&) const = default;
};

// How the partial results of tasks that compute disjoint slices of one reduction axis combine.
enum class Accumulation : uint8_t {
  // Added into the output in stage order. An additive operand applied once per output element
  // (Conv's bias B, Gemm's beta * C) is added by the task whose range starts at 0 only; every
  // other task adds its partial sum. The slices must cover the axis exactly.
  Sum
};
std::string_view accumulation_name(Accumulation a);  // "sum"
Accumulation accumulation_from_name(std::string_view s);

// A slice of one reduction axis of the task's op (the task then holds exactly one op).
struct ReductionSplit {
  ReductionRange range;  // axis name (of the op's iteration space, e.g. "c_in", "k") and [lo, hi)
  Accumulation accumulate = Accumulation::Sum;
  bool active() const { return !range.axis.empty(); }
  bool operator==(const ReductionSplit&) const = default;
};

struct Task {
  TaskKind kind = TaskKind::Sequential;
  std::vector<int> ops;  // op indices in the graph, in execution order
  // The region of each written tensor that this task writes (tensor -> box); a written tensor
  // that is absent is written whole. Naming a tensor here makes it written.
  std::map<int, Region> regions;
  ReductionSplit reduction;  // optional (partial sums)
  // Intermediates kept inside the task, with the memory level they live at (never written).
  std::map<int, std::string> kept;
  // Buffer scope: the level a written tensor lives at until its consumers have run (absent =
  // the hardware's main memory: dram, ddr, hbm).
  std::map<int, std::string> scope;
  // Fused tasks: the output tile one thread block (or core) computes at a time, per axis of the
  // primary output; empty = the whole region at once.
  std::vector<int64_t> tile;
  HaloPolicy halo;
  Placement placement;
  // Weights or constants the task reads that its units keep after it (pinned): the region of
  // each that the task reads stays in each unit's local buffer until the last later task on that
  // unit that reads the tensor has run, so those tasks read it in place (loaded once per unit,
  // e.g. a pipelined layer's weights across samples); it counts against the buffer of every
  // task on the unit meanwhile. Accelerator evaluators only (GPU evaluators ignore it).
  std::vector<int> pinned;
  // The bytes of each unit's local buffer the task's loop nest is mapped within (its loop order
  // and reduction chunks chosen among those whose working set fits): the budget the plan sized
  // its tile against, e.g. a share of the buffer that leaves the rest to tensors kept between
  // tasks. 0: the whole local buffer (never more than it). A tile with no mapping within it runs
  // at its smallest working set (refused only over the whole buffer). Accelerator evaluators
  // only (GPU evaluators ignore it).
  int64_t buffer_bytes = 0;
};

struct Stage {
  std::vector<Task> tasks;  // run concurrently
};

// Typed options of the scheduler that change what the evaluators run for a task.
struct ExecutionOptions {
  // A Relu whose input is produced by a Conv/ConvTranspose/Gemm/MatMul with no other consumer
  // runs in that operator's epilogue (cuDNN's ConvolutionBiasActivationForward).
  bool fold_activation = false;
  // FP16 convolutions/GEMMs run on tensor cores where the GPU has them.
  bool tensor_cores = true;
  // Loads of a stage may start while earlier stages run (the DSA model fetches the next layer's
  // weights and inputs during the current one). false: no overlap across stages, as a compiler
  // without across-layer instruction scheduling: a task's loads wait for its stage to begin and
  // for its unit's previous task to end (DSA model only; GPU evaluators ignore it).
  bool prefetch_across_stages = true;
  bool operator==(const ExecutionOptions&) const = default;
};

// What a plan is checked against when its hardware is known (the hardware layer fills it).
struct PlanTarget {
  std::string name;                        // the hardware's name, for messages
  std::vector<std::string> memory_levels;  // the level names a plan may use
  // For each unit kind the hardware offers, the extent of each coordinate of `index` (a stream:
  // {max streams}; a core: {clusters, cores per cluster}; a mesh engine: {columns, rows}).
  std::map<UnitKind, std::vector<int>> unit_extents;
};

struct Plan {
  int version = kPlanFormatVersion;  // the format version the plan was read from (1 or 2)
  std::string scheduler;             // the scheduler's name, e.g. "Sequential"
  std::string graph;                 // the graph's name
  ExecutionOptions options;
  std::vector<Stage> stages;

  int num_tasks() const;
  // Checks the rules of the file comment, op indices, placements (binding rank and product),
  // level names and reduction splits, and, with `target`, that every level and unit exists on
  // the hardware. Throws dgs::Error with one line naming the violation: the op, the tensor, the
  // region and the stage.
  void check(const Graph& g, const PlanTarget* target = nullptr) const;
};

// ---------------------------------------------------------------------------------------------
// What a task computes (shared by Plan::check, the CPU reference's run_plan and evaluators)
// ---------------------------------------------------------------------------------------------
// The tensors task `t` writes (see the file comment), in ascending tensor order.
std::vector<int> task_written_tensors(const Graph& g, const Task& t);
// The region task `t` writes of tensor `tensor` (its `regions` entry, or the whole tensor).
Region task_written_region(const Graph& g, const Task& t, int tensor);
// The tensor `tile` and `placement.binding` refer to: output 0 of the task's last op.
int task_primary_tensor(const Graph& g, const Task& t);
// True when the task writes every written tensor whole and has no reduction split.
bool task_is_whole(const Graph& g, const Task& t);
// For every tensor the task touches (written, intermediate, and read from outside), the region
// it needs: the backward propagation of its written regions through its ops (with a reduction
// split, the op's inputs restricted to the slice). Includes the written regions themselves.
std::map<int, Region> task_needed_regions(const Graph& g, const Task& t);
// The same with each region's access (iteration_space.h: the elements a load moves,
// access_numel, where a strided window reads only some of its box).
std::map<int, AccessRegion> task_needed_access(const Graph& g, const Task& t);

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------
// Writes format version 2. Ops and tensors are named, not numbered, so a plan stays valid for a
// re-exported graph; fields at their defaults are omitted.
std::string plan_to_json(const Plan& p, const Graph& g);
// Reads version 2 and version 1 (no "version" key: a task's "placement" integer is a stream
// index, and its "params" map, which held scheduler results, is dropped). Throws dgs::Error with
// one line naming `origin` and the field.
Plan plan_from_json(const std::string& text, const Graph& g, const std::string& origin);

}  // namespace dgs
