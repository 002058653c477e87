#include "compare/comparison.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "common/evaluate/evaluate.h"
#include "common/exec/plan_exec.h"
#include "common/graph/op_cost.h"
#include "common/onnx/onnx_io.h"
#include "models/zoo.h"

namespace dgs {

namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// JSON has no NaN: null stands for it.
json number(double x) {
  return std::isnan(x) ? json(nullptr) : json(x);
}
double number_from(const json& j) {
  return j.is_null() ? kNaN : j.get<double>();
}

std::string gflop_text(double flops) {
  std::ostringstream s;
  s.precision(3);
  s << flops / 1e9;
  return s.str();
}

// The machine's main memory level: a GPU's "dram", an accelerator's outermost level.
std::string main_memory_level(const HardwareSpec& hw) {
  if (hw.has_memory_level("dram") || hw.memory_levels.empty()) return "dram";
  return hw.memory_levels.back();
}

void fill_from_evaluation(const EvaluationResult& ev, const HardwareSpec& hw, ComparisonRow* r) {
  r->latency_us = ev.latency_us;
  r->stages = ev.stages;
  r->tasks = ev.tasks;
  r->kernels = ev.kernels;
  r->energy_pj = kNaN;
  if (!ev.energy_pj_by_component.empty()) {
    r->energy_pj = 0;
    for (const NamedValue& v : ev.energy_pj_by_component) r->energy_pj += v.value;
  }
  const std::string main = main_memory_level(hw);
  r->main_memory_bytes = value_of(ev.bytes_by_level, main, kNaN);
  r->on_chip_bytes = 0;
  for (const NamedValue& v : ev.bytes_by_level)
    if (v.name != main && v.name != "host") r->on_chip_bytes += v.value;
  r->peak_buffer_bytes = kNaN;
  for (const NamedValue& v : ev.details) {
    const std::string& n = v.name;
    if (n.rfind("peak_", 0) == 0 && n.size() > 6 && n.substr(n.size() - 6) == "_bytes") {
      r->peak_buffer_bytes = v.value;
      break;
    }
  }
}

void clear_results(ComparisonRow* r) {
  r->latency_us = r->energy_pj = r->main_memory_bytes = r->on_chip_bytes = r->peak_buffer_bytes =
      kNaN;
  r->evaluate_s = kNaN;
  r->measured_ms = kNaN;
}

}  // namespace

json row_to_json(const ComparisonRow& r) {
  return {{"model", r.model},
          {"batch", r.batch},
          {"hw", r.hw},
          {"hw_kind", r.hw_kind},
          {"scheduler", r.scheduler},
          {"paper", r.paper},
          {"status", r.status},
          {"latency_us", number(r.latency_us)},
          {"energy_pj", number(r.energy_pj)},
          {"main_memory_bytes", number(r.main_memory_bytes)},
          {"on_chip_bytes", number(r.on_chip_bytes)},
          {"peak_buffer_bytes", number(r.peak_buffer_bytes)},
          {"stages", r.stages},
          {"tasks", r.tasks},
          {"kernels", r.kernels},
          {"search_s", number(r.search.seconds)},
          {"states", r.search.states},
          {"candidates", r.search.candidates},
          {"note", r.search.note},
          {"evaluate_s", number(r.evaluate_s)},
          {"run_plan", r.run_plan},
          {"measured_ms", number(r.measured_ms)},
          {"measured", r.measured},
          {"plan_file", r.plan_file}};
}

ComparisonRow row_from_json(const json& j, const std::string& origin) {
  ComparisonRow r;
  try {
    r.model = j.at("model").get<std::string>();
    r.batch = j.at("batch").get<int64_t>();
    r.hw = j.at("hw").get<std::string>();
    r.hw_kind = j.at("hw_kind").get<std::string>();
    r.scheduler = j.at("scheduler").get<std::string>();
    r.paper = j.at("paper").get<std::string>();
    r.status = j.at("status").get<std::string>();
    r.latency_us = number_from(j.at("latency_us"));
    r.energy_pj = number_from(j.at("energy_pj"));
    r.main_memory_bytes = number_from(j.at("main_memory_bytes"));
    r.on_chip_bytes = number_from(j.at("on_chip_bytes"));
    r.peak_buffer_bytes = number_from(j.at("peak_buffer_bytes"));
    r.stages = j.at("stages").get<int64_t>();
    r.tasks = j.at("tasks").get<int64_t>();
    r.kernels = j.at("kernels").get<int64_t>();
    r.search.seconds = number_from(j.at("search_s"));
    r.search.states = j.at("states").get<int64_t>();
    r.search.candidates = j.at("candidates").get<int64_t>();
    r.search.note = j.at("note").get<std::string>();
    r.evaluate_s = number_from(j.at("evaluate_s"));
    r.run_plan = j.at("run_plan").get<std::string>();
    r.measured_ms = number_from(j.at("measured_ms"));
    r.measured = j.at("measured").get<std::string>();
    r.plan_file = j.at("plan_file").get<std::string>();
  } catch (const json::exception& e) {
    throw Error(origin + ": not a comparison row: " + e.what());
  }
  return r;
}

