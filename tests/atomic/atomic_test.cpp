// repro_atomic's algorithms: atoms with input-channel partial sums and batch replication run by
// run_plan equal the graph; dependencies by receptive-field intersection; Fig. 7's two mappings
// (2 and 6 hops); SA determinism; LS shapes cover every engine.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/mesh_noc.h"
#include "common/dsamodel/task_estimate.h"
#include "common/exec/plan_exec.h"
#include "common/graph/iteration_space.h"
#include "common/hw/dsa_spec.h"
#include "models/builder.h"
#include "models/zoo.h"
#include "reproductions/atomic/atom_search.h"
#include "reproductions/atomic/atom_task.h"
#include "reproductions/atomic/atoms.h"
#include "reproductions/atomic/baselines.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {
namespace {

const DsaSpec& mesh2x2() {
  static const DsaSpec s = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 2, 2, 16, 16);
  return s;
}

// test_diamond (conv a 3x3 -> relu -> {conv b 3x3, conv c 1x1} -> add -> relu) at 2 x 32 x 8 x 8.
Graph small_diamond() {
  return build_zoo_model("test_diamond", {.batch = 2, .image_size = 8});
}

std::vector<AtomShape> quarter_shapes(const std::vector<Layer>& layers) {
  std::vector<AtomShape> s;
  for (const Layer& l : layers) s.push_back(l.splittable ? AtomShape{4, 0, 16, 16} : AtomShape{});
  return s;
}

TEST(AtomicDag, AtomsCoverEveryLayerPerSampleWithPartialSums) {
  const Graph g = small_diamond();
  const std::vector<Layer> layers = graph_layers(g);
  const AtomicDag dag = build_atomic_dag(g, quarter_shapes(layers), mesh2x2());
  ASSERT_EQ(dag.batch, 2);
  // conv a: 2 samples x 2 channel pieces x 2 row pieces x 2 input-channel slices.
  EXPECT_EQ(dag.atoms_of_layer[0].size(), 16u);
  // relu a: no reduction axis: 2 x 2 x 2.
  EXPECT_EQ(dag.atoms_of_layer[1].size(), 8u);
  // The relu atom of sample 0, channels [0,16), rows [0,4) reads exactly the conv atoms of that
  // region: its two input-channel slices.
  const int relu0 = dag.atoms_of_layer[1][0];
  EXPECT_EQ(dag.preds[static_cast<size_t>(relu0)],
            (std::vector<int>{dag.atoms_of_layer[0][0], dag.atoms_of_layer[0][1]}));
  // conv b (3x3, pad 1) rows [0,4), input channels [0,16) of sample 0 reads relu rows [0,5):
  // the relu atoms of channels [0,16), rows [0,4) and [4,8).
  int conv_b = -1;
  for (size_t l = 0; l < layers.size(); ++l)
    if (g.op(layers[l].op).name == "b") conv_b = static_cast<int>(l);
  ASSERT_GE(conv_b, 0);
  const int b0 = dag.atoms_of_layer[static_cast<size_t>(conv_b)][0];
  EXPECT_EQ(dag.preds[static_cast<size_t>(b0)],
            (std::vector<int>{dag.atoms_of_layer[1][0], dag.atoms_of_layer[1][1]}));
  // The first atom and the count, without listing the atoms.
  for (size_t l = 0; l < layers.size(); ++l) {
    const std::vector<AtomRegion> all = layer_atom_regions(layers[l], dag.shapes[l], 0);
    EXPECT_EQ(atoms_per_sample(layers[l], dag.shapes[l]), static_cast<int64_t>(all.size()));
    EXPECT_EQ(first_atom_region(layers[l], dag.shapes[l]).region, all.at(0).region);
    EXPECT_EQ(first_atom_region(layers[l], dag.shapes[l]).c_in, all.at(0).c_in);
  }
  // Sample 1's atoms never depend on sample 0's.
  for (size_t a = 0; a < dag.atoms.size(); ++a)
    for (int p : dag.preds[a])
      EXPECT_EQ(dag.atoms[static_cast<size_t>(p)].sample, dag.atoms[a].sample);
}

