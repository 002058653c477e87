#include "common/scheduler/scheduler.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <sstream>

#include "common/dsamodel/layer_split_plan.h"
#include "common/evaluate/plan_target.h"

namespace dgs {

std::string_view scheduler_option_type_name(SchedulerOption::Type t) {
  switch (t) {
    case SchedulerOption::Type::Int:
      return "int";
    case SchedulerOption::Type::Double:
      return "double";
    case SchedulerOption::Type::Bool:
      return "bool";
    case SchedulerOption::Type::String:
      return "string";
  }
  return "?";
}

namespace {

bool parse_int(const std::string& s, int64_t* out) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == end;
}

bool parse_double(const std::string& s, double* out) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, *out);
  return !s.empty() && r.ec == std::errc() && r.ptr == end;
}

bool parse_bool(const std::string& s, bool* out) {
  if (s == "true" || s == "1") {
    *out = true;
    return true;
  }
  if (s == "false" || s == "0") {
    *out = false;
    return true;
  }
  return false;
}

bool valid_value(SchedulerOption::Type t, const std::string& s) {
  int64_t i = 0;
  double d = 0;
  bool b = false;
  switch (t) {
    case SchedulerOption::Type::Int:
      return parse_int(s, &i);
    case SchedulerOption::Type::Double:
      return parse_double(s, &d);
    case SchedulerOption::Type::Bool:
      return parse_bool(s, &b);
    case SchedulerOption::Type::String:
      return true;
  }
  return false;
}

}  // namespace

SchedulerOptionValues::SchedulerOptionValues(const std::string& scheduler,
                                             const std::vector<SchedulerOption>& declared,
                                             const std::map<std::string, std::string>& given)
    : scheduler_(scheduler) {
  for (const SchedulerOption& o : declared) values_[o.name] = o.default_value;
  for (const auto& entry : given) {
    const std::string& name = entry.first;
    const std::string& value = entry.second;
    const auto it = std::find_if(declared.begin(), declared.end(),
                                 [&](const SchedulerOption& o) { return o.name == name; });
    if (it == declared.end()) {
      std::string names;
      for (const SchedulerOption& o : declared) names += (names.empty() ? "" : ", ") + o.name;
      throw Error(scheduler + ": unknown option '" + name +
                  "' (options: " + (names.empty() ? "none" : names) + ")");
    }
    if (!valid_value(it->type, value))
      throw Error(scheduler + ": option '" + name + "' expects " +
                  (it->type == SchedulerOption::Type::Int ? "an " : "a ") +
                  std::string(scheduler_option_type_name(it->type)) + ", got '" + value + "'");
    values_[name] = value;
  }
}

const std::string& SchedulerOptionValues::text(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) throw Error("scheduler option '" + name + "' is not declared");
  return it->second;
}

int64_t SchedulerOptionValues::get_int(const std::string& name) const {
  int64_t v = 0;
  if (!parse_int(text(name), &v)) throw Error("scheduler option '" + name + "' is not an int");
  return v;
}

double SchedulerOptionValues::get_double(const std::string& name) const {
  double v = 0;
  if (!parse_double(text(name), &v)) throw Error("scheduler option '" + name + "' is not a double");
  return v;
}

bool SchedulerOptionValues::get_bool(const std::string& name) const {
  bool v = false;
  if (!parse_bool(text(name), &v)) throw Error("scheduler option '" + name + "' is not a bool");
  return v;
}

const std::string& SchedulerOptionValues::get_string(const std::string& name) const {
  return text(name);
}

int64_t SchedulerOptionValues::get_int_in(const std::string& name, int64_t lo, int64_t hi,
                                          const std::string& expected) const {
  const int64_t v = get_int(name);
  if (v < lo || v > hi)
    throw Error(scheduler_ + ": option '" + name + "' expects " +
                (expected.empty() ? std::to_string(lo) + ".." + std::to_string(hi) : expected) +
                ", got " + std::to_string(v));
  return v;
}

const std::string& SchedulerOptionValues::get_choice(
    const std::string& name, const std::vector<std::string>& choices) const {
  const std::string& v = text(name);
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  throw Error(scheduler_ + ": option '" + name + "' expects " + list + ", got '" + v + "'");
}

std::string SchedulerOptionValues::str() const {
  std::string s;
  for (const auto& [name, value] : values_) s += (s.empty() ? "" : " ") + name + "=" + value;
  return s;
}

std::optional<std::string> Scheduler::cannot_target(const HardwareSpec& hw) const {
  const std::vector<std::string> kinds = hardware_kinds();
  if (std::find(kinds.begin(), kinds.end(), hw.kind) != kinds.end()) return std::nullopt;
  std::string list;
  for (const std::string& k : kinds) list += (list.empty() ? "" : ", ") + k;
  return "targets hardware of kind " + list + ", not " + hw.kind;
}

const Graph& scheduled_graph(const ScheduleResult& r, const Graph& input) {
  return r.graph ? *r.graph : input;
}

ScheduleResult run_scheduler(const Scheduler& s, const Graph& g, const HardwareSpec& hw,
                             const std::map<std::string, std::string>& options) {
  const SchedulerOptionValues values(s.name(), s.options(), options);
  if (const std::optional<std::string> why = s.cannot_target(hw))
    throw SchedulerNotApplicable(s.name() + ": " + *why);
  const auto start = std::chrono::steady_clock::now();
  ScheduleResult r = s.schedule(g, hw, values);
  r.search.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.plan.scheduler.empty()) r.plan.scheduler = s.name();
  r.plan.graph = g.name;
  const PlanTarget target = plan_target(hw);
  try {
    r.plan.check(scheduled_graph(r, g), &target);
  } catch (const Error& e) {
    throw Error(s.name() + ": invalid plan: " + e.what());
  }
  return r;
}

Plan sequential_plan(const Graph& g, const HardwareSpec& hw) {
  if (hw.dsa) {
    Plan p = layer_split_test_plan(g, *hw.dsa, hw.dsa->units());
    p.graph = g.name;
    return p;
  }
  Plan p;
  p.scheduler = "Sequential (one op per stage)";
  p.graph = g.name;
  for (int op : g.topo_order()) {
    Task t;
    t.kind = TaskKind::Sequential;
    t.ops = {op};
    t.placement = stream_placement(0);
    p.stages.push_back(Stage{{t}});
  }
  return p;
}

namespace {

class SequentialScheduler final : public Scheduler {
 public:
  std::string name() const override { return "sequential"; }
  std::string paper() const override { return "baseline"; }
  std::string description() const override {
    return "one operator per stage in topological order: on a GPU each whole on one stream with "
           "the library kernel of the GPU model's rules (cuDNN/cuBLAS per layer); on an "
           "accelerator each split over every core or engine, tiled to fit (the suite's "
           "reference schedule, the baseline of every comparison)";
  }
  std::vector<std::string> hardware_kinds() const override { return {"gpu", "dsa"}; }
  ScheduleResult schedule(const Graph& g, const HardwareSpec& hw,
                          const SchedulerOptionValues&) const override {
    ScheduleResult r;
    r.plan = sequential_plan(g, hw);
    return r;
  }
};

}  // namespace

std::unique_ptr<Scheduler> make_sequential_scheduler() {
  return std::make_unique<SequentialScheduler>();
}

}  // namespace dgs
