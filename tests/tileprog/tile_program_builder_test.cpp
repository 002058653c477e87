// The generic tile-program builder (common/tileprog/tile_program_builder.h) on groups formed by
// hand, no scheduler involved: every tensor a kernel writes equals the CPU reference executor's
// whole-graph run on random inputs, with tiles run in the adversarial order (reverse, scratch
// refilled with NaN before each tile, as GPU blocks see it). Covers every operator alone, fused
// groups with intermediates in scratch, a written tensor that the kernel also reads only in part
// (both ways of computing its missing share), layout views, and the one-line refusals.
#include "common/tileprog/tile_program_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/exec/executor.h"
#include "common/exec/tensor_data.h"
#include "common/tileprog/network_program.h"
#include "common/util/error.h"
#include "tests/tileprog/small_ops_graph.h"

namespace dgs {
namespace {

using testing::add_op_out;
using testing::small_ops_graph;

// Float32 sums in another order than the reference's: relative differences ~1e-6 here; a wrong
// index or region gives O(1) errors.
constexpr Tolerance kTolerance{1e-4, 1e-4};
constexpr uint64_t kSeed = 5;

int op_named(const Graph& g, const std::string& name) {
  const int op = g.find_op(name);
  EXPECT_GE(op, 0) << name;
  return op;
}

// A group of the named ops, rooted at `root`, writing what leaves the group.
TileProgramGroup group_of(const Graph& g, const std::vector<std::string>& names,
                          const std::string& root, std::vector<int64_t> tile) {
  TileProgramGroup grp;
  for (const std::string& n : names) grp.ops.push_back(op_named(g, n));
  grp.root = op_named(g, root);
  grp.root_tile = std::move(tile);
  grp.written = tensors_leaving_group(g, grp.ops);
  return grp;
}

// Half of each extent, rounded up: several tiles per dim where the dim allows.
std::vector<int64_t> half_tile(const Shape& s) {
  std::vector<int64_t> t;
  for (int64_t d : s) t.push_back((d + 1) / 2);
  return t;
}

// Runs `np` and compares every tensor a kernel writes, and every graph output, with the reference.
void expect_network_matches(const Graph& g, const NetworkProgram& np, const std::string& what) {
  const TensorValues ref = run_graph(g, {}, kSeed);
  const TensorValues got = run_network_host(g, np, {}, kSeed, HostTileOrder::Adversarial);
  const std::vector<int> outputs = g.output_tensors();
  std::set<int> checked(outputs.begin(), outputs.end());
  for (const TileProgram& k : np.kernels)
    for (size_t i = 0; i < k.global_ids.size(); ++i)
      if (k.global_written[i]) checked.insert(k.global_ids[i]);
  ASSERT_FALSE(checked.empty());
  for (int t : checked) {
    ASSERT_TRUE(got.count(t)) << what << ": no value for '" << g.tensor(t).name << "'";
    const Comparison c = compare_tensors(got.at(t), ref.at(t), kTolerance);
    EXPECT_TRUE(c.passed) << what << ": tensor '" << g.tensor(t).name << "': " << c.str();
  }
}

TEST(TileProgramBuilder, EveryOperatorAloneEqualsReference) {
  const Graph g = small_ops_graph();
  NetworkProgram np;
  for (int op : g.topo_order()) {
    TileProgramGroup grp;
    grp.ops = {op};
    grp.root = op;
    grp.root_tile = half_tile(g.tensor(g.op(op).outputs[0]).shape);
    grp.written = tensors_leaving_group(g, grp.ops);
    ASSERT_EQ(grp.written, std::vector<int>{g.op(op).outputs[0]}) << g.op(op).name;
    const TileProgram p = build_tile_program(g, grp);
    EXPECT_EQ(p.ops.size(), 1u) << p.name;
    EXPECT_GT(p.tiles, 1) << p.name;
    EXPECT_EQ(p.scratch_floats, 0) << p.name;  // nothing is read inside a one-op kernel
    np.kernels.push_back(p);
  }
  expect_network_matches(g, np, "one op per kernel");
}

// conv..sigmoid as one kernel (intermediates in scratch; the Softmax over channels makes each
// tile recompute all channels of relu and conv), then gap..gemm, matmul and d2s.
TEST(TileProgramBuilder, FusedGroupsEqualReference) {
  const Graph g = small_ops_graph();
  NetworkProgram np;
  const TileProgramGroup head =
      group_of(g, {"conv", "relu", "softmax", "sigmoid"}, "sigmoid", {1, 4, 3, 3});
  EXPECT_EQ(head.written, std::vector<int>{g.op(op_named(g, "sigmoid")).outputs[0]});
  np.kernels.push_back(build_tile_program(g, head));
  const TileProgram& k0 = np.kernels.back();
  EXPECT_EQ(k0.name, "conv..sigmoid");
  EXPECT_EQ(k0.tiles, 2 * 2 * 2 * 2);
  EXPECT_GT(k0.scratch_floats, 0);
  // Recomputation: every tile computes all 8 channels of conv's region, the root only its tile.
  const int64_t root_elements = 2 * 8 * 5 * 6;
  EXPECT_GT(k0.computed_elements(), 4 * root_elements);
  np.kernels.push_back(
      build_tile_program(g, group_of(g, {"gap", "flat", "t", "gemm"}, "gemm", {1, 5})));
  np.kernels.push_back(build_tile_program(g, group_of(g, {"matmul"}, "matmul", {1, 3, 2, 3})));
  np.kernels.push_back(build_tile_program(g, group_of(g, {"d2s"}, "d2s", {2, 1, 4, 5})));
  expect_network_matches(g, np, "fused groups");
}

// x -> relu -> concat(relu, x) -> slice (channels 0..2) -> sigmoid, and concat2(x, x) -> slice2
// -> sigmoid2; both concats are graph outputs too, so each kernel writes one whole although its
// root's tiles read only part of it: concat (reads scratch) has its share seeded into the region
// propagation, concat2 (reads only global tensors) gets a second copy that computes its share.
Graph written_and_sliced_graph() {
  Graph g;
  g.name = "written_and_sliced";
  const int x = g.add_input("x", {1, 4, 6});
  const int r = add_op_out(g, OpKind::Relu, "relu", {x});
  const int c = add_op_out(g, OpKind::Concat, "concat", {r, x}, Attributes({{"axis", int64_t{1}}}));
  const int starts = g.add_constant_ints("starts", {0});
  const int ends = g.add_constant_ints("ends", {2});
  const int axes = g.add_constant_ints("axes", {1});
  const int s = add_op_out(g, OpKind::Slice, "slice", {c, starts, ends, axes});
  g.mark_output(add_op_out(g, OpKind::Sigmoid, "sigmoid", {s}));
  g.mark_output(c);
  const int c2 =
      add_op_out(g, OpKind::Concat, "concat2", {x, x}, Attributes({{"axis", int64_t{1}}}));
  const int s2 = add_op_out(g, OpKind::Slice, "slice2", {c2, starts, ends, axes});
  g.mark_output(add_op_out(g, OpKind::Sigmoid, "sigmoid2", {s2}));
  g.mark_output(c2);
  return g;
}

TEST(TileProgramBuilder, WrittenTensorReadInPartIsWrittenWhole) {
  const Graph g = written_and_sliced_graph();
  NetworkProgram np;
  const TileProgramGroup a =
      group_of(g, {"relu", "concat", "slice", "sigmoid"}, "sigmoid", {1, 1, 3});
  ASSERT_EQ(a.written.size(), 2u);  // the concat and the sigmoid
  np.kernels.push_back(build_tile_program(g, a));
  EXPECT_EQ(np.kernels.back().ops.size(), 4u);  // share seeded: no extra op
  const TileProgramGroup b = group_of(g, {"concat2", "slice2", "sigmoid2"}, "sigmoid2", {1, 1, 3});
  np.kernels.push_back(build_tile_program(g, b));
  EXPECT_EQ(np.kernels.back().ops.size(), 4u);  // the concat's share as a second copy
  expect_network_matches(g, np, "written and sliced");
}

// A layout-only op as a view: the kernel after it reads the view's buffer.
TEST(TileProgramBuilder, LayoutViewsShareTheirInputBuffer) {
  const Graph g = small_ops_graph();
  auto out = [&](const std::string& n) { return g.op(op_named(g, n)).outputs[0]; };
  auto alone = [&](const std::string& n) {
    return build_tile_program(g, group_of(g, {n}, n, half_tile(g.tensor(out(n)).shape)));
  };
  NetworkProgram np;
  np.kernels.push_back(build_tile_program(
      g, group_of(g, {"conv", "relu", "softmax", "sigmoid"}, "sigmoid", {1, 4, 3, 3})));
  np.kernels.push_back(alone("gap"));
  add_layout_view(np, g, op_named(g, "flat"));
  EXPECT_EQ(np.buffer_of(out("flat")), out("gap"));
  EXPECT_EQ(np.buffer_of(out("gap")), out("gap"));
  for (const char* n : {"t", "gemm", "matmul", "d2s"}) np.kernels.push_back(alone(n));
  expect_network_matches(g, np, "with a view");
  // Only layout-only operators can be views.
  EXPECT_THROW(add_layout_view(np, g, op_named(g, "relu")), Error);
}

std::string error_of(const Graph& g, const TileProgramGroup& grp) {
  try {
    build_tile_program(g, grp);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_one_line(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

// An operator the interpreter lacks: one line naming the op and its kind.
TEST(TileProgramBuilder, UnsupportedOperatorIsRefusedInOneLine) {
  Graph g;
  g.name = "pool";
  const int x = g.add_input("x", {1, 2, 8, 8});
  g.mark_output(add_op_out(g, OpKind::MaxPool, "the_pool", {x},
                           Attributes({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                       {"strides", std::vector<int64_t>{2, 2}}})));
  const std::string msg = error_of(g, group_of(g, {"the_pool"}, "the_pool", {1, 1, 2, 2}));
  expect_one_line(msg, "op 'the_pool' (MaxPool)");
  EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
}

TEST(TileProgramBuilder, MalformedGroupsAreRefusedInOneLine) {
  const Graph g = small_ops_graph();
  const TileProgramGroup ok = group_of(g, {"conv", "relu"}, "relu", {1, 8, 5, 6});
  TileProgramGroup bad = ok;
  bad.root = op_named(g, "conv");  // read by relu inside the group
  expect_one_line(error_of(g, bad), "has a consumer inside the group");
  bad = ok;
  bad.root = op_named(g, "gemm");
  expect_one_line(error_of(g, bad), "root op is not one of the group's operators");
  bad = ok;
  bad.root_tile = {1, 8};
  expect_one_line(error_of(g, bad), "tile of rank 2 for root 'relu' of rank 4");
  bad = ok;
  bad.written = {};
  expect_one_line(error_of(g, bad), "neither written nor read inside the kernel");
  bad = ok;
  bad.written.push_back(g.op(op_named(g, "gemm")).outputs[0]);
  expect_one_line(error_of(g, bad), "is not an output of the group");
  // Two outputs of different shapes cannot share the root's tile.
  const TileProgramGroup two = group_of(g, {"matmul", "d2s"}, "d2s", {2, 1, 4, 5});
  expect_one_line(error_of(g, two), "have different shapes and cannot share one tile");
  TileProgramGroup empty;
  expect_one_line(error_of(g, empty), "without operators");
}

TEST(TileProgramBuilder, TensorsLeavingGroup) {
  const Graph g = small_ops_graph();
  auto out = [&](const char* n) { return g.op(op_named(g, n)).outputs[0]; };
  // sigmoid is read by gap, matmul and d2s outside the group.
  EXPECT_EQ(tensors_leaving_group(g, {op_named(g, "softmax"), op_named(g, "sigmoid")}),
            std::vector<int>{out("sigmoid")});
  // A graph output is written even when nothing reads it.
  EXPECT_EQ(tensors_leaving_group(g, {op_named(g, "matmul")}), std::vector<int>{out("matmul")});
  // Everything: only the graph outputs leave.
  std::vector<int> all;
  for (int o = 0; o < g.num_ops(); ++o) all.push_back(o);
  std::vector<int> outs = g.output_tensors();
  std::sort(outs.begin(), outs.end());
  EXPECT_EQ(tensors_leaving_group(g, all), outs);
}

}  // namespace
}  // namespace dgs
