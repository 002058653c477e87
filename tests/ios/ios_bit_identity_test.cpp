// Pins the GPU model's IOS search results bit for bit: the schedules' latencies and a digest of
// every stage latency the search asked for, on NasNet (r = 3, s = 8), Inception V3 and RandWire,
// and the block simulator's latency on a few NasNet stages. The values were recorded before the
// simulator's speed work (issue 27); a change that alters any floating-point result fails here.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/ios/network.h"
#include "reproductions/ios/scheduler.h"

namespace dgs::ios {
namespace {

// Forwards to the GPU model's cost and folds every returned latency's bits into a digest (FNV-1a
// over the 64-bit patterns, in call order).
struct DigestCost : StageCostModel {
  GpuModelStageCost& inner;
  uint64_t digest = 1469598103934665603ull;
  int64_t calls = 0;
  explicit DigestCost(GpuModelStageCost& c) : inner(c) {}
  void fold(double v) {
    digest = (digest ^ std::bit_cast<uint64_t>(v)) * 1099511628211ull;
    ++calls;
  }
  double stage_latency_us(const Network& n, const IosStage& s) override {
    const double v = inner.stage_latency_us(n, s);
    fold(v);
    return v;
  }
  std::string describe() const override { return inner.describe(); }
  bool has_lower_bound() const override { return inner.has_lower_bound(); }
  double stage_latency_lower_bound_us(const Network& n, const IosStage& s) override {
    return inner.stage_latency_lower_bound_us(n, s);
  }
  double stage_latency_tight_lower_bound_us(const Network& n, const IosStage& s) override {
    return inner.stage_latency_tight_lower_bound_us(n, s);
  }
};

struct Pinned {
  const char* model;
  int r, s;
  double search_latency_us;  // evaluate_schedule of the IOS-Both schedule
  uint64_t digest;           // of every stage latency asked for, in order
  int64_t calls;
  size_t stages;
};

TEST(IosBitIdentity, GpuModelSearchResultsAreUnchanged) {
  const GpuSpec spec = load_gpu_spec("v100");
  const Pinned pins[] = {
      {"nasnet_large", 3, 8, 0x1.210839a15a9dcp+13, 10146712320397728528ull, 70926, 84},
      {"inception_v3", 3, 8, 0x1.80286259c9768p+11, 12851398218172753081ull, 987, 47},
      {"randwire", 3, 8, 0x1.e89f6bc866363p+11, 1149577933350853902ull, 45809, 31},
  };
  for (const Pinned& p : pins) {
    const Graph g = build_zoo_model(p.model);
    const Network net = make_network(g, default_part_rule(p.model));
    GpuModelStageCost cost(spec);
    DigestCost digest(cost);
    const IosSchedule s = ios_schedule(net, StrategySet::Both, Pruning{p.r, p.s}, digest);
    const double lat = evaluate_schedule(net, s, gpu_hardware_spec(spec)).latency_us;
    EXPECT_EQ(lat, p.search_latency_us) << p.model;
    EXPECT_EQ(digest.digest, p.digest) << p.model;
    EXPECT_EQ(digest.calls, p.calls) << p.model;
    EXPECT_EQ(s.stages.size(), p.stages) << p.model;
  }
}

// The block simulator alone on the concurrent units of NasNet's parts (1, 4 and 8 streams) and
// on each part's units in one stream.
TEST(IosBitIdentity, BlockSimulatorLatenciesAreUnchanged) {
  const GpuSpec spec = load_gpu_spec("v100");
  const Graph g = build_zoo_model("nasnet_large");
  const Network net = make_network(g, default_part_rule("nasnet_large"));
  KernelOptions o;
  o.fold_activation = true;
  const double pinned[] = {0x1.4ef53da45492ep+5, 0x1.4ef53da45492ep+5, 0x1.4ef53da45492ep+5,
                           0x1.4ef53da45492ep+5, 0x1.4ef53da45492ep+5, 0x1.4ef53da45492ep+5,
                           0x1.9cab73c0ffbcap+5, 0x1.23d00b0351bdap+9, 0x1.8ab052834b1b7p+6,
                           0x1.23d00b0351bdap+9, 0x1.16413c34eebp+7,   0x1.23d00b0351bdap+9,
                           0x1.9b5c693a840acp+6, 0x1.3a46315519c31p+9, 0x1.80e84dc4d8212p+7,
                           0x1.3a46315519c31p+9, 0x1.8c0bb32409662p+7, 0x1.3a46315519c31p+9};
  size_t at = 0;
  for (size_t pi : {size_t{0}, size_t{3}, size_t{7}}) {
    const Part& p = net.parts[pi];
    for (size_t width : {size_t{1}, size_t{4}, size_t{8}}) {
      std::vector<std::vector<KernelLaunch>> streams;
      std::vector<KernelLaunch> one;
      for (int u : p.units) {
        std::vector<KernelLaunch> ks;
        for (int op : net.units[static_cast<size_t>(u)].ops)
          for (auto& k : kernels_for_op(g, op, spec, o)) ks.push_back(k);
        for (const auto& k : ks) one.push_back(k);
        if (!ks.empty() && streams.size() < width) streams.push_back(ks);
      }
      for (const auto& st : {streams, std::vector<std::vector<KernelLaunch>>{one}}) {
        const double v = simulate_stage(spec, st).latency_us;
        ASSERT_LT(at, std::size(pinned));
        EXPECT_EQ(v, pinned[at]) << pi << " " << width;
        ++at;
      }
    }
  }
}

}  // namespace
}  // namespace dgs::ios
