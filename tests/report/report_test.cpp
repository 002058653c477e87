// Tests of common/report: tables, CSV writer and parser, paper data, claims, SVG charts.
// Golden files live in tests/report/golden/ and are compared byte for byte; run the test with
// DGS_UPDATE_GOLDEN=1 to regenerate them (then review the diff).
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/error_of.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>

#include "common/report/report.h"
#include "common/util/error.h"
#include "common/util/resources.h"

namespace dgs {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string golden_path(const std::string& name) {
  return std::string(DGS_SOURCE_DIR) + "/tests/report/golden/" + name;
}

// Compares `actual` with the golden file byte for byte (or rewrites it with DGS_UPDATE_GOLDEN=1).
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("DGS_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    write_file_atomic(path, actual);
    std::cout << "[golden] rewrote " << path << "\n";
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << "missing golden file " << path << " (run with DGS_UPDATE_GOLDEN=1 to create it)";
  const std::string expected = read_file(path);
  EXPECT_EQ(actual, expected) << "output differs from " << path
                              << " (if the change is intended, rerun with DGS_UPDATE_GOLDEN=1)";
}

// A minimal XML well-formedness check: balanced tags, quoted attributes, known entities, one
// root element named `root`.
::testing::AssertionResult well_formed_xml(const std::string& x, const std::string& root) {
  std::vector<std::string> stack;
  size_t i = 0;
  int roots = 0;
  if (x.rfind("<?xml", 0) == 0) {
    i = x.find("?>");
    if (i == std::string::npos)
      return ::testing::AssertionFailure() << "unterminated XML declaration";
    i += 2;
  }
  while (i < x.size()) {
    if (x[i] == '<') {
      const size_t end = x.find('>', i);
      if (end == std::string::npos)
        return ::testing::AssertionFailure() << "unterminated tag at " << i;
      std::string tag = x.substr(i + 1, end - i - 1);
      i = end + 1;
      if (!tag.empty() && tag[0] == '/') {
        const std::string name = tag.substr(1);
        if (stack.empty() || stack.back() != name) {
          return ::testing::AssertionFailure() << "closing </" << name << "> does not match";
        }
        stack.pop_back();
        continue;
      }
      const bool self_closing = !tag.empty() && tag.back() == '/';
      if (self_closing) tag.pop_back();
      const size_t sp = tag.find_first_of(" \n\t");
      const std::string name = tag.substr(0, sp);
      if (name.empty()) return ::testing::AssertionFailure() << "empty tag name";
      // Attributes: name="value" pairs.
      std::string rest = sp == std::string::npos ? "" : tag.substr(sp);
      size_t k = 0;
      while (k < rest.size()) {
        if (std::isspace(static_cast<unsigned char>(rest[k]))) {
          ++k;
          continue;
        }
        const size_t eq = rest.find('=', k);
        if (eq == std::string::npos || eq + 1 >= rest.size() || rest[eq + 1] != '"') {
          return ::testing::AssertionFailure() << "unquoted attribute in <" << name << ">";
        }
        const size_t close = rest.find('"', eq + 2);
        if (close == std::string::npos)
          return ::testing::AssertionFailure() << "unterminated attribute";
        if (rest.substr(eq + 2, close - eq - 2).find('<') != std::string::npos) {
          return ::testing::AssertionFailure() << "'<' in an attribute value";
        }
        k = close + 1;
      }
      if (stack.empty()) {
        ++roots;
        if (name != root) return ::testing::AssertionFailure() << "root is <" << name << ">";
      }
      if (!self_closing) stack.push_back(name);
      continue;
    }
    if (x[i] == '&') {
      const size_t semi = x.find(';', i);
      const std::string ent = x.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;") {
        return ::testing::AssertionFailure() << "unknown entity " << ent;
      }
      i = semi + 1;
      continue;
    }
    if (stack.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) {
      return ::testing::AssertionFailure() << "text outside the root element";
    }
    ++i;
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> not closed";
  if (roots != 1) return ::testing::AssertionFailure() << roots << " root elements";
  return ::testing::AssertionSuccess();
}

Table sample_table() {
  Table t({"model", "variant", "latency_ms", "kernels", "paper"});
  t.add_row({std::string("ResNet-50"), std::string("Welder"), 1.23456, int64_t{42}, 1.3});
  t.add_row(
      {std::string("BERT, large"), std::string("say \"hi\""), 1234.5678, int64_t{7}, Missing{}});
  t.add_row(
      {std::string("ViT\nnew line"), std::string("µs ünïcode"), 0.000012345, int64_t{-3}, kNaN});
  return t;
}

// ----------------------------------------------------------------------------------------------
// Tables
// ----------------------------------------------------------------------------------------------

TEST(FormatCell, SignificantDigitsAndSpecialValues) {
  EXPECT_EQ(format_cell(Missing{}, 3), "-");
  EXPECT_EQ(format_cell(std::string("x"), 3), "x");
  EXPECT_EQ(format_cell(int64_t{123456}, 3), "123456");
  EXPECT_EQ(format_cell(1.23456, 3), "1.23");
  EXPECT_EQ(format_cell(12.3456, 3), "12.3");
  EXPECT_EQ(format_cell(1234.56, 3), "1235");  // integer digits are never dropped
  EXPECT_EQ(format_cell(0.0123456, 3), "0.0123");
  EXPECT_EQ(format_cell(-2.5, 2), "-2.5");
  EXPECT_EQ(format_cell(0.0, 3), "0");
  EXPECT_EQ(format_cell(1.5e-7, 3), "1.50e-07");
  EXPECT_EQ(format_cell(kNaN, 3), "nan");
  EXPECT_EQ(format_cell(std::numeric_limits<double>::infinity(), 3), "inf");
}

TEST(FormatCell, RatioCellIsMissingWithoutAPaperValue) {
  EXPECT_EQ(std::get<double>(ratio_cell(3.0, 2.0)), 1.5);
  EXPECT_TRUE(std::holds_alternative<Missing>(ratio_cell(3.0, std::nullopt)));
  EXPECT_TRUE(std::holds_alternative<Missing>(ratio_cell(3.0, 0.0)));
}

TEST(Table, RowWidthMustMatchColumns) {
  Table t({"a", "b"});
  EXPECT_EQ(error_of([&] { t.add_row({int64_t{1}}); }),
            "table row has 1 cells, expected 2 (one per column)");
  t.add_row({int64_t{1}, 2.0});
  EXPECT_EQ(t.rows().size(), 1u);
  EXPECT_EQ(t.column("b"), 1);
  EXPECT_EQ(error_of([&] { (void)t.column("c"); }), "table has no column 'c'");
}

TEST(Table, TerminalTableMatchesGolden) {
  Table t({"model", "speedup", "paper", "kernels"});
  t.add_row({std::string("ResNet-50"), 1.23456, 1.3, int64_t{42}});
  t.add_row({std::string("BERT-large"), 12.5, Missing{}, int64_t{7}});
  t.add_row({std::string("µ-net"), 0.5, 100.0, int64_t{123456}});
  std::ostringstream os;
  print_table(os, "Fig. 13: sample table", t);
  expect_golden("table.txt", os.str());
}

TEST(Table, NumbersAreRightAlignedAndTextLeftAligned) {
  Table t({"name", "v"});
  t.add_row({std::string("a"), int64_t{1}});
  t.add_row({std::string("long name"), int64_t{1000}});
  std::ostringstream os;
  print_table(os, "", t);
  EXPECT_NE(os.str().find("| a         |    1 |"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("| long name | 1000 |"), std::string::npos) << os.str();
}

// ----------------------------------------------------------------------------------------------
// CSV
// ----------------------------------------------------------------------------------------------

TEST(Csv, QuotingMatchesGolden) {
  expect_golden("quoting.csv", to_csv(sample_table()));
}

TEST(Csv, QuotesOnlyWhatNeedsQuoting) {
  Table t({"a", "b,c"});
  t.add_row({std::string("plain"), std::string("has \"quote\"")});
  EXPECT_EQ(to_csv(t), "a,\"b,c\"\r\nplain,\"has \"\"quote\"\"\"\r\n");
}

TEST(Csv, ParserReadsBackWhatTheWriterWrote) {
  const Table t = sample_table();
  const auto rows = parse_csv(to_csv(t), "mem");
  ASSERT_EQ(rows.size(), t.rows().size() + 1);
  EXPECT_EQ(rows[0], t.columns());
  EXPECT_EQ(rows[1][0], "ResNet-50");
  EXPECT_EQ(rows[1][2], "1.23456");
  EXPECT_EQ(rows[2][0], "BERT, large");
  EXPECT_EQ(rows[2][1], "say \"hi\"");
  EXPECT_EQ(rows[2][4], "");
  EXPECT_EQ(rows[3][0], "ViT\nnew line");
  EXPECT_EQ(rows[3][1], "µs ünïcode");
  EXPECT_EQ(rows[3][2], "1.2345e-05");
}

TEST(Csv, ParserHandlesLineEndingsBomAndEmptyLines) {
  const auto recs = parse_csv_records("\xEF\xBB\xBFh1,h2\n\na,\"b\nc\"\r\nd,e", "mem");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].fields, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_EQ(recs[1].line, 3);
  EXPECT_EQ(recs[1].fields, (std::vector<std::string>{"a", "b\nc"}));
  EXPECT_EQ(recs[2].line, 5);  // the quoted line break counts
  EXPECT_EQ(recs[2].fields, (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(parse_csv("a,,\n", "mem")[0], (std::vector<std::string>{"a", "", ""}));
}

TEST(Csv, MalformedInputNamesTheLine) {
  EXPECT_EQ(error_of([] { parse_csv("a,b\n1,2\n3,\"4\n5,6\n", "x.csv"); }),
            "x.csv:3: unterminated quoted field (a '\"' opened here is never closed)");
  EXPECT_EQ(error_of([] { parse_csv("a,b\n1,2\n3\n", "x.csv"); }),
            "x.csv:3: record has 1 fields, expected 2 (as in line 1)");
  EXPECT_EQ(
      error_of([] { parse_csv("a,b\n\"1\"x,2\n", "x.csv"); }),
      "x.csv:2: unexpected character 'x' after a closing quote (expected ',' or end of line)");
  EXPECT_EQ(
      error_of([] { parse_csv("a,b\n1,2\"\n", "x.csv"); }),
      "x.csv:2: quote inside an unquoted field (quote the whole field and double inner quotes)");
}

TEST(Csv, WriteCsvIsAtomicAndCreatesFolders) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dgs_report_test_csv_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "t.csv").string();
  write_csv(path, sample_table());
  EXPECT_EQ(read_file(path), to_csv(sample_table()));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove_all(dir);
}

// ----------------------------------------------------------------------------------------------
// Paper data
// ----------------------------------------------------------------------------------------------

const char* kPaperCsv =
    "model,variant,latency_ms,source\n"
    "ResNet-50,Welder,1.5,\"Fig. 13, left\"\n"
    "ResNet-50,none,,Fig. 13\n"
    "BERT,Welder,n/a,Fig. 13\n";

TEST(PaperData, LooksUpValuesAndSources) {
  const PaperData d = PaperData::parse(kPaperCsv, "data/x/fig13.csv");
  EXPECT_EQ(d.rows().size(), 3u);
  EXPECT_EQ(d.value({{"model", "ResNet-50"}, {"variant", "Welder"}}, "latency_ms"), 1.5);
  EXPECT_EQ(d.source({{"model", "ResNet-50"}, {"variant", "Welder"}}), "Fig. 13, left");
  EXPECT_FALSE(d.value({{"model", "ResNet-50"}, {"variant", "none"}}, "latency_ms").has_value());
  EXPECT_FALSE(d.value({{"model", "VGG"}}, "latency_ms").has_value());
  EXPECT_TRUE(std::holds_alternative<Missing>(d.cell({{"model", "VGG"}}, "latency_ms")));
  EXPECT_EQ(std::get<double>(d.cell({{"model", "ResNet-50"}}, "latency_ms")), 1.5);
  EXPECT_EQ(*d.text({{"model", "BERT"}}, "latency_ms"), "n/a");
  EXPECT_EQ(error_of([&] {
              (void)d.value({{"model", "BERT"}}, "latency_ms");
            }),
            "data/x/fig13.csv:4: column 'latency_ms': 'n/a' is not a number");
  EXPECT_EQ(error_of([&] {
              (void)d.value({{"modle", "BERT"}}, "latency_ms");
            }),
            "data/x/fig13.csv: no column 'modle' (columns: model, variant, latency_ms, source)");
}

TEST(PaperData, RequiresASourceForEveryRow) {
  EXPECT_EQ(error_of([] { PaperData::parse("model,value\nA,1\n", "d.csv"); }),
            "d.csv:1: no 'source' column in the header (every paper value needs its source)");
  EXPECT_EQ(error_of([] { PaperData::parse("model,value,source\nA,1,Table 2\nB,2,\n", "d.csv"); }),
            "d.csv:3: empty 'source' (name the paper's table, figure or section)");
  EXPECT_EQ(error_of([] { PaperData::parse("model,model,source\n", "d.csv"); }),
            "d.csv:1: duplicate column 'model'");
  EXPECT_EQ(error_of([] { PaperData::parse("", "d.csv"); }),
            "d.csv:1: empty file (expected a header row with a 'source' column)");
  EXPECT_EQ(error_of([] { PaperData::parse("a,source\n1,2\n3\n", "d.csv"); }),
            "d.csv:3: record has 1 fields, expected 2 (as in line 1)");
}

TEST(PaperData, MissingBuiltinFileIsAnError) {
  const std::string msg = error_of([] { PaperData::load("no_such_paper", "fig1.csv"); });
  EXPECT_EQ(msg,
            "no built-in paper data data/no_such_paper/fig1.csv (built-in files for "
            "'no_such_paper': none)");
}

TEST(PaperData, EveryBuiltinDataFileParses) {
  // Every data/<paper>/*.csv compiled into the suite has a source column and a source per row.
  for (const std::string& path : builtin_resources_under("data/")) {
    const std::string rest = path.substr(5);
    const size_t slash = rest.find('/');
    ASSERT_NE(slash, std::string::npos) << path;
    EXPECT_NO_THROW(PaperData::load(rest.substr(0, slash), rest.substr(slash + 1))) << path;
  }
}

// ----------------------------------------------------------------------------------------------
// Claims
// ----------------------------------------------------------------------------------------------

std::vector<Claim> sample_claims() {
  Claim stand_in{"Speedup over Ansor on BERT", "Fig. 10", 2.1, 2.0, ClaimKind::Ratio, "x"};
  stand_in.stand_in = "the suite's Ansor-like fusion for Ansor";
  Claim info{"search seconds (at most)", "Fig. 4.6", 43, 0.5, ClaimKind::Time, "s"};
  info.informational = "CPU milliseconds against GPU profiling";
  Claim calibration{"Sequential latency", "Fig. 1.2", 0.48, 0.58, ClaimKind::Time, "ms"};
  calibration.calibrated = "V100: gemm_fp32 = 0.8";
  return {
      {"Welder-base cuts kernel count vs Welder-none", "§5.3, Fig. 13", 67, 65.2,
       ClaimKind::Percentage, "%"},
      {"Speedup over TVM on BERT", "Fig. 10", 2.1, 1.4, ClaimKind::Ratio, "x"},
      {"Latency of ResNet-50", "Table 2", 1.5, 1.5, ClaimKind::Time, "ms"},
      info,
      stand_in,
      calibration,
  };
}

TEST(Claims, EachKindHasOneRule) {
  const std::vector<std::string> lines = claim_rule_lines();
  ASSERT_EQ(lines.size(), size_t(kClaimKinds) + 1);  // the kinds, then the range rule
  EXPECT_EQ(lines[0],
            "ratio: ours - 1 has the sign of paper - 1 (unless paper = 1), and ours / paper within "
            "[1/1.1, 1.1]");
  EXPECT_EQ(lines.back().rfind("range: ", 0), 0u);
  EXPECT_EQ(std::string(claim_rule(ClaimKind::Time).name), "time");
  EXPECT_EQ(claim_rule(ClaimKind::Ratio).bound, ClaimBound::LogRatio);
  EXPECT_EQ(claim_rule(ClaimKind::Percentage).bound, ClaimBound::Absolute);
  EXPECT_EQ(claim_rule(ClaimKind::Count).tolerance, 0);
  EXPECT_EQ(claim_rule(ClaimKind::Ordering).tolerance, 0);
  // One bound per kind of quantity: every percentage (reductions, shares, "similar") 10 points.
  EXPECT_EQ(claim_rule(ClaimKind::Percentage).tolerance, 10);
}

TEST(Claims, HoldsByTheRuleOfItsKind) {
  auto holds = [](ClaimKind k, double paper, double ours) {
    return Claim{"c", "s", paper, ours, k, ""}.holds();
  };
  EXPECT_TRUE(holds(ClaimKind::Ratio, 2.0, 2.19));  // 9.5% off
  EXPECT_FALSE(holds(ClaimKind::Ratio, 2.0, 2.21));
  EXPECT_TRUE(holds(ClaimKind::Ratio, 2.0, 1.82));   // 2.0 / 1.82 = 1.099
  EXPECT_FALSE(holds(ClaimKind::Ratio, 2.0, 1.81));  // within 10% below, but not within 1/1.1
  EXPECT_TRUE(holds(ClaimKind::Ratio, 1.0, 1.05));   // the paper's 1: no sign to follow
  EXPECT_TRUE(holds(ClaimKind::Ratio, 0.8, 0.75));   // a slowdown the paper has too
  EXPECT_TRUE(holds(ClaimKind::Time, 4.0, 4.99));    // 24.75% off
  EXPECT_FALSE(holds(ClaimKind::Time, 4.0, 5.01));
  EXPECT_TRUE(holds(ClaimKind::Percentage, 60, 69.9));  // points, not relative
  EXPECT_FALSE(holds(ClaimKind::Percentage, 60, 70.1));
  EXPECT_TRUE(holds(ClaimKind::Percentage, 0, -9.9));  // "similar": no sign
  EXPECT_FALSE(holds(ClaimKind::Percentage, 0, 10.1));
  EXPECT_TRUE(holds(ClaimKind::Count, 9.2e22, 9.2e22));
  EXPECT_FALSE(holds(ClaimKind::Count, 4900, 4899));
  EXPECT_FALSE(holds(ClaimKind::Ordering, 1, 0));
  EXPECT_FALSE(holds(ClaimKind::Ratio, 1, kNaN));
  EXPECT_DOUBLE_EQ((Claim{"c", "s", 2.0, 0, ClaimKind::Ratio, ""}.tolerance()), 0.2);
  EXPECT_DOUBLE_EQ((Claim{"c", "s", 50, 0, ClaimKind::Percentage, ""}.tolerance()), 10);
}

TEST(Claims, YesNoClaimIsAnOrderingAgainstThePapersYes) {
  const Claim yes = yes_no_claim("a before b (1 = yes)", "Sec. 1", true, "the stand-in");
  EXPECT_EQ(yes.paper, 1);
  EXPECT_EQ(yes.ours, 1);
  EXPECT_EQ(yes.kind, ClaimKind::Ordering);
  EXPECT_EQ(yes.unit, "yes/no");
  EXPECT_EQ(yes.stand_in, "the stand-in");
  EXPECT_EQ(yes.verdict(), "holds");
  const Claim no = yes_no_claim("a before b (1 = yes)", "Sec. 1", false);
  EXPECT_EQ(no.ours, 0);
  EXPECT_EQ(no.verdict(), "deviates");
  const Claim not_run =
      yes_no_claim("a before b (1 = yes)", "Sec. 1", std::nullopt, {}, "not run: too big");
  EXPECT_TRUE(std::isnan(not_run.ours));
  EXPECT_EQ(not_run.verdict(), "informational");
}

// Every kind of claim, in a case where it must deviate: the effect of the other sign, however
// close in size, and a value past the bound. A kind added to ClaimKind without a case here fails.
TEST(Claims, EveryKindDeviatesWhereItMust) {
  struct Case {
    ClaimKind kind;
    double paper, ours;
    const char* why;
  };
  const std::vector<Case> cases = {
      {ClaimKind::Ratio, 1.09, 0.99, "a 1.09x speedup against a 0.99x slowdown (within 10%)"},
      {ClaimKind::Ratio, 0.95, 1.01, "a slowdown against a speedup"},
      {ClaimKind::Ratio, 1.09, 1.0, "a speedup against no effect"},
      {ClaimKind::Ratio, 11.15, 9.38, "past the log bound"},
      {ClaimKind::Time, 0.83, 0.34, "past 25%"},
      {ClaimKind::Percentage, 5, -4, "a 5% reduction against a 4% increase (within 10 points)"},
      {ClaimKind::Percentage, 4, 0, "a 4% degradation against none"},
      {ClaimKind::Percentage, 52, 41.9, "past 10 points"},
      {ClaimKind::Count, 58, 56, "a count off by two"},
      {ClaimKind::Ordering, 1, 0, "no where the paper says yes"},
  };
  std::vector<bool> covered(kClaimKinds, false);
  for (const Case& c : cases) {
    const Claim claim{"c", "s", c.paper, c.ours, c.kind, ""};
    EXPECT_FALSE(claim.holds()) << claim_rule(c.kind).name << ": " << c.why;
    EXPECT_EQ(claim.verdict(), "deviates") << c.why;
    covered[size_t(c.kind)] = true;
  }
  for (int k = 0; k < kClaimKinds; ++k)
    EXPECT_TRUE(covered[size_t(k)])
        << "no deviating case for kind " << claim_rule(ClaimKind(k)).name;
}

TEST(Claims, RangeClaimsHoldInsideOrByTheRuleAtTheNearerEnd) {
  auto range = [](ClaimKind k, double lo, double hi, double ours) {
    Claim c{"c", "s", lo, ours, k, "x"};
    c.paper_high = hi;
    return c;
  };
  EXPECT_TRUE(range(ClaimKind::Ratio, 1.45, 2.30, 2.0).holds());
  EXPECT_TRUE(range(ClaimKind::Ratio, 1.45, 2.30, 2.5).holds());   // 2.5 / 2.3 = 1.087
  EXPECT_FALSE(range(ClaimKind::Ratio, 1.45, 2.30, 2.6).holds());  // 1.13 past the high end
  EXPECT_TRUE(range(ClaimKind::Ratio, 1.45, 2.30, 1.35).holds());  // 1.45 / 1.35 = 1.074
  EXPECT_FALSE(range(ClaimKind::Ratio, 1.45, 2.30, 1.3).holds());
  // A range of speedups is not reproduced by a slowdown, even near 1.
  EXPECT_FALSE(range(ClaimKind::Ratio, 1.06, 1.21, 0.98).holds());
  EXPECT_FALSE(range(ClaimKind::Percentage, 9.4, 17.6, -1).holds());
  EXPECT_TRUE(range(ClaimKind::Percentage, 9.4, 17.6, 0.5).holds());
  const auto [lo, hi] = range(ClaimKind::Ratio, 1.06, 1.21, 1).accepted();
  EXPECT_DOUBLE_EQ(lo, 1.0);  // 1.06 / 1.1 < 1: closed at 1 by the sign test
  EXPECT_DOUBLE_EQ(hi, 1.21 * 1.1);
}

TEST(Claims, InformationalAndCalibrationRowsAreNeverCounted) {
  const auto c = sample_claims();
  EXPECT_EQ(c[3].verdict(), "informational");
  EXPECT_EQ(c[5].verdict(), "calibration point");
  EXPECT_FALSE(c[3].checked());
  ClaimTally t;
  for (const Claim& x : c) t.add(x);
  EXPECT_EQ(t.own_hold, 2);
  EXPECT_EQ(t.own_deviate, 1);
  EXPECT_EQ(t.stand_in_hold, 1);
  EXPECT_EQ(t.stand_in_deviate, 0);
  EXPECT_EQ(t.informational, 1);
  EXPECT_EQ(t.calibration, 1);
  EXPECT_EQ(t.checked(), 4);
  EXPECT_EQ(t.line(),
            "3 of 4 checked claims hold (paper's method: 2 of 3; against stand-ins: 1 of 1); 1 "
            "informational; 1 calibration point");
}

TEST(Claims, BlockMatchesGolden) {
  std::ostringstream os;
  print_claims(os, sample_claims());
  os << "\n" << to_csv(claims_table(sample_claims()));
  expect_golden("claims.txt", os.str());
}

// A row about a system the suite neither runs nor stands in for says so in `against`; a counted
// claim cannot say it (it would print a verdict beside "not run").
TEST(Claims, NotRunIsAnInformationalRowsAgainstLabel) {
  Claim c{"crafted speedup", "Fig. 9", 1.04, NAN, ClaimKind::Ratio, "x"};
  c.informational = "not reproduced";
  c.not_run = "the vendor's code";
  const std::string csv = to_csv(claims_table({c}));
  EXPECT_NE(csv.find(",not run: the vendor's code,informational,"), std::string::npos) << csv;
  c.informational.clear();
  EXPECT_EQ(error_of([&] { (void)claims_table({c}); }),
            "claim 'crafted speedup': 'not run' (the vendor's code) on a counted claim: only an "
            "informational row may say ours was not run");
}

// ----------------------------------------------------------------------------------------------
// Paper-vs-ours cells and the run summary
// ----------------------------------------------------------------------------------------------

TEST(Summary, PaperCellsPairColumnsByName) {
  Table t({"model", "latency_ms", "paper_latency_ms", "ours_trials", "paper_trials", "paper",
           "ours", "paper_orphan", "paper_text", "text"});
  t.add_row({std::string("a"), 2.0, 4.0, int64_t{10}, 8.0, 1.0, 1.1, 3.0, std::string("x"),
             std::string("y")});
  t.add_row({std::string("b"), 2.0, Missing{}, int64_t{10}, 0.0, 1.0, 1.0, 3.0, std::string("x"),
             std::string("y")});
  const std::vector<PaperCell> cells = paper_cells(t);
  // Row a: latency (paper_latency_ms <-> latency_ms), trials (paper_trials <-> ours_trials),
  // paper <-> ours; row b: only paper <-> ours (a Missing paper value and a paper 0 do not count).
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].column, "paper_latency_ms");
  EXPECT_DOUBLE_EQ(cells[0].relative_error(), 0.5);
  EXPECT_EQ(cells[1].column, "paper_trials");
  EXPECT_DOUBLE_EQ(cells[1].relative_error(), 0.25);
  EXPECT_EQ(cells[2].column, "paper");
  EXPECT_NEAR(cells[2].relative_error(), 0.1, 1e-12);
  EXPECT_EQ(cells[3].relative_error(), 0);
}

