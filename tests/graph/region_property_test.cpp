// Property test of the input regions against the CPU reference executor, on random tiles:
//   sufficiency: computing an output tile from only the regions input_regions() names (every
//     other float input element is NaN, see run_op_region) gives the whole-tensor result;
//   tightness: for regions marked exact, shrinking any face of a float input's region by one
//     element makes some element of the tile NaN (every face holds a needed element, so the
//     region is the bounding box of what is read, not a loose cover).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "common/exec/executor.h"
#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"

namespace dgs {
namespace {

using I = std::vector<int64_t>;

int out(const Graph& g, int op) {
  return g.op(op).outputs[0];
}

constexpr uint64_t kSeed = 20240611;  // fixed seed: the test is deterministic
constexpr int kTilesPerOp = 30;

Region random_tile(const Shape& s, std::mt19937_64& rng) {
  Region r;
  for (int64_t d : s) {
    std::uniform_int_distribution<int64_t> pick(0, d - 1);
    int64_t a = pick(rng), b = pick(rng);
    if (a > b) std::swap(a, b);
    r.push_back({a, b + 1});
  }
  return r;
}

bool has_nan(const TensorData& t) {
  for (float v : t.f) {
    if (std::isnan(v)) return true;
  }
  return false;
}

// Checks every output of every op of `g` on random tiles.
void check_regions(const Graph& g) {
  std::mt19937_64 rng(kSeed);
  const TensorValues full = run_graph(g, {}, kSeed);
  for (int o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const Tensor& y = g.tensor(op.outputs[k]);
      if (y.dtype != DType::F32) continue;
      for (int rep = 0; rep < kTilesPerOp; ++rep) {
        const Region tile = random_tile(y.shape, rng);
        SCOPED_TRACE(op.name + " output " + std::to_string(k) + " tile " + region_str(tile));
        std::vector<AccessRegion> acc;
        try {
          acc = input_access_regions(g, o, tile, static_cast<int>(k));
        } catch (const std::exception& e) {
          FAIL() << e.what();
        }
        // A tensor read through several input slots needs the union of their regions (the
        // executor keeps one value per tensor).
        std::map<int, Region> by_tensor;
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] < 0) continue;
          auto [it, fresh] = by_tensor.emplace(op.inputs[i], acc[i].region);
          if (!fresh) it->second = region_union(it->second, acc[i].region);
        }
        std::vector<Region> regions;
        std::vector<TensorData> tiles;
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] < 0) {
            regions.push_back({});
            tiles.push_back({});
            continue;
          }
          const TensorData& v = full.at(op.inputs[i]);
          // Integer inputs (indices, shapes) must be given whole.
          Region r = v.is_float() ? by_tensor.at(op.inputs[i]) : full_region(v.shape);
          if (region_empty(r)) r = Region(v.shape.size(), Interval{0, 0});
          regions.push_back(r);
          tiles.push_back(extract_region(v, r));
        }
        const TensorData want = extract_region(full.at(op.outputs[k]), tile);
        TensorData got;
        try {
          got = run_op_region(g, o, regions, tiles, tile, static_cast<int>(k));
        } catch (const std::exception& e) {
          FAIL() << "run_op_region with the regions: " << e.what();
        }
        ASSERT_FALSE(has_nan(got)) << "a needed element lies outside the regions";
        EXPECT_TRUE(compare_tensors(got, want).passed);
        // Touched counts: per dim with gaps, exactly `touched[d]` coordinates of the box hold a
        // needed element (a NaN put on any of them reaches the tile, on the others not).
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] < 0 || acc[i].touched.empty() || region_empty(regions[i])) continue;
          ASSERT_EQ(acc[i].touched.size(), regions[i].size());
          if (std::count(op.inputs.begin(), op.inputs.end(), op.inputs[i]) > 1) continue;
          if (!full.at(op.inputs[i]).is_float()) continue;
          const Shape box = region_shape(regions[i]);
          for (size_t d = 0; d < box.size(); ++d) {
            int64_t needed = 0;
            for (int64_t c = 0; c < box[d]; ++c) {
              std::vector<TensorData> poisoned = tiles;
              TensorData& v = poisoned[i];
              int64_t inner = 1;
              for (size_t e = d + 1; e < box.size(); ++e) inner *= box[e];
              for (int64_t k = 0; k < v.numel(); ++k)
                if ((k / inner) % box[d] == c) v.f[static_cast<size_t>(k)] = std::nanf("");
              const TensorData y =
                  run_op_region(g, o, regions, poisoned, tile, static_cast<int>(k));
              needed += has_nan(y) ? 1 : 0;
            }
            EXPECT_EQ(needed, acc[i].touched[d])
                << "input " << i << " dim " << d << " of region " << region_str(regions[i]);
          }
        }
        // Tightness.
        for (size_t i = 0; i < op.inputs.size(); ++i) {
          if (op.inputs[i] < 0 || !acc[i].exact || region_empty(regions[i])) continue;
          if (std::count(op.inputs.begin(), op.inputs.end(), op.inputs[i]) > 1) continue;
          // Constants (Resize scales, Clip bounds) are metadata read whole.
          if (!full.at(op.inputs[i]).is_float()) continue;
          if (g.tensor(op.inputs[i]).role == TensorRole::Constant) continue;
          for (size_t d = 0; d < regions[i].size(); ++d) {
            for (int side = 0; side < 2; ++side) {
              std::vector<Region> shrunk = regions;
              Interval& iv = shrunk[i][d];
              (side == 0 ? iv.lo : iv.hi) += side == 0 ? 1 : -1;
              if (iv.empty()) shrunk[i] = Region(regions[i].size(), Interval{0, 0});
              std::vector<TensorData> shrunk_tiles = tiles;
              shrunk_tiles[i] = extract_region(full.at(op.inputs[i]), shrunk[i]);
              TensorData partial;
              try {
                partial = run_op_region(g, o, shrunk, shrunk_tiles, tile, static_cast<int>(k));
              } catch (const std::exception& e) {
                FAIL() << "run_op_region with shrunk region " << region_str(shrunk[i]) << ": "
                       << e.what();
              }
              EXPECT_TRUE(has_nan(partial))
                  << "input " << i << " face " << (side == 0 ? "lo" : "hi") << " of dim " << d
                  << " of region " << region_str(regions[i]) << " is not needed";
            }
          }
        }
      }
    }
  }
}

