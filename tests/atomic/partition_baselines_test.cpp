// The CNN-P and IL-Pipe baselines (partition_baselines.h): their plans run by run_plan equal the
// graph on reduced networks; CNN-P's CLPs are column bands that partition all engines and hold
// every layer once; IL-Pipe's regions are proportional to their groups' engine cycles within
// rounding and partition the engines per segment; a region cuts a layer into at most one piece
// per engine and regions are sized by cycles, not MACs (hand-worked cases); both are deterministic,
// and the model accepts them at batch 20.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/dsamodel/dsa_model.h"
#include "common/exec/plan_exec.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"
#include "common/plan/plan.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_task.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/experiments/partition_runs.h"
#include "reproductions/atomic/partition_baselines.h"

namespace dgs::atomic {
namespace {

const DsaSpec& mesh2x2() {
  static const DsaSpec s = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 2, 2, 16, 16);
  return s;
}

Plan baseline_plan(const Graph& g, const RegionLayout& layout, const DsaSpec& spec) {
  const AtomicDag dag = build_atomic_dag(g, layout.shapes, spec);
  return atom_plan(g, dag, region_pipeline_schedule(g, dag, layout, spec), spec, "baseline test");
}

// The engines of `regions` with how often each appears.
std::multiset<int> engines_of(const std::vector<std::vector<int>>& regions) {
  std::multiset<int> e;
  for (const std::vector<int>& r : regions) e.insert(r.begin(), r.end());
  return e;
}

std::multiset<int> all_engines(int n) {
  std::multiset<int> e;
  for (int i = 0; i < n; ++i) e.insert(i);
  return e;
}

TEST(PartitionBaselines, PlansEqualTheGraphOnReducedNetworks) {
  for (const char* net : {"test_diamond", "test_residual_block"}) {
    const Graph g = build_zoo_model(net, {.batch = 3, .image_size = 8});
    const std::vector<Layer> layers = graph_layers(g);
    for (const RegionLayout& layout :
         {cnnp_layout(g, layers, mesh2x2()), ilpipe_layout(g, layers, mesh2x2(), 2, 2)}) {
      const Plan plan = baseline_plan(g, layout, mesh2x2());
      plan.check(g);
      const PlanComparison c = compare_plan_with_reference(g, plan, 5);
      EXPECT_TRUE(c.passed) << net << ": " << c.str();
      EXPECT_NO_THROW(evaluate_dsa_plan(g, plan, mesh2x2())) << net;
    }
  }
}

TEST(PartitionBaselines, CnnpClustersPartitionTheEnginesAndHoldEveryLayerOnce) {
  const Graph g = build_zoo_model("resnet50", {.batch = 4});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  const RegionLayout layout = cnnp_layout(g, layers, spec);
  ASSERT_EQ(layout.regions.size(), static_cast<size_t>(kCnnpClusters));
  EXPECT_EQ(engines_of(layout.regions), all_engines(spec.units()));
  // Each CLP is a band of columns in the column-major snake order, so one of at least
  // 2 x mesh_rows - 1 engines spans every row wherever it starts.
  int spanning = 0;
  for (const std::vector<int>& r : layout.regions) {
    if (r.size() < static_cast<size_t>(2 * spec.mesh_rows - 1)) continue;
    std::set<int> rows;
    for (int e : r) rows.insert(e / spec.mesh_columns);
    EXPECT_EQ(rows.size(), static_cast<size_t>(spec.mesh_rows));
    ++spanning;
  }
  EXPECT_GT(spanning, 0);
  ASSERT_EQ(layout.region_of_layer.size(), layers.size());
  for (int r : layout.region_of_layer) EXPECT_TRUE(r >= 0 && r < kCnnpClusters);
  // The matrix layers of a segment are on distinct CLPs.
  std::map<int, std::set<int>> clps_of_segment;
  std::map<int, int> matrix_in_segment;
  for (size_t l = 0; l < layers.size(); ++l) {
    if (!layers[l].matrix) continue;
    clps_of_segment[layout.segment_of_layer[l]].insert(layout.region_of_layer[l]);
    ++matrix_in_segment[layout.segment_of_layer[l]];
  }
  for (const auto& [seg, n] : matrix_in_segment)
    EXPECT_EQ(clps_of_segment[seg].size(), static_cast<size_t>(n)) << "segment " << seg;
  // Every atom on its layer's CLP, once; a CLP runs at most one matrix layer per step.
  const AtomicDag dag = build_atomic_dag(g, layout.shapes, spec);
  const AtomSchedule s = region_pipeline_schedule(g, dag, layout, spec);
  size_t placed = 0;
  for (const Round& r : s.rounds) {
    std::map<int, std::set<int>> matrix_layers_of_clp;
    for (size_t i = 0; i < r.atoms.size(); ++i) {
      const Atom& a = dag.atoms[static_cast<size_t>(r.atoms[i])];
      const int clp = layout.region_of_layer[static_cast<size_t>(a.layer)];
      const std::vector<int>& engines = layout.regions[static_cast<size_t>(clp)];
      EXPECT_NE(std::find(engines.begin(), engines.end(), r.engines[i]), engines.end());
      if (dag.layers[static_cast<size_t>(a.layer)].matrix)
        matrix_layers_of_clp[clp].insert(a.layer);
      ++placed;
    }
    for (const auto& [clp, ls] : matrix_layers_of_clp) EXPECT_EQ(ls.size(), 1u);
  }
  EXPECT_EQ(placed, dag.atoms.size());
  // CNN-P's CLPs read their weights from DRAM (Sec. II-B): nothing pinned.
  EXPECT_EQ(std::count(s.pins.begin(), s.pins.end(), true), 0);
  // Only a layer's intermediates stay on chip: every reader of a kept output is in its group.
  const std::vector<int> group = matrix_group_of_layers(g, layers);
  int64_t kept = 0;
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    if (!s.on_chip[a]) continue;
    ++kept;
    for (int c : dag.succs[a])
      EXPECT_EQ(group[static_cast<size_t>(dag.atoms[static_cast<size_t>(c)].layer)],
                group[static_cast<size_t>(dag.atoms[a].layer)]);
  }
  EXPECT_GT(kept, 0);
}

