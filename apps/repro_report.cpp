// repro_report [DIR]: rebuilds DIR/index.html and DIR/REPORT.md (default DIR: reports) from the
// files the repro_* executables wrote there (common/report/report_page.h), and prints the page's
// path. `./build.sh reproduce` runs it at the end.
//
// repro_report --compare EXPECTED ACTUAL: compares two report folders (a whole reports/ folder,
// or one paper's, e.g. reports/ios and /tmp/out/ios) the way the committed reports test does (CSV
// cells by column name, other files byte by byte, except the values named in
// run_varying_values(), common/report/report_compare.h) and prints the first 20 differences.
//
// Exit codes: 0 written / no difference; 1 the folders differ; 2 bad arguments or input (a
// missing folder, a malformed CSV, summary.csv or SVG: one line "error: ...").
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "common/report/report_compare.h"
#include "common/report/report_page.h"

namespace {

constexpr size_t kShownDifferences = 20;

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: repro_report [DIR]                     write DIR/index.html and "
               "DIR/REPORT.md (default DIR: reports)\n"
               "       repro_report --compare EXPECTED ACTUAL compare two report folders "
               "(the committed reports test's rule)\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    usage(stdout);
    return 0;
  }
  try {
    if (!args.empty() && args[0] == "--compare") {
      if (args.size() != 3) {
        std::fprintf(stderr, "error: --compare takes two folders (EXPECTED ACTUAL)\n");
        return 2;
      }
      for (const std::string& d : {args[1], args[2]}) {
        if (!std::filesystem::is_directory(d)) {
          std::fprintf(stderr, "error: --compare: no folder %s\n", d.c_str());
          return 2;
        }
      }
      // A paper's folder (reports/ios) is compared under its name, so that the run-varying
      // values of that paper apply; a whole reports folder as it is.
      namespace fs = std::filesystem;
      const fs::path expected = fs::path(args[1]).lexically_normal();
      const bool paper_folder =
          fs::exists(expected / "summary.csv") || fs::exists(expected / "items.csv");
      const std::string name =
          (expected.has_filename() ? expected : expected.parent_path()).filename().string();
      const std::vector<std::string> diffs = dgs::compare_report_folders(
          args[1], args[2], kShownDifferences, paper_folder ? name + "/" : "");
      for (const std::string& d : diffs) std::printf("%s\n", d.c_str());
      if (diffs.empty()) {
        std::printf("no differences (outside the run-varying values)\n");
        return 0;
      }
      return 1;
    }
    if (args.size() > 1 || (!args.empty() && args[0].rfind("--", 0) == 0)) {
      std::fprintf(stderr, "error: unexpected argument '%s' (see --help)\n", args.back().c_str());
      return 2;
    }
    const std::string dir = args.empty() ? "reports" : args[0];
    const std::vector<std::string> written = dgs::write_report_page(dir);
    std::printf("wrote %s and %s\n", written[1].c_str(), written[0].c_str());
    std::printf("open file://%s in a browser (self-contained: works offline)\n",
                std::filesystem::absolute(written[0]).lexically_normal().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