TEST(RegionProperty, ConvolutionsAndPools) {
  Graph g;
  int x = g.add_input("x", {2, 4, 9, 8});
  int w = g.add_weight("w", {6, 4, 3, 3});
  int b = g.add_weight("b", {6});
  g.add_op(OpKind::Conv, "conv_s2p1", {x, w, b},
           Attributes({{"strides", I{2, 2}}, {"pads", I{1, 1, 1, 1}}}));
  int wd = g.add_weight("wd", {4, 4, 3, 2});
  g.add_op(OpKind::Conv, "conv_dilated", {x, wd},
           Attributes({{"dilations", I{2, 3}}, {"pads", I{0, 1, 2, 0}}}));
  int wg = g.add_weight("wg", {6, 2, 1, 3});
  g.add_op(OpKind::Conv, "conv_grouped", {x, wg},
           Attributes({{"group", int64_t{2}}, {"strides", I{3, 1}}}));
  int wdw = g.add_weight("wdw", {4, 1, 3, 3});
  g.add_op(OpKind::Conv, "conv_depthwise", {x, wdw},
           Attributes({{"group", int64_t{4}}, {"auto_pad", std::string("SAME_UPPER")}}));
  int wt = g.add_weight("wt", {4, 3, 3, 2});
  g.add_op(OpKind::ConvTranspose, "deconv", {x, wt},
           Attributes({{"strides", I{2, 3}}, {"pads", I{1, 0, 0, 1}}, {"group", int64_t{2}}}));
  g.add_op(OpKind::MaxPool, "maxpool", {x},
           Attributes({{"kernel_shape", I{3, 3}},
                       {"strides", I{2, 2}},
                       {"pads", I{1, 1, 1, 1}},
                       {"ceil_mode", int64_t{1}}}));
  g.add_op(OpKind::AveragePool, "avgpool", {x},
           Attributes({{"kernel_shape", I{2, 3}}, {"strides", I{1, 2}}, {"pads", I{0, 1, 1, 1}}}));
  g.add_op(OpKind::GlobalAveragePool, "gap", {x});
  // Windows smaller than their strides: only some rows and columns of the box are read.
  int w1 = g.add_weight("w1", {6, 4, 1, 1});
  g.add_op(OpKind::Conv, "conv_1x1_s2", {x, w1}, Attributes({{"strides", I{2, 2}}}));
  g.add_op(OpKind::MaxPool, "maxpool_k2_s3", {x},
           Attributes({{"kernel_shape", I{2, 2}}, {"strides", I{3, 3}}}));
  check_regions(g);
}

