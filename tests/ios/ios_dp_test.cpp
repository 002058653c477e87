// Tests of the IOS dynamic program: exact counts from the thesis, optimality
// against brute force, pruning, merge legality, plans, and the GPU-model stage
// cost.
#include <gtest/gtest.h>

#include "common/exec/plan_exec.h"
#include "tests/json_schema_lite.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "common/gpumodel/gpu_model.h"
#include "common/hw/hardware.h"
#include "models/zoo.h"
#include "reproductions/ios/dp.h"
#include "reproductions/ios/network.h"
#include "reproductions/ios/scheduler.h"

namespace dgs::ios {
namespace {

// ---------------------------------------------------------------------------------------------
// Counting mode
// ---------------------------------------------------------------------------------------------
TEST(IosDp, Fig34ExampleHasSixStatesAndTwelveTransitions) {
  // a -> b, c independent (thesis Fig. 3.4; concurrent execution only)
  const PartDag d = PartDag::from_edges(3, {{0, 1}});
  const DpStats s = count_part(d, StrategySet::Parallel, Pruning::none());
  EXPECT_EQ(s.states, 6u);
  EXPECT_EQ(s.transitions, 12u);
}

TEST(IosDp, StateBudgetStopsAWidePartInsteadOfSearchingForMinutes) {
  // 40 independent units: 2^40 states (every subset is a state).
  const PartDag wide = PartDag::from_edges(40, {});
  try {
    (void)count_part(wide, StrategySet::Parallel, Pruning::none(), 1000);
    ADD_FAILURE() << "no StateBudgetExceeded";
  } catch (const StateBudgetExceeded& e) {
    EXPECT_EQ(e.budget, 1000u);
    EXPECT_STREQ(e.what(), "IOS DP: more than 1000 states");
  }
  // Within the budget the counts are those of the unbounded DP (Fig. 3.4's 6 states).
  const PartDag small = PartDag::from_edges(3, {{0, 1}});
  EXPECT_EQ(count_part(small, StrategySet::Parallel, Pruning::none(), 6).states, 6u);
  EXPECT_THROW(count_part(small, StrategySet::Parallel, Pruning::none(), 5), StateBudgetExceeded);
}

TEST(IosDp, IndependentChainsReachTheBound) {
  // d independent chains of c ops: C(c+2,2)^d - (c+1)^d transitions (thesis
  // Fig. 3.5)
  for (int c = 1; c <= 4; ++c)
    for (int d = 1; d <= 4; ++d) {
      std::vector<std::pair<int, int>> e;
      for (int k = 0; k < d; ++k)
        for (int i = 0; i + 1 < c; ++i) e.push_back({k * c + i, k * c + i + 1});
      const PartDag g = PartDag::from_edges(c * d, e);
      const DpStats s = count_part(g, StrategySet::Parallel, Pruning::none());
      const double expect = std::pow((c + 2) * (c + 1) / 2.0, d) - std::pow(c + 1.0, d);
      EXPECT_EQ(static_cast<double>(s.transitions), expect) << "c=" << c << " d=" << d;
      EXPECT_EQ(s.states, static_cast<uint64_t>(std::pow(c + 1.0, d))) << "c=" << c << " d=" << d;
      EXPECT_EQ(dag_width(g), d);
    }
}

TEST(IosDp, IndependentUnitsCountOrderedSetPartitions) {
  // n independent units: every subset is a state (2^n), every non-empty subset of a state is an
  // ending (3^n - 2^n transitions), and the schedules are the ordered set partitions of the n
  // units (the Fubini numbers). The full state of 7 units has 127 endings and the states of 6
  // have 63: more than the DP solves in one batch (32), with a partial last batch, so a batch
  // lost, repeated or added to the wrong state changes these counts.
  const uint64_t fubini[] = {1, 1, 3, 13, 75, 541, 4683, 47293, 545835};
  for (int n = 1; n <= 8; ++n) {
    const PartDag g = PartDag::from_edges(n, {});
    const DpStats s = count_part(g, StrategySet::Parallel, Pruning::none());
    EXPECT_EQ(s.states, uint64_t{1} << n) << "n=" << n;
    EXPECT_EQ(static_cast<double>(s.transitions), std::pow(3.0, n) - std::pow(2.0, n)) << "n=" << n;
    EXPECT_EQ(to_string_u128(s.schedules), std::to_string(fubini[n])) << "n=" << n;
  }
}

TEST(IosDp, HandBuiltInceptionEAndFireBlocksMatchTable31) {
  // Inception-E: 0 1x1; 1 1x1 -> {2 1x3, 3 3x1}; 4 1x1 -> 5 3x3 -> {6, 7}; 8
  // pool -> 9 1x1; 10 concat
  const PartDag e = PartDag::from_edges(11, {{1, 2},
                                             {1, 3},
                                             {4, 5},
                                             {5, 6},
                                             {5, 7},
                                             {8, 9},
                                             {0, 10},
                                             {2, 10},
                                             {3, 10},
                                             {6, 10},
                                             {7, 10},
                                             {9, 10}});
  const DpStats se = count_part(e, StrategySet::Parallel, Pruning::none());
  EXPECT_EQ(se.transitions, 4871u);
  EXPECT_EQ(to_string_u128(se.schedules), "3757392");
  EXPECT_EQ(dag_width(e), 6);
  // Fire block with a 1x1 bypass: squeeze -> {e3, e1} -> concat -> add <-
  // bypass
  const PartDag f = PartDag::from_edges(6, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 5}, {4, 5}});
  const DpStats sf = count_part(f, StrategySet::Parallel, Pruning::none());
  EXPECT_EQ(sf.transitions, 51u);
  EXPECT_EQ(to_string_u128(sf.schedules), "131");
  EXPECT_EQ(dag_width(f), 3);
}

