#include "compare/scheduler_registry.h"

#include "reproductions/atomic/schedulers.h"
#include "reproductions/brickdl/schedulers.h"
#include "reproductions/graphturbo/schedulers.h"
#include "reproductions/ios/schedulers.h"
#include "reproductions/welder/schedulers.h"

namespace dgs {

namespace {

void append(SchedulerList* to, SchedulerList from) {
  for (std::unique_ptr<Scheduler>& s : from) to->push_back(std::move(s));
}

}  // namespace

SchedulerList all_schedulers() {
  SchedulerList list;
  list.push_back(make_sequential_scheduler());
  // One line per paper (reproductions/<paper>/schedulers.h), in the paper list's order.
  append(&list, graphturbo_schedulers());
  append(&list, ios_schedulers());
  append(&list, welder_schedulers());
  append(&list, atomic_schedulers());
  append(&list, brickdl_schedulers());
  return list;
}

const Scheduler* find_scheduler(const SchedulerList& list, const std::string& name) {
  for (const std::unique_ptr<Scheduler>& s : list)
    if (s->name() == name) return s.get();
  return nullptr;
}

std::string scheduler_names(const SchedulerList& list) {
  std::string names;
  for (const std::unique_ptr<Scheduler>& s : list) names += (names.empty() ? "" : ", ") + s->name();
  return names;
}

}  // namespace dgs
