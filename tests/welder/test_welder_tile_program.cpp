// Tile programs (common/tileprog/tile_program.h) compiled from Welder schedules through the
// adapter (reproductions/welder/schedule_tile_programs.h) and run on the host interpreter
// (common/tileprog/tile_program_interpreter.h, the code the GPU kernel runs): every tensor a fused
// kernel writes equals the CPU reference executor's whole-graph run on random inputs, for the
// Welder-none, Welder-base, Welder and Ansor-like schedules of NAFNet and ViT-S/32 (whole
// networks, small inputs) and for the Swin-T kernels of its first stage (Swin-T needs 224x224).
// The WelderTileProgramGpu tests run the same on the device (skipped without a GPU).
#include "reproductions/welder/schedule_tile_programs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>
#include <string>

#include "common/cuda/device.h"
#include "common/cuda/kernel_testbed.h"
#include "common/cuda/runtime.h"
#include "common/exec/tensor_data.h"
#include "common/hw/hardware.h"
#include "common/tileprog/tile_program_builder.h"
#include "common/tileprog/tile_program_interpreter.h"
#include "common/util/error.h"
#include "reproductions/welder/experiments/experiments.h"
#include "reproductions/welder/experiments/measured_fig13.h"
#include "tests/tileprog/small_ops_graph.h"

