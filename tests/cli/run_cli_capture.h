#pragma once
// Runs run_cli in-process for a fake paper, with its output and error streams captured.
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace dgs::cli_test {

inline const PaperInfo kPaper{"fakepaper", "Fake paper (test): a paper with four experiments",
                              "fake.txt"};

struct Result {
  int code = -1;
  std::string out, err;
  int err_lines() const {
    int n = 0;
    for (char c : err) n += c == '\n';
    return n;
  }
};

// `gpu_available`: replaces the machine's GPU check when given.
inline Result run(const std::vector<std::string>& args, const std::vector<Experiment>& experiments,
                  const GpuProbe& gpu_available = {}) {
  std::vector<const char*> argv = {"repro_fakepaper"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Result r;
  r.code = run_cli(static_cast<int>(argv.size()), argv.data(), kPaper, experiments, out, err,
                   gpu_available);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace dgs::cli_test
