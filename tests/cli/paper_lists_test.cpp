// Every paper lists its experiments the same way (reproductions/<paper>/experiment_list.cpp):
// checks each list's shape, and that every default machine it names is a built-in GPU config.
#include <gtest/gtest.h>

#include <fstream>

#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/hw/hardware.h"
#include "reproductions/atomic/experiment_list.h"
#include "reproductions/brickdl/experiment_list.h"
#include "reproductions/graphturbo/experiment_list.h"
#include "reproductions/ios/experiment_list.h"
#include "reproductions/welder/experiment_list.h"

namespace dgs {
namespace {

struct PaperList {
  std::string folder;  // reproductions/<folder>/
  std::function<PaperInfo()> info;
  std::function<std::vector<Experiment>()> experiments;
};

const std::vector<PaperList>& papers() {
  static const std::vector<PaperList> p = {
      {"graphturbo", graphturbo::paper_info, graphturbo::experiments},
      {"ios", ios::paper_info, ios::experiments},
      {"welder", welder::paper_info, welder::experiments},
      {"atomic", atomic::paper_info, atomic::experiments},
      {"brickdl", brickdl::paper_info, brickdl::experiments},
  };
  return p;
}

// The list above is CMake's DGS_PAPERS (written to build/papers.txt): a paper added there and
// not here fails.
TEST(PaperLists, ThisListIsTheBuildsPaperList) {
  std::ifstream in(std::string(DGS_BINARY_DIR) + "/papers.txt");
  ASSERT_TRUE(in) << "no papers.txt in the build folder";
  std::vector<std::string> built, listed;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) built.push_back(line);
  for (const PaperList& p : papers()) listed.push_back(p.folder);
  EXPECT_EQ(built, listed);
}

TEST(PaperLists, EachPaperNamesItsFolderTitleAndText) {
  for (const PaperList& p : papers()) {
    const PaperInfo info = p.info();
    EXPECT_EQ(info.key, p.folder);
    EXPECT_FALSE(info.title.empty()) << p.folder;
    EXPECT_EQ(info.paper_file.substr(info.paper_file.size() - 4), ".txt") << p.folder;
  }
}

TEST(PaperLists, IdsAreUniqueFiguresOrTablesWithCaptions) {
  for (const PaperList& p : papers()) {
    const std::vector<Experiment> experiments = p.experiments();
    EXPECT_FALSE(experiments.empty()) << p.folder;
    std::set<std::string> ids;
    for (const Experiment& e : experiments) {
      EXPECT_TRUE(e.kind == "fig" || e.kind == "table") << p.folder << " " << e.id();
      EXPECT_FALSE(e.number.empty()) << p.folder << " " << e.id();
      EXPECT_FALSE(e.caption.empty()) << p.folder << " " << e.id();
      EXPECT_TRUE(ids.insert(e.id()).second) << p.folder << ": " << e.id() << " listed twice";
      EXPECT_FALSE(e.has_measured_mode && !e.run)
          << p.folder << " " << e.id() << ": a measured version of an experiment not implemented";
    }
  }
}

TEST(PaperLists, EveryDefaultMachineIsABuiltInConfigThatLoads) {
  int named = 0;
  for (const PaperList& p : papers()) {
    for (const Experiment& e : p.experiments()) {
      if (e.default_hardware.empty()) continue;
      ++named;
      std::ostringstream out;
      const ExperimentContext ctx(p.folder, e.id(), RunOptions{}, out, e.default_hardware);
      EXPECT_EQ(ctx.hardware_name(), e.default_hardware);
      // A GPU, or an accelerator of kind "dsa" (the Atomic Dataflow mesh).
      const HardwareSpec& hw = ctx.hardware();
      if (hw.dsa) continue;
      EXPECT_NO_THROW((void)ctx.gpu()) << p.folder << " " << e.id() << ": " << e.default_hardware;
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
