// GraphTurbo's items name their machine (items.csv's and the completion records' hardware
// column) whatever ran before them in the process: the STCP920 config is loaded once per process
// (stcp920()), so an item that did not load it itself must still name it, or a sharded run and an
// unsharded --all would fill the column differently.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/run_state.h"
#include "reproductions/graphturbo/experiments/experiment_list.h"
#include "tests/scratch_dir.h"

namespace dgs::graphturbo {
namespace {

namespace fs = std::filesystem;

class GraphTurboItemsTest : public ::testing::Test {
 protected:
  // Runs `--fig 3` (the cheapest item on the STCP920 model) into `out` with completion records;
  // returns the hardware its record names.
  std::string fig3_hardware(const std::string& out) {
    const std::string folder = (dir_ / out).string();
    const std::vector<std::string> args = {"--fig",           "3",     "--quiet",
                                           "--skip-existing", "--out", folder};
    std::vector<const char*> argv = {"repro_graphturbo"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream o, e;
    const int code =
        run_cli(static_cast<int>(argv.size()), argv.data(), paper_info(), experiments(), o, e);
    EXPECT_EQ(code, 0) << e.str();
    const std::optional<ItemMarker> m =
        read_item_marker(run_state_dir(folder, paper_info().key), "fig3");
    if (!m) {
      ADD_FAILURE() << "no completion record for fig3 in " << folder;
      return "";
    }
    return m->data.at("hardware").get<std::string>();
  }

  ScratchDir scratch_{"graphturbo_items"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(GraphTurboItemsTest, ADsaItemNamesItsMachineAlsoWhenTheConfigWasLoadedBefore) {
  // The first run may load the config; the second finds it loaded. Both name it.
  EXPECT_EQ(fig3_hardware("first"), "hw_configs/stcp920.json");
  EXPECT_EQ(fig3_hardware("second"), "hw_configs/stcp920.json");
}

TEST(GraphTurboItems, EveryItemButFig7NamesItsMachine) {
  // Fig. 7 orders the paper's Fig. 6 graph and prices nothing; every other item runs on the
  // STCP920 DSA model or on the A100 GPU model.
  for (const Experiment& e : experiments()) {
    if (e.id() == "fig7") {
      EXPECT_TRUE(e.default_hardware.empty());
    } else {
      EXPECT_TRUE(e.default_hardware == "stcp920" || e.default_hardware == "a100") << e.id();
    }
  }
}

}  // namespace
}  // namespace dgs::graphturbo
