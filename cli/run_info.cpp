// The record a run leaves in its folder: items.csv and run_info.csv (run_info.h).
#include "cli/run_info.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>

#include "common/cuda/device.h"
#include "common/cuda/runtime.h"
#include "common/hw/config_reads.h"
#include "common/report/report_folder.h"
#include "common/util/build_info.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "common/util/text.h"

namespace dgs {

namespace {

// The origin read_hardware_config gives `name_or_path` (without reading it).
std::string config_origin(const std::string& name_or_path) {
  if (name_or_path.find('/') != std::string::npos || ascii_lower(name_or_path).ends_with(".json")) {
    return name_or_path.rfind("./", 0) == 0 ? name_or_path.substr(2) : name_or_path;
  }
  return "hw_configs/" + ascii_lower(name_or_path) + ".json";
}

// The first line of /proc/cpuinfo's "model name", or "unknown".
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  }
  return "unknown";
}

// The NVIDIA kernel driver's version (/proc/driver/nvidia/version's first line), or "unknown".
std::string nvidia_driver() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(f, line)) return "unknown (no /proc/driver/nvidia/version)";
  return nvidia_driver_version(line);
}

std::string number(double v, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << std::fixed << v;
  return os.str();
}

// The values joined by "; ".
std::string joined(const std::vector<std::string>& values) {
  std::string s;
  for (const std::string& v : values) s += (s.empty() ? "" : "; ") + v;
  return s;
}

}  // namespace

Table items_table(const std::vector<ItemRecord>& items) {
  Table t({"item", "caption", "status", "hardware", "wall_s"});
  for (const ItemRecord& r : items) {
    t.add_row({r.item, r.caption, r.status, r.hardware,
               std::isnan(r.wall_s) ? Cell(Missing{}) : Cell(r.wall_s)});
  }
  return t;
}

std::string configs_since(size_t first, const std::string& machine) {
  std::set<std::string> names;
  if (!machine.empty()) names.insert(config_origin(machine));
  const std::vector<HardwareConfigRead> reads = hardware_configs_read();
  for (size_t i = first; i < reads.size(); ++i) names.insert(reads[i].origin);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : "; ") + n;
  return out;
}

Table merged_run_info(const std::vector<Table>& shard_run_infos) {
  std::vector<std::string> fields;
  std::map<std::string, std::vector<std::string>> values;  // field -> value per shard
  for (const Table& t : shard_run_infos) {
    for (const auto& row : t.rows()) {
      const std::string f = format_cell(row.at(0), 17), v = format_cell(row.at(1), 17);
      if (!values.count(f)) fields.push_back(f);
      values[f].push_back(v);
    }
  }
  Table out({"field", "value"});
  double longest = 0;
  for (const std::string& f : fields) {
    std::vector<std::string> distinct;
    for (const std::string& v : values[f])
      if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
    std::string value = distinct.size() == 1 ? distinct[0] : "";
    if (f == "started_utc") {
      value = *std::min_element(values[f].begin(), values[f].end());
    } else if (f == "wall_s") {
      double sum = 0;
      for (const std::string& v : values[f]) {
        const double w = std::strtod(v.c_str(), nullptr);
        sum += w;
        longest = std::max(longest, w);
      }
      value = number(sum, 2);
    } else if (f == "hardware_configs" && distinct.size() > 1) {
      std::set<std::string> parts;
      for (const std::string& v : distinct) {
        std::istringstream is(v);
        std::string part;
        while (std::getline(is, part, ';')) {
          part.erase(0, part.find_first_not_of(' '));
          if (!part.empty()) parts.insert(part);
        }
      }
      value = joined({parts.begin(), parts.end()});
    } else if (distinct.size() > 1) {
      value = joined(distinct);
    }
    out.add_row({f, value});
  }
  out.add_row({std::string("shards"), static_cast<int64_t>(shard_run_infos.size())});
  out.add_row({std::string("longest_shard_wall_s"), number(longest, 2)});
  return out;
}

void write_run_summary(const std::string& paper, const std::string& out_dir,
                       const std::vector<ItemSummary>& items,
                       const std::vector<ItemRecord>& records, const Table& run_info,
                       std::ostream& out) {
  const Table t = summary_table(items);
  ClaimTally total;
  for (const ItemSummary& s : items) total += s.claims;
  out << "\n";
  print_table(out, "Summary: claims and paper-vs-ours cells per item (" + paper + ")", t);
  out << "claims: " << total.line() << "\n";
  out << "tolerance rules (one per kind of quantity):";
  for (const std::string& r : claim_rule_lines()) out << "\n  " << r;
  out << "\n";
  const std::filesystem::path dir = std::filesystem::path(out_dir) / paper;
  write_file_atomic((dir / "summary.csv").string(), to_csv(t));
  out << "wrote " << (dir / "summary.csv").string() << "\n";
  write_file_atomic((dir / "items.csv").string(), to_csv(items_table(records)));
  write_file_atomic((dir / "run_info.csv").string(), to_csv(run_info));
  out << "wrote " << (dir / "items.csv").string() << " and " << (dir / "run_info.csv").string()
      << " (" << build_line() << ")\n";
}

