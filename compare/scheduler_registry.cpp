#include "compare/scheduler_registry.h"

#include "reproductions/papers.h"

namespace dgs {

namespace {

void append(SchedulerList* to, SchedulerList from) {
  for (std::unique_ptr<Scheduler>& s : from) to->push_back(std::move(s));
}

}  // namespace

SchedulerList all_schedulers() {
  SchedulerList list;
  list.push_back(make_sequential_scheduler());
  // Each paper's (reproductions/<paper>/schedulers.h), in the order of the paper list.
  for (const PaperEntry& paper : paper_list()) append(&list, paper.schedulers());
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
