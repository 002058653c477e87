// Plans as JSON, format versions 2 (written) and 1 (read); see plan.h and plan.schema.json.
#include <climits>
#include <nlohmann/json.hpp>
#include <set>

#include "common/plan/plan.h"
#include "common/util/error.h"

namespace dgs {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// ----- writing --------------------------------------------------------------------------------
ordered_json region_json(const Region& r) {
  ordered_json a = ordered_json::array();
  for (const Interval& iv : r) a.push_back({iv.lo, iv.hi});
  return a;
}

std::string tensor_ref(const Graph& g, int t) {
  if (t < 0 || t >= g.num_tensors())
    throw Error("plan_to_json: tensor index " + std::to_string(t) + " out of range for graph '" +
                g.name + "'");
  return g.tensor(t).name;
}

ordered_json levels_json(const Graph& g, const std::map<int, std::string>& m) {
  ordered_json o = ordered_json::object();
  for (const auto& [t, level] : m) o[tensor_ref(g, t)] = level;
  return o;
}

ordered_json task_json(const Graph& g, const Task& t) {
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
  if (!t.regions.empty()) {
    ordered_json r = ordered_json::object();
    for (const auto& [tensor, region] : t.regions) r[tensor_ref(g, tensor)] = region_json(region);
    jt["regions"] = std::move(r);
  }
  if (t.reduction.active()) {
    ordered_json r;
    r["axis"] = t.reduction.range.axis;
    r["range"] = {t.reduction.range.range.lo, t.reduction.range.range.hi};
    r["accumulate"] = std::string(accumulation_name(t.reduction.accumulate));
    jt["reduction"] = std::move(r);
  }
  if (!t.kept.empty()) jt["kept"] = levels_json(g, t.kept);
  if (!t.scope.empty()) jt["scope"] = levels_json(g, t.scope);
  if (!t.tile.empty()) jt["tile"] = t.tile;
  if (t.halo != HaloPolicy{}) {
    ordered_json h;
    h["mode"] = std::string(halo_mode_name(t.halo.mode));
    if (!t.halo.level.empty()) h["level"] = t.halo.level;
    jt["halo"] = std::move(h);
  }
  if (!t.pinned.empty()) {
    ordered_json a = ordered_json::array();
    for (int x : t.pinned) a.push_back(tensor_ref(g, x));
    jt["pinned"] = std::move(a);
  }
  if (t.buffer_bytes != 0) jt["buffer_bytes"] = t.buffer_bytes;
  if (t.placement != Placement{}) {
    ordered_json p;
    p["unit"] = std::string(unit_kind_name(t.placement.unit));
    p["index"] = t.placement.index;
    if (t.placement.count != 1) p["count"] = t.placement.count;
    if (!t.placement.binding.empty()) p["binding"] = t.placement.binding;
    jt["placement"] = std::move(p);
  }
  return jt;
}

// ----- reading --------------------------------------------------------------------------------
class Reader {
 public:
  Reader(const Graph& g, std::string origin) : g_(g), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what,
                         const std::string& expected) const {
    throw Error(origin_ + ": " + where + ": " + what + "; expected " + expected);
  }

  void only_keys(const json& j, const std::string& where,
                 std::initializer_list<const char*> keys) const {
    for (const auto& [k, v] : j.items()) {
      (void)v;
      bool known = false;
      std::string all;
      for (const char* key : keys) {
        known = known || k == key;
        all += (all.empty() ? "" : ", ") + std::string(key);
      }
      if (!known) fail(where, "unknown key '" + k + "'", "one of " + all);
    }
  }

  int64_t integer(const json& v, const std::string& where) const {
    if (!v.is_number_integer()) fail(where, "not an integer", "an integer");
    return v.get<int64_t>();
  }

  std::string string(const json& v, const std::string& where, const std::string& expected) const {
    if (!v.is_string()) fail(where, "not a string", expected);
    return v.get<std::string>();
  }

  template <class F>
  auto named(const json& v, const std::string& where, const std::string& expected, F from) const {
    const std::string s = string(v, where, expected);
    try {
      return from(s);
    } catch (const Error& e) {  // "unknown <what> '<s>'; expected one of ..."
      throw Error(origin_ + ": " + where + ": " + e.what());
    }
  }

  int tensor(const std::string& name, const std::string& where) const {
    const int t = g_.find_tensor(name);
    if (t < 0) fail(where, "unknown tensor '" + name + "'", "a tensor of graph '" + g_.name + "'");
    return t;
  }

  std::vector<int64_t> ints(const json& v, const std::string& where) const {
    if (!v.is_array()) fail(where, "not an array", "an array of integers");
    std::vector<int64_t> out;
    for (const auto& x : v) {
      if (!x.is_number_integer()) fail(where, "an entry is not an integer", "integers");
      out.push_back(x.get<int64_t>());
    }
    return out;
  }

  Interval interval(const json& v, const std::string& where) const {
    const std::vector<int64_t> p = ints(v, where);
    if (p.size() != 2) fail(where, "not a pair", "[lo, hi] (half-open)");
    return {p[0], p[1]};
  }

