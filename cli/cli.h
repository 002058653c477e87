#pragma once
// The command-line front end shared by every repro_* executable (Boost.Program_options):
//   --list  --fig N  --table N  --all  --hw FILE|NAME  --model NAME|FILE.onnx
//   --mode model|measured  --out DIR  --seed N  --help
//   --shard I/N [--shard-costs FILE]  --skip-existing  --merge DIR...   (sweeps:
//   experiment_sweep.h)
// and the experiment scaffolding every paper uses: a paper lists its figures and tables as
// `Experiment`s (named fields, designated initializers) in
// reproductions/<paper>/experiments/experiment_list.cpp, and its main.cpp passes that list to
// run_cli(). Each experiment's function gets an `ExperimentContext`: the options, its hardware
// (--hw or the experiment's default), the paper's data (data/<paper>/*.csv), and the places to
// put tables, plots, claims and notes.
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/hw/hardware.h"
#include "common/hw/hardware_spec.h"
#include "common/hw/live_gpu.h"
#include "common/report/report.h"

namespace dgs {

enum class RunMode { Model, Measured };

// Reports that one unit of work of an item has ended (`what`: the unit, e.g. a network's name):
// ExperimentContext::progress_fn, passed to code that runs units on several threads. May be
// empty (no lines); callable from any thread.
using ProgressFn = std::function<void(const std::string& what)>;

struct RunOptions {
  std::string hw;     // --hw: empty = each experiment's own default (the paper's machine)
  std::string model;  // --model: empty = each experiment's own networks
  // --dim NAME=N (repeatable): values of symbolic dimensions of the --model file other than
  // the batch, by dim_param name.
  std::map<std::string, int64_t> dims;
  int64_t model_file_batch = 0;  // the batch the --model file fixes (0: symbolic, or a zoo name)
  RunMode mode = RunMode::Model;
  std::string out_dir = "reports";  // --out; files go to <out_dir>/<paper>/
  uint64_t seed = 1;                // --seed
  bool quiet = false;               // --quiet: no progress lines
  // --full-protocol: measured items run the papers' full timing protocols and sizes (longer);
  // by default they run a shortened protocol that finishes in minutes, and their notes say how.
  bool full_protocol = false;
  // Measured mode without --hw: why `hw` is the live GPU's config ("the live GPU 'NVIDIA H200'
  // is hw_configs/h200.json ..."); empty otherwise.
  std::string hw_from_device;
  // The ids of the experiments this invocation runs, in order (the selection less other shards'
  // items and, with --skip-existing, the complete ones; run_cli fills it before the first runs):
  // an item whose long runs a later item also reads may compute the later item's in the same
  // pool (Atomic's batch-20 runs, batch20.cpp). Empty: only the item's own.
  std::vector<std::string> items;
};

// What an experiment gets: the options, its hardware, the paper's data, and a place to put its
// results. Files are staged in memory and written (each atomically) only when the experiment
// returns without an exception (run_cli calls commit_files()), so a failed experiment writes
// nothing.
class ExperimentContext {
 public:
  // `default_hardware`: the experiment's own machine (Experiment::default_hardware), used when
  // --hw is not given.
  ExperimentContext(std::string paper, std::string experiment_id, RunOptions opts,
                    std::ostream& out, std::string default_hardware = "");
  const RunOptions& options() const { return opts_; }
  std::ostream& out() { return out_; }
  const std::string& paper() const { return paper_; }
  const std::string& experiment_id() const { return id_; }

  // The hardware config the experiment runs on: --hw if given, else the experiment's default
  // (a built-in name or a file); empty when there is neither.
  const std::string& hardware_name() const;
  // That config (load_hardware: any kind), loaded on first use and kept for the experiment. This
  // is the one place an experiment's hardware is loaded. Throws dgs::Error (one line) when there
  // is no hardware (no --hw and no default). An experiment that compares several machines loads
  // the others itself (load_hardware / load_gpu_spec).
  const HardwareSpec& hardware() const;
  // hardware() as a GPU; throws dgs::Error (one line) when the config is of another kind.
  const GpuSpec& gpu() const;

  // The paper's published numbers: data/<paper>/<file> (PaperData::load).
  PaperData paper_data(const std::string& file) const;

