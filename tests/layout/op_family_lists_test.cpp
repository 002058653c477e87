// One operator-family table: the families of common/graph/op_table.inc are spelled out there
// only. Code dispatches on op_family() / ew_class() / is_*(); a hand-written list of a family's
// kinds elsewhere (a run of `case OpKind::...:` labels, or one statement naming the kinds) drifts
// when a kind is added, and fails here. A list counts as a family list when it names four or more
// unary element-wise kinds (EwUnary), or every kind of EwBinary or Logic.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace op_family_lists_test {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = DGS_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// kind -> family, from the table's rows.
std::map<std::string, std::string> table_families() {
  std::map<std::string, std::string> fam;
  const std::string text = read(kRoot / "common/graph/op_table.inc");
  const std::regex row(R"(DGS_OP\((\w+),\s*(\w+))");
  for (std::sregex_iterator m(text.begin(), text.end(), row), end; m != end; ++m) {
    fam[(*m)[1].str()] = (*m)[2].str();
  }
  return fam;
}

// The groups of kinds one piece of code names together: each run of consecutive case labels,
// and each statement (text between ';', '{' and '}') outside case labels.
std::vector<std::vector<std::string>> kind_groups(const std::string& text) {
  std::vector<std::vector<std::string>> groups;
  const std::regex kind(R"(OpKind::(\w+))");
  const std::regex label(R"(^\s*case OpKind::(\w+):\s*$)");
  std::istringstream lines(text);
  std::string line, statement;
  std::vector<std::string> run;
  auto flush_statement = [&] {
    std::vector<std::string> ks;
    for (std::sregex_iterator m(statement.begin(), statement.end(), kind), end; m != end; ++m) {
      ks.push_back((*m)[1].str());
    }
    if (!ks.empty()) groups.push_back(ks);
    statement.clear();
  };
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, label)) {
      run.push_back(m[1].str());
      continue;
    }
    if (!run.empty()) groups.push_back(run);
    run.clear();
    for (char c : line) {
      if (c == ';' || c == '{' || c == '}') {
        flush_statement();
      } else {
        statement += c;
      }
    }
    statement += '\n';
  }
  if (!run.empty()) groups.push_back(run);
  flush_statement();
  return groups;
}

TEST(OpFamilyLists, FamiliesAreListedOnlyInTheOperatorTable) {
  const std::map<std::string, std::string> fam = table_families();
  ASSERT_GT(fam.size(), 50u) << "op_table.inc was not read";
  std::map<std::string, int> family_size;
  for (const auto& [k, f] : fam) ++family_size[f];
  int files = 0;
  for (const char* dir : {"common", "cli", "compare", "reproductions", "apps", "validation"}) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".cu")) continue;
      ++files;
      for (const auto& group : kind_groups(read(e.path()))) {
        std::map<std::string, std::set<std::string>> by_family;
        for (const std::string& k : group) {
          if (auto it = fam.find(k); it != fam.end()) by_family[it->second].insert(k);
        }
        for (const auto& [f, kinds] : by_family) {
          const int n = static_cast<int>(kinds.size());
          const bool list = (f == "EwUnary" && n >= 4) ||
                            ((f == "EwBinary" || f == "Logic") && n == family_size[f]);
          std::string names;
          for (const std::string& k : kinds) names += " " + k;
          EXPECT_FALSE(list) << fs::relative(e.path(), kRoot).string() << " lists the family " << f
                             << " (" << names << " ): dispatch on op_family(k) or the queries "
                             << "of graph.h instead; the family lives in common/graph/op_table.inc";
        }
      }
    }
  }
  EXPECT_GT(files, 300);
}

// The check itself catches a hand-written list.
TEST(OpFamilyLists, AHandWrittenListIsSeen) {
  const auto groups = kind_groups(
      "switch (k) {\n    case OpKind::Relu:\n    case OpKind::Tanh:\n    case OpKind::Exp:\n"
      "    case OpKind::Log:\n      return 1;\n}\nbool b = k == OpKind::Add || k == "
      "OpKind::Sub;\n");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].size(), 4u);
  EXPECT_EQ(groups[1], (std::vector<std::string>{"Add", "Sub"}));
}

}  // namespace
}  // namespace op_family_lists_test