std::string safe_file_stem(const std::string& text) {
  std::string out;
  for (const char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
            c == '@')
               ? c
               : '_';
  return out;
}

namespace {

// Runs `plan` of `g` on the CPU reference and records the outcome in `r` ("passed<where> (N
// outputs equal)", or a failure that also sets the row's status).
void check_on_reference(const Graph& g, const Plan& plan, uint64_t seed, const std::string& where,
                        ComparisonRow* r) {
  try {
    const PlanComparison c = compare_plan_with_reference(g, plan, seed);
    r->run_plan = c.passed ? "passed" + where + " (" + std::to_string(c.outputs) + " outputs equal)"
                           : "FAILED" + where + ": " + c.failures.front();
    if (!c.passed) r->status = "failed: run_plan differs from the reference";
  } catch (const std::exception& e) {
    r->run_plan = "FAILED" + where + ": " + e.what();
    r->status = "failed: run_plan could not run the plan";
  }
}

}  // namespace

std::optional<Graph> reduced_reference_model(const std::string& model, double limit_gflop,
                                             std::string* label) {
  if (!is_zoo_model(model)) return std::nullopt;
  const std::vector<std::pair<int64_t, int64_t>> ladder = {{112, 64}, {64, 32}, {32, 16}, {16, 8}};
  for (const auto& [image, seq] : ladder) {
    ZooOptions o;
    o.image_size = image;
    o.seq_len = seq;
    Graph g;
    try {
      g = build_zoo_model(model, o);
    } catch (const Error&) {
      continue;  // too small an input for this model
    }
    if (static_cast<double>(graph_cost(g).total.flops) > limit_gflop * 1e9) continue;
    // Which of the two sizes the model took: its first input's shape says.
    const Shape& in = g.tensor(g.input_tensors().front()).shape;
    const bool image_model = in.size() == 4 && in[2] == image && in[3] == image;
    *label = model +
             (image_model ? " at " + std::to_string(image) + "x" + std::to_string(image)
                          : " at sequence " + std::to_string(seq)) +
             ", batch 1";
    return g;
  }
  return std::nullopt;
}

ComparisonRow compare_one(const Scheduler& s, const std::string& model, int64_t batch,
                          const Graph& g, const std::string& hw_arg, const HardwareSpec& hw,
                          const ComparisonSettings& settings, ComparisonFiles* files,
                          const AfterPricing& after_pricing) {
  ComparisonRow r;
  r.model = model;
  r.batch = batch;
  r.hw = hw_arg;
  r.hw_kind = hw.kind;
  r.scheduler = s.name();
  r.paper = s.paper();
  clear_results(&r);
  r.search.seconds = kNaN;
  ScheduleResult sr;
  try {
    sr = run_scheduler(s, g, hw, settings.options);
  } catch (const SchedulerNotApplicable& e) {
    r.status = std::string("not applicable: ") + e.what();
    return r;
  } catch (const std::exception& e) {  // dgs::Error, or what a scheduler's library threw
    r.status = std::string("failed: ") + e.what();
    return r;
  }
  r.search = sr.search;
  // The graph the plan schedules: the input, or the scheduler's rewrite of it (added ops).
  const Graph& sg = scheduled_graph(sr, g);
  if (files != nullptr) {
    files->plan_json = plan_to_json(sr.plan, sg);
    if (sr.graph) files->graph_onnx = graph_to_onnx_bytes(sg);
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    const EvaluationResult ev = evaluate(sg, sr.plan, hw, sr.evaluation);
    r.evaluate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fill_from_evaluation(ev, hw, &r);
  } catch (const std::exception& e) {
    r.status = std::string("failed: not priced: ") + e.what();
    r.run_plan = "not run";
    return r;
  }
  r.status = "ok";
  if (after_pricing) after_pricing(sg, sr, &r);
  const double flops = static_cast<double>(graph_cost(sg).total.flops);
  if (flops <= settings.reference_limit_gflop * 1e9) {
    check_on_reference(sg, sr.plan, settings.seed, "", &r);
  } else if (settings.subset == nullptr) {
    r.run_plan = "not run: " + gflop_text(flops) + " GFLOP > limit " +
                 gflop_text(settings.reference_limit_gflop * 1e9) +
                 " GFLOP, and no smaller input of the model under --reference-subset-gflop";
  } else {
    // The stated subset: the same scheduler on the smaller model, its plan on the reference.
    try {
      const ScheduleResult small = run_scheduler(s, *settings.subset, hw, settings.options);
      check_on_reference(scheduled_graph(small, *settings.subset), small.plan, settings.seed,
                         " on " + settings.subset_label, &r);
    } catch (const SchedulerNotApplicable& e) {
      r.run_plan = "not run: not applicable to " + settings.subset_label + ": " + e.what();
    } catch (const std::exception& e) {
      r.run_plan = "FAILED on " + settings.subset_label + ": " + e.what();
      r.status = "failed: the reference check's schedule of " + settings.subset_label + " failed";
    }
  }
  return r;
}

