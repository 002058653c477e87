#pragma once
// A Plan is what a scheduler decides, in one representation every evaluator reads: a sequence of
// stages that run one after another; each stage holds tasks that run concurrently (different
// streams on a GPU, different engines on an accelerator); each task is a group of operators that
// runs as one unit (one fused kernel, a merged operator, or a sequence of kernels on one stream).
// Plans are written to and read from JSON, so a scheduler written anywhere can be evaluated.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/graph/graph.h"

namespace dgs {

enum class MemLevel : uint8_t { Host, DRAM, L2, Shared, Register };
std::string_view mem_level_name(MemLevel m);       // "host", "dram", "l2", "shared", "register"
MemLevel mem_level_from_name(std::string_view s);  // throws dgs::Error on an unknown name

enum class TaskKind : uint8_t {
  Sequential,  // the ops run one after another (one kernel each), e.g. an IOS group on one stream
  Merged,      // the ops (same-input convolutions) run as one merged operator (IOS operator merge)
  Fused        // the ops run as one fused kernel (Welder, GraphTurbo), see `kept` and `tile`
};
std::string_view task_kind_name(TaskKind k);
TaskKind task_kind_from_name(std::string_view s);

struct Task {
  TaskKind kind = TaskKind::Sequential;
  std::vector<int> ops;  // op indices in the graph, in execution order
  // For fused tasks: intermediate tensors that never reach DRAM, with the level they live at.
  std::map<int, MemLevel> kept;
  // For fused tasks: the output tile one thread block (or engine) computes, per output axis of
  // the task's last op; empty = not tiled / whole tensor.
  std::vector<int64_t> tile;
  int placement = -1;                    // stream / engine / cluster index; -1 = unassigned
  std::map<std::string, double> params;  // scheduler-specific numbers (e.g. "batch_splits")
};

struct Stage {
  std::vector<Task> tasks;  // run concurrently
};

struct Plan {
  std::string scheduler;  // e.g. "IOS-Both", "Welder", "Sequential"
  std::string graph;      // the graph's name
  std::vector<Stage> stages;

  int num_tasks() const;
  // Every op of `g` appears exactly once, every op's producers run in an earlier stage or earlier
  // in the same task, and every index is in range. Throws dgs::Error naming the first violation.
  void check(const Graph& g) const;
};

// JSON: {"scheduler": ..., "graph": ..., "stages": [{"tasks": [{"kind": "fused", "ops": ["op
// names"], "kept": {"tensor name": "shared"}, "tile": [..], "placement": 0, "params": {...}}]}]}.
// Ops and tensors are named, not numbered, so a plan stays valid for a re-exported graph.
std::string plan_to_json(const Plan& p, const Graph& g);
Plan plan_from_json(const std::string& text, const Graph& g, const std::string& origin);

}  // namespace dgs
