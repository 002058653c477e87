// Tests of sweeps (cli/shard.h, run_state.h, sweep_run.h): the shard spec, the assignment
// rule, sharded runs merged into the files one run writes (a fake paper in-process, and BrickDL's
// --all), --skip-existing resuming an interrupted run, and every bad input of --shard and
// --merge (one line, exit 2, nothing written).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "cli/run_state.h"
#include "cli/shard.h"
#include "cli/sweep_run.h"
#include "common/report/report_compare.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "reproductions/brickdl/experiments/experiment_list.h"
#include "tests/cli/run_cli_capture.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run;

// ---------------------------------------------------------------------------------------------
// The shard spec and the assignment rule
// ---------------------------------------------------------------------------------------------

TEST(ShardSpecTest, ParsesIOverN) {
  const ShardSpec s = parse_shard_spec("2/5");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 5);
  EXPECT_EQ(s.str(), "2/5");
  EXPECT_EQ(parse_shard_spec("0/1").count, 1);
}

TEST(ShardSpecTest, RefusesMalformedOrOutOfRangeInOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"3/2", "--shard 3/2: shard index 3 is out of range (0 <= I < 2)"},
      {"2/2", "--shard 2/2: shard index 2 is out of range (0 <= I < 2)"},
      {"0/0", "--shard 0/0: shard count 0 is out of range (1 <= N <= 100000)"},
      {"0/100001", "--shard 0/100001: shard count 100001 is out of range (1 <= N <= 100000)"},
  };
  for (const auto& [text, message] : cases) {
    try {
      (void)parse_shard_spec(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  for (const std::string text : {"x", "", "1", "1/", "/2", "-1/2", "1/-2", "+1/2", " 1/2", "1/2 ",
                                 "1/2/3", "0x1/2", "1.0/2", "99999999999/2"}) {
    try {
      (void)parse_shard_spec(text);
      ADD_FAILURE() << "'" << text << "' was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--shard '" + text + "': expected I/N", 0), 0u)
          << e.what();
    }
  }
}