namespace {

bool priced(const ComparisonRow& r) {
  return r.status == "ok" && !std::isnan(r.latency_us);
}

const ComparisonRow* baseline_of(const std::vector<ComparisonRow>& rows, const ComparisonRow& r) {
  for (const ComparisonRow& b : rows)
    if (b.model == r.model && b.batch == r.batch && b.hw == r.hw &&
        b.scheduler == kComparisonBaseline && priced(b))
      return &b;
  return nullptr;
}

double speedup_of(const std::vector<ComparisonRow>& rows, const ComparisonRow& r) {
  const ComparisonRow* b = baseline_of(rows, r);
  if (b == nullptr || !priced(r)) return kNaN;
  return b->latency_us / r.latency_us;
}

int64_t rank_of(const std::vector<ComparisonRow>& rows, const ComparisonRow& r) {
  if (!priced(r)) return 0;
  int64_t faster = 0;
  for (const ComparisonRow& o : rows)
    if (o.model == r.model && o.batch == r.batch && o.hw == r.hw && priced(o) &&
        o.latency_us < r.latency_us)
      ++faster;
  return faster + 1;
}

Cell cell(double x) {
  return std::isnan(x) ? Cell(Missing{}) : Cell(x);
}
Cell count_cell(int64_t x) {
  return x == 0 ? Cell(Missing{}) : Cell(x);
}

// The (model, batch, hw) pairs in first-seen order.
std::vector<const ComparisonRow*> pairs_of(const std::vector<ComparisonRow>& rows) {
  std::vector<const ComparisonRow*> pairs;
  for (const ComparisonRow& r : rows) {
    bool seen = false;
    for (const ComparisonRow* p : pairs)
      seen = seen || (p->model == r.model && p->batch == r.batch && p->hw == r.hw);
    if (!seen) pairs.push_back(&r);
  }
  return pairs;
}

}  // namespace

Table comparison_table(const std::vector<ComparisonRow>& rows) {
  std::vector<std::string> columns({"model",
                                    "batch",
                                    "hw",
                                    "hw_kind",
                                    "scheduler",
                                    "paper",
                                    "status",
                                    "latency_ms",
                                    "throughput_per_s",
                                    "energy_uj",
                                    "main_memory_mib",
                                    "on_chip_mib",
                                    "peak_buffer_kib",
                                    "stages",
                                    "tasks",
                                    "kernels",
                                    "search_s",
                                    "search_states",
                                    "search_candidates",
                                    "plan_check",
                                    "run_plan",
                                    "speedup_vs_sequential",
                                    "rank",
                                    "plan_file",
                                    "note"});
  // Measured mode: the live GPU's time beside the model's, and the model's relative error.
  bool measured = false;
  for (const ComparisonRow& r : rows) measured = measured || !r.measured.empty();
  if (measured) {
    for (const char* c : {"measured_ms", "measured", "model_error"}) columns.push_back(c);
  }
  Table t(columns);
  constexpr double kMiB = 1024.0 * 1024.0;
  for (const ComparisonRow& r : rows) {
    const bool ok = priced(r);
    const bool planned = r.status == "ok" || r.status.rfind("failed: not priced", 0) == 0 ||
                         r.status.rfind("failed: run_plan", 0) == 0;
    std::vector<Cell> row = {
        r.model,
        r.batch,
        r.hw,
        r.hw_kind,
        r.scheduler,
        r.paper,
        r.status,
        cell(r.latency_us / 1000),
        ok ? Cell(static_cast<double>(r.batch) / (r.latency_us * 1e-6)) : Cell(Missing{}),
        cell(r.energy_pj / 1e6),
        cell(r.main_memory_bytes / kMiB),
        cell(r.on_chip_bytes / kMiB),
        cell(r.peak_buffer_bytes / 1024),
        ok ? Cell(r.stages) : Cell(Missing{}),
        ok ? Cell(r.tasks) : Cell(Missing{}),
        ok ? Cell(r.kernels) : Cell(Missing{}),
        cell(r.search.seconds),
        count_cell(r.search.states),
        count_cell(r.search.candidates),
        planned ? Cell(std::string("ok")) : Cell(Missing{}),
        r.run_plan.empty() ? Cell(Missing{}) : Cell(r.run_plan),
        cell(speedup_of(rows, r)),
        ok ? Cell(rank_of(rows, r)) : Cell(Missing{}),
        r.plan_file.empty() ? Cell(Missing{}) : Cell(r.plan_file),
        r.search.note.empty() ? Cell(Missing{}) : Cell(r.search.note)};
    if (measured) {
      row.push_back(cell(r.measured_ms));
      row.push_back(r.measured.empty() ? Cell(Missing{}) : Cell(r.measured));
      row.push_back(cell(r.latency_us / 1000 / r.measured_ms - 1));
    }
    t.add_row(std::move(row));
  }
  return t;
}