struct LargestBlock {
  uint64_t transitions = 0;
  std::string schedules;
  int n = 0, d = 0;
};
LargestBlock largest_block(const std::string& model) {
  const Graph g = build_zoo_model(model);
  const Network net = make_network(g, default_part_rule(model));
  LargestBlock best;
  for (const Part& p : net.parts) {
    const PartDag d = part_dag(net, p);
    const DpStats s = count_part(d, StrategySet::Parallel, Pruning::none());
    if (s.transitions > best.transitions)
      best = {s.transitions, to_string_u128(s.schedules), d.n, dag_width(d)};
  }
  return best;
}

TEST(IosDp, ZooNetworksMatchTable31Exactly) {
  // Table 3.1 prints 4.9e3 / 1.2e6 / 3.1e5 / 51 transitions and 3.8e6 / 9.2e22
  // / 7.2e12 / 1.3e2 schedules; the exact integers are those of the authors'
  // code on the authors' graphs.
  const LargestBlock inc = largest_block("inception_v3");
  EXPECT_EQ(inc.transitions, 4871u);
  EXPECT_EQ(inc.schedules, "3757392");
  EXPECT_EQ(inc.n, 11);
  EXPECT_EQ(inc.d, 6);
  const LargestBlock rw = largest_block("randwire");
  EXPECT_EQ(rw.transitions, 1170663u);
  EXPECT_EQ(rw.schedules, "91973106270886052032664");  // 9.2e22
  EXPECT_EQ(rw.n, 33);
  EXPECT_EQ(rw.d, 8);
  const LargestBlock nas = largest_block("nasnet_large");
  EXPECT_EQ(nas.transitions, 307841u);
  EXPECT_EQ(nas.schedules, "7150961274600");  // 7.2e12
  EXPECT_EQ(nas.n, 18);
  EXPECT_EQ(nas.d, 8);
  const LargestBlock sq = largest_block("squeezenet");
  EXPECT_EQ(sq.transitions, 51u);
  EXPECT_EQ(sq.schedules, "131");
  EXPECT_EQ(sq.n, 6);
  EXPECT_EQ(sq.d, 3);
}

TEST(IosNetwork, UnitCountsMatchTable41) {
  const std::pair<const char*, size_t> expect[] = {
      {"inception_v3", 119}, {"randwire", 120}, {"nasnet_large", 374}, {"squeezenet", 50}};
  for (const auto& [m, n] : expect) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    EXPECT_EQ(net.units.size(), n) << m;
    size_t ops = 0;
    for (const Unit& u : net.units) ops += u.ops.size();
    EXPECT_EQ(ops, static_cast<size_t>(g.num_ops())) << m << ": every op in exactly one unit";
    for (const Part& p : net.parts) EXPECT_LE(p.units.size(), 50u) << m;
  }
}

// ---------------------------------------------------------------------------------------------
// Optimality and pruning against brute force
// ---------------------------------------------------------------------------------------------
PartDag random_dag(std::mt19937_64& rng, int n, double p) {
  std::bernoulli_distribution edge(p);
  PartDag d = PartDag::from_edges(n, {});
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v)
      if (edge(rng)) d.add_edge(u, v);
  return d;
}

// Enumerates every stage sequence of the restricted ending set by plain
// recursion.
struct Brute {
  const PartDag& d;
  Pruning prune;
  std::function<double(Mask, bool)> cost;
  uint64_t paths = 0;
  double best(Mask s) {
    if (!s) {
      ++paths;
      return 0;
    }
    double b = 1e300;
    Mask desc[64];
    for (int u = d.n - 1; u >= 0; --u) {
      if (!(s >> u & 1)) continue;
      Mask m = Mask{1} << u, frontier = m;
      while (frontier) {
        Mask next = 0;
        for (Mask f = frontier; f; f &= f - 1)
          next |= d.succ[static_cast<size_t>(std::countr_zero(f))];
        frontier = next & s & ~m;
        m |= frontier;
      }
      desc[u] = m;
    }
    // every set of heads with disjoint closures
    std::vector<int> in;
    for (int u = 0; u < d.n; ++u)
      if (s >> u & 1) in.push_back(u);
    for (uint64_t pick = 1; pick < (uint64_t{1} << in.size()); ++pick) {
      Mask used = 0;
      bool ok = true;
      int groups = 0;
      for (size_t i = 0; i < in.size() && ok; ++i) {
        if (!(pick >> i & 1)) continue;
        const Mask m = desc[in[i]];
        if (m & used) ok = false;
        if (prune.max_group_size > 0 && std::popcount(m) > prune.max_group_size) ok = false;
        used |= m;
        ++groups;
      }
      if (!ok || (prune.max_num_groups > 0 && groups > prune.max_num_groups)) continue;
      b = std::min(b, best(s & ~used) + cost(used, false));
    }
    return b;
  }
};

