// The layout rules of ../shared/DESIGN.md, checked on the sources: every common/ part includes only
// the parts below it (the table here is the declared layering; a new part must be added to it) and
// nothing above common/ (models/, cli/, apps/, the papers); the command-line front end, cli/, sits
// above common/ and models/ and includes nothing else of the suite; and no paper's name appears in
// common/ (paper-specific code lives in reproductions/<paper>/).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = DGS_SOURCE_DIR;

// part -> the parts (and top-level folders) its files may include.
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> a = {
      {"util", {}},
      {"graph", {"util"}},
      {"onnx", {"util", "graph"}},
      {"hw", {"util"}},
      {"plan", {"util", "graph"}},
      {"brick", {"util", "graph"}},
      {"report", {"util"}},
      {"exec", {"util", "graph", "plan"}},
      {"tileprog", {"util", "graph", "plan", "exec"}},
      {"gpumodel", {"util", "graph", "hw", "plan"}},
      {"dsamodel", {"util", "graph", "hw", "plan"}},
      {"cuda", {"util", "graph", "hw", "plan", "exec", "tileprog", "brick"}},
      {"evaluate", {"util", "graph", "hw", "plan", "gpumodel", "dsamodel"}},
      {"scheduler", {"util", "graph", "hw", "plan", "gpumodel", "dsamodel", "evaluate"}},
      {"onnxcheck", {"util", "graph", "onnx", "exec"}},
  };
  return a;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_source(const fs::path& p) {
  const std::string e = p.extension().string();
  return e == ".h" || e == ".cpp" || e == ".cu" || e == ".cuh";
}

TEST(Layering, CommonPartsIncludeOnlyThePartsBelowThem) {
  const std::regex inc(
      R"re(#include\s+"(common/([a-z_]+)|(models|cli|apps|reproductions|compare|examples|validation))/)re");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "common")) {
    if (!e.is_regular_file() || !is_source(e.path())) continue;
    const std::string part = fs::relative(e.path(), kRoot / "common").begin()->string();
    auto it = allowed().find(part);
    ASSERT_NE(it, allowed().end()) << "common/" << part
                                   << " is not in the layering table of this test: add it with "
                                      "the parts it may include";
    ++files;
    const std::string text = read(e.path());
    for (std::sregex_iterator m(text.begin(), text.end(), inc), end; m != end; ++m) {
      const std::string dep = (*m)[2].matched ? (*m)[2].str() : (*m)[3].str();
      if (dep == part) continue;
      EXPECT_TRUE(it->second.count(dep))
          << fs::relative(e.path(), kRoot).string() << " includes " << dep << ", which common/"
          << part << " may not (it sits above it)";
    }
  }
  EXPECT_GT(files, 50);
}

// cli/ (the front end of every repro_* executable) may include common/ and models/ (it resolves
// --model in the zoo), and itself; no other folder of the suite (reproductions/, compare/, apps/,
// validation/, examples/, tests/, ...): those sit above it.
TEST(Layering, CliIncludesOnlyCommonAndModels) {
  const std::set<std::string> may = {"cli", "common", "models"};
  std::set<std::string> top;  // the suite's top-level folders: what an include of "<folder>/" names
  for (const auto& e : fs::directory_iterator(kRoot))
    if (e.is_directory()) top.insert(e.path().filename().string());
  ASSERT_TRUE(top.count("reproductions") && top.count("apps") && top.count("compare"));
  const std::regex inc(R"re(#include\s+"([A-Za-z0-9_.-]+)/)re");
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "cli")) {
    if (!e.is_regular_file() || !is_source(e.path())) continue;
    ++files;
    const std::string text = read(e.path());
    for (std::sregex_iterator m(text.begin(), text.end(), inc), end; m != end; ++m) {
      const std::string dep = (*m)[1].str();
      if (!top.count(dep)) continue;  // not a folder of the suite (a library's header)
      EXPECT_TRUE(may.count(dep)) << fs::relative(e.path(), kRoot).string() << " includes " << dep
                                  << "/, which cli/ may not (only common/ and models/)";
    }
  }
  EXPECT_GT(files, 5);
}

