#include "common/plan/plan_prefix.h"

#include <map>
#include <string>
#include <utility>

namespace dgs {

namespace {

int renumbered(const std::vector<int>& index, int i) {
  return i < 0 ? i : index[size_t(i)];
}

template <typename V>
std::map<int, V> renumbered_keys(const std::vector<int>& index, const std::map<int, V>& m) {
  std::map<int, V> out;
  for (const auto& [k, v] : m) out.emplace(renumbered(index, k), v);
  return out;
}

}  // namespace

PlanPrefix plan_prefix(const Graph& g, const Plan& plan, size_t stages) {
  if (stages > plan.stages.size())
    throw Error("plan of '" + g.name + "': a prefix of " + std::to_string(stages) +
                " stages, but the plan has " + std::to_string(plan.stages.size()));
  std::vector<char> seen(size_t(g.num_ops()), 0);
  std::vector<int> ops;
  for (size_t s = 0; s < stages; ++s)
    for (const Task& t : plan.stages[s].tasks)
      for (int o : t.ops)
        if (o >= 0 && o < g.num_ops() && !seen[size_t(o)]) {
          seen[size_t(o)] = 1;
          ops.push_back(o);
        }
  PlanPrefix p{induced_subgraph(g, ops), plan};
  for (size_t s = stages; s < plan.stages.size() && p.whole_ops; ++s)
    for (const Task& t : plan.stages[s].tasks)
      for (int o : t.ops)
        if (o >= 0 && o < g.num_ops() && seen[size_t(o)]) p.whole_ops = false;
  p.plan.stages.resize(stages);
  const std::vector<int>& ti = p.sub.tensor_index;
  for (Stage& st : p.plan.stages)
    for (Task& t : st.tasks) {
      for (int& o : t.ops) o = renumbered(p.sub.op_index, o);
      t.regions = renumbered_keys(ti, t.regions);
      t.kept = renumbered_keys(ti, t.kept);
      t.scope = renumbered_keys(ti, t.scope);
      for (int& x : t.pinned) x = renumbered(ti, x);
    }
  return p;
}

}  // namespace dgs