TEST(PartitionBaselines, IlPipeRegionsAreProportionalToCyclesAndPartitionTheEngines) {
  const Graph g = build_zoo_model("resnet50", {.batch = 2});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  const RegionLayout layout = ilpipe_layout(g, layers, spec);
  const std::vector<double> cost = group_cycles(g, layers, spec);
  // Per segment: its matrix layers' regions, in layer order.
  std::map<int, std::vector<int>> regions_of_segment;
  for (size_t l = 0; l < layers.size(); ++l)
    if (layers[l].matrix)
      regions_of_segment[layout.segment_of_layer[l]].push_back(layout.region_of_layer[l]);
  ASSERT_EQ(regions_of_segment.size(),
            static_cast<size_t>((54 + kIlPipeSegmentLayers - 1) / kIlPipeSegmentLayers));
  for (const auto& [seg, regions] : regions_of_segment) {
    std::vector<std::vector<int>> engines;
    double cycles = 0;
    for (int r : regions) engines.push_back(layout.regions[static_cast<size_t>(r)]);
    EXPECT_EQ(engines_of(engines), all_engines(spec.units())) << "segment " << seg;
    std::vector<double> layer_cycles;
    for (size_t l = 0; l < layers.size(); ++l)
      if (layers[l].matrix && layout.segment_of_layer[l] == seg) {
        layer_cycles.push_back(cost[l]);
        cycles += cost[l];
      }
    const int spare = spec.units() - static_cast<int>(regions.size());
    for (size_t i = 0; i < regions.size(); ++i) {
      const double share = layer_cycles[i] / cycles * spare;
      const double size = static_cast<double>(engines[i].size()) - 1;
      EXPECT_LT(std::abs(size - share), 1.0) << "segment " << seg << " layer " << i;
    }
  }
  // Outputs stay on chip only when every reader is in the writer's segment, and an engine's
  // kept outputs never exceed half its buffer in any step.
  const AtomicDag dag = build_atomic_dag(g, layout.shapes, spec);
  const AtomSchedule s = region_pipeline_schedule(g, dag, layout, spec);
  int64_t kept = 0;
  std::map<std::pair<int, int>, int64_t> resident;  // (engine, round) -> kept bytes
  for (size_t a = 0; a < dag.atoms.size(); ++a) {
    if (!s.on_chip[a]) continue;
    const int seg = layout.segment_of_layer[static_cast<size_t>(dag.atoms[a].layer)];
    int last_read = s.round_of[a];
    for (int c : dag.succs[a]) {
      EXPECT_EQ(
          layout.segment_of_layer[static_cast<size_t>(dag.atoms[static_cast<size_t>(c)].layer)],
          seg);
      last_read = std::max(last_read, s.round_of[static_cast<size_t>(c)]);
    }
    EXPECT_FALSE(dag.succs[a].empty());
    for (int r = s.round_of[a]; r <= last_read; ++r)
      resident[{s.engine_of[a], r}] += dag.atoms[a].out_bytes;
    ++kept;
  }
  for (const auto& [at, bytes] : resident) EXPECT_LE(bytes, spec.local_bytes / 2);
  EXPECT_GT(kept, 0);
  // Weights pinned: only by an engine's first atom of a layer that runs more atoms there.
  std::set<std::pair<int, int>> seen;  // (engine, layer)
  int64_t pins = 0;
  for (const Round& r : s.rounds)
    for (int a : r.atoms) {
      const auto key = std::make_pair(s.engine_of[static_cast<size_t>(a)],
                                      dag.atoms[static_cast<size_t>(a)].layer);
      const bool first = seen.insert(key).second;
      if (s.pins[static_cast<size_t>(a)]) {
        EXPECT_TRUE(first) << "atom " << a;
        ++pins;
      }
    }
  EXPECT_GT(pins, 0);
}

