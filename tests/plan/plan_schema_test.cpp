// The plan format's documentation: plan.schema.json validates every example in
// common/plan/examples/ (and, in tests/ios and tests/welder, the plans those schedulers write),
// its enums are the C++ names, and each
// example (one per kind of task) loads, passes Plan::check and runs on the CPU reference equal to
// the unscheduled graph.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "common/exec/plan_exec.h"
#include "common/plan/plan.h"
#include "common/util/resources.h"
#include "models/zoo.h"
#include "tests/json_schema_lite.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;
const fs::path kPlanDir = fs::path(DGS_SOURCE_DIR) / "common" / "plan";

testing::SchemaLite schema() {
  return testing::SchemaLite(
      nlohmann::json::parse(read_file((kPlanDir / "plan.schema.json").string())));
}

std::vector<fs::path> examples() {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(kPlanDir / "examples"))
    if (e.path().extension() == ".json") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

TEST(PlanSchema, EnumsAreTheNamesTheLoaderKnows) {
  const auto s = nlohmann::json::parse(read_file((kPlanDir / "plan.schema.json").string()));
  const auto& task = s["$defs"]["task"]["properties"];
  std::vector<std::string> kinds, units, modes, acc;
  for (TaskKind k : {TaskKind::Sequential, TaskKind::Merged, TaskKind::Fused})
    kinds.emplace_back(task_kind_name(k));
  for (UnitKind k : {UnitKind::None, UnitKind::Stream, UnitKind::SmSet, UnitKind::Cluster,
                     UnitKind::Core, UnitKind::Engine})
    units.emplace_back(unit_kind_name(k));
  for (HaloMode m : {HaloMode::Recompute, HaloMode::Share}) modes.emplace_back(halo_mode_name(m));
  acc.emplace_back(accumulation_name(Accumulation::Sum));
  EXPECT_EQ(task["kind"]["enum"].get<std::vector<std::string>>(), kinds);
  EXPECT_EQ(task["placement"]["properties"]["unit"]["enum"].get<std::vector<std::string>>(), units);
  EXPECT_EQ(task["halo"]["properties"]["mode"]["enum"].get<std::vector<std::string>>(), modes);
  EXPECT_EQ(task["reduction"]["properties"]["accumulate"]["enum"].get<std::vector<std::string>>(),
            acc);
  EXPECT_EQ(s["properties"]["version"]["const"].get<int>(), kPlanFormatVersion);
}

TEST(PlanSchema, TheValidatorRefusesWhatTheSchemaForbids) {
  const auto sc = schema();
  const auto ok =
      nlohmann::json::parse(R"({"version": 2, "stages": [{"tasks": [{"ops": ["a"]}]}]})");
  EXPECT_EQ(sc.validate(ok), "");
  auto bad = ok;
  bad["stages"][0]["tasks"][0]["params"] = nlohmann::json::object();
  EXPECT_EQ(sc.validate(bad), "$.stages[0].tasks[0].params: unknown key");
  bad = ok;
  bad["stages"][0]["tasks"][0]["kind"] = "parallel";
  EXPECT_NE(sc.validate(bad).find("not in"), std::string::npos);
  bad = ok;
  bad["stages"][0]["tasks"][0]["kept"] = {{"x", "L2"}};
  EXPECT_NE(sc.validate(bad).find("does not match"), std::string::npos);
  bad = ok;
  bad["stages"][0]["tasks"][0]["regions"] = {{"x", {{0, 1, 2}}}};
  EXPECT_NE(sc.validate(bad).find("more than 2 items"), std::string::npos);
}

TEST(PlanSchema, EveryExampleValidatesChecksAndRunsEqualToTheReference) {
  const auto sc = schema();
  std::set<std::string> features;
  const auto paths = examples();
  ASSERT_GE(paths.size(), 7u);
  for (const fs::path& p : paths) {
    SCOPED_TRACE(p.filename().string());
    const std::string text = read_file(p.string());
    EXPECT_EQ(sc.validate(nlohmann::json::parse(text)), "");
    const std::string graph = nlohmann::json::parse(text)["graph"].get<std::string>();
    const Graph g = build_zoo_model(graph);
    const Plan plan = plan_from_json(text, g, p.string());
    plan.check(g);
    const PlanComparison c = compare_plan_with_reference(g, plan, 3);
    EXPECT_TRUE(c.passed) << c.str();
    for (const Stage& s : plan.stages) {
      if (s.tasks.size() > 1) features.insert("concurrent");
      for (const Task& t : s.tasks) {
        features.insert(std::string(task_kind_name(t.kind)));
        if (!task_is_whole(g, t)) features.insert("region");
        if (t.reduction.active()) features.insert("partial sums");
        if (!t.tile.empty()) features.insert("tile");
        if (t.halo.mode == HaloMode::Share) features.insert("shared halo");
        if (!t.placement.binding.empty()) features.insert("binding");
        if (t.placement.unit == UnitKind::Engine) features.insert("mesh engine");
        if (!t.scope.empty()) features.insert("scope");
      }
    }
  }
  EXPECT_EQ(features, (std::set<std::string>{"concurrent", "sequential", "merged", "fused",
                                             "region", "partial sums", "tile", "shared halo",
                                             "binding", "mesh engine", "scope"}));
}

}  // namespace
}  // namespace dgs
