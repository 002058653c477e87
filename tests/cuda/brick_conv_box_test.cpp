// The brick kernels' arithmetic core (common/cuda/brick_conv_box.h), run on the host: the same
// code the padded and memoized kernels run per thread, against the CPU reference (run_graph) of a
// 3-D convolution on random inputs. Runs on every machine (no GPU needed): a change to the
// kernels' addressing or loop order is checked here before it reaches a GPU.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "common/cuda/brick_conv_box.h"
#include "common/cuda/brick_kernels.h"
#include "common/exec/executor.h"
#include "common/util/error.h"
#include "models/builder.h"

namespace dgs {
namespace {

namespace brick = gpu::brick;

constexpr uint64_t kSeed = 28;

struct ConvCase {
  int64_t cin, cout, k, stride, pad, dilation;
  std::array<int64_t, 3> in;
  int edge;
};

struct Reference {
  Graph g;
  TensorValues v;
  int x, w, b, y;
};

// Conv3d + Relu on random inputs through the CPU reference executor.
Reference reference(const ConvCase& c) {
  ModelBuilder mb("conv_box", DType::F32);
  const int x = mb.input("x", {1, c.cin, c.in[0], c.in[1], c.in[2]});
  const int conv =
      mb.conv3d(x, c.cout, {c.k, c.k, c.k}, {c.stride, c.stride, c.stride}, {c.pad, c.pad, c.pad},
                {c.dilation, c.dilation, c.dilation}, 1, true, "conv");
  const int y = mb.relu(conv, "relu");
  Reference r{mb.finish({y}), {}, 0, 0, 0, 0};
  r.v = run_graph(r.g, {}, kSeed);
  const Op& op = r.g.op(r.g.tensor(conv).producer);
  r.x = op.inputs[0];
  r.w = op.inputs[1];
  r.b = op.inputs[2];
  r.y = r.g.output_tensors().at(0);
  return r;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

brick::LayerDev layer_dev(const ConvCase& c, const Reference& r) {
  const Shape& out = r.g.tensor(r.y).shape;
  brick::LayerDev L{};
  L.cin = static_cast<int>(c.cin);
  L.cout = static_cast<int>(c.cout);
  L.k = static_cast<int>(c.k);
  L.s = static_cast<int>(c.stride);
  L.p = static_cast<int>(c.pad);
  L.d = static_cast<int>(c.dilation);
  L.relu = 1;
  for (int i = 0; i < 3; ++i) {
    L.in[i] = static_cast<int>(c.in[static_cast<size_t>(i)]);
    L.out[i] = static_cast<int>(out[static_cast<size_t>(i) + 2]);
    L.gin[i] = static_cast<int>(ceil_div(L.in[i], c.edge));
    L.gout[i] = static_cast<int>(ceil_div(L.out[i], c.edge));
  }
  L.w = r.v.at(r.w).f.data();
  L.b = r.v.at(r.b).f.data();
  return L;
}

// A dense (C, D, H, W) tensor in the device's brick layout (grid g, edge B; masked part 0).
std::vector<float> bricked(const std::vector<float>& dense, int C, const int* dims, const int* g,
                           int B) {
  std::vector<float> out(static_cast<size_t>(g[0]) * g[1] * g[2] * C * B * B * B, 0.0f);
  for (int c = 0; c < C; ++c)
    for (int z = 0; z < dims[0]; ++z)
      for (int y = 0; y < dims[1]; ++y)
        for (int x = 0; x < dims[2]; ++x)
          out[static_cast<size_t>(brick::brick_offset(c, z, y, x, g, B, C))] =
              dense[static_cast<size_t>(
                  ((static_cast<int64_t>(c) * dims[0] + z) * dims[1] + y) * dims[2] + x)];
  return out;
}

void expect_close(float got, float want, const std::string& where) {
  EXPECT_NEAR(got, want, 1e-4 * (1.0 + std::fabs(want))) << where;
}

// Every output brick computed from the bricked input into the bricked output, its work items
// split as `threads` threads split them on the device; then read back and compared.
template <brick::Source kind>
void check_bricked(const ConvCase& c, int threads) {
  const Reference r = reference(c);
  const brick::LayerDev L = layer_dev(c, r);
  const int B = c.edge;
  const std::vector<float> src = bricked(r.v.at(r.x).f, L.cin, L.in, L.gin, B);
  std::vector<float> dst(
      static_cast<size_t>(L.gout[0]) * L.gout[1] * L.gout[2] * L.cout * B * B * B,
      -1.0f);  // every element, masked ones included, must be written
  const int ext[3] = {B, B, B};
  for (int bz = 0; bz < L.gout[0]; ++bz)
    for (int by = 0; by < L.gout[1]; ++by)
      for (int bx = 0; bx < L.gout[2]; ++bx) {
        const int lo[3] = {bz * B, by * B, bx * B};
        for (int t = 0; t < threads; ++t)
          brick::conv_box<kind>(L, B, src.data(), nullptr, nullptr, dst.data(), lo, ext, true, t,
                                threads);
      }
  const std::vector<float>& want = r.v.at(r.y).f;
  const int g[3] = {L.gout[0], L.gout[1], L.gout[2]};
  const std::vector<float> want_bricked = bricked(want, L.cout, L.out, g, B);
  ASSERT_EQ(want_bricked.size(), dst.size());
  for (size_t i = 0; i < dst.size(); ++i)
    expect_close(dst[i], want_bricked[i], "bricked element " + std::to_string(i));
}

TEST(BrickConvBox, BrickedInputToBrickedOutputEqualsTheReference) {
  // Partial bricks on every axis, the proxies' 3x3x3 unpadded convolution.
  check_bricked<brick::Source::BrickedReadOnly>({5, 6, 3, 1, 0, 1, {11, 10, 9}, 4}, 1);
  check_bricked<brick::Source::BrickedCoherent>({5, 6, 3, 1, 0, 1, {11, 10, 9}, 4}, 1);
  // Stride, padding and dilation, which the kernels' addressing also handles.
  check_bricked<brick::Source::BrickedReadOnly>({3, 4, 3, 2, 1, 1, {13, 9, 8}, 4}, 1);
  check_bricked<brick::Source::BrickedCoherent>({3, 4, 3, 1, 2, 2, {7, 9, 8}, 3}, 1);
}

TEST(BrickConvBox, ThreadsSplittingTheWorkComputeEveryElementOnce) {
  // 7 "threads" striding over the items of each brick, as a block's threads do.
  check_bricked<brick::Source::BrickedReadOnly>({4, 5, 3, 1, 0, 1, {10, 9, 11}, 4}, 7);
}

TEST(BrickConvBox, DenseBoxEqualsTheReference) {
  // The padded kernel's intermediate step: a dense input box to a dense output box.
  const ConvCase c{4, 3, 3, 1, 0, 1, {12, 11, 10}, 4};
  const Reference r = reference(c);
  const brick::LayerDev L = layer_dev(c, r);
  const int out_lo[3] = {2, 1, 3}, out_ext[3] = {5, 6, 4};
  int in_lo[3], in_ext[3];
  for (int i = 0; i < 3; ++i) {
    in_lo[i] = out_lo[i] * L.s - L.p;
    in_ext[i] = (out_ext[i] - 1) * L.s + (L.k - 1) * L.d + 1;
  }
  const std::vector<float>& x = r.v.at(r.x).f;
  std::vector<float> box(static_cast<size_t>(L.cin) * in_ext[0] * in_ext[1] * in_ext[2]);
  size_t n = 0;
  for (int ci = 0; ci < L.cin; ++ci)
    for (int z = 0; z < in_ext[0]; ++z)
      for (int y = 0; y < in_ext[1]; ++y)
        for (int xx = 0; xx < in_ext[2]; ++xx)
          box[n++] = x[static_cast<size_t>(
              ((static_cast<int64_t>(ci) * L.in[0] + in_lo[0] + z) * L.in[1] + in_lo[1] + y) *
                  L.in[2] +
              in_lo[2] + xx)];
  std::vector<float> out(static_cast<size_t>(L.cout) * out_ext[0] * out_ext[1] * out_ext[2]);
  brick::conv_box<brick::Source::Dense>(L, c.edge, box.data(), in_lo, in_ext, out.data(), out_lo,
                                        out_ext, false, 0, 1);
  const std::vector<float>& want = r.v.at(r.y).f;
  n = 0;
  for (int co = 0; co < L.cout; ++co)
    for (int z = 0; z < out_ext[0]; ++z)
      for (int y = 0; y < out_ext[1]; ++y)
        for (int xx = 0; xx < out_ext[2]; ++xx, ++n)
          expect_close(out[n],
                       want[static_cast<size_t>(
                           ((static_cast<int64_t>(co) * L.out[0] + out_lo[0] + z) * L.out[1] +
                            out_lo[1] + y) *
                               L.out[2] +
                           out_lo[2] + xx)],
                       "dense element " + std::to_string(n));
}

// The chain's shapes (host-only, the same function in the builds with and without CUDA).
TEST(BrickChainDims, OutputExtentsAndBrickedSizesByHand) {
  gpu::BrickConvLayer same;  // 3x3x3, stride 1, pad 1: the extent is kept
  same.pad = 1;
  gpu::BrickConvLayer down;  // 3x3x3, stride 2, pad 0: (8 - 3) / 2 + 1 = 3
  down.stride = 2;
  const auto d = gpu::brick_chain_dims({same, down}, {8, 8, 9});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[1], (std::array<int64_t, 3>{8, 8, 9}));
  EXPECT_EQ(d[2], (std::array<int64_t, 3>{3, 3, 4}));  // (9 - 3) / 2 + 1 = 4
  gpu::BrickConvLayer wide;                            // 5x5x5 without padding on 3^3: empty
  wide.kernel = 5;
  EXPECT_THROW(gpu::brick_chain_dims({down, wide}, {8, 8, 8}), Error);
  // 2 channels on 5^3 with edge 4: 2 x 2 x 2 bricks of 2 x 4^3 floats.
  EXPECT_EQ(gpu::bricked_floats(2, {5, 5, 5}, 4), 8 * 2 * 64);
}

}  // namespace
}  // namespace dgs
