#pragma once
// IOS's schedules behind the suite's Scheduler interface (common/scheduler/scheduler.h), for the
// comparison across papers (compare/scheduler_registry.cpp):
//   "ios"            IOS-Both, the thesis' scheduler (DP with concurrent groups and merges)
//   "ios.merge"      IOS-Merge (the DP with operator merge only)
//   "ios.parallel"   IOS-Parallel (the DP with concurrent execution only)
//   "ios.greedy"     the thesis' Greedy baseline
//   "ios.sequential" the thesis' Sequential baseline (one schedule unit per stage, IOS's kernel
//                    options: it differs from the suite's `sequential`, see its description)
// Each is the reproduction's own function (reproductions/ios/scheduler.h: ios_schedule,
// greedy_schedule, sequential_schedule, to_plan) on the network make_network builds from the
// graph; the searches cost stages with the GPU model of the machine (GpuModelStageCost), whose
// objective is evaluate()'s latency of the plan. GPU only.
#include "common/scheduler/scheduler.h"

namespace dgs {

SchedulerList ios_schedulers();

}  // namespace dgs
