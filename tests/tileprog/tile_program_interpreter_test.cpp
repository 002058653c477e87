// The tile-program interpreter (common/tileprog/tile_program_interpreter.h) on programs written
// by hand: per-tile regions, scratch shared between the ops of one tile, broadcasting, the
// pointer-count check, and the adversarial host order that the builder's tests rely on (it must
// expose a tile that reads scratch another tile left behind).
#include "common/tileprog/tile_program_interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/util/error.h"

namespace dgs {
namespace {

TpOperand global_operand(int slot, const std::vector<int64_t>& shape) {
  TpOperand x;
  x.local = 0;
  x.index = slot;
  x.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) x.shape[d] = shape[d];
  return x;
}

TpOperand local_operand(int op, const std::vector<int64_t>& shape) {
  TpOperand x = global_operand(op, shape);
  x.local = 1;
  return x;
}

TpOp op_of(TpKind kind, const std::vector<TpOperand>& in, const std::vector<int64_t>& shape) {
  TpOp op;
  op.kind = kind;
  op.num_inputs = static_cast<int32_t>(in.size());
  for (size_t k = 0; k < in.size(); ++k) op.in[k] = in[k];
  op.rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) op.shape[d] = shape[d];
  return op;
}

// Sets the region of op `op` for tile `tile`: lo and size per dim (size {} marks an empty region).
void set_region(TileProgram& p, int64_t tile, size_t op, const std::vector<int64_t>& lo,
                const std::vector<int64_t>& size) {
  const size_t stride = static_cast<size_t>(p.region_stride());
  const size_t need = static_cast<size_t>(p.tiles) * p.ops.size() * stride;
  if (p.regions.size() < need) p.regions.resize(need, 0);
  int64_t* row = p.regions.data() + (static_cast<size_t>(tile) * p.ops.size() + op) * stride;
  for (int d = 0; d < kTpMaxRank; ++d) {
    row[d] = 0;
    row[kTpMaxRank + d] = 1;
  }
  if (size.empty()) {
    row[kTpMaxRank] = 0;
    return;
  }
  for (size_t d = 0; d < lo.size(); ++d) {
    row[d] = lo[d];
    row[kTpMaxRank + d] = size[d];
  }
}

// y[2,3] = relu(a[2,3]) + b[3] (broadcast), the Relu kept in scratch, one row per tile.
TEST(TileProgramInterpreter, TwoOpsPerTileWithScratchAndBroadcast) {
  TileProgram p;
  p.name = "relu..add";
  p.global_shapes = {{2, 3}, {3}, {2, 3}};
  p.global_ids = {10, 11, 12};
  p.global_written = {false, false, true};
  TpOp relu = op_of(TpKind::Relu, {global_operand(0, {2, 3})}, {2, 3});
  relu.scratch_offset = 0;
  TpOp add = op_of(TpKind::Add, {local_operand(0, {2, 3}), global_operand(1, {3})}, {2, 3});
  add.out_global = 2;
  p.ops = {relu, add};
  p.tiles = 2;
  p.scratch_floats = 3;
  for (int64_t t = 0; t < 2; ++t) {
    set_region(p, t, 0, {t, 0}, {1, 3});
    set_region(p, t, 1, {t, 0}, {1, 3});
  }
  EXPECT_EQ(p.computed_elements(), 12);
  std::vector<float> a = {-1, 2, -3, 4, -5, 6}, b = {10, 20, 30}, y(6, -7.0f);
  for (HostTileOrder order : {HostTileOrder::Forward, HostTileOrder::Adversarial}) {
    std::fill(y.begin(), y.end(), -7.0f);
    run_tile_program_host(p, {a.data(), b.data(), y.data()}, order);
    EXPECT_EQ(y, (std::vector<float>{10, 22, 30, 14, 20, 36}));
  }
  // One pointer per global tensor, or a one-line refusal.
  EXPECT_THROW(run_tile_program_host(p, {a.data(), b.data()}), Error);
}

// Tile 1 reads scratch that only tile 0 wrote (its own region of the first op is empty): the
// forward order hides the bug, the adversarial order (reverse, NaN scratch) exposes it.
TEST(TileProgramInterpreter, AdversarialOrderExposesAReadOfAnotherTilesScratch) {
  TileProgram p;
  p.name = "broken";
  p.global_shapes = {{4}, {4}};
  p.global_ids = {0, 1};
  p.global_written = {false, true};
  TpOp first = op_of(TpKind::Relu, {global_operand(0, {4})}, {4});
  first.scratch_offset = 0;
  TpOp second = op_of(TpKind::Relu, {local_operand(0, {4})}, {4});
  second.out_global = 1;
  p.ops = {first, second};
  p.tiles = 2;
  p.scratch_floats = 4;
  set_region(p, 0, 0, {0}, {4});
  set_region(p, 0, 1, {0}, {2});
  set_region(p, 1, 0, {}, {});    // tile 1 computes nothing of the first op...
  set_region(p, 1, 1, {2}, {2});  // ...but reads elements 2 and 3 of it
  std::vector<float> x = {1, 2, 3, 4}, y(4, 0.0f);
  run_tile_program_host(p, {x.data(), y.data()}, HostTileOrder::Forward);
  EXPECT_EQ(y, x);
  run_tile_program_host(p, {x.data(), y.data()}, HostTileOrder::Adversarial);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
}

}  // namespace
}  // namespace dgs
