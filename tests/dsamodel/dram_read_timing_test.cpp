// Hand-computed timelines of the DSA model: a DRAM read waits for the writes of the region it
// reads, not for the tensor's latest write; stage_latency_us gives each stage's end less its start.
#include <gtest/gtest.h>

#include "common/dsamodel/dsa_model.h"
#include "common/evaluate/evaluate.h"
#include "common/hw/dsa_spec.h"
#include "common/hw/hardware_spec.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

// x [2,16,8,8] -> relu a -> relu b; tasks of one sample each on one engine of column 0 (the
// west edge of atomic_mesh: HBM reaches it through its own 8 B/cycle port, no mesh hop).
struct TwoSampleChain {
  Graph g;
  int a = -1, b = -1;
  TwoSampleChain() {
    g.name = "two_samples";
    const int x = g.add_input("x", {2, 16, 8, 8});
    a = g.add_op(OpKind::Relu, "a", {x});
    b = g.add_op(OpKind::Relu, "b", {g.op(a).outputs[0]}, {}, 1, {"y"});
    g.mark_output(g.op(b).outputs[0]);
  }
  Task on(int op, int64_t sample, int row) const {
    Task t;
    t.ops = {op};
    t.placement.unit = UnitKind::Engine;
    t.placement.index = {0, row};
    t.regions[g.op(op).outputs[0]] = {{sample, sample + 1}, {0, 16}, {0, 8}, {0, 8}};
    return t;
  }
};

// Each task moves one sample, 1024 B, each way: a load of 128 cycles at the port + 50 of HBM
// latency, 256 cycles of compute (2048 operand bytes at 8 B/cycle), a store of 128 + 50. HBM (256
// B/cycle) and the DMA take 4 cycles per transfer. Stage 0: a of sample 0 on engine [0,0]: load
// [0, 178), compute [178, 434), store [434, 612). Stage 1 starts at 612; its first task, a of
// sample 1 on [0,1], loaded x early (HBM [4, 8), arrives 182), computes [612, 868) and stores
// [868, 1046). The last stage's task runs on engine [0,3].
TEST(DsaDramReads, AReadWaitsForTheWritesOfItsRegionNotTheTensorsLast) {
  const TwoSampleChain n;
  // Stage 1's b of sample 0 (engine [0,2]) reads a's sample 0, written in stage 0 (end 612): its
  // load [612, 790) (prefetched once the data is there), compute [790, 1046), store [1046, 1224).
  // It does not wait for a's sample 1 (end 1046), written by the task before it in the same
  // stage: then it would end at 1046 + 612 = 1658. Stage 2 (from 1224): b of sample 1 loads from
  // 1050 (a's sample 1 is there at 1046, the HBM channel is b0's store's until 1050), arrives
  // 1228, computes [1228, 1484), stores [1484, 1662): it waits for the write of its region (were
  // it read from 612, when its stage became the next, it would be there by 794 and end at 1658).
  const EvaluationResult r = evaluate(
      n.g,
      plan_of_stages({{n.on(n.a, 0, 0)}, {n.on(n.a, 1, 1), n.on(n.b, 0, 2)}, {n.on(n.b, 1, 3)}}),
      load_hardware("atomic_mesh"));
  EXPECT_DOUBLE_EQ(r.latency_us * 500, 1662);
  ASSERT_EQ(r.stage_latency_us.size(), 3u);
  EXPECT_DOUBLE_EQ(r.stage_latency_us[0] * 500, 612);
  EXPECT_DOUBLE_EQ(r.stage_latency_us[1] * 500, 1224 - 612);
  EXPECT_DOUBLE_EQ(r.stage_latency_us[2] * 500, 1662 - 1224);
}

}  // namespace
}  // namespace dgs