TEST(AssignShardsTest, WithoutCostsItIsRoundRobinOverTheList) {
  const std::vector<double> none(7, std::nan(""));
  EXPECT_EQ(assign_shards(none, 3), (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(assign_shards(none, 1), (std::vector<int>(7, 0)));
  EXPECT_EQ(assign_shards(std::vector<double>(2, std::nan("")), 4), (std::vector<int>{0, 1}));
  EXPECT_TRUE(assign_shards({}, 3).empty());
}

TEST(AssignShardsTest, WithCostsTheLongestGoesToTheLeastLoadedShard) {
  // Costs 5, 1, 4, 3, 3 on 2 shards: 5 -> s0; 4 -> s1; 3 (item 3) -> s1 (4 < 5); 3 (item 4) ->
  // s0 (5 < 7); 1 -> s0 (8 = 7? no: s1 has 7, s0 has 8) -> s1.
  EXPECT_EQ(assign_shards({5, 1, 4, 3, 3}, 2), (std::vector<int>{0, 1, 1, 1, 0}));
  // An unknown cost counts as the median of the known ones (here 4).
  EXPECT_EQ(assign_shards({8, std::nan(""), 4, 2}, 2), (std::vector<int>{0, 1, 1, 0}));
  // Atomic's items.csv wall times (s): the 560 s item alone on one shard of four.
  const std::vector<double> atomic = {0.17, 233, 9.3,  25,  11.0, 0.0008, 0.0005,
                                      101,  560, 14.3, 0.0, 207,  47,     9.7};
  const std::vector<int> s = assign_shards(atomic, 4);
  std::vector<double> load(4, 0);
  for (size_t k = 0; k < s.size(); ++k) load[static_cast<size_t>(s[k])] += atomic[k];
  EXPECT_EQ(*std::max_element(load.begin(), load.end()), 560);
  for (size_t k = 0; k < s.size(); ++k)
    if (k != 8) {
      EXPECT_NE(s[k], s[8]) << k;
    }
}

TEST(AssignShardsTest, CostsFromAnItemsCsvByColumnName) {
  const fs::path f = fs::temp_directory_path() / ("dgs_costs_" + std::to_string(::getpid()));
  write_file_atomic(f.string(), "item,caption,wall_s\r\nfig1,\"a, b\",2.5\r\nfig3,c,\r\n");
  const std::vector<double> c = shard_costs_from_csv(f.string(), {"fig3", "fig1", "fig9"});
  EXPECT_TRUE(std::isnan(c[0]));
  EXPECT_EQ(c[1], 2.5);
  EXPECT_TRUE(std::isnan(c[2]));
  write_file_atomic(f.string(), "item,wall_s\nfig1,-1\n");
  try {
    (void)shard_costs_from_csv(f.string(), {"fig1"});
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--shard-costs: " + f.string() + ":2: wall_s '-1' is not a non-negative number");
  }
  write_file_atomic(f.string(), "name,seconds\nfig1,1\n");
  try {
    (void)shard_costs_from_csv(f.string(), {"fig1"});
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--shard-costs: " + f.string() +
                                         ": no column 'item' (expected columns item and wall_s, "
                                         "e.g. an items.csv)");
  }
  fs::remove(f);
}

// ---------------------------------------------------------------------------------------------
// Any work list (as a comparison over (model, hardware, scheduler, seed) would use it)
// ---------------------------------------------------------------------------------------------

TEST(SweepRunTest, AnyWorkListShardsResumesAndComesBackInListOrder) {
  const fs::path out = fs::temp_directory_path() / ("dgs_sweep_run_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::vector<std::string> work = {"resnet50|a100|ios|1", "bert/base|a100|welder|1",
                                         "resnet50|stcp920|graphturbo|1", "..", "x y|z"};
  const RunKey key = {{"models", "resnet50 bert/base"}, {"seed", "1"}};
  for (int i = 0; i < 2; ++i) {
    const SweepRun run("compare", out.string(), key, {.shard = ShardSpec{i, 2}}, work);
    std::map<std::string, std::string> status;
    for (size_t k = 0; k < work.size(); ++k) {
      if (!run.runs(k)) continue;
      // The item's own output file, then its record with the data a merge needs.
      const std::string file =
          (fs::path(run.folder()) / ("row" + std::to_string(k) + ".csv")).string();
      write_file_atomic(file, "row " + std::to_string(k) + "\n");
      run.item_done(work[k], {{"latency_ms", 0.1 * static_cast<double>(k + 1)}}, {file});
      status[work[k]] = "ran";
    }
    EXPECT_EQ(
        run.finish_shard(status, {}),
        (out / ".run_state" / "compare" / ("shard-" + std::to_string(i) + "-of-2.json")).string());
  }
  // A key is any text: the record's file name escapes what a file name cannot hold.
  EXPECT_TRUE(fs::exists(out / ".run_state/compare/bert%2Fbase%7Ca100%7Cwelder%7C1.done.json"));
  EXPECT_TRUE(fs::exists(out / ".run_state/compare/%2E..done.json"));
  const std::vector<ShardRecord> shards = collect_shards({out.string()}, "compare");
  const std::vector<SweepItem> items = sweep_items(shards, "compare");
  ASSERT_EQ(items.size(), work.size());
  for (size_t k = 0; k < work.size(); ++k) {
    EXPECT_EQ(items[k].marker.item, work[k]);
    EXPECT_EQ(items[k].shard->shard.index, static_cast<int>(k % 2));
    EXPECT_EQ(items[k].marker.data.at("latency_ms").get<double>(),
              0.1 * static_cast<double>(k + 1));
  }
  // Resuming: every item is complete for the same key, none for another.
  SweepOptions resume{.skip_existing = true};
  const SweepRun same("compare", out.string(), key, resume, work);
  const SweepRun other("compare", out.string(), {{"models", "resnet50"}, {"seed", "1"}}, resume,
                       work);
  std::string why;
  EXPECT_TRUE(same.completed(work[2], &why).has_value()) << why;
  EXPECT_FALSE(other.completed(work[2], &why).has_value());
  EXPECT_EQ(why, "recorded by another run: models 'resnet50 bert/base' (here 'resnet50')");
  fs::remove_all(out);
}

// ---------------------------------------------------------------------------------------------
// A fake paper through run_cli
// ---------------------------------------------------------------------------------------------

// Every file of two reports folders of one paper equal byte for byte, except run_info.csv and
// the run-varying columns of the CSV files that have them (items.csv's wall_s); the first
// difference, or "".
std::string first_difference(const fs::path& expected, const fs::path& actual,
                             const std::string& paper) {
  std::vector<std::string> a, b;
  for (const auto& [dir, names] : {std::pair{expected, &a}, std::pair{actual, &b}}) {
    if (!fs::is_directory(dir)) return dir.string() + " is not a folder";
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) names->push_back(fs::relative(e.path(), dir).generic_string());
    std::sort(names->begin(), names->end());
  }
  if (a != b) {
    std::string la, lb;
    for (const std::string& n : a) la += n + " ";
    for (const std::string& n : b) lb += n + " ";
    return "the files differ: " + la + "| " + lb;
  }
  for (const std::string& name : a) {
    const std::string rel = paper + "/" + name;
    if (is_run_varying_file(rel)) continue;
    const std::string ea = read_file((expected / name).string());
    const std::string eb = read_file((actual / name).string());
    if (ea == eb) continue;
    // Bytes may differ only in run-varying columns.
    bool varying = false;
    if (name.ends_with(".csv")) {
      const auto header = parse_csv(ea, rel).at(0);
      for (const std::string& c : header) varying = varying || is_run_varying_column(rel, c);
    }
    const auto d = compare_report_file(rel, ea, eb);
    if (!varying) return rel + " differs" + (d.empty() ? "" : ": " + d[0]);
    if (!d.empty()) return d[0];
  }
  return "";
}

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dgs_sweep_test_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path paper_dir(const std::string& out) const { return dir_ / out / cli_test::kPaper.key; }

  // A table whose paper-vs-ours cells have errors of many significant digits (the CSV keeps 6;
  // the merge must recompute the median and 90th percentile from the exact values).
  static Table cells(uint64_t seed, int rows, double scale) {
    Table t({"case", "paper_latency_ms", "latency_ms"});
    for (int r = 0; r < rows; ++r) {
      const double paper = scale * (1 + r);
      const double err = 0.0123456789 * (r + 1) + 1e-9 * static_cast<double>(seed) + scale * 1e-4;
      t.add_row({"case" + std::to_string(r), paper, paper * (1 + (r % 2 ? err : -err))});
    }
    return t;
  }

  // fig1, table2 (measured too), fig3 (not implemented), fig4 (a plan file; fails while
  // fail_fig4_), fig5 (stand-in and informational claims), table6 (no paper cells).
  std::vector<Experiment> experiments() {
    auto counted = [this](const std::string& id, std::function<void(ExperimentContext&)> body) {
      return [this, id, body](ExperimentContext& ctx) {
        ++runs_[id];
        items_[id] = ctx.options().items;
        body(ctx);
      };
    };
    return {
        {.kind = "fig",
         .number = "1",
         .caption = "Figure 1: speedups, with a comma",
         .run = counted("fig1",
                        [](ExperimentContext& ctx) {
                          ctx.emit_table("Fig. 1", cells(ctx.options().seed, 7, 1.0));
                          ctx.emit_svg("<svg>fig1</svg>\n");
                          ctx.emit_claims({{"speedup", "Fig. 1", 1.4, 1.5, ClaimKind::Ratio, "x"},
                                           {"count", "§2", 12, 13, ClaimKind::Count, ""}});
                          ctx.note("a choice the paper leaves open");
                        })},
        {.kind = "table",
         .number = "2",
         .caption = "Table 2: measured too",
         .run = counted("table2",
                        [](ExperimentContext& ctx) {
                          ctx.emit_table("Table 2", cells(ctx.options().seed, 5, 3.0));
                          ctx.emit_table("Table 2 b", cells(ctx.options().seed, 3, 0.5), "_b");
                        }),
         .has_measured_mode = true},
        {.kind = "fig", .number = "3", .caption = "Figure 3: not there yet"},
        {.kind = "fig",
         .number = "4",
         .caption = "Figure 4: writes a plan",
         .run = counted("fig4",
                        [this](ExperimentContext& ctx) {
                          if (fail_fig4_) throw Error("fig4 interrupted (test)");
                          ctx.emit_table("Fig. 4", cells(ctx.options().seed, 11, 7.0));
                          ctx.emit_file("_plan.json", "{\"stages\": []}\n");
                        })},
        {.kind = "fig",
         .number = "5",
         .caption = "Figure 5: claims of every sort",
         .run = counted("fig5",
                        [](ExperimentContext& ctx) {
                          Claim stand_in{"vs stand-in", "§5", 2.0, 1.7, ClaimKind::Ratio, "x"};
                          stand_in.stand_in = "the suite's stand-in";
                          Claim info{"search time", "§5", 10, 0.1, ClaimKind::Time, "s"};
                          info.informational = "milliseconds against hours";
                          ctx.emit_claims({stand_in, info});
                          ctx.emit_table("Fig. 5", cells(ctx.options().seed, 2, 0.25));
                        })},
        {.kind = "table",
         .number = "6",
         .caption = "Table 6: no paper values",
         .run = counted("table6",
                        [](ExperimentContext& ctx) {
                          Table t({"model", "ops"});
                          t.add_row({std::string("net"), int64_t{42}});
                          ctx.emit_table("Table 6", t);
                        })},
    };
  }

  Result shard(const std::string& out, int i, int n, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--all",   "--quiet",
                                     "--shard", std::to_string(i) + "/" + std::to_string(n),
                                     "--out",   path(out)};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args, experiments(), [](LiveGpuProperties* d, std::string*) {
      *d = {"NVIDIA H200", 132, 90, 0};
      return true;
    });
  }
  Result merge(const std::vector<std::string>& shard_outs, const std::string& out) {
    std::vector<std::string> args = {"--merge"};
    for (const std::string& s : shard_outs) args.push_back(path(s));
    args.insert(args.end(), {"--out", path(out)});
    return run(args, experiments());
  }

  fs::path dir_;
  std::map<std::string, int> runs_;
  // What each item last saw of the items its run runs (RunOptions::items).
  std::map<std::string, std::vector<std::string>> items_;
  bool fail_fig4_ = false;
};

