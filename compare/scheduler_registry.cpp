#include "compare/scheduler_registry.h"

#include "reproductions/atomic/schedulers.h"

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
  append(&list, atomic_schedulers());
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
