// The command-line front end shared by the repro_* executables: options, the selection of
// experiments, and the run of the selected ones (ExperimentContext is in experiment_context.cpp).
#include "cli/cli.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/experiment_sweep.h"
#include "cli/run_info.h"
#include "cli/signals_held.h"
#include "cli/sweep_run.h"
#include "common/cuda/device.h"
#include "common/hw/config_reads.h"
#include "common/hw/hardware.h"
#include "common/onnx/onnx_io.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "common/util/text.h"
#include "models/zoo.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// run_cli
// ---------------------------------------------------------------------------------------------

namespace {

namespace po = boost::program_options;

// Exit codes (documented in cli.h).
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNotImplemented = 3;
constexpr int kExitNoGpu = 4;

std::string program_name(const PaperInfo& paper) {
  return "repro_" + paper.key;
}

std::string ids_of_kind(const std::vector<Experiment>& experiments, const std::string& kind) {
  std::string s;
  for (const Experiment& e : experiments) {
    if (e.kind == kind) s += (s.empty() ? "" : ", ") + e.id();
  }
  return s.empty() ? "none" : s;
}

// Resolves "13", "fig13", "Fig13" (for kind "fig") to an experiment index.
int resolve(const std::vector<Experiment>& experiments, const std::string& kind,
            const std::string& arg, const PaperInfo& paper) {
  std::string number = ascii_lower(arg);
  const std::string flag = "--" + kind;
  if (number.rfind(kind, 0) == 0) number = number.substr(kind.size());
  for (size_t i = 0; i < experiments.size(); ++i) {
    if (experiments[i].kind == kind && ascii_lower(experiments[i].number) == number) {
      return static_cast<int>(i);
    }
  }
  const std::string noun = kind == "fig" ? "figures" : "tables";
  throw UsageError(flag + " " + arg + ": no such " + (kind == "fig" ? "figure" : "table") + " in " +
                   program_name(paper) + " (" + noun + ": " + ids_of_kind(experiments, kind) +
                   "; see --list)");
}

void print_list(std::ostream& out, const PaperInfo& paper,
                const std::vector<Experiment>& experiments) {
  out << paper.title << ": " << experiments.size() << " experiments\n";
  size_t id_w = 2;
  for (const Experiment& e : experiments) id_w = std::max(id_w, e.id().size());
  const std::string implemented = "implemented", missing = "not implemented yet";
  for (const Experiment& e : experiments) {
    const std::string status = e.run ? implemented : missing;
    out << "  " << e.id() << std::string(id_w - e.id().size(), ' ') << "  " << status
        << std::string(missing.size() - status.size(), ' ') << "  " << e.caption << '\n';
  }
}

// Refuses (UsageError) an --out that cannot hold the reports, before anything runs: a path
// through a file, or a folder in which no folder can be created. Nothing is left behind: the
// deepest existing ancestor is probed with a temporary folder, removed at once.
void check_out_dir(const std::string& out_dir, const std::string& paper_key) {
  namespace fs = std::filesystem;
  const fs::path target = fs::path(out_dir) / paper_key;
  fs::path p = target;
  std::error_code ec;
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  if (p.empty()) p = ".";
  if (!fs::is_directory(p, ec)) {
    throw UsageError("--out: '" + p.string() + "' is a file, not a folder (cannot write " +
                     target.string() + "/)");
  }
  std::string probe = (p / ".dgs_out_probe_XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr) {
    throw UsageError("--out: cannot write in '" + p.string() + "' (" + std::strerror(errno) +
                     "); expected a writable folder for " + target.string() + "/");
  }
  fs::remove(probe, ec);
}

bool looks_like_path(const std::string& s, const std::string& extension) {
  return s.find('/') != std::string::npos ||
         (s.size() > extension.size() &&
          ascii_lower(s.substr(s.size() - extension.size())) == extension);
}

std::string hw_description(const RunOptions& o) {
  if (!o.hw_from_device.empty()) return o.hw + " (the live GPU's config)";
  return o.hw.empty() ? "each experiment's own (the paper's machine)" : o.hw;
}

struct Parsed {
  bool help = false, list = false, all = false;
  std::vector<std::string> figs, tables;
  RunOptions opts;
  SweepOptions sweep;              // --shard, --shard-costs, --skip-existing
  std::vector<std::string> merge;  // --merge DIR...
};

Parsed parse_args(int argc, const char* const* argv, po::options_description& desc) {
  po::variables_map vm;
  try {
    const int style =
        po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    // Words that are not options are collected under a hidden name and refused below.
    po::options_description all_options;
    all_options.add(desc).add_options()("stray-argument", po::value<std::vector<std::string>>());
    po::positional_options_description positional;
    positional.add("stray-argument", -1);
    po::store(po::command_line_parser(argc, argv)
                  .options(all_options)
                  .positional(positional)
                  .style(style)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (see --help)");
  }
  if (vm.count("stray-argument")) {
    throw UsageError("unexpected argument '" +
                     vm["stray-argument"].as<std::vector<std::string>>().front() +
                     "' (options start with --; see --help)");
  }
  Parsed p;
  p.help = vm.count("help") > 0;
  p.list = vm.count("list") > 0;
  p.all = vm.count("all") > 0;
  p.opts.quiet = vm.count("quiet") > 0;
  p.opts.full_protocol = vm.count("full-protocol") > 0;
  if (vm.count("fig")) p.figs = vm["fig"].as<std::vector<std::string>>();
  if (vm.count("table")) p.tables = vm["table"].as<std::vector<std::string>>();
  if (vm.count("hw")) p.opts.hw = vm["hw"].as<std::string>();
  if (vm.count("model")) p.opts.model = vm["model"].as<std::string>();
  if (vm.count("dim")) {
    for (const std::string& d : vm["dim"].as<std::vector<std::string>>()) {
      const size_t eq = d.find('=');
      int64_t value = 0;
      const char* end = d.data() + d.size();
      const bool number =
          eq != std::string::npos && std::from_chars(d.data() + eq + 1, end, value).ptr == end;
      if (eq == 0 || !number || value < 1) {
        throw UsageError("--dim " + d + ": expected NAME=N with N >= 1");
      }
      p.opts.dims[d.substr(0, eq)] = value;
    }
  }
  const std::string mode = vm["mode"].as<std::string>();
  if (mode == "model") {
    p.opts.mode = RunMode::Model;
  } else if (mode == "measured") {
    p.opts.mode = RunMode::Measured;
  } else {
    throw UsageError("--mode: '" + mode + "' is not a mode (expected model or measured)");
  }
  p.opts.out_dir = vm["out"].as<std::string>();
  if (p.opts.out_dir.empty()) throw UsageError("--out: empty folder name");
  p.opts.seed = parse_seed(vm["seed"].as<std::string>());
  if (vm.count("hw") && p.opts.hw.empty()) throw UsageError("--hw: empty name");
  if (vm.count("model") && p.opts.model.empty()) throw UsageError("--model: empty name");
  if (vm.count("shard")) p.sweep.shard = parse_shard_spec(vm["shard"].as<std::string>());
  if (vm.count("shard-costs")) {
    p.sweep.shard_costs = vm["shard-costs"].as<std::string>();
    if (p.sweep.shard_costs.empty()) throw UsageError("--shard-costs: empty file name");
    if (!p.sweep.shard) throw UsageError("--shard-costs: applies only with --shard I/N");
  }
  p.sweep.skip_existing = vm.count("skip-existing") > 0;
  if (vm.count("merge")) {
    p.merge = vm["merge"].as<std::vector<std::string>>();
    // A merge takes the run's options from the shards' records.
    for (const char* flag : {"list", "all", "fig", "table", "hw", "model", "dim", "mode", "seed",
                             "shard", "shard-costs", "skip-existing"}) {
      if (vm.count(flag) && !vm[flag].defaulted()) {
        throw UsageError(std::string("--merge: --") + flag +
                         " does not apply (a merge takes the shards' --out folders, --out and "
                         "--quiet; the run's options are in the shards' records)");
      }
    }
    for (const std::string& d : p.merge) {
      if (d.empty()) throw UsageError("--merge: empty folder name");
      if (d[0] == '-') {
        throw UsageError("--merge: expected the shards' --out folders, got the option '" + d + "'");
      }
    }
  }
  return p;
}

// Checks --hw and --model before anything runs; notes the batch a --model file fixes.
void validate_inputs(RunOptions& o) {
  if (!o.hw.empty()) {
    try {
      (void)load_hardware(o.hw);
    } catch (const Error& e) {
      throw UsageError(std::string("--hw: ") + e.what());
    }
  }
  if (o.model.empty() || is_zoo_model(o.model)) return;
  // The same rule as load_model: a name ending in .onnx or naming an existing file is a file.
  if (looks_like_path(o.model, ".onnx") || std::filesystem::exists(o.model)) {
    if (!std::filesystem::exists(o.model)) {
      throw UsageError("--model: no file " + o.model + " (give a zoo model name or an .onnx file)");
    }
    try {
      OnnxLoadSummary summary;
      ZooOptions zo;
      zo.dim_values = o.dims;
      zo.onnx_summary = &summary;
      (void)load_model(o.model, zo);
      o.model_file_batch = summary.file_batch;
    } catch (const Error& e) {
      throw UsageError(std::string("--model: ") + e.what());
    }
    return;
  }
  std::string names;
  for (const std::string& n : zoo_model_names()) names += (names.empty() ? "" : ", ") + n;
  throw UsageError("--model: '" + o.model +
                   "' is neither a zoo model nor an .onnx file (zoo: " + names + ")");
}

// The end of --all: the summary table (printed and written to <out>/<paper>/summary.csv), the
// run's record (items.csv, `run_info` as run_info.csv: run_info.h) and the paper values no item
// read (when every item ran in this process: not for a shard or items skipped as complete).
void print_run_summary(const PaperInfo& paper, const std::vector<ItemSummary>& items,
                       const std::vector<ItemRecord>& records, const RunOptions& opts,
                       const Table& run_info, bool every_item_here, std::ostream& out) {
  {
    const SignalsHeld held;  // the run's three summary files are written together or not at all
    write_run_summary(paper.key, opts.out_dir, items, records, run_info, out);
  }
  if (!every_item_here || opts.mode != RunMode::Model || !opts.model.empty()) {
    out << "(the check that every value of data/" << paper.key
        << "/ is read runs with a plain --all, where every item runs)\n";
    return;
  }
  const std::vector<std::string> unread = unread_paper_values(paper.key, paper.input_data_files);
  if (unread.empty()) {
    out << "every numeric value of data/" << paper.key << "/ is read by some item\n";
  } else {
    out << unread.size() << " numeric values of data/" << paper.key << "/ are read by no item:\n";
    for (const std::string& u : unread) out << "  " << u << "\n";
  }
}

// `records`: one per experiment of the list (item, caption, and the status of those that do not
// run); the selected ones get their status, machine and wall time here.
// `sweep`: the run's share of the selected experiments (--shard) and its state (--skip-existing).
int run_selected(const PaperInfo& paper, const std::vector<Experiment>& experiments,
                 const std::vector<int>& selected, const RunOptions& opts, bool all,
                 const SweepRun& sweep, std::vector<ItemRecord> records, size_t configs_first,
                 std::ostream& out, std::ostream& err) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point run_start = Clock::now();
  const std::string started_utc = utc_now();
  int rc = kExitOk;
  int ok = 0;
  std::vector<ItemSummary> items;
  bool every_item_here = !sweep.sharded();
  std::map<std::string, std::string> status;  // of this shard's items
  RunOptions item_opts = opts;
  for (size_t k = 0; k < selected.size(); ++k) {
    const std::string& id = experiments[static_cast<size_t>(selected[k])].id();
    std::string why;
    if (sweep.runs(k) && !sweep.completed(id, &why)) item_opts.items.push_back(id);
  }
  for (size_t k = 0; k < selected.size(); ++k) {
    const int i = selected[k];
    const Experiment& e = experiments[i];
    if (!sweep.runs(k)) {
      records[static_cast<size_t>(i)].status = "not run: another shard's";
      continue;
    }
    out << "\n== " << e.id() << ": " << e.caption << " ==\n";
    std::string why;
    ItemSummary done;
    if (completed_experiment(sweep, e.id(), &records[static_cast<size_t>(i)], &done, &why)) {
      out << "skipped " << e.id() << ": complete in " << opts.out_dir << " (--skip-existing)\n";
      items.push_back(std::move(done));
      status[e.id()] = records[static_cast<size_t>(i)].status;
      ++ok;
      every_item_here = false;
      continue;
    }
    if (!why.empty()) out << "running " << e.id() << " again: " << why << "\n";
    ExperimentContext ctx(paper.key, e.id(), item_opts, out, e.default_hardware);
    if (!opts.quiet) ctx.set_progress_stream(&err);
    int code = kExitOk;
    std::string message;
    const Clock::time_point item_start = Clock::now();
    const size_t configs_before = hardware_configs_read().size();
    ItemRecord& record = records[static_cast<size_t>(i)];
    record.status = "failed";
    try {
      e.run(ctx);
      const std::vector<std::string> written = ctx.commit_files();
      for (const std::string& path : written) out << "wrote " << path << '\n';
      ++ok;
      items.push_back(ctx.summary());
      items.back().item = e.id();
      record.status = "ran";
      record.wall_s = std::chrono::duration<double>(Clock::now() - item_start).count();
      record.hardware = configs_since(configs_before, ctx.hardware_name());
      sweep.item_done(e.id(), experiment_item_data(record, items.back()), written);
    } catch (const UsageError& ex) {
      code = kExitUsage;
      message = ex.what();
    } catch (const Error& ex) {
      code = kExitFailed;
      message = ex.what();
    } catch (const std::exception& ex) {
      code = kExitFailed;
      message = std::string("internal error: ") + ex.what();
    }
    record.wall_s = std::chrono::duration<double>(Clock::now() - item_start).count();
    record.hardware = configs_since(configs_before, ctx.hardware_name());
    status[e.id()] = code == kExitOk ? record.status : "failed: " + message;
    if (code != kExitOk) {
      out.flush();
      err << "error: " << e.id() << ": " << message << std::endl;
      if (rc == kExitOk) rc = code;
    }
  }
  out << "\n" << ok << " of " << sweep.share_size() << " experiments completed\n";
  const double wall_s = std::chrono::duration<double>(Clock::now() - run_start).count();
  // What the run ran (every shard's share of it), for run_info.csv.
  std::string ids = all ? "all" : "";
  std::set<std::string> ran;
  for (int i : selected) {
    ran.insert(experiments[i].id());
    if (!all) ids += (ids.empty() ? "" : ", ") + experiments[i].id();
  }
  const Table run_info = run_info_table(paper, opts, ids, opts.mode == RunMode::Measured,
                                        started_utc, wall_s, configs_first);
  if (sweep.sharded()) {
    const std::string path =
        sweep.finish_shard(status, experiment_shard_data(all, records, run_info));
    out << "wrote " << path << "\nwhen every shard has ended, merge them: " << program_name(paper)
        << " --merge <the shards' --out folders> --out <folder>\n";
  } else if (all) {
    print_run_summary(paper, items, records, opts, run_info, every_item_here, out);
  } else if (ok > 0) {       // a selection none of whose items completed (a refusal) leaves nothing
    const SignalsHeld held;  // items.csv and run_info.csv together or not at all
    write_run_record(paper.key, opts.out_dir, records, ran, run_info, out);
  }
  return rc;
}

po::options_description cli_options() {
  po::options_description desc("options");
  desc.add_options()                                                               //
      ("help,h", "print this help and exit")                                       //
      ("list", "list the experiments (id, implemented or not, caption) and exit")  //
      ("fig", po::value<std::vector<std::string>>()->value_name("N"),
       "run figure N (\"13\" or \"fig13\"); repeatable")  //
      ("table", po::value<std::vector<std::string>>()->value_name("N"),
       "run table N (\"3\" or \"table3\"); repeatable")                                 //
      ("all", "run every implemented experiment")                                       //
      ("quiet", "no progress lines (long items print one per unit of work to stderr)")  //
      ("full-protocol",
       "measured mode: the papers' full timing protocols and sizes (default: shortened to "
       "finish in minutes; each item's notes say how)")  //
      ("hw", po::value<std::string>()->value_name("NAME|FILE"),
       "hardware config: a built-in name (v100, a100, ...) or a JSON file; default: each "
       "experiment's own (measured mode: the config named after the live GPU)")  //
      ("model", po::value<std::string>()->value_name("NAME|FILE.onnx"),
       "run on this network instead of the experiment's own")  //
      ("dim", po::value<std::vector<std::string>>()->value_name("NAME=N"),
       "value of a symbolic dimension of the --model file other than the batch "
       "(e.g. sequence=128); repeatable")  //
      ("mode", po::value<std::string>()->default_value("model")->value_name("model|measured"),
       "model: the suite's hardware models; measured: run on the NVIDIA GPU")  //
      ("out", po::value<std::string>()->default_value("reports")->value_name("DIR"),
       "write files to DIR/<paper>/")  //
      ("seed", po::value<std::string>()->default_value("1")->value_name("N"),
       "seed of randomised searches")  //
      ("shard", po::value<std::string>()->value_name("I/N"),
       "run shard I of N (0 <= I < N): a deterministic share of the selected experiments, "
       "round-robin over the list (or --shard-costs); join the shards with --merge")  //
      ("shard-costs", po::value<std::string>()->value_name("FILE"),
       "with --shard: balance the shares by the experiments' costs in FILE (columns item and "
       "wall_s, e.g. an earlier run's items.csv), longest first")  //
      ("skip-existing",
       "skip an experiment already complete in --out for the same run (resumes an interrupted "
       "run; such a run records each experiment's completion)")  //
      ("merge", po::value<std::vector<std::string>>()->multitoken()->value_name("DIR..."),
       "join the shards written to the folders DIR... (their --out) into --out, as one run "
       "writes it");
  return desc;
}

void print_help(std::ostream& out, const PaperInfo& paper, const po::options_description& desc) {
  out << "usage: " << program_name(paper)
      << " (--list | --all | --fig N... | --table N...) [--hw NAME|FILE] [--model "
         "NAME|FILE.onnx]\n"
      << "       [--mode model|measured] [--full-protocol] [--out DIR] [--seed N] [--quiet]\n"
      << "       [--shard I/N [--shard-costs FILE]] [--skip-existing]\n"
      << "   or: " << program_name(paper) << " --merge DIR... [--out DIR]\n"
      << paper.title << "\n\n"
      << desc << "\nexit codes: 0 ok, 1 an experiment failed, 2 usage error, 3 not implemented "
      << "yet, 4 measured mode without a GPU\n";
}

// The experiments a run selects, and those --all passes over (each printed with its reason).
struct Selection {
  std::vector<int> selected;
  std::vector<int> not_implemented;  // --all: not implemented yet
  std::vector<int> own_graphs;       // --all --model: runs the paper's own graphs
  std::vector<int> model_only;       // --all --mode measured: no measured version
};

// --fig, --table and --all (the inputs are validated between the two, as a run reads them).
// Returns kExitOk, or kExitNotImplemented after printing why.
int select_experiments(Parsed& p, const PaperInfo& paper,
                       const std::vector<Experiment>& experiments, Selection& s, std::ostream& out,
                       std::ostream& err) {
  std::vector<int>& selected = s.selected;
  auto add = [&](int i) {
    if (std::find(selected.begin(), selected.end(), i) == selected.end()) selected.push_back(i);
  };
  for (const std::string& f : p.figs) add(resolve(experiments, "fig", f, paper));
  for (const std::string& t : p.tables) add(resolve(experiments, "table", t, paper));
  validate_inputs(p.opts);

  if (p.all) {
    for (size_t i = 0; i < experiments.size(); ++i) {
      if (experiments[i].run) {
        add(static_cast<int>(i));
      } else if (std::find(selected.begin(), selected.end(), static_cast<int>(i)) ==
                 selected.end()) {
        s.not_implemented.push_back(static_cast<int>(i));
      }
    }
  }
  // An explicitly selected experiment that is not implemented refuses the whole run.
  std::string missing;
  for (int i : selected) {
    if (!experiments[i].run) missing += (missing.empty() ? "" : ", ") + experiments[i].id();
  }
  if (!missing.empty()) {
    err << "error: not implemented yet in " << program_name(paper) << ": " << missing
        << " (see --list)" << std::endl;
    return kExitNotImplemented;
  }
  if (p.all && selected.empty()) {
    print_list(out, paper, experiments);
    err << "error: none of the " << experiments.size() << " experiments of " << program_name(paper)
        << " is implemented yet" << std::endl;
    return kExitNotImplemented;
  }
  return kExitOk;
}

// --model: keeps the experiments that take a model (--all passes over the others; an explicit
// selection of one is a usage error).
void select_for_model(const Parsed& p, const std::vector<Experiment>& experiments, Selection& s) {
  if (p.opts.model.empty()) return;
  std::string refused;
  std::vector<int> runnable;
  for (int i : s.selected) {
    if (experiments[i].accepts_model)
      runnable.push_back(i);
    else if (p.all)
      s.own_graphs.push_back(i);
    else
      refused += (refused.empty() ? "" : ", ") + experiments[i].id();
  }
  if (!refused.empty())
    throw UsageError("--model: " + refused +
                     " runs the paper's own graphs; --model does not apply (see --list)");
  if (runnable.empty()) throw UsageError("--model: no experiment takes a model");
  s.selected = runnable;
}

// --mode measured: keeps the experiments with a measured version, then asks for the GPU (and
// takes its hardware config when there is no --hw). Returns kExitOk, or kExitNoGpu after
// printing why.
int select_for_measured(Parsed& p, const std::vector<Experiment>& experiments, Selection& s,
                        const GpuProbe& gpu_available, std::ostream& err) {
  if (p.opts.mode != RunMode::Measured) return kExitOk;
  // Usage first (an experiment without a measured version is refused on any machine), then
  // the GPU.
  std::string refused;
  std::vector<int> runnable;
  for (int i : s.selected) {
    if (experiments[i].has_measured_mode) {
      runnable.push_back(i);
    } else if (p.all) {
      s.model_only.push_back(i);
    } else {
      refused += (refused.empty() ? "" : ", ") + experiments[i].id();
    }
  }
  if (!refused.empty()) {
    throw UsageError("--mode measured: no measured version of " + refused +
                     " (model mode only; see --list)");
  }
  if (runnable.empty()) throw UsageError("--mode measured: no experiment has a measured version");
  std::string why;
  LiveGpuProperties device;
  if (!(gpu_available ? gpu_available(&device, &why) : cuda_device_properties(&device, &why))) {
    err << "error: measured mode needs an NVIDIA GPU: " << why << std::endl;
    return kExitNoGpu;
  }
  if (p.opts.hw.empty()) {
    const LiveGpuMatch m = match_live_gpu(device);
    if (m.config.empty()) throw UsageError("--mode measured: " + m.why);
    p.opts.hw = m.config;
    p.opts.hw_from_device = m.why;
  }
  s.selected = runnable;
  return kExitOk;
}

// The run's header lines: title, mode, hardware, seed, output folder, model, build, shard.
void print_run_header(const PaperInfo& paper, const RunOptions& opts, const SweepRun& sweep,
                      std::ostream& out) {
  out << paper.title << "\n"
      << "mode: " << (opts.mode == RunMode::Model ? "model" : "measured")
      << " | hw: " << hw_description(opts) << " | seed: " << opts.seed
      << " | output: " << (std::filesystem::path(opts.out_dir) / paper.key).string() << "/\n";
  if (!opts.model.empty()) {
    out << "model: " << opts.model;
    if (opts.model_file_batch > 0) {
      out << " (batch " << opts.model_file_batch
          << " fixed in the file; experiments that need another batch refuse it)";
    }
    out << "\n";
  }
  out << build_line() << "\n";
  if (sweep.sharded()) out << sweep.header_line() << "\n";
}

// One record per experiment of the list; those --all passes over get their reason (printed).
std::vector<ItemRecord> initial_records(const std::vector<Experiment>& experiments,
                                        const Selection& s, std::ostream& out) {
  std::vector<ItemRecord> records;
  for (const Experiment& e : experiments)
    records.push_back({e.id(), e.caption, e.run ? "not run" : "not implemented yet", ""});
  for (int i : s.not_implemented) {
    out << "skipped " << experiments[i].id() << ": not implemented yet (" << experiments[i].caption
        << ")\n";
    records[static_cast<size_t>(i)].status = "not implemented yet";
  }
  for (int i : s.model_only) {
    out << "skipped " << experiments[i].id() << ": model mode only\n";
    records[static_cast<size_t>(i)].status = "skipped: model mode only";
  }
  for (int i : s.own_graphs) {
    out << "skipped " << experiments[i].id() << ": runs the paper's own graphs (no --model)\n";
    records[static_cast<size_t>(i)].status = "skipped: runs the paper's own graphs (no --model)";
  }
  return records;
}

int run_cli_impl(int argc, const char* const* argv, const PaperInfo& paper,
                 const std::vector<Experiment>& experiments, std::ostream& out, std::ostream& err,
                 const GpuProbe& gpu_available) {
  // The configs this run reads (run_info.csv) are those read from here on: a process that runs
  // the CLI twice (the tests) reads some before.
  const size_t configs_first = hardware_configs_read().size();
  po::options_description desc = cli_options();
  Parsed p;
  try {
    p = parse_args(argc, argv, desc);
  } catch (const UsageError& e) {
    err << "error: " << e.what() << std::endl;
    return kExitUsage;
  }

  if (p.help) {
    print_help(out, paper, desc);
    return kExitOk;
  }
  if (p.list) {
    print_list(out, paper, experiments);
    return kExitOk;
  }

  try {
    if (!p.merge.empty()) {
      check_out_dir(p.opts.out_dir, paper.key);
      merge_experiment_shards(paper, p.merge, p.opts.out_dir, out);
      return kExitOk;
    }
    if (!p.all && p.figs.empty() && p.tables.empty()) {
      throw UsageError("nothing to run: give --fig N, --table N, --all or --list (see --help)");
    }
    Selection s;
    if (const int rc = select_experiments(p, paper, experiments, s, out, err); rc != kExitOk) {
      return rc;
    }
    select_for_model(p, experiments, s);
    if (const int rc = select_for_measured(p, experiments, s, gpu_available, err); rc != kExitOk) {
      return rc;
    }

    std::vector<std::string> work;
    for (int i : s.selected) work.push_back(experiments[i].id());
    const SweepRun sweep(
        paper.key, p.opts.out_dir,
        SweepRun::keeps_state(p.sweep) ? experiment_run_key(paper.key, p.opts) : RunKey{}, p.sweep,
        std::move(work));
    check_out_dir(p.opts.out_dir, paper.key);
    print_run_header(paper, p.opts, sweep, out);
    return run_selected(paper, experiments, s.selected, p.opts, p.all, sweep,
                        initial_records(experiments, s, out), configs_first, out, err);
  } catch (const UsageError& e) {
    err << "error: " << e.what() << std::endl;
    return kExitUsage;
  } catch (const Error& e) {
    err << "error: " << e.what() << std::endl;
    return kExitFailed;
  }
}

}  // namespace

int run_cli(int argc, const char* const* argv, const PaperInfo& paper,
            const std::vector<Experiment>& experiments, std::ostream& out, std::ostream& err,
            const GpuProbe& gpu_available) {
  return run_cli_impl(argc, argv, paper, experiments, out, err, gpu_available);
}

int run_cli(int argc, char** argv, const PaperInfo& paper,
            const std::vector<Experiment>& experiments) {
  // Line-buffered standard output, so that a log or a pipe sees every line when it is printed
  // (std::cout writes through C stdio while synchronised with it, the default).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return run_cli_impl(argc, argv, paper, experiments, std::cout, std::cerr, {});
}

}  // namespace dgs