std::vector<std::pair<std::string, std::string>> comparison_figures(
    const std::vector<ComparisonRow>& rows) {
  std::vector<std::pair<std::string, std::string>> figures;
  std::vector<std::string> machines;
  for (const ComparisonRow& r : rows)
    if (std::find(machines.begin(), machines.end(), r.hw) == machines.end())
      machines.push_back(r.hw);
  for (const std::string& hw : machines) {
    BarChart c;
    c.y_label = "speedup over " + std::string(kComparisonBaseline);
    c.reference_y = 1.0;
    std::vector<std::string> schedulers;
    for (const ComparisonRow& r : rows) {
      if (r.hw != hw) continue;
      const std::string category = r.model + (r.batch == 1 ? "" : " b" + std::to_string(r.batch));
      if (std::find(c.categories.begin(), c.categories.end(), category) == c.categories.end())
        c.categories.push_back(category);
      if (std::find(schedulers.begin(), schedulers.end(), r.scheduler) == schedulers.end())
        schedulers.push_back(r.scheduler);
    }
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const std::string& s : schedulers) {
      Series series{s, std::vector<double>(c.categories.size(), kNaN)};
      bool any = false;
      for (const ComparisonRow& r : rows) {
        if (r.hw != hw || r.scheduler != s) continue;
        const std::string category = r.model + (r.batch == 1 ? "" : " b" + std::to_string(r.batch));
        const size_t k = static_cast<size_t>(
            std::find(c.categories.begin(), c.categories.end(), category) - c.categories.begin());
        const double x = speedup_of(rows, r);
        series.values[k] = x;
        if (!std::isnan(x) && x > 0) {
          any = true;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
      }
      if (any) c.series.push_back(std::move(series));  // schedulers with no bar: no legend entry
    }
    c.log_y = hi > 0 && hi / lo > 10;
    c.title = "Schedulers on " + hw + ": speedup over " + kComparisonBaseline +
              (c.log_y ? " (log scale)" : "");
    figures.emplace_back(hw, bar_chart_svg(c, 880, 440));
  }
  return figures;
}

std::string comparison_summary(const std::vector<ComparisonRow>& rows) {
  std::ostringstream out;
  out.precision(3);
  std::map<std::string, int> won, applicable, failed;
  std::vector<std::string> order;
  for (const ComparisonRow& r : rows) {
    if (std::find(order.begin(), order.end(), r.scheduler) == order.end())
      order.push_back(r.scheduler);
    if (priced(r)) ++applicable[r.scheduler];
    if (r.status.rfind("failed", 0) == 0) ++failed[r.scheduler];
  }
  out << "Fastest plan per model and machine (speedup over " << kComparisonBaseline << "):\n";
  for (const ComparisonRow* p : pairs_of(rows)) {
    const ComparisonRow* best = nullptr;
    for (const ComparisonRow& r : rows)
      if (r.model == p->model && r.batch == p->batch && r.hw == p->hw && priced(r) &&
          (best == nullptr || r.latency_us < best->latency_us))
        best = &r;
    out << "  " << p->model << (p->batch == 1 ? "" : " batch " + std::to_string(p->batch)) << " on "
        << p->hw << ": ";
    if (best == nullptr) {
      out << "no scheduler produced a priced plan\n";
      continue;
    }
    ++won[best->scheduler];
    out << best->scheduler << ", " << best->latency_us / 1000 << " ms";
    const double x = speedup_of(rows, *best);
    if (!std::isnan(x)) out << ", " << x << "x";
    out << "\n";
  }
  out << "Per scheduler (pairs won / priced / failed):\n";
  for (const std::string& s : order)
    out << "  " << s << ": " << won[s] << " / " << applicable[s] << " / " << failed[s] << "\n";
  return out.str();
}

}  // namespace dgs
