#include "reproductions/paper_template/schedulers.h"

#include <memory>

namespace dgs {

namespace {

class TemplateScheduler : public DescribedScheduler {
 public:
  TemplateScheduler()
      : DescribedScheduler({.name = "paper_template",
                            .paper = "paper_template",
                            .hardware_kinds = {"gpu", "dsa"},
                            .description = "the template paper's scheduler: one operator per "
                                           "stage in topological order (sequential_plan)"}) {}

  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues& /*options*/) const override {
    ScheduleResult r;
    r.plan = sequential_plan(g, hw);
    r.search.note = "a rule, no search";
    return r;
  }
};

}  // namespace

SchedulerList paper_template_schedulers() {
  SchedulerList list;
  list.push_back(std::make_unique<TemplateScheduler>());
  return list;
}

}  // namespace dgs
