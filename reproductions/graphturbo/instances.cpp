// Instances, orders, Algorithm 4 and the plan (see instances.h).
#include "reproductions/graphturbo/instances.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/util/error.h"

namespace dgs::graphturbo {

std::vector<int> algorithm3_order(const InstanceDag& dag, const std::vector<int>& visit_in) {
  const size_t n = dag.producers.size();
  std::vector<int> indegree(n);
  std::vector<std::vector<int>> consumers(n);
  for (size_t i = 0; i < n; ++i) {
    indegree[i] = static_cast<int>(dag.producers[i].size());
    for (int q : dag.producers[i]) consumers[size_t(q)].push_back(int(i));
  }
  std::vector<int> visit = visit_in, ready, order;
  auto erase = [](std::vector<int>& v, int x) {
    v.erase(std::remove(v.begin(), v.end(), x), v.end());
  };
  while (!visit.empty() || !ready.empty()) {
    for (int x : std::vector<int>(visit))  // lines 3-4
      if (indegree[size_t(x)] == 0) {
        ready.push_back(x);
        erase(visit, x);
      }
    while (!ready.empty()) {  // lines 5-14
      int p = static_cast<int>(ready.size()) - 1;
      while (p > 0 && indegree[size_t(ready[size_t(p)])] != 0) --p;
      const int sgi = ready[size_t(p)];
      if (indegree[size_t(sgi)] != 0) throw Error("Algorithm 3: no ready instance (cycle)");
      order.push_back(sgi);
      ready.erase(ready.begin() + p);
      for (int c : consumers[size_t(sgi)]) {
        --indegree[size_t(c)];
        erase(ready, c);  // pushed again at the end (no duplicates)
        ready.push_back(c);
        erase(visit, c);
      }
    }
  }
  return order;
}

int64_t peak_live_bytes(const InstanceDag& dag, const std::vector<int>& order) {
  const size_t n = order.size();
  std::vector<int> pos(dag.producers.size());
  for (size_t i = 0; i < n; ++i) pos[size_t(order[i])] = int(i);
  std::vector<int> last_use(dag.producers.size(), -1);
  for (size_t i = 0; i < dag.producers.size(); ++i) {
    last_use[i] = std::max(last_use[i], pos[i]);
    for (int q : dag.producers[i]) last_use[size_t(q)] = std::max(last_use[size_t(q)], pos[i]);
  }
  int64_t peak = 0;
  for (size_t step = 0; step < n; ++step) {
    int64_t live = 0;
    for (size_t i = 0; i < dag.producers.size(); ++i)
      if (pos[i] <= int(step) && last_use[i] >= int(step)) live += dag.output_bytes[i];
    peak = std::max(peak, live);
  }
  return peak;
}

InstanceDag fig6_instance_dag() {
  InstanceDag d;
  const char levels[] = {'a', 'b', 'c', 'd'};
  int first = 0;
  for (int level = 0, count = 8; level < 4; ++level, count /= 2) {
    for (int k = 0; k < count; ++k) {
      d.labels.push_back(std::string(1, levels[level]) + std::to_string(k + 1));
      d.output_bytes.push_back(1);  // S = 2: every instance output has the same size
      std::vector<int> prod;
      if (level > 0) prod = {first - 2 * count + 2 * k, first - 2 * count + 2 * k + 1};
      d.producers.push_back(prod);
    }
    first += count;
  }
  return d;
}

std::vector<int64_t> plain_binding(const Shape& s, int cores) {
  std::vector<int64_t> b(s.size(), 1);
  int64_t left = cores;
  for (size_t d = 0; d < s.size(); ++d) {
    for (int64_t f : {8, 4, 2, 1}) {
      if (f <= left && s[d] % f == 0) {
        b[d] = f;
        left /= f;
        break;
      }
    }
  }
  return b;
}

namespace {

// The slice of axis `dim` of `shape` that instance k of f covers.
Region instance_region(const Shape& shape, int dim, int64_t k, int64_t f) {
  Region r = full_region(shape);
  const int64_t e = shape[size_t(dim)];
  r[size_t(dim)] = {e * k / f, e * (k + 1) / f};
  return r;
}

// The tensors a sub-graph writes: outputs read outside it or graph outputs.
std::vector<int> written_tensors(const Graph& g, const Grouping& gr, int sg) {
  std::vector<int> out;
  for (int op : gr.subgraphs[size_t(sg)].ops)
    for (int t : g.op(op).outputs) {
      const Tensor& tt = g.tensor(t);
      bool outside = tt.role == TensorRole::Output;
      for (int c : tt.consumers)
        if (gr.subgraph_of_op[size_t(c)] != sg) outside = true;
      if (outside) out.push_back(t);
    }
  return out;
}

// The factor actually used: the best split's, or 1 when some written tensor does not divide.
int64_t usable_factor(const Graph& g, const Grouping& gr, int sg) {
  const SubGraph& s = gr.subgraphs[size_t(sg)];
  const int64_t f = s.best.factor;
  for (int t : written_tensors(g, gr, sg)) {
    const Shape& sh = g.tensor(t).shape;
    if (size_t(s.best.dim) >= sh.size() || sh[size_t(s.best.dim)] % f != 0) return 1;
  }
  return f;
}

}  // namespace

Schedule schedule_graph(const Graph& g, const GtParams& p) {
  Schedule s;
  s.grouping = group_subgraphs(g, p);
  const Grouping& gr = s.grouping;
  const int nsg = static_cast<int>(gr.subgraphs.size());
  std::vector<int64_t> factor(size_t(nsg), 1);
  std::vector<int> first(size_t(nsg), 0);
  for (int i = 0; i < nsg; ++i) {
    factor[size_t(i)] = usable_factor(g, gr, i);
    first[size_t(i)] = static_cast<int>(s.instances.size());
    for (int64_t k = 0; k < factor[size_t(i)]; ++k) s.instances.push_back({i, int(k)});
  }
  // Instance edges, keeping those whose index ranges intersect (split axis 0 on both sides:
  // fractions of the batch; otherwise every pair).
  for (const Instance& in : s.instances) {
    const SubGraph& sg = gr.subgraphs[size_t(in.subgraph)];
    const int64_t fc = factor[size_t(in.subgraph)];
    std::vector<int> prods;
    for (int q : gr.producers[size_t(in.subgraph)]) {
      const int64_t fp = factor[size_t(q)];
      const bool batch_both = sg.best.dim == 0 && gr.subgraphs[size_t(q)].best.dim == 0;
      for (int64_t k = 0; k < fp; ++k) {
        const bool overlap =
            !batch_both || (k * fc < (in.index + 1) * fp && in.index * fp < (k + 1) * fc);
        if (overlap) prods.push_back(first[size_t(q)] + int(k));
      }
    }
    s.dag.producers.push_back(prods);
    int64_t bytes = 0;
    for (int t : written_tensors(g, gr, in.subgraph)) bytes += g.tensor(t).numel();
    s.dag.output_bytes.push_back(bytes * p.element_bytes / fc);
    s.dag.labels.push_back("sg" + std::to_string(in.subgraph) + "." + std::to_string(in.index));
  }
  for (int i = 0; i < static_cast<int>(s.instances.size()); ++i) s.bfs.push_back(i);
  s.dfs = algorithm3_order(s.dag, s.bfs);
  s.bfs_peak = peak_live_bytes(s.dag, s.bfs);
  s.dfs_peak = peak_live_bytes(s.dag, s.dfs);
  s.dfs_chosen = s.dfs_peak <= s.bfs_peak;
  s.order = s.dfs_chosen ? s.dfs : s.bfs;

  // Algorithm 4 over the reverse of the order.
  const size_t n = s.instances.size();
  s.binding.assign(n, {});
  s.scope.assign(n, "l1");
  auto out_shape = [&](int i) {
    const Instance& in = s.instances[size_t(i)];
    const SubGraph& sg = gr.subgraphs[size_t(in.subgraph)];
    return region_shape(instance_region(g.tensor(sg.output).shape, sg.best.dim, in.index,
                                        factor[size_t(in.subgraph)]));
  };
  auto infer = [&](const std::vector<int64_t>& b, const Shape& producer) {
    if (b.size() != producer.size()) return std::vector<int64_t>{};
    for (size_t d = 0; d < b.size(); ++d)
      if (producer[d] % b[d] != 0) return std::vector<int64_t>{};
    return b;
  };
  auto cores_of = [](const std::vector<int64_t>& b) {
    int64_t c = 1;
    for (int64_t x : b) c *= x;
    return c;
  };
  for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
    const int i = *it;
    const std::vector<int64_t> plain = plain_binding(out_shape(i), p.cores);
    if (s.binding[size_t(i)].empty() || s.scope[size_t(i)] != "l1") {
      s.binding[size_t(i)] = plain;
      for (int j : s.dag.producers[size_t(i)]) {
        const std::vector<int64_t> inf = infer(plain, out_shape(j));
        if (inf.empty()) continue;
        if (s.binding[size_t(j)].empty()) {
          s.binding[size_t(j)] = inf;
        } else if (s.binding[size_t(j)] != inf) {
          s.scope[size_t(j)] = "llb";
          ++s.scope_mismatches;
        }
      }
    } else if (cores_of(s.binding[size_t(i)]) < cores_of(plain)) {
      s.binding[size_t(i)] = plain;  // line 16: keep the binding that uses more cores
    }
  }
  // Graph outputs go to DDR.
  for (size_t i = 0; i < n; ++i)
    for (int t : written_tensors(g, gr, s.instances[i].subgraph))
      if (g.tensor(t).role == TensorRole::Output) s.scope[i] = "ddr";

