// The DSA model held against a public loop-nest cost model: every distinct conv/FC layer of
// ResNet-50 and VGG-19 on one engine of atomic_mesh (16 x 16 PEs, 128 KiB SRAM, 64-bit port, the
// engine's 4 B/cycle share of the HBM), priced by the suite and by ZigZag
// on its own search's mapping (data/validation/zigzag_atomic_engine.csv, written by
// tools/validate_dsa/zigzag_engine.py) and on ours (zigzag_our_mappings.csv, by
// zigzag_our_mappings.py), under KC-P and YX-P. What is asserted is declared below (kDeclared and
// the bounds beside each test); the README of tools/validate_dsa says where and why the two
// models differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common/dsamodel/dsa_model.h"
#include "common/dsamodel/dsa_task.h"
#include "common/dsamodel/dsa_task_internal.h"
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
                          "dram_pj", "energy_pj", "sram_bytes", "dram_bytes"})
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
  q.array_steps = d.matrix_cycles - d.fill_cycles - d.refill_stall;
  q.nest += ", array " + d.array_mapping + " steps " +
            std::to_string(static_cast<int64_t>(q.array_steps)) + ", tiles " +
            std::to_string(d.tiles);
  return q;
}

// One layer/unrolling pair, priced by the suite and by ZigZag twice: on ZigZag's own search's
// mapping (zigzag_atomic_engine.csv) and on the suite's mapping given to ZigZag
// (zigzag_our_mappings.csv, written by tools/validate_dsa/zigzag_our_mappings.py for every pair:
// the buffer's tile loops outermost, the array's loops of one tile inside, ZigZag's memory
// allocator assigning them to its levels). `exact`: the suite's mapping is one ZigZag loop nest
// (every tile whole folds of the array or a whole dimension, every trip count dividing its
// dimension); otherwise the script rounds it (tools/validate_dsa/README.md: a tile narrower than
// a fold counted in the dimension's folds, where ours runs each tile as its own nest, its folds
// rounded up, array_nest.h; an inner pixel loop that does not divide the tile's pixels dropped;
// a trip count that does not divide its dimension its nearest divisor below).
struct Pair {
  Layer layer;
  Priced ours;
  std::map<std::string, double> own, same;  // ZigZag's, by quantity (kQuantities)
  // ZigZag's on the mapping of the lower energy x cycles by ZigZag (its own objective): its own
  // search's or ours; `best_is_ours` when ours.
  std::map<std::string, double> best;
  bool best_is_ours = false;
  bool exact = false;
  double same_array_cycles = 0;      // ZigZag's temporal cycles of our mapping
  double own_edp = 0, same_edp = 0;  // ZigZag's energy x cycles (its opt="EDP")
};

// The quantities compared (DRAM energy is DRAM bytes x 7 pJ/bit in both, MAC energy the MACs x
// 0.3 pJ: checked per pair).
constexpr const char* kQuantities[] = {"cycles", "dram_bytes", "register_pj", "sram_pj"};

double quantity(const Priced& q, const std::string& what) {
  if (what == "cycles") return q.cycles;
  if (what == "dram_bytes") return q.dram_bytes;
  if (what == "register_pj") return q.registers;
  return q.sram;
}

std::map<std::string, double> zigzag_quantities(const std::map<std::string, double>& csv,
                                                const std::string& prefix) {
  return {{"cycles", csv.at(prefix + "latency_cycles")},
          {"dram_bytes", csv.at(prefix + "dram_bytes")},
          {"register_pj", csv.at(prefix + "register_pj")},
          {"sram_pj", csv.at(prefix + "sram_pj")},
          {"dram_pj", csv.at(prefix + "dram_pj")},
          {"mac_pj", csv.at(prefix + "mac_pj")}};
}

