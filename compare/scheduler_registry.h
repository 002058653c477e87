#pragma once
// The one list of schedulers the suite runs: the suite's baseline ("sequential") and every paper's
// scheduler and baselines, each paper's from its reproductions/<paper>/schedulers.h
// (`SchedulerList <paper>_schedulers()`). repro_compare and the tests read it; adding a paper's
// schedulers is adding one line to scheduler_registry.cpp (README, "Adding a paper").
#include <string>
#include <vector>

#include "common/scheduler/scheduler.h"

namespace dgs {

// Every registered scheduler, the baseline first, then the papers in the order of the paper list.
SchedulerList all_schedulers();

// The registered scheduler named `name`, or nullptr.
const Scheduler* find_scheduler(const SchedulerList& list, const std::string& name);

// The names, in registry order, for messages ("sequential, ios, ...").
std::string scheduler_names(const SchedulerList& list);

}  // namespace dgs
