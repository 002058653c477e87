// The DSA model held against a public loop-nest cost model: every distinct conv/FC layer of
// ResNet-50 and VGG-19 on one engine of atomic_mesh (16 x 16 PEs, 128 KiB SRAM, 64-bit port, the
// engine's 4 B/cycle share of the HBM), priced by the suite and by ZigZag
// (data/validation/zigzag_atomic_engine.csv, written by tools/validate_dsa/zigzag_engine.py), under
// KC-P and YX-P. The tolerances are declared below (kTolerances) with what they cover; the
// README of tools/validate_dsa says where and why the two models differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/layer_split_plan.h"
#include "common/report/report.h"
#include "tests/dsamodel/ladder_fixture.h"

namespace dgs {
namespace {

struct Layer {
  std::string network, name, kind, dataflow;
  int64_t count = 1, k = 0, c = 0, oy = 0, ox = 0, fy = 0, fx = 0, stride = 1;
  int64_t pads[4] = {0, 0, 0, 0};  // top, left, bottom, right
  int64_t ih = 0, iw = 0;
  std::map<std::string, double> zz;  // ZigZag's metrics, by opt ("latency"/"energy") + column
};

std::vector<Layer> read_layers() {
  const PaperData d = PaperData::load("validation", "zigzag_atomic_engine.csv");
  std::map<std::string, Layer> by_key;
  std::vector<std::string> order;
  for (size_t r = 0; r < d.rows().size(); ++r) {
    const std::vector<std::string>& row = d.rows()[r];
    auto col = [&](const std::string& name) {
      const auto& cs = d.columns();
      return row[static_cast<size_t>(std::find(cs.begin(), cs.end(), name) - cs.begin())];
    };
    auto num = [&](const std::string& name) { return std::stod(col(name)); };
    const std::string key = col("network") + "/" + col("layer") + "/" + col("dataflow");
    Layer& l = by_key[key];
    if (l.name.empty()) {
      order.push_back(key);
      l.network = col("network");
      l.name = col("layer");
      l.kind = col("kind");
      l.dataflow = col("dataflow");
      l.count = static_cast<int64_t>(num("count"));
      l.k = static_cast<int64_t>(num("k"));
      l.c = static_cast<int64_t>(num("c"));
      l.oy = static_cast<int64_t>(num("oy"));
      l.ox = static_cast<int64_t>(num("ox"));
      l.fy = static_cast<int64_t>(num("fy"));
      l.fx = static_cast<int64_t>(num("fx"));
      l.stride = static_cast<int64_t>(num("stride"));
      l.pads[0] = static_cast<int64_t>(num("pad_top"));
      l.pads[1] = static_cast<int64_t>(num("pad_left"));
      l.pads[2] = static_cast<int64_t>(num("pad_bottom"));
      l.pads[3] = static_cast<int64_t>(num("pad_right"));
      l.ih = static_cast<int64_t>(num("ih"));
      l.iw = static_cast<int64_t>(num("iw"));
    }
    for (const char* m : {"latency_cycles", "array_cycles", "mac_pj", "register_pj", "sram_pj",
                          "dram_pj", "sram_bytes", "dram_bytes"})
      l.zz[col("opt") + "." + m] = num(m);
  }
  std::vector<Layer> out;
  for (const std::string& k : order) out.push_back(by_key[k]);
  return out;
}

Graph layer_graph(const Layer& l) {
  Graph g;
  g.name = l.name;
  if (l.kind == "fc") {
    const int x = g.add_input("x", {1, l.c});
    const int w = g.add_weight("w", {l.c, l.k});
    const int m = g.add_op(OpKind::MatMul, "fc", {x, w}, {}, 1, {"y"});
    g.mark_output(g.op(m).outputs[0]);
    return g;
  }
  const int x = g.add_input("x", {1, l.c, l.ih, l.iw});
  const int w = g.add_weight("w", {l.k, l.c, l.fy, l.fx});
  const int o =
      g.add_op(OpKind::Conv, "conv", {x, w},
               {{"kernel_shape", std::vector<int64_t>{l.fy, l.fx}},
                {"strides", std::vector<int64_t>{l.stride, l.stride}},
                {"pads", std::vector<int64_t>{l.pads[0], l.pads[1], l.pads[2], l.pads[3]}}},
               1, {"y"});
  g.mark_output(g.op(o).outputs[0]);
  return g;
}

struct Priced {
  double cycles = 0, mac = 0, registers = 0, sram = 0, dram = 0, dram_bytes = 0;
  double array_steps = 0;  // the array level's steps (array_nest.h)
  std::string nest;        // the buffer level's tile, loop order and reloads
};

Priced price(const Layer& l, const DsaSpec& spec) {
  const Graph g = layer_graph(l);
  Task t;
  t.kind = TaskKind::Fused;
  t.ops = {0};
  t.placement = dsa_unit_placement(spec, 0);
  t.tile = dsa_fitting_tile(g, t, spec, {0}, spec.local_bytes);
  Plan p;
  p.scheduler = "validation";
  p.stages.push_back(Stage{{t}});
  const EvaluationResult r = evaluate_dsa_plan(g, p, spec);
  Priced q;
  q.cycles = r.latency_us * spec.clock_mhz;
  q.mac = value_of(r.energy_pj_by_component, "mac");
  q.registers = value_of(r.energy_pj_by_component, "registers");
  q.sram = value_of(r.energy_pj_by_component, spec.local_level);
  q.dram = value_of(r.energy_pj_by_component, spec.dram_level);
  q.dram_bytes = value_of(r.bytes_by_level, spec.dram_level);
  const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
  q.nest = "tile";
  for (int64_t x : t.tile) q.nest += " " + std::to_string(x);
  q.nest += ", order " + d.loop_order + ", working set " + std::to_string(d.working_set_bytes) +
            ", reload";
  for (double x : d.reload) q.nest += " " + std::to_string(x).substr(0, 5);
  // The array level as the task's demand prices it (array_nest.h): each buffer tile its own
  // array nest, the steps summed over the tiles, the first tile's mapping (tools/validate_dsa
  // gives it to ZigZag).
  q.array_steps = d.matrix_cycles - d.fill_cycles;
  q.nest += ", array " + d.array_mapping + " steps " +
            std::to_string(static_cast<int64_t>(q.array_steps)) + ", tiles " +
            std::to_string(d.tiles);
  return q;
}

// What the test asserts: the goals and, where they are not reached, what is (declared,
// so that a change that moves the model further from ZigZag fails). Errors are |ours / ZigZag -
// 1| per distinct layer; totals weight each layer by its count in the network. The README of
// tools/validate_dsa gives each remaining gap and its reason; in short, our mapper searches every
// loop order at the array level (with the pixels and output channels split) and at the buffer
// level, where ZigZag's LOMA (lpf_limit 6) enumerates fewer, so ours often finds the faster
// mapping (given our array-level order, ZigZag prices layer2.0.conv3 at 229,856 cycles against its
// own search's 532,256; with lpf_limit 8 it finds 230,528 itself, in 495 s for the one layer).
struct Tolerance {
  const char* what;
  double goal;      // the issue's
  double declared;  // what the test asserts
};
// Since the array level runs each buffer tile as its own nest (folds rounded up per tile,
// array_nest.h: tiled_array_nest), tiles narrower than a fold no longer get the whole array, and
// the mapper trades some DRAM re-reads for fewer port bytes (README, gap 2). Since the partial
// sums between the buffer level's reduction chunks cross the port (array_nest.h; they were free,
// so the mapper chunked the reduction up to 64 times at no cost) and a register read stays across
// a loop of one trip: the median cycle errors fell (KC-P 0.276 to 0.126, YX-P 0.170 to 0.037),
// KC-P's SRAM energy 0.315 to 0.139 (the goal met) and YX-P's register energy 0.127 to 0.015;
// KC-P's register energy rose from 0.258 to 0.413 and YX-P's SRAM energy from 0.191 to 0.228:
// the mappings moved, and on the same mapping the two models agree (SameMappingAgainstZigZag);
// the own-search gaps are the mapping (README, gaps 3 and 5).
constexpr Tolerance kMedianCycleError[] = {{"kc", 0.10, 0.13}, {"yx", 0.10, 0.04}};
constexpr Tolerance kMedianDramError[] = {{"kc", 0.15, 0.19}, {"yx", 0.15, 0.09}};
constexpr Tolerance kMedianRegisterError[] = {{"kc", 0.15, 0.42}, {"yx", 0.15, 0.02}};
constexpr Tolerance kMedianSramError[] = {{"kc", 0.15, 0.14}, {"yx", 0.15, 0.23}};
// Network totals of cycles, ours / ZigZag's (goal: within 5%): declared per network, 0.02 below
// what is reached (KC-P: ResNet-50 0.817, VGG-19 0.779; YX-P: 0.425, 0.345), so that a change
// that makes ours faster still against ZigZag fails; ours is faster where ZigZag's search misses
// the mapping ours finds (README, gap 1). None may exceed kTotalCyclesHigh.
struct TotalBound {
  const char* key;  // dataflow/network/cycles
  double low;
};
constexpr TotalBound kTotalCyclesLow[] = {{"kc/resnet50/cycles", 0.80},
                                          {"kc/vgg19/cycles", 0.76},
                                          {"yx/resnet50/cycles", 0.40},
                                          {"yx/vgg19/cycles", 0.32}};
constexpr double kTotalCyclesHigh = 1.05;
// No layer slower than ZigZag's by more than this (ours / ZigZag's cycles; the slowest: KC-P's
// layer4.1.conv1 at 1.555 and layer4.1.conv2 at 1.532, 1.195 and 1.059 before the partial sums
// between reduction chunks were priced; YX-P's layer3.0.conv1 at 1.098). Their weights (1 MiB,
// 2.25 MiB) fit the buffer only in tiles, which this model double-buffers, so a tile of 16
// output channels needs the reduction in chunks; ZigZag single-buffers them and stalls (README,
// gap 5).
constexpr double kLayerSlowerAtMost = 1.56;
// Layers bound by DRAM (the FC layers at batch 1: every weight read once) agree on cycles.
constexpr double kDramBoundCycleError = 0.10;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TEST(DsaValidation, PerLayerAgainstZigZag) {
  const std::vector<Layer> layers = read_layers();
  ASSERT_FALSE(layers.empty());
  std::map<std::string, std::vector<double>> err;      // dataflow.metric -> errors per layer
  std::map<std::string, double> ours_total, zz_total;  // dataflow/network/metric
  for (const Layer& l : layers) {
    // One engine of the mesh with its equal share of the HBM, as the script sets ZigZag up.
    const DsaSpec spec =
        dsa_with_dataflow(ladder_engine(), l.dataflow == "kc" ? DsaDataflow::KC : DsaDataflow::YX);
    const Priced q = price(l, spec);
    const std::map<std::string, std::pair<double, double>> cmp = {
        {"cycles", {q.cycles, l.zz.at("EDP.latency_cycles")}},
        {"dram_bytes", {q.dram_bytes, l.zz.at("EDP.dram_bytes")}},
        {"register_pj", {q.registers, l.zz.at("EDP.register_pj")}},
        {"sram_pj", {q.sram, l.zz.at("EDP.sram_pj")}},
        {"dram_pj", {q.dram, l.zz.at("EDP.dram_pj")}},
        {"mac_pj", {q.mac, l.zz.at("EDP.mac_pj")}}};
    for (const auto& [m, v] : cmp) {
      err[l.dataflow + "." + m].push_back(std::abs(v.first / v.second - 1));
      ours_total[l.dataflow + "/" + l.network + "/" + m] += v.first * static_cast<double>(l.count);
      zz_total[l.dataflow + "/" + l.network + "/" + m] += v.second * static_cast<double>(l.count);
    }
    const double ratio = q.cycles / l.zz.at("EDP.latency_cycles");
    if (std::getenv("DGS_VALIDATION_LAYERS"))  // one line per layer: ours / ZigZag's
      std::printf(
          "layer %s %s %s x%lld: cycles %.3f dram_bytes %.3f dram_pj %.3f sram_pj %.3f "
          "register_pj %.3f (ours: %s)\n",
          l.dataflow.c_str(), l.network.c_str(), l.name.c_str(), static_cast<long long>(l.count),
          ratio, q.dram_bytes / l.zz.at("EDP.dram_bytes"), q.dram / l.zz.at("EDP.dram_pj"),
          q.sram / l.zz.at("EDP.sram_pj"), q.registers / l.zz.at("EDP.register_pj"),
          q.nest.c_str());
    EXPECT_LE(ratio, kLayerSlowerAtMost) << l.network << " " << l.name << " " << l.dataflow;
    if (l.kind == "fc") {
      EXPECT_NEAR(ratio, 1, kDramBoundCycleError) << l.name << " " << l.dataflow;
    }
    // The same MACs (the CSV keeps 6 significant digits).
    EXPECT_NEAR(q.mac / l.zz.at("EDP.mac_pj"), 1, 1e-5) << l.name;
  }
  auto check = [&](const Tolerance(&tol)[2], const std::string& metric) {
    for (const Tolerance& t : tol) {
      const double m = median(err.at(std::string(t.what) + "." + metric));
      std::printf("median error %s %s: %.3f (goal %.2f, declared %.2f)\n", t.what, metric.c_str(),
                  m, t.goal, t.declared);
      EXPECT_LE(m, t.declared) << t.what << " " << metric;
    }
  };
  check(kMedianCycleError, "cycles");
  check(kMedianDramError, "dram_bytes");
  check(kMedianRegisterError, "register_pj");
  check(kMedianSramError, "sram_pj");
  for (const auto& [k, v] : ours_total) {
    const double ratio = v / zz_total[k];
    std::printf("total %s: ours %.4g zigzag %.4g ratio %.3f\n", k.c_str(), v, zz_total[k], ratio);
    if (k.size() > 7 && k.substr(k.size() - 7) == "/cycles") {
      const std::string key = k;  // a structured binding cannot be captured (clang)
      const auto b = std::find_if(std::begin(kTotalCyclesLow), std::end(kTotalCyclesLow),
                                  [&key](const TotalBound& t) { return key == t.key; });
      ASSERT_NE(b, std::end(kTotalCyclesLow)) << k << ": no declared bound";
      EXPECT_GE(ratio, b->low) << k;
      EXPECT_LE(ratio, kTotalCyclesHigh) << k;
    }
  }
}

// The same mapping in both models: for the layers where the two disagree most (every
// layer/unrolling where ours reads more DRAM than ZigZag's own search, and the five largest cycle
// gaps), ZigZag priced the suite's own mapping (data/validation/zigzag_our_mappings.csv, written
// by tools/validate_dsa/zigzag_our_mappings.py: the buffer's tile loops outermost, the array's
// loops of one tile inside, ZigZag's memory allocator assigning them to its levels). What is
// asserted (declared; goals are the issue's):
//  - the array level agrees exactly where the mapping is one ZigZag loop nest (`exact` 1: every
//    tile whole folds of the array, or a whole dimension, and every trip count dividing its
//    dimension): ZigZag's temporal cycles of the mapping are our array steps. Where it is not
//    (a tile narrower than a fold, e.g. 14 x 7 pixels under YX-P), the script rounds the tile to
//    the dimension's folds, which ZigZag counts over the whole layer, while ours runs each tile as
//    its own nest with its folds rounded up (array_nest.h): ours has at least ZigZag's steps;
//  - DRAM bytes: the median error is within kSameMappingDramError (goal 0.15): where ZigZag's
//    own search read less, given our loop order it reads what we read (ResNet-50's KC-P
//    layer3.0.conv1, layer3.1.conv1, layer4.0.conv1: 1.35x, 1.26x, 1.45x of its own search's,
//    1.000x of the same mapping's);
//  - cycles: the median error is within kSameMappingCycleError. Not the goal (0.10): ZigZag
//    assigns the given loops to its memory levels itself, innermost first per operand, and
//    where it leaves an operand's loops at DRAM level (e.g. KC-P layer3.1.conv1: the weights go
//    from DRAM to the registers with no SRAM loop) it stalls the array on the 4 B/cycle port per
//    fold (3.39M of its 3.60M cycles); our buffer level keeps that tile in SRAM, double-buffered
//    (README, "The same mapping in both models").
constexpr double kSameMappingDramError = 0.02;
constexpr double kSameMappingCycleError = 0.05;
// Register and SRAM energy on the same mapping: the median error, and on the pairs given exactly
// the largest (the other pairs' register gaps, up to 0.56 under KC-P, are the script's rounding
// of our inner pixel loop, e.g. 16 pixels of a 7 x 7 tile, which it drops: ZigZag's nest then
// reads a weight from its register every step where ours keeps it for 16).
constexpr double kSameMappingRegisterError = 0.01, kSameMappingSramError = 0.03;
constexpr double kSameMappingExactRegisterError = 0.02, kSameMappingExactSramError = 0.06;

TEST(DsaValidation, SameMappingAgainstZigZag) {
  const PaperData d = PaperData::load("validation", "zigzag_our_mappings.csv");
  std::map<std::string, Layer> layers;
  for (const Layer& l : read_layers()) layers[l.network + "/" + l.name + "/" + l.dataflow] = l;
  std::vector<double> cycle_err, dram_err, register_err, sram_err;
  size_t exact = 0;
  for (const std::vector<std::string>& row : d.rows()) {
    auto col = [&](const std::string& name) {
      const auto& cs = d.columns();
      return row.at(static_cast<size_t>(std::find(cs.begin(), cs.end(), name) - cs.begin()));
    };
    const Layer& l = layers.at(col("network") + "/" + col("layer") + "/" + col("dataflow"));
    const DsaSpec spec =
        dsa_with_dataflow(ladder_engine(), l.dataflow == "kc" ? DsaDataflow::KC : DsaDataflow::YX);
    const Priced q = price(l, spec);
    const double zz_cycles = std::stod(col("latency_cycles"));
    const double zz_dram = std::stod(col("dram_bytes"));
    const double steps = q.array_steps / std::stod(col("array_cycles"));
    const double registers = q.registers / std::stod(col("register_pj"));
    const double sram = q.sram / std::stod(col("sram_pj"));
    register_err.push_back(std::abs(registers - 1));
    sram_err.push_back(std::abs(sram - 1));
    if (col("exact") == "1") {
      EXPECT_NEAR(steps, 1, 1e-5) << l.name << " " << l.dataflow;
      EXPECT_NEAR(registers, 1, kSameMappingExactRegisterError) << l.name << " " << l.dataflow;
      EXPECT_NEAR(sram, 1, kSameMappingExactSramError) << l.name << " " << l.dataflow;
      ++exact;
    }
    EXPECT_GE(steps, 1 - 1e-5) << l.name << " " << l.dataflow;
    cycle_err.push_back(std::abs(q.cycles / zz_cycles - 1));
    dram_err.push_back(std::abs(q.dram_bytes / zz_dram - 1));
    if (col("why") == "dram_more") {  // ours reads more than ZigZag's own search: the selection
      EXPECT_GT(q.dram_bytes / l.zz.at("EDP.dram_bytes"), 1.005) << l.name << " " << l.dataflow;
    }
    if (std::getenv("DGS_VALIDATION_LAYERS"))
      std::printf(
          "same mapping %s %s %s: cycles %.3f (own search %.3f) dram_bytes %.3f (%.3f) "
          "array_steps %.3f exact %s register_pj %.3f (%.3f) sram_pj %.3f (%.3f)\n",
          l.dataflow.c_str(), l.network.c_str(), l.name.c_str(), q.cycles / zz_cycles,
          q.cycles / l.zz.at("EDP.latency_cycles"), q.dram_bytes / zz_dram,
          q.dram_bytes / l.zz.at("EDP.dram_bytes"), steps, col("exact").c_str(), registers,
          q.registers / l.zz.at("EDP.register_pj"), sram, q.sram / l.zz.at("EDP.sram_pj"));
  }
  ASSERT_GE(cycle_err.size(), 10u);
  std::printf(
      "same mapping, %zu layers (%zu exact): median cycle error %.3f (declared %.2f), median "
      "DRAM-byte error %.3f (declared %.2f)\n",
      cycle_err.size(), exact, median(cycle_err), kSameMappingCycleError, median(dram_err),
      kSameMappingDramError);
  std::printf(
      "same mapping: median register-energy error %.3f (declared %.2f), median SRAM-energy "
      "error %.3f (declared %.2f)\n",
      median(register_err), kSameMappingRegisterError, median(sram_err), kSameMappingSramError);
  EXPECT_LE(median(dram_err), kSameMappingDramError);
  EXPECT_LE(median(cycle_err), kSameMappingCycleError);
  EXPECT_LE(median(register_err), kSameMappingRegisterError);
  EXPECT_LE(median(sram_err), kSameMappingSramError);
}

// The tile search's floors (dsa_fitting_tile: the floor of the output tile's volume, and each
// candidate's own floor of its loops' loads) skip only candidates that pricing would not choose:
// on every layer here, under both dataflows, with the whole buffer, half of it (as the atom
// tasks ask) and a quarter, its tile is the one that pricing every candidate in the search's
// order (the whole part, then by volume; dsa_task_demand, each with its buffer nest's best
// mapping) gives, skipping only those at least as large on every axis as one priced over the
// budget (dsa_task.h), and taking the least energy x cycles among those that fit (ties: the
// fewer tiles, the smaller working set, the earlier). (Pricing every candidate without that
// rule chooses otherwise on some layers with a quarter of the buffer: a larger tile's working set
// is not always larger, since the mapping with the least energy x cycles within the buffer is
// the one whose working set counts.)
std::vector<int64_t> every_candidate_priced(const Graph& g, Task t, const DsaSpec& spec,
                                            int64_t budget) {
  const Shape whole = g.tensor(g.op(t.ops[0]).outputs[0]).shape;
  std::vector<std::vector<int64_t>> cands(1);
  for (int64_t e : whole) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& c : cands)
      for (int64_t x = e;; x = (x + 1) / 2) {
        next.push_back(c);
        next.back().push_back(x);
        if (x == 1) break;
      }
    cands = std::move(next);
  }
  auto volume = [](const std::vector<int64_t>& c) {
    double v = 1;
    for (int64_t x : c) v *= static_cast<double>(x);
    return v;
  };
  std::stable_sort(cands.begin(), cands.end(),
                   [&](const auto& x, const auto& y) { return volume(x) < volume(y); });
  cands.insert(cands.begin(), std::vector<int64_t>(whole.begin(), whole.end()));
  std::vector<int64_t> best;
  double best_edp = 0;
  int64_t best_tiles = 0, best_ws = 0;
  std::vector<std::vector<int64_t>> over;
  for (const std::vector<int64_t>& c : cands) {
    const bool skip = std::any_of(over.begin(), over.end(), [&](const auto& o) {
      for (size_t a = 0; a < c.size(); ++a)
        if (c[a] < o[a] || (c[a] == whole[a] && o[a] != whole[a])) return false;
      return true;
    });
    if (skip) continue;
    t.tile = c;
    const DsaTaskDemand d = dsa_task_demand(g, t, spec, {0});
    if (d.working_set_bytes > budget) {
      over.push_back(c);
      continue;
    }
    const double edp = d.nest_cycles * d.nest_energy_pj;
    if (best.empty() || edp < best_edp ||
        (edp == best_edp &&
         (d.tiles < best_tiles || (d.tiles == best_tiles && d.working_set_bytes < best_ws)))) {
      best = c;
      best_edp = edp;
      best_tiles = d.tiles;
      best_ws = d.working_set_bytes;
    }
  }
  return best;
}

TEST(DsaValidation, TheTileSearchsBoundsSkipOnlyTilesItWouldNotChoose) {
  const std::vector<Layer> layers = read_layers();
  ASSERT_FALSE(layers.empty());
  int pairs = 0;
  for (const Layer& l : layers) {
    const DsaSpec spec =
        dsa_with_dataflow(ladder_engine(), l.dataflow == "kc" ? DsaDataflow::KC : DsaDataflow::YX);
    const Graph g = layer_graph(l);
    Task t;
    t.kind = TaskKind::Fused;
    t.ops = {0};
    t.placement = dsa_unit_placement(spec, 0);
    for (const int64_t budget : {spec.local_bytes, spec.local_bytes / 2, spec.local_bytes / 4}) {
      const std::vector<int64_t> reference = every_candidate_priced(g, t, spec, budget);
      if (reference.empty()) continue;  // none fits: the search's fallback is another rule
      EXPECT_EQ(dsa_fitting_tile(g, t, spec, {0}, budget), reference)
          << l.network << " " << l.name << " " << l.dataflow << " budget " << budget;
      ++pairs;
    }
  }
  EXPECT_GE(pairs, 200);
}

}  // namespace
}  // namespace dgs