  // "<out_dir>/<paper>/<experiment_id><suffix>", e.g. reports/<paper>/fig13.csv
  std::string output_path(const std::string& suffix) const;
  // Prints the table (with `title`) and writes <id><suffix>.csv (suffix "" by default).
  void emit_table(const std::string& title, const Table& t, const std::string& suffix = "");
  void emit_svg(const std::string& svg, const std::string& suffix = "");
  // Prints the claims block and writes <id>_claims.csv.
  void emit_claims(const std::vector<Claim>& claims);
  // The global constants of `spec` that were calibrated on one experiment (an efficiency whose
  // source in the config says "calibrated on ONE experiment: ..."), as
  // "<config>: <name> = <value>, ..." ("" if none). A claim whose paper value is that experiment's
  // target sets Claim::calibrated to this.
  static std::string calibrated_constants(const GpuSpec& spec);
  // Notes (once per config) every calibrated constant of `spec` with its value and the experiment
  // it was calibrated on. commit_files() does this for the experiment's own machine (if it
  // loaded it); an experiment that loads another GPU itself calls it for that one.
  void note_calibrated_constants(const GpuSpec& spec);
  // The experiment's line of the run's summary: its claims and its paper-vs-ours cells (every
  // table emitted, paper_cells).
  const ItemSummary& summary() const { return summary_; }
  // A line naming a choice the paper leaves open, printed and collected (written to
  // <id>_notes.txt at the end of the experiment).
  void note(const std::string& line);
  const std::vector<std::string>& notes() const { return notes_; }
  // A progress line for one unit of work of a long item (a network, a batch, a configuration, a
  // search round, a schedule): "[<id> <elapsed> s] <what>", written to the progress stream (the
  // run's stderr; none under --quiet) and flushed at once, so that a log or a pipe shows where a
  // long run is. Elapsed time counts from the start of the experiment. Thread-safe: a unit run on
  // a worker (parallel_for) calls it when it ends; the time is read and the line written under
  // one lock, so lines arrive whole, in the order the units end, with non-decreasing times.
  void progress(const std::string& what) const;
  // progress() as a callback, for code that runs units one per CPU (a paper's prefetch) and
  // reports each as it ends. Valid while this context lives.
  ProgressFn progress_fn() const {
    return [this](const std::string& what) { progress(what); };
  }
  void set_progress_stream(std::ostream* s) { progress_ = s; }
  // Stages any other output file, <id><suffix> (e.g. "_plan.json").
  void emit_file(const std::string& suffix, const std::string& content);

  // Notes the calibrated constants of the experiment's own GPU (if loaded), then writes the
  // staged files (and <id>_notes.txt if there are notes); returns their paths.
  std::vector<std::string> commit_files();