TEST(IosDp, OptimalOnRandomDagsAgainstBruteForce) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    const int n = 3 + trial % 6;
    const PartDag d = random_dag(rng, n, 0.3);
    std::map<Mask, double> stage_cost;
    std::uniform_real_distribution<double> u(1, 10);
    auto cost = [&](Mask m, bool) {
      auto it = stage_cost.find(m);
      if (it == stage_cost.end())
        it = stage_cost.emplace(m, u(rng) * std::popcount(m) / 2 + 1).first;
      return it->second;
    };
    for (const Pruning prune : {Pruning::none(), Pruning{1, 8}, Pruning{2, 2}}) {
      Brute b{d, prune, cost};
      const double expect = b.best(d.all());
      const DpResult r = solve_part(d, StrategySet::Parallel, prune,
                                    [&](const StageChoice& c) { return cost(c.units(), false); });
      EXPECT_NEAR(r.latency, expect, 1e-9) << "trial " << trial;
      // the schedule is a partition respecting dependencies and the pruning
      Mask done = 0;
      double sum = 0;
      for (const StageChoice& st : r.stages) {
        const Mask m = st.units();
        EXPECT_EQ(m & done, 0u);
        for (int v = 0; v < n; ++v) {
          if (!(m >> v & 1)) continue;
          for (int w = 0; w < n; ++w) {
            if ((d.succ[static_cast<size_t>(w)] >> v & 1) && !(m >> w & 1)) {
              EXPECT_TRUE(done >> w & 1) << "predecessor " << w << " of " << v << " not done";
            }
          }
        }
        if (prune.max_num_groups > 0) {
          EXPECT_LE(static_cast<int>(st.groups.size()), prune.max_num_groups);
        }
        for (Mask g : st.groups) {
          if (prune.max_group_size > 0) {
            EXPECT_LE(std::popcount(g), prune.max_group_size);
          }
        }
        done |= m;
        sum += cost(m, false);
      }
      EXPECT_EQ(done, d.all());
      EXPECT_NEAR(sum, r.latency, 1e-9);
    }
  }
}

// With a lower bound, the DP skips endings that cannot win, yet returns exactly what it returns
// without one: the same latency (bit for bit), the same stages (ties resolved the same way: costs
// are drawn from a few values so that ties are common) and the same statistics; only the costs it
// asks for are fewer.
TEST(IosDp, LowerBoundPruningGivesTheSameResult) {
  std::mt19937_64 rng(11);
  int asked_without = 0, asked_with = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const PartDag d = random_dag(rng, 4 + trial % 8, 0.3);
    std::map<Mask, double> cost_of, bound_of;
    std::uniform_int_distribution<int> few(1, 4);
    std::uniform_real_distribution<double> frac(0, 1);
    auto cost = [&](Mask m) {
      auto it = cost_of.find(m);
      if (it == cost_of.end()) {
        it = cost_of.emplace(m, few(rng) * 0.5 + std::popcount(m) * 0.25).first;
        bound_of[m] = it->second * (trial % 4 == 0 ? 1.0 : frac(rng));  // sometimes exact
      }
      return it->second;
    };
    for (const StrategySet strat : {StrategySet::Parallel, StrategySet::Both})
      for (const Pruning prune : {Pruning::none(), Pruning{2, 3}}) {
        int n0 = 0, n1 = 0;
        const DpResult a = solve_part(d, strat, prune, [&](const StageChoice& c) {
          ++n0;
          return cost(c.units());
        });
        const DpResult b = solve_part(
            d, strat, prune,
            [&](const StageChoice& c) {
              ++n1;
              return cost(c.units());
            },
            [&](const StageChoice& c) {
              cost(c.units());  // draws the stage's cost and bound
              return bound_of.at(c.units());
            });
        EXPECT_EQ(a.latency, b.latency) << "trial " << trial;
        ASSERT_EQ(a.stages.size(), b.stages.size()) << "trial " << trial;
        for (size_t i = 0; i < a.stages.size(); ++i) {
          EXPECT_EQ(a.stages[i].merge, b.stages[i].merge) << "trial " << trial;
          EXPECT_EQ(a.stages[i].groups, b.stages[i].groups) << "trial " << trial;
        }
        EXPECT_EQ(a.stats.states, b.stats.states);
        EXPECT_EQ(a.stats.transitions, b.stats.transitions);
        EXPECT_EQ(a.stats.stages_costed, b.stats.stages_costed);
        EXPECT_TRUE(a.stats.schedules == b.stats.schedules);
        EXPECT_LE(n1, n0);
        asked_without += n0;
        asked_with += n1;
      }
  }
  EXPECT_LT(asked_with, asked_without);  // the bound does skip endings
}

