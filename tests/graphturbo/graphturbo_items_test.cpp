// GraphTurbo's items name their machine (items.csv's and the completion records' hardware
// column) whatever ran before them in the process: the STCP920 config is loaded once per process
// (stcp920()), so an item that did not load it itself must still name it, or a sharded run and an
// unsharded --all would fill the column differently.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/run_state.h"
#include "common/report/report.h"
#include "common/util/resources.h"
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

  // The row of `file` (under <out>/graphturbo/) whose first field is `first`, by column name;
  // empty when there is none.
  std::map<std::string, std::string> row_of(const std::string& out, const std::string& file,
                                            const std::string& first) {
    const std::string path = (dir_ / out / "graphturbo" / file).string();
    const std::vector<std::vector<std::string>> rows = parse_csv(read_file(path), path);
    for (size_t r = 1; r < rows.size(); ++r) {
      if (rows[r][0] != first) continue;
      std::map<std::string, std::string> row;
      for (size_t c = 0; c < rows[0].size(); ++c) row[rows[0][c]] = rows[r][c];
      return row;
    }
    ADD_FAILURE() << "no row " << first << " in " << path;
    return {};
  }

  ScratchDir scratch_{"graphturbo_items"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(GraphTurboItemsTest, ADsaItemNamesItsMachineAlsoWhenTheConfigWasLoadedBefore) {
  // The first run may load the config; the second finds it loaded. Both name it.
  EXPECT_EQ(fig3_hardware("first"), "hw_configs/stcp920.json");
  EXPECT_EQ(fig3_hardware("second"), "hw_configs/stcp920.json");
}

// The vendor's hand-written code (§5.1-5.4) cannot run (it is not public): its paper values are
// shown beside ours, marked not reproduced, ours empty, and its claims are informational.
TEST_F(GraphTurboItemsTest, TheVendorCraftedCodeIsShownNotReproducedWithThePapersValues) {
  const std::string folder = (dir_ / "crafted").string();
  const std::vector<std::string> args = {"--fig", "14",      "--table", "1",   "--table",
                                         "3",     "--quiet", "--out",   folder};
  std::vector<const char*> argv = {"repro_graphturbo"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream o, e;
  ASSERT_EQ(run_cli(static_cast<int>(argv.size()), argv.data(), paper_info(), experiments(), o, e),
            0)
      << e.str();
  const std::string nr = "not reproduced: the vendor's code is not public";
  // Fig. 14: §5.2's mean over models A-G and its three orderings.
  auto mean = row_of("crafted", "fig14_claims.csv",
                     "mean GraphTurbo speedup over the vendor-crafted code (A-G)");
  EXPECT_EQ(mean["paper"], "1.04");
  EXPECT_EQ(mean["ours"], "");
  EXPECT_EQ(mean["verdict"], "informational");
  EXPECT_EQ(mean["why"].rfind(nr, 0), 0u) << mean["why"];
  EXPECT_EQ(mean["against"], "not run: STCP920's vendor's hand-written code (not public)");
  for (const char* c : {"BERT-512: crafted code faster than GraphTurbo (1 = yes)",
                        "MobileNet-v2: crafted code faster than GraphTurbo (1 = yes)",
                        "BERT-384: GraphTurbo faster than the crafted code (1 = yes)"}) {
    auto row = row_of("crafted", "fig14_claims.csv", c);
    EXPECT_EQ(row["paper"], "1") << c;
    EXPECT_EQ(row["ours"], "") << c;
    EXPECT_EQ(row["verdict"], "informational") << c;
    EXPECT_EQ(row["against"].rfind("not run: ", 0), 0u) << c;
  }
  auto fig_mean = row_of("crafted", "fig14.csv", "mean A-G");
  EXPECT_EQ(fig_mean["paper_graphturbo_over_crafted"], "1.04");
  EXPECT_EQ(fig_mean["crafted"], nr);
  EXPECT_EQ(row_of("crafted", "fig14.csv", "E")["crafted"], nr + " (§5.2: crafted faster)");
  EXPECT_EQ(row_of("crafted", "fig14.csv", "H")["crafted"].rfind("no crafted code", 0), 0u);
  // Table 1: the crafted code's one row (batch 32), the paper's values only.
  auto t1 = row_of("crafted", "table1.csv", "crafted code");
  EXPECT_EQ(t1["batch"], "32");
  EXPECT_EQ(t1["paper_throughput"], "4048");
  EXPECT_EQ(t1["paper_latency_ms"], "7.62");
  EXPECT_EQ(t1["throughput"], "");
  EXPECT_EQ(t1["latency_ms"], "");
  EXPECT_EQ(t1["autotuned"], nr);
  auto ratio = row_of("crafted", "table1_claims.csv",
                      "BERT-128 batch 32: GraphTurbo / crafted code throughput");
  EXPECT_NEAR(std::stod(ratio["paper"]), 4052.0 / 4048.0, 1e-5);
  EXPECT_EQ(ratio["ours"], "");
  EXPECT_EQ(ratio["verdict"], "informational");
  // Table 3: the crafted columns of A-G, none for H-J (the paper's '-').
  auto a = row_of("crafted", "table3.csv", "A");
  EXPECT_EQ(a["paper_ddr_crafted"], "1");
  EXPECT_EQ(a["paper_llb_crafted"], "11");
  EXPECT_EQ(a["paper_l1_crafted"], "291");
  EXPECT_EQ(a["crafted"], nr);
  EXPECT_EQ(row_of("crafted", "table3.csv", "H")["paper_l1_crafted"], "");
  auto l1 = row_of("crafted", "table3_claims.csv",
                   "vendor-crafted code: models where it keeps tensors in L1 (of the 7 it covers)");
  EXPECT_EQ(l1["paper"], "7");
  EXPECT_EQ(l1["verdict"], "informational");
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
