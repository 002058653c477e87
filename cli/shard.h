#pragma once
// Sharding a sweep: a list of work items split into N deterministic shares, so that N machines
// (a Slurm job array, README "Sweeps on several machines") each run one share and a merge step
// joins their outputs into the files one run writes. Nothing here knows what an item is: the
// repro_* executables shard their selected experiments (keys "fig13", "table3.1"); a comparison
// over (model, hardware, scheduler, seed) shards its tuples the same way.
//
// The assignment rule (assign_shards), the same on every machine: longest processing time first
// over the items' costs (the largest cost goes to the least loaded shard, ties to the lower shard
// index; equal costs keep the list order), so that with no costs known (each item costs 1) item k
// goes to shard k mod N, round-robin over the list order. Costs come from a file the caller names
// (shard_costs_from_csv: e.g. the items.csv of an earlier run, its wall_s column), never from the
// machine the shard runs on, so every shard of a sweep computes the same assignment.
#include <string>
#include <vector>

namespace dgs {

// Shard `index` of `count` (0 <= index < count).
struct ShardSpec {
  int index = 0;
  int count = 1;
  std::string str() const;  // "I/N"
};

// Parses "I/N" (decimal, no sign or spaces, 0 <= I < N, N <= kMaxShards); throws UsageError
// naming `flag` and the text: "--shard 3/2: shard index 3 is out of range (0 <= I < 2)",
// "--shard 'x': expected I/N ...".
ShardSpec parse_shard_spec(const std::string& text, const std::string& flag = "--shard");
inline constexpr int kMaxShards = 100000;

// The shard (0..count-1) of each item: longest processing time first over `costs` (one per item,
// in list order; a NaN or negative cost, an item whose cost is unknown, counts as the median of
// the known costs, or 1 when none is known). Deterministic: the same costs give the same shares
// on any machine; with all costs equal, item k goes to shard k mod count.
std::vector<int> assign_shards(const std::vector<double>& costs, int count);

// The costs of `keys` read from the CSV file `path` (columns `key_column` and `cost_column`, read
// by name; e.g. an items.csv: item, wall_s), NaN for a key the file does not have or whose cost
// cell is empty. Throws UsageError naming the file (and line) when it cannot be read, lacks a
// column, or holds a cost that is not a non-negative number.
std::vector<double> shard_costs_from_csv(const std::string& path,
                                         const std::vector<std::string>& keys,
                                         const std::string& key_column = "item",
                                         const std::string& cost_column = "wall_s");

}  // namespace dgs
