// The network set of the Atomic Dataflow items: Table II's eight in the paper's order, each either
// run by an item or left out with a reason (never silently dropped).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/paper_networks.h"

namespace dgs::atomic {
namespace {

TEST(AtomicPaperNetworks, AreTableTwosEightInItsOrderAllInTheZoo) {
  const std::vector<std::string> order = {"VGG-19", "ResNet-50", "ResNet-152",   "Inception-v3",
                                          "NasNet", "PNASNet",   "EfficientNet", "ResNet-1001"};
  const std::vector<PaperNetwork>& nets = table2_networks();
  ASSERT_EQ(nets.size(), order.size());
  const std::vector<std::string> zoo = zoo_model_names();
  for (size_t i = 0; i < nets.size(); ++i) {
    EXPECT_EQ(nets[i].paper_name, order[i]);
    EXPECT_EQ(paper_name_of(nets[i].zoo), order[i]);
    EXPECT_NE(std::find(zoo.begin(), zoo.end(), nets[i].zoo), zoo.end()) << nets[i].zoo;
  }
  EXPECT_EQ(paper_name_of("not_a_network"), "");
}

TEST(AtomicPaperNetworks, EveryNetworkIsRunOrLeftOutWithAReason) {
  for (int batch : {1, 20})
    for (DsaDataflow df : {DsaDataflow::KC, DsaDataflow::YX}) {
      const std::vector<std::string> run = networks_run(batch, df);
      const std::vector<LeftOut> left = networks_left_out(batch, df);
      EXPECT_EQ(run.size() + left.size(), table2_networks().size()) << batch;
      for (const LeftOut& l : left) {
        EXPECT_FALSE(l.why.empty()) << l.zoo;
        EXPECT_EQ(std::find(run.begin(), run.end(), l.zoo), run.end()) << l.zoo;
      }
    }
  // The claims of Figs. 8 and 10 (batch 1, KC-P) try every network of the paper's set.
  EXPECT_EQ(networks_run(1, DsaDataflow::KC).size(), table2_networks().size());
}

TEST(AtomicPaperNetworks, StandInsJoinWithSemicolons) {
  EXPECT_EQ(stand_ins({"a", "b"}), "a; b");
  EXPECT_EQ(stand_ins({kDpStandIn}), std::string(kDpStandIn));
}

// The runs start with the most MACs (Table I: NasNet-A Large 22.2 G, VGG-19 19.6 G, ResNet-50
// 4.1 G, EfficientNet-B0 0.39 G); equal networks keep their list order.
TEST(AtomicPaperNetworks, LongestFirstOrdersTheRunsByMacsTiesInListOrder) {
  EXPECT_EQ(longest_first({"resnet50", "nasnet_large", "efficientnet_b0", "vgg19"}),
            (std::vector<size_t>{1, 3, 0, 2}));
  EXPECT_EQ(longest_first({"resnet50", "resnet50"}), (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(longest_first({}).empty());
}

}  // namespace
}  // namespace dgs::atomic
