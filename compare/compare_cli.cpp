#include "compare/compare_cli.h"

#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

#include "cli/cli.h"
#include "cli/run_state.h"
#include "cli/sweep_run.h"
#include "common/cuda/device.h"
#include "common/evaluate/evaluate.h"
#include "common/graph/op_cost.h"
#include "common/util/build_info.h"
#include "common/util/resources.h"
#include "compare/comparison.h"
#include "compare/external_scheduler.h"
#include "compare/measured_rows.h"
#include "compare/scheduler_registry.h"
#include "models/zoo.h"

namespace dgs {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr const char* kScope = "compare";  // the folder under --out

struct CompareArgs {
  std::vector<std::string> models = {"resnet50", "bert_base"};
  std::vector<std::string> hws = {"a100", "stcp920", "atomic_mesh"};
  std::vector<std::string> schedulers;  // empty: every registered one
  std::vector<std::string> scheduler_args, scheduler_options, plans, merge;
  int64_t batch = 1;
  double timeout_s = 60;
  double reference_limit_gflop = 1.0;
  double subset_gflop = 0.2;
  std::string seed_text = "1", out_dir = "reports", mode = "model", shard, shard_costs;
  bool skip_existing = false, quiet = false, list = false, write_plans = false;
};

// A work item's key: "<model>@<hw>@<scheduler>" (the model as given: a zoo name or a path).
std::string item_key(const std::string& model, const std::string& hw, const std::string& s) {
  return model + "@" + hw + "@" + s;
}

// "NAME.KEY=VALUE" -> options[NAME][KEY] = VALUE.
std::map<std::string, std::map<std::string, std::string>> parse_scheduler_options(
    const std::vector<std::string>& specs) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const std::string& s : specs) {
    const size_t eq = s.find('='), dot = s.substr(0, eq).rfind('.');
    if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == eq)
      throw UsageError("--scheduler-option '" + s + "': expected SCHEDULER.OPTION=VALUE");
    out[s.substr(0, dot)][s.substr(dot + 1, eq - dot - 1)] = s.substr(eq + 1);
  }
  return out;
}

void print_list(const SchedulerList& list, std::ostream& out) {
  out << "Registered schedulers (name, paper, hardware kinds: description):\n";
  for (const auto& s : list) {
    std::string kinds;
    for (const std::string& k : s->hardware_kinds()) kinds += (kinds.empty() ? "" : ",") + k;
    out << "  " << s->name() << " (" << s->paper() << "; " << kinds << "): " << s->description()
        << "\n";
    for (const SchedulerOption& o : s->options())
      out << "      option " << o.name << " (" << scheduler_option_type_name(o.type) << ", default "
          << o.default_value << "): " << o.help << "\n";
  }
  out << "Your own: --scheduler cmd:PATH (protocol: compare/external_scheduler.h) or --plan "
         "NAME=FILE.\n";
}

// The terminal view of the table (the CSV has every column).
Table terminal_table(const Table& full) {
  const std::vector<std::string> keep = {
      "model", "hw",        "scheduler",       "status",  "latency_ms", "speedup_vs_sequential",
      "rank",  "energy_uj", "main_memory_mib", "search_s"};
  Table t(keep);
  for (const auto& row : full.rows()) {
    std::vector<Cell> r;
    for (const std::string& c : keep) {
      Cell v = row[static_cast<size_t>(full.column(c))];
      if (c == "status") {
        if (const auto* s = std::get_if<std::string>(&v); s && s->size() > 48)
          v = s->substr(0, 45) + "...";
      }
      r.push_back(std::move(v));
    }
    t.add_row(std::move(r));
  }
  return t;
}

// Writes the table, the figures and the summary from every row (single run and merge alike).
void write_outputs(const std::vector<ComparisonRow>& rows, const std::string& folder,
                   std::ostream& out) {
  const Table t = comparison_table(rows);
  write_csv((fs::path(folder) / "compare.csv").string(), t);
  for (const auto& [hw, svg] : comparison_figures(rows))
    write_svg((fs::path(folder) / ("compare_" + safe_file_stem(hw) + ".svg")).string(), svg);
  const std::string summary = comparison_summary(rows);
  write_file_atomic((fs::path(folder) / "compare_summary.txt").string(), summary);
  print_table(out, "Schedulers side by side (every column: " + folder + "/compare.csv)",
              terminal_table(t));
  out << summary;
  out << "wrote " << folder << "/compare.csv, compare_<hw>.svg, compare_summary.txt\n";
}