// build_atomic_dag takes a later sample's atom costs from sample 0's where the batch axis slides;
// every atom must still cost what pricing it on its own gives (atom_cost), at batch 3 (a first,
// a middle and a last sample): LS's atoms of networks with padded windows, strides, depthwise
// convolutions, FCs and a flatten, and the diamond's quarter atoms with input-channel slices.
void expect_each_atom_costs_its_own_price(const Graph& g, const std::vector<AtomShape>& shapes,
                                          const DsaSpec& spec) {
  const AtomicDag dag = build_atomic_dag(g, shapes, spec);
  int64_t later = 0;
  for (const Atom& a : dag.atoms) {
    const AtomCost c =
        atom_cost(g, dag.layers[static_cast<size_t>(a.layer)], AtomRegion{a.region, a.c_in}, spec);
    ASSERT_EQ(a.cycles, c.cycles) << "layer " << a.layer << " sample " << a.sample;
    ASSERT_EQ(a.macs, c.macs) << "layer " << a.layer << " sample " << a.sample;
    later += a.sample > 0 ? 1 : 0;
  }
  EXPECT_GT(later, static_cast<int64_t>(dag.atoms.size()) / 2);  // samples 1 and 2
}

TEST(AtomicDag, EveryAtomCostsWhatPricingItAloneGives) {
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  for (const std::string net : {"resnet50", "inception_v3", "efficientnet_b0", "vgg19"}) {
    SCOPED_TRACE(net);
    const Graph g = build_zoo_model(net, {.batch = 3});
    expect_each_atom_costs_its_own_price(g, ls_shapes(g, graph_layers(g), spec, 3), spec);
  }
  const Graph diamond = build_zoo_model("test_diamond", {.batch = 3, .image_size = 8});
  expect_each_atom_costs_its_own_price(diamond, quarter_shapes(graph_layers(diamond)), mesh2x2());
}

TEST(AtomicDag, ScheduledAtomPlanEqualsTheGraph) {
  const Graph g = small_diamond();
  const AtomicDag dag = build_atomic_dag(g, quarter_shapes(graph_layers(g)), mesh2x2());
  const AtomSchedule s = schedule_atoms(g, dag, mesh2x2(), {});
  for (const Round& r : s.rounds) EXPECT_LE(r.atoms.size(), 4u);
  const Plan plan = atom_plan(g, dag, s, mesh2x2(), "atomic test");
  plan.check(g);
  const PlanComparison c = compare_plan_with_reference(g, plan, 7);
  EXPECT_TRUE(c.passed) << c.str();
}

TEST(AtomicDag, LayerSequentialPlanEqualsTheGraph) {
  const Graph g = small_diamond();
  const std::vector<Layer> layers = graph_layers(g);
  const AtomicDag dag = build_atomic_dag(g, ls_shapes(g, layers, mesh2x2(), 2), mesh2x2());
  // 4 engines, 2 samples: every sample of conv a (32 channels) in two 16-channel parts.
  EXPECT_EQ(dag.atoms_of_layer[0].size(), 4u);
  const Plan plan = atom_plan(g, dag, ls_schedule(g, dag, mesh2x2()), mesh2x2(), "LS test");
  const PlanComparison c = compare_plan_with_reference(g, plan, 11);
  EXPECT_TRUE(c.passed) << c.str();
}

