// Sharding a sweep's work items (shard.h).
#include "cli/shard.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {

std::string ShardSpec::str() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

namespace {
// A decimal integer of digits only (no sign, no spaces), or -1.
long long digits_value(const std::string& s) {
  if (s.empty() || s.size() > 9) return -1;
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return -1;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
  return v;
}
}  // namespace

ShardSpec parse_shard_spec(const std::string& text, const std::string& flag) {
  const size_t slash = text.find('/');
  const long long i = slash == std::string::npos ? -1 : digits_value(text.substr(0, slash));
  const long long n = slash == std::string::npos ? -1 : digits_value(text.substr(slash + 1));
  if (i < 0 || n < 0) {
    throw UsageError(flag + " '" + text +
                     "': expected I/N, shard I of N with 0 <= I < N (e.g. 0/4; a Slurm array "
                     "task gives $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)");
  }
  if (n < 1 || n > kMaxShards) {
    throw UsageError(flag + " " + text + ": shard count " + std::to_string(n) +
                     " is out of range (1 <= N <= " + std::to_string(kMaxShards) + ")");
  }
  if (i >= n) {
    throw UsageError(flag + " " + text + ": shard index " + std::to_string(i) +
                     " is out of range (0 <= I < " + std::to_string(n) + ")");
  }
  return {static_cast<int>(i), static_cast<int>(n)};
}

std::vector<int> assign_shards(const std::vector<double>& costs, int count) {
  if (count < 1) throw Error("assign_shards: shard count " + std::to_string(count) + " < 1");
  std::vector<double> known;
  for (double c : costs)
    if (std::isfinite(c) && c >= 0) known.push_back(c);
  const double fill = known.empty() ? 1.0 : quantile(known, 0.5);
  std::vector<double> cost(costs.size());
  for (size_t k = 0; k < costs.size(); ++k)
    cost[k] = std::isfinite(costs[k]) && costs[k] >= 0 ? costs[k] : fill;
  // Largest cost first; equal costs in list order.
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&cost](size_t a, size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(static_cast<size_t>(count), 0.0);
  std::vector<int> shard(costs.size(), 0);
  for (size_t k : order) {
    // The least loaded shard; the lowest index among equals.
    const size_t s = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    shard[k] = static_cast<int>(s);
    load[s] += cost[k];
  }
  return shard;
}

std::vector<double> shard_costs_from_csv(const std::string& path,
                                         const std::vector<std::string>& keys,
                                         const std::string& key_column,
                                         const std::string& cost_column) {
  std::vector<CsvRecord> records;
  try {
    records = parse_csv_records(read_file(path), path);
  } catch (const Error& e) {
    throw UsageError(std::string("--shard-costs: ") + e.what());
  }
  if (records.empty()) throw UsageError("--shard-costs: " + path + ": empty file");
  const std::vector<std::string>& header = records[0].fields;
  auto column = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      throw UsageError("--shard-costs: " + path + ": no column '" + name + "' (expected columns " +
                       key_column + " and " + cost_column + ", e.g. an items.csv)");
    }
    return static_cast<size_t>(it - header.begin());
  };
  const size_t kc = column(key_column), cc = column(cost_column);
  std::vector<double> costs(keys.size(), std::nan(""));
  for (size_t r = 1; r < records.size(); ++r) {
    const std::vector<std::string>& f = records[r].fields;
    const auto it = std::find(keys.begin(), keys.end(), f[kc]);
    if (it == keys.end() || f[cc].empty()) continue;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(f[cc].data(), f[cc].data() + f[cc].size(), v);
    if (ec != std::errc() || ptr != f[cc].data() + f[cc].size() || !std::isfinite(v) || v < 0) {
      throw UsageError("--shard-costs: " + path + ":" + std::to_string(records[r].line) + ": " +
                       cost_column + " '" + f[cc] + "' is not a non-negative number");
    }
    costs[static_cast<size_t>(it - keys.begin())] = v;
  }
  return costs;
}

}  // namespace dgs
