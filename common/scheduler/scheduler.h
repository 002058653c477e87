#pragma once
// The one road from a scheduler to a number: a Scheduler turns a graph and a machine into a Plan
// (common/plan/plan.h), and evaluate() (common/evaluate/evaluate.h) checks the plan against the
// machine and prices it with the shared model of the machine's kind. Every paper's scheduler and
// every baseline the suite runs implements this interface and is registered in one list
// (compare/scheduler_registry.h), which repro_compare runs side by side.
//
// A scheduler sees the hardware only through HardwareSpec (common/hw/hardware_spec.h) and the
// models' public interfaces, never a model's internals. What the scheduler's search did (time,
// states, candidates) travels with its plan; results never live in a plan.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/evaluate/evaluate.h"
#include "common/graph/graph.h"
#include "common/hw/hardware_spec.h"
#include "common/plan/plan.h"
#include "common/util/error.h"

namespace dgs {

// One typed option of a scheduler ("rounds": int, default "8").
struct SchedulerOption {
  enum class Type : uint8_t { Int, Double, Bool, String };
  std::string name;
  Type type = Type::String;
  std::string default_value;
  std::string help;
};
std::string_view scheduler_option_type_name(SchedulerOption::Type t);  // "int", "double", ...

// The values of a scheduler's options, every declared option present (its default unless given),
// each checked against its type when it is set.
class SchedulerOptionValues {
 public:
  SchedulerOptionValues() = default;
  // The declared options at their defaults, then `given` (name -> text) over them. Throws
  // dgs::Error "<scheduler>: unknown option 'x' (options: a, b)" or "<scheduler>: option 'x'
  // expects an int, got 'y'".
  SchedulerOptionValues(const std::string& scheduler, const std::vector<SchedulerOption>& declared,
                        const std::map<std::string, std::string>& given);
  int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  // An int option's value in [lo, hi]. Throws dgs::Error "<scheduler>: option 'x' expects
  // <expected>, got 7" (`expected` "" reads "<lo>..<hi>").
  int64_t get_int_in(const std::string& name, int64_t lo, int64_t hi,
                     const std::string& expected = "") const;
  // A string option's value, one of `choices`. Throws dgs::Error "<scheduler>: option 'x' expects
  // a, b or c, got 'd'".
  const std::string& get_choice(const std::string& name,
                                const std::vector<std::string>& choices) const;
  // "name=value" pairs in name order, for reports ("" when there are none).
  std::string str() const;

 private:
  const std::string& text(const std::string& name) const;
  std::string scheduler_;  // whose options, for messages
  std::map<std::string, std::string> values_;
};

// What the search did, for the comparison table. Zero = not reported (a rule, not a search).
struct SearchReport {
  double seconds = 0;      // wall time of schedule(), filled by run_scheduler
  int64_t states = 0;      // states or partial schedules the search visited
  int64_t candidates = 0;  // complete candidates it priced or compared
  std::string note;        // anything a reader needs ("model costs from the GPU model")
};

// A plan and what produced it.
struct ScheduleResult {
  Plan plan;
  SearchReport search;
  // What evaluate() needs besides the plan (e.g. the scheduler's own model of its fused kernels,
  // named in `search.note` when set).
  EvaluationOptions evaluation;
  // The graph the plan schedules when the scheduler added operators to the input graph (e.g.
  // data-movement Concat ops that gather pieces written by several tasks): the input's tensors
  // and ops keep their indices and names, the added ops compute copies of values, the outputs
  // are the same. Empty: the input graph. The plan is checked, priced and run against
  // scheduled_graph(result, input).
  std::optional<Graph> graph;
};

// The graph `r.plan` schedules: r.graph when the scheduler rewrote `input`, else `input`.
const Graph& scheduled_graph(const ScheduleResult& r, const Graph& input);

// Thrown by schedule() when the scheduler cannot schedule this graph on this machine (an operator
// it does not handle, a machine shape it does not target): one line giving the reason. The
// comparison lists the scheduler as skipped with the reason; everything else is a failure.
class SchedulerNotApplicable : public Error {
 public:
  using Error::Error;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Unique, lower-case, "<paper>" or "<paper>.<variant>" ("mine", "mine.greedy", "sequential").
  virtual std::string name() const = 0;
  // The paper it reproduces ("mine", ...), or "baseline" for the suite's own reference schedules.
  virtual std::string paper() const = 0;
  // One line: what it does and where it comes from.
  virtual std::string description() const = 0;
  // The hardware kinds it targets ("gpu", "dsa").
  virtual std::vector<std::string> hardware_kinds() const = 0;
  // Why it cannot target `hw` (beyond the kind: e.g. a DSA without a mesh), or nullopt. The
  // default checks hardware_kinds() only.
  virtual std::optional<std::string> cannot_target(const HardwareSpec& hw) const;
  // Its typed options (none by default).
  virtual std::vector<SchedulerOption> options() const { return {}; }
  // The plan for `g` on `hw`. Throws SchedulerNotApplicable (see above) or dgs::Error.
  virtual ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                                  const SchedulerOptionValues& options) const = 0;
};

// What a scheduler says about itself, as data: what name(), paper(), description(),
// hardware_kinds() and options() return.
struct SchedulerInfo {
  std::string name;
  std::string paper;
  std::vector<std::string> hardware_kinds;
  std::string description;
  std::vector<SchedulerOption> options = {};
};

// A Scheduler built from its SchedulerInfo: a subclass passes the info to the constructor and
// writes schedule() (and cannot_target() where the hardware kind is not enough).
class DescribedScheduler : public Scheduler {
 public:
  explicit DescribedScheduler(SchedulerInfo info) : info_(std::move(info)) {}
  std::string name() const override { return info_.name; }
  std::string paper() const override { return info_.paper; }
  std::string description() const override { return info_.description; }
  std::vector<std::string> hardware_kinds() const override { return info_.hardware_kinds; }
  std::vector<SchedulerOption> options() const override { return info_.options; }

 private:
  SchedulerInfo info_;
};

using SchedulerList = std::vector<std::unique_ptr<Scheduler>>;

// Runs `s` on (g, hw) with `options` (name -> text), times it (SearchReport::seconds), names the
// plan (Plan::scheduler = s.name() when the scheduler left it empty, Plan::graph = g.name) and
// checks it against hw (Plan::check of scheduled_graph(result, g) with plan_target(hw)). Throws
// what schedule() throws, or dgs::Error "<scheduler>: invalid plan: <why>".
ScheduleResult run_scheduler(const Scheduler& s, const Graph& g, const HardwareSpec& hw,
                             const std::map<std::string, std::string>& options = {});

// The suite's reference schedule of every hardware kind, the baseline of every comparison
// ("sequential"): one operator per stage in topological order; on a GPU each operator whole on
// stream 0 with the library kernels of the GPU model's per-operator rules (cuDNN/cuBLAS per
// layer), on an accelerator each operator split over every core or engine and tiled to fit the
// local buffer (layer_split_test_plan, common/dsamodel/layer_split_plan.h).
Plan sequential_plan(const Graph& g, const HardwareSpec& hw);
std::unique_ptr<Scheduler> make_sequential_scheduler();

}  // namespace dgs