const std::vector<Pair>& pairs() {
  static const std::vector<Pair> all = [] {
    std::map<std::string, Pair> by_key;
    std::vector<std::string> order;
    for (const Layer& l : read_layers()) {
      const std::string key = l.network + "/" + l.name + "/" + l.dataflow;
      Pair& p = by_key[key];
      order.push_back(key);
      p.layer = l;
      const DsaSpec spec = dsa_with_dataflow(
          ladder_engine(), l.dataflow == "kc" ? DsaDataflow::KC : DsaDataflow::YX);
      p.ours = price(l, spec);
      p.own = zigzag_quantities(l.zz, "EDP.");
      p.own_edp = l.zz.at("EDP.energy_pj") * l.zz.at("EDP.latency_cycles");
    }
    const PaperData d = PaperData::load("validation", "zigzag_our_mappings.csv");
    for (const std::vector<std::string>& row : d.rows()) {
      auto col = [&](const std::string& name) {
        const auto& cs = d.columns();
        return row.at(static_cast<size_t>(std::find(cs.begin(), cs.end(), name) - cs.begin()));
      };
      Pair& p = by_key.at(col("network") + "/" + col("layer") + "/" + col("dataflow"));
      std::map<std::string, double> csv;
      for (const char* m : {"latency_cycles", "array_cycles", "mac_pj", "register_pj", "sram_pj",
                            "dram_pj", "energy_pj", "dram_bytes"})
        csv[m] = std::stod(col(m));
      p.same = zigzag_quantities(csv, "");
      p.same_array_cycles = csv.at("array_cycles");
      p.same_edp = csv.at("energy_pj") * csv.at("latency_cycles");
      p.exact = col("exact") == "1";
    }
    std::vector<Pair> out;
    for (const std::string& k : order) {
      Pair& p = by_key.at(k);
      p.best_is_ours = !p.same.empty() && p.same_edp < p.own_edp;
      p.best = p.best_is_ours ? p.same : p.own;
      out.push_back(p);
    }
    return out;
  }();
  return all;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Per dataflow and quantity, on one basis (ZigZag's own search, the same mapping, or ZigZag's best
// known mapping: the lower energy x cycles by ZigZag of the two): the median
// over the pairs of |ours / ZigZag's - 1| ("kc.cycles.median") and, per network, |ours / ZigZag's
// - 1| of the totals, each layer weighted by its count in the network ("kc.cycles.resnet50"; the
// ratio itself under "kc.cycles.resnet50.ratio").
enum class Basis { Own, Same, Best };
std::map<std::string, double> errors(Basis basis, bool exact_only) {
  std::map<std::string, std::vector<double>> per_layer;
  std::map<std::string, double> ours_total, zz_total, out;
  for (const Pair& p : pairs()) {
    if (exact_only && !p.exact) continue;
    const auto& zz = basis == Basis::Own ? p.own : basis == Basis::Same ? p.same : p.best;
    for (const char* m : kQuantities) {
      const std::string k = p.layer.dataflow + "." + m;
      const double ours = quantity(p.ours, m);
      const double count = static_cast<double>(p.layer.count);
      per_layer[k].push_back(std::abs(ours / zz.at(m) - 1));
      ours_total[k + "." + p.layer.network] += ours * count;
      zz_total[k + "." + p.layer.network] += zz.at(m) * count;
    }
  }
  for (const auto& [k, v] : per_layer) out[k + ".median"] = median(v);
  for (const auto& [k, v] : ours_total) {
    out[k] = std::abs(v / zz_total.at(k) - 1);
    out[k + ".ratio"] = v / zz_total.at(k);  // printed: ours faster or slower
  }
  return out;
}

// What the test asserts, declared once: per dataflow, quantity and statistic (the per-layer
// median of |ours / ZigZag's - 1|, or a network's count-weighted total), the goal and the
// error declared on each basis (what is reached, rounded up, so that a change that moves the
// model further from ZigZag fails). The goals: cycles per layer (median) under 10% and
// network totals within 5% under KC-P (YX-P reported against the same numbers); DRAM bytes and
// the energy per level within 15%. On ZigZag's own search the two models price different
// mappings (each its own search's, by the same objective, energy x cycles); on the same mapping
// they price one, so a gap there is a disagreement of the cost models. tools/validate_dsa/README.md
// gives each gap and its reason.
// On the merged model of issue #23 (tasks mapped within their capacity with the reduction loop
// anywhere, single-buffered tiles, each reduction-chunk count priced on its own nest), KC-P's
// own-search errors are the two searches choosing different mappings. With KC-P's sliding input
// window (array_nest.h; README (d)) and ZigZag's LOMA at lpf_limit 6, 7 and 8 on all 36 KC-P
// pairs (per pair its lower energy x cycles; README, "ZigZag's search effort") ours is 0.910 of
// its cycles on ResNet-50 (0.952 before the window; 0.804 with it against LOMA at 8 on 11 pairs
// only; 0.841, 0.767 and 0.672 before both: layer3.1.conv1, x5, 0.566, unmoved at 8, and
// layer3.0.conv2, 0.554) and 0.923 on VGG-19 (1.013 before the window, 0.918 with it at 8 on 11;
// 1.008, 0.923, 0.549: features.21, x3, 0.750, features.28, x4, 0.787): with the window ours is
// the faster on most 3x3 layers. With windows of any OX_b that divides the row (7 columns on 7-,
// 14-, 28- and 56-wide rows; README (d)), 0.895 and 0.874 (13 KC-P 3x3 pairs take OX_b = 7:
// features.21 0.706, features.28 0.700, layer3.1.conv2, x5, 0.848), and on the same mapping
// ZigZag's cycles of our new mappings are 1/0.922 of ours on VGG-19 (1/1.008 before): its
// register files double-buffered only at half their size stall their refills (features.10: a
// PE's weights 144 of 224, (4,608 - 1,008) x 255 = 918,000 stall cycles, where the mapping before
// held 72 and its 239,436 were the port's total; before ours charged the refill stall: 0.998
// with ZigZag's registers double-buffered, 0.992 with their spare registers prefetching, ours
// lacking a refill stall of 6-7% on features.10, .7 and layer2.1.conv2; today's values are in
// README (g)). With that stall in ours (array_nest.h, README
// (g): the 2w - R of a set of w in R registers wait for the last pass; features.10 265,200 cycles
// where ZigZag's rule gives 918,000) ours is 0.918 and 0.884 of ZigZag's own search's cycles
// (layer3.1.conv2, x5, and layer3.0.conv2 take other tiles) and 0.983 and 0.932 of its cycles on
// the same mapping. ZigZag is the faster on four KC-P pairs (kOwnSearchFaster). YX-P: against LOMA
// at lpf_limit 6 and 7 (all 36 pairs) ours is 0.421 and 0.482 of its cycles (0.412 and 0.346 at 6
// alone), and 0.737 of its DRAM bytes on VGG-19 (0.982 at 6: at 7 ZigZag's features.21, x3, takes
// 0.41 of its cycles at 6 and reads 54.1 MB from DRAM where it read 20.4). `best`: ZigZag's best
// known mapping, per pair the lower energy x cycles by ZigZag of its own search's and ours (ours on
// 35 of the 72 pairs: 20 of the 36 KC-P, 18 with windows of powers of two only, 15 before the
// window, 23 with it at 8 on 11 pairs; 15 of the 36 YX-P, 17 at lpf 6). On the same mapping: YX-P
// ResNet-50 DRAM bytes 0.729, the script's rounding (i) on layer3.1.conv1 and layer4.0.conv1 (a 14
// x 7 tile one fold of ZigZag's whole 14 x 14 nest: no pixel loop, so ZigZag re-reads the whole
// input from DRAM per output-channel loop); SRAM energy, ZigZag's partial-sum words (e in the
// README: every chunk read and written at 32 bits, ours 7 bytes less per output) and word accesses
// (c).
struct Declared {
  const char* key;  // dataflow.quantity.statistic
  double goal;      // the issue's
  double own;       // declared, ZigZag's own search
  double same;      // declared, the same mapping (all 72 pairs)
  double best;      // declared, ZigZag's best known mapping (its own search's or ours, by its EDP)
};
// kc.register_pj.resnet50 (own 0.12, same 0.13, best 0.09; 0.06, 0.14, 0.01 with windows of
// powers of two): ours is 0.883 of ZigZag's register energy on its own search, 0.876 on the same
// mapping, 0.917 on its best known. Own: the 1x1 pairs where ours reads the registers less on
// another mapping, layer4.0.conv3 (x3, 0.547 of ZigZag's), layer1.0.downsample.0 (x4, 0.710),
// layer4.0.downsample.0 (0.472), layer1.1.conv1 (x2, 0.542), layer2.0.conv1 (0.548), each 0.017-
// 0.026 off the total; with windows of any OX_b the 3x3 pairs that were above ZigZag's (0.98-1.48)
// came to 0.98-1.03 and no longer offset them (why ours is lower on those 1x1 mappings: not
// checked). Same: those pairs again and layer3.0.conv2, whose tiles changed with the refill stall
// (not exact, ours 0.544 of ZigZag's register energy, 0.019 off the total; not checked byte by
// byte). Best: per pair the own or the same mapping's ratio, so the same pairs.
constexpr Declared kDeclared[] = {
    {"kc.cycles.median", 0.10, 0.08, 0.04, 0.07},
    {"kc.cycles.resnet50", 0.05, 0.09, 0.02, 0.01},
    {"kc.cycles.vgg19", 0.05, 0.12, 0.07, 0.06},
    {"yx.cycles.median", 0.10, 0.09, 0.04, 0.02},
    {"yx.cycles.resnet50", 0.05, 0.58, 0.05, 0.01},
    {"yx.cycles.vgg19", 0.05, 0.52, 0.04, 0.02},
    {"kc.dram_bytes.median", 0.15, 0.08, 0.01, 0.01},
    {"kc.dram_bytes.resnet50", 0.15, 0.12, 0.02, 0.08},
    {"kc.dram_bytes.vgg19", 0.15, 0.18, 0.01, 0.02},
    {"yx.dram_bytes.median", 0.15, 0.01, 0.01, 0.01},
    {"yx.dram_bytes.resnet50", 0.15, 0.06, 0.28, 0.05},
    {"yx.dram_bytes.vgg19", 0.15, 0.27, 0.04, 0.04},
    {"kc.register_pj.median", 0.15, 0.03, 0.01, 0.01},
    {"kc.register_pj.resnet50", 0.15, 0.12, 0.13, 0.09},
    {"kc.register_pj.vgg19", 0.15, 0.01, 0.01, 0.01},
    {"yx.register_pj.median", 0.15, 0.01, 0.01, 0.01},
    {"yx.register_pj.resnet50", 0.15, 0.05, 0.01, 0.01},
    {"yx.register_pj.vgg19", 0.15, 0.11, 0.01, 0.01},
    {"kc.sram_pj.median", 0.15, 0.12, 0.01, 0.02},
    {"kc.sram_pj.resnet50", 0.15, 0.14, 0.01, 0.04},
    {"kc.sram_pj.vgg19", 0.15, 0.19, 0.04, 0.04},
    {"yx.sram_pj.median", 0.15, 0.27, 0.05, 0.03},
    {"yx.sram_pj.resnet50", 0.15, 0.67, 0.09, 0.02},
    {"yx.sram_pj.vgg19", 0.15, 0.73, 0.11, 0.02},
};

// No layer slower than ZigZag's own search by more than this (ours / ZigZag's cycles; the
// slowest: KC-P's classifier.6, 1.075, and fc, 1.072, ZigZag's timing, README (b); KC-P's
// layer4.1.conv1 and layer4.1.conv2 were 1.555 and 1.532 before issue #23's changes, README gap 6).
constexpr double kLayerSlowerAtMost = 1.08;
// Declared apart: pairs where ZigZag's own search at lpf_limit 7 or 8 (README, "ZigZag's search
// effort") found a mapping faster than ours, ours / ZigZag's cycles at most this (YX-P's conv1
// at 7: 472,767 cycles where its mapping at 6 took 1,853,610).
struct SlowerPair {
  const char* layer;
  const char* dataflow;
  double ratio;  // declared
};
// Since kc's sliding input window (array_nest.h; README (d)) the five 3x3 pairs declared here
// for ZigZag's sums kept through the reduction are within the bound above (ours / ZigZag's:
// layer2.1.conv2 1.344 -> 1.042, features.10 1.268 -> 1.034, features.19 1.159 -> 0.962,
// layer3.1.conv2 1.094 -> 0.957; layer2.0.conv2 1.133 -> 0.717, its ZigZag row at lpf 8 a lower
// energy x cycles at more cycles). The window does not move the three 1x1 and 3x3 pairs where
// ZigZag's search at lpf 8 is faster. With windows of any OX_b (7 output columns on 7-, 14-, 28-
// and 56-wide rows, not only powers of two) VGG-19's features.12 is within it too (1.082 ->
// 0.969: P7 K1 FX3 on 28 x 14 tiles where P8 on 4 x 56). With the register-refill stall
// (array_nest.h) ResNet-50's layer2.1.conv2 is over it again (1.039 -> 1.109): ours keeps P7 K2
// (144 weights a PE of 224, 6.7% of refill stall), ZigZag's mapping at lpf 7 holds 72 (C8 FX3
// FY3 under OX7), double-buffered; why our search keeps K2 (energy x cycles) is not checked
// (a likely reason, not checked against the model: on the CTPK order K1 re-reads each input
// window once per output-channel fold, doubling the inputs' port bytes; a hand count on
// features.10's tile, P7 K2 FX3 CTPK: K1's port 273,536 B = 34,192 cycles, K2's 28,224 steps and
// 1,040 of stall).
constexpr SlowerPair kOwnSearchFaster[] = {
    {"layer3.0.downsample.0", "kc", 1.23},  // 1.226: lpf_limit 8
    {"layer4.1.conv1", "kc", 1.13},         // 1.121: lpf_limit 8
    {"layer4.0.conv2", "kc", 1.09},         // 1.081: lpf_limit 8
    {"layer2.1.conv2", "kc", 1.11},         // 1.109 (1.039 before the refill stall): lpf 7
    {"conv1", "yx", 1.14},                  // 1.132 (0.289 at lpf 6): lpf 7
    {"layer3.0.conv2", "yx", 1.13},         // 1.122 (1.000 at lpf 6): lpf 7
};
// Layers bound by DRAM (the FC layers at batch 1: every weight read once) agree on cycles.
constexpr double kDramBoundCycleError = 0.10;

TEST(DsaValidation, PerLayerAgainstZigZag) {
  ASSERT_EQ(pairs().size(), 72u);
  for (const Pair& p : pairs()) {
    const Layer& l = p.layer;
    const Priced& q = p.ours;
    const double ratio = q.cycles / p.own.at("cycles");
    if (std::getenv("DGS_VALIDATION_LAYERS"))  // one line per layer: ours / ZigZag's
      std::printf(
          "layer %s %s %s x%lld: cycles %.3f dram_bytes %.3f dram_pj %.3f sram_pj %.3f "
          "register_pj %.3f (ours: %s)\n",
          l.dataflow.c_str(), l.network.c_str(), l.name.c_str(), static_cast<long long>(l.count),
          ratio, q.dram_bytes / p.own.at("dram_bytes"), q.dram / p.own.at("dram_pj"),
          q.sram / p.own.at("sram_pj"), q.registers / p.own.at("register_pj"), q.nest.c_str());
    double slower = kLayerSlowerAtMost;
    for (const SlowerPair& f : kOwnSearchFaster)
      if (l.name == f.layer && l.dataflow == f.dataflow) slower = f.ratio;
    EXPECT_LE(ratio, slower) << l.network << " " << l.name << " " << l.dataflow;
    if (l.kind == "fc") {
      EXPECT_NEAR(ratio, 1, kDramBoundCycleError) << l.name << " " << l.dataflow;
    }
    // The same MACs (the CSV keeps 6 significant digits), and DRAM energy is DRAM bytes x 7 pJ/bit
    // in both.
    EXPECT_NEAR(q.mac / p.own.at("mac_pj"), 1, 1e-5) << l.name;
    EXPECT_NEAR(q.dram / q.dram_bytes / (p.own.at("dram_pj") / p.own.at("dram_bytes")), 1, 1e-5)
        << l.name;
  }
}

// The same mapping, pair by pair: the array level agrees exactly where the mapping is one ZigZag
// loop nest (ZigZag's temporal cycles are our array steps; register and SRAM energy within the
// bounds below); elsewhere (a tile narrower than a fold, rounded by the script) ours has at least
// ZigZag's steps. The SRAM energy of an exact pair differs where (tools/validate_dsa/README.md):
//  (c) ZigZag charges a whole 64-bit word of the SRAM's port for a narrower transfer
//   (cost_model.py, _calc_memory_access) and ours the bytes: VGG-19's classifier.0 under YX-P,
//   whose nest (K16 C3136 K256 C8) holds one input at the register level, so ZigZag reads a word
//   per input byte (ours 0.825); 49 inputs of a 7 x 7 fold in 7 words (ours 0.92 on ResNet-50's
//   layer4.0.downsample.0 and layer4.0.conv3 under YX-P, within the default);
//  (e) the reduction chunks at the SRAM level: ZigZag reads every output's partial sum back and
//   writes it at 32 bits once per chunk (the first and the last too), ours writes it after every
//   chunk but the last, reads it back in the next and writes the output once at 8 bits: 7 bytes
//   less per output (layer3.1.conv1 under KC-P, order 23>R>1 in 2 chunks: 351,232 bytes, the
//   whole gap, ours 0.882; layer4.0.conv1 0.882; VGG-19's features.19 under KC-P, order
//   23>R>1, 0.911, not checked byte by byte; layer2.0.conv2, 0.883 at 1>R>3, is at 1.000 on its
//   mapping with the sliding window, 23>1); with (c) on ResNet-50's layer4.1.conv1 under YX-P
//   (0.915: 175,616 bytes of partial sums, 458,752 of words).
constexpr double kSameMappingExactRegisterError = 0.02, kSameMappingExactSramError = 0.08;
struct SramDifference {
  const char* layer;
  const char* dataflow;
  double sram_error;  // declared
};
constexpr SramDifference kSameMappingSramDifferences[] = {
    {"classifier.0", "yx", 0.18},    // word accesses (c)
    {"features.12", "kc", 0.09},     // 0.914: order R>1>23, as features.19 (e)
    {"features.19", "kc", 0.09},     // partial sums at 32 bits (e), order 23>R>1
    {"layer4.1.conv2", "kc", 0.09},  // 1.080, ours the higher: order R>1, not checked byte by byte
    {"layer3.1.conv1", "kc", 0.12},  // partial sums at 32 bits (e)
    {"layer4.0.conv1", "kc", 0.12},  // partial sums at 32 bits (e)
    {"layer4.1.conv1", "yx", 0.09},  // partial sums at 32 bits (e) and word accesses (c)
};
TEST(DsaValidation, SameMappingAgainstZigZag) {
  size_t priced = 0, exact = 0;
  for (const Pair& p : pairs()) {
    if (p.same.empty()) continue;
    ++priced;
    const Layer& l = p.layer;
    const Priced& q = p.ours;
    const double steps = q.array_steps / p.same_array_cycles;
    const double registers = q.registers / p.same.at("register_pj");
    const double sram = q.sram / p.same.at("sram_pj");
    if (p.exact) {
      EXPECT_NEAR(steps, 1, 1e-5) << l.name << " " << l.dataflow;
      EXPECT_NEAR(registers, 1, kSameMappingExactRegisterError) << l.name << " " << l.dataflow;
      double sram_error = kSameMappingExactSramError;
      for (const SramDifference& w : kSameMappingSramDifferences)
        if (l.name == w.layer && l.dataflow == w.dataflow) sram_error = w.sram_error;
      EXPECT_NEAR(sram, 1, sram_error) << l.name << " " << l.dataflow;
      ++exact;
    }
    EXPECT_GE(steps, 1 - 1e-5) << l.name << " " << l.dataflow;
    EXPECT_NEAR(q.mac / p.same.at("mac_pj"), 1, 1e-5) << l.name;
    if (std::getenv("DGS_VALIDATION_LAYERS"))
      std::printf(
          "same mapping %s %s %s: cycles %.3f (own search %.3f) dram_bytes %.3f (%.3f) "
          "array_steps %.3f exact %d register_pj %.3f (%.3f) sram_pj %.3f (%.3f) edp %.3f\n",
          l.dataflow.c_str(), l.network.c_str(), l.name.c_str(), q.cycles / p.same.at("cycles"),
          q.cycles / p.own.at("cycles"), q.dram_bytes / p.same.at("dram_bytes"),
          q.dram_bytes / p.own.at("dram_bytes"), steps, p.exact ? 1 : 0, registers,
          q.registers / p.own.at("register_pj"), sram, q.sram / p.own.at("sram_pj"),
          p.same_edp / p.own_edp);
  }
  EXPECT_EQ(priced, pairs().size()) << "zigzag_our_mappings.csv prices every pair";
  std::printf("same mapping: %zu pairs, %zu exact\n", priced, exact);
}

TEST(DsaValidation, GoalsOnOwnSearchAndSameMapping) {
  const std::map<std::string, double> own = errors(Basis::Own, false),
                                      same = errors(Basis::Same, false),
                                      exact = errors(Basis::Same, true),
                                      best = errors(Basis::Best, false);
  for (const Declared& d : kDeclared) {
    const double o = own.at(d.key), s = same.at(d.key), b = best.at(d.key);
    const auto e = exact.find(d.key);
    const std::string ratio = std::string(d.key) + ".ratio";
    const bool total = own.count(ratio) > 0;
    std::printf(
        "%-24s goal %.2f | own search %.3f (declared %.2f, %s) | same mapping %.3f (declared "
        "%.2f, %s) | exact pairs only %.3f | best known %.3f (declared %.2f, %s) | ours / "
        "ZigZag's: own %.3f, same %.3f, exact %.3f, best %.3f\n",
        d.key, d.goal, o, d.own, o <= d.goal ? "met" : "missed", s, d.same,
        s <= d.goal ? "met" : "missed", e == exact.end() ? -1.0 : e->second, b, d.best,
        b <= d.goal ? "met" : "missed", total ? own.at(ratio) : 0.0, total ? same.at(ratio) : 0.0,
        total && exact.count(ratio) ? exact.at(ratio) : 0.0, total ? best.at(ratio) : 0.0);
    EXPECT_LE(o, d.own) << d.key << " (own search)";
    EXPECT_LE(s, d.same) << d.key << " (same mapping)";
    EXPECT_LE(b, d.best) << d.key << " (ZigZag's best known mapping)";
  }
  size_t ours_best = 0;
  for (const Pair& p : pairs()) ours_best += p.best_is_ours;
  std::printf("ZigZag's best known mapping is ours on %zu of %zu pairs\n", ours_best,
              pairs().size());
}

// Which search is better by ZigZag's own objective: ZigZag's energy x cycles of our mapping
// against its own search's mapping. Declared: at least this many pairs (of 72; of the exact ones)
// where ZigZag prices our mapping at lower or equal EDP (within the CSVs' 6 digits): 39 (20 of
// the 40 exact) with the register-refill stall (array_nest.h): ResNet-50's KC-P layer3.1.conv2
// joins, its 16-channel 14 x 14 tiles with P7 K1 FX3 KCTP now ZigZag's own search's mapping (EDP
// 1.000, exact). 38 (19 of the 40 exact) with windows of any OX_b (README (d)): ResNet-50's KC-P
// layer4.1.conv2 (1.201 -> 0.859), VGG-19's features.5 (1.073 -> 0.846) join, features.10 (1.046
// -> 1.194) and features.19 (1.151 -> 1.141) stay ZigZag's. Before, with powers of two only: 36 (17
// of the 39 exact; 40 against YX-P's search at lpf 6 only: at 7 it wins on four more YX-P pairs,
// within 2%: ResNet-50's conv1 1.006x, layer2.0.downsample.0 1.017x, layer2.1.conv1 1.016x,
// layer3.0.conv1 1.017x). Before (YX-P at 6), 37 (11 of 28) without kc's sliding input window
// (README (d)): the window adds ResNet-50's KC-P layer1.0.conv2 and VGG-19's features.2 and
// features.12, and ZigZag's own search's lead shrinks on layer2.1.conv2 1.58x -> 1.48x,
// layer3.1.conv2 1.48x -> 1.14x, features.5 1.46x -> 1.07x, features.10 1.39x -> 1.05x,
// features.19 1.38x -> 1.15x; and 45 (21 of 39) with the window against LOMA at lpf 8 on 11 KC-P
// pairs only: at 8 on all 36 its own search wins on five more, ResNet-50's layer2.1.conv1 1.26x,
// layer4.0.conv2 1.11x, layer3.0.conv1 1.04x, layer2.0.downsample.0 1.03x, VGG-19's
// features.0 1.01x (and layer4.1.conv1 1.11x -> 1.27x). Earlier: 42 with 8 on 11 pairs before the
// window, 46 at lpf_limit 6 and 7 (at 8 on 11 its search won on ResNet-50's conv1, layer2.0.conv3,
// layer3.0.conv3 and VGG-19's features.12), 52 at 6 alone (at 7 it won on six 3x3 layers where it
// keeps the partial sums in the registers through the reduction and slides the input window). At
// lpf 6, of the other 20, 9 were within 2% and 11 ZigZag's by more (README, "Which search is
// better", gap 7): the buffer level's structure (ResNet-50's KC-P layer4.1.conv1 1.11x,
// layer4.1.conv2 1.19x; YX-P layer4.1.conv1 1.22x, layer4.1.conv2 1.09x, where ZigZag keeps the
// partial sums in the registers through the whole reduction and ours runs it in chunks, and stalls
// on its allocation of our order), the script's rounding (i) of YX-P's layer3.1.conv1 and
// layer4.0.conv1 (1.86x: ZigZag re-reads the whole input from DRAM) and VGG-19's features.0
// (1.08x), ZigZag's allocation of our order (YX-P layer4.0.conv2, VGG-19's
// features.28: 1.19x, 1.35x), word accesses (YX-P classifier.0, 1.02x) and YX-P's classifier.6
// (1.47x: the script drops our inner loop of 16 output channels, which does not divide the tile's
// 125).
constexpr size_t kOurMappingEdpNotWorse = 39, kOurMappingEdpNotWorseExact = 20;
TEST(DsaValidation, OurMappingByZigZagsObjective) {
  size_t not_worse = 0, exact = 0, exact_not_worse = 0;
  for (const Pair& p : pairs()) {
    const bool ok = p.same_edp <= p.own_edp * (1 + 2e-5);
    not_worse += ok;
    exact += p.exact;
    exact_not_worse += ok && p.exact;
    if (!ok && std::getenv("DGS_VALIDATION_LAYERS"))
      std::printf("ZigZag's search wins %s %s %s: EDP ours / its own %.3f, cycles %.3f\n",
                  p.layer.dataflow.c_str(), p.layer.network.c_str(), p.layer.name.c_str(),
                  p.same_edp / p.own_edp, p.same.at("cycles") / p.own.at("cycles"));
  }
  std::printf(
      "ZigZag prices our mapping at lower or equal EDP on %zu of %zu pairs (%zu of %zu "
      "exact)\n",
      not_worse, pairs().size(), exact_not_worse, exact);
  EXPECT_GE(not_worse, kOurMappingEdpNotWorse);
  EXPECT_GE(exact_not_worse, kOurMappingEdpNotWorseExact);
}

// The tile search's floors (dsa_fitting_tile: the floor of the output tile's volume, and each
// candidate's own floor of its loops' loads) skip only candidates that pricing would not choose:
// on every layer here, under both dataflows, with the whole buffer, half of it (as the atom
// tasks ask) and a quarter, its tile is the one that pricing every candidate in the search's
// order (the whole part, then by volume; dsa_task_demand, each with its buffer nest's best
// mapping within the budget, Task::buffer_bytes, as the search maps them) gives, skipping only
// those at least as large on every axis as one priced over the budget (dsa_task.h), and taking
// the least energy x cycles among those that fit (ties: the fewer tiles, the smaller working
// set, the earlier).
std::vector<int64_t> every_candidate_priced(const Graph& g, Task t, const DsaSpec& spec,
                                            int64_t budget) {
  t.buffer_bytes = budget;
  const Shape whole = g.tensor(g.op(t.ops[0]).outputs[0]).shape;
  // The search's own order (its construction is checked against a spelled-out one in
  // tile_search_shortcuts_test.cpp); what this test checks is the pruning over it.
  const std::vector<std::vector<int64_t>> cands =
      dsa_task_internal::tile_candidates(std::vector<int64_t>(whole.begin(), whole.end()));
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