TEST(PartitionBaselines, ProportionalEngineCountsAreExactOnSmallCases) {
  EXPECT_EQ(proportional_engine_counts({1, 1, 2}, 8), (std::vector<int>{2, 2, 4}));
  EXPECT_EQ(proportional_engine_counts({0, 10}, 4), (std::vector<int>{1, 3}));
  EXPECT_EQ(proportional_engine_counts({1, 1, 1}, 4), (std::vector<int>{2, 1, 1}));
  EXPECT_THROW(proportional_engine_counts({1, 1, 1}, 2), Error);
}

TEST(PartitionBaselines, SameNetworkSamePlans) {
  const Graph g = build_zoo_model("resnet50", {.batch = 2});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  auto plans = [&] {
    const std::vector<Layer> layers = graph_layers(g);
    return plan_to_json(baseline_plan(g, cnnp_layout(g, layers, spec), spec), g) +
           plan_to_json(baseline_plan(g, ilpipe_layout(g, layers, spec), spec), g);
  };
  const std::string first = plans();
  EXPECT_EQ(first, plans());
  EXPECT_GT(first.size(), 1000u);
}

// atom_plan builds each op's iteration space once for the plan (or takes the caller's): the atoms'
// tilings it takes are the entries the lookup returns without one (the same entry of the shared
// cache), and the plan is the same whether the caller holds the spaces or not. ResNet-50's CNN-P
// and IL-Pipe atoms include conv1's, whose halo the padding clips differently along a row.
TEST(PartitionBaselines, PlansTakeTheTilingsLookedUpWithoutSharedSpaces) {
  const Graph g = build_zoo_model("resnet50", {.batch = 2});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  for (const RegionLayout& layout :
       {cnnp_layout(g, layers, spec), ilpipe_layout(g, layers, spec)}) {
    const AtomicDag dag = build_atomic_dag(g, layout.shapes, spec);
    const AtomSchedule s = region_pipeline_schedule(g, dag, layout, spec);
    ASSERT_EQ(IterationSpaceMemo::active(g), nullptr);
    AtomTilings alone;
    std::vector<const AtomTiling*> looked_up;
    for (size_t a = 0; a < dag.atoms.size(); ++a)
      looked_up.push_back(&alone.of(g, dag, static_cast<int>(a), spec));
    const Plan plan = atom_plan(g, dag, s, spec, "test");
    Plan shared;
    {
      const IterationSpaceMemo spaces(g);
      AtomTilings with_spaces;
      for (size_t a = 0; a < dag.atoms.size(); ++a)
        EXPECT_EQ(&with_spaces.of(g, dag, static_cast<int>(a), spec), looked_up[a]) << a;
      shared = atom_plan(g, dag, s, spec, "test");
    }
    EXPECT_EQ(plan_to_json(plan, g), plan_to_json(shared, g));
    size_t tiled = 0;
    for (size_t r = 0; r < s.rounds.size(); ++r) {
      ASSERT_EQ(plan.stages[r].tasks.size(), s.rounds[r].atoms.size());
      for (size_t i = 0; i < s.rounds[r].atoms.size(); ++i) {
        const AtomTiling& t = *looked_up[static_cast<size_t>(s.rounds[r].atoms[i])];
        const Task& task = plan.stages[r].tasks[i];
        EXPECT_EQ(task.tile, t.tile) << r << ", " << i;
        if (!t.tile.empty()) {
          EXPECT_EQ(task.buffer_bytes, t.buffer_bytes) << r << ", " << i;
        }
        EXPECT_EQ(task.kind == TaskKind::Fused, !t.tile.empty()) << r << ", " << i;
        tiled += !t.tile.empty();
      }
    }
    EXPECT_GT(tiled, 0u);  // some atoms run in tiles: the comparison sees tilings
  }
}

