#include "reproductions/welder/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

namespace dgs::welder {

// Each variant's label in reports and its scheduler's name.
struct VariantNames {
  Variant variant;
  std::string_view label, scheduler;
};
constexpr VariantNames kVariantNames[] = {{Variant::None, "Welder-none", "welder.none"},
                                          {Variant::Base, "Welder-base", "welder.base"},
                                          {Variant::Welder, "Welder", "welder"},
                                          {Variant::AnsorLike, "Ansor-like", "welder.ansor"}};

std::string variant_name(Variant v) {
  for (const VariantNames& n : kVariantNames)
    if (n.variant == v) return std::string(n.label);
  return "?";
}

std::string scheduler_name(Variant v) {
  for (const VariantNames& n : kVariantNames)
    if (n.variant == v) return std::string(n.scheduler);
  return "?";
}

namespace {

// The consumer reads the producer's output element for element (same rank, identity map).
bool identity_access(const TileGraph& g, int producer, int consumer) {
  const TileOp& c = g.ops[consumer];
  const int t = g.ops[producer].output;
  for (const auto& in : c.inputs) {
    if (in.tensor != t) continue;
    if (in.custom() || in.dims.size() != c.space.size()) return false;
    for (size_t d = 0; d < in.dims.size(); ++d) {
      const AxisIndex& a = in.dims[d];
      if (a.full || a.terms.size() != 1 || a.terms[0].reduction ||
          a.terms[0].axis != static_cast<int>(d) || a.terms[0].coef != 1 || a.terms[0].divisor != 1)
        return false;
    }
  }
  return true;
}

bool is_pure_elementwise(const TileOp& op) {
  return op.injective() && !op.layout_only && op.type != "Transpose" && op.type != "Concat" &&
         op.type != "Slice" && op.type != "Split" && op.type != "Pad" && op.type != "Gather" &&
         op.type != "Resize" && op.type != "DepthToSpace" && op.type != "SpaceToDepth";
}

class Connector {
 public:
  Connector(const TileGraph& g, const WelderArch& arch, const ScheduleOptions& opt)
      : g_(g), arch_(arch), opt_(opt), comp_(g.ops.size()) {
    std::iota(comp_.begin(), comp_.end(), 0);
    for (size_t i = 0; i < g.ops.size(); ++i) members_[static_cast<int>(i)] = {static_cast<int>(i)};
  }

  int find(int op) const { return comp_[op]; }

  // The kernel of `ops`; internal edges not decided yet get the highest level the variant allows
  // for them (Welder-base: register, which must be eligible; else `legal` becomes false).
  KernelGroup group_of(const std::vector<int>& ops, bool* legal = nullptr) const {
    KernelGroup k;
    k.ops = ops;
    std::sort(k.ops.begin(), k.ops.end());
    if (legal) *legal = true;
    const bool register_only = opt_.variant == Variant::Base || opt_.variant == Variant::AnsorLike;
    for (int p : k.ops)
      for (int c : g_.consumers_of(p))
        if (std::binary_search(k.ops.begin(), k.ops.end(), c)) {
          auto it = levels_.find({p, c});
          Conn lvl = it == levels_.end() ? Conn::Shared : it->second;
          if (register_only && lvl != Conn::Register) {
            if (legal && !register_eligible(g_, p, c)) *legal = false;
            lvl = Conn::Register;
          }
          k.edges[{p, c}] = lvl;
        }
    return k;
  }

  const GroupResult& evaluate(const KernelGroup& k) {
    const int id = searches_->find_or_search(g_, k, arch_, opt_.limits,
                                             opt_.regions ? opt_.regions : &regions_);
    const GroupResult& r = searches_->result(id);
    // The run's counters count a signature once, whichever run searched it.
    if (static_cast<size_t>(id) >= counted_.size()) counted_.resize(static_cast<size_t>(id) + 1, 0);
    if (!counted_[static_cast<size_t>(id)]) {
      counted_[static_cast<size_t>(id)] = 1;
      ++subgraphs_;
      candidates_ += r.candidates;
      visited_ += r.visited;
    }
    return r;
  }

  // Convex: no path leaves the set and comes back (otherwise the fused kernel would need an
  // operator outside it in the middle).
  bool convex(const std::vector<int>& ops) const {
    std::vector<char> in(g_.ops.size(), 0);
    int hi = 0;
    for (int o : ops) {
      in[o] = 1;
      hi = std::max(hi, o);
    }
    std::vector<char> seen(g_.ops.size(), 0);
    std::vector<int> stack;
    for (int o : ops)
      for (int c : g_.consumers_of(o))
        if (!in[c] && c < hi && !seen[c]) {
          seen[c] = 1;
          stack.push_back(c);
        }
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      for (int c : g_.consumers_of(x)) {
        if (in[c]) return false;
        if (c < hi && !seen[c]) {
          seen[c] = 1;
          stack.push_back(c);
        }
      }
    }
    return true;
  }