TEST(Summary, QuantileInterpolatesBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.9), 3.7);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.9), 7);
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(Summary, TableHasOneRowPerItemAndATotal) {
  ItemSummary a{"fig1", {}, {0.1, 0.3}};
  a.claims.own_hold = 2;
  a.claims.stand_in_deviate = 1;
  ItemSummary b{"table2", {}, {}};
  b.claims.informational = 3;
  const Table t = summary_table({a, b});
  ASSERT_EQ(t.rows().size(), 3u);
  EXPECT_EQ(to_csv(t),
            "item,own_hold,own_deviate,stand_in_hold,stand_in_deviate,informational,calibration,"
            "paper_cells,median_rel_error,p90_rel_error\r\n"
            "fig1,2,0,0,1,0,0,2,0.2,0.28\r\n"
            "table2,0,0,0,0,3,0,0,,\r\n"
            "total,2,0,0,1,3,0,2,0.2,0.28\r\n");
}

TEST(Summary, UnreadPaperValuesListsWhatNoLookupRead) {
  const PaperData d = PaperData::load("welder", "table5.csv");
  const auto before = unread_paper_values("welder");
  const std::string cell = "data/welder/table5.csv:2 welder_trials (651)";
  ASSERT_NE(std::find(before.begin(), before.end(), cell), before.end());
  EXPECT_EQ(d.value({{"model", "bert_base"}}, "welder_trials"), 651);
  const auto after = unread_paper_values("welder");
  EXPECT_EQ(std::find(after.begin(), after.end(), cell), after.end());
  EXPECT_EQ(after.size() + 1, before.size());
  // Files named as inputs are not listed.
  for (const std::string& u : unread_paper_values("welder", {"table5.csv"}))
    EXPECT_EQ(u.find("table5.csv"), std::string::npos) << u;
}