// LS on a conv 3x3 (16 -> 32 channels, pad 1, no bias) -> batch norm -> ReLU chain at 1 x 16 x
// 8 x 8 on 4 engines, worked by hand (1 B elements). ls_shapes cuts the conv into 2 channel
// pieces (16, the PE columns) x 2 row pieces (4 rows): 4 atoms, one per engine; batch norm and
// ReLU, of the conv's output shape, are cut the same way, so each engine's BN and ReLU atoms read
// its own conv atom's region. One Round per op: 3. DRAM: each conv atom reads its 16 input
// channels x 5 rows (its 4 and the halo row) x 8 columns = 640 B and its 16 channels' weights,
// 16 x 16 x 3 x 3 = 2304 B; each BN atom its 16 channels of the 4 parameter vectors, 64 B; the
// ReLU writes its output, 32 x 8 x 8 = 2048 B: 4 x 640 + 4 x 2304 + 4 x 64 + 2048 = 14080 B.
// The conv's and the BN's outputs (512 B per engine) stay on chip. With every op a layer of its
// own (LsLayer::Op), the conv's and the BN's outputs also go out and come back (+ 4 x 2048 B),
// and BN and ReLU are cut in 4 pieces of 8 channels (a vector op's channels need not be a
// multiple of the PE columns), so each BN atom reads 8 channels of the 4 vectors (- 4 x 32 B).
TEST(LayerSequential, AConvWithItsBatchNormAndReluKeepsTheIntermediatesOnChip) {
  ModelBuilder b("conv_bn_relu");
  const int x = b.input("x", {1, 16, 8, 8});
  b.relu(b.batchnorm(b.conv2d(x, 32, 3, 1, 1, 1, false)));
  const Graph& g = b.graph();
  const DsaSpec& spec = mesh2x2();
  const std::vector<Layer> layers = graph_layers(g);
  ASSERT_EQ(layers.size(), 3u);
  const AtomicDag dag = build_atomic_dag(g, ls_shapes(g, layers, spec, 1), spec);
  for (size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(dag.shapes[l], (AtomShape{4, 0, 16, 0})) << l;
    EXPECT_EQ(dag.atoms_of_layer[l].size(), 4u) << l;
  }
  const AtomSchedule s = ls_schedule(g, dag, spec);
  ASSERT_EQ(s.rounds.size(), 3u);
  for (size_t l = 0; l < 3; ++l) {
    for (size_t k = 0; k < 4; ++k) {
      const size_t a = static_cast<size_t>(dag.atoms_of_layer[l][k]);
      EXPECT_EQ(s.engine_of[a], static_cast<int>(k));
      EXPECT_EQ(s.on_chip[a], l < 2) << "layer " << l << " atom " << k;
    }
  }
  const Plan plan = atom_plan(g, dag, s, spec, "LS test");
  EXPECT_TRUE(compare_plan_with_reference(g, plan, 3).passed);
  const EvaluationResult grouped = evaluate_dsa_plan(g, plan, spec);
  EXPECT_EQ(value_of(grouped.bytes_by_level, spec.dram_level), 14080);

  const AtomicDag own = build_atomic_dag(g, ls_shapes(g, layers, spec, 1, LsLayer::Op), spec);
  const AtomSchedule s_own = ls_schedule(g, own, spec, LsLayer::Op);
  EXPECT_EQ(s_own.rounds.size(), 3u);
  EXPECT_TRUE(std::none_of(s_own.on_chip.begin(), s_own.on_chip.end(), [](bool k) { return k; }));
  const EvaluationResult alone =
      evaluate_dsa_plan(g, atom_plan(g, own, s_own, spec, "LS test"), spec);
  EXPECT_EQ(own.shapes[1], (AtomShape{0, 0, 8, 0}));
  EXPECT_EQ(value_of(alone.bytes_by_level, spec.dram_level), 14080 + 4 * 2048 - 4 * 32);
}

