// Plans: names, validity check and JSON (see plan.h).
#include "common/plan/plan.h"

#include <nlohmann/json.hpp>

#include "common/util/error.h"

namespace dgs {

namespace {
constexpr std::pair<MemLevel, std::string_view> kMemLevelNames[] = {
    {MemLevel::Host, "host"},
    {MemLevel::DRAM, "dram"},
    {MemLevel::L2, "l2"},
    {MemLevel::Shared, "shared"},
    {MemLevel::Register, "register"}};
constexpr std::pair<TaskKind, std::string_view> kTaskKindNames[] = {
    {TaskKind::Sequential, "sequential"}, {TaskKind::Merged, "merged"}, {TaskKind::Fused, "fused"}};
}  // namespace

std::string_view mem_level_name(MemLevel m) {
  for (const auto& [v, n] : kMemLevelNames)
    if (v == m) return n;
  return "?";
}

MemLevel mem_level_from_name(std::string_view s) {
  for (const auto& [v, n] : kMemLevelNames)
    if (n == s) return v;
  throw Error("unknown memory level '" + std::string(s) +
              "'; expected one of host, dram, l2, shared, register");
}

std::string_view task_kind_name(TaskKind k) {
  for (const auto& [v, n] : kTaskKindNames)
    if (v == k) return n;
  return "?";
}

TaskKind task_kind_from_name(std::string_view s) {
  for (const auto& [v, n] : kTaskKindNames)
    if (n == s) return v;
  throw Error("unknown task kind '" + std::string(s) +
              "'; expected one of sequential, merged, fused");
}

int Plan::num_tasks() const {
  int n = 0;
  for (const Stage& s : stages) n += static_cast<int>(s.tasks.size());
  return n;
}

void Plan::check(const Graph& g) const {
  const std::string where = "plan '" + scheduler + "' of graph '" + g.name + "'";
  // stage and position of every op: a producer must run in an earlier stage, or earlier in the
  // same task.
  std::vector<int> stage_of(static_cast<size_t>(g.num_ops()), -1);
  std::vector<int> task_of(static_cast<size_t>(g.num_ops()), -1);
  std::vector<int> pos_of(static_cast<size_t>(g.num_ops()), -1);
  int task_id = 0;
  for (size_t si = 0; si < stages.size(); ++si) {
    for (size_t ti = 0; ti < stages[si].tasks.size(); ++ti, ++task_id) {
      const Task& t = stages[si].tasks[ti];
      if (t.ops.empty())
        throw Error(where + ": stage " + std::to_string(si) + " task " + std::to_string(ti) +
                    " has no ops; expected at least one op");
      for (size_t p = 0; p < t.ops.size(); ++p) {
        const int op = t.ops[p];
        if (op < 0 || op >= g.num_ops())
          throw Error(where + ": stage " + std::to_string(si) + " task " + std::to_string(ti) +
                      " names op index " + std::to_string(op) + "; expected 0.." +
                      std::to_string(g.num_ops() - 1));
        const size_t u = static_cast<size_t>(op);
        if (stage_of[u] >= 0)
          throw Error(where + ": op '" + g.op(op).name + "' appears twice (stages " +
                      std::to_string(stage_of[u]) + " and " + std::to_string(si) +
                      "); expected every op exactly once");
        stage_of[u] = static_cast<int>(si);
        task_of[u] = task_id;
        pos_of[u] = static_cast<int>(p);
      }
      for (const auto& [tensor, level] : t.kept) {
        (void)level;
        if (tensor < 0 || tensor >= g.num_tensors())
          throw Error(where + ": stage " + std::to_string(si) + " task " + std::to_string(ti) +
                      " keeps tensor index " + std::to_string(tensor) + "; expected 0.." +
                      std::to_string(g.num_tensors() - 1));
      }
    }
  }
  for (int op = 0; op < g.num_ops(); ++op) {
    const size_t u = static_cast<size_t>(op);
    if (stage_of[u] < 0)
      throw Error(where + ": op '" + g.op(op).name + "' is in no stage; expected every op once");
    for (int pred : g.predecessors(op)) {
      const size_t v = static_cast<size_t>(pred);
      const bool earlier_stage = stage_of[v] < stage_of[u];
      const bool earlier_in_task = task_of[v] == task_of[u] && pos_of[v] < pos_of[u];
      if (!earlier_stage && !earlier_in_task)
        throw Error(where + ": op '" + g.op(op).name + "' (stage " + std::to_string(stage_of[u]) +
                    ") runs before or beside its producer '" + g.op(pred).name + "' (stage " +
                    std::to_string(stage_of[v]) +
                    "); expected producers in an earlier stage or earlier in the same task");
    }
  }
}

std::string plan_to_json(const Plan& p, const Graph& g) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["scheduler"] = p.scheduler;
  j["graph"] = p.graph;
  ordered_json stages = ordered_json::array();
  for (const Stage& s : p.stages) {
    ordered_json tasks = ordered_json::array();
    for (const Task& t : s.tasks) {
      ordered_json jt;
      jt["kind"] = std::string(task_kind_name(t.kind));
      ordered_json ops = ordered_json::array();
      for (int op : t.ops) {
        if (op < 0 || op >= g.num_ops())
          throw Error("plan_to_json: op index " + std::to_string(op) + " out of range for graph '" +
                      g.name + "'");
        ops.push_back(g.op(op).name);
      }
      jt["ops"] = std::move(ops);
      if (!t.kept.empty()) {
        ordered_json kept = ordered_json::object();
        for (const auto& [tensor, level] : t.kept) {
          if (tensor < 0 || tensor >= g.num_tensors())
            throw Error("plan_to_json: tensor index " + std::to_string(tensor) +
                        " out of range for graph '" + g.name + "'");
          kept[g.tensor(tensor).name] = std::string(mem_level_name(level));
        }
        jt["kept"] = std::move(kept);
      }
      if (!t.tile.empty()) jt["tile"] = t.tile;
      if (t.placement >= 0) jt["placement"] = t.placement;
      if (!t.params.empty()) {
        ordered_json params = ordered_json::object();
        for (const auto& [k, v] : t.params) params[k] = v;
        jt["params"] = std::move(params);
      }
      tasks.push_back(std::move(jt));
    }
    ordered_json js;
    js["tasks"] = std::move(tasks);
    stages.push_back(std::move(js));
  }
  j["stages"] = std::move(stages);
  return j.dump(2) + "\n";
}