  // §4.3: liveness over the order; spill the longest-living L1 tensor to the LLB (then DDR)
  // while a level overflows. L1 holds an instance output spread over the cores it is bound to.
  std::vector<int> pos(n), last(n);
  for (size_t k = 0; k < n; ++k) pos[size_t(s.order[k])] = int(k);
  for (size_t i = 0; i < n; ++i) {
    last[i] = pos[i];
    for (int q : s.dag.producers[i]) last[size_t(q)] = std::max(last[size_t(q)], pos[i]);
  }
  const int64_t l1_total = p.l1_bytes * p.cores;
  for (const char* level : {"l1", "llb"}) {
    const int64_t cap = std::string(level) == "l1" ? l1_total : p.llb_bytes;
    for (size_t step = 0; step < n; ++step) {
      for (;;) {
        int64_t used = 0;
        int longest = -1;
        for (size_t i = 0; i < n; ++i) {
          if (s.scope[i] != level || pos[i] > int(step) || last[i] < int(step)) continue;
          used += s.dag.output_bytes[i];
          if (longest < 0 || last[i] - pos[i] > last[size_t(longest)] - pos[size_t(longest)])
            longest = int(i);
        }
        if (used <= cap || longest < 0) break;
        if (std::string(level) == "l1") {
          s.scope[size_t(longest)] = "llb";
          ++s.spilled_to_llb;
        } else {
          s.scope[size_t(longest)] = "ddr";
          ++s.spilled_to_ddr;
        }
      }
    }
  }
  return s;
}