// An output stays on chip only while the engine's kept outputs fit in the budget, from its
// Round to its last reader's: on one engine with a budget of 4 B, Round 0's outputs of 3 B and
// 2 B, both read in Round 1 within their domain: the first kept (3 B held in Rounds 0-1), the
// second written back (5 B); Round 1's output of 1 B, read in Round 2, kept (4 B in Round 1, 1 B
// in Round 2). An output read outside its domain, or never read, goes out.
TEST(LayerSequential, KeptOutputsStayWithinTheBudgetFirstComeFirstKept) {
  AtomicDag dag;
  dag.layers.resize(3);
  const int layer[] = {0, 0, 1, 2};
  const int64_t bytes[] = {3, 2, 1, 1};
  for (size_t i = 0; i < 4; ++i) {
    Atom a;
    a.layer = layer[i];
    a.out_bytes = bytes[i];
    dag.atoms.push_back(a);
  }
  dag.preds = {{}, {}, {0, 1}, {2}};
  dag.succs = {{2}, {2}, {3}, {}};
  AtomSchedule s;
  s.rounds.resize(3);
  s.round_of = {0, 0, 1, 2};
  s.engine_of = {0, 0, 0, 0};
  s.rounds[0].atoms = {0, 1};
  s.rounds[1].atoms = {2};
  s.rounds[2].atoms = {3};
  s.on_chip.assign(4, false);
  std::vector<std::vector<int64_t>> kept(1, std::vector<int64_t>(3, 0));
  keep_domain_outputs_on_chip(dag, {7, 7, 7}, 4, kept, s);
  EXPECT_EQ(s.on_chip, (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(kept[0], (std::vector<int64_t>{3, 4, 1}));
  s.on_chip.assign(4, false);
  std::vector<std::vector<int64_t>> empty(1, std::vector<int64_t>(3, 0));
  keep_domain_outputs_on_chip(dag, {7, 7, 8}, 4, empty, s);
  EXPECT_EQ(s.on_chip, (std::vector<bool>{true, false, false, false}));
}

// Fig. 7 on a 3 x 3 mesh (engines 1..9 in snake order): atom 3-1 reads atoms 1-1 (engine 1) and
// 2-1 (engine 7) of the previous Round; the next Round holds 3 atoms of layer 1, 3 of layer 2
// and 3-1. Order 1->2->3 puts 3-1 on engine 7 (2 hops); order 1->3->2 on engine 4 (6 hops).
TEST(Mapping, Fig7HopCounts) {
  const DsaSpec spec = dsa_with_mesh(load_dsa_spec("atomic_mesh"), 3, 3, 16, 16);
  AtomicDag dag;
  dag.layers.resize(3);
  auto add_atom = [&](int layer) {
    Atom a;
    a.layer = layer;
    a.out_bytes = 1;
    dag.atoms.push_back(a);
    return static_cast<int>(dag.atoms.size()) - 1;
  };
  const int a11 = add_atom(0), a21 = add_atom(1);
  std::vector<int> next;
  for (int i = 0; i < 3; ++i) next.push_back(add_atom(0));
  for (int i = 0; i < 3; ++i) next.push_back(add_atom(1));
  const int a31 = add_atom(2);
  next.push_back(a31);
  dag.preds.assign(dag.atoms.size(), {});
  dag.preds[static_cast<size_t>(a31)] = {a11, a21};
  std::vector<int> engine_of(dag.atoms.size(), -1);
  const std::vector<MeshPoint> snake = snake_order(3, 3);
  auto flat = [&](int k) { return snake[static_cast<size_t>(k - 1)].y * 3 + snake[k - 1].x; };
  engine_of[static_cast<size_t>(a11)] = flat(1);
  engine_of[static_cast<size_t>(a21)] = flat(7);
  const std::vector<int> a = snake_placement(dag, spec, next, {0, 1, 2});
  const std::vector<int> b = snake_placement(dag, spec, next, {0, 2, 1});
  EXPECT_EQ(a.back(), flat(7));
  EXPECT_EQ(b.back(), flat(4));
  EXPECT_EQ(round_transfer_cost(dag, spec, next, a, engine_of), 2);
  EXPECT_EQ(round_transfer_cost(dag, spec, next, b, engine_of), 6);
}

TEST(AtomSearch, SameSeedSameShapesAndEnergyFalls) {
  const Graph g = build_zoo_model("test_residual_block");
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const auto options = shape_options(g, graph_layers(g), spec);
  const AnnealResult a = anneal_atom_shapes(options, {}, 3);
  const AnnealResult b = anneal_atom_shapes(options, {}, 3);
  EXPECT_EQ(a.choice, b.choice);
  EXPECT_EQ(a.energy, b.energy);
  ASSERT_FALSE(a.energy.empty());
  EXPECT_LE(a.energy.back(), a.energy.front());
  const std::vector<Layer> layers = graph_layers(g);
  for (size_t l = 0; l < layers.size(); ++l) {
    if (!layers[l].matrix) continue;
    for (const ShapeOption& o : options[l]) EXPECT_GT(o.cycles, 0);
  }
}

// One accounting of buffer bytes: the buffering keeps outputs on chip within what the DSA model
// accepts (no overflow; Inception-v3 on YX-P overflowed when the buffering took partial-sum
// homes to be the first slices and reserved half the buffer for the running atom), and keeps
// some on chip.
TEST(AtomBuffering, TheModelAcceptsEveryBufferedPlan) {
  for (const auto& [net, df] : {std::pair<std::string, DsaDataflow>{"resnet50", DsaDataflow::KC},
                                {"inception_v3", DsaDataflow::YX}}) {
    const Graph g = build_zoo_model(net, {.batch = 1});
    const DsaSpec spec = dsa_with_dataflow(load_dsa_spec("atomic_mesh"), df);
    const auto options = shape_options(g, graph_layers(g), spec);
    const AnnealResult sa = anneal_atom_shapes(options, {}, 1);
    const AtomicDag dag = build_atomic_dag(g, chosen_shapes(options, sa.choice), spec);
    const AtomSchedule s = schedule_atoms(g, dag, spec, {});
    EXPECT_GT(std::count(s.on_chip.begin(), s.on_chip.end(), true), 1000) << net;
    EXPECT_NO_THROW(evaluate_dsa_plan(g, atom_plan(g, dag, s, spec, "AD"), spec)) << net;
  }
}

// Two atoms of one shape touching no output edge may still read inputs of different sizes: a
// 7x7 convolution of stride 2 and padding 3 (ResNet's conv1) at output column 1 reads input
// columns -1..5, 6 of them, at column 8 columns 13..19, all 7. Each gets the DSA model's own
// working set of its tiled task (the tiling cache once gave column 8 column 1's, 60 bytes short
// here: a buffering that fitted it overflowed in the model).
TEST(AtomBuffering, TilingOfAnAtomIsItsOwnTask) {
  ModelBuilder b("conv7x7s2");
  int x = b.input("x", {1, 3, 32, 32});
  x = b.conv2d(x, 16, 7, /*stride=*/2, /*pad=*/3);
  const Graph g = b.finish({x});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  ASSERT_EQ(layers.size(), 1u);
  // One-column atoms of all 16 rows and 16 channels: 16 of them, by column.
  const AtomicDag dag = build_atomic_dag(g, {AtomShape{16, 1, 16, 0}}, spec);
  int col1 = -1, col8 = -1;
  for (int a : dag.atoms_of_layer[0]) {
    const Region& r = dag.atoms[static_cast<size_t>(a)].region;
    if (r[3].lo == 1) col1 = a;
    if (r[3].lo == 8) col8 = a;
  }
  ASSERT_GE(col1, 0);
  ASSERT_GE(col8, 0);
  constexpr size_t w = 3;  // the input's column axis (NCHW)
  EXPECT_EQ(input_regions(g, layers[0].op, dag.atoms[static_cast<size_t>(col1)].region)[0][w],
            (Interval{0, 6}));
  EXPECT_EQ(input_regions(g, layers[0].op, dag.atoms[static_cast<size_t>(col8)].region)[0][w],
            (Interval{13, 20}));
  AtomTilings tilings;
  std::vector<int64_t> ws;
  for (int a : {col1, col8}) {  // the clipped one first: it used to fill the shared entry
    const AtomTiling& tiling = tilings.of(g, dag, a, spec);
    Task t = atom_base_task(dag, a, spec, 0);
    if (!tiling.tile.empty()) {
      t.kind = TaskKind::Fused;
      t.tile = tiling.tile;
    }
    EXPECT_EQ(tiling.working_bytes, dsa_task_estimate(g, t, spec).working_set_bytes) << a;
    ws.push_back(tiling.working_bytes);
  }
  EXPECT_LT(ws[0], ws[1]);
}

// A chain of `convs` 3x3 convolutions of 16 output channels and padding 1 on a `batch` x 3 x 16 x
// 16 input.
Graph conv_chain(const std::string& name, int64_t batch, int convs) {
  ModelBuilder b(name);
  int x = b.input("x", {batch, 3, 16, 16});
  for (int i = 0; i < convs; ++i) x = b.conv2d(x, 16, 3, /*stride=*/1, /*pad=*/1);
  return b.finish({x});
}

// Expects `tiling` (AtomTilings::of atom `a`) to be the DSA model's own for the atom's task,
// computed without the cache: its tile (dsa_task_tile within half the buffer), and with that tile
// its working set and loaded bytes (dsa_task_estimate).
void expect_the_models_tiling(const Graph& g, const AtomicDag& dag, int a, const DsaSpec& spec,
                              const AtomTiling& tiling) {
  Task t = atom_base_task(dag, a, spec, 0);
  EXPECT_EQ(tiling.tile, dsa_task_tile(g, t, spec, spec.local_bytes / 2)) << "atom " << a;
  if (!tiling.tile.empty()) {
    t.kind = TaskKind::Fused;
    t.tile = tiling.tile;
  }
  const DsaTaskEstimate e = dsa_task_estimate(g, t, spec);
  EXPECT_EQ(tiling.working_bytes, e.working_set_bytes) << "atom " << a;
  EXPECT_EQ(tiling.loaded_bytes, e.loaded_bytes) << "atom " << a;
}

// Equal layers share their tilings (the cache keys an op by its contents, not its index) and each
// is still every atom's own: conv2 and conv3 below (16 -> 16 channels, 3x3, pad 1, on 16 x 16,
// both read by a later conv) get one entry per atom position; conv1 (3 input channels) and conv4
// (the graph's output) get their own; every atom's working set is the model's for its own task.
TEST(AtomBuffering, EqualLayersShareTheirTilings) {
  const Graph g = conv_chain("four_convs", 1, 4);
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  ASSERT_EQ(graph_layers(g).size(), 4u);
  const AtomicDag dag =
      build_atomic_dag(g, std::vector<AtomShape>(4, AtomShape{8, 8, 16, 0}), spec);
  AtomTilings tilings;
  const size_t per_layer = dag.atoms_of_layer[0].size();
  ASSERT_EQ(per_layer, 4u);
  for (size_t l = 0; l < 4; ++l) ASSERT_EQ(dag.atoms_of_layer[l].size(), per_layer);
  for (size_t i = 0; i < per_layer; ++i) {
    std::vector<const AtomTiling*> of_layer;
    for (size_t l = 0; l < 4; ++l) {
      const int a = dag.atoms_of_layer[l][i];
      const AtomTiling& tiling = tilings.of(g, dag, a, spec);
      of_layer.push_back(&tiling);
      expect_the_models_tiling(g, dag, a, spec, tiling);
    }
    EXPECT_EQ(of_layer[1], of_layer[2]) << i;
    EXPECT_NE(of_layer[0], of_layer[1]) << i;
    EXPECT_NE(of_layer[3], of_layer[2]) << i;
  }
}

// Atoms of one shape in the first, a middle and the last sample (batch 3) share one tiling: the
// batch slides (common/graph/sliding_axes.h), so their edges on it are not in the key; atoms at
// other rows and columns of one sample keep their own where padding clips them. Each is still
// the model's tiling of its own task, computed without the cache.
TEST(AtomBuffering, SamplesShareTheirTilings) {
  const Graph g = conv_chain("convs_batch3", 3, 2);
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const AtomicDag dag =
      build_atomic_dag(g, std::vector<AtomShape>(2, AtomShape{8, 8, 16, 0}), spec);
  AtomTilings tilings;
  std::map<std::vector<int64_t>, std::set<const AtomTiling*>> by_place;  // rows, columns
  std::set<const AtomTiling*> all;
  for (size_t l = 0; l < dag.atoms_of_layer.size(); ++l) {
    std::set<int64_t> samples;
    for (int a : dag.atoms_of_layer[l]) {
      const Atom& atom = dag.atoms[static_cast<size_t>(a)];
      ASSERT_EQ(atom.region[0].size(), 1) << "one sample per atom";
      samples.insert(atom.region[0].lo);
      const AtomTiling& tiling = tilings.of(g, dag, a, spec);
      by_place[{static_cast<int64_t>(l), atom.region[2].lo, atom.region[3].lo}].insert(&tiling);
      all.insert(&tiling);
      expect_the_models_tiling(g, dag, a, spec, tiling);
    }
    EXPECT_EQ(samples, (std::set<int64_t>{0, 1, 2})) << l;
  }
  ASSERT_EQ(by_place.size(), 8u);  // 2 layers x 4 places
  for (const auto& [place, shared] : by_place) EXPECT_EQ(shared.size(), 1u) << place[0];
  EXPECT_GT(all.size(), 2u);  // the places themselves differ (the halo clipped at either edge)
}

// The buffering keeps each atom's tiling (the shared cache's entry) with the schedule, and the plan
// on the same config takes it instead of looking it up again: the same entry, so the same plan as
// without it; on another config the plan looks its tilings up (and some differ there).
TEST(AtomBuffering, ScheduleKeepsEachAtomsTilingForThePlanOnItsConfig) {
  const Graph g = conv_chain("four_convs", 1, 4);
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const AtomicDag dag =
      build_atomic_dag(g, std::vector<AtomShape>(4, AtomShape{8, 16, 16, 0}), spec);
  const AtomSchedule s = schedule_atoms(g, dag, spec, {});
  ASSERT_EQ(s.tilings.size(), dag.atoms.size());
  AtomTilings tilings;
  for (size_t a = 0; a < dag.atoms.size(); ++a)
    EXPECT_EQ(s.tilings[a], &tilings.of(g, dag, static_cast<int>(a), spec)) << a;
  AtomSchedule looked_up = s;
  looked_up.tilings.clear();
  const DsaSpec small = dsa_with_local_bytes(spec, 4 * 1024);
  int differ = 0;
  for (const DsaSpec* on : {&spec, &small}) {
    const Plan kept = atom_plan(g, dag, s, *on, "AD");
    const Plan plain = atom_plan(g, dag, looked_up, *on, "AD");
    ASSERT_EQ(kept.stages.size(), plain.stages.size());
    for (size_t i = 0; i < kept.stages.size(); ++i) {
      ASSERT_EQ(kept.stages[i].tasks.size(), plain.stages[i].tasks.size());
      for (size_t k = 0; k < kept.stages[i].tasks.size(); ++k) {
        const Task& t = kept.stages[i].tasks[k];
        EXPECT_EQ(t.tile, plain.stages[i].tasks[k].tile) << i << ", " << k;
        EXPECT_EQ(t.kind, plain.stages[i].tasks[k].kind) << i << ", " << k;
        EXPECT_EQ(t.buffer_bytes, plain.stages[i].tasks[k].buffer_bytes) << i << ", " << k;
        if (on == &small)
          differ += t.tile != atom_plan(g, dag, s, spec, "AD").stages[i].tasks[k].tile;
      }
    }
  }
  EXPECT_GT(differ, 0);  // the small buffer's plan did not take the schedule's tilings
}

// A layer equal to an earlier one takes its options (all_shape_options prices equal layers once):
// on ResNet-50 (many equal bottleneck layers), every layer's options equal those of the layer
// priced alone.
TEST(AtomSearch, EqualLayersGetTheOptionsOfTheirOwnPricing) {
  const Graph g = build_zoo_model("resnet50", {.batch = 1});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  const auto all = all_shape_options(g, layers, spec);
  ASSERT_EQ(all.size(), layers.size());
  std::set<uint32_t> ops;
  size_t equal_to_earlier = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    equal_to_earlier += ops.insert(op_contents_id(g, layers[l].op)).second ? 0 : 1;
    const auto alone = all_shape_options(g, {layers[l]}, spec);
    ASSERT_EQ(alone[0].size(), all[l].size()) << l;
    for (size_t k = 0; k < all[l].size(); ++k) {
      const ShapeOption &a = all[l][k], &b = alone[0][k];
      EXPECT_TRUE(a.shape == b.shape && a.cycles == b.cycles &&
                  a.compute_cycles == b.compute_cycles && a.macs == b.macs && a.atoms == b.atoms &&
                  a.working_bytes == b.working_bytes)
          << l << ", " << k;
    }
  }
  EXPECT_GT(equal_to_earlier, 50u);
}

// Same seed, same plan: SA, the atomic DAG, the Rounds, mapping and buffering of ResNet-50 at
// batch 1 give the same plan JSON twice.
TEST(AtomSearch, SameSeedSamePlanOnResNet50) {
  const Graph g = build_zoo_model("resnet50", {.batch = 1});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  auto plan_json = [&](uint64_t seed) {
    const auto options = shape_options(g, graph_layers(g), spec);
    const AnnealResult sa = anneal_atom_shapes(options, {}, seed);
    const AtomicDag dag = build_atomic_dag(g, chosen_shapes(options, sa.choice), spec);
    return plan_to_json(atom_plan(g, dag, schedule_atoms(g, dag, spec, {}), spec, "AD"), g);
  };
  const std::string first = plan_json(1);
  EXPECT_EQ(first, plan_json(1));
  EXPECT_GT(first.size(), 1000u);
}

// The matrix-cycle utilisation of a DAG's matrix atoms: their MACs over their summed cycles at the
// array's peak.
double matrix_atom_utilisation(const AtomicDag& dag, const DsaSpec& spec) {
  double macs = 0, cycles = 0;
  for (const Atom& a : dag.atoms) {
    if (!dag.layers[static_cast<size_t>(a.layer)].matrix) continue;
    macs += a.macs;
    cycles += a.cycles;
  }
  return macs / (cycles * spec.matrix_macs_per_cycle);
}

// Target (1) of Sec. IV-A: every SA option of a matrix layer uses the array at least half as
// well as the layer's best option, so the SA atoms' matrix-cycle utilisation on ResNet-50 is at
// least half the even split's (whose atoms are no better than the layer's best). Without the
// half-performance rule the SA chose atoms of a few pixels per fold: 25% against the even
// split's 62%.
TEST(AtomSearch, SaAtomsUseTheArrayAtLeastHalfAsWellAsTheEvenSplit) {
  const Graph g = build_zoo_model("resnet50", {.batch = 1});
  const DsaSpec spec = load_dsa_spec("atomic_mesh");
  const std::vector<Layer> layers = graph_layers(g);
  const auto options = shape_options(g, layers, spec);
  for (size_t l = 0; l < layers.size(); ++l) {
    if (!layers[l].matrix) continue;
    double best = 0, worst = 1;
    for (const ShapeOption& o : options[l]) {
      best = std::max(best, option_utilisation(o, spec));
      worst = std::min(worst, option_utilisation(o, spec));
    }
    EXPECT_GE(2 * worst, best) << "layer " << l;
  }
  const AnnealResult sa = anneal_atom_shapes(options, {}, 1);
  const AtomicDag atoms = build_atomic_dag(g, chosen_shapes(options, sa.choice), spec);
  const AtomicDag even = build_atomic_dag(g, ls_shapes(g, layers, spec, 1), spec);
  EXPECT_GE(2 * matrix_atom_utilisation(atoms, spec), matrix_atom_utilisation(even, spec));
}

}  // namespace
}  // namespace dgs::atomic
