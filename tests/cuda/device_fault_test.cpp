// Failures on the GPU through the fake device layer (common/cuda/device_fault.h): each kind of
// failure is forced at its site, on any machine (no GPU needed), and must come out as one line
// naming the work (item, stage, kernel), the call and the error; through the CLI it is one error
// line, exit 1, and no file is written.
#include "common/cuda/device_fault.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli.h"
#include "common/cuda/runtime.h"
#include "tests/cli/run_cli_capture.h"

namespace dgs::gpu {
namespace {

class DeviceFaultTest : public ::testing::Test {
 protected:
  void TearDown() override { clear_faults(); }
};

template <class F>
DeviceError device_error_of(F&& f) {
  try {
    f();
  } catch (const DeviceError& e) {
    return e;
  }
  ADD_FAILURE() << "no DeviceError";
  return DeviceError(FaultKind::Other, "");
}

TEST_F(DeviceFaultTest, WorkScopesNestOutermostFirst) {
  EXPECT_EQ(current_work(), "");
  const std::string op = "conv_3";
  {
    const WorkScope a("schedule Sequential of network toy");
    const WorkScope b("stage 2 of 5");
    const WorkScope c(&op);
    EXPECT_EQ(current_work(), "schedule Sequential of network toy, stage 2 of 5, conv_3");
  }
  EXPECT_EQ(current_work(), "");
}

TEST_F(DeviceFaultTest, OutOfMemoryAtAnAllocationNamesTheKernelAndTheStage) {
  const WorkScope a("stage 2 of 5");
  const WorkScope b("kernel conv_3");
  inject_fault(FaultSite::Allocation);
  const DeviceError e = device_error_of([] { DeviceBuffer b(size_t{1} << 20); });
  EXPECT_EQ(e.kind(), FaultKind::OutOfMemory);
  EXPECT_STREQ(e.what(),
               "out of device memory in stage 2 of 5, kernel conv_3: cudaMalloc: "
               "cudaErrorMemoryAllocation (out of memory) [injected]");
}

TEST_F(DeviceFaultTest, AFaultFiresOnceAfterTheSkippedPassages) {
  inject_fault(FaultSite::Launch, 2);
  EXPECT_NO_THROW(fault_point(FaultSite::Launch, "kernel launch"));
  EXPECT_NO_THROW(fault_point(FaultSite::Launch, "kernel launch"));
  const WorkScope a("stage 1 of 1");
  const std::string op = "relu_1";
  const WorkScope b(&op);
  const DeviceError e = device_error_of([] { fault_point(FaultSite::Launch, "kernel launch"); });
  EXPECT_EQ(e.kind(), FaultKind::LaunchFailure);
  EXPECT_STREQ(e.what(),
               "kernel launch failed in stage 1 of 1, relu_1: kernel launch: "
               "cudaErrorLaunchFailure (unspecified launch failure) [injected]");
  EXPECT_NO_THROW(fault_point(FaultSite::Launch, "kernel launch"));  // disarmed
}

TEST_F(DeviceFaultTest, NoAlgorithmForAShapeNamesTheShape) {
  // cuDNN's search results as the executor sees them: none usable (failed, over the workspace,
  // or tensor-core math where FP32 on CUDA cores was asked for).
  const AlgorithmCandidate none[] = {{1, false}, {6, false}};
  const WorkScope a("stage 4 of 9");
  const DeviceError e = device_error_of([&] {
    choose_algorithm(none, 2, "convolution 1x64x56x56 k3", "no algorithm fits the workspace");
  });
  EXPECT_EQ(e.kind(), FaultKind::NoAlgorithm);
  EXPECT_STREQ(e.what(),
               "no cuDNN algorithm in stage 4 of 9: cuDNN algorithm search for convolution "
               "1x64x56x56 k3: no algorithm fits the workspace");
  const AlgorithmCandidate some[] = {{1, false}, {6, true}, {2, true}};
  EXPECT_EQ(choose_algorithm(some, 3, "x", ""), 1u);  // the fastest usable one
  inject_fault(FaultSite::AlgorithmSearch);
  EXPECT_EQ(device_error_of([&] { choose_algorithm(some, 3, "x", ""); }).kind(),
            FaultKind::NoAlgorithm);
}

// Through the CLI: a measured item that fails on the device after staging a table prints one
// line, exits 1 and writes nothing.
class DeviceFaultCliTest : public DeviceFaultTest {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("dgs_device_fault_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override {
    DeviceFaultTest::TearDown();
    std::filesystem::remove_all(dir_);
  }
  cli_test::Result run_item(FaultSite site) {
    const std::vector<Experiment> e = {{.kind = "fig",
                                        .number = "1",
                                        .caption = "measured",
                                        .run =
                                            [site](ExperimentContext& ctx) {
                                              Table t({"a"});
                                              t.add_row({1.0});
                                              ctx.emit_table("partial", t);
                                              ctx.note("a note");
                                              const WorkScope item(
                                                  "schedule Sequential of network toy");
                                              const WorkScope stage("stage 3 of 7");
                                              const std::string op = "conv_2";
                                              const WorkScope kernel(&op);
                                              inject_fault(site);
                                              if (site == FaultSite::Allocation) {
                                                const DeviceBuffer b(64);
                                              }
                                              if (site == FaultSite::Launch)
                                                fault_point(site, "kernel launch");
                                              if (site == FaultSite::AlgorithmSearch)
                                                choose_algorithm(nullptr, 0, "conv_2", "");
                                            },
                                        .has_measured_mode = true}};
    const GpuProbe gpu = [](LiveGpuProperties* d, std::string*) {
      *d = {"NVIDIA H200", 132, 90, 0};
      return true;
    };
    return cli_test::run({"--fig", "1", "--mode", "measured", "--out", dir_.string()}, e, gpu);
  }
  std::filesystem::path dir_;
};

TEST_F(DeviceFaultCliTest, EachFaultIsOneLineExitOneAndNothingWritten) {
  const std::pair<FaultSite, std::string> cases[] = {
      {FaultSite::Allocation, "out of device memory"},
      {FaultSite::AlgorithmSearch, "no cuDNN algorithm"},
      {FaultSite::Launch, "kernel launch failed"}};
  for (const auto& [site, what] : cases) {
    const cli_test::Result r = run_item(site);
    EXPECT_EQ(r.code, 1) << what;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_EQ(r.err.rfind("error: fig1: " + what +
                              " in schedule Sequential of network toy, stage 3 of 7, conv_2: ",
                          0),
              0u)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "fakepaper" / "fig1.csv")) << what;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "fakepaper" / "fig1_notes.txt")) << what;
  }
}

}  // namespace
}  // namespace dgs::gpu
