#pragma once
// The paper's schedulers behind the Scheduler interface (common/scheduler/scheduler.h): the
// method of the paper, in this folder (reproductions/<paper>/), apart from its experiments.
#include "common/scheduler/scheduler.h"

namespace dgs {

// "paper_template": one operator per stage in topological order (the suite's sequential plan),
// the place where a paper's own algorithm goes.
SchedulerList paper_template_schedulers();

}  // namespace dgs