int merge(const CompareArgs& a, std::ostream& out) {
  const std::vector<ShardRecord> shards = collect_shards(a.merge, kScope);
  std::vector<ComparisonRow> rows;
  struct Copy {
    fs::path from, to;
    std::string content;
  };
  std::vector<Copy> copies;
  const fs::path target = fs::path(a.out_dir) / kScope;
  for (const SweepItem& w : sweep_items(shards, kScope)) {
    try {
      rows.push_back(row_from_json(w.marker.data, w.folder + ": " + w.marker.item));
    } catch (const Error& e) {
      throw UsageError(std::string("--merge: ") + e.what());
    }
    for (const FileDigest& f : w.marker.files) {
      const fs::path from = fs::path(w.folder) / f.name;
      copies.push_back({from, target / f.name, read_file(from.string())});
    }
  }
  for (const Copy& c : copies) {
    std::error_code ec;
    if (fs::exists(c.to, ec) && fs::equivalent(c.from, c.to, ec)) continue;
    write_file_atomic(c.to.string(), c.content);
  }
  out << "merged " << shards.size() << " shard" << (shards.size() == 1 ? "" : "s") << " ("
      << rows.size() << " rows) into " << target.string() << "/\n";
  write_outputs(rows, target.string(), out);
  for (const ComparisonRow& r : rows)
    if (r.status.rfind("failed", 0) == 0) return 1;
  return 0;
}

// The schedulers of the comparison: the registry's, or the baseline and the named ones, your
// programs (cmd:PATH) and plan files (held in `external`).
std::vector<const Scheduler*> choose_schedulers(const CompareArgs& a, const SchedulerList& registry,
                                                SchedulerList& external) {
  std::vector<const Scheduler*> chosen;
  auto choose = [&](const Scheduler* s) {
    for (const Scheduler* c : chosen)
      if (c->name() == s->name()) throw UsageError("--scheduler " + s->name() + " is given twice");
    chosen.push_back(s);
  };
  if (a.schedulers.empty() && a.plans.empty()) {
    for (const auto& s : registry) chosen.push_back(s.get());
  } else {
    chosen.push_back(find_scheduler(registry, kComparisonBaseline));  // every speedup's base
    for (const std::string& name : a.schedulers) {
      if (name == kComparisonBaseline) continue;
      if (name.rfind("cmd:", 0) == 0) {
        external.push_back(
            make_external_scheduler(name.substr(4), a.scheduler_args, a.timeout_s,
                                    (fs::path(a.out_dir) / ".compare_work").string()));
        choose(external.back().get());
      } else if (const Scheduler* s = find_scheduler(registry, name)) {
        choose(s);
      } else {
        throw UsageError("--scheduler '" + name + "': unknown scheduler (registered: " +
                         scheduler_names(registry) + "; or cmd:PATH; see --list)");
      }
    }
    for (const std::string& spec : a.plans) {
      external.push_back(make_plan_file_scheduler(spec));
      if (find_scheduler(registry, external.back()->name()) != nullptr)
        throw UsageError("--plan " + spec + ": '" + external.back()->name() +
                         "' is the name of a registered scheduler");
      choose(external.back().get());
    }
  }
  if (!a.scheduler_args.empty() && external.empty())
    throw UsageError("--scheduler-arg is for --scheduler cmd:PATH, and none is given");
  return chosen;
}

// --scheduler-option NAME.KEY=VALUE: by scheduler name, each checked against its options.
std::map<std::string, std::map<std::string, std::string>> checked_scheduler_options(
    const CompareArgs& a, const std::vector<const Scheduler*>& chosen) {
  auto options = parse_scheduler_options(a.scheduler_options);
  for (const auto& [name, given] : options) {
    const Scheduler* s = nullptr;
    for (const Scheduler* c : chosen)
      if (c->name() == name) s = c;
    if (s == nullptr)
      throw UsageError("--scheduler-option " + name + ".*: no scheduler '" + name +
                       "' in this comparison");
    try {
      SchedulerOptionValues(s->name(), s->options(), given);
    } catch (const Error& e) {
      throw UsageError(std::string("--scheduler-option ") + e.what());
    }
  }
  return options;
}