// A paper folder (README, "Adding a paper"): its method, reproductions/<paper>/*, includes no
// experiment (reproductions/<paper>/experiments/) and no other paper; its experiments include
// their own paper only.
TEST(Layering, PaperMethodIncludesNoExperiments) {
  const std::regex inc(R"re(#include\s+"reproductions/([a-z0-9_]+)/(experiments/)?)re");
  int papers = 0;
  for (const auto& dir : fs::directory_iterator(kRoot / "reproductions")) {
    if (!dir.is_directory()) continue;
    const std::string paper = dir.path().filename().string();
    ++papers;
    EXPECT_TRUE(fs::is_directory(dir.path() / "experiments"))
        << "reproductions/" << paper << "/ has no experiments/ folder";
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
      if (!e.is_regular_file() || !is_source(e.path())) continue;
      const std::string rel = fs::relative(e.path(), kRoot).string();
      const bool in_experiments =
          fs::relative(e.path(), dir.path()).begin()->string() == "experiments";
      const bool is_main =
          e.path().filename() == "main.cpp" && e.path().parent_path() == dir.path();
      const std::string text = read(e.path());
      for (std::sregex_iterator m(text.begin(), text.end(), inc), end; m != end; ++m) {
        EXPECT_EQ((*m)[1].str(), paper) << rel << " includes another paper's code";
        if ((*m)[2].matched && !in_experiments && !is_main)
          ADD_FAILURE() << rel << " (the method) includes an experiment: " << m->str();
      }
    }
  }
  EXPECT_GE(papers, 6);  // the five papers and the template
}

// Schedulers and experiments see a machine through HardwareSpec and the models' public headers
// (issue 24): no file of reproductions/, cli/, compare/, apps/ or examples/ includes a header
// internal to a model (what one task asks of the DSA before timing, the DSA timeline's indexes and
// simulator, the GPU model's shared internals).
TEST(Layering, SchedulersIncludeNoModelInternals) {
  const std::set<std::string> internal = {
      "common/dsamodel/dsa_task.h", "common/dsamodel/dsa_task_internal.h",
      "common/dsamodel/busy_intervals.h", "common/dsamodel/dsa_simulator.h",
      "common/gpumodel/model_internal.h"};
  for (const std::string& h : internal)
    ASSERT_TRUE(fs::exists(kRoot / h)) << h << " moved: update this test's list";
  const std::regex inc(R"re(#include\s+"(common/[a-z_]+/[a-z_]+\.h)")re");
  int files = 0;
  for (const char* top : {"reproductions", "cli", "compare", "apps", "examples"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
      if (!e.is_regular_file() || !is_source(e.path())) continue;
      ++files;
      const std::string text = read(e.path());
      for (std::sregex_iterator m(text.begin(), text.end(), inc), end; m != end; ++m)
        EXPECT_FALSE(internal.count((*m)[1].str()))
            << fs::relative(e.path(), kRoot).string() << " includes " << (*m)[1].str()
            << ", internal to its model; expected the model's public interface";
    }
  }
  EXPECT_GT(files, 100);
}

TEST(Layering, NoPaperNamesInCommon) {
  const std::regex paper(
      R"(\bIOS\b|\bIos[A-Z]\w*|kIos\w*|\bios_\w+|(^|[^:])\bios\b|repro_ios|[Ww]elder|WELDER|GraphTurbo|[Gg]raph[Tt]urbo|BrickDL|[Bb]rick[Dd][Ll]|[Aa]tomic [Dd]ataflow|AtomicDataflow)");
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "common")) {
    if (!e.is_regular_file()) continue;
    std::istringstream lines(read(e.path()));
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      std::smatch m;
      if (std::regex_search(line, m, paper))
        ADD_FAILURE() << fs::relative(e.path(), kRoot).string() << ":" << n << " names a paper ('"
                      << m.str() << "'): " << line;
    }
  }
}

}  // namespace