TEST_F(SweepTest, ShardsMergedEqualOneRunByteForByte) {
  const Result single = run({"--all", "--quiet", "--out", path("single")}, experiments());
  ASSERT_EQ(single.code, 0) << single.err;
  // A plain run keeps no state.
  EXPECT_FALSE(fs::exists(dir_ / "single" / ".run_state"));
  for (int n : {1, 2, 3, 4, 7}) {
    std::vector<std::string> outs;
    runs_.clear();
    for (int i = 0; i < n; ++i) {
      outs.push_back("n" + std::to_string(n) + "_shard" + std::to_string(i));
      const Result r = shard(outs.back(), i, n);
      ASSERT_EQ(r.code, 0) << r.err;
      // A shard writes no summary of its own.
      EXPECT_FALSE(fs::exists(paper_dir(outs.back()) / "summary.csv"));
    }
    // Every implemented item ran once, in exactly one shard.
    for (const char* id : {"fig1", "table2", "fig4", "fig5", "table6"}) EXPECT_EQ(runs_[id], 1);
    // The shards in any order.
    std::reverse(outs.begin(), outs.end());
    const std::string merged = "merged" + std::to_string(n);
    const Result m = merge(outs, merged);
    ASSERT_EQ(m.code, 0) << m.err;
    EXPECT_EQ(m.err, "");
    EXPECT_EQ(first_difference(paper_dir("single"), paper_dir(merged), cli_test::kPaper.key), "")
        << "N = " << n;
    EXPECT_EQ(read_file((paper_dir("single") / "summary.csv").string()),
              read_file((paper_dir(merged) / "summary.csv").string()));
    // The merged run's record names the shards, and sums their wall times.
    const std::string info = read_file((paper_dir(merged) / "run_info.csv").string());
    EXPECT_NE(info.find("shards," + std::to_string(n) + "\r\n"), std::string::npos) << info;
  }
}