Plan plan_from_json(const std::string& text, const Graph& g, const std::string& origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(origin + ": not valid JSON (" + std::string(e.what()) +
                "); expected a plan object");
  }
  auto fail = [&](const std::string& where, const std::string& what, const std::string& expected) {
    throw Error(origin + ": " + where + ": " + what + "; expected " + expected);
  };
  if (!j.is_object()) fail("top level", "not an object", "{\"scheduler\", \"graph\", \"stages\"}");
  Plan p;
  auto str_field = [&](const char* name, std::string& out) {
    if (!j.contains(name)) return;
    if (!j[name].is_string()) fail(name, "not a string", "a string");
    out = j[name].get<std::string>();
  };
  str_field("scheduler", p.scheduler);
  str_field("graph", p.graph);
  if (!j.contains("stages") || !j["stages"].is_array())
    fail("stages", "missing or not an array", "an array of stages");
  const auto& stages = j["stages"];
  for (size_t si = 0; si < stages.size(); ++si) {
    const std::string ws = "stages[" + std::to_string(si) + "]";
    const auto& js = stages[si];
    if (!js.is_object() || !js.contains("tasks") || !js["tasks"].is_array())
      fail(ws, "no \"tasks\" array", "{\"tasks\": [...]}");
    Stage stage;
    const auto& tasks = js["tasks"];
    for (size_t ti = 0; ti < tasks.size(); ++ti) {
      const std::string wt = ws + ".tasks[" + std::to_string(ti) + "]";
      const auto& jt = tasks[ti];
      if (!jt.is_object()) fail(wt, "not an object", "a task object");
      Task t;
      if (jt.contains("kind")) {
        if (!jt["kind"].is_string()) fail(wt + ".kind", "not a string", "sequential|merged|fused");
        try {
          t.kind = task_kind_from_name(jt["kind"].get<std::string>());
        } catch (const Error& e) {
          fail(wt + ".kind", e.what(), "sequential|merged|fused");
        }
      }
      if (!jt.contains("ops") || !jt["ops"].is_array())
        fail(wt + ".ops", "missing or not an array", "an array of op names");
      for (const auto& jo : jt["ops"]) {
        if (!jo.is_string()) fail(wt + ".ops", "an entry is not a string", "op names");
        const std::string name = jo.get<std::string>();
        const int op = g.find_op(name);
        if (op < 0)
          fail(wt + ".ops", "unknown op '" + name + "'", "an op of graph '" + g.name + "'");
        t.ops.push_back(op);
      }
      if (jt.contains("kept")) {
        if (!jt["kept"].is_object()) fail(wt + ".kept", "not an object", "{tensor name: level}");
        for (const auto& [name, level] : jt["kept"].items()) {
          const int tensor = g.find_tensor(name);
          if (tensor < 0)
            fail(wt + ".kept", "unknown tensor '" + name + "'",
                 "a tensor of graph '" + g.name + "'");
          if (!level.is_string()) fail(wt + ".kept." + name, "not a string", "a memory level");
          try {
            t.kept[tensor] = mem_level_from_name(level.get<std::string>());
          } catch (const Error& e) {
            fail(wt + ".kept." + name, e.what(), "host|dram|l2|shared|register");
          }
        }
      }
      if (jt.contains("tile")) {
        if (!jt["tile"].is_array()) fail(wt + ".tile", "not an array", "an array of integers");
        for (const auto& v : jt["tile"]) {
          if (!v.is_number_integer()) fail(wt + ".tile", "an entry is not an integer", "integers");
          t.tile.push_back(v.get<int64_t>());
        }
      }
      if (jt.contains("placement")) {
        if (!jt["placement"].is_number_integer())
          fail(wt + ".placement", "not an integer", "an integer");
        t.placement = jt["placement"].get<int>();
      }
      if (jt.contains("params")) {
        if (!jt["params"].is_object()) fail(wt + ".params", "not an object", "{name: number}");
        for (const auto& [name, v] : jt["params"].items()) {
          if (!v.is_number()) fail(wt + ".params." + name, "not a number", "a number");
          t.params[name] = v.get<double>();
        }
      }
      stage.tasks.push_back(std::move(t));
    }
    p.stages.push_back(std::move(stage));
  }
  return p;
}

}  // namespace dgs
