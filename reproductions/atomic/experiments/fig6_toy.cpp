// The Fig. 6 toy atomic DAG (see fig6_toy.h).
#include "reproductions/atomic/experiments/fig6_toy.h"

namespace dgs::atomic {

namespace {
constexpr int kAtomsPerLayer[] = {9, 7, 9, 4};
constexpr int kDepthOfLayer[] = {0, 0, 1, 2};
constexpr double kAtomCycles = 100;
constexpr int64_t kAtomBytes = 1024;

// The layer-3 atoms (0-based, row-major on a 3 x 3 grid) under layer-4 atom `k` (2 x 2 grid):
// a 3x3 window over a 2 x 2 output block reaches the 2 x 2 block of layer-3 atoms at its corner.
std::vector<int> layer3_under(int k) {
  const int r = k / 2, c = k % 2;
  return {3 * r + c, 3 * r + c + 1, 3 * (r + 1) + c, 3 * (r + 1) + c + 1};
}
}  // namespace

AtomicDag fig6_toy_dag(int batch) {
  AtomicDag dag;
  dag.batch = batch;
  dag.layers.resize(4);
  dag.atoms_of_layer.resize(4);
  for (int l = 0; l < 4; ++l) {
    dag.layers[static_cast<size_t>(l)].depth = kDepthOfLayer[l];
    dag.layers[static_cast<size_t>(l)].splittable = true;
    for (int b = 0; b < batch; ++b) {
      for (int i = 0; i < kAtomsPerLayer[l]; ++i) {
        Atom a;
        a.layer = l;
        a.sample = b;
        a.cycles = kAtomCycles;
        a.out_bytes = kAtomBytes;
        a.index_in_layer = i;
        dag.atoms_of_layer[static_cast<size_t>(l)].push_back(static_cast<int>(dag.atoms.size()));
        dag.atoms.push_back(a);
      }
    }
  }
  auto id = [&](int layer, int sample, int i) {
    return dag.atoms_of_layer[static_cast<size_t>(layer)]
                             [static_cast<size_t>(sample * kAtomsPerLayer[layer] + i)];
  };
  dag.preds.assign(dag.atoms.size(), {});
  dag.succs.assign(dag.atoms.size(), {});
  auto link = [&](int from, int to) {
    dag.preds[static_cast<size_t>(to)].push_back(from);
    dag.succs[static_cast<size_t>(from)].push_back(to);
  };
  for (int b = 0; b < batch; ++b) {
    for (int k = 0; k < kAtomsPerLayer[2]; ++k) {
      link(id(0, b, k), id(2, b, k));
      for (int j = 0; j < kAtomsPerLayer[1]; ++j) link(id(1, b, j), id(2, b, k));
    }
    for (int k = 0; k < kAtomsPerLayer[3]; ++k) {
      for (int j : layer3_under(k)) link(id(2, b, j), id(3, b, k));
    }
  }
  return dag;
}

std::string fig6_atom_label(const AtomicDag& dag, int atom) {
  const Atom& a = dag.atoms[static_cast<size_t>(atom)];
  return std::to_string(a.layer + 1) + "-" + std::to_string(a.index_in_layer + 1) +
         std::string(static_cast<size_t>(a.sample), '\'');
}

}  // namespace dgs::atomic
