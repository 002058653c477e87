// The report page over the committed reports (reports/ of the source tree, the model-mode
// results of every paper): its HTML agrees with the files it summarises (and the committed
// REPORT.md is the one they give), and it renders in a real browser (headless Chromium, Debian's
// `chromium`, installed by `./build.sh test`): every figure loads with a size, every section is
// there, nothing is fetched from outside the page. The
// browser test leaves a screenshot of the top of the page (the summary) in the build folder,
// report_summary.png (the README's picture is a copy of it).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/report/report_folder.h"
#include "common/report/report_page.h"
#include "common/util/resources.h"
#include "tests/scratch_dir.h"

namespace dgs {
namespace {

namespace fs = std::filesystem;

const fs::path kReports = fs::path(DGS_SOURCE_DIR) / "reports";

// The committed paper folders (those with a summary.csv), sorted.
std::vector<std::string> committed_papers() {
  std::vector<std::string> out;
  if (!fs::is_directory(kReports)) return out;
  for (const auto& e : fs::directory_iterator(kReports))
    if (e.is_directory() && fs::exists(e.path() / "summary.csv"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> files_with_suffix(const fs::path& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.ends_with(suffix)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size()))
    ++n;
  return n;
}

// The text between `begin` (included) and the next `end` after it.
std::string slice(const std::string& text, const std::string& begin, const std::string& end) {
  const size_t b = text.find(begin);
  if (b == std::string::npos) return "";
  const size_t e = text.find(end, b + begin.size());
  return text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

// The data-col cells of one <tr>: column -> text.
std::map<std::string, std::string> data_cells(const std::string& row) {
  std::map<std::string, std::string> out;
  static const std::regex cell("data-col=\"([a-z_0-9]+)\">([^<]*)</td>");
  for (std::sregex_iterator it(row.begin(), row.end(), cell), end; it != end; ++it)
    out[(*it)[1]] = (*it)[2];
  return out;
}

TEST(CommittedReportPage, HtmlAgreesWithTheReportFilesItSummarises) {
  const std::vector<std::string> papers = committed_papers();
  ASSERT_FALSE(papers.empty()) << "no committed reports under " << kReports
                               << ": run ./build.sh reproduce and commit reports/";
  const ReportPage page = build_report_page(kReports.string());
  EXPECT_EQ(page.papers, papers);
  for (const std::string& p : papers) {
    SCOPED_TRACE(p);
    const ReportFolder f = read_report_folder((kReports / p).string());
    // The summary row equals the total row of summary.csv.
    int total = -1, items = 0;
    for (size_t i = 0; i < f.summary.rows.size(); ++i) {
      if (f.summary.get(i, "item") == "total")
        total = static_cast<int>(i);
      else
        ++items;
    }
    ASSERT_GE(total, 0) << "summary.csv has no total row";
    const auto t = static_cast<size_t>(total);
    auto n = [&](const char* col) { return std::stoi(f.summary.get(t, col)); };
    const auto cells =
        data_cells(slice(page.html, "<tr class=\"paper-row\" data-paper=\"" + p + "\">", "</tr>"));
    ASSERT_FALSE(cells.empty()) << "no summary row for " << p;
    EXPECT_EQ(cells.at("items"), std::to_string(items));
    EXPECT_EQ(cells.at("hold"), std::to_string(n("own_hold") + n("stand_in_hold")));
    EXPECT_EQ(cells.at("deviate"), std::to_string(n("own_deviate") + n("stand_in_deviate")));
    EXPECT_EQ(cells.at("checked"), std::to_string(n("own_hold") + n("stand_in_hold") +
                                                  n("own_deviate") + n("stand_in_deviate")));
    EXPECT_EQ(cells.at("stand_in"),
              std::to_string(n("stand_in_hold")) + " / " + std::to_string(n("stand_in_deviate")));
    EXPECT_EQ(cells.at("informational"), std::to_string(n("informational")));
    EXPECT_EQ(cells.at("calibration"), std::to_string(n("calibration")));
    EXPECT_EQ(cells.at("paper_cells"), std::to_string(n("paper_cells")));
    // Every item of the summary has its section, with one claims row per row of its claims file.
    for (size_t i = 0; i < f.summary.rows.size(); ++i) {
      const std::string item = f.summary.get(i, "item");
      if (item == "total") continue;
      const std::string section =
          slice(page.html, "<section class=\"item\" id=\"" + p + "-" + item + "\">", "</section>");
      ASSERT_FALSE(section.empty()) << "no section for " << item;
      const fs::path claims = kReports / p / (item + "_claims.csv");
      const size_t rows =
          fs::exists(claims) ? read_csv_file(claims.string()).rows.size() : size_t{0};
      EXPECT_EQ(count_of(section, "<tr class=\"claim "), rows) << item;
    }
    // Every SVG of the folder is inline once.
    for (const std::string& svg : files_with_suffix(kReports / p, ".svg"))
      EXPECT_EQ(count_of(page.html, "data-file=\"" + p + "/" + svg + "\"><svg "), 1u) << svg;
    EXPECT_NE(page.markdown.find("(`" + p + "`) | " + std::to_string(items) + " | "),
              std::string::npos);
  }
  // The committed REPORT.md is the one these reports give (regenerated with them: `repro_report
  // reports`).
  EXPECT_EQ(read_file((kReports / "REPORT.md").string()), page.markdown)
      << "reports/REPORT.md is stale: run ./build/repro_report reports and commit it";
}

// The browser: `chromium` on PATH, or DGS_CHROMIUM.
std::string chromium() {
  const char* env = std::getenv("DGS_CHROMIUM");
  return env && *env ? env : "chromium";
}

// Runs a shell command; its exit status.
int shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Checks the page from inside the browser and writes one line per finding into <pre
// id="dgs-result">: "figure <file> <width>x<height> <svg|not-svg>", "section <id>",
// "resources <n>" (anything fetched: the page must fetch nothing).
constexpr const char* kCheckScript = R"js(<script>
(() => {
  const out = [];
  document.querySelectorAll('figure.chart').forEach(f => {
    const s = f.querySelector('svg');
    const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    const kind = s instanceof SVGSVGElement && s.querySelectorAll('text, rect, path, line, polyline').length > 0 ? 'svg' : 'not-svg';
    out.push('figure ' + f.dataset.file + ' ' + Math.round(r.width) + 'x' + Math.round(r.height) + ' ' + kind);
  });
  document.querySelectorAll('section[id]').forEach(s => out.push('section ' + s.id));
  out.push('resources ' + performance.getEntriesByType('resource').length);
  const pre = document.createElement('pre');
  pre.id = 'dgs-result';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
})();
</script>)js";

TEST(CommittedReportPage, RendersInHeadlessChromiumWithEveryFigureAndSection) {
  const std::vector<std::string> papers = committed_papers();
  ASSERT_FALSE(papers.empty()) << "no committed reports under " << kReports;
  ASSERT_EQ(shell("command -v " + chromium() + " > /dev/null"), 0)
      << "no '" << chromium()
      << "' browser: install Debian's chromium (./build.sh test does) or set DGS_CHROMIUM";
  const ScratchDir scratch("report_browser");
  const fs::path& dir = scratch.path();
  fs::create_directories(dir / "reports");
  for (const std::string& p : papers)
    fs::copy(kReports / p, dir / "reports" / p, fs::copy_options::recursive);
  // The page as repro_report writes it.
  ASSERT_EQ(shell(std::string(DGS_BINARY_DIR) + "/repro_report " + (dir / "reports").string() +
                  " > " + (dir / "repro_report.out").string()),
            0);
  const std::string html = read_file((dir / "reports" / "index.html").string());
  std::string checked = html;
  checked.insert(checked.rfind("</body>"), kCheckScript);
  write_file_atomic((dir / "reports" / "check.html").string(), checked);
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --user-data-dir=" + (dir / "profile").string();
  ASSERT_EQ(shell("timeout 120 " + chromium() + flags + " --dump-dom file://" +
                  (dir / "reports" / "check.html").string() + " > " + (dir / "dom.html").string() +
                  " 2> " + (dir / "chromium.err").string()),
            0)
      << read_file((dir / "chromium.err").string());
  const std::string marker = "<pre id=\"dgs-result\">";
  std::string result = slice(read_file((dir / "dom.html").string()), marker, "</pre>");
  ASSERT_FALSE(result.empty()) << "the check script did not run";
  result = result.substr(marker.size());
  std::set<std::string> figures, sections;
  std::istringstream lines(result);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    std::string what, name;
    w >> what >> name;
    if (what == "figure") {
      std::string size, kind;
      w >> size >> kind;
      figures.insert(name);
      EXPECT_EQ(kind, "svg") << name << " is not drawn as SVG";
      int width = 0, height = 0;
      ASSERT_EQ(std::sscanf(size.c_str(), "%dx%d", &width, &height), 2) << line;
      EXPECT_GT(width, 100) << name;
      EXPECT_GT(height, 50) << name;
    } else if (what == "section") {
      sections.insert(name);
    } else if (what == "resources") {
      EXPECT_EQ(name, "0") << "the page fetched files: it must be self-contained";
    }
  }
  EXPECT_TRUE(sections.count("summary"));
  EXPECT_TRUE(sections.count("environment"));
  for (const std::string& p : papers) {
    EXPECT_TRUE(sections.count("paper-" + p)) << p;
    for (const std::string& svg : files_with_suffix(kReports / p, ".svg"))
      EXPECT_TRUE(figures.count(p + "/" + svg)) << p << "/" << svg << " is not on the page";
    const ReportFolder f = read_report_folder((kReports / p).string());
    for (const ReportItem& it : f.items) {
      if (it.has_files()) {
        EXPECT_TRUE(sections.count(p + "-" + it.id)) << p << " " << it.id;
      }
    }
  }
  // The README's picture: the top of the page, the summary.
  const std::string png = std::string(DGS_BINARY_DIR) + "/report_summary.png";
  EXPECT_EQ(shell("timeout 120 " + chromium() + flags +
                  " --hide-scrollbars --window-size=1280,820 --screenshot=" + png + " file://" +
                  (dir / "reports" / "index.html").string() + " > /dev/null 2>&1"),
            0);
  EXPECT_GT(fs::exists(png) ? fs::file_size(png) : 0, 20000u) << "no screenshot " << png;
}

}  // namespace
}  // namespace dgs