  // Each register-connected component holds at most one reduction (threads cannot exchange
  // registers across two reductions).
  bool register_rule(const KernelGroup& k) const {
    std::unordered_map<int, int> parent;
    for (int o : k.ops) parent[o] = o;
    auto root = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (const auto& [e, lvl] : k.edges)
      if (lvl == Conn::Register) parent[root(e.first)] = root(e.second);
    std::unordered_map<int, int> reductions;
    for (int o : k.ops)
      if (g_.ops[o].is_reduction() && ++reductions[root(o)] > 1) return false;
    return true;
  }

  // What connect_edge minimises for one kernel (ScheduleOptions::connect_cost).
  double cost(const GroupResult& r) const {
    if (!r.valid) return std::numeric_limits<double>::infinity();
    return opt_.connect_cost == ConnectCost::Latency ? r.best.latency_us : r.best.sectors;
  }

  double cost(const std::vector<int>& ops) { return cost(evaluate(group_of(ops))); }

  void connect_edge(int p, int c, const std::vector<Conn>& options) {
    const bool same = find(p) == find(c);
    std::vector<int> merged = members_[find(p)];
    if (!same) merged.insert(merged.end(), members_[find(c)].begin(), members_[find(c)].end());
    std::sort(merged.begin(), merged.end());
    double best = std::numeric_limits<double>::infinity();
    Conn best_lvl = same ? Conn::Shared : Conn::Dram;
    const bool is_convex = same || convex(merged);
    for (Conn lvl : options) {
      if (lvl == Conn::Dram && same) continue;
      if (lvl == Conn::Register && !register_eligible(g_, p, c)) continue;
      double t;
      levels_[{p, c}] = lvl;
      if (lvl == Conn::Dram) {
        t = cost(members_[find(p)]) + cost(members_[find(c)]);
      } else {
        if (!is_convex) continue;
        bool legal = true;
        KernelGroup k = group_of(merged, &legal);
        if (!legal || !register_rule(k)) continue;
        t = cost(evaluate(k));
      }
      if (t < best) {
        best = t;
        best_lvl = lvl;
      }
    }
    if (!std::isfinite(best)) best_lvl = same ? fallback_level(p, c) : Conn::Dram;
    set(p, c, best_lvl);
  }

  // An edge inside one kernel must stay connected: register where the variant allows only that.
  Conn fallback_level(int p, int c) const {
    const bool register_only = opt_.variant == Variant::Base || opt_.variant == Variant::AnsorLike;
    (void)p;
    (void)c;
    return register_only ? Conn::Register : Conn::Shared;
  }

  void set(int p, int c, Conn lvl) {
    levels_[{p, c}] = lvl;
    if (lvl == Conn::Dram || find(p) == find(c)) return;
    const int a = find(p), b = find(c);
    for (int o : members_[b]) {
      comp_[o] = a;
      members_[a].push_back(o);
    }
    members_.erase(b);
  }

  std::vector<std::vector<int>> components() const {
    std::vector<std::vector<int>> out;
    for (const auto& [id, m] : members_) {
      auto v = m;
      std::sort(v.begin(), v.end());
      out.push_back(std::move(v));
    }
    return out;
  }

  int subgraphs_ = 0;
  int64_t candidates_ = 0;
  int64_t visited_ = 0;

 private:
  const TileGraph& g_;
  const WelderArch& arch_;
  const ScheduleOptions& opt_;
  std::vector<int> comp_;
  std::unordered_map<int, std::vector<int>> members_;
  std::map<std::pair<int, int>, Conn> levels_;
  GroupSearchCache own_searches_;
  GroupSearchCache* searches_ = opt_.searches ? opt_.searches : &own_searches_;
  std::vector<char> counted_;  // per signature id: counted in subgraphs_ & co.
  CustomRegionMemo regions_;   // custom input regions, shared by every group's tile search
};

// Orders groups topologically (Kahn on the condensed graph; ties by smallest op index).
std::vector<std::vector<int>> order_groups(const TileGraph& g,
                                           std::vector<std::vector<int>> comps) {
  std::vector<int> gid(g.ops.size(), -1);
  for (size_t i = 0; i < comps.size(); ++i)
    for (int o : comps[i]) gid[o] = static_cast<int>(i);
  std::vector<std::set<int>> succ(comps.size());
  std::vector<int> indeg(comps.size(), 0);
  for (size_t i = 0; i < comps.size(); ++i)
    for (int o : comps[i])
      for (int c : g.consumers_of(o))
        if (gid[c] != static_cast<int>(i) && succ[i].insert(gid[c]).second) ++indeg[gid[c]];
  std::set<std::pair<int, int>> ready;
  for (size_t i = 0; i < comps.size(); ++i)
    if (indeg[i] == 0) ready.insert({comps[i].front(), static_cast<int>(i)});
  std::vector<std::vector<int>> out;
  while (!ready.empty()) {
    const int i = ready.begin()->second;
    ready.erase(ready.begin());
    out.push_back(comps[i]);
    for (int s : succ[i])
      if (--indeg[s] == 0) ready.insert({comps[s].front(), s});
  }
  if (out.size() != comps.size())
    throw Error("welder: fusion groups of '" + g.name + "' form a cycle");
  return out;
}

}  // namespace