// At batch 20 the model accepts both plans (every kept output fits beside the working sets), and
// IL-Pipe, which forwards feature maps on chip, moves more of them over the mesh than CNN-P
// (whose layers read and write DRAM). Its DRAM bytes are not lower: a region reloads its layer's
// weights for every row block (4 per sample) where the weights and a block's tiles do not fit
// its engines' buffers together, which outweighs the feature maps it keeps on chip.
TEST(PartitionBaselines, TheModelAcceptsBothAtBatch20) {
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const PartitionRuns& r = partition_runs("resnet50", 20, spec);
  EXPECT_GT(r.cnnp.result.latency_us, 0);
  EXPECT_GT(r.ilpipe.result.latency_us, 0);
  EXPECT_GT(value_of(r.ilpipe.result.details, "noc_byte_hops"),
            value_of(r.cnnp.result.details, "noc_byte_hops"));
}

// A region splits a layer into at most one piece per engine (split_over_region), worked by hand:
// a 1x1 convolution of 64 onto 256 channels, 14 x 14, over a CLP of 24 engines (atomic_mesh:
// 16 x 16 PEs, 1-byte elements, an 8-byte port, 30 cycles of fill and drain). LS's cut (output
// channels in multiples of 16 into 24 pieces, then rows by what is left, rounded up) gives 16
// channel x 2 row pieces = 32, dealt round 24 engines: 8 engines run two pieces of 16 channels x
// 7 rows, each port-bound at (98 x 64 inputs + 16 x 64 weights + 16 x 98 outputs) / 8 + 30 =
// 1108 + 30 = 1138 cycles, 2276 in all. The region's cut is 48 channels x 7 rows x 7 columns
// (6 x 2 x 2 = 24 pieces, the last channel piece 16 wide), its largest piece port-bound at
// (49 x 64 + 48 x 64 + 48 x 49) / 8 + 30 = 1070 + 30 = 1100 cycles; no cut of at most 24 pieces
// has a largest piece under that (16 channels x 7 x 14: 1138; 64 x 5 x 7: 1102).
TEST(PartitionBaselines, ARegionCutsALayerIntoAtMostOnePiecePerEngine) {
  ModelBuilder b("conv1x1");
  int x = b.input("x", {1, 64, 14, 14});
  x = b.conv2d(x, 256, 1);
  const Graph g = b.finish({x});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  ASSERT_EQ(spec.element_bytes, 1);
  const std::vector<Layer> layers = graph_layers(g);
  ASSERT_EQ(layers.size(), 1u);
  const Layer& l = layers[0];
  auto cycles = [&](const AtomShape& s) {
    return atom_cost(g, l, first_atom_region(l, s), spec).cycles;
  };
  // LS's cut into 24 parts: even_cut of the channels, then of the rows into the parts left.
  EXPECT_EQ(even_cut(256, 24, 16), (std::pair<int64_t, int64_t>{16, 16}));
  EXPECT_EQ(even_cut(14, 2, 1), (std::pair<int64_t, int64_t>{7, 2}));
  const AtomShape ls_cut{.h = 7, .w = 0, .c_out = 16, .c_in = 0};
  EXPECT_EQ(atoms_per_sample(l, ls_cut), 32);
  EXPECT_EQ(cycles(ls_cut), 1138);
  const auto [cut, block] = split_over_region(g, l, 24, 1, spec);
  EXPECT_EQ(block, 0);
  EXPECT_EQ(cut, (AtomShape{.h = 7, .w = 7, .c_out = 48, .c_in = 0}));
  EXPECT_EQ(atoms_per_sample(l, cut), 24);
  EXPECT_EQ(cycles(cut), 1100);
  EXPECT_EQ(cycles(AtomShape{.h = 5, .w = 7, .c_out = 64, .c_in = 0}), 1102);
  // Over 16 engines the same layer takes 16 pieces, none more.
  EXPECT_LE(atoms_per_sample(l, split_over_region(g, l, 16, 1, spec).first), 16);
  // Blocks of rows (IL-Pipe): 2 blocks of 7 rows over 24 engines, each block in at most 24 pieces.
  const auto [blocked, rows] = split_over_region(g, l, 24, 2, spec);
  EXPECT_EQ(rows, 7);
  EXPECT_LE(atoms_per_sample(l, blocked), 2 * 24);
}

