// The brick kernels (padded and memoized persistent kernels, brick conversion) and the cuDNN 3-D
// baseline against the CPU reference through the kernel testbed, on the three- and six-layer
// proxies at reduced sizes with partial bricks. Skipped without a GPU; the fragments are checked
// on the CPU reference on every machine.
#include <gtest/gtest.h>

#include "common/cuda/brick_kernels.h"
#include "common/cuda/cudnn_conv3d.h"
#include "models/zoo.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

// The chain's layers with their device weights (conv<i>.weight / conv<i>.bias).
std::vector<gpu::BrickConvLayer> chain_layers(const Graph& g, const gpu::DeviceTensors& t) {
  std::vector<gpu::BrickConvLayer> layers;
  for (int op : g.topo_order()) {
    if (g.op(op).kind != OpKind::Conv) continue;
    const Op& o = g.op(op);
    gpu::BrickConvLayer L;
    L.in_channels = g.tensor(o.inputs[0]).shape[1];
    L.out_channels = g.tensor(o.outputs[0]).shape[1];
    L.kernel = o.attrs.get_ints("kernel_shape", {3}).at(0);
    L.pad = o.attrs.get_ints("pads", {0}).at(0);
    L.stride = o.attrs.get_ints("strides", {1}).at(0);
    L.dilation = o.attrs.get_ints("dilations", {1}).at(0);
    L.weight = t[o.inputs[1]];
    L.bias = t[o.inputs[2]];
    layers.push_back(L);
  }
  return layers;
}

std::array<int64_t, 3> spatial(const Graph& g, int tensor) {
  const Shape& s = g.tensor(tensor).shape;
  return {s[2], s[3], s[4]};
}

enum class Variant { Padded, Memoized, Cudnn };

void check_chain(const std::string& model, int64_t size, int64_t edge, Variant v) {
  const Graph g = build_zoo_model(model, {.image_size = size});
  const int in = g.input_tensors().at(0), out = g.output_tensors().at(0);
  const std::string config = model + " " + std::to_string(size) + "^3 B " + std::to_string(edge);
  const gpu::KernelCheck c = gpu::check_kernel(
      g,
      [&](gpu::KernelLauncher& l, const gpu::DeviceTensors& t) {
        const auto layers = chain_layers(g, t);
        if (v == Variant::Cudnn) {
          gpu::CudnnConv3dChain chain(layers, spatial(g, in), l.stream());
          chain.run(l, t[in], t[out]);
          return;
        }
        gpu::BrickChainRunner r(layers, spatial(g, in), edge);
        gpu::to_bricks_3d(l, t[in], r.bricked_input(), layers[0].in_channels, spatial(g, in), edge);
        if (v == Variant::Padded) {
          r.run_padded(l);
        } else {
          r.run_memoized(l);
          const gpu::BrickAtomicCounts a = r.atomic_counts();
          EXPECT_EQ(a.compulsory, 2 * a.bricks) << config;  // every brick once: 2 atomics each
        }
        gpu::from_bricks_3d(l, r.bricked_output(), t[out], layers.back().out_channels,
                            spatial(g, out), edge);
      },
      testing::kKernelTestSeed);
  EXPECT_TRUE(c.passed) << config << "\n" << c.str(g);
}

TEST(BrickKernels, FragmentsRunOnTheCpuReference) {
  testing::run_cpu_reference(build_zoo_model("brickdl_proxy3", {.image_size = 13}));
  testing::run_cpu_reference(build_zoo_model("brickdl_proxy6", {.image_size = 17}));
}

TEST(BrickKernels, PaddedEqualsReference) {
  DGS_REQUIRE_GPU();
  for (int64_t edge : {4, 8}) check_chain("brickdl_proxy3", 13, edge, Variant::Padded);
  check_chain("brickdl_proxy6", 17, 4, Variant::Padded);
}

TEST(BrickKernels, MemoizedEqualsReferenceWithTwoCompulsoryAtomicsPerBrick) {
  DGS_REQUIRE_GPU();
  for (int64_t edge : {4, 8}) check_chain("brickdl_proxy3", 13, edge, Variant::Memoized);
  check_chain("brickdl_proxy6", 17, 4, Variant::Memoized);
}

TEST(BrickKernels, CudnnBaselineEqualsReference) {
  DGS_REQUIRE_GPU();
  check_chain("brickdl_proxy3", 13, 4, Variant::Cudnn);
}

}  // namespace
}  // namespace dgs
