#include "reproductions/brickdl/merged_exec.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <set>

#include "common/brick/brick_layout.h"
#include "common/exec/region_eval.h"
#include "common/graph/iteration_space.h"
#include "common/util/error.h"
#include "common/util/parallel_for.h"
#include "reproductions/brickdl/static_model.h"

namespace dgs::brickdl {

namespace {

TensorPiece outside_piece(const TensorValues& values, int t) {
  if (t < 0) return {Region{}, nullptr};
  auto it = values.find(t);
  if (it == values.end()) return {Region{}, nullptr};  // a Constant: its graph data
  return whole_piece(it->second);
}

void allocate_outputs(const Graph& g, const std::vector<int>& outs, TensorValues& values) {
  for (int t : outs) values[t] = TensorData::zeros(g.tensor(t).shape, g.tensor(t).dtype);
}

int64_t op_output_elements(const Graph& g, const std::vector<int>& ops) {
  int64_t n = 0;
  for (int op : ops) n += g.tensor(g.op(op).outputs[0]).numel();
  return n;
}

void check_inputs(const Graph& g, const std::vector<int>& ops, const TensorValues& values) {
  std::set<int> produced;
  for (int op : ops)
    for (int t : g.op(op).outputs) produced.insert(t);
  for (int op : ops)
    for (int t : g.op(op).inputs)
      if (t >= 0 && !produced.count(t) && g.tensor(t).role != TensorRole::Constant &&
          !values.count(t))
        throw Error("merged bricks: input '" + g.tensor(t).name + "' of op '" + g.op(op).name +
                    "' has no value");
}

}  // namespace

std::vector<int> subgraph_outputs(const Graph& g, const std::vector<int>& ops) {
  const std::set<int> in_group(ops.begin(), ops.end());
  std::vector<int> outs;
  for (int op : ops)
    for (int t : g.op(op).outputs) {
      const Tensor& x = g.tensor(t);
      const bool outside =
          x.role == TensorRole::Output || std::any_of(x.consumers.begin(), x.consumers.end(),
                                                      [&](int c) { return !in_group.count(c); });
      if (outside) outs.push_back(t);
    }
  return outs;
}

// ---- padded bricks
// -------------------------------------------------------------------------------

MergedRunStats run_padded_bricks(const Graph& g, const std::vector<int>& ops, int64_t edge,
                                 TensorValues& values, int threads) {
  check_inputs(g, ops, values);
  const std::vector<int> outs = subgraph_outputs(g, ops);
  allocate_outputs(g, outs, values);
  std::set<int> produced;
  for (int op : ops) produced.insert(g.op(op).outputs[0]);

  struct Job {
    int tensor;
    Region brick;
  };
  std::vector<Job> jobs;
  for (int t : outs) {
    const BrickLayout layout(g.tensor(t).shape, brick_extent(g.tensor(t).shape, edge));
    for (int64_t b = 0; b < layout.num_bricks(); ++b) jobs.push_back({t, layout.brick_region(b)});
  }
  std::atomic<int64_t> computed{0};
  parallel_for(static_cast<int64_t>(jobs.size()), threads, [&](int64_t j) {
    const Job& job = jobs[static_cast<size_t>(j)];
    const int root_op = g.tensor(job.tensor).producer;
    const std::map<int, AccessRegion> need = propagate_tile(g, ops, root_op, job.brick);
    std::map<int, TensorData> scratch;  // enlarged intermediates of this brick
    std::map<int, Region> scratch_region;
    int64_t elements = 0;
    for (int op : ops) {
      const int out = g.op(op).outputs[0];
      auto it = need.find(out);
      if (it == need.end() || region_empty(it->second.region)) continue;
      std::vector<TensorPiece> pieces;
      for (int t : g.op(op).inputs) {
        if (t >= 0 && produced.count(t)) {
          pieces.push_back({scratch_region.at(t), &scratch.at(t)});
        } else {
          pieces.push_back(outside_piece(values, t));
        }
      }
      scratch[out] = compute_op_region(g, op, it->second.region, pieces, 0, nullptr, &elements);
      scratch_region[out] = it->second.region;
    }
    const Region& have = scratch_region.at(job.tensor);
    insert_region(values.at(job.tensor), job.brick,
                  extract_region(scratch.at(job.tensor), region_relative(job.brick, have)));
    computed += elements;
  });
  MergedRunStats st;
  st.bricks = static_cast<int64_t>(jobs.size());
  st.bricks_computed = st.bricks;
  st.elements_computed = computed.load();
  st.elements_needed = op_output_elements(g, ops);
  return st;
}

// ---- memoized bricks
// -----------------------------------------------------------------------------

namespace {

enum : int { kNotStarted = 0, kInProgress = 1, kComplete = 2 };

class MemoizedRun {
 public:
  MemoizedRun(const Graph& g, const std::vector<int>& ops, int64_t edge, TensorValues& values)
      : g_(g), values_(values), units_(brick_units(g, ops)) {
    for (size_t u = 0; u < units_.size(); ++u) {
      const int out = units_[u].output;
      unit_of_tensor_[out] = static_cast<int>(u);
      layouts_.emplace_back(g.tensor(out).shape, brick_extent(g.tensor(out).shape, edge));
      const auto n = static_cast<size_t>(layouts_.back().num_bricks());
      tags_.push_back(std::make_unique<std::atomic<int>[]>(n));
      times_computed_.push_back(std::make_unique<std::atomic<int>[]>(n));
      for (size_t b = 0; b < n; ++b) tags_.back()[b] = kNotStarted, times_computed_.back()[b] = 0;
      if (!values_.count(out)) values_[out] = TensorData::zeros(g.tensor(out).shape);
    }
    // Dependencies of every brick, computed before the workers start.
    deps_.resize(units_.size());
    for (size_t u = 0; u < units_.size(); ++u) {
      const BrickLayout& l = layouts_[u];
      deps_[u].resize(static_cast<size_t>(l.num_bricks()));
      for (int64_t b = 0; b < l.num_bricks(); ++b) {
        const Region r = l.brick_region(b);
        std::set<std::pair<int, int64_t>> d;
        for (int op : units_[u].ops) {
          const std::vector<Region> in = input_regions(g, op, r);
          for (size_t i = 0; i < in.size(); ++i) {
            auto it = unit_of_tensor_.find(g.op(op).inputs[i]);
            if (it == unit_of_tensor_.end() || it->second == static_cast<int>(u)) continue;
            for (int64_t x : layouts_[static_cast<size_t>(it->second)].bricks_overlapping(in[i]))
              d.insert({it->second, x});
          }
        }
        deps_[u][static_cast<size_t>(b)].assign(d.begin(), d.end());
      }
    }
  }

