// Measured Table 5's kernel selection (reproductions/graphturbo/tailor_library.h): which library
// kernel runs each kernel of every ResNet18-Tailor schedule, the activation levels and batch
// slices they read and write, and the refusals; on a GPU, every schedule on CUTLASS and on cuDNN
// against the CPU reference (skipped without one).
#include "reproductions/graphturbo/tailor_library.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/cuda/device.h"
#include "common/exec/executor.h"
#include "models/builder.h"

namespace dgs::graphturbo {
namespace {

// Channels 64/128/256/512 (the paper's), images of 8x8, 4x4, 2x2 and 1x1.
const TailorShape kShape{.image = 8, .stages = 4, .channels = 64};
constexpr int64_t kBatch = 4;

using Kind = TailorLaunch::Kind;

std::string kinds(const std::vector<TailorLaunch>& ls) {
  std::string s;
  for (const TailorLaunch& l : ls) {
    if (!s.empty()) s += " ";
    s += l.kernel + "=" +
         (l.kind == Kind::Conv         ? "conv"
          : l.kind == Kind::BackToBack ? "b2b"
                                       : "view") +
         "@" + std::to_string(l.in_level) + ">" + std::to_string(l.out_level) + "+" +
         std::to_string(l.batch_offset);
  }
  return s;
}

TEST(TailorLibrary, PerLayerIsOneCutlassConvolutionPerLayer) {
  const std::vector<TailorLaunch> ls =
      tailor_launches(tailor_per_layer(kBatch, DType::F32, kShape));
  ASSERT_EQ(ls.size(), 8u);
  for (size_t i = 0; i < ls.size(); ++i) {
    EXPECT_EQ(ls[i].kind, Kind::Conv);
    EXPECT_EQ(ls[i].in_level, static_cast<int>(i));
    EXPECT_EQ(ls[i].out_level, static_cast<int>(i) + 1);
    EXPECT_EQ(ls[i].batch_offset, 0);
    EXPECT_EQ(ls[i].conv0.n, kBatch);
  }
  EXPECT_EQ(ls[0].library, "CUTLASS fprop 128x64x64");   // 64 channels
  EXPECT_EQ(ls[2].library, "CUTLASS fprop 128x128x64");  // 128
  EXPECT_EQ(ls[0].conv0.r, 3);
  EXPECT_EQ(ls[1].conv0.r, 1);
  EXPECT_EQ(ls[2].conv0.stride_h, 2);
  EXPECT_EQ(ls[7].conv0.out_c, 512);
  EXPECT_EQ(ls[7].conv0.out_h, 1);
}

TEST(TailorLibrary, TwoConvIsOneBackToBackFusionPerStage) {
  const std::vector<TailorLaunch> ls = tailor_launches(tailor_two_conv(kBatch, DType::F32, kShape));
  EXPECT_EQ(kinds(ls), "stage1=b2b@0>2+0 stage2=b2b@2>4+0 stage3=b2b@4>6+0 stage4=b2b@6>8+0");
  EXPECT_EQ(tailor_launches_summary(ls),
            "stage1: CUTLASS b2b 64ch rf 64px 2w; stage2: CUTLASS b2b 128ch smem 64px 4w; "
            "stage3: CUTLASS b2b 256ch smem 64px 4w; stage4: CUTLASS b2b 512ch smem 64px 8w");
  EXPECT_EQ(ls[1].conv0.stride_h, 2);
  EXPECT_EQ(ls[1].conv1.r, 1);
  EXPECT_GE(ls[1].weight0, 0);
  EXPECT_GE(ls[1].weight1, 0);
  EXPECT_NE(ls[1].weight0, ls[1].weight1);
}

TEST(TailorLibrary, InstancesAreBatchSlicesOfOneBufferPerLevel) {
  // Fig. 18c: stages 1 and 2 in two instances, in Algorithm 3's order; the input Slices and the
  // Concat before stage 3 are views.
  const TailorNetwork net = tailor_instance_split(kBatch, DType::F32, 2, 2, kShape);
  const std::vector<TailorLaunch> ls = tailor_launches(net);
  EXPECT_EQ(kinds(ls),
            "stage1.instance2=b2b@0>2+2 stage2.instance2=b2b@2>4+2 stage1.instance1=b2b@0>2+0 "
            "stage2.instance1=b2b@2>4+0 stage3=b2b@4>6+0 stage4=b2b@6>8+0");
  EXPECT_EQ(ls[0].conv0.n, kBatch / 2);
  EXPECT_EQ(ls[4].conv0.n, kBatch);
}

TEST(TailorLibrary, NestedFactorsAndASplitLastStage) {
  // Stage 1 in 4 instances, stage 2 in 2 (each reads a Concat of two stage-1 instances),
  // stages 3 and 4 in 2, ending with the Concat of the last stage's instances: a view.
  const TailorNetwork net = tailor_instances(kBatch, DType::F32, {4, 2, 2, 2}, kShape);
  const std::vector<TailorLaunch> ls = tailor_launches(net);
  ASSERT_FALSE(ls.empty());
  EXPECT_EQ(ls.back().kind, Kind::View);
  EXPECT_EQ(ls.back().kernel, "concat.instances");
  int b2b = 0;
  for (const TailorLaunch& l : ls) {
    if (l.kind != Kind::BackToBack) continue;
    ++b2b;
    EXPECT_EQ(l.batch_offset % l.conv0.n, 0) << l.kernel;  // aligned slices
    EXPECT_EQ(l.out_level, l.in_level + 2) << l.kernel;
  }
  EXPECT_EQ(b2b, 4 + 2 + 2 + 2);
  EXPECT_EQ(tailor_launches_summary(ls).find("concat"), std::string::npos);
}

TEST(TailorLibrary, AStageWithoutAFusionInstantiationRunsAsTwoConvolutions) {
  // 1024 channels: wider than every back-to-back instantiation.
  const TailorShape wide{.image = 4, .stages = 1, .channels = 1024};
  const std::vector<TailorLaunch> ls = tailor_launches(tailor_two_conv(2, DType::F32, wide));
  EXPECT_EQ(kinds(ls), "stage1=conv@0>1+0 stage1=conv@1>2+0");
  EXPECT_NE(ls[0].library.find("(unfused: output channels 1024 -> 1024"), std::string::npos)
      << ls[0].library;
  EXPECT_EQ(ls[1].conv0.r, 1);
  EXPECT_EQ(ls[1].weight0,
            tailor_two_conv(2, DType::F32, wide).graph.find_tensor("stage1.conv1x1.weight"));
}

TEST(TailorLibrary, RefusesWhatNoLibraryKernelRuns) {
  // The unit tests' small shape has 4 channels: not a multiple of 8.
  const TailorShape narrow{.image = 8, .stages = 4, .channels = 4};
  try {
    (void)tailor_launches(tailor_per_layer(kBatch, DType::F32, narrow));
    FAIL() << "4-channel convolutions were accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("table5 measured: kernel 'stage1.conv3x3' has no library kernel: ", 0), 0u)
        << m;
    EXPECT_NE(m.find("multiples of 8"), std::string::npos) << m;
  }
  // A kernel with another op, and a convolution without its ReLU.
  auto network = [](bool sigmoid) {
    ModelBuilder b("other", DType::F32);
    const int x = b.input("x", {1, 8, 4, 4});
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{1, 1});
    const int c = b.op(OpKind::Conv, {x, b.weight("w", {8, 8, 1, 1})}, std::move(a), "conv");
    const int y = sigmoid ? b.op(OpKind::Sigmoid, {c}, {}, "sig") : c;
    TailorNetwork n;
    n.graph = b.finish({y});
    n.kernels = {{n.graph.tensor(c).producer}};
    if (sigmoid) n.kernels[0].push_back(n.graph.tensor(y).producer);
    n.kernel_names = {"k"};
    return n;
  };
  try {
    (void)tailor_launches(network(true));
    FAIL() << "a Sigmoid was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("op 'sig' (Sigmoid) is neither"), std::string::npos)
        << e.what();
  }
  try {
    (void)tailor_launches(network(false));
    FAIL() << "a convolution without a ReLU was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("conv is not followed by a ReLU"), std::string::npos)
        << e.what();
  }
}

// On a GPU: every schedule on both libraries equals the CPU reference on FP16-rounded values.
TEST(TailorLibrary, EverySchedulesKernelsEqualTheCpuReferenceOnGpu) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << "needs an NVIDIA GPU; here: " << why;
  const uint64_t seed = 5;
  const std::vector<TailorNetwork> nets = {
      tailor_per_layer(kBatch, DType::F32, kShape), tailor_two_conv(kBatch, DType::F32, kShape),
      tailor_instance_split(kBatch, DType::F32, 2, 2, kShape),
      tailor_instances(kBatch, DType::F32, {4, 2, 2, 2}, kShape)};
  for (const TailorNetwork& net : nets) {
    const TensorValues feeds = make_graph_feeds(net.graph, {}, seed);
    const TensorData ref = run_graph(net.graph, gpu::round_values_to_f16(feeds), seed)
                               .at(net.graph.output_tensors().at(0));
    for (TailorLibrary lib : {TailorLibrary::Cutlass, TailorLibrary::Cudnn}) {
      gpu::Stream stream;
      TailorDeviceRun dev(net, feeds, lib, stream);
      gpu::KernelLauncher l(stream);
      dev.run(l);
      const Comparison c = compare_tensors(dev.output(l), ref, gpu::kGpuF16Tolerance);
      EXPECT_TRUE(c.passed) << net.schedule
                            << (lib == TailorLibrary::Cutlass ? " CUTLASS" : " cuDNN") << ": "
                            << c.str();
    }
  }
}

}  // namespace
}  // namespace dgs::graphturbo