  std::map<int, std::string> levels(const json& v, const std::string& where) const {
    if (!v.is_object()) fail(where, "not an object", "{tensor name: memory level}");
    std::map<int, std::string> out;
    for (const auto& [name, level] : v.items())
      out[tensor(name, where)] = string(level, where + "." + name, "a memory level name");
    return out;
  }

  Task task(const json& jt, const std::string& wt, int version) const {
    if (!jt.is_object()) fail(wt, "not an object", "a task object");
    if (version >= 2)
      only_keys(jt, wt,
                {"kind", "ops", "regions", "reduction", "kept", "scope", "tile", "halo",
                 "placement", "pinned", "buffer_bytes"});
    Task t;
    if (jt.contains("kind"))
      t.kind = named(jt["kind"], wt + ".kind", "sequential|merged|fused", task_kind_from_name);
    if (!jt.contains("ops") || !jt["ops"].is_array())
      fail(wt + ".ops", "missing or not an array", "an array of op names");
    for (const auto& jo : jt["ops"]) {
      if (!jo.is_string()) fail(wt + ".ops", "an entry is not a string", "op names");
      const int op = g_.find_op(jo.get<std::string>());
      if (op < 0)
        fail(wt + ".ops", "unknown op '" + jo.get<std::string>() + "'",
             "an op of graph '" + g_.name + "'");
      t.ops.push_back(op);
    }
    if (jt.contains("kept")) t.kept = levels(jt["kept"], wt + ".kept");
    if (jt.contains("tile")) t.tile = ints(jt["tile"], wt + ".tile");
    if (version == 1) {
      for (const char* k : {"regions", "reduction", "scope", "halo", "pinned", "buffer_bytes"})
        if (jt.contains(k))
          fail(wt, std::string("key '") + k + "' is format version 2 but the file has no version",
               "\"version\": 2 at the top level");
      if (jt.contains("placement") && jt["placement"].is_object())
        fail(wt + ".placement", "an object is format version 2 but the file has no version",
             "\"version\": 2 at the top level");
      if (jt.contains("placement")) {
        const int64_t s = integer(jt["placement"], wt + ".placement");
        if (s >= 0) t.placement = Placement{UnitKind::Stream, {static_cast<int>(s)}, 1, {}};
      }
      return t;  // "params" (scheduler results in version 1) is dropped
    }
    if (jt.contains("regions")) {
      const json& r = jt["regions"];
      if (!r.is_object()) fail(wt + ".regions", "not an object", "{tensor name: [[lo, hi], ...]}");
      for (const auto& [name, box] : r.items()) {
        const std::string w = wt + ".regions." + name;
        if (!box.is_array()) fail(w, "not an array", "[[lo, hi], ...] per axis");
        Region region;
        for (const auto& iv : box) region.push_back(interval(iv, w));
        t.regions[tensor(name, wt + ".regions")] = std::move(region);
      }
    }
    if (jt.contains("reduction")) {
      const json& r = jt["reduction"];
      const std::string w = wt + ".reduction";
      if (!r.is_object()) fail(w, "not an object", "{\"axis\", \"range\", \"accumulate\"}");
      only_keys(r, w, {"axis", "range", "accumulate"});
      if (!r.contains("axis") || !r.contains("range"))
        fail(w, "missing axis or range", "{\"axis\": name, \"range\": [lo, hi]}");
      t.reduction.range.axis = string(r["axis"], w + ".axis", "a reduction axis name");
      if (t.reduction.range.axis.empty()) fail(w + ".axis", "empty", "a reduction axis name");
      t.reduction.range.range = interval(r["range"], w + ".range");
      if (r.contains("accumulate"))
        t.reduction.accumulate =
            named(r["accumulate"], w + ".accumulate", "sum", accumulation_from_name);
    }
    if (jt.contains("scope")) t.scope = levels(jt["scope"], wt + ".scope");
    if (jt.contains("pinned")) {
      const json& a = jt["pinned"];
      if (!a.is_array()) fail(wt + ".pinned", "not an array", "an array of tensor names");
      for (const auto& name : a)
        t.pinned.push_back(tensor(string(name, wt + ".pinned", "a tensor name"), wt + ".pinned"));
    }
    if (jt.contains("buffer_bytes")) {
      const std::string w = wt + ".buffer_bytes";
      if (!jt["buffer_bytes"].is_number_integer() || jt["buffer_bytes"].get<int64_t>() < 0)
        fail(w, "not a non-negative integer",
             "the bytes of each unit's local buffer the task is mapped within (0: all of it)");
      t.buffer_bytes = jt["buffer_bytes"].get<int64_t>();
    }
    if (jt.contains("halo")) {
      const json& h = jt["halo"];
      const std::string w = wt + ".halo";
      if (!h.is_object())
        fail(w, "not an object", "{\"mode\": \"recompute\"|\"share\", \"level\"}");
      only_keys(h, w, {"mode", "level"});
      if (h.contains("mode"))
        t.halo.mode = named(h["mode"], w + ".mode", "recompute|share", halo_mode_from_name);
      if (h.contains("level")) t.halo.level = string(h["level"], w + ".level", "a memory level");
    }
    if (jt.contains("placement")) {
      const json& p = jt["placement"];
      const std::string w = wt + ".placement";
      if (!p.is_object()) fail(w, "not an object", "{\"unit\", \"index\", \"count\", \"binding\"}");
      only_keys(p, w, {"unit", "index", "count", "binding"});
      if (!p.contains("unit")) fail(w, "no unit", "a unit kind (stream, core, engine, ...)");
      t.placement.unit = named(p["unit"], w + ".unit", "stream|sm_set|cluster|core|engine|none",
                               unit_kind_from_name);
      if (p.contains("index")) {
        for (int64_t v : ints(p["index"], w + ".index")) {
          if (v < INT32_MIN || v > INT32_MAX) fail(w + ".index", "out of range", "an int32");
          t.placement.index.push_back(static_cast<int>(v));
        }
      }
      if (p.contains("count")) {
        const int64_t c = integer(p["count"], w + ".count");
        if (c < 1 || c > INT32_MAX) fail(w + ".count", std::to_string(c), "a positive count");
        t.placement.count = static_cast<int>(c);
      }
      if (p.contains("binding")) t.placement.binding = ints(p["binding"], w + ".binding");
    }
    return t;
  }