// Regions are sized by engine cycles (group_cycles), not MACs, worked by hand: a 1x1
// convolution of 16 onto 16 channels and a depthwise 3x3 of 16 channels on 8 x 8 (atomic_mesh,
// KC-P). The 1x1 has 64 x 16 x 16 = 16384 MACs, port-bound at (1024 inputs + 256 weights + 1024
// outputs) / 8 + 30 = 318 cycles; the depthwise 64 x 16 x 9 = 9216 MACs on one PE a step
// (unit_cost.h), 9216 steps + 30 = 9246 cycles. IL-Pipe's segment holds both on the 64 engines:
// 1 + floor(318 / 9564 x 62) = 3 and 1 + floor(9246 / 9564 x 62) = 60, the spare engine to the
// larger remainder (0.94 over 0.06): 3 and 61. By MACs they were 41 and 23, and every step of the
// pipeline waited on the depthwise region, 2.7x the MACs per engine it was sized for.
TEST(PartitionBaselines, RegionsAreSizedByEngineCyclesNotMacs) {
  ModelBuilder b("dense_then_depthwise");
  int x = b.input("x", {1, 16, 8, 8});
  x = b.conv2d(x, 16, 1, 1, 0, 1, /*bias=*/false);
  x = b.conv2d(x, 16, 3, 1, 1, /*groups=*/16, /*bias=*/false);
  const Graph g = b.finish({x});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].macs_per_sample, 16384);
  EXPECT_EQ(layers[1].macs_per_sample, 9216);
  EXPECT_EQ(group_cycles(g, layers, spec), (std::vector<double>{318, 9246}));
  const RegionLayout il = ilpipe_layout(g, layers, spec);
  ASSERT_EQ(il.regions.size(), 2u);
  EXPECT_EQ(il.regions[0].size(), 3u);
  EXPECT_EQ(il.regions[1].size(), 61u);
  EXPECT_EQ(proportional_engine_counts({16384, 9216}, 64), (std::vector<int>{41, 23}));
  // CNN-P's CLPs (one segment of both layers): the depthwise is the larger, on CLP 0.
  const RegionLayout cp = cnnp_layout(g, layers, spec);
  EXPECT_EQ(cp.region_of_layer, (std::vector<int>{1, 0}));
  EXPECT_EQ(cp.regions[0].size(), 61u);
  EXPECT_EQ(cp.regions[1].size(), 3u);
}

