// The CUDA layer where there may be no GPU: availability answers with a reason and never crashes,
// every GPU object refuses in one line; with a GPU, the live device fills a GpuSpec. Also the
// host-side helpers of the kernels (strides, tile lists), which run everywhere.
#include <gtest/gtest.h>

#include <string>

#include "common/cuda/device.h"
#include "common/cuda/gemm_chain_kernels.h"
#include "common/cuda/gemm_kernels.h"
#include "common/cuda/gemm_softmax_kernels.h"
#include "common/cuda/kernel_testbed.h"
#include "common/cuda/runtime.h"
#include "common/cuda/stage_executor.h"
#include "common/cuda/tensor_kernels.h"
#include "tests/cuda/gpu_test_util.h"

namespace dgs {
namespace {

using testing::add;

Graph tiny_graph() {
  Graph g;
  g.name = "tiny";
  const int x = g.add_input("x", {1, 4});
  g.mark_output(add(g, OpKind::Relu, "r", {x}));
  return g;
}

// The message of the dgs::Error that `f` throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CudaDevice, AvailabilityAnswersWithAReasonAndIsStable) {
  std::string why1, why2;
  const bool ok = cuda_gpu_available(&why1);
  EXPECT_FALSE(why1.empty());
  EXPECT_EQ(why1.find('\n'), std::string::npos) << why1;
  EXPECT_EQ(cuda_gpu_available(&why2), ok);
  EXPECT_EQ(why1, why2);
  EXPECT_EQ(cuda_gpu_available(nullptr), ok);  // a null reason pointer is allowed
  if (gpu::device_count() == 0) {
    EXPECT_FALSE(ok) << "no device, yet available: " << why1;
  }
}

TEST(CudaDevice, WithoutGpuEveryEntryPointRefusesInOneLine) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present (" << why << ")";
  const Graph g = tiny_graph();
  const std::string exec_err = error_of([&] { gpu::StageExecutor e(g); });
  EXPECT_FALSE(exec_err.empty());
  EXPECT_EQ(exec_err.find('\n'), std::string::npos) << exec_err;
  // The CUDA build names the probe's reason; the no-CUDA build says it has no CUDA support.
  EXPECT_TRUE(exec_err.find(why) != std::string::npos ||
              exec_err.find("no CUDA support") != std::string::npos)
      << exec_err;
  EXPECT_FALSE(error_of([&] { gpu::MeasuredStageCost c(g); }).empty());
  EXPECT_FALSE(error_of([&] {
                 gpu::check_kernel(
                     g, [](gpu::KernelLauncher&, const gpu::DeviceTensors&) {}, 1);
               }).empty());
  if (gpu::device_count() == 0) {
    EXPECT_FALSE(error_of([] { gpu::query_gpu_spec(0); }).empty());
    EXPECT_FALSE(error_of([] { gpu::Stream s; }).empty());
    EXPECT_FALSE(error_of([] { gpu::DeviceBuffer b(16); }).empty());
  }
}

TEST(CudaDevice, LiveDeviceFillsTheGpuSpec) {
  DGS_REQUIRE_GPU();
  const GpuSpec s = gpu::query_gpu_spec(0);
  EXPECT_FALSE(s.name.empty());
  EXPECT_GE(s.compute_capability, 75);
  EXPECT_GT(s.sm_count, 0);
  EXPECT_GT(s.core_clock_mhz, 0);
  EXPECT_GT(s.dram_bandwidth_gbs, 0);
  EXPECT_GT(s.l2_bytes, 0);
  EXPECT_GE(s.shared_mem_per_block, 48 * 1024);
  EXPECT_EQ(s.max_warps_per_sm * s.warp_size, s.max_threads_per_sm);
  EXPECT_TRUE(s.sources.count("dram_bandwidth_gbs"));
  EXPECT_THROW(gpu::query_gpu_spec(gpu::device_count()), Error);
}

TEST(CudaRuntime, EventTimerReportsTheMedianOfItsRepeats) {
  DGS_REQUIRE_GPU();
  gpu::Stream s;
  gpu::DeviceBuffer b(1 << 20);
  gpu::KernelLauncher l(s);
  int calls = 0;
  const gpu::Timing t = gpu::time_with_events(
      [&] {
        gpu::fill(l, b.floats(), (1 << 20) / 4, 1.0f);
        ++calls;
      },
      s, gpu::TimingProtocol{1, 3, 5});
  EXPECT_EQ(calls, 1 + 3 * 5);
  EXPECT_EQ(l.launches(), calls);
  ASSERT_EQ(t.samples_ms.size(), 5u);
  EXPECT_DOUBLE_EQ(t.median_ms, gpu::median_of(t.samples_ms));
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
  EXPECT_THROW(gpu::time_with_events([] {}, s, gpu::TimingProtocol{0, 0, 1}), Error);
}

TEST(CudaHostHelpers, StridesFollowRowMajorOrderAndBroadcasting) {
  EXPECT_EQ(gpu::contiguous_strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(gpu::contiguous_strides({}), (std::vector<int64_t>{}));
  EXPECT_EQ(gpu::broadcast_strides({3, 1}, {2, 3, 4}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(gpu::broadcast_strides({2, 3, 4}, {2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(gpu::broadcast_strides({}, {5}), (std::vector<int64_t>{0}));
  EXPECT_THROW(gpu::broadcast_strides({3}, {4}), Error);
  EXPECT_THROW(gpu::broadcast_strides({1, 2, 3}, {2, 3}), Error);
  std::string why;
  EXPECT_FALSE(gpu::hardware_counters_readable(&why));  // said, never a made-up count
  EXPECT_NE(why.find("CUPTI"), std::string::npos) << why;
  EXPECT_DOUBLE_EQ(gpu::median_of({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(gpu::median_of({4, 1, 3, 2}), 2.5);
}

TEST(CudaHostHelpers, InstantiatedTilesAreLaunchable) {
  bool has_default = false;
  for (const gpu::GemmTile& t : gpu::gemm_tiles()) {
    EXPECT_EQ(t.bm % t.tm, 0) << t.str();
    EXPECT_EQ(t.bn % t.tn, 0) << t.str();
    EXPECT_LE(t.threads(), 1024) << t.str();
    EXPECT_EQ(t.threads() % 32, 0) << t.str();
    has_default = has_default || t == gpu::default_gemm_tile();
  }
  EXPECT_TRUE(has_default);
  EXPECT_EQ(gpu::default_gemm_tile().str(), "64x64x8/4x4");
  for (const gpu::SoftmaxTile& t : gpu::gemm_softmax_tiles()) {
    EXPECT_EQ(t.threads() % 32, 0) << t.str();  // the softmax phase uses whole warps
    EXPECT_LE(t.threads(), 1024) << t.str();
  }
  for (int rows : gpu::mlp_chain_tiles()) EXPECT_EQ(rows % 16, 0);
}

}  // namespace
}  // namespace dgs
