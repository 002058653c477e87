// The device runner of tile-program networks (common/cuda/device_network.h), on the host: the
// persistent grid's size (its GPU runs are in tests/welder, on Welder's schedules).
#include "common/cuda/device_network.h"

#include <gtest/gtest.h>

#include "common/util/error.h"

namespace dgs::gpu {
namespace {

// The resident blocks of all SMs, never more than tiles, and no more than the scratch budget
// holds.
TEST(DeviceNetwork, PersistentGridSize) {
  TileProgram p;
  p.tiles = 100000;
  p.scratch_floats = 0;
  EXPECT_EQ(tile_program_blocks(p, 80, 2), 160);
  p.tiles = 7;
  EXPECT_EQ(tile_program_blocks(p, 80, 2), 7);
  p.tiles = 100000;
  p.scratch_floats = kTpScratchBudgetBytes / 4 / 10;  // ten blocks' worth fit
  EXPECT_EQ(tile_program_blocks(p, 80, 2), 10);
  p.scratch_floats = kTpScratchBudgetBytes;  // one block does not fit: refused in one line
  EXPECT_THROW(tile_program_blocks(p, 80, 2), Error);
}

}  // namespace
}  // namespace dgs::gpu
