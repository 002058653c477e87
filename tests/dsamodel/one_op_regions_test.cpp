// The DSA model's needed regions of one-op tasks (dsa_task.cpp, one_op_boxes: each input's access
// straight to its box, without task_needed_access's map) against the general path they stand in
// for: task_needed_access's regions, and per input read from memory the part of its box its
// loads move (access_numel / box, 1 where whole). Every op of ResNet-50, Inception-v3 and
// EfficientNet-B0, on random output regions (edges included: the windows' padding) with and
// without a random reduction slice, and whole; the test counts the densities below 1 it met.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/dsamodel/dsa_task.h"
#include "common/graph/graph.h"
#include "common/graph/iteration_space.h"
#include "common/graph/reduction_slice.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "models/zoo.h"
#include "tests/random_region.h"

namespace dgs {
namespace one_op_regions_test {

constexpr uint64_t kSeed = 20261130;  // fixed seed: the test is deterministic
constexpr int kRegionsPerOp = 6;

// Checks the demand's regions and densities of `t` against task_needed_access; returns how many
// of its inputs move less than their box.
int check_task(const Graph& g, const Task& t, const DsaSpec& spec) {
  const std::map<int, AccessRegion> access = task_needed_access(g, t);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, dsa_placement_units(t.placement, spec));
  std::map<int, Region> boxes;
  for (const auto& [tensor, a] : access) boxes[tensor] = a.region;
  EXPECT_EQ(d.needed, boxes);
  EXPECT_EQ(d.density.size(), d.inputs.size());
  int sparse = 0;
  for (size_t i = 0; i < d.inputs.size() && i < d.density.size(); ++i) {
    const auto it = access.find(d.inputs[i]);
    if (it == access.end()) {
      ADD_FAILURE() << "input " << d.inputs[i] << " is not needed";
      continue;
    }
    const int64_t box = region_numel(it->second.region);
    const int64_t read = access_numel(it->second);
    const double expected =
        box > 0 && read < box ? static_cast<double>(read) / static_cast<double>(box) : 1.0;
    EXPECT_EQ(d.density[i], expected) << "input " << d.inputs[i];
    sparse += d.density[i] < 1 ? 1 : 0;
  }
  return sparse;
}

int check_model(const std::string& name, const DsaSpec& spec) {
  const Graph g = build_zoo_model(name, ZooOptions{.batch = 2});
  const IterationSpaceMemo spaces(g);  // as the simulator holds one
  std::mt19937_64 rng(kSeed);
  int sparse = 0;
  for (int op = 0; op < g.num_ops(); ++op) {
    const Op& o = g.op(op);
    if (o.kind == OpKind::Gather) continue;  // its tables are narrowed after (dsa_task.cpp)
    const int out = o.outputs.at(0);
    const Shape& y = g.tensor(out).shape;
    std::string axis;
    int64_t extent = 0;
    for (const ReductionAxis& ax : iteration_space(g, op).reduction_axes)
      if (reduction_slice_error(g, op, {ax.name, {0, ax.extent}}).empty()) {
        axis = ax.name;
        extent = ax.extent;
      }
    for (int rep = 0; rep <= kRegionsPerOp; ++rep) {
      Task t;
      t.ops = {op};
      if (rep < kRegionsPerOp) t.regions[out] = test::random_region(y, rng);  // the last: whole
      if (!axis.empty() && rep % 2 == 1) {
        std::uniform_int_distribution<int64_t> pick(0, extent - 1);
        int64_t a = pick(rng), b = pick(rng);
        if (a > b) std::swap(a, b);
        t.reduction.range = {axis, {a, b + 1}};
        if (t.regions.empty()) t.regions[out] = full_region(y);
      }
      SCOPED_TRACE(name + " op " + o.name + " region " +
                   region_str(task_written_region(g, t, out)) +
                   (t.reduction.active() ? " slice " + std::to_string(t.reduction.range.range.lo) +
                                               ":" + std::to_string(t.reduction.range.range.hi)
                                         : std::string()));
      sparse += check_task(g, t, spec);
    }
  }
  return sparse;
}

const DsaSpec& mesh() {
  static const DsaSpec m = load_dsa_spec("atomic_mesh");
  return m;
}

TEST(DsaOneOpRegions, ResNet50TasksNeedWhatTheGeneralPathGives) {
  EXPECT_GT(check_model("resnet50", mesh()), 0);  // the stride-2 1x1 shortcut convs
}

TEST(DsaOneOpRegions, InceptionV3TasksNeedWhatTheGeneralPathGives) {
  check_model("inception_v3", mesh());
}

TEST(DsaOneOpRegions, EfficientNetB0TasksNeedWhatTheGeneralPathGives) {
  check_model("efficientnet_b0", mesh());
}

}  // namespace one_op_regions_test
}  // namespace dgs
