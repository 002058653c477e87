// The DP of Algorithm 2 on small atomic DAGs (see dp_schedule.h).
#include "reproductions/atomic/dp_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace dgs::atomic {

namespace {

using Mask = uint64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();

class Search {
 public:
  Search(const AtomicDag& dag, int engines, DpOptions options, bool bound)
      : dag_(dag),
        n_(static_cast<int>(dag.atoms.size())),
        engines_(engines),
        options_(options),
        bound_(bound) {
    full_ = n_ == 64 ? ~Mask{0} : (Mask{1} << n_) - 1;
    pred_mask_.assign(static_cast<size_t>(n_), 0);
    for (int a = 0; a < n_; ++a)
      for (int p : dag.preds[static_cast<size_t>(a)])
        pred_mask_[static_cast<size_t>(a)] |= Mask{1} << p;
  }

  DpResult run() {
    DpResult r;
    r.cycles = solve(0, kInf);
    Mask done = 0;
    while (done != full_) {
      const Mask opt = choice_.at(done);
      std::vector<int> round;
      for (int a = 0; a < n_; ++a)
        if (opt >> a & 1) round.push_back(a);
      r.rounds.push_back(round);
      done |= opt;
    }
    r.states = states_;
    return r;
  }

 private:
  double cycles_of(Mask m) const {
    double c = 0;
    for (int a = 0; a < n_; ++a)
      if (m >> a & 1) c = std::max(c, dag_.atoms[static_cast<size_t>(a)].cycles);
    return c;
  }

  double lower_bound(Mask done) const {
    double longest = 0, shortest = kInf;
    int left = 0;
    for (int a = 0; a < n_; ++a) {
      if (done >> a & 1) continue;
      ++left;
      longest = std::max(longest, dag_.atoms[static_cast<size_t>(a)].cycles);
      shortest = std::min(shortest, dag_.atoms[static_cast<size_t>(a)].cycles);
    }
    if (left == 0) return 0;
    return std::max(longest, std::ceil(static_cast<double>(left) / engines_) * shortest);
  }

  std::vector<int> ready(Mask done) const {
    std::vector<int> r;
    for (int a = 0; a < n_; ++a) {
      if (!(done >> a & 1) && (pred_mask_[static_cast<size_t>(a)] & ~done) == 0) r.push_back(a);
    }
    return r;
  }

  // The options of one Round from the sub-DAG `done`.
  std::vector<Mask> options(Mask done) const {
    const std::vector<int> r = ready(done);
    const int take = std::min(static_cast<int>(r.size()), engines_);
    std::vector<Mask> out;
    Mask fixed = 0;
    std::vector<int> pool = r;
    int slots = take;
    if (options_ == DpOptions::PriorityRules) {
      // Levels as in schedule.cpp: 1 started layer, 2 the shallowest unfinished depth, 3 other
      // layers of the current sample, 4 later samples.
      int sample = dag_.batch;
      for (int a = 0; a < n_; ++a)
        if (!(done >> a & 1)) sample = std::min(sample, dag_.atoms[static_cast<size_t>(a)].sample);
      std::vector<bool> started(dag_.layers.size(), false);
      for (int a = 0; a < n_; ++a)
        if (done >> a & 1)
          started[static_cast<size_t>(dag_.atoms[static_cast<size_t>(a)].layer)] = true;
      int min_depth = std::numeric_limits<int>::max();
      for (int a : r) {
        const Atom& at = dag_.atoms[static_cast<size_t>(a)];
        if (at.sample == sample) min_depth = std::min(min_depth, dag_.layers[at.layer].depth);
      }
      auto level = [&](int a) {
        const Atom& at = dag_.atoms[static_cast<size_t>(a)];
        if (at.sample != sample) return 4;
        if (started[static_cast<size_t>(at.layer)]) return 1;
        return dag_.layers[static_cast<size_t>(at.layer)].depth == min_depth ? 2 : 3;
      };
      pool.clear();
      for (int lv = 1; lv <= 4 && slots > 0; ++lv) {
        std::vector<int> at_level;
        for (int a : r)
          if (level(a) == lv) at_level.push_back(a);
        if (static_cast<int>(at_level.size()) <= slots) {
          for (int a : at_level) fixed |= Mask{1} << a;
          slots -= static_cast<int>(at_level.size());
        } else {
          pool = at_level;  // the deciding level
          break;
        }
      }
      if (slots == 0 || pool.empty()) return {fixed};
    }
    // Every choice of `slots` atoms of `pool`.
    std::vector<int> idx(static_cast<size_t>(slots));
    for (int i = 0; i < slots; ++i) idx[static_cast<size_t>(i)] = i;
    const int p = static_cast<int>(pool.size());
    for (;;) {
      Mask m = fixed;
      for (int i : idx) m |= Mask{1} << pool[static_cast<size_t>(i)];
      out.push_back(m);
      int i = slots - 1;
      while (i >= 0 && idx[static_cast<size_t>(i)] == p - slots + i) --i;
      if (i < 0) break;
      ++idx[static_cast<size_t>(i)];
      for (int j = i + 1; j < slots; ++j)
        idx[static_cast<size_t>(j)] = idx[static_cast<size_t>(j - 1)] + 1;
    }
    return out;
  }

  // The minimum cost of the rest from `done`; a value >= budget means "at least budget" (then
  // nothing exact is stored).
  double solve(Mask done, double budget) {
    if (done == full_) return 0;
    if (auto it = exact_.find(done); it != exact_.end()) return it->second;
    double lb = bound_ ? lower_bound(done) : 0;
    if (auto it = at_least_.find(done); it != at_least_.end()) lb = std::max(lb, it->second);
    if (bound_ && lb >= budget) return lb;
    ++states_;
    double best = kInf;
    Mask best_opt = 0;
    for (Mask opt : options(done)) {
      const double c = cycles_of(opt);
      const double limit = bound_ ? std::min(budget, best) - c : kInf;
      const double rest = solve(done | opt, limit);
      if (c + rest < best) {
        best = c + rest;
        best_opt = opt;
      }
    }
    if (!bound_ || best < budget) {
      exact_[done] = best;
      choice_[done] = best_opt;
    } else {
      at_least_[done] = std::max(lb, budget);
    }
    return best;
  }

  const AtomicDag& dag_;
  int n_, engines_;
  DpOptions options_;
  bool bound_;
  Mask full_ = 0;
  std::vector<Mask> pred_mask_;
  std::unordered_map<Mask, double> exact_, at_least_;
  std::unordered_map<Mask, Mask> choice_;
  int64_t states_ = 0;
};

}  // namespace

DpResult dp_schedule(const AtomicDag& dag, int engines, DpOptions options, bool branch_and_bound) {
  if (dag.atoms.size() > 63) {
    throw Error("dp_schedule: " + std::to_string(dag.atoms.size()) +
                " atoms; the exact search takes at most 63");
  }
  return Search(dag, engines, options, branch_and_bound).run();
}

}  // namespace dgs::atomic