TEST_F(SweepTest, ShardsInOneSharedFolderMergeInPlace) {
  const Result single = run({"--all", "--quiet", "--out", path("single")}, experiments());
  ASSERT_EQ(single.code, 0) << single.err;
  for (int i = 0; i < 3; ++i) ASSERT_EQ(shard("shared", i, 3).code, 0);
  const Result m = merge({"shared"}, "shared");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(first_difference(paper_dir("single"), paper_dir("shared"), cli_test::kPaper.key), "");
}

TEST_F(SweepTest, ASelectionShardsAndMergesWithoutARunSummary) {
  ASSERT_EQ(
      run({"--fig", "5", "--table", "2", "--out", path("single"), "--quiet"}, experiments()).code,
      0);
  for (int i = 0; i < 2; ++i) {
    const Result r = run({"--fig", "5", "--table", "2", "--out", path("s"), "--quiet", "--shard",
                          std::to_string(i) + "/2"},
                         experiments());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // Selection order: fig5 is shard 0's, table2 shard 1's.
  EXPECT_TRUE(fs::exists(paper_dir("s") / "fig5.csv"));
  ASSERT_EQ(merge({"s"}, "m").code, 0);
  EXPECT_EQ(first_difference(paper_dir("single"), paper_dir("m"), cli_test::kPaper.key), "");
  EXPECT_FALSE(fs::exists(paper_dir("m") / "summary.csv"));
}

TEST_F(SweepTest, MeasuredModeShardsOnlyTheMeasuredItems) {
  const Result r = shard("s", 0, 2, {"--mode", "measured"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("shard 0/2: table2 (1 of 1 work items; round-robin over the list)"),
            std::string::npos)
      << r.out;
  const Result r1 = shard("s", 1, 2, {"--mode", "measured"});
  ASSERT_EQ(r1.code, 0) << r1.err;
  EXPECT_NE(r1.out.find("shard 1/2: no item (0 of 1 work items"), std::string::npos) << r1.out;
  ASSERT_EQ(merge({"s"}, "m").code, 0);
  EXPECT_NE(read_file((paper_dir("m") / "items.csv").string()).find("skipped: model mode only"),
            std::string::npos);
}

TEST_F(SweepTest, ShardCostsBalanceTheShares) {
  write_file_atomic(path("costs.csv"), "item,wall_s\nfig1,1\ntable2,1\nfig4,50\nfig5,1\n");
  const Result r = shard("s", 0, 2, {"--shard-costs", path("costs.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("shard 0/2: fig4 (1 of 5 work items; balanced by the costs in"),
            std::string::npos)
      << r.out;
  // A shard of another assignment is another sweep.
  ASSERT_EQ(shard("s", 1, 2).code, 0);
  const Result m = merge({"s"}, "m");
  EXPECT_EQ(m.code, 2);
  EXPECT_EQ(m.err.rfind("error: --merge: shards of different runs: ", 0), 0u) << m.err;
  EXPECT_NE(m.err.find("another assignment of the work items to shards"), std::string::npos);
  EXPECT_EQ(m.err_lines(), 1);
  EXPECT_FALSE(fs::exists(dir_ / "m"));
}

TEST_F(SweepTest, SkipExistingResumesAnInterruptedRun) {
  const Result single = run({"--all", "--quiet", "--out", path("single")}, experiments());
  ASSERT_EQ(single.code, 0) << single.err;
  // Every item knows every item the run runs (fig3 is not implemented: not run).
  const std::vector<std::string> all = {"fig1", "table2", "fig4", "fig5", "table6"};
  for (const std::string& id : all) EXPECT_EQ(items_[id], all) << id;
  runs_.clear();
  // The first attempt is interrupted at fig4 (it fails: no files, no completion record).
  fail_fig4_ = true;
  const Result first =
      run({"--all", "--quiet", "--skip-existing", "--out", path("r")}, experiments());
  EXPECT_EQ(first.code, 1);
  EXPECT_FALSE(fs::exists(paper_dir("r") / "fig4.csv"));
  // The second runs fig4 alone, and its summary is the single run's.
  fail_fig4_ = false;
  runs_.clear();
  const Result second =
      run({"--all", "--quiet", "--skip-existing", "--out", path("r")}, experiments());
  ASSERT_EQ(second.code, 0) << second.err;
  EXPECT_EQ(runs_, (std::map<std::string, int>{{"fig4", 1}}));
  EXPECT_EQ(items_["fig4"], std::vector<std::string>{"fig4"});  // the complete ones do not run
  EXPECT_NE(second.out.find("skipped fig1: complete in " + path("r") + " (--skip-existing)"),
            std::string::npos)
      << second.out;
  EXPECT_EQ(first_difference(paper_dir("single"), paper_dir("r"), cli_test::kPaper.key), "");
  // A file changed since it was written, or removed: that item runs again.
  write_file_atomic((paper_dir("r") / "fig5.csv").string(), "changed\n");
  fs::remove(paper_dir("r") / "table2_b.csv");
  runs_.clear();
  const Result third =
      run({"--all", "--quiet", "--skip-existing", "--out", path("r")}, experiments());
  ASSERT_EQ(third.code, 0);
  EXPECT_EQ(runs_, (std::map<std::string, int>{{"fig5", 1}, {"table2", 1}}));
  EXPECT_EQ(items_["table2"], (std::vector<std::string>{"table2", "fig5"}));
  EXPECT_NE(third.out.find("running fig5 again: " + (paper_dir("r") / "fig5.csv").string() +
                           " has 8 bytes ("),
            std::string::npos)
      << third.out;
  EXPECT_NE(third.out.find("running table2 again: " + (paper_dir("r") / "table2_b.csv").string() +
                           " is missing"),
            std::string::npos);
  EXPECT_EQ(first_difference(paper_dir("single"), paper_dir("r"), cli_test::kPaper.key), "");
  // Another seed is another run: everything runs.
  runs_.clear();
  const Result other = run(
      {"--all", "--quiet", "--skip-existing", "--seed", "2", "--out", path("r")}, experiments());
  ASSERT_EQ(other.code, 0);
  EXPECT_EQ(runs_.size(), 5u);
  EXPECT_NE(other.out.find("running fig1 again: recorded by another run: seed '1' (here '2')"),
            std::string::npos)
      << other.out;
}

TEST_F(SweepTest, AShardResumesWithSkipExistingAndThenMerges) {
  ASSERT_EQ(run({"--all", "--quiet", "--out", path("single")}, experiments()).code, 0);
  fail_fig4_ = true;  // shard 0 of 2 holds fig1, fig4 and table6; shard 1 table2 and fig5
  ASSERT_EQ(shard("a", 0, 2, {"--skip-existing"}).code, 1);
  ASSERT_EQ(shard("b", 1, 2, {"--skip-existing"}).code, 0);
  EXPECT_EQ(items_["fig5"], (std::vector<std::string>{"table2", "fig5"}));  // its shard's
  const Result early = merge({"a", "b"}, "m");
  EXPECT_EQ(early.code, 2);
  EXPECT_EQ(early.err, "error: --merge: fig4 (shard 0/2, " + path("a") + ") is not complete: no " +
                           path("a") +
                           "/.run_state/fakepaper/fig4.done.json (its shard's status: " +
                           "failed: fig4 interrupted (test)); rerun shard 0/2 with --skip-existing "
                           "(it runs only what is " +
                           "not complete)\n");
  EXPECT_FALSE(fs::exists(dir_ / "m"));
  fail_fig4_ = false;
  runs_.clear();
  ASSERT_EQ(shard("a", 0, 2, {"--skip-existing"}).code, 0);
  EXPECT_EQ(runs_, (std::map<std::string, int>{{"fig4", 1}}));
  ASSERT_EQ(merge({"a", "b"}, "m").code, 0);
  EXPECT_EQ(first_difference(paper_dir("single"), paper_dir("m"), cli_test::kPaper.key), "");
}

TEST_F(SweepTest, BadShardFlagsAreRefusedInOneLineBeforeAnythingRuns) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--all", "--shard", "3/2"},
       "error: --shard 3/2: shard index 3 is out of range (0 <= I < 2)"},
      {{"--all", "--shard", "x"}, "error: --shard 'x': expected I/N"},
      {{"--all", "--shard-costs", "c.csv"}, "error: --shard-costs: applies only with --shard I/N"},
      {{"--all", "--shard", "0/2", "--shard-costs", "/nonexistent/c.csv"},
       "error: --shard-costs: cannot read /nonexistent/c.csv"},
      {{"--merge"}, "error: --merge: expected the shards' --out folders, got the option '--out'"},
      {{"--merge", "a", "--fig", "1"}, "error: --merge: --fig does not apply"},
      {{"--merge", "a", "--shard", "0/2"}, "error: --merge: --shard does not apply"},
      {{"--merge", "a", "--mode", "measured"}, "error: --merge: --mode does not apply"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--out", path("out")});
    const Result r = run(a, experiments());
    EXPECT_EQ(r.code, 2) << message;
    EXPECT_EQ(r.err.rfind(message, 0), 0u) << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_TRUE(runs_.empty());
    EXPECT_FALSE(fs::exists(dir_ / "out")) << message;
  }
}

// Rewrites a field of a shard's record (as a run of another build, seed, ... would have it).
void set_run_field(const std::string& record, const std::string& field, const std::string& value) {
  nlohmann::json j = nlohmann::json::parse(read_file(record));
  for (auto& p : j["run"])
    if (p[0] == field) p[1] = value;
  write_file_atomic(record, j.dump(1));
}

TEST_F(SweepTest, MergeRefusesAMissingShardOrMixedRunsAndWritesNothing) {
  for (int i = 0; i < 3; ++i) ASSERT_EQ(shard("s" + std::to_string(i), i, 3).code, 0);
  ASSERT_EQ(shard("seed2", 1, 3, {"--seed", "2"}).code, 0);
  ASSERT_EQ(shard("hw", 1, 3, {"--hw", "v100"}).code, 0);
  ASSERT_EQ(shard("measured", 1, 3, {"--mode", "measured"}).code, 0);
  ASSERT_EQ(shard("two", 1, 2).code, 0);
  ASSERT_EQ(shard("commit", 1, 3).code, 0);
  const std::string state = "/.run_state/fakepaper/";
  set_run_field(path("commit") + state + "shard-1-of-3.json", "commit", "0123abcd");
  ASSERT_EQ(shard("tampered", 1, 3).code, 0);
  write_file_atomic((paper_dir("tampered") / "table2_b.csv").string(), "x\n");
  ASSERT_EQ(shard("stale", 1, 3).code, 0);
  set_run_field(path("stale") + state + "table2.done.json", "seed", "7");

  const std::string s0 = path("s0") + state + "shard-0-of-3.json";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"s0", "s2"},
       "--merge: shard 1/3 is missing: no shard-1-of-3.json in " + path("s0") + ", " + path("s2") +
           " (found shards 0, 2 of 3; a shard writes its record when it ends)"},
      {{"s0", "seed2", "s2"},
       "--merge: shards of different runs: " + path("seed2") + state +
           "shard-1-of-3.json has seed '2', " + s0 + " has seed '1'"},
      {{"s0", "hw", "s2"},
       "--merge: shards of different runs: " + path("hw") + state +
           "shard-1-of-3.json has hw 'v100', " + s0 + " has hw ''"},
      {{"s0", "measured", "s2"},
       "--merge: shards of different runs: " + path("measured") + state +
           "shard-1-of-3.json has mode 'measured', " + s0 + " has mode 'model'"},
      {{"s0", "commit", "s2"},
       "--merge: shards of different runs: " + path("commit") + state +
           "shard-1-of-3.json has commit '0123abcd', " + s0 + " has commit '"},
      {{"s0", "two", "s2"},
       "--merge: shards of different runs: " + path("two") + state +
           "shard-1-of-2.json is one of 2 shards, " + s0 + " one of 3"},
      {{"s0", "s1", "s1", "s2"},
       "--merge: the folder " + path("s1") + " is given twice (as " + path("s1") + ")"},
      {{"s0", "s1", "s2", "nothere"}, "--merge: no folder " + path("nothere")},
      {{"s0", "s1", "s2", "single"},
       "--merge: " + path("single") + " holds no shard record of fakepaper"},
      {{"s0", "tampered", "s2"},
       "--merge: table2 (shard 1/3, " + path("tampered") +
           "): " + (paper_dir("tampered") / "table2_b.csv").string() + " has 2 bytes ("},
      {{"s0", "stale", "s2"},
       "--merge: " + path("stale") + state +
           "table2.done.json is of another run: seed '7', its shard's '1'"},
  };
  fs::create_directories(dir_ / "single");
  for (const auto& [dirs, message] : cases) {
    const Result r = merge(dirs, "m");
    EXPECT_EQ(r.code, 2) << message;
    EXPECT_EQ(r.err.rfind("error: " + message, 0), 0u) << r.err;
    EXPECT_EQ(r.err_lines(), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "m")) << message;
  }
  // A malformed shard record, named.
  write_file_atomic(path("s1") + state + "shard-1-of-3.json", "{\"format\": ");
  const Result bad = merge({"s0", "s1", "s2"}, "m");
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.rfind(
                "error: --merge: " + path("s1") + state + "shard-1-of-3.json: not valid JSON: ", 0),
            0u)
      << bad.err;
  // An --out that is a file.
  write_file_atomic(path("file"), "x");
  const Result to_file = merge({"s0", "s2"}, "file");
  EXPECT_EQ(to_file.code, 2);
  EXPECT_EQ(to_file.err.rfind("error: --out: '" + path("file") + "' is a file", 0), 0u)
      << to_file.err;
}