// --seed is the default of every chosen scheduler's "seed" option (a randomised search takes
// --seed: the same seed, the same CSV); an explicit --scheduler-option NAME.seed=N wins. Returns
// the line that says which seed each scheduler gets.
std::string default_seeds(const std::vector<const Scheduler*>& chosen, uint64_t seed,
                          std::map<std::string, std::map<std::string, std::string>>* options) {
  std::string line = "seed " + std::to_string(seed) + ": the reference check's inputs";
  for (const Scheduler* s : chosen)
    for (const SchedulerOption& o : s->options()) {
      if (o.name != "seed") continue;
      // A scheduler's option is a signed 64-bit integer: a larger --seed is refused here, in the
      // flag's name, rather than as an option the user never gave on every row.
      if (!(*options)[s->name()].count("seed") &&
          seed > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw UsageError("--seed: " + std::to_string(seed) + " is above " +
                         std::to_string(std::numeric_limits<int64_t>::max()) + ", the largest " +
                         s->name() + ".seed takes");
      const auto [it, defaulted] = (*options)[s->name()].emplace("seed", std::to_string(seed));
      line += ", " + s->name() + ".seed=" + it->second + (defaulted ? "" : " (--scheduler-option)");
    }
  return line;
}

// What makes a run's state reusable by another (--skip-existing, --shard).
RunKey compare_run_key(const CompareArgs& a, const SweepOptions& sweep,
                       const std::vector<const Scheduler*>& chosen, uint64_t seed) {
  RunKey key;
  if (SweepRun::keeps_state(sweep)) {
    std::string list;
    for (const Scheduler* s : chosen) list += (list.empty() ? "" : ",") + s->name();
    const BuildInfo& b = build_info();
    key = {{"tool", "repro_compare"},
           {"batch", std::to_string(a.batch)},
           {"schedulers", list},
           {"scheduler_args", std::to_string(a.scheduler_args.size())},
           {"options", std::to_string(a.scheduler_options.size())},
           {"seed", std::to_string(seed)},
           {"reference_limit_gflop", std::to_string(a.reference_limit_gflop)},
           {"reference_subset_gflop", std::to_string(a.subset_gflop)},
           {"write_plans", a.write_plans ? "yes" : "no"},
           {"mode", a.mode},
           {"commit", b.commit},
           {"build_type", b.build_type},
           {"compiler", b.compiler}};
    for (const std::string& o : a.scheduler_options) key.emplace_back("option", o);
  }
  return key;
}

int run(const CompareArgs& a, std::ostream& out, std::ostream& err) {
  const uint64_t seed = parse_seed(a.seed_text);
  if (a.mode != "model" && a.mode != "measured")
    throw UsageError("--mode '" + a.mode + "': expected model or measured");
  if (a.batch < 1) throw UsageError("--batch " + std::to_string(a.batch) + ": must be >= 1");
  if (!(a.timeout_s > 0)) throw UsageError("--scheduler-timeout: must be > 0 seconds");
  if (!(a.reference_limit_gflop >= 0)) throw UsageError("--reference-limit-gflop: must be >= 0");
  if (!(a.subset_gflop >= 0)) throw UsageError("--reference-subset-gflop: must be >= 0");
  SweepOptions sweep;
  if (!a.shard.empty()) sweep.shard = parse_shard_spec(a.shard);
  sweep.shard_costs = a.shard_costs;
  sweep.skip_existing = a.skip_existing;
  if (!sweep.shard_costs.empty() && !sweep.shard)
    throw UsageError("--shard-costs needs --shard I/N");

  // Schedulers: the registry's, the named ones, your programs and plan files.
  SchedulerList registry = all_schedulers();
  if (a.list) {
    print_list(registry, out);
    return 0;
  }
  const std::string folder = (fs::path(a.out_dir) / kScope).string();
  SchedulerList external;
  const std::vector<const Scheduler*> chosen = choose_schedulers(a, registry, external);
  auto options = checked_scheduler_options(a, chosen);
  const std::string seeds = default_seeds(chosen, seed, &options);

  // Models and machines, every one loaded before anything runs.
  std::vector<Graph> graphs;
  for (const std::string& m : a.models) {
    ZooOptions zo;
    zo.batch = a.batch;
    try {
      graphs.push_back(load_model(m, zo));
    } catch (const Error& e) {
      throw UsageError("--model " + m + ": " + e.what());
    }
  }
  // The stated subset each model over --reference-limit-gflop is checked on (zoo models only).
  std::vector<std::optional<Graph>> subsets(graphs.size());
  std::vector<std::string> subset_labels(graphs.size());
  for (size_t m = 0; m < graphs.size(); ++m)
    if (static_cast<double>(graph_cost(graphs[m]).total.flops) > a.reference_limit_gflop * 1e9)
      subsets[m] = reduced_reference_model(a.models[m], a.subset_gflop, &subset_labels[m]);
  std::vector<HardwareSpec> machines;
  for (const std::string& h : a.hws) {
    try {
      machines.push_back(load_hardware(h));
      require_evaluator(machines.back());
    } catch (const Error& e) {
      throw UsageError("--hw " + h + ": " + e.what());
    }
  }
  std::unique_ptr<MeasuredRows> measured;  // --mode measured: the live GPU runs the GPU plans
  if (a.mode == "measured") {
    std::string why;
    LiveGpuProperties device;
    if (!cuda_gpu_available(&why) || !cuda_device_properties(&device, &why)) {
      err << "error: measured mode needs an NVIDIA GPU: " << why << "\n";
      return 4;
    }
    measured = std::make_unique<MeasuredRows>(device.name);
  }

  // The work list and this run's share.
  std::vector<std::string> work;
  struct Item {
    size_t model, hw;
    const Scheduler* s;
  };
  std::vector<Item> items;
  for (size_t m = 0; m < graphs.size(); ++m)
    for (size_t h = 0; h < machines.size(); ++h)
      for (const Scheduler* s : chosen) {
        work.push_back(item_key(a.models[m], a.hws[h], s->name()));
        items.push_back({m, h, s});
      }
  const RunKey key = compare_run_key(a, sweep, chosen, seed);
  const SweepRun run(kScope, a.out_dir, key, sweep, work);
  if (run.sharded()) out << run.header_line() << "\n";
  out << "repro_compare: " << graphs.size() << " model(s) x " << machines.size() << " machine(s) x "
      << chosen.size() << " scheduler(s) = " << work.size() << " rows; baseline "
      << kComparisonBaseline << "\n"
      << seeds << "\n";

  std::vector<ComparisonRow> rows;
  std::map<std::string, std::string> status;
  const auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < items.size(); ++k) {
    if (!run.runs(k)) continue;
    const Item& it = items[k];
    std::string why;
    if (const std::optional<nlohmann::json> done = run.completed(work[k], &why)) {
      rows.push_back(row_from_json(*done, work[k]));
      status[work[k]] = "complete";
      continue;
    }
    ComparisonSettings settings;
    if (subsets[it.model]) {
      settings.subset = &*subsets[it.model];
      settings.subset_label = subset_labels[it.model];
    }
    settings.seed = seed;
    settings.reference_limit_gflop = a.reference_limit_gflop;
    if (const auto o = options.find(it.s->name()); o != options.end()) settings.options = o->second;
    ComparisonFiles files;
    ComparisonRow r = compare_one(
        *it.s, a.models[it.model], a.batch, graphs[it.model], a.hws[it.hw], machines[it.hw],
        settings, a.write_plans ? &files : nullptr,
        measured ? AfterPricing([&](const Graph& sg, const ScheduleResult& sr, ComparisonRow* row) {
          measured->measure(sg, machines[it.hw], sr, row);
        })
                 : AfterPricing());
    std::vector<std::string> written;
    if (!files.plan_json.empty()) {
      r.plan_file = "plans/" + safe_file_stem(work[k]) + ".json";
      written.push_back((fs::path(folder) / r.plan_file).string());
      write_file_atomic(written.back(), files.plan_json);
    }
    if (!files.graph_onnx.empty()) {  // the plan schedules the scheduler's rewrite of the graph
      written.push_back(
          (fs::path(folder) / "plans" / (safe_file_stem(work[k]) + ".onnx")).string());
      write_file_atomic(written.back(), files.graph_onnx);
    }
    if (!a.quiet) {
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      err << "[compare " << static_cast<int>(t * 10) / 10.0 << " s] " << work[k] << ": " << r.status
          << "\n"
          << std::flush;
    }
    if (r.status.rfind("failed", 0) == 0)
      err << "error: " << work[k] << ": " << r.status.substr(8) << "\n";
    run.item_done(work[k], row_to_json(r), written);
    status[work[k]] = r.status == "ok" ? "ran" : r.status;
    rows.push_back(std::move(r));
  }
  if (run.sharded()) {
    out << "shard record " << run.finish_shard(status, nlohmann::json::object())
        << " (merge the shards with --merge DIR...)\n";
  } else {
    write_outputs(rows, folder, out);
  }
  for (const ComparisonRow& r : rows)
    if (r.status.rfind("failed", 0) == 0) return 1;
  return 0;
}

}  // namespace

