// ExperimentContext (cli.h): what an experiment of a repro_* executable sees of its run: options,
// hardware, paper values, and the files it stages and commits; and parse_seed.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <sstream>

#include "cli/cli.h"
#include "cli/signals_held.h"
#include "common/hw/config_reads.h"
#include "common/hw/hardware.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

// ---------------------------------------------------------------------------------------------
// ExperimentContext
// ---------------------------------------------------------------------------------------------

ExperimentContext::ExperimentContext(std::string paper, std::string experiment_id, RunOptions opts,
                                     std::ostream& out, std::string default_hardware)
    : paper_(std::move(paper)),
      id_(std::move(experiment_id)),
      opts_(std::move(opts)),
      out_(out),
      hardware_name_(opts_.hw.empty() ? std::move(default_hardware) : opts_.hw) {}

void ExperimentContext::progress(const std::string& what) const {
  if (progress_ == nullptr) return;
  // The time is read under the lock: lines in the stream are in the order of their times.
  const std::lock_guard<std::mutex> lock(progress_mutex_);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%.1f s", elapsed);
  *progress_ << "[" << id_ << " " << stamp << "] " << what << std::endl;
}

const std::string& ExperimentContext::hardware_name() const {
  return hardware_name_;
}

const HardwareSpec& ExperimentContext::hardware() const {
  if (hardware_) return *hardware_;
  if (hardware_name_.empty()) {
    throw Error(
        "no hardware: the experiment has no default machine; give one with --hw "
        "NAME|FILE.json");
  }
  hardware_ = load_hardware(hardware_name_);
  return *hardware_;
}

const GpuSpec& ExperimentContext::gpu() const {
  const HardwareSpec& hw = hardware();
  if (!hw.gpu) {
    throw Error("hardware config '" + hardware_name_ + "' is of kind '" + hw.kind +
                "'; this experiment runs on a GPU (kind 'gpu')");
  }
  return *hw.gpu;
}

PaperData ExperimentContext::paper_data(const std::string& file) const {
  return PaperData::load(paper_, file);
}

std::string ExperimentContext::output_path(const std::string& suffix) const {
  return (std::filesystem::path(opts_.out_dir) / paper_ / (id_ + suffix)).string();
}

void ExperimentContext::stage(const std::string& suffix, std::string content) {
  for (auto& [s, c] : pending_) {
    if (s == suffix) {
      c = std::move(content);
      return;
    }
  }
  pending_.emplace_back(suffix, std::move(content));
}

void ExperimentContext::emit_table(const std::string& title, const Table& t,
                                   const std::string& suffix) {
  for (const PaperCell& c : paper_cells(t)) summary_.cell_errors.push_back(c.relative_error());
  print_table(out_, title, t);
  out_ << '\n';
  stage(suffix + ".csv", to_csv(t));
}

void ExperimentContext::emit_svg(const std::string& svg, const std::string& suffix) {
  stage(suffix + ".svg", svg);
}

void ExperimentContext::emit_claims(const std::vector<Claim>& claims) {
  for (const Claim& c : claims) summary_.claims.add(c);
  print_claims(out_, claims);
  out_ << '\n';
  stage("_claims.csv", to_csv(claims_table(claims)));
}

void ExperimentContext::note(const std::string& line) {
  out_ << "note: " << line << '\n';
  notes_.push_back(line);
}

void ExperimentContext::emit_file(const std::string& suffix, const std::string& content) {
  stage(suffix, content);
}

namespace {
// The constants of a config calibrated on one experiment: (name, value, experiment).
struct CalibratedConstant {
  std::string name;
  double value = 0;
  std::string experiment;
};
// The constants of `spec` calibrated on one experiment: those whose source says "calibrated on ONE
// experiment: ...", and those whose source says "same value as hw_configs/<name>.json" of a
// built-in config where that constant is calibrated with the same value (followed `depth` deep).
std::vector<CalibratedConstant> calibrated_constants_of(const GpuSpec& spec, int depth = 2) {
  static const std::string kMark = "calibrated on ONE experiment: ";
  static const std::string kSame = "same value as hw_configs/";
  std::vector<CalibratedConstant> out;
  for (const auto& [name, value] : spec.efficiency) {
    const auto it = spec.sources.find("efficiency." + name);
    if (it == spec.sources.end()) continue;
    const size_t at = it->second.find(kMark);
    if (at == std::string::npos) {
      const size_t same = it->second.find(kSame);
      if (same == std::string::npos || depth == 0) continue;
      const size_t begin = same + kSame.size();
      const size_t end = it->second.find(".json", begin);
      if (end == std::string::npos) continue;
      GpuSpec other;
      try {
        other = load_gpu_spec(it->second.substr(begin, end - begin));
      } catch (const Error&) {
        continue;  // not a built-in config: nothing to follow
      }
      for (const CalibratedConstant& c : calibrated_constants_of(other, depth - 1))
        if (c.name == name && c.value == value) out.push_back({name, value, c.experiment});
      continue;
    }
    // The experiment: up to the first ';' after the mark, with its parenthesis closed.
    std::string what = it->second.substr(at + kMark.size());
    what = what.substr(0, what.find(';'));
    if (std::count(what.begin(), what.end(), '(') > std::count(what.begin(), what.end(), ')'))
      what += ")";
    out.push_back({name, value, what});
  }
  return out;
}

std::string compact_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

std::string ExperimentContext::calibrated_constants(const GpuSpec& spec) {
  std::string s;
  for (const CalibratedConstant& c : calibrated_constants_of(spec))
    s += (s.empty() ? "" : ", ") + c.name + " = " + compact_number(c.value);
  return s.empty() ? s : spec.name + ": " + s;
}

void ExperimentContext::note_calibrated_constants(const GpuSpec& spec) {
  if (std::find(calibration_noted_.begin(), calibration_noted_.end(), spec.name) !=
      calibration_noted_.end())
    return;
  calibration_noted_.push_back(spec.name);
  for (const CalibratedConstant& c : calibrated_constants_of(spec)) {
    note("calibrated constant used: " + spec.name + " " + c.name + " = " + compact_number(c.value) +
         ", calibrated on " + c.experiment + " (no other experiment re-tunes it)");
  }
}

std::vector<std::string> ExperimentContext::commit_files() {
  if (hardware_ && hardware_->gpu) note_calibrated_constants(*hardware_->gpu);
  if (!opts_.hw_from_device.empty() && opts_.mode == RunMode::Measured)
    note("hardware: " + opts_.hw_from_device + " (measured mode without --hw)");
  const SignalsHeld held;
  if (!notes_.empty()) {
    std::string text;
    for (const std::string& n : notes_) text += n + "\n";
    stage("_notes.txt", text);
  }
  std::vector<std::string> written;
  for (const auto& [suffix, content] : pending_) {
    const std::string path = output_path(suffix);
    write_file_atomic(path, content);
    written.push_back(path);
  }
  pending_.clear();
  return written;
}

uint64_t parse_seed(const std::string& s) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    throw UsageError("--seed: '" + s + "' is not a non-negative integer");
  }
  return v;
}

}  // namespace dgs