  Plan plan(const json& j) const {
    if (!j.is_object())
      fail("top level", "not an object", "{\"version\", \"scheduler\", \"graph\", \"stages\"}");
    Plan p;
    p.version = 1;
    if (j.contains("version")) {
      const int64_t v = integer(j["version"], "version");
      if (v != 1 && v != 2)
        fail("version", "format version " + std::to_string(v) + " is not known",
             "1 or 2 (this build writes 2)");
      p.version = static_cast<int>(v);
    }
    if (p.version >= 2)
      only_keys(j, "top level", {"version", "scheduler", "graph", "options", "stages"});
    if (j.contains("scheduler")) p.scheduler = string(j["scheduler"], "scheduler", "a string");
    if (j.contains("graph")) p.graph = string(j["graph"], "graph", "a string");
    if (p.version == 1 && j.contains("options"))
      fail("options", "format version 2 but the file has no version",
           "\"version\": 2 at the top level");
    if (p.version >= 2 && j.contains("options")) {
      const json& o = j["options"];
      if (!o.is_object())
        fail("options", "not an object",
             "{\"fold_activation\", \"tensor_cores\", \"prefetch_across_stages\"}");
      only_keys(o, "options", {"fold_activation", "tensor_cores", "prefetch_across_stages"});
      auto flag = [&](const char* k, bool& out) {
        if (!o.contains(k)) return;
        if (!o[k].is_boolean()) fail(std::string("options.") + k, "not a boolean", "true or false");
        out = o[k].get<bool>();
      };
      flag("fold_activation", p.options.fold_activation);
      flag("tensor_cores", p.options.tensor_cores);
      flag("prefetch_across_stages", p.options.prefetch_across_stages);
    }
    if (!j.contains("stages") || !j["stages"].is_array())
      fail("stages", "missing or not an array", "an array of stages");
    const json& stages = j["stages"];
    for (size_t si = 0; si < stages.size(); ++si) {
      const std::string ws = "stages[" + std::to_string(si) + "]";
      const json& js = stages[si];
      if (!js.is_object() || !js.contains("tasks") || !js["tasks"].is_array())
        fail(ws, "no \"tasks\" array", "{\"tasks\": [...]}");
      if (p.version >= 2) only_keys(js, ws, {"tasks"});
      Stage stage;
      const json& tasks = js["tasks"];
      for (size_t ti = 0; ti < tasks.size(); ++ti)
        stage.tasks.push_back(
            task(tasks[ti], ws + ".tasks[" + std::to_string(ti) + "]", p.version));
      p.stages.push_back(std::move(stage));
    }
    return p;
  }

 private:
  const Graph& g_;
  std::string origin_;
};

}  // namespace

std::string plan_to_json(const Plan& p, const Graph& g) {
  ordered_json j;
  j["version"] = kPlanFormatVersion;
  j["scheduler"] = p.scheduler;
  j["graph"] = p.graph;
  if (p.options != ExecutionOptions{}) {
    ordered_json o;
    o["fold_activation"] = p.options.fold_activation;
    o["tensor_cores"] = p.options.tensor_cores;
    if (!p.options.prefetch_across_stages) o["prefetch_across_stages"] = false;
    j["options"] = std::move(o);
  }
  ordered_json stages = ordered_json::array();
  for (const Stage& s : p.stages) {
    ordered_json tasks = ordered_json::array();
    for (const Task& t : s.tasks) tasks.push_back(task_json(g, t));
    ordered_json js;
    js["tasks"] = std::move(tasks);
    stages.push_back(std::move(js));
  }
  j["stages"] = std::move(stages);
  return j.dump(2) + "\n";
}

Plan plan_from_json(const std::string& text, const Graph& g, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error; out_of_range: a number over double's range
    throw Error(origin + ": not valid JSON (" + std::string(e.what()) +
                "); expected a plan object");
  }
  return Reader(g, origin).plan(j);
}

}  // namespace dgs