Plan schedule_plan(const Graph& g, const Schedule& s, int cluster) {
  const Grouping& gr = s.grouping;
  Plan plan;
  plan.scheduler = "GraphTurbo";
  plan.graph = g.name;
  for (int i : s.order) {
    const Instance& in = s.instances[size_t(i)];
    const SubGraph& sg = gr.subgraphs[size_t(in.subgraph)];
    const int64_t f = usable_factor(g, gr, in.subgraph);
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = sg.ops;
    for (int w : written_tensors(g, gr, in.subgraph)) {
      if (f > 1) t.regions[w] = instance_region(g.tensor(w).shape, sg.best.dim, in.index, f);
      if (s.scope[size_t(i)] != "ddr") t.scope[w] = s.scope[size_t(i)];
    }
    t.placement.unit = UnitKind::Core;
    t.placement.index = {cluster, 0};
    const std::vector<int64_t>& b = s.binding[size_t(i)];
    int64_t cores = 1;
    for (int64_t x : b) cores *= x;
    t.placement.count = static_cast<int>(cores);
    if (task_primary_tensor(g, t) == sg.output && b.size() == g.tensor(sg.output).shape.size())
      t.placement.binding = b;
    Stage st;
    st.tasks.push_back(std::move(t));
    plan.stages.push_back(std::move(st));
  }
  return plan;
}

}  // namespace dgs::graphturbo