size_t GroupSearchCache::IdentityHash::operator()(const std::vector<int>& v) const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (int x : v) {
    h ^= static_cast<uint64_t>(static_cast<uint32_t>(x));
    h *= 1099511628211ull;
  }
  return static_cast<size_t>(h);
}

int GroupSearchCache::find_or_search(const TileGraph& g, const KernelGroup& grp,
                                     const WelderArch& arch, const SearchLimits& limits,
                                     CustomRegionMemo* memo) {
  if (!graph_) {
    graph_ = &g;
    limits_ = limits;
  }
  if (graph_ != &g)
    throw Error("welder: a search cache serves one tile-graph, not a second tile-graph");
  if (limits.topk != limits_.topk || limits.max_visits != limits_.max_visits)
    throw Error("welder: a search cache serves one set of search limits");
  identity_.clear();
  identity_.insert(identity_.end(), grp.ops.begin(), grp.ops.end());
  identity_.push_back(-1);
  for (const auto& [e, lvl] : grp.edges) {
    identity_.push_back(e.first);
    identity_.push_back(e.second);
    identity_.push_back(static_cast<int>(lvl));
  }
  if (auto same = by_identity_.find(identity_); same != by_identity_.end()) return same->second;
  std::string sig = group_signature(g, grp);
  auto it = by_signature_.find(sig);
  if (it == by_signature_.end()) {
    results_.push_back(schedule_group(g, grp, arch, limits, memo));
    it = by_signature_.emplace(std::move(sig), static_cast<int>(results_.size()) - 1).first;
  }
  by_identity_.emplace(identity_, it->second);
  return it->second;
}

bool register_eligible(const TileGraph& g, int producer, int consumer) {
  const TileOp& p = g.ops[producer];
  const TileOp& c = g.ops[consumer];
  if (c.injective() && identity_access(g, producer, consumer)) return true;  // epilogue
  return is_pure_elementwise(p) || p.layout_only;  // inline the producer into the consumer
}

