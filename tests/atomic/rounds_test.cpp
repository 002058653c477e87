// The priority rules' Rounds (schedule.cpp keeps the ready atoms per sample and looks at a later
// sample only while a Round is not full): every Round's atoms, in order, equal those of the
// plain rule over every ready atom (each Round the least keys (level, sample, depth, layer,
// atom) of all of them), on several samples and mesh sizes; without the priority rules, the
// ready atoms of the lowest indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "common/hw/dsa_spec.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {
namespace {

// Each Round's atoms by the rule itself, over one list of every ready atom.
std::vector<std::vector<int>> rounds_by_the_rule(const AtomicDag& dag, int engines,
                                                 bool priority_rules) {
  const size_t n = dag.atoms.size();
  std::vector<int> missing(n), ready;
  for (size_t a = 0; a < n; ++a) {
    missing[a] = static_cast<int>(dag.preds[a].size());
    if (missing[a] == 0) ready.push_back(static_cast<int>(a));
  }
  std::vector<bool> started(dag.layers.size(), false);
  std::vector<int> left_in_sample(static_cast<size_t>(dag.batch), 0);
  for (const Atom& a : dag.atoms) ++left_in_sample[static_cast<size_t>(a.sample)];
  std::vector<std::vector<int>> rounds;
  while (!ready.empty()) {
    int sample = 0;
    while (left_in_sample[static_cast<size_t>(sample)] == 0) ++sample;
    int min_depth = std::numeric_limits<int>::max();
    for (int a : ready) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      if (at.sample == sample) min_depth = std::min(min_depth, dag.layers[at.layer].depth);
    }
    auto key = [&](int a) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      const Layer& l = dag.layers[static_cast<size_t>(at.layer)];
      const int level = at.sample != sample                      ? 4
                        : started[static_cast<size_t>(at.layer)] ? 1
                        : l.depth == min_depth                   ? 2
                                                                 : 3;
      return std::make_tuple(level, at.sample, l.depth, at.layer, a);
    };
    if (priority_rules)
      std::sort(ready.begin(), ready.end(), [&](int a, int b) { return key(a) < key(b); });
    else
      std::sort(ready.begin(), ready.end());
    const size_t take = std::min(ready.size(), static_cast<size_t>(engines));
    rounds.emplace_back(ready.begin(), ready.begin() + static_cast<long>(take));
    ready.erase(ready.begin(), ready.begin() + static_cast<long>(take));
    for (int a : rounds.back()) {
      const Atom& at = dag.atoms[static_cast<size_t>(a)];
      started[static_cast<size_t>(at.layer)] = true;
      --left_in_sample[static_cast<size_t>(at.sample)];
      for (int c : dag.succs[static_cast<size_t>(a)])
        if (--missing[static_cast<size_t>(c)] == 0) ready.push_back(c);
    }
  }
  return rounds;
}

void expect_rounds_by_the_rule(const Graph& g, const AtomicDag& dag, const DsaSpec& spec) {
  for (const bool priority : {true, false}) {
    const AtomSchedule s =
        schedule_atoms(g, dag, spec, {.priority_rules = priority, .on_chip_reuse = false});
    const std::vector<std::vector<int>> want = rounds_by_the_rule(dag, spec.units(), priority);
    ASSERT_EQ(s.rounds.size(), want.size()) << "priority rules " << priority;
    for (size_t r = 0; r < want.size(); ++r)
      ASSERT_EQ(s.rounds[r].atoms, want[r]) << "Round " << r << ", priority rules " << priority;
  }
}

TEST(Rounds, EqualTheRuleOverEveryReadyAtom) {
  // test_diamond at batch 5 with quarter atoms, on 2 x 2 and 3 x 3 engines (Rounds that end
  // inside a sample and Rounds filled from later samples).
  const Graph g = build_zoo_model("test_diamond", {.batch = 5, .image_size = 8});
  std::vector<AtomShape> shapes;
  for (const Layer& l : graph_layers(g))
    shapes.push_back(l.splittable ? AtomShape{4, 0, 16, 16} : AtomShape{});
  for (const int side : {2, 3}) {
    const DsaSpec spec = dsa_with_mesh(load_dsa_spec("atomic_mesh"), side, side, 16, 16);
    expect_rounds_by_the_rule(g, build_atomic_dag(g, shapes, spec), spec);
  }
}

TEST(Rounds, EqualTheRuleOnResNet50AtBatch3) {
  // The SA's atoms of ResNet-50 at batch 3 on the paper's 8 x 8 mesh: layers of several depths
  // ready at once (the shortcut branches), started and unstarted.
  const Graph g = build_zoo_model("resnet50", {.batch = 3});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  expect_rounds_by_the_rule(g, sa_atomic_dag(g, spec, 1), spec);
}

}  // namespace
}  // namespace dgs::atomic