  const std::vector<BrickUnit>& units() const { return units_; }
  const BrickLayout& layout(size_t u) const { return layouts_[u]; }

  // A worker's attempt at brick b of unit u (a root): claim it or leave it.
  void root(int u, int64_t b) {
    int expected = kNotStarted;
    if (tag(u, b).compare_exchange_strong(expected, kInProgress, std::memory_order_acq_rel)) {
      ++compulsory_;
      compute(u, b);
    } else {
      ++conflicting_;
    }
  }

  MergedRunStats stats() const {
    MergedRunStats st;
    for (size_t u = 0; u < units_.size(); ++u)
      for (int64_t b = 0; b < layouts_[u].num_bricks(); ++b) {
        ++st.bricks;
        const int n = times_computed_[u][static_cast<size_t>(b)].load();
        st.bricks_computed += n;
        st.bricks_computed_more_than_once += n > 1;
      }
    st.compulsory_atomics = compulsory_.load();
    st.conflicting_atomics = conflicting_.load();
    st.elements_computed = elements_.load();
    return st;
  }

 private:
  std::atomic<int>& tag(int u, int64_t b) {
    return tags_[static_cast<size_t>(u)][static_cast<size_t>(b)];
  }

  // Precondition: this worker owns (u, b) (tag 1).
  void compute(int u, int64_t b) {
    std::vector<std::pair<int, int64_t>> deferred;
    for (const auto& [v, d] : deps_[static_cast<size_t>(u)][static_cast<size_t>(b)]) {
      if (tag(v, d).load(std::memory_order_acquire) == kComplete) continue;
      int expected = kNotStarted;
      if (tag(v, d).compare_exchange_strong(expected, kInProgress, std::memory_order_acq_rel)) {
        ++compulsory_;
        compute(v, d);
      } else {
        ++conflicting_;
        if (expected == kInProgress) deferred.push_back({v, d});
      }
    }
    for (const auto& [v, d] : deferred) {
      while (true) {
        int expected = kComplete;
        ++conflicting_;
        if (tag(v, d).compare_exchange_strong(expected, kComplete, std::memory_order_acq_rel))
          break;
        std::this_thread::yield();
      }
    }
    run_unit(u, b);
    ++times_computed_[static_cast<size_t>(u)][static_cast<size_t>(b)];
    tag(u, b).store(kComplete, std::memory_order_release);
    ++compulsory_;
  }