namespace dgs::welder {
namespace {

// Float32 sums in another order than the reference's (Eigen GEMMs, double reductions) through
// a few dozen layers: relative differences ~1e-5; a wrong index or region gives O(1) errors.
constexpr Tolerance kInterpTolerance{1e-3, 1e-3};
constexpr uint64_t kSeed = 7;

// The arch measured Fig. 13 schedules on by default (v100_pcie with the GPU model), so the
// schedules checked here are of the same kind as the measured ones.
WelderArch fig13_arch() {
  return arch_from_gpu(load_gpu_spec("v100_pcie"), false);
}

const std::vector<Variant> kVariants = {Variant::None, Variant::Base, Variant::Welder,
                                        Variant::AnsorLike};

// Compares every tensor a kernel of `np` writes (and every graph output) with the reference.
void expect_matches_reference(const Graph& g, const NetworkProgram& np, const TensorValues& got,
                              const TensorValues& ref, const std::string& what) {
  std::set<int> checked;
  for (const auto& k : np.kernels)
    for (size_t i = 0; i < k.global_ids.size(); ++i)
      if (k.global_written[i]) checked.insert(k.global_ids[i]);
  for (int t : g.output_tensors()) checked.insert(t);
  ASSERT_FALSE(checked.empty());
  for (int t : checked) {
    ASSERT_TRUE(got.count(t)) << what << ": no value for '" << g.tensor(t).name << "'";
    const Comparison c = compare_tensors(got.at(t), ref.at(t), kInterpTolerance);
    EXPECT_TRUE(c.passed) << what << ": tensor '" << g.tensor(t).name << "': " << c.str();
  }
}

void check_network(const std::string& model, int64_t image) {
  ZooOptions zo;
  zo.image_size = image;
  const TileGraph tg = model_tile_graph(model, zo);
  const Graph& g = *tg.source;
  const TensorValues ref = run_graph(g, {}, kSeed);
  const auto scheds = run_variants(tg, fig13_arch(), kVariants);
  int kernels_none = 0;
  for (const Schedule& s : scheds) {
    // The adapter's written set (from the tile-graph) is the generic one (from the graph).
    for (const ScheduledGroup& sg : s.groups) {
      if (!sg.result.launches) continue;
      const TileProgramGroup grp = tile_program_group(tg, sg.group, sg.result.best.tile);
      std::vector<int> written = grp.written;
      std::sort(written.begin(), written.end());
      EXPECT_EQ(written, tensors_leaving_group(g, grp.ops))
          << model << " group of " << grp.ops.size();
    }
    const NetworkProgram np = compile_schedule(tg, s);
    // One program per launched group: the kernel count the scheduler reports.
    EXPECT_EQ(static_cast<int>(np.kernels.size()), s.metrics.kernels) << variant_name(s.variant);
    EXPECT_EQ(np.kernels.size() + static_cast<size_t>(np.layout_groups), s.groups.size());
    if (s.variant == Variant::None) kernels_none = static_cast<int>(np.kernels.size());
    const TensorValues got = run_network_host(g, np, {}, kSeed, HostTileOrder::Adversarial);
    expect_matches_reference(g, np, got, ref, model + " " + variant_name(s.variant));
  }
  // Fusion happened: the fused variants launch fewer kernels than Welder-none.
  for (const Schedule& s : scheds) {
    if (s.variant != Variant::None) {
      EXPECT_LT(s.metrics.kernels, kernels_none);
    }
  }
}

// The interpreter's rarer operator forms through Welder's schedules (each variant's groups).
TEST(WelderTileProgram, SmallOpsEqualReference) {
  const TileGraph tg = build_tile_graph(testing::small_ops_graph());
  const Graph& g = *tg.source;
  const TensorValues ref = run_graph(g, {}, kSeed);
  for (const Schedule& s : run_variants(tg, fig13_arch(), kVariants)) {
    const NetworkProgram np = compile_schedule(tg, s);
    EXPECT_EQ(static_cast<int>(np.kernels.size()), s.metrics.kernels);
    expect_matches_reference(g, np, run_network_host(g, np, {}, kSeed, HostTileOrder::Adversarial),
                             ref, "small_ops " + variant_name(s.variant));
  }
}

TEST(WelderTileProgram, NafnetSchedulesEqualReference) {
  check_network("nafnet", 32);
}

TEST(WelderTileProgram, VitSchedulesEqualReference) {
  check_network("vit_s32", 64);
}

// Swin-T (224x224 only): the launched kernels of each variant whose ops all belong to the patch
// embedding or the first stage (window attention, shifted windows with their Slice/Concat
// rolls, the patch-merging Slice/Concat), each run alone from the reference's values of its
// inputs.
TEST(WelderTileProgram, SwinFirstStageKernelsEqualReference) {
  const TileGraph tg = model_tile_graph("swin_t", {});
  const Graph& g = *tg.source;
  const TensorValues ref = run_graph(g, {}, kSeed);
  const auto scheds = run_variants(tg, fig13_arch(), {Variant::Base, Variant::Welder});
  auto first_stage = [&](const KernelGroup& grp) {
    for (int o : grp.ops) {
      const std::string& n = tg.ops[o].name;
      if (n.rfind("patch_embed", 0) != 0 && n.rfind("layers.0.", 0) != 0) return false;
    }
    return true;
  };
  std::set<TpKind> kinds;
  int checked = 0;
  int share_copies = 0;  // ops added to compute a written tensor's share (the roll's Concat)
  for (const Schedule& s : scheds) {
    for (const ScheduledGroup& sg : s.groups) {
      if (!sg.result.launches || !first_stage(sg.group)) continue;
      const TileProgram p = compile_group(tg, sg.group, sg.result.best.tile);
      TensorValues v;
      std::vector<float*> ptrs;
      for (size_t i = 0; i < p.global_ids.size(); ++i) {
        const int t = p.global_ids[i];
        TensorData d = ref.at(t);
        if (p.global_written[i])
          std::fill(d.f.begin(), d.f.end(), std::numeric_limits<float>::quiet_NaN());
        v[t] = std::move(d);
      }
      for (int t : p.global_ids) ptrs.push_back(v.at(t).f.data());
      run_tile_program_host(p, ptrs, HostTileOrder::Adversarial);
      for (const auto& op : p.ops) kinds.insert(op.kind);
      share_copies += static_cast<int>(p.ops.size()) - static_cast<int>(sg.group.ops.size());
      for (size_t i = 0; i < p.global_ids.size(); ++i) {
        if (!p.global_written[i]) continue;
        const int t = p.global_ids[i];
        const Comparison c = compare_tensors(v.at(t), ref.at(t), kInterpTolerance);
        EXPECT_TRUE(c.passed) << variant_name(s.variant) << " kernel " << p.name << ": tensor '"
                              << g.tensor(t).name << "': " << c.str();
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
  EXPECT_GT(share_copies, 0) << "no kernel wrote a tensor it also consumes only in part";
  for (TpKind k : {TpKind::Conv, TpKind::MatMul, TpKind::Softmax, TpKind::Slice, TpKind::Concat,
                   TpKind::Transpose, TpKind::Reshape, TpKind::ReduceMean, TpKind::Erf})
    EXPECT_TRUE(kinds.count(k)) << tp_kind_name(k) << " not exercised";
}

// On the GPU: every variant's schedule as one interpreter launch per launched group
// (gpu::DeviceNetwork, common/cuda/device_network.h, the measured Fig. 13's runner) equals the CPU
// reference on every tensor a kernel writes and launches exactly the scheduler's kernel count.
void check_network_on_gpu(const std::string& model, int64_t image) {
  ZooOptions zo;
  zo.image_size = image;
  zo.batch = 2;
  const TileGraph tg = model_tile_graph(model, zo);
  const Graph& g = *tg.source;
  const TensorValues feeds = make_graph_feeds(g, {}, kSeed);
  const TensorValues ref = run_graph(g, feeds, kSeed);
  const int sms = gpu::query_gpu_spec(0).sm_count;
  for (const Schedule& s : run_variants(tg, fig13_arch(), kVariants)) {
    const NetworkProgram np = compile_schedule(tg, s);
    const gpu::DeviceNetwork dn(g, np, feeds, sms);
    gpu::Stream stream;
    gpu::KernelLauncher launcher(stream);
    dn.run(launcher);
    stream.synchronize();
    EXPECT_EQ(launcher.launches(), s.metrics.kernels) << variant_name(s.variant);
    TensorValues got;
    for (const auto& k : np.kernels)
      for (size_t i = 0; i < k.global_ids.size(); ++i)
        if (k.global_written[i]) got[k.global_ids[i]] = dn.download(k.global_ids[i]);
    for (int t : g.output_tensors()) got[t] = dn.download(t);
    expect_matches_reference(g, np, got, ref, model + " on GPU " + variant_name(s.variant));
  }
}

TEST(WelderTileProgramGpu, NafnetSchedulesEqualReference) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << "needs an NVIDIA GPU; here: " << why;
  check_network_on_gpu("nafnet", 32);
}

TEST(WelderTileProgramGpu, VitSchedulesEqualReference) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << "needs an NVIDIA GPU; here: " << why;
  check_network_on_gpu("vit_s32", 64);
}

// The small graph's rarer operator forms, on the GPU.
TEST(WelderTileProgramGpu, SmallOpsEqualReference) {
  std::string why;
  if (!cuda_gpu_available(&why)) GTEST_SKIP() << "needs an NVIDIA GPU; here: " << why;
  const TileGraph tg = build_tile_graph(testing::small_ops_graph());
  const Graph& g = *tg.source;
  const TensorValues feeds = make_graph_feeds(g, {}, kSeed);
  const TensorValues ref = run_graph(g, feeds, kSeed);
  for (const Schedule& s : run_variants(tg, fig13_arch(), kVariants)) {
    const NetworkProgram np = compile_schedule(tg, s);
    const gpu::DeviceNetwork dn(g, np, feeds, gpu::query_gpu_spec(0).sm_count);
    gpu::Stream stream;
    gpu::KernelLauncher launcher(stream);
    dn.run(launcher);
    stream.synchronize();
    EXPECT_EQ(launcher.launches(), s.metrics.kernels);
    TensorValues got;
    for (int t : g.output_tensors()) got[t] = dn.download(t);
    for (int t : g.output_tensors()) {
      const Comparison c = compare_tensors(got.at(t), ref.at(t), gpu::kGpuTolerance);
      EXPECT_TRUE(c.passed) << variant_name(s.variant) << " '" << g.tensor(t).name
                            << "': " << c.str();
    }
  }
}

// Without a GPU the device side refuses in one line (no CUDA build, or no device).
TEST(WelderTileProgramGpu, DeviceProgramRefusesWithoutGpu) {
  std::string why;
  if (cuda_gpu_available(&why)) GTEST_SKIP() << "a GPU is present: the refusal is not reachable";
  const TileGraph tg = build_tile_graph(testing::small_ops_graph());
  const Schedule s = run_variants(tg, fig13_arch(), {Variant::Welder}).at(0);
  const NetworkProgram np = compile_schedule(tg, s);
  try {
    const gpu::DeviceNetwork dn(*tg.source, np, make_graph_feeds(*tg.source, {}, kSeed), 80);
    FAIL() << "a device network was built without a GPU";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_FALSE(msg.empty());
  }
}

}  // namespace
}  // namespace dgs::welder
