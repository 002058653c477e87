// The experiments' prefetch of zoo schedules (prefetch_zoo_variants): cases scheduled one per CPU
// at a time, larger batches first, leave in the run's memo the latencies that scheduling each
// case's variants one by one on a fresh tile-graph gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "common/hw/hardware_spec.h"
#include "models/zoo.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {
namespace {

TEST(WelderPrefetch, CasesGetTheLatenciesOfSchedulingThemOneByOne) {
  const WelderArch arch = arch_from_gpu(load_gpu_spec("v100_pcie"), false);
  // SqueezeNet at 64x64 (fast) at batches 1, 4 and 2: the prefetch hands them out as 4, 2, 1.
  std::vector<ZooVariantsCase> cases;
  for (int64_t batch : {1, 4, 2}) {
    ZooOptions zo;
    zo.image_size = 64;
    zo.batch = batch;
    cases.push_back({"squeezenet",
                     zo,
                     arch,
                     {Variant::None, Variant::Welder},
                     "squeezenet bs" + std::to_string(batch)});
  }
  std::mutex m;
  std::vector<std::string> done;
  prefetch_zoo_variants(cases, [&](const std::string& label) {
    const std::lock_guard<std::mutex> lock(m);
    done.push_back(label);
  });
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, (std::vector<std::string>{"squeezenet bs1", "squeezenet bs2", "squeezenet bs4"}));
  for (const ZooVariantsCase& c : cases) {
    const TileGraph tg = model_tile_graph(c.name, c.opts);
    const std::vector<Schedule> direct = run_variants(tg, arch, c.variants);
    for (size_t v = 0; v < c.variants.size(); ++v)
      EXPECT_EQ(zoo_variant_latency_ms(c.name, c.opts, arch, c.variants[v]),
                evaluated_latency_ms(tg, direct[v], arch))
          << c.label << " variant " << variant_name(c.variants[v]);
  }
  // The batches differ in latency, so a case given another's result would fail above.
  EXPECT_NE(zoo_variant_latency_ms("squeezenet", cases[0].opts, arch, Variant::Welder),
            zoo_variant_latency_ms("squeezenet", cases[1].opts, arch, Variant::Welder));
}

}  // namespace
}  // namespace dgs::welder