void write_run_record(const std::string& paper, const std::string& out_dir,
                      std::vector<ItemRecord> records, const std::set<std::string>& ran,
                      const Table& run_info, std::ostream& out) {
  const std::filesystem::path dir = std::filesystem::path(out_dir) / paper;
  const std::filesystem::path items = dir / "items.csv";
  std::map<std::string, ItemRecord> earlier;  // the folder's rows, by item
  std::error_code ec;
  if (std::filesystem::is_regular_file(items, ec)) {
    try {
      const CsvFile f = read_csv_file(items.string());
      for (size_t i = 0; i < f.rows.size(); ++i) {
        const std::string wall = f.get(i, "wall_s");
        earlier[f.get(i, "item")] = {f.get(i, "item"), "", f.get(i, "status"), f.get(i, "hardware"),
                                     wall.empty() ? std::numeric_limits<double>::quiet_NaN()
                                                  : std::strtod(wall.c_str(), nullptr)};
      }
    } catch (const Error&) {
      earlier.clear();  // not an items.csv of ours: this run's rows alone
    }
  }
  for (ItemRecord& r : records) {
    if (ran.count(r.item) || r.status != "not run") continue;  // this run's, or not implemented
    const auto it = earlier.find(r.item);
    if (it == earlier.end() || it->second.status.empty()) continue;
    r.status = it->second.status;
    r.hardware = it->second.hardware;
    r.wall_s = it->second.wall_s;
  }
  write_file_atomic(items.string(), to_csv(items_table(records)));
  write_file_atomic((dir / "run_info.csv").string(), to_csv(run_info));
  out << "wrote " << items.string() << " and " << (dir / "run_info.csv").string() << " ("
      << build_line() << ")\n";
}

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string nvidia_driver_version(const std::string& version_line) {
  std::istringstream words(version_line);
  std::string w;
  while (words >> w) {
    const bool dotted =
        w.find('.') != std::string::npos && std::isdigit((unsigned char)w.front()) &&
        std::isdigit((unsigned char)w.back()) && std::all_of(w.begin(), w.end(), [](char c) {
          return c == '.' || std::isdigit((unsigned char)c);
        });
    if (dotted) return w;
  }
  return version_line;
}

std::string build_line() {
  const BuildInfo& b = build_info();
  return std::string("build ") + b.commit + " (" + b.build_type + ", " + b.compiler + ", CUDA " +
         b.cuda + ", cuDNN " + b.cudnn + ")";
}

Table run_info_table(const PaperInfo& paper, const RunOptions& opts, const std::string& items,
                     bool gpu_measured, const std::string& started_utc, double wall_s,
                     size_t configs_first) {
  Table t({"field", "value"});
  auto add = [&t](const std::string& field, const std::string& value) {
    t.add_row({field, value});
  };
  const BuildInfo& b = build_info();
  add("paper", paper.key);
  add("title", paper.title);
  add("mode", opts.mode == RunMode::Model ? "model" : "measured");
  add("seed", std::to_string(opts.seed));
  if (!opts.hw.empty()) add("hw", opts.hw);
  if (!opts.model.empty()) add("model", opts.model);
  add("items", items);
  add("commit", b.commit);
  add("build_type", b.build_type);
  add("compiler", b.compiler);
  add("cuda", b.cuda);
  add("cudnn", b.cudnn);
  // Each config once, with the hash of its text (a user's file of a built-in name differs).
  std::set<std::string> configs;
  const std::vector<HardwareConfigRead> reads = hardware_configs_read();
  for (size_t i = configs_first; i < reads.size(); ++i)
    configs.insert(reads[i].origin + "#" + reads[i].text_hash);
  std::string list;
  for (const std::string& c : configs) list += (list.empty() ? "" : "; ") + c;
  add("hardware_configs", list);
  add("host_cpu", cpu_model());
  add("host_threads", std::to_string(std::max(1u, std::thread::hardware_concurrency())));
  if (gpu_measured) {
    try {
      const GpuSpec g = gpu::query_gpu_spec(0);
      add("gpu", g.name + " (sm_" + std::to_string(g.compute_capability) + ", " +
                     std::to_string(g.sm_count) + " SMs)");
      add("gpu_driver", nvidia_driver());
      // The loaded libraries' versions (the cuda and cudnn fields above are the build's headers).
      const LoadedCudaVersions loaded = loaded_cuda_versions();
      add("gpu_cuda_driver_api", loaded.driver_api.empty() ? "unknown" : loaded.driver_api);
      add("cudnn_loaded", loaded.cudnn.empty() ? "unknown" : loaded.cudnn);
      add("gpu_core_clock_mhz", number(g.core_clock_mhz, 0));
      add("gpu_memory", number(static_cast<double>(g.dram_bytes) / (1 << 30), 1) + " GiB, " +
                            number(g.dram_bandwidth_gbs, 0) + " GB/s");
    } catch (const std::exception& e) {
      add("gpu", std::string("unknown (") + e.what() + ")");
    }
  }
  add("started_utc", started_utc);
  add("wall_s", number(wall_s, 2));
  return t;
}

}  // namespace dgs