TEST(RegionProperty, LinearAlgebraAndNormalisation) {
  Graph g;
  int a = g.add_input("a", {2, 1, 5, 6});
  int b = g.add_input("b", {3, 6, 4});
  g.add_op(OpKind::MatMul, "matmul", {a, b});
  int at = g.add_input("at", {6, 5});
  int bt = g.add_weight("bt", {7, 6});
  int c = g.add_weight("c", {1, 7});
  g.add_op(OpKind::Gemm, "gemm", {at, bt, c},
           Attributes({{"transA", int64_t{1}}, {"transB", int64_t{1}}}));
  int x = g.add_input("x", {2, 3, 4, 5});
  int y = g.add_input("y", {3, 1, 5});
  g.add_op(OpKind::Add, "add", {x, y});
  g.add_op(OpKind::Softmax, "softmax", {x}, Attributes({{"axis", int64_t{2}}}));
  int gamma = g.add_weight("gamma", {4, 5});
  g.add_op(OpKind::LayerNormalization, "ln", {x, gamma}, Attributes({{"axis", int64_t{2}}}));
  g.add_op(OpKind::ReduceSum, "rsum", {x, g.add_constant_ints("axes", {1, 3})},
           Attributes({{"keepdims", int64_t{0}}}));
  g.add_op(OpKind::ReduceMax, "rmax", {x}, Attributes({{"axes", I{2}}}));
  int s = g.add_weight("s", {3}), bb = g.add_weight("bb", {3}), m = g.add_weight("m", {3});
  int v = g.add_constant_floats("v", {3}, {0.5f, 1.0f, 2.0f});  // variances must be positive
  g.add_op(OpKind::BatchNormalization, "bn", {x, s, bb, m, v});
  check_regions(g);
}