// ----------------------------------------------------------------------------------------------
// SVG
// ----------------------------------------------------------------------------------------------

BarChart sample_bar_chart() {
  BarChart c;
  c.title = "Speedup over TVM <sample> & co";
  c.y_label = "speedup (x)";
  c.categories = {"ResNet-50", "BERT", "ViT", "MobileNet-V2"};
  c.series = {{"Welder", {2.1, 1.5, 3.25, 1.0}},
              {"Ansor", {1.2, kNaN, 1.1, 0.9}},
              {"TensorRT", {1.8, 1.3, 2.0, 1.4}}};
  c.reference_y = 1.0;
  return c;
}

LineChart sample_line_chart() {
  LineChart c;
  c.title = "Latency vs batch size";
  c.x_label = "batch size";
  c.y_label = "latency (ms)";
  c.x = {1, 2, 4, 8, 16, 32, 64, 128};
  c.series = {{"IOS", {0.5, 0.8, 1.4, 2.6, 5.1, 10.0, 19.8, 40.0}},
              {"Sequential", {0.9, 1.5, 2.8, kNaN, 9.5, 18.0, 36.0, 71.0}}};
  c.log_x = true;
  c.log_y = true;
  return c;
}

TEST(Svg, BarChartMatchesGoldenAndIsWellFormed) {
  const std::string svg = bar_chart_svg(sample_bar_chart());
  EXPECT_TRUE(well_formed_xml(svg, "svg"));
  EXPECT_EQ(svg, bar_chart_svg(sample_bar_chart()));  // deterministic
  expect_golden("bar_chart.svg", svg);
}

