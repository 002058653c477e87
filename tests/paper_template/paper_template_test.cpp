// The template of a paper folder (reproductions/paper_template/): it builds, its --all runs and
// writes its table, and its scheduler's plan is what the item prices.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/evaluate/evaluate.h"
#include "common/hw/hardware_spec.h"
#include "common/scheduler/scheduler.h"
#include "models/zoo.h"
#include "reproductions/paper_template/experiments/experiment_list.h"
#include "reproductions/paper_template/schedulers.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

TEST(PaperTemplate, AllRunWritesTheTableOfEveryModel) {
  const ScratchDir scratch("paper_template");
  const fs::path& dir = scratch.path();
  const std::string out_dir = dir.string();
  const char* argv[] = {"repro_paper_template", "--all", "--out", out_dir.c_str()};
  std::ostringstream out, err;
  const int code =
      run_cli(4, argv, paper_template::paper_info(), paper_template::experiments(), out, err);
  ASSERT_EQ(code, 0) << err.str();
  const fs::path table = dir / "paper_template" / "table1.csv";
  ASSERT_TRUE(fs::exists(table));
  std::ostringstream text;
  text << std::ifstream(table).rdbuf();
  for (const char* model : {"squeezenet", "resnet18"})
    EXPECT_NE(text.str().find(model), std::string::npos) << model << " missing from table1.csv";
  for (const char* f : {"summary.csv", "items.csv", "run_info.csv"})
    EXPECT_TRUE(fs::exists(dir / "paper_template" / f)) << f;
}

TEST(PaperTemplate, SchedulerPlanIsCheckedAndPriced) {
  const SchedulerList schedulers = paper_template_schedulers();
  ASSERT_EQ(schedulers.size(), 1u);
  EXPECT_EQ(schedulers.front()->name(), "paper_template");
  const HardwareSpec hw = load_hardware("a100");
  const Graph g = load_model("squeezenet");
  const ScheduleResult r = run_scheduler(*schedulers.front(), g, hw);
  EXPECT_EQ(r.plan.stages.size(), static_cast<size_t>(g.num_ops()));  // one op per stage
  const EvaluationResult e = evaluate(g, r.plan, hw);
  EXPECT_GT(e.latency_us, 0);
  EXPECT_EQ(e.latency_us, evaluate(g, sequential_plan(g, hw), hw).latency_us);
}

}  // namespace
}  // namespace dgs
