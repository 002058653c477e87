#include "reproductions/brickdl/conflict_sim.h"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <set>

#include "common/brick/brick_layout.h"
#include "common/graph/iteration_space.h"
#include "common/util/error.h"

namespace dgs::brickdl {

namespace {

// For a consumer unit and one producer unit: per dim, per brick coordinate of the consumer, the
// range of the producer's brick coordinates its brick needs.
struct DepMap {
  int producer = -1;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> ranges;  // [dim][coord] -> [lo, hi]
};

struct Frame {
  int unit;
  int64_t brick;
  int64_t dep;
};

// Each brick unit's layout and, for each of its bricks, the producer bricks it reads (per dim: the
// ops are separable per dim, the other dims whole).
struct BrickDeps {
  std::vector<BrickLayout> layouts;
  std::vector<std::vector<DepMap>> deps;  // per unit, one per producer unit
  // The dependency `k` of brick b of unit u (enumerating producers, then their boxes row-major);
  // false past the end.
  bool at(int u, int64_t b, int64_t k, int* pu, int64_t* pb) const {
    const std::vector<int64_t> c = layouts[static_cast<size_t>(u)].brick_coords(b);
    for (const DepMap& m : deps[static_cast<size_t>(u)]) {
      int64_t n = 1;
      std::vector<std::pair<int64_t, int64_t>> box(c.size());
      for (size_t d = 0; d < c.size(); ++d) {
        box[d] = m.ranges[d][static_cast<size_t>(c[d])];
        n *= std::max<int64_t>(0, box[d].second - box[d].first + 1);
      }
      if (k >= n) {
        k -= n;
        continue;
      }
      std::vector<int64_t> pc(c.size());
      for (size_t d = c.size(); d-- > 0;) {
        const int64_t len = box[d].second - box[d].first + 1;
        pc[d] = box[d].first + k % len;
        k /= len;
      }
      *pu = m.producer;
      *pb = layouts[static_cast<size_t>(m.producer)].logical_index(pc);
      return true;
    }
    return false;
  }
};

BrickDeps brick_deps(const Graph& g, const SubgraphAnalysis& a) {
  const std::vector<BrickUnit>& units = a.units;
  const size_t nu = units.size();
  std::map<int, int> unit_of;
  for (size_t u = 0; u < nu; ++u) unit_of[units[u].output] = static_cast<int>(u);
  BrickDeps r;
  std::vector<BrickLayout>& layouts = r.layouts;
  for (const BrickUnit& u : units)
    layouts.emplace_back(g.tensor(u.output).shape, brick_extent(g.tensor(u.output).shape, a.edge));

  // Dependencies per dim (the ops are separable per dim; other dims whole).
  std::vector<std::vector<DepMap>>& deps = r.deps;
  deps.resize(nu);
  for (size_t u = 0; u < nu; ++u) {
    const Shape& s = g.tensor(units[u].output).shape;
    std::map<int, DepMap> by_producer;
    for (size_t d = 0; d < s.size(); ++d) {
      const int64_t e = layouts[u].brick_extent()[d];
      for (int64_t c = 0; c < layouts[u].grid()[d]; ++c) {
        Region tile = full_region(s);
        tile[d] = {c * e, std::min(s[d], (c + 1) * e)};
        for (int op : units[u].ops) {
          const std::vector<Region> in = input_regions(g, op, tile);
          for (size_t i = 0; i < in.size(); ++i) {
            auto it = unit_of.find(g.op(op).inputs[i]);
            if (it == unit_of.end() || it->second == static_cast<int>(u)) continue;
            DepMap& m = by_producer[it->second];
            m.producer = it->second;
            m.ranges.resize(s.size());
            m.ranges[d].resize(static_cast<size_t>(layouts[u].grid()[d]), {0, -1});
            const BrickLayout& pl = layouts[static_cast<size_t>(it->second)];
            const Interval r = in[i][d];
            auto& slot = m.ranges[d][static_cast<size_t>(c)];
            if (r.empty()) continue;
            const int64_t lo = r.lo / pl.brick_extent()[d], hi = (r.hi - 1) / pl.brick_extent()[d];
            slot = slot.second < slot.first
                       ? std::make_pair(lo, hi)
                       : std::make_pair(std::min(slot.first, lo), std::max(slot.second, hi));
          }
        }
      }
    }
    for (auto& [p, m] : by_producer) deps[u].push_back(std::move(m));
  }
  return r;
}

}  // namespace

ConflictEstimate simulate_memoized(const Graph& g, const SubgraphAnalysis& a, int workers) {
  const std::vector<BrickUnit>& units = a.units;
  const size_t nu = units.size();
  const BrickDeps bd = brick_deps(g, a);
  const std::vector<BrickLayout>& layouts = bd.layouts;

  auto dep_at = [&](int u, int64_t b, int64_t k, int* pu, int64_t* pb) {
    return bd.at(u, b, k, pu, pb);
  };

  // Tags and waiters.
  std::vector<std::vector<int8_t>> tag(nu);
  for (size_t u = 0; u < nu; ++u) tag[u].assign(static_cast<size_t>(layouts[u].num_bricks()), 0);
  std::map<std::pair<int, int64_t>, std::vector<int>> waiters;
  std::set<int> root_units;
  for (size_t u = 0; u < nu; ++u) {
    const Tensor& t = g.tensor(units[u].output);
    bool outside = t.role == TensorRole::Output;
    for (int c : t.consumers) outside |= std::find(a.ops.begin(), a.ops.end(), c) == a.ops.end();
    if (outside) root_units.insert(static_cast<int>(u));
  }
  std::vector<std::pair<int, int64_t>> roots;
  for (int u : root_units)
    for (int64_t b = 0; b < layouts[static_cast<size_t>(u)].num_bricks(); ++b)
      roots.push_back({u, b});

  ConflictEstimate est;
  const int W = std::max(1, workers);
  std::vector<std::vector<Frame>> stack(static_cast<size_t>(W));
  std::vector<int64_t> next_root(static_cast<size_t>(W));
  std::vector<bool> computing(static_cast<size_t>(W), false);
  for (int w = 0; w < W; ++w) next_root[static_cast<size_t>(w)] = w;
  using Event = std::pair<int64_t, int>;  // (time, worker)
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;

  // Runs worker w at time t until it computes (event at t + 1), waits, or runs out of roots.
  std::function<void(int, int64_t)> advance = [&](int w, int64_t t) {
    auto& st = stack[static_cast<size_t>(w)];
    while (true) {
      if (st.empty()) {
        const int64_t r = next_root[static_cast<size_t>(w)];
        if (r >= static_cast<int64_t>(roots.size())) return;
        next_root[static_cast<size_t>(w)] += W;
        auto [u, b] = roots[static_cast<size_t>(r)];
        int8_t& tg = tag[static_cast<size_t>(u)][static_cast<size_t>(b)];
        if (tg != 0) {
          ++est.conflicting;  // lost claim: another worker computed it as a dependency
          continue;
        }
        tg = 1;
        ++est.compulsory;
        st.push_back({u, b, 0});
      }
      Frame& f = st.back();
      int pu = 0;
      int64_t pb = 0;
      bool pushed = false, blocked = false;
      while (dep_at(f.unit, f.brick, f.dep, &pu, &pb)) {
        int8_t& tg = tag[static_cast<size_t>(pu)][static_cast<size_t>(pb)];
        ++f.dep;
        if (tg == 2) continue;
        if (tg == 0) {
          tg = 1;
          ++est.compulsory;
          st.push_back({pu, pb, 0});
          pushed = true;
          break;
        }
        ++est.conflicting;  // the failed claim
        waiters[{pu, pb}].push_back(w);
        blocked = true;
        break;
      }
      if (blocked) return;
      if (pushed) continue;
      computing[static_cast<size_t>(w)] = true;
      events.push({t + 1, w});
      return;
    }
  };

  for (int w = 0; w < W; ++w) advance(w, 0);
  while (!events.empty()) {
    const auto [t, w] = events.top();
    events.pop();
    est.time_units = std::max(est.time_units, t);
    if (computing[static_cast<size_t>(w)]) {
      computing[static_cast<size_t>(w)] = false;
      const Frame f = stack[static_cast<size_t>(w)].back();
      stack[static_cast<size_t>(w)].pop_back();
      tag[static_cast<size_t>(f.unit)][static_cast<size_t>(f.brick)] = 2;
      ++est.compulsory;
      ++est.bricks;
      auto it = waiters.find({f.unit, f.brick});
      if (it != waiters.end()) {
        for (int x : it->second) {
          ++est.conflicting;  // the successful poll
          events.push({t, x});
        }
        waiters.erase(it);
      }
    }
    advance(w, t);
  }
  return est;
}

}  // namespace dgs::brickdl
