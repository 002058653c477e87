// Every operator of every zoo network maps to kernels, and a Sequential plan of each network
// evaluates to a latency no smaller than its bandwidth and compute bounds.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/gpumodel/gpu_model.h"
#include "models/zoo.h"

namespace dgs {
namespace {

TEST(GpuZoo, EveryZooOpMapsToKernelsAndSequentialPlansRespectTheRoofline) {
  const GpuSpec v = load_gpu_spec("v100");
  int built = 0;
  for (const std::string& name : zoo_model_names()) {
    Graph g;
    try {
      g = build_zoo_model(name);
    } catch (const Error&) {
      continue;  // the zoo's own tests report models that do not build
    }
    ++built;
    Plan p;
    p.scheduler = "Sequential";
    p.graph = g.name;
    for (int op : g.topo_order()) {
      Task t;
      t.ops = {op};
      p.stages.push_back(Stage{{t}});
      const auto ks = kernels_for_op(g, op, v);
      EXPECT_EQ(ks.empty(), is_layout_only(g.op(op).kind)) << name << " op " << g.op(op).name;
    }
    const PlanEvaluation e = evaluate_plan(g, p, v);
    const double bw = v.dram_bandwidth_gbs * 1e3;  // bytes per us, at 100% of peak
    EXPECT_GE(e.latency_us, e.dram_bytes / bw) << name;
    EXPECT_GE(e.latency_us, e.flops / (v.peak_tensor_tflops * 1e6)) << name;
    EXPECT_GE(e.latency_us, static_cast<double>(e.kernels) * v.kernel_launch_us) << name;
  }
  EXPECT_GT(built, 0);
}

}  // namespace
}  // namespace dgs