TEST(Svg, BarChartDrawsOneBarPerFiniteValue) {
  const std::string svg = bar_chart_svg(sample_bar_chart());
  size_t bars = 0;
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1))
    ++bars;
  EXPECT_EQ(bars, 11u);  // 12 values, one NaN
  EXPECT_NE(svg.find("Speedup over TVM &lt;sample&gt; &amp; co"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the reference line
}

TEST(Svg, LogBarChartHasDecadeTicks) {
  BarChart c;
  c.title = "log";
  c.categories = {"a", "b"};
  c.series = {{"s", {3, 4500}}};
  c.log_y = true;
  const std::string svg = bar_chart_svg(c);
  EXPECT_TRUE(well_formed_xml(svg, "svg"));
  for (const char* tick : {">1<", ">10<", ">100<", ">1000<", ">10000<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
}

TEST(Svg, LineChartMatchesGoldenAndIsWellFormed) {
  const std::string svg = line_chart_svg(sample_line_chart());
  EXPECT_TRUE(well_formed_xml(svg, "svg"));
  expect_golden("line_chart.svg", svg);
  // The NaN breaks the "Sequential" line into two polylines.
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1))
    ++polylines;
  EXPECT_EQ(polylines, 3u);
}

TEST(Svg, LongTitlesShrinkOrWrapAndNeverOverflow) {
  // Font size of every title line and its text.
  auto title_lines = [](const std::string& svg) {
    std::vector<std::pair<double, std::string>> out;
    const std::string mark = "font-weight=\"bold\" text-anchor=\"middle\">";
    for (size_t at = svg.find(mark); at != std::string::npos; at = svg.find(mark, at + 1)) {
      const size_t fs = svg.rfind("font-size=\"", at);
      const double size = std::atof(svg.c_str() + fs + 11);
      const size_t begin = at + mark.size();
      out.emplace_back(size, svg.substr(begin, svg.find("</text>", begin) - begin));
    }
    return out;
  };
  BarChart c = sample_bar_chart();
  c.title = "Fig. 4.2: frameworks on V100, batch 1 (paper bars; IOS and Sequential computed)";
  const auto shrunk = title_lines(bar_chart_svg(c, 720, 420));
  ASSERT_EQ(shrunk.size(), 1u);
  EXPECT_EQ(shrunk[0].second, c.title);
  EXPECT_LT(shrunk[0].first, 16);
  EXPECT_LE(shrunk[0].first * 0.62 * c.title.size(), 720 - 16);
  const std::string svg = bar_chart_svg(c, 360, 260);
  EXPECT_TRUE(well_formed_xml(svg, "svg"));
  const auto wrapped = title_lines(svg);
  ASSERT_EQ(wrapped.size(), 2u);
  EXPECT_EQ(wrapped[0].second + " " + wrapped[1].second, c.title);
  for (const auto& [size, text] : wrapped) EXPECT_LE(size * 0.62 * text.size(), 360 - 16) << text;
}

TEST(Svg, BarChartDrawsItsCategoryAxisTitle) {
  BarChart c = sample_bar_chart();
  c.x_label = "network";
  const std::string svg = bar_chart_svg(c);
  EXPECT_TRUE(well_formed_xml(svg, "svg"));
  EXPECT_NE(svg.find(">network</text>"), std::string::npos);
  EXPECT_EQ(bar_chart_svg(sample_bar_chart()).find(">network</text>"), std::string::npos);
}

TEST(Svg, SeriesLengthMustMatch) {
  BarChart b = sample_bar_chart();
  b.series[0].values.pop_back();
  EXPECT_EQ(
      error_of([&] { bar_chart_svg(b); }),
      "bar chart 'Speedup over TVM <sample> & co': series 'Welder' has 3 values for 4 categories");
  LineChart l = sample_line_chart();
  l.x.pop_back();
  EXPECT_EQ(error_of([&] { line_chart_svg(l); }),
            "line chart 'Latency vs batch size': series 'IOS' has 8 values for 7 x values");
}

TEST(Svg, PanelsNestChartsInAGrid) {
  const std::string a = bar_chart_svg(sample_bar_chart(), 400, 300);
  const std::string b = line_chart_svg(sample_line_chart(), 400, 300);
  const std::string p = panels_svg({a, b, a}, 2);
  EXPECT_TRUE(well_formed_xml(p, "svg"));
  EXPECT_NE(p.find("width=\"800\" height=\"600\""), std::string::npos);
  EXPECT_NE(p.find("<svg x=\"400\" y=\"0\""), std::string::npos);
  EXPECT_NE(p.find("<svg x=\"0\" y=\"300\""), std::string::npos);
  EXPECT_EQ(p.find("<?xml", 1), std::string::npos);  // only the outer declaration
}

}  // namespace
}  // namespace dgs
