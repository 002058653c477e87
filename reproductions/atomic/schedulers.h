#pragma once
// The Atomic Dataflow reproduction's schedulers behind the suite's Scheduler interface
// (common/scheduler/scheduler.h), for the cross-paper comparison (compare/scheduler_registry.cpp):
//   "atomic"         AD: the iterative search (iterative_search.h) over Algorithm 1's atom sets,
//                    each scheduled in priority-rule Rounds with snake mapping and Algorithm 3
//                    buffering (schedule.h), the fastest kept (as Fig. 8 runs it);
//   "atomic.ls"      the layer-sequential baseline LS (baselines.h);
//   "atomic.cnn_p"   CNN-Partition (partition_baselines.h);
//   "atomic.il_pipe" Tangram-style inter-layer pipelining (partition_baselines.h).
// All four build their plans with the reproduction's own functions (atom_plan of the atoms and
// Rounds they choose) and target a DSA whose engines form a 2-D mesh (topology "mesh").
#include "common/scheduler/scheduler.h"

namespace dgs {

SchedulerList atomic_schedulers();

}  // namespace dgs
