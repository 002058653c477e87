// Fig. 6 rebuilt: the four sources of parallelism the paper reads off its 4-engine schedule of a
// PNASNet cell's atomic DAG (Sec. IV-B), from our priority-rule Rounds on the same DAG.
#include <gtest/gtest.h>

#include <set>

#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/experiments/fig6_toy.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {
namespace {

std::vector<std::string> labels(const AtomicDag& dag, const Round& r) {
  std::vector<std::string> out;
  for (int a : r.atoms) out.push_back(fig6_atom_label(dag, a));
  return out;
}

class Fig6 : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 2, 2, 16, 16);
    dag_ = fig6_toy_dag(2);
    sched_ = schedule_atoms(Graph(), dag_, spec_, {.on_chip_reuse = false});  // Rounds only
  }
  // Atoms of sample 0 of `layer` (0-based) scheduled after Round `t` (0-based).
  int left_after(int layer, size_t t) const {
    int n = 0;
    for (int a : dag_.atoms_of_layer[static_cast<size_t>(layer)]) {
      n += dag_.atoms[static_cast<size_t>(a)].sample == 0 &&
           sched_.round_of[static_cast<size_t>(a)] > static_cast<int>(t);
    }
    return n;
  }
  DsaSpec spec_;
  AtomicDag dag_;
  AtomSchedule sched_;
};

TEST_F(Fig6, TheFiguresEightRoundsFillTheFourEngines) {
  ASSERT_GE(sched_.rounds.size(), 8u);
  for (size_t t = 0; t < 8; ++t) {
    EXPECT_EQ(sched_.rounds[t].atoms.size(), 4u) << "Round " << t + 1;
  }
  // 2 samples x (9 + 7 + 9 + 4) = 58 atoms: 16 Rounds; sample 1's atom 2-7' runs alone (the
  // last sample has nothing else ready: layer 3 reads all of layer 2).
  EXPECT_EQ(sched_.rounds.size(), 16u);
}

TEST_F(Fig6, IntraLayerRounds1246) {
  EXPECT_EQ(labels(dag_, sched_.rounds[0]), (std::vector<std::string>{"1-1", "1-2", "1-3", "1-4"}));
  EXPECT_EQ(labels(dag_, sched_.rounds[1]), (std::vector<std::string>{"1-5", "1-6", "1-7", "1-8"}));
  for (size_t t : {0u, 1u, 3u, 5u}) {
    std::set<int> layers;
    for (int a : sched_.rounds[t].atoms) layers.insert(dag_.atoms[static_cast<size_t>(a)].layer);
    EXPECT_EQ(layers.size(), 1u) << "Round " << t + 1;
  }
}

TEST_F(Fig6, Round3RunsAtom1_9BesideLayer2AtTheSameDepth) {
  const std::vector<std::string> r3 = labels(dag_, sched_.rounds[2]);
  EXPECT_EQ(r3, (std::vector<std::string>{"1-9", "2-1", "2-2", "2-3"}));
  EXPECT_EQ(dag_.layers[0].depth, dag_.layers[1].depth);
}

TEST_F(Fig6, Round7RunsLayer4WhileLayer3IsUnfinished) {
  const std::vector<std::string> r7 = labels(dag_, sched_.rounds[6]);
  EXPECT_NE(std::find(r7.begin(), r7.end(), "4-1"), r7.end());
  EXPECT_NE(std::find(r7.begin(), r7.end(), "4-3"), r7.end());
  // Layer 3 still has atoms to run when Round 7 starts (implicit layer fusion).
  EXPECT_GT(left_after(2, 5), 0);
}

TEST_F(Fig6, Round8AddsTheNextSample) {
  bool sample0 = false, sample1 = false;
  for (int a : sched_.rounds[7].atoms) {
    (dag_.atoms[static_cast<size_t>(a)].sample == 0 ? sample0 : sample1) = true;
  }
  EXPECT_TRUE(sample0);
  EXPECT_TRUE(sample1);
  // No atom of sample 1 runs before Round 8 (rule 4: latency first).
  for (size_t t = 0; t < 7; ++t) {
    for (int a : sched_.rounds[t].atoms) EXPECT_EQ(dag_.atoms[static_cast<size_t>(a)].sample, 0);
  }
}

}  // namespace
}  // namespace dgs::atomic
