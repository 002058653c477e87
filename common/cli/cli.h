#pragma once
// The command-line front end shared by the five repro_* executables (Boost.Program_options):
//   --list  --fig N  --table N  --all  --hw FILE|NAME  --model NAME|FILE.onnx
//   --mode model|measured  --out DIR  --seed N  --help
// A paper's main.cpp describes its experiments as data and calls run_cli().
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/report/report.h"

namespace dgs {

enum class RunMode { Model, Measured };

struct RunOptions {
  std::string hw;          // --hw: empty = each experiment's own default (the paper's machine)
  std::string model;       // --model: empty = each experiment's own networks
  RunMode mode = RunMode::Model;
  std::string out_dir = "reports";  // --out; files go to <out_dir>/<paper>/
  uint64_t seed = 1;       // --seed
};

// What an experiment gets: the options and a place to put its results.
class ExperimentContext {
 public:
  ExperimentContext(std::string paper, std::string experiment_id, RunOptions opts,
                    std::ostream& out);
  const RunOptions& options() const { return opts_; }
  std::ostream& out() { return out_; }
  const std::string& paper() const { return paper_; }

  // "<out_dir>/<paper>/<experiment_id><suffix>", e.g. reports/welder/fig13.csv
  std::string output_path(const std::string& suffix) const;
  // Prints the table (with `title`) and writes <id><suffix>.csv (suffix "" by default).
  void emit_table(const std::string& title, const Table& t, const std::string& suffix = "");
  void emit_svg(const std::string& svg, const std::string& suffix = "");
  // Prints the claims block and writes <id>_claims.csv.
  void emit_claims(const std::vector<Claim>& claims);
  // A line naming a choice the paper leaves open, printed and collected (written to
  // <id>_notes.txt at the end of the experiment).
  void note(const std::string& line);
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::string paper_, id_;
  RunOptions opts_;
  std::ostream& out_;
  std::vector<std::string> notes_;
};

struct Experiment {
  std::string kind;     // "fig" or "table"
  std::string number;   // "13", "3.1", "4.6"; the id is kind+number, e.g. "fig13", "table3.1"
  std::string caption;  // the paper's caption
  // Runs the experiment; empty = not implemented yet (listed, and refused with exit code 3).
  std::function<void(ExperimentContext&)> run;
  bool supports_measured = false;  // whether --mode measured does anything for it
  std::string id() const { return kind + number; }
};

struct PaperInfo {
  std::string key;       // "welder" (folder under reports/ and data/)
  std::string title;     // "Welder (OSDI'23): tile-graph scheduling"
  std::string paper_file;  // "welder_osdi23.txt"
};

// Parses argv, runs the selected experiments, and returns the process exit code:
// 0 success; 1 an experiment failed (dgs::Error: one line "error: ..."); 2 a usage error (unknown
// flag, figure or table, bad value; one line); 3 the selected experiment is not implemented yet;
// 4 --mode measured without a usable GPU ("measured mode needs an NVIDIA GPU: <reason>").
int run_cli(int argc, char** argv, const PaperInfo& paper, const std::vector<Experiment>& experiments);

}  // namespace dgs
