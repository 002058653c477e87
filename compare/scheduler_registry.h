#pragma once
// The one list of schedulers the suite runs: the suite's baseline ("sequential") and every paper's
// scheduler and baselines, each paper's from its reproductions/<paper>/schedulers.h
// (`SchedulerList <paper>_schedulers()`) for every paper of the paper list
// (reproductions/papers.inc). repro_compare and the tests read it; a paper's line in the paper
// list registers its schedulers (README, "Adding a paper").
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
