// The DP of Algorithm 2 on small random atomic DAGs: branch and bound never drops the best
// schedule (equal to the search without it, over the same options), the priority rules never
// beat the unpruned search, and the greedy fill never beats the DP.
#include "reproductions/atomic/dp_schedule.h"

#include <gtest/gtest.h>

#include <random>

#include "common/hw/dsa_spec.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {
namespace {

// `layers` layers of 1-3 atoms per sample, each atom reading 1-2 atoms of the previous layer (and
// sometimes one of the layer before), cycles 1-9, replicated over `batch` samples.
AtomicDag random_dag(std::mt19937& rng, int layers, int batch) {
  AtomicDag dag;
  dag.batch = batch;
  std::vector<std::vector<int>> per_layer_count(static_cast<size_t>(layers));
  std::vector<int> counts;
  std::vector<std::vector<double>> cycles;
  for (int l = 0; l < layers; ++l) {
    counts.push_back(1 + static_cast<int>(rng() % 3));
    cycles.emplace_back();
    for (int i = 0; i < counts.back(); ++i) cycles.back().push_back(1 + rng() % 9);
    Layer layer;
    layer.depth = l;
    dag.layers.push_back(layer);
  }
  // Edges of one sample, by (layer, index).
  std::vector<std::vector<std::vector<std::pair<int, int>>>> edges(static_cast<size_t>(layers));
  for (int l = 0; l < layers; ++l) {
    for (int i = 0; i < counts[static_cast<size_t>(l)]; ++i) {
      std::vector<std::pair<int, int>> in;
      if (l > 0) {
        const int k = 1 + static_cast<int>(rng() % 2);
        for (int j = 0; j < k; ++j) in.push_back({l - 1, static_cast<int>(rng() % counts[l - 1])});
      }
      if (l > 1 && rng() % 3 == 0) in.push_back({l - 2, static_cast<int>(rng() % counts[l - 2])});
      edges[static_cast<size_t>(l)].push_back(in);
    }
  }
  dag.atoms_of_layer.resize(static_cast<size_t>(layers));
  std::vector<std::vector<std::vector<int>>> id(static_cast<size_t>(batch));
  for (int l = 0; l < layers; ++l) {
    for (int b = 0; b < batch; ++b) {
      id[static_cast<size_t>(b)].resize(static_cast<size_t>(layers));
      for (int i = 0; i < counts[static_cast<size_t>(l)]; ++i) {
        Atom a;
        a.layer = l;
        a.sample = b;
        a.cycles = cycles[static_cast<size_t>(l)][static_cast<size_t>(i)];
        a.index_in_layer = i;
        id[static_cast<size_t>(b)][static_cast<size_t>(l)].push_back(
            static_cast<int>(dag.atoms.size()));
        dag.atoms_of_layer[static_cast<size_t>(l)].push_back(static_cast<int>(dag.atoms.size()));
        dag.atoms.push_back(a);
      }
    }
  }
  dag.preds.assign(dag.atoms.size(), {});
  dag.succs.assign(dag.atoms.size(), {});
  for (int b = 0; b < batch; ++b)
    for (int l = 0; l < layers; ++l)
      for (int i = 0; i < counts[static_cast<size_t>(l)]; ++i) {
        const int a = id[static_cast<size_t>(b)][static_cast<size_t>(l)][static_cast<size_t>(i)];
        for (auto [pl, pi] : edges[static_cast<size_t>(l)][static_cast<size_t>(i)]) {
          const int p =
              id[static_cast<size_t>(b)][static_cast<size_t>(pl)][static_cast<size_t>(pi)];
          auto& pr = dag.preds[static_cast<size_t>(a)];
          if (std::find(pr.begin(), pr.end(), p) != pr.end()) continue;
          pr.push_back(p);
          dag.succs[static_cast<size_t>(p)].push_back(a);
        }
      }
  return dag;
}

TEST(DpSchedule, BranchAndBoundNeverDropsTheBestScheduleOnSmallCases) {
  std::mt19937 rng(5);
  const DsaSpec two = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 2, 1, 16, 16);
  const DsaSpec three = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 3, 1, 16, 16);
  int cases = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int layers = 3 + static_cast<int>(rng() % 3);
    const int batch = 1 + static_cast<int>(rng() % 2);
    const AtomicDag dag = random_dag(rng, layers, batch);
    if (dag.atoms.size() > 16) continue;
    ++cases;
    for (const DsaSpec* spec : {&two, &three}) {
      const int n = spec->units();
      const DpResult full = dp_schedule(dag, n, DpOptions::All, false);
      const DpResult full_bb = dp_schedule(dag, n, DpOptions::All, true);
      const DpResult prio = dp_schedule(dag, n, DpOptions::PriorityRules, false);
      const DpResult prio_bb = dp_schedule(dag, n, DpOptions::PriorityRules, true);
      EXPECT_EQ(full_bb.cycles, full.cycles) << "trial " << trial;
      EXPECT_EQ(prio_bb.cycles, prio.cycles) << "trial " << trial;
      EXPECT_LE(full.cycles, prio.cycles);
      // The returned schedule costs what it says and runs every atom once.
      double sum = 0;
      size_t atoms = 0;
      for (const auto& r : prio_bb.rounds) {
        double m = 0;
        for (int a : r) m = std::max(m, dag.atoms[static_cast<size_t>(a)].cycles);
        sum += m;
        atoms += r.size();
        EXPECT_LE(static_cast<int>(r.size()), n);
      }
      EXPECT_EQ(sum, prio_bb.cycles);
      EXPECT_EQ(atoms, dag.atoms.size());
      // The greedy fill is one of the priority-rule schedules.
      const AtomSchedule greedy = schedule_atoms(Graph(), dag, *spec, {.on_chip_reuse = false});
      double greedy_sum = 0;
      for (const Round& r : greedy.rounds) greedy_sum += r.cycles;
      EXPECT_GE(greedy_sum, prio.cycles);
    }
  }
  EXPECT_GE(cases, 10);
}

}  // namespace
}  // namespace dgs::atomic
