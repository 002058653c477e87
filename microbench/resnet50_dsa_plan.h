#pragma once
// The plans the DSA-model benchmarks time (bench_dsamodel, bench_dsa_demand, bench_task_regions):
// ResNet-50 at a batch, split into `parts` parts per op on a DSA config by
// dgs::layer_split_test_plan (a test plan, not any paper's scheduler), built outside the timed
// loop.
#include <cstdint>

#include "common/dsamodel/layer_split_plan.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "models/zoo.h"

namespace dgs::bench {

struct Resnet50DsaPlan {
  Graph graph;
  DsaSpec spec;
  Plan plan;
};

inline Resnet50DsaPlan resnet50_dsa_plan(const char* hw, int64_t batch, int64_t parts) {
  Resnet50DsaPlan c;
  ZooOptions zo;
  zo.batch = batch;
  c.graph = build_zoo_model("resnet50", zo);
  c.spec = load_dsa_spec(hw);
  c.plan = layer_split_test_plan(c.graph, c.spec, parts);
  return c;
}

// ResNet-50 at batch 8 on the 8 x 8 mesh, 320 parts per op: a plan of at least 50,000 tasks.
inline const Resnet50DsaPlan& fifty_thousand_task_mesh_plan() {
  static const Resnet50DsaPlan c = resnet50_dsa_plan("atomic_mesh", 8, 320);
  return c;
}

}  // namespace dgs::bench