int run_compare(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CompareArgs a;
  po::options_description desc("repro_compare options");
  desc.add_options()("help", "show this help")("list", po::bool_switch(&a.list),
                                               "list the registered schedulers and their options")(
      "model", po::value<std::vector<std::string>>(),
      "zoo name or ONNX file (repeatable; default resnet50 and bert_base)")(
      "batch", po::value(&a.batch), "batch of zoo models and symbolic ONNX batches (default 1)")(
      "hw", po::value<std::vector<std::string>>(),
      "hardware config, built-in name or JSON file (repeatable; default a100, stcp920, "
      "atomic_mesh)")("scheduler", po::value<std::vector<std::string>>(&a.schedulers),
                      "registered name or cmd:PATH (repeatable; default every registered one)")(
      "scheduler-arg", po::value<std::vector<std::string>>(&a.scheduler_args),
      "argument passed to every cmd:PATH program (repeatable)")(
      "scheduler-option", po::value<std::vector<std::string>>(&a.scheduler_options),
      "SCHEDULER.OPTION=VALUE (repeatable; --list shows the options)")(
      "scheduler-timeout", po::value(&a.timeout_s),
      "time limit of a cmd:PATH program per model and machine, seconds (default 60)")(
      "plan", po::value<std::vector<std::string>>(&a.plans),
      "NAME=FILE: a plan file compared as scheduler NAME (repeatable)")(
      "reference-limit-gflop", po::value(&a.reference_limit_gflop),
      "run each plan on the CPU reference when the model has at most this many GFLOP (default "
      "1)")(
      "reference-subset-gflop", po::value(&a.subset_gflop),
      "a zoo model over --reference-limit-gflop is checked on itself at the largest smaller input "
      "with at most this many GFLOP, scheduled again (default 0.2)")(
      "seed", po::value(&a.seed_text),
      "seed of the reference check's inputs and the default of every scheduler's seed option "
      "(--scheduler-option NAME.seed=N wins; default 1)")(
      "out", po::value(&a.out_dir), "output folder (default reports; files go to <out>/compare/)")(
      "mode", po::value(&a.mode), "model (default) or measured")("quiet", po::bool_switch(&a.quiet),
                                                                 "no progress lines")(
      "write-plans", po::bool_switch(&a.write_plans),
      "write every plan to <out>/compare/plans/ (resnet50 and bert_base: about 60 MB)")(
      "shard", po::value(&a.shard), "I/N: run shard I of N of the work items")(
      "shard-costs", po::value(&a.shard_costs), "CSV of item costs to balance the shards")(
      "skip-existing", po::bool_switch(&a.skip_existing),
      "skip the rows already complete in --out for the same run")(
      "merge", po::value<std::vector<std::string>>(&a.merge)->multitoken(),
      "DIR...: join the shards found in these output folders into --out");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
    if (vm.count("model")) a.models = vm["model"].as<std::vector<std::string>>();
    if (vm.count("hw")) a.hws = vm["hw"].as<std::vector<std::string>>();
  } catch (const po::error& e) {
    err << "error: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (vm.count("help")) {
    out << "repro_compare: every scheduler of the five papers, the baselines and your own, on the "
           "same models and machines\n"
        << desc << "\n";
    return 0;
  }
  try {
    if (!a.merge.empty()) return merge(a, out);
    return run(a, out, err);
  } catch (const UsageError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const Error& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace dgs