 private:
  void stage(const std::string& suffix, std::string content);
  std::string paper_, id_;
  RunOptions opts_;
  std::ostream& out_;
  std::string hardware_name_;
  mutable std::optional<HardwareSpec> hardware_;  // loaded by hardware() on first use
  std::vector<std::string> notes_;
  std::vector<std::pair<std::string, std::string>> pending_;  // (suffix, content), in order
  ItemSummary summary_;
  std::vector<std::string> calibration_noted_;  // configs whose calibrated constants are noted
  std::ostream* progress_ = nullptr;            // where progress() writes; none: silent
  mutable std::mutex progress_mutex_;           // one progress line at a time
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// One figure or table of a paper, written with designated initializers, e.g.
//   {.kind = "fig", .number = "13", .caption = "...", .run = run_fig13,
//    .has_measured_mode = true, .default_hardware = "v100"}
struct Experiment {
  std::string kind;     // "fig" or "table"
  std::string number;   // "13", "3.1", "4.6"; the id is kind+number, e.g. "fig13", "table3.1"
  std::string caption;  // the paper's caption
  // Runs the experiment; empty = not implemented yet (listed, and refused with exit code 3).
  std::function<void(ExperimentContext&)> run = {};
  // Whether it has a measured version (--mode measured); under --all --mode measured only these
  // run, and naming another one with --mode measured is a usage error.
  bool has_measured_mode = false;
  // Whether --model replaces its networks; false: it runs the paper's own graphs, and --model is
  // refused for it (skipped under --all).
  bool accepts_model = true;
  // The machine the paper ran it on (a built-in hardware config name, e.g. "v100"), which
  // ExperimentContext::gpu() loads when --hw is not given; empty when it needs no hardware, or
  // its machine has no config yet.
  std::string default_hardware = {};
  std::string id() const { return kind + number; }
};

struct PaperInfo {
  std::string key;         // the paper's folder under reports/ and data/ (e.g. "mypaper")
  std::string title;       // the paper's title, printed by --list, --help and every run
  std::string paper_file;  // the paper's text under ../shared/papers/ (e.g. "mypaper.txt")
  // Files of data/<key>/ that are inputs of the suite (e.g. graph files), not published numbers:
  // the end of --all does not list their values as unread (unread_paper_values).
  std::vector<std::string> input_data_files = {};
};

// Parses argv, runs the selected experiments, and returns the process exit code:
// 0 success; 1 an experiment failed (dgs::Error: one line "error: ..."); 2 a usage error (unknown
// flag, figure or table, bad value; one line); 3 the selected experiment is not implemented yet;
// 4 --mode measured without a usable GPU ("error: measured mode needs an NVIDIA GPU: <reason>").
// Standard output is line-buffered (a pipe or a log sees each line as it is printed); progress
// lines of long items go to stderr unless --quiet.
//
// --all ends with a summary (printed, and written to <out>/<paper>/summary.csv): per item and in
// total, the checked claims holding and deviating (the paper's method and stand-ins apart), the
// informational rows and calibration points, and the median and 90th-percentile relative error
// of the cells that carry a paper value; then (model mode without --model, where every item runs)
// the numeric values of data/<paper>/ that no item read (unread_paper_values). Every run (--all, or
// a selection of which an item completed; not a shard) also leaves its record in <out>/<paper>/:
// items.csv (each item's status, machine and wall time; a selection updates its items' rows and
// keeps the others') and run_info.csv (the environment fingerprint of that run, naming the items
// it ran): run_info.h.
//
// Selection: --fig and --table take the number ("13", "3.1") or the whole id ("fig13",
// "table3.1", case-insensitive), and may be repeated. --all runs every implemented experiment and
// lists the others as not implemented. If a selected experiment is not implemented, nothing runs.
// --hw and --model are checked before anything runs (exit 2 if bad): the config is loaded with
// load_hardware (a kind the suite does not know, or a bad field, is refused); --model
// must be a zoo name or a loadable .onnx file. With --all, a failing experiment does not stop the
// others (exit 1 at the end); with --all --mode measured, only experiments with a measured version
// run. Errors go to stderr as one line each; results and the header go to stdout.
//
// Sweeps (experiment_sweep.h): --shard I/N runs shard I's share of the selected experiments and
// writes its shard record instead of the --all summary; --skip-existing skips an experiment
// complete in --out for the same run; --merge DIR... joins the shards found in the folders into
// --out (bad shards: exit 2, nothing written).
int run_cli(int argc, char** argv, const PaperInfo& paper,
            const std::vector<Experiment>& experiments);

// The value of a --seed flag: a non-negative integer that fits in 64 bits (no sign, no spaces);
// throws UsageError "--seed: '<s>' is not a non-negative integer" otherwise. The tools use it too.
uint64_t parse_seed(const std::string& s);

// The same with the output streams given (for tests).
// `gpu_available` replaces the check for a usable GPU (cuda_gpu_available and
// cuda_device_properties) when given, so that measured-mode selection can be tested on any
// machine: it returns whether a GPU is usable, and fills its properties (or the reason).
//
// Measured mode without --hw: --hw becomes the built-in config of the live GPU
// (match_live_gpu, common/hw/live_gpu.h), so that every model number of a measured run is
// priced on the GPU it ran on; a GPU no built-in config matches is refused in one line (exit 2,
// "give --hw NAME|FILE.json").
using GpuProbe = std::function<bool(LiveGpuProperties* device, std::string* why)>;
int run_cli(int argc, const char* const* argv, const PaperInfo& paper,
            const std::vector<Experiment>& experiments, std::ostream& out, std::ostream& err,
            const GpuProbe& gpu_available = {});

}  // namespace dgs
