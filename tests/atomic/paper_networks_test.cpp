// The network set of the Atomic Dataflow items: Table II's eight in the paper's order, each either
// run by an item or left out with a reason (never silently dropped).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/evaluate/evaluate.h"
#include "common/hw/hardware_spec.h"
#include "common/util/parallel_for.h"
#include "models/zoo.h"
#include "reproductions/atomic/experiments/ad_runs.h"
#include "reproductions/atomic/experiments/ls_ad_runs.h"
#include "reproductions/atomic/iterative_search.h"
#include "reproductions/atomic/paper_networks.h"
#include "reproductions/atomic/schedule.h"

namespace dgs::atomic {
namespace {

TEST(AtomicPaperNetworks, AreTableTwosEightInItsOrderAllInTheZoo) {
  const std::vector<std::string> order = {"VGG-19", "ResNet-50", "ResNet-152",   "Inception-v3",
                                          "NasNet", "PNASNet",   "EfficientNet", "ResNet-1001"};
  const std::vector<PaperNetwork>& nets = table2_networks();
  ASSERT_EQ(nets.size(), order.size());
  const std::vector<std::string> zoo = zoo_model_names();
  for (size_t i = 0; i < nets.size(); ++i) {
    EXPECT_EQ(nets[i].paper_name, order[i]);
    EXPECT_EQ(paper_name_of(nets[i].zoo), order[i]);
    EXPECT_NE(std::find(zoo.begin(), zoo.end(), nets[i].zoo), zoo.end()) << nets[i].zoo;
  }
  EXPECT_EQ(paper_name_of("not_a_network"), "");
}

TEST(AtomicPaperNetworks, EveryNetworkIsRunOrLeftOutWithAReason) {
  for (int batch : {1, 20})
    for (DsaDataflow df : {DsaDataflow::KC, DsaDataflow::YX}) {
      const std::vector<std::string> run = networks_run(batch, df);
      const std::vector<LeftOut> left = networks_left_out(batch, df);
      EXPECT_EQ(run.size() + left.size(), table2_networks().size()) << batch;
      for (const LeftOut& l : left) {
        EXPECT_FALSE(l.why.empty()) << l.zoo;
        EXPECT_EQ(std::find(run.begin(), run.end(), l.zoo), run.end()) << l.zoo;
      }
    }
  // The claims of Figs. 8 and 10 (batch 1, KC-P) try every network of the paper's set.
  EXPECT_EQ(networks_run(1, DsaDataflow::KC).size(), table2_networks().size());
}

TEST(AtomicPaperNetworks, StandInsJoinWithSemicolons) {
  EXPECT_EQ(stand_ins({"a", "b"}), "a; b");
  EXPECT_EQ(stand_ins({kDpStandIn}), std::string(kDpStandIn));
}

// The runs start with the most MACs (Table I: NasNet-A Large 22.2 G, VGG-19 19.6 G, ResNet-50
// 4.1 G, EfficientNet-B0 0.39 G); equal networks keep their list order.
TEST(AtomicPaperNetworks, RunsAreHandedOutByMacsTiesInListOrder) {
  EXPECT_EQ(largest_first_order(
                macs_at_batch_1({"resnet50", "nasnet_large", "efficientnet_b0", "vgg19"})),
            (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(largest_first_order(macs_at_batch_1({"resnet50", "resnet50"})),
            (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(macs_at_batch_1({}).empty());
}

// The sweeps read a run already computed on an equal machine under another name (Fig. 8's run at
// Fig. 12's 8 x 8 point and Fig. 13's 128 KiB size) instead of searching again: it is found only
// for the same network, batch, seed and every field but the name, file and sources, and it equals
// a fresh computation on the renamed machine in every number the sweeps read.
TEST(AtomicLsAdRuns, ComputedRunIsFoundOnlyOnAnEqualMachineAndEqualsAFreshOne) {
  const std::string net = "test_residual_block";
  const DsaSpec spec = item_spec(load_hardware("atomic_mesh").dsa.value(), DsaDataflow::KC);
  const DsaSpec renamed = dsa_with_local_bytes(spec, spec.local_bytes);
  ASSERT_NE(renamed.name, spec.name);
  ASSERT_NE(renamed.sources, spec.sources);
  const LsAdRun& run = ls_ad_run(net, 1, spec, 1);
  EXPECT_EQ(computed_ls_ad_run(net, 1, spec, 1), &run);
  EXPECT_EQ(computed_ls_ad_run(net, 1, renamed, 1), &run);
  EXPECT_EQ(computed_ls_ad_run(net, 1, dsa_with_local_bytes(spec, spec.local_bytes / 2), 1),
            nullptr);
  EXPECT_EQ(computed_ls_ad_run(net, 1, dsa_with_dataflow(spec, DsaDataflow::YX), 1), nullptr);
  EXPECT_EQ(computed_ls_ad_run(net, 2, renamed, 1), nullptr);
  EXPECT_EQ(computed_ls_ad_run(net, 1, renamed, 2), nullptr);
  EXPECT_EQ(computed_ls_ad_run("test_diamond", 1, renamed, 1), nullptr);

  // Fig. 12's point: AD's latency, atoms, Rounds and candidates, and LS's latency.
  const Graph g = build_zoo_model(net, {.batch = 1});
  const AdRun ad = run_ad(g, renamed, 1);
  EXPECT_EQ(run.ad.result.latency_us, ad.ad_us);
  EXPECT_EQ(static_cast<int64_t>(run.ad.dag.atoms.size()), ad.atoms);
  EXPECT_EQ(static_cast<int64_t>(run.ad.schedule.rounds.size()), ad.rounds);
  EXPECT_EQ(run.ad_candidates, ad.candidates);
  EXPECT_EQ(run.ls.result.latency_us, run_ls(g, renamed, 1));
  // Fig. 13's size: the kept plan, priced on a larger engine.
  const IterativeSearch s = iterative_atomic_search(g, renamed, 1);
  const DsaSpec larger = dsa_with_local_bytes(spec, 2 * spec.local_bytes);
  EXPECT_EQ(evaluate(g, atom_plan(g, run.ad.dag, run.ad.schedule, renamed, "AD"),
                     dsa_hardware_spec(larger))
                .latency_us,
            evaluate(g, atom_plan(g, s.dag, s.schedule, renamed, "AD"), dsa_hardware_spec(larger))
                .latency_us);
}

// Table II's NoC overhead is one more pricing of the kept AD plan (on a mesh of infinitely wide
// links without hop latency), made only when asked for: without it the field is NAN and every
// other number is the same; with it, 1 - that latency / AD's, as a percentage.
TEST(AtomicLsAdRuns, NocOverheadOnlyWhenAskedTheRestTheSame) {
  const std::string net = "test_residual_block";
  const DsaSpec spec = item_spec(load_hardware("atomic_mesh").dsa.value(), DsaDataflow::KC);
  const LsAdRun without = compute_ls_ad_run(net, 2, spec, 1);
  const LsAdRun with = compute_ls_ad_run(net, 2, spec, 1, true);
  EXPECT_TRUE(std::isnan(without.ad_noc_overhead_pct));
  EXPECT_EQ(without.ls.result.latency_us, with.ls.result.latency_us);
  EXPECT_EQ(without.ad.result.latency_us, with.ad.result.latency_us);
  EXPECT_EQ(value_of(without.ad.result.energy_pj_by_component, "noc"),
            value_of(with.ad.result.energy_pj_by_component, "noc"));
  EXPECT_EQ(without.ad.layer_utilisation_pct, with.ad.layer_utilisation_pct);
  EXPECT_EQ(without.ad_reuse_pct, with.ad_reuse_pct);
  EXPECT_EQ(without.ideal_us, with.ideal_us);
  EXPECT_EQ(without.ad_search, with.ad_search);
  const Graph g = build_zoo_model(net, {.batch = 2});
  DsaSpec free_mesh = spec;
  free_mesh.noc_link_bytes_per_cycle = std::numeric_limits<double>::max() / 4;
  free_mesh.noc_hop_cycles = 0;
  const double t_free = evaluate(g, atom_plan(g, with.ad.dag, with.ad.schedule, spec, "AD"),
                                 dsa_hardware_spec(free_mesh))
                            .latency_us;
  ASSERT_GT(with.ad.result.latency_us, 0);
  EXPECT_DOUBLE_EQ(with.ad_noc_overhead_pct,
                   100 * std::max(0.0, 1 - t_free / with.ad.result.latency_us));
}

// Fig. 8's ad_even_atoms column reads the run's even-split candidate (kEvenSplitCandidate): it
// equals AD's Rounds, mapping and buffering on LS's own atoms, planned and priced on their own
// (what Fig. 8 computed before it read the search's), at batch 1 and 2.
TEST(AtomicLsAdRuns, EvenSplitLatencyIsLsAtomsPricedWithAdsScheduleAlone) {
  const DsaSpec spec = item_spec(load_hardware("atomic_mesh").dsa.value(), DsaDataflow::KC);
  for (const std::string net : {"test_residual_block", "test_diamond"})
    for (int batch : {1, 2}) {
      const LsAdRun run = compute_ls_ad_run(net, batch, spec, 1);
      const Graph g = build_zoo_model(net, {.batch = batch});
      const AtomSchedule s = schedule_atoms(g, run.ls.dag, spec, {});
      EXPECT_EQ(
          run.ad_even_split_us,
          evaluate(g, atom_plan(g, run.ls.dag, s, spec, "AD, even atoms"), dsa_hardware_spec(spec))
              .latency_us)
          << net << " batch " << batch;
    }
}

// Fig. 4 keeps each search it times for Fig. 8's run of the network (keep_search): the run takes
// it only on the same network, batch and seed and an equal machine (any name), once, and then
// equals a run that searched on its own in every number and name it reports.
TEST(AtomicLsAdRuns, AKeptSearchIsTakenOnlyByItsRunAndEqualsAFreshOne) {
  const std::string net = "test_residual_block";
  const DsaSpec spec = load_hardware("atomic_mesh").dsa.value();
  const DsaSpec kc = item_spec(spec, DsaDataflow::KC);
  ASSERT_NE(kc.name, spec.name);
  const Graph g = build_zoo_model(net, {.batch = 1});
  IterativeSearch searched;
  const AdSearch timed = search_ad(g, spec, 3, &searched);
  EXPECT_EQ(timed.atoms, static_cast<int64_t>(searched.dag.atoms.size()));
  const size_t held_before = kept_search_count();
  IterativeSearch other_options = searched;
  other_options.options.budget_halvings += 1;
  keep_search(net, 1, spec, 3, std::move(other_options));
  EXPECT_FALSE(take_kept_search(net, 1, kc, 3));  // searched with other options than the run's
  ASSERT_EQ(kept_search_count(), held_before + 1);
  keep_search(net, 1, spec, 3, std::move(searched));
  ASSERT_EQ(kept_search_count(), held_before + 2);
  EXPECT_FALSE(take_kept_search(net, 1, dsa_with_local_bytes(kc, kc.local_bytes / 2), 3));
  EXPECT_FALSE(take_kept_search(net, 1, dsa_with_dataflow(spec, DsaDataflow::YX), 3));
  EXPECT_FALSE(take_kept_search(net, 2, kc, 3));
  EXPECT_FALSE(take_kept_search(net, 1, kc, 4));
  EXPECT_FALSE(take_kept_search("test_diamond", 1, kc, 3));
  ASSERT_EQ(kept_search_count(), held_before + 2);  // none of those took it
  const LsAdRun with_kept = compute_ls_ad_run(net, 1, kc, 3);
  EXPECT_EQ(kept_search_count(), held_before + 1);  // taken by that run (the other one stays)
  EXPECT_FALSE(take_kept_search(net, 1, kc, 3));
  const LsAdRun fresh = compute_ls_ad_run(net, 1, kc, 3);
  const auto same = [](const NamedValues& a, const NamedValues& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].name != b[i].name || a[i].value != b[i].value) return false;
    return true;
  };
  EXPECT_EQ(with_kept.ad.result.latency_us, fresh.ad.result.latency_us);
  EXPECT_EQ(with_kept.ad.result.hardware_name, kc.name);
  EXPECT_EQ(with_kept.ad.result.hardware_name, fresh.ad.result.hardware_name);
  EXPECT_TRUE(same(with_kept.ad.result.bytes_by_level, fresh.ad.result.bytes_by_level))
      << "bytes_by_level";
  EXPECT_TRUE(
      same(with_kept.ad.result.energy_pj_by_component, fresh.ad.result.energy_pj_by_component))
      << "energy_pj_by_component";
  EXPECT_TRUE(same(with_kept.ad.result.details, fresh.ad.result.details)) << "details";
  EXPECT_EQ(with_kept.ad.dag.atoms.size(), fresh.ad.dag.atoms.size());
  EXPECT_EQ(with_kept.ad.schedule.round_of, fresh.ad.schedule.round_of);
  EXPECT_EQ(with_kept.ad.schedule.engine_of, fresh.ad.schedule.engine_of);
  EXPECT_EQ(with_kept.ad_search, fresh.ad_search);
  EXPECT_EQ(with_kept.ad_sa_only_us, fresh.ad_sa_only_us);
  EXPECT_EQ(with_kept.ad_target_cycles, fresh.ad_target_cycles);
  EXPECT_EQ(with_kept.ad_candidates, fresh.ad_candidates);
  EXPECT_EQ(with_kept.ad.layer_utilisation_pct, fresh.ad.layer_utilisation_pct);
  EXPECT_EQ(with_kept.ad_reuse_pct, fresh.ad_reuse_pct);
}

}  // namespace
}  // namespace dgs::atomic