// ---------------------------------------------------------------------------------------------
// A real paper: BrickDL's --all (a few seconds), sharded in 2 and 3, merged
// ---------------------------------------------------------------------------------------------

// Named as a PaperReports run: the sanitizer stage of ./build.sh test skips the --all runs
// (SANITIZE_EXCLUDE); the fake paper's tests above run the same code under the sanitizers.
class SweepPaperReports : public SweepTest {};

TEST_F(SweepPaperReports, BrickdlAllShardedInTwoAndThreeMergesToTheSingleRunsFiles) {
  const PaperInfo info = brickdl::paper_info();
  const std::vector<Experiment> list = brickdl::experiments();
  auto cli = [&](std::vector<std::string> args) {
    std::vector<const char*> argv = {"repro_brickdl"};
    args.push_back("--quiet");
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = run_cli(static_cast<int>(argv.size()), argv.data(), info, list, out, err);
    EXPECT_EQ(err.str(), "");
    return code;
  };
  ASSERT_EQ(cli({"--all", "--out", path("single")}), 0);
  for (int n : {2, 3}) {
    std::vector<std::string> args = {"--merge"};
    for (int i = 0; i < n; ++i) {
      const std::string out = path("n" + std::to_string(n) + "_" + std::to_string(i));
      ASSERT_EQ(
          cli({"--all", "--shard", std::to_string(i) + "/" + std::to_string(n), "--out", out}), 0);
      args.push_back(out);
    }
    args.insert(args.end(), {"--out", path("merged" + std::to_string(n))});
    ASSERT_EQ(cli(args), 0);
    EXPECT_EQ(first_difference(dir_ / "single" / info.key,
                               dir_ / ("merged" + std::to_string(n)) / info.key, info.key),
              "")
        << "N = " << n;
  }
}

}  // namespace
}  // namespace dgs
