// The report page (report_page.h) and the comparison of report folders (report_compare.h) on
// small folders written here: what the page shows, where each file goes, what a comparison skips
// and what it reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/report/report.h"
#include "common/report/report_compare.h"
#include "common/report/report_folder.h"
#include "common/report/report_page.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "tests/error_of.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

class ReportFolderFixture : public ::testing::Test {
 protected:
  void write(const std::string& rel, const std::string& text) {
    write_file_atomic((dir_ / rel).string(), text);
  }
  // A paper "alpha" with two items (fig4 and fig4.1, so that file prefixes overlap), a summary,
  // items.csv and run_info.csv.
  void write_alpha() {
    write("alpha/summary.csv",
          "item,own_hold,own_deviate,stand_in_hold,stand_in_deviate,informational,calibration,"
          "paper_cells,median_rel_error,p90_rel_error\r\n"
          "fig4,1,1,0,0,1,0,3,0.05,0.5\r\nfig4.1,2,0,1,1,0,1,0,,\r\ntotal,3,1,1,1,1,1,3,0.05,0."
          "5\r\n");
    write("alpha/items.csv",
          "item,caption,status,hardware,wall_s\r\nfig4,Latency <of> four nets,ran,"
          "hw_configs/v100.json,1.5\r\nfig4.1,Speedups,ran,,0.25\r\ntable9,Later,not "
          "implemented yet,,\r\n");
    write("alpha/run_info.csv",
          "field,value\r\npaper,alpha\r\ntitle,Alpha: a paper\r\nmode,model\r\nseed,1\r\n"
          "commit,abc123\r\nwall_s,1.75\r\n");
    write("alpha/fig4.csv",
          "model,paper_latency_ms,latency_ms\r\nnear,10,10.5\r\noff,10,12\r\nfar,10,20\r\n");
    write("alpha/fig4.svg",
          "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" "
          "height=\"10\" viewBox=\"0 0 10 10\"><rect width=\"10\" height=\"10\"/></svg>\n");
    write("alpha/fig4_claims.csv",
          "claim,source,kind,paper,ours,tolerance,unit,against,verdict,why\r\n"
          "a,Fig. 4,ratio,2,2.1,0.2,x,paper's method,holds,|ours / paper - 1| <= 10%\r\n"
          "b,Fig. 4,ratio,2,3,0.2,x,paper's method,deviates,|ours / paper - 1| <= 10%\r\n"
          "c,Fig. 4,ratio,2,3,,x,paper's method,informational,cannot deviate\r\n");
    write("alpha/fig4_notes.txt", "a <b>note</b>\nsecond note\n");
    write("alpha/fig4.1.csv", "x,y\r\n1,2\r\n");
    write("alpha/fig4.1_plan.json", "{}\n");
    write("alpha/extra_data.csv", "k\r\n1\r\n");
  }
  ScratchDir scratch_{"report_page"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(ReportFolderFixture, FilesGoToTheItemWithTheLongestMatchingId) {
  write_alpha();
  const ReportFolder f = read_report_folder((dir_ / "alpha").string());
  EXPECT_EQ(f.title, "Alpha: a paper");
  ASSERT_EQ(f.items.size(), 4u);  // fig4, fig4.1, table9 from items.csv; "extra" by its file
  EXPECT_EQ(f.items[0].id, "fig4");
  EXPECT_EQ(f.items[0].tables, std::vector<std::string>{"fig4.csv"});
  EXPECT_EQ(f.items[0].svgs, std::vector<std::string>{"fig4.svg"});
  EXPECT_EQ(f.items[0].claims, "fig4_claims.csv");
  EXPECT_EQ(f.items[0].notes, "fig4_notes.txt");
  EXPECT_EQ(f.items[1].id, "fig4.1");
  EXPECT_EQ(f.items[1].tables, std::vector<std::string>{"fig4.1.csv"});
  EXPECT_EQ(f.items[1].others, std::vector<std::string>{"fig4.1_plan.json"});
  EXPECT_EQ(f.items[2].id, "table9");
  EXPECT_FALSE(f.items[2].has_files());
  EXPECT_EQ(f.items[3].id, "extra");
  EXPECT_EQ(f.items[3].tables, std::vector<std::string>{"extra_data.csv"});
  EXPECT_EQ(item_display_name("fig4.1"), "Fig. 4.1");
  EXPECT_EQ(item_display_name("table3"), "Table 3");
}

TEST_F(ReportFolderFixture, PageShowsSummaryItemsClaimsNotesAndMarksDeviations) {
  write_alpha();
  const ReportPage page = build_report_page(dir_.string());
  const std::string& h = page.html;
  ASSERT_EQ(page.papers, std::vector<std::string>{"alpha"});
  // Summary row: 4 of 6 checked hold (3 + 1 stand-in of 3 + 1 + 1 + 1 = 6), from the total row.
  EXPECT_NE(h.find("<td class=\"num\" data-col=\"checked\">6</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"num\" data-col=\"hold\">4</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"num\" data-col=\"deviate\">2</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"num\" data-col=\"items\">2</td>"), std::string::npos);
  EXPECT_NE(h.find("<td class=\"num\" data-col=\"median_rel_error\">5.0%</td>"), std::string::npos);
  // Sections, captions (escaped), environment.
  for (const char* id : {"id=\"summary\"", "id=\"environment\"", "id=\"paper-alpha\"",
                         "id=\"alpha-fig4\"", "id=\"alpha-fig4.1\"", "id=\"alpha-extra\""})
    EXPECT_NE(h.find(id), std::string::npos) << id;
  EXPECT_EQ(h.find("id=\"alpha-table9\""), std::string::npos);  // no files: a row, no section
  EXPECT_NE(h.find("Latency &lt;of&gt; four nets"), std::string::npos);
  EXPECT_NE(h.find("<td>abc123</td>"), std::string::npos);
  // The SVG inline, without its XML declaration.
  EXPECT_NE(h.find("<figure class=\"chart\" data-file=\"alpha/fig4.svg\"><svg "),
            std::string::npos);
  EXPECT_EQ(h.find("<?xml"), std::string::npos);
  // Paper column tinted; our cells by relative error: 5% near, 20% off, 100% dev.
  EXPECT_NE(h.find("<th class=\"paper\">paper_latency_ms</th>"), std::string::npos);
  EXPECT_NE(h.find("class=\"num near\" title=\"5.0% from the paper's 10\">10.5<"),
            std::string::npos);
  EXPECT_NE(h.find("class=\"num off\" title=\"20.0% from the paper's 10\">12<"), std::string::npos);
  EXPECT_NE(h.find("class=\"num dev\" title=\"100.0% from the paper's 10\">20<"),
            std::string::npos);
  // Claims: one row per claim with its verdict's class; the rule shown.
  EXPECT_NE(h.find("<tr class=\"claim holds\">"), std::string::npos);
  EXPECT_NE(h.find("<tr class=\"claim deviates\">"), std::string::npos);
  EXPECT_NE(h.find("<tr class=\"claim informational\">"), std::string::npos);
  EXPECT_NE(h.find("|ours / paper - 1| &lt;= 10%"), std::string::npos);
  // Notes escaped, other files linked.
  EXPECT_NE(h.find("<li>a &lt;b&gt;note&lt;/b&gt;</li>"), std::string::npos);
  EXPECT_NE(h.find("<a href=\"alpha/fig4.1_plan.json\">"), std::string::npos);
  // Nothing outside the page: no script, no external reference.
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("http://"), h.find("http://www.w3.org/2000/svg"));
  EXPECT_NE(h.find("@media print"), std::string::npos);
  // REPORT.md: the same summary.
  EXPECT_NE(page.markdown.find("| Alpha: a paper (`alpha`) | 2 | 6 | 4 | 2 | 1 / 1 | 1 | 1 | 3 | "
                               "5.0% | 50.0% |"),
            std::string::npos)
      << page.markdown;
}

TEST_F(ReportFolderFixture, CompareSectionWhenTheFolderExists) {
  write_alpha();
  EXPECT_EQ(build_report_page(dir_.string()).html.find("id=\"compare\""), std::string::npos);
  write("compare/cross.csv", "paper,speedup\r\nalpha,2\r\n");
  const std::string h = build_report_page(dir_.string()).html;
  EXPECT_NE(h.find("id=\"compare\""), std::string::npos);
  EXPECT_NE(h.find("data-file=\"compare/cross.csv\""), std::string::npos);
}

TEST_F(ReportFolderFixture, RefusesAFolderWithoutReportsAndAMalformedCsv) {
  EXPECT_THROW(build_report_page((dir_ / "absent").string()), Error);
  write("alpha/fig4.csv", "a,b\r\n1,2\r\n");  // no summary.csv nor items.csv: not a paper
  try {
    build_report_page(dir_.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no reports in"), std::string::npos) << e.what();
  }
  write("alpha/summary.csv", "item,own_hold\r\ntotal,\"1\r\n");
  EXPECT_THROW(build_report_page(dir_.string()), Error);
}

// A table over 60 rows is folded; its summary names the file, and stays visible in print, where
// the folded table is not printed (Chromium prints a closed <details> as its summary alone).
TEST_F(ReportFolderFixture, AFoldedTableNamesItsFileOnScreenAndInPrint) {
  write_alpha();
  std::string big = "k,v\r\n";
  for (int i = 0; i < 61; ++i) big += std::to_string(i) + ",1\r\n";
  write("alpha/fig4_big.csv", big);
  const std::string h = build_report_page(dir_.string()).html;
  EXPECT_NE(h.find("<details><summary>61 rows of alpha/fig4_big.csv</summary>"), std::string::npos);
  EXPECT_EQ(h.find("<details><summary>3 rows"), std::string::npos);  // fig4.csv: not folded
  const std::string print = h.substr(h.find("@media print"));
  EXPECT_EQ(print.substr(0, print.find("\n}")).find("summary { display: none"), std::string::npos);
  EXPECT_NE(print.find("details:not([open]) > summary::after"), std::string::npos);
}

// The page inlines the SVGs: one that has no <svg> element, a script or a reference outside the
// page is refused in one line naming it (the suite's SVG, with its xmlns, is not).
TEST_F(ReportFolderFixture, RefusesAnSvgWithAScriptAnOutsideReferenceOrNoSvgElement) {
  const std::string file = (dir_ / "alpha" / "fig4.svg").string();
  const auto error_with = [&](const std::string& svg) {
    write_alpha();
    write("alpha/fig4.svg", svg);
    return error_of([&] { build_report_page(dir_.string()); });
  };
  const std::string open = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">";
  EXPECT_EQ(error_with(open + "<rect width=\"10\" height=\"10\"/></svg>"), "<no error>");
  EXPECT_EQ(error_with("<?xml version=\"1.0\"?>\n<html></html>"), file + ": no <svg> element");
  const std::string why = "': the page inlines its SVGs, runs no script and fetches nothing";
  EXPECT_EQ(error_with(open + "<SCRIPT>alert(1)</SCRIPT></svg>"), file + ": has '<script" + why);
  EXPECT_EQ(error_with(open + "<image href = \"https://x.org/a.png\"/></svg>"),
            file + ": has 'href=\"http" + why);
  EXPECT_EQ(error_with(open + "<rect onload=\"f()\"/></svg>"), file + ": has 'onload=" + why);
}

// A summary.csv the page would misread (a count shown as 0) is refused in one line naming it.
TEST_F(ReportFolderFixture, RefusesASummaryWithoutACountColumnATotalRowOrWithANonCount) {
  const auto error_with = [this](const std::string& summary) {
    write_alpha();
    write("alpha/summary.csv", summary);
    return error_of([this] { build_report_page(dir_.string()); });
  };
  const std::string file = (dir_ / "alpha" / "summary.csv").string();
  const std::string head =
      "item,own_hold,own_deviate,stand_in_hold,stand_in_deviate,informational,calibration,"
      "paper_cells,median_rel_error,p90_rel_error\r\n";
  EXPECT_EQ(error_with("item,own_deviate\r\ntotal,1\r\n"), file + ": no column 'own_hold'");
  EXPECT_EQ(error_with("own_hold\r\n1\r\n"), file + ": no column 'item'");
  EXPECT_EQ(error_with(head + "fig4,1,1,0,0,1,0,3,0.05,0.5\r\n"),
            file + ": no 'total' row (written at the end of a --all run)");
  EXPECT_EQ(error_with(head + "fig4,1,abc,0,0,1,0,3,0.05,0.5\r\ntotal,1,1,0,0,1,0,3,0.05,0.5\r\n"),
            file + ", item 'fig4': own_deviate 'abc' is not a count");
  EXPECT_EQ(error_with(head + "total,1,1,0,0,1,0,,0.05,0.5\r\n"),
            file + ", item 'total': paper_cells '' is not a count");
  EXPECT_EQ(error_with(head + "total,-1,1,0,0,1,0,3,0.05,0.5\r\n"),
            file + ", item 'total': own_hold '-1' is not a count");
  // The medians may be empty (no cell with a paper value): accepted.
  EXPECT_EQ(error_with(head + "total,1,1,0,0,1,0,0,,\r\n"), "<no error>");
}

TEST(ReportCompare, SkipsTheRunVaryingValuesAndNamesTheFirstDifferentCell) {
  EXPECT_TRUE(is_run_varying_column("p/items.csv", "wall_s"));
  EXPECT_TRUE(is_run_varying_column("p/fig1.csv", "cpu_search_s"));
  EXPECT_FALSE(is_run_varying_column("p/fig1.csv", "latency_ms"));
  // A column of one file only.
  EXPECT_TRUE(is_run_varying_column("ios/fig4.6_claims.csv", "ours"));
  EXPECT_TRUE(is_run_varying_column("out/ios/fig4.6_claims.csv", "ours"));
  EXPECT_FALSE(is_run_varying_column("ios/fig4.1_claims.csv", "ours"));
  EXPECT_FALSE(is_run_varying_column("xios/fig4.6_claims.csv", "ours"));
  EXPECT_TRUE(is_run_varying_file("ios/run_info.csv"));
  EXPECT_TRUE(is_run_varying_file("ios/fig4.6.svg"));
  EXPECT_FALSE(is_run_varying_file("ios/fig4.1.svg"));
  EXPECT_FALSE(is_run_varying_file("ios/items.csv"));
  const std::string a = "item,latency_ms,wall_s\r\nfig1,1.5,3\r\nfig2,2,4\r\n";
  EXPECT_TRUE(compare_report_file("p/items.csv", a,
                                  "item,latency_ms,wall_s\r\nfig1,1.5,9\r\n"
                                  "fig2,2,1\r\n")
                  .empty());
  // Columns are matched by name: another order is no difference.
  EXPECT_TRUE(
      compare_report_file("p/items.csv", a, "wall_s,item,latency_ms\r\n0,fig1,1.5\r\n0,fig2,2\r\n")
          .empty());
  EXPECT_EQ(compare_report_file("p/items.csv", a,
                                "item,latency_ms,wall_s\r\nfig1,1.5,3\r\nfig2,"
                                "2.5,4\r\n"),
            std::vector<std::string>{
                "p/items.csv row 2 (fig2) column latency_ms: expected 2, this run 2.5"});
  EXPECT_EQ(compare_report_file("p/items.csv", a, "item,wall_s\r\nfig1,3\r\nfig2,4\r\n"),
            std::vector<std::string>{"p/items.csv: column latency_ms is expected but absent"});
  EXPECT_EQ(compare_report_file("p/items.csv", a, "item,latency_ms,wall_s\r\nfig1,1.5,3\r\n"),
            std::vector<std::string>{"p/items.csv: 2 rows expected, 1 rows in this run"});
  EXPECT_EQ(compare_report_file("p/f.svg", "<svg>\n<a/>\n</svg>\n", "<svg>\n<b/>\n</svg>\n"),
            std::vector<std::string>{"p/f.svg line 2: expected <a/>, this run <b/>"});
}

TEST_F(ReportFolderFixture, CompareFoldersReportsMissingAndExtraFilesButNotRunInfo) {
  write("a/p/run_info.csv", "field,value\r\ncommit,1\r\n");
  write("b/p/run_info.csv", "field,value\r\ncommit,2\r\n");
  write("a/p/x.txt", "same\n");
  write("b/p/x.txt", "same\n");
  const std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  EXPECT_TRUE(compare_report_folders(a, b, 10).empty());
  write("a/p/gone.csv", "k\r\n1\r\n");
  write("b/p/new.svg", "<svg/>\n");
  EXPECT_EQ(compare_report_folders(a, b, 10),
            (std::vector<std::string>{"p/gone.csv: expected, but this run did not write it",
                                      "p/new.svg: written by this run, but not expected"}));
  EXPECT_EQ(compare_report_folders(a, b, 1).size(), 1u);
  EXPECT_EQ(
      compare_report_folders((dir_ / "a" / "p").string(), (dir_ / "b" / "p").string(), 1, "p/"),
      std::vector<std::string>{"p/gone.csv: expected, but this run did not write it"});
}

}  // namespace
}  // namespace dgs