TEST(IosDp, PruningNeverAddsTransitions) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const PartDag d = random_dag(rng, 10, 0.25);
    const uint64_t full = count_part(d, StrategySet::Parallel, Pruning::none()).transitions;
    const uint64_t r3s8 = count_part(d, StrategySet::Parallel, Pruning{3, 8}).transitions;
    const uint64_t r1s3 = count_part(d, StrategySet::Parallel, Pruning{1, 3}).transitions;
    EXPECT_LE(r3s8, full);
    EXPECT_LE(r1s3, r3s8);
  }
}

TEST(IosDp, RejectsBackwardEdgesAndOversizedParts) {
  try {
    PartDag::from_edges(3, {{2, 1}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2->1"), std::string::npos);
  }
  EXPECT_THROW(PartDag::from_edges(65, {}), Error);
}

// ---------------------------------------------------------------------------------------------
// Merge legality
// ---------------------------------------------------------------------------------------------
int unit_named(const Network& net, const std::string& name) {
  for (size_t i = 0; i < net.units.size(); ++i)
    if (net.units[i].name == name) return static_cast<int>(i);
  return -1;
}

TEST(IosMerge, SameInputSameStrideConvsShareAClass) {
  const Graph g = build_zoo_model("inception_v3");
  const Network net = make_network(g, PartRule::Blocks);
  const Part* e = nullptr;
  for (const Part& p : net.parts)
    if (p.block.find("Mixed_7c") != std::string::npos) e = &p;
  ASSERT_NE(e, nullptr);
  const PartDag d = part_dag(net, *e);
  auto cls = [&](const std::string& name) {
    const int u = unit_named(net, name);
    const auto it = std::find(e->units.begin(), e->units.end(), u);
    EXPECT_NE(it, e->units.end()) << name;
    return d.merge_class[static_cast<size_t>(it - e->units.begin())];
  };
  // 1x3 and 3x1 on the same tensor (Fig. 4.7's f and g): mergeable into a 3x3
  EXPECT_GE(cls("Mixed_7c.branch3x3dbl_3a"), 0);
  EXPECT_EQ(cls("Mixed_7c.branch3x3dbl_3a"), cls("Mixed_7c.branch3x3dbl_3b"));
  // the three 1x1 convs on the block input are mergeable
  EXPECT_EQ(cls("Mixed_7c.branch1x1"), cls("Mixed_7c.branch3x3_1"));
  EXPECT_EQ(cls("Mixed_7c.branch1x1"), cls("Mixed_7c.branch3x3dbl_1"));
  // different inputs: not the same class
  EXPECT_NE(cls("Mixed_7c.branch3x3_2a"), cls("Mixed_7c.branch3x3dbl_3a"));
  EXPECT_NE(cls("Mixed_7c.branch1x1"), cls("Mixed_7c.branch_pool"));
  // a pool is never mergeable
  EXPECT_EQ(cls("Mixed_7c.avg_pool"), -1);

  // stride differs: Mixed_6a's 3x3/2 and 1x1/1 on the same input are not
  // mergeable
  const Part* b = nullptr;
  for (const Part& p : net.parts)
    if (p.block.find("Mixed_6a") != std::string::npos) b = &p;
  ASSERT_NE(b, nullptr);
  const PartDag db = part_dag(net, *b);
  auto clsb = [&](const std::string& name) {
    const int u = unit_named(net, name);
    const auto it = std::find(b->units.begin(), b->units.end(), u);
    return db.merge_class[static_cast<size_t>(it - b->units.begin())];
  };
  EXPECT_NE(clsb("Mixed_6a.branch3x3"), clsb("Mixed_6a.branch3x3dbl_1"));
}

TEST(IosMerge, SepConvNetworksHaveNothingToMerge) {
  // Relu-SepConv units cannot be merged: IOS-Merge equals Sequential (thesis
  // §4.2)
  const Graph g = build_zoo_model("randwire");
  const Network net = make_network(g, default_part_rule("randwire"));
  for (const Part& p : net.parts) {
    const PartDag d = part_dag(net, p);
    std::map<int, int> count;
    for (int c : d.merge_class)
      if (c >= 0) ++count[c];
    for (const auto& [c, k] : count) EXPECT_EQ(k, 1) << p.block;
  }
}

// ---------------------------------------------------------------------------------------------
// Plans and the GPU-model stage cost
// ---------------------------------------------------------------------------------------------
TEST(IosSchedules, AllFiveSchedulesAreValidPlans) {
  const GpuSpec spec = load_gpu_spec("v100");
  for (const char* m : {"inception_v3", "squeezenet", "ios_fig1_2"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost cost(spec);
    std::vector<IosSchedule> all = {sequential_schedule(net), greedy_schedule(net)};
    for (StrategySet s : {StrategySet::Merge, StrategySet::Parallel, StrategySet::Both})
      all.push_back(ios_schedule(net, s, Pruning{}, cost));
    double seq = 0, both = 0;
    for (const IosSchedule& s : all) {
      const Plan plan = to_plan(net, s);
      EXPECT_NO_THROW(plan.check(g)) << m << " " << s.name;
      const double lat = evaluate_schedule(net, s, gpu_hardware_spec(spec)).latency_us;
      if (s.name == "Sequential") seq = lat;
      if (s.name == "IOS-Both") both = lat;
    }
    // IOS-Both's search space holds the sequential schedule (one unit per
    // stage)
    EXPECT_LE(both, seq * (1 + 1e-9)) << m;
  }
}

TEST(IosCost, SearchesSharingOneCostModelEqualFreshSearches) {
  // start_search: each search on a shared cost model sees only the stages it asked for, so its
  // schedule, statistics and simulation count are those of a search on a fresh cost model.
  const GpuSpec spec = load_gpu_spec("rtx2080ti");
  for (const char* m : {"inception_v3", "squeezenet"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost shared(spec);
    for (StrategySet s : {StrategySet::Both, StrategySet::Parallel, StrategySet::Merge}) {
      for (const Pruning& prune : {Pruning{3, 8}, Pruning{1, 2}}) {
        GpuModelStageCost fresh(spec);
        SearchStats fs, ss;
        const IosSchedule a = ios_schedule(net, s, prune, fresh, &fs);
        shared.start_search();
        const IosSchedule b = ios_schedule(net, s, prune, shared, &ss);
        ASSERT_EQ(a.stages.size(), b.stages.size()) << m;
        for (size_t i = 0; i < a.stages.size(); ++i)
          EXPECT_EQ(describe_stage(net, a.stages[i]), describe_stage(net, b.stages[i])) << m;
        EXPECT_EQ(fs.states, ss.states) << m;
        EXPECT_EQ(fs.transitions, ss.transitions) << m;
        EXPECT_EQ(fs.stages_costed, ss.stages_costed) << m;
        EXPECT_EQ(fresh.simulations(), shared.simulations()) << m;
        EXPECT_EQ(fresh.simulated_kernels(), shared.simulated_kernels()) << m;
      }
    }
  }
}

TEST(IosCost, OneConvReluStageIsTheConvKernelAlone) {
  // Hand-checkable: a one-unit stage costs the conv's kernel (Relu folded)
  // simulated alone; a two-group stage adds one stage synchronisation.
  const GpuSpec spec = load_gpu_spec("v100");
  const Graph g = build_zoo_model("ios_fig1_2");
  const Network net = make_network(g, default_part_rule("ios_fig1_2"));
  const int a = unit_named(net, "block.a"), d = unit_named(net, "block.d");
  ASSERT_GE(a, 0);
  ASSERT_GE(d, 0);
  GpuModelStageCost cost(spec);
  KernelOptions o;
  o.fold_activation = true;
  const auto ka = kernels_for_op(g, net.units[static_cast<size_t>(a)].conv, spec, o);
  ASSERT_EQ(ka.size(), 1u);
  EXPECT_NEAR(cost.stage_latency_us(net, IosStage{false, {{a}}}),
              estimate_kernel(spec, ka[0]).latency_us,
              1e-6 * estimate_kernel(spec, ka[0]).latency_us);
  const auto kd = kernels_for_op(g, net.units[static_cast<size_t>(d)].conv, spec, o);
  const double two = simulate_stage(spec, {ka, kd}).latency_us + spec.stage_sync_us;
  EXPECT_NEAR(cost.stage_latency_us(net, IosStage{false, {{a}, {d}}}), two, 1e-9 * two);
  // the merged a+d conv is one implicit GEMM over 384+768 output channels
  const auto km = kernels_for_merged_conv(
      g, {net.units[static_cast<size_t>(a)].conv, net.units[static_cast<size_t>(d)].conv}, spec, o);
  const double merged = simulate_stage(spec, {km}).latency_us;
  EXPECT_NEAR(cost.stage_latency_us(net, IosStage{true, {{a}, {d}}}), merged, 1e-9 * merged);
}

// The GPU model's stage bound prunes the search of real networks without changing it: the same
// schedule (stage by stage) and statistics as a search that costs every ending, and fewer
// simulations.
TEST(IosSchedules, GpuModelLowerBoundKeepsTheSchedule) {
  struct NoBound : StageCostModel {  // the same costs, no lower bound
    GpuModelStageCost& inner;
    explicit NoBound(GpuModelStageCost& c) : inner(c) {}
    double stage_latency_us(const Network& n, const IosStage& s) override {
      return inner.stage_latency_us(n, s);
    }
    std::string describe() const override { return inner.describe(); }
  };
  const GpuSpec spec = load_gpu_spec("v100");
  for (const char* m : {"inception_v3", "squeezenet", "nasnet_large"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost pruned(spec), full(spec);
    NoBound full_nb(full);
    SearchStats sp, sf;
    const Pruning prune = std::string(m) == "nasnet_large" ? Pruning{3, 3} : Pruning{3, 8};
    const IosSchedule a = ios_schedule(net, StrategySet::Both, prune, pruned, &sp);
    const IosSchedule b = ios_schedule(net, StrategySet::Both, prune, full_nb, &sf);
    ASSERT_EQ(a.stages.size(), b.stages.size()) << m;
    for (size_t i = 0; i < a.stages.size(); ++i) {
      EXPECT_EQ(a.stages[i].merge, b.stages[i].merge) << m << " stage " << i;
      EXPECT_EQ(a.stages[i].groups, b.stages[i].groups) << m << " stage " << i;
    }
    EXPECT_EQ(evaluate_schedule(net, a, gpu_hardware_spec(spec)).latency_us,
              evaluate_schedule(net, b, gpu_hardware_spec(spec)).latency_us)
        << m;
    EXPECT_EQ(sp.transitions, sf.transitions) << m;
    EXPECT_EQ(sp.stages_costed, sf.stages_costed) << m;
    EXPECT_LE(pruned.simulations(), full.simulations()) << m;
  }
}

// A part whose DAG and part_cost_key repeat an earlier part's takes its result without a search:
// the same schedule (stage by stage), latency and statistics as searching every part, with fewer
// stages costed (NasNet's cells of one kind; Inception V3's Mixed_6c/6d, whose merge classes
// enter the key).
TEST(IosSchedules, RepeatedPartsKeepTheSchedule) {
  struct Counting : ForwardingStageCost {  // part keys only when `keyed`; counts the stages costed
    bool keyed;
    int64_t calls = 0;
    Counting(GpuModelStageCost& c, bool k) : ForwardingStageCost(c), keyed(k) {}
    double stage_latency_us(const Network& n, const IosStage& s) override {
      ++calls;
      return inner_.stage_latency_us(n, s);
    }
    std::string part_cost_key(const Network& n, const PartDag& d, const Part& p,
                              int max_groups) override {
      return keyed ? inner_.part_cost_key(n, d, p, max_groups) : std::string();
    }
  };
  const GpuSpec spec = load_gpu_spec("v100");
  for (const char* m : {"nasnet_large", "inception_v3"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost ca(spec), cb(spec);
    Counting reuse(ca, true), search(cb, false);
    SearchStats sr, ss;
    const Pruning prune = std::string(m) == "nasnet_large" ? Pruning{1, 8} : Pruning{3, 8};
    const IosSchedule a = ios_schedule(net, StrategySet::Both, prune, reuse, &sr);
    const IosSchedule b = ios_schedule(net, StrategySet::Both, prune, search, &ss);
    ASSERT_EQ(a.stages.size(), b.stages.size()) << m;
    for (size_t i = 0; i < a.stages.size(); ++i) {
      EXPECT_EQ(a.stages[i].merge, b.stages[i].merge) << m << " stage " << i;
      EXPECT_EQ(a.stages[i].groups, b.stages[i].groups) << m << " stage " << i;
    }
    EXPECT_EQ(a.part_first_stage, b.part_first_stage) << m;
    EXPECT_EQ(evaluate_schedule(net, a, gpu_hardware_spec(spec)).latency_us,
              evaluate_schedule(net, b, gpu_hardware_spec(spec)).latency_us)
        << m;
    EXPECT_EQ(sr.states, ss.states) << m;
    EXPECT_EQ(sr.transitions, ss.transitions) << m;
    EXPECT_EQ(sr.stages_costed, ss.stages_costed) << m;
    EXPECT_TRUE(sr.schedules == ss.schedules) << m;
    EXPECT_EQ(ca.simulations(), cb.simulations()) << m;  // the repeated parts simulated nothing new
    EXPECT_LT(reuse.calls, search.calls) << m;           // some part was not searched
  }
}

// Parts with the same DAG but other kernels (NasNet's normal cells at two resolutions) or other
// L2 savings get different keys.
TEST(IosCost, PartKeysTellCellsOfOtherShapesApart) {
  const GpuSpec spec = load_gpu_spec("v100");
  const Graph g = build_zoo_model("nasnet_large");
  const Network net = make_network(g, default_part_rule("nasnet_large"));
  GpuModelStageCost cost(spec);
  auto part = [&](const std::string& block) -> const Part& {
    for (const Part& p : net.parts)
      if (p.block == block) return p;
    throw Error("no part " + block);
  };
  const Part &c04 = part("cell04"), &c05 = part("cell05"), &c11 = part("cell11");
  const PartDag d04 = part_dag(net, c04), d05 = part_dag(net, c05), d11 = part_dag(net, c11);
  ASSERT_EQ(d04.succ, d11.succ);
  ASSERT_EQ(d04.succ, d05.succ);
  const std::string k04 = cost.part_cost_key(net, d04, c04, 8);
  EXPECT_FALSE(k04.empty());
  EXPECT_EQ(k04, cost.part_cost_key(net, d05, c05, 8));
  EXPECT_NE(k04, cost.part_cost_key(net, d11, c11, 8));
}

// The cheap part signature (the units' kernels) comes before the key: SqueezeNet's fire modules
// share a DAG but no kernels, so no key is built, with the schedule and statistics of a search
// that builds every key; NasNet's cells of one kind still build keys and repeat (equal keys,
// equal signatures; other kernels, other signatures).
TEST(IosSchedules, PartSignaturesSkipTheKeysOfPartsThatCannotRepeat) {
  struct Counting
      : ForwardingStageCost {  // signatures only when `signatures`; counts the keys built
    bool signatures;
    int keys = 0;
    Counting(GpuModelStageCost& c, bool s) : ForwardingStageCost(c), signatures(s) {}
    std::string part_cost_key(const Network& n, const PartDag& d, const Part& p,
                              int max_groups) override {
      ++keys;
      return inner_.part_cost_key(n, d, p, max_groups);
    }
    std::string part_cost_signature(const Network& n, const Part& p) override {
      return signatures ? inner_.part_cost_signature(n, p) : std::string();
    }
  };
  const GpuSpec spec = load_gpu_spec("v100");
  for (const char* m : {"squeezenet", "nasnet_large"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost ca(spec), cb(spec);
    Counting with(ca, true), without(cb, false);
    SearchStats sw, so;
    const IosSchedule a = ios_schedule(net, StrategySet::Both, Pruning{1, 8}, with, &sw);
    const IosSchedule b = ios_schedule(net, StrategySet::Both, Pruning{1, 8}, without, &so);
    ASSERT_EQ(a.stages.size(), b.stages.size()) << m;
    for (size_t i = 0; i < a.stages.size(); ++i) {
      EXPECT_EQ(a.stages[i].merge, b.stages[i].merge) << m << " stage " << i;
      EXPECT_EQ(a.stages[i].groups, b.stages[i].groups) << m << " stage " << i;
    }
    EXPECT_EQ(sw.transitions, so.transitions) << m;
    EXPECT_EQ(sw.stages_costed, so.stages_costed) << m;
    EXPECT_EQ(ca.simulations(), cb.simulations()) << m;
    EXPECT_GT(without.keys, 0) << m;
    if (std::string(m) == "squeezenet") {
      EXPECT_EQ(with.keys, 0);
    } else {
      EXPECT_GT(with.keys, 0) << m;
    }
  }
  const Graph g = build_zoo_model("nasnet_large");
  const Network net = make_network(g, default_part_rule("nasnet_large"));
  GpuModelStageCost cost(spec);
  auto part = [&](const std::string& block) -> const Part& {
    for (const Part& p : net.parts)
      if (p.block == block) return p;
    throw Error("no part " + block);
  };
  const std::string s04 = cost.part_cost_signature(net, part("cell04"));
  EXPECT_EQ(s04.size(), part("cell04").units.size() * sizeof(int32_t));
  EXPECT_EQ(s04, cost.part_cost_signature(net, part("cell05")));
  EXPECT_NE(s04, cost.part_cost_signature(net, part("cell11")));
}

// The tight bound: before anything is simulated, the cheap bound with the stage's own L2
// residency savings (at least the cheap bound, which assumes the most any stage saves); once a
// stage whose groups are prefixes of the stage's (one group grown, or all grown from one unit)
// was simulated, also that group's end in the smaller stage plus the appended units' least
// times, which raises it on some stages. Never above the cost. Random stages of NasNet units
// (seeded), 1 to 4 groups.
TEST(IosCost, PrefixStageBoundNeverExceedsTheCost) {
  const GpuSpec spec = load_gpu_spec("v100");
  const Graph g = build_zoo_model("nasnet_large");
  const Network net = make_network(g, default_part_rule("nasnet_large"));
  std::mt19937 rng(5);
  auto unit = [&] {
    return std::uniform_int_distribution<int>(0, static_cast<int>(net.units.size()) - 1)(rng);
  };
  int above_cheap = 0, raised_by_prefix = 0;
  for (int trial = 0; trial < 200; ++trial) {
    GpuModelStageCost cost(spec);  // nothing simulated yet
    IosStage small;
    const int groups = 1 + trial % 4;
    for (int i = 0; i < groups; ++i) small.groups.push_back({unit()});
    // One group grown (the last one: a grown group delays the launches of the groups after it,
    // so only the last gives a bound), or (every third trial) every group.
    IosStage big = small;
    const bool every = trial % 3 == 0;
    for (size_t gi = 0; gi < big.groups.size(); ++gi)
      if (every || gi + 1 == small.groups.size())
        for (int extra = 1 + trial % 2; extra > 0; --extra) big.groups[gi].push_back(unit());
    const double cheap = cost.stage_latency_lower_bound_us(net, big);
    const double before = cost.stage_latency_tight_lower_bound_us(net, big);
    EXPECT_GE(before, cheap * (1 - 1e-12)) << "trial " << trial;
    cost.stage_latency_us(net, small);  // simulated: now a prefix of `big`
    const double tight = cost.stage_latency_tight_lower_bound_us(net, big);
    const double exact = cost.stage_latency_us(net, big);
    EXPECT_GE(tight, before) << "trial " << trial;
    EXPECT_LE(tight, exact) << "trial " << trial;
    if (before > cheap) ++above_cheap;
    if (tight > before) ++raised_by_prefix;
  }
  EXPECT_GT(above_cheap, 0);
  EXPECT_GT(raised_by_prefix, 0);
}

// The DP's objective (stage cost = simulated stage + the GPU model's sync rule) is the plan
// evaluator's latency, so on every evaluation network IOS-Both, whose space holds the other
// schedules, is never slower than IOS-Merge, IOS-Parallel or Sequential (batch 1, V100).
TEST(IosSchedules, IosBothIsNeverSlowerAndTheSearchObjectiveIsTheEvaluatedLatency) {
  const GpuSpec spec = load_gpu_spec("v100");
  for (const char* m : {"inception_v3", "randwire", "nasnet_large", "squeezenet"}) {
    const Graph g = build_zoo_model(m);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost cost(spec);
    std::map<std::string, double> lat;
    for (const IosSchedule& s :
         {sequential_schedule(net), ios_schedule(net, StrategySet::Merge, Pruning{}, cost),
          ios_schedule(net, StrategySet::Parallel, Pruning{}, cost),
          ios_schedule(net, StrategySet::Both, Pruning{}, cost)}) {
      const ScheduleEval e = evaluate_schedule(net, s, gpu_hardware_spec(spec));
      double objective = 0;  // what the DP minimised: the sum of its stage costs
      for (const IosStage& st : s.stages) objective += cost.stage_latency_us(net, st);
      EXPECT_NEAR(e.latency_us, objective, 1e-9 * objective) << m << " " << s.name;
      ASSERT_EQ(e.stage_us.size(), s.stages.size());
      lat[s.name] = e.latency_us;
    }
    const double both = lat.at("IOS-Both") * (1 - 1e-12);
    EXPECT_LE(both, lat.at("IOS-Merge")) << m;
    EXPECT_LE(both, lat.at("IOS-Parallel")) << m;
    EXPECT_LE(both, lat.at("Sequential")) << m;
  }
}

// IOS's plans run on the CPU reference (run_plan) equal the unscheduled network on random inputs:
// merged convolutions (the merged task's ops, with their folded Relus) and concurrent groups on
// streams. Inception V3 and SqueezeNet at reduced resolution, IOS-Both with its merges.
TEST(IosSchedules, IosPlansRunOnTheReferenceEqualTheNetwork) {
  const GpuSpec spec = load_gpu_spec("v100");
  int merged = 0, concurrent = 0;
  for (const char* m : {"inception_v3", "squeezenet"}) {
    ZooOptions zo;
    zo.image_size = std::string(m) == "inception_v3" ? 107 : 64;
    const Graph g = build_zoo_model(m, zo);
    const Network net = make_network(g, default_part_rule(m));
    GpuModelStageCost cost(spec);
    const Plan plan = to_plan(net, ios_schedule(net, StrategySet::Both, Pruning{}, cost));
    for (const Stage& st : plan.stages) {
      merged += st.tasks.size() == 1 && st.tasks[0].kind == TaskKind::Merged;
      concurrent += st.tasks.size() > 1;
    }
    const PlanComparison c = compare_plan_with_reference(g, plan, 11);
    EXPECT_TRUE(c.passed) << m << ": " << c.str();
  }
  EXPECT_GT(merged, 0);
  EXPECT_GT(concurrent, 0);
}

// The plans IOS writes are valid documents of the plan format (common/plan/plan.schema.json).
TEST(IosSchedules, IosPlansValidateAgainstThePlanSchema) {
  const Graph g = build_zoo_model("inception_v3");
  const Network net = make_network(g, default_part_rule("inception_v3"));
  GpuModelStageCost cost(load_gpu_spec("v100"));
  const Plan p = to_plan(net, ios_schedule(net, StrategySet::Both, Pruning{}, cost));
  EXPECT_EQ(testing::plan_schema().validate(nlohmann::json::parse(plan_to_json(p, g))), "");
}

}  // namespace
}  // namespace dgs::ios