// Table II's utilisation as the product of its factors (utilisation_factors), worked by hand: a
// matrix layer of two atoms in one Round, 100 cycles on engine 0 and 50 on engine 1, both at half
// the array (12800 and 6400 MACs, 256 MACs a cycle), and a vector op's 150 cycles on engine 1 in
// the same Round, so the Round lasts 200 (engine 1). Utilisation 19200 / (200 x 2 x 256) =
// 18.75%; rounds 100 / 200 = 0.5, engines 150 / (100 x 2) = 0.75, array 19200 / (150 x 256) =
// 0.5; the vector op's layer is no matrix layer and has none.
TEST(PartitionBaselines, UtilisationIsTheProductOfItsFactors) {
  AtomicDag dag;
  dag.layers.resize(2);
  dag.layers[0].matrix = true;
  auto atom = [&](int layer, double cycles, double macs) {
    Atom a;
    a.layer = layer;
    a.cycles = cycles;
    a.macs = macs;
    dag.atoms_of_layer.resize(2);
    dag.atoms_of_layer[static_cast<size_t>(layer)].push_back(static_cast<int>(dag.atoms.size()));
    dag.atoms.push_back(a);
  };
  atom(0, 100, 12800);
  atom(0, 50, 6400);
  atom(1, 150, 0);
  AtomSchedule s;
  s.rounds.push_back(Round{.atoms = {0, 1, 2}, .engines = {0, 1, 1}, .cycles = 150});
  s.round_of = {0, 0, 0};
  s.engine_of = {0, 1, 1};
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  ASSERT_EQ(spec.matrix_macs_per_cycle, 256);
  EXPECT_DOUBLE_EQ(layer_utilisation_pct(dag, s, spec), 18.75);
  const UtilisationFactors f = utilisation_factors(dag, s, spec);
  EXPECT_DOUBLE_EQ(f.rounds, 0.5);
  EXPECT_DOUBLE_EQ(f.engines, 0.75);
  EXPECT_DOUBLE_EQ(f.array, 0.5);
}

// Fig. 9's compute bounds on a hand-built schedule of two Rounds on two engines: Round 0 runs 100
// cycles on engine 0 and 40 on engine 1, Round 1 20 on engine 0 and 90 on engine 1. Balanced:
// 250 / 2 = 125; the busiest engine: engine 1, 40 + 90 = 130 (engine 0: 120); a barrier per Round:
// 100 + 90 = 190.
TEST(PartitionBaselines, ComputeBoundsSpreadTheWorkThenAddTheEnginesThenTheBarriers) {
  AtomicDag dag;
  for (const double c : {100.0, 40.0, 20.0, 90.0}) {
    Atom a;
    a.cycles = c;
    dag.atoms.push_back(a);
  }
  AtomSchedule s;
  s.rounds.push_back(Round{.atoms = {0, 1}, .engines = {0, 1}, .cycles = 100});
  s.rounds.push_back(Round{.atoms = {2, 3}, .engines = {0, 1}, .cycles = 90});
  s.round_of = {0, 0, 1, 1};
  s.engine_of = {0, 1, 0, 1};
  const ComputeBounds b = compute_bounds(dag, s, 2);
  EXPECT_DOUBLE_EQ(b.balanced, 125);
  EXPECT_DOUBLE_EQ(b.busiest_engine, 130);
  EXPECT_DOUBLE_EQ(b.per_round, 190);
  // Over four engines the same work spreads thinner; the other two bounds do not change.
  EXPECT_DOUBLE_EQ(compute_bounds(dag, s, 4).balanced, 62.5);
}

}  // namespace
}  // namespace dgs::atomic