  void run_unit(int u, int64_t b) {
    const BrickUnit& unit = units_[static_cast<size_t>(u)];
    const Region r = layouts_[static_cast<size_t>(u)].brick_region(b);
    std::map<int, TensorData> local;  // the unit's element-wise chain on this brick
    int64_t elements = 0;
    for (int op : unit.ops) {
      std::vector<TensorPiece> pieces;
      for (int t : g_.op(op).inputs) {
        auto it = local.find(t);
        if (it != local.end()) {
          pieces.push_back({r, &it->second});
        } else {
          pieces.push_back(outside_piece(values_, t));
        }
      }
      local[g_.op(op).outputs[0]] = compute_op_region(g_, op, r, pieces, 0, nullptr, &elements);
    }
    insert_region(values_.at(unit.output), r, local.at(unit.output));
    elements_ += elements;
  }

  const Graph& g_;
  TensorValues& values_;
  std::vector<BrickUnit> units_;
  std::map<int, int> unit_of_tensor_;
  std::vector<BrickLayout> layouts_;
  std::vector<std::unique_ptr<std::atomic<int>[]>> tags_, times_computed_;
  std::vector<std::vector<std::vector<std::pair<int, int64_t>>>> deps_;
  std::atomic<int64_t> compulsory_{0}, conflicting_{0}, elements_{0};
};

}  // namespace

MergedRunStats run_memoized_bricks(const Graph& g, const std::vector<int>& ops, int64_t edge,
                                   TensorValues& values, int threads) {
  check_inputs(g, ops, values);
  const std::vector<int> outs = subgraph_outputs(g, ops);
  MemoizedRun run(g, ops, edge, values);
  std::vector<std::pair<int, int64_t>> roots;
  for (size_t u = 0; u < run.units().size(); ++u) {
    if (std::find(outs.begin(), outs.end(), run.units()[u].output) == outs.end()) continue;
    for (int64_t b = 0; b < run.layout(u).num_bricks(); ++b)
      roots.push_back({static_cast<int>(u), b});
  }
  parallel_for(static_cast<int64_t>(roots.size()), threads, [&](int64_t i) {
    run.root(roots[static_cast<size_t>(i)].first, roots[static_cast<size_t>(i)].second);
  });
  // Intermediates that only lived in the unit storage are not subgraph outputs: drop them.
  std::set<int> keep(outs.begin(), outs.end());
  for (const BrickUnit& u : run.units())
    if (!keep.count(u.output)) values.erase(u.output);
  MergedRunStats st = run.stats();
  st.elements_needed = op_output_elements(g, ops);
  return st;
}

}  // namespace dgs::brickdl