Schedule schedule_graph(const TileGraph& g, const WelderArch& arch, const ScheduleOptions& opt) {
  Schedule s;
  s.variant = opt.variant;
  Connector con(g, arch, opt);
  const int n = static_cast<int>(g.ops.size());
  switch (opt.variant) {
    case Variant::None:
      s.algorithm = "no connection: one kernel per operator";
      break;
    case Variant::AnsorLike: {
      // TVM FuseOps-style rules (what Ansor tunes): an element-wise consumer joins its producer's
      // kernel as an epilogue; an injective producer is inlined into an injective or
      // reduce-pattern consumer (not into a convolution or matrix product); the producer must have
      // a single consumer; at most one reduction per kernel.
      s.algorithm = "rule-based (TVM/Ansor fusion rules, register level)";
      for (int p = 0; p < n; ++p) {
        const auto& cons = g.consumers_of(p);
        if (cons.size() != 1 || g.tensors[g.ops[p].output].graph_output) continue;
        const int c = cons[0];
        const TileOp& po = g.ops[p];
        const TileOp& co = g.ops[c];
        const bool epilogue = is_pure_elementwise(co) && identity_access(g, p, c);
        const bool heavy = co.type == "Conv" || co.type == "ConvTranspose" || co.type == "MatMul" ||
                           co.type == "Gemm";
        const bool prologue = (po.injective() || po.layout_only) && !heavy;
        if (!epilogue && !prologue) continue;
        int reductions = 0;
        std::vector<int> m;
        for (int x = 0; x < n; ++x)
          if (con.find(x) == con.find(p) || con.find(x) == con.find(c)) {
            m.push_back(x);
            reductions += g.ops[x].is_reduction() ? 1 : 0;
          }
        if (reductions > 1 || !con.convex(m)) continue;
        // The fused kernel must have an aligned tile that fits (as TVM's schedule must exist).
        if (!con.evaluate(con.group_of(m)).valid) continue;
        con.set(p, c, Conn::Register);
      }
      break;
    }
    case Variant::Base:
    case Variant::Welder: {
      s.algorithm = opt.variant == Variant::Base
                        ? "Fig. 7 graph connecting, levels {DRAM, register}"
                        : "Fig. 7 graph connecting, levels {DRAM, register, shared}";
      if (opt.connect_cost == ConnectCost::Transactions)
        s.algorithm += " (levels chosen by transactions, not latency: sensitivity study)";
      std::vector<Conn> options{Conn::Dram, Conn::Register};
      if (opt.variant == Variant::Welder) options.push_back(Conn::Shared);
      for (int p = 0; p < n; ++p) {
        auto cons = g.consumers_of(p);
        std::sort(cons.begin(), cons.end());
        for (int c : cons) con.connect_edge(p, c, options);
      }
      break;
    }
  }
  for (auto& ops : order_groups(g, con.components())) {
    ScheduledGroup sg;
    sg.group = con.group_of(ops);
    sg.result = con.evaluate(sg.group);
    if (!sg.result.valid) {
      std::string names;
      for (int o : ops) names += (names.empty() ? "" : ", ") + g.ops[o].name;
      throw Error("welder: no valid tile for the kernel {" + names + "} of '" + g.name +
                  "': " + sg.result.why);
    }
    if (sg.result.launches) {
      ++s.metrics.kernels;
      s.metrics.transactions += sg.result.best.sectors;
      s.metrics.irs_mib += sg.result.irs_bytes / (1024.0 * 1024.0);
      s.metrics.latency_ms += sg.result.best.latency_us / 1000.0;
    }
    s.groups.push_back(std::move(sg));
  }
  s.subgraphs_tuned = con.subgraphs_;
  s.candidates_costed = con.candidates_;
  s.tiles_visited = con.visited_;
  return s;
}

Plan to_plan(const Schedule& s, const TileGraph& tg, const std::string& graph_name) {
  return to_plan(s, tg, graph_name, nullptr);
}

Plan to_plan(const Schedule& s, const TileGraph& tg, const std::string& graph_name,
             std::vector<int>* group_stage) {
  Plan plan;
  plan.scheduler = variant_name(s.variant);
  plan.graph = graph_name;
  std::map<int, int> placed;  // graph op -> stage
  if (group_stage) group_stage->clear();
  for (const auto& sg : s.groups) {
    Task t;
    t.kind = TaskKind::Fused;
    int first_stage = -1;  // the stage of the group's first graph op placed earlier
    for (int op : sg.group.ops) {
      const int go = tg.ops[op].graph_op;
      if (go < 0) continue;
      const auto [it, added] = placed.emplace(go, static_cast<int>(plan.stages.size()));
      if (added) {
        t.ops.push_back(go);
      } else if (first_stage < 0) {
        first_stage = it->second;
      }
    }
    if (group_stage)
      group_stage->push_back(t.ops.empty() ? first_stage : static_cast<int>(plan.stages.size()));
    for (const auto& [e, lvl] : sg.group.edges) {
      const int gt = tg.tensors[tg.ops[e.first].output].graph_tensor;
      if (gt < 0) continue;
      // Kept only where this task produces it: a producer placed in an earlier stage's task
      // (another output of a multi-output operator, e.g. a Split's k after its q) wrote it there.
      const int producer = tg.ops[e.first].graph_op;
      if (std::find(t.ops.begin(), t.ops.end(), producer) == t.ops.end()) continue;
      const std::string m = lvl == Conn::Register ? "register" : "shared";
      auto it = t.kept.find(gt);
      if (it == t.kept.end() || m == "shared") t.kept[gt] = m;
    }
    // A tensor also written to global memory is not "kept".
    for (auto it = t.kept.begin(); it != t.kept.end();) {
      bool out = false;
      for (const auto& tt : tg.tensors)
        if (tt.graph_tensor == it->first) {
          out = tt.graph_output;
          for (int c : tt.consumers)
            out = out || !std::binary_search(sg.group.ops.begin(), sg.group.ops.end(), c);
        }
      it = out ? t.kept.erase(it) : std::next(it);
    }
    t.tile = sg.result.best.tile;
    if (t.ops.empty()) continue;
    Stage st;
    st.tasks.push_back(std::move(t));
    plan.stages.push_back(std::move(st));
  }
  return plan;
}

}  // namespace dgs::welder