TEST(RegionProperty, DataMovement) {
  Graph g;
  int x = g.add_input("x", {2, 6, 4, 6});
  int x2 = g.add_input("x2", {2, 3, 4, 6});
  g.add_op(OpKind::Concat, "concat", {x, x2, x}, Attributes({{"axis", int64_t{1}}}));
  g.add_op(OpKind::Split, "split", {x, g.add_constant_ints("sizes", {1, 2, 3})},
           Attributes({{"axis", int64_t{1}}}), 3);
  g.add_op(OpKind::Slice, "slice",
           {x, g.add_constant_ints("st", {5, 1}), g.add_constant_ints("en", {-100, 6}),
            g.add_constant_ints("ax", {1, 3}), g.add_constant_ints("stp", {-2, 2})});
  g.add_op(OpKind::Transpose, "transpose", {x}, Attributes({{"perm", I{2, 0, 3, 1}}}));
  g.add_op(OpKind::Reshape, "reshape", {x, g.add_constant_ints("shape", {2, 6, 24})});
  g.add_op(OpKind::Reshape, "reshape_split", {x, g.add_constant_ints("shape2", {4, 3, 2, 12})});
  g.add_op(OpKind::Flatten, "flatten", {x}, Attributes({{"axis", int64_t{2}}}));
  g.add_op(OpKind::Unsqueeze, "unsqueeze", {x, g.add_constant_ints("ua", {0, 3})});
  g.add_op(OpKind::Pad, "pad_reflect", {x, g.add_constant_ints("p1", {0, 0, 2, 3, 0, 0, 1, 4})},
           Attributes({{"mode", std::string("reflect")}}));
  g.add_op(OpKind::Pad, "pad_edge", {x, g.add_constant_ints("p2", {0, 1, 2, 0, 0, 1, 3, 2})},
           Attributes({{"mode", std::string("edge")}}));
  g.add_op(OpKind::Pad, "pad_constant", {x, g.add_constant_ints("p3", {0, 0, 1, 1, 0, 0, 2, 2})});
  g.add_op(OpKind::Resize, "resize_nearest",
           {x, -1, g.add_constant_floats("sc", {4}, {1, 1, 2.5f, 0.5f})});
  g.add_op(OpKind::Resize, "resize_linear", {x, -1, -1, g.add_constant_ints("sz", {2, 6, 9, 4})},
           Attributes({{"mode", std::string("linear")}}));
  g.add_op(OpKind::Resize, "resize_asym", {x, -1, g.add_constant_floats("sc2", {4}, {1, 1, 2, 3})},
           Attributes({{"coordinate_transformation_mode", std::string("asymmetric")},
                       {"nearest_mode", std::string("floor")}}));
  g.add_op(OpKind::Resize, "resize_corners", {x, -1, -1, g.add_constant_ints("sz2", {2, 6, 7, 11})},
           Attributes({{"coordinate_transformation_mode", std::string("align_corners")},
                       {"mode", std::string("linear")}}));
  int d = g.add_input("d", {1, 8, 3, 2});
  g.add_op(OpKind::DepthToSpace, "d2s_dcr", {d}, Attributes({{"blocksize", int64_t{2}}}));
  g.add_op(OpKind::DepthToSpace, "d2s_crd", {d},
           Attributes({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  g.add_op(OpKind::SpaceToDepth, "s2d", {x}, Attributes({{"blocksize", int64_t{2}}}));
  int table = g.add_weight("table", {7, 5});
  Tensor idx;
  idx.name = "idx";
  idx.shape = {2, 3};
  idx.dtype = DType::I64;
  idx.role = TensorRole::Constant;
  idx.int_data = {4, 0, 6, 2, 2, -1};
  g.add_op(OpKind::Gather, "gather_const", {table, g.add_tensor(idx)});
  g.add_op(OpKind::Gather, "gather_axis1", {x, g.add_input("ids", {3}, DType::I64)},
           Attributes({{"axis", int64_t{3}}}));
  g.add_op(OpKind::Expand, "expand", {x2, g.add_constant_ints("es", {3, 1, 3, 1, 1})});
  check_regions(g);
}

TEST(RegionProperty, FusedChainMatchesTileExecution) {
  // conv -> relu -> maxpool: the regions propagate_tile gives are enough to compute the tile op
  // by op from the group input's region alone.
  Graph g;
  int x = g.add_input("x", {1, 3, 12, 12});
  int w = g.add_weight("w", {4, 3, 3, 3});
  int c = g.add_op(OpKind::Conv, "c", {x, w}, Attributes({{"pads", I{1, 1, 1, 1}}}));
  int r = g.add_op(OpKind::Relu, "r", {out(g, c)});
  int p = g.add_op(OpKind::MaxPool, "p", {out(g, r)},
                   Attributes({{"kernel_shape", I{2, 2}}, {"strides", I{2, 2}}}));
  const TensorValues full = run_graph(g, {}, kSeed);
  const Region tile{{0, 1}, {1, 3}, {2, 4}, {3, 6}};
  auto need = propagate_tile(g, {c, r, p}, p, tile);
  // Re-run the chain on tiles: each op's output tile is its needed region.
  std::map<int, TensorData> tiles;
  tiles[x] = extract_region(full.at(x), need.at(x).region);
  tiles[w] = extract_region(full.at(w), need.at(w).region);
  for (int o : {c, r, p}) {
    const Op& op = g.op(o);
    std::vector<Region> regions;
    std::vector<TensorData> in_tiles;
    for (int t : op.inputs) {
      // Place the computed tile into a NaN tensor region the executor can read.
      regions.push_back(need.at(t).region);
      in_tiles.push_back(tiles.at(t));
    }
    tiles[op.outputs[0]] = run_op_region(g, o, regions, in_tiles, need.at(op.outputs[0]).region);
    EXPECT_FALSE(has_nan(tiles[op.outputs[0]])) << op.name;
  }
  EXPECT_TRUE(
      compare_tensors(tiles.at(out(g, p)), extract_region(full.at(out(g, p)), tile)).passed);
}

}  // namespace
}  // namespace dgs
