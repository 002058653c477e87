// Every paper lists its experiments the same way
// (reproductions/<paper>/experiments/experiment_list.cpp):
// checks each list's shape, and that every default machine it names is a built-in GPU config.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/hw/hardware.h"
#include "reproductions/ios/experiments/experiment_list.h"
#include "reproductions/papers.h"
#include "reproductions/welder/experiments/experiment_list.h"

namespace dgs {
namespace {

// The suite's paper list (reproductions/papers.h) is the build's: CMake reads the same
// reproductions/papers.inc into DGS_PAPERS (written to build/papers.txt).
TEST(PaperLists, ThisListIsTheBuildsPaperList) {
  std::ifstream in(std::string(DGS_BINARY_DIR) + "/papers.txt");
  ASSERT_TRUE(in) << "no papers.txt in the build folder";
  std::vector<std::string> built, listed;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) built.push_back(line);
  for (const PaperEntry& p : paper_list()) listed.push_back(p.key);
  EXPECT_EQ(built, listed);
}

TEST(PaperLists, EachPaperNamesItsFolderTitleAndText) {
  for (const PaperEntry& p : paper_list()) {
    const PaperInfo info = p.info();
    EXPECT_EQ(info.key, p.key);
    EXPECT_FALSE(info.title.empty()) << p.key;
    EXPECT_EQ(info.paper_file.substr(info.paper_file.size() - 4), ".txt") << p.key;
  }
}

TEST(PaperLists, IdsAreUniqueFiguresOrTablesWithCaptions) {
  for (const PaperEntry& p : paper_list()) {
    const std::vector<Experiment> experiments = p.experiments();
    EXPECT_FALSE(experiments.empty()) << p.key;
    std::set<std::string> ids;
    for (const Experiment& e : experiments) {
      EXPECT_TRUE(e.kind == "fig" || e.kind == "table") << p.key << " " << e.id();
      EXPECT_FALSE(e.number.empty()) << p.key << " " << e.id();
      EXPECT_FALSE(e.caption.empty()) << p.key << " " << e.id();
      EXPECT_TRUE(ids.insert(e.id()).second) << p.key << ": " << e.id() << " listed twice";
      EXPECT_FALSE(e.has_measured_mode && !e.run)
          << p.key << " " << e.id() << ": a measured version of an experiment not implemented";
    }
  }
}

TEST(PaperLists, EveryDefaultMachineIsABuiltInConfigThatLoads) {
  int named = 0;
  for (const PaperEntry& p : paper_list()) {
    for (const Experiment& e : p.experiments()) {
      if (e.default_hardware.empty()) continue;
      ++named;
      std::ostringstream out;
      const ExperimentContext ctx(p.key, e.id(), RunOptions{}, out, e.default_hardware);
      EXPECT_EQ(ctx.hardware_name(), e.default_hardware);
      // A GPU, or an accelerator of kind "dsa" (the Atomic Dataflow mesh).
      const HardwareSpec& hw = ctx.hardware();
      if (hw.dsa) continue;
      EXPECT_NO_THROW((void)ctx.gpu()) << p.key << " " << e.id() << ": " << e.default_hardware;
    }
  }
  EXPECT_GT(named, 0);
}

TEST(PaperLists, ImplementedPapersListEveryExperimentAsImplemented) {
  for (const auto& list : {ios::experiments(), welder::experiments()}) {
    for (const Experiment& e : list) EXPECT_TRUE(static_cast<bool>(e.run)) << e.id();
  }
}

}  // namespace
}  // namespace dgs
