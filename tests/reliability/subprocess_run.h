#pragma once
// Running the suite's real executables from a test: exit code, stderr, and what a run left under
// its --out folder.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/scratch_dir.h"

namespace dgs {

struct ProcessRun {
  int exit_code = -1;  // -1: killed by a signal (a crash)
  std::string err;     // stderr
};

// Runs `<build>/<program> <args>` through the shell in `cwd` (default: here), stdout discarded,
// after `launcher` (e.g. "taskset -c 0 env OMP_NUM_THREADS=1") when given.
inline ProcessRun run_program(const std::string& program, const std::string& args,
                              const std::string& cwd = "", const std::string& launcher = "") {
  const std::string err_file = std::filesystem::temp_directory_path() /
                               ("dgs_run_err_" + std::to_string(::getpid()) + ".txt");
  std::string cmd = launcher + (launcher.empty() ? "" : " ") + std::string(DGS_BINARY_DIR) + "/" +
                    program + " " + args + " > /dev/null 2> " + err_file;
  if (!cwd.empty()) cmd = "cd '" + cwd + "' && " + cmd;
  const int status = std::system(cmd.c_str());
  ProcessRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream f(err_file);
  std::stringstream ss;
  ss << f.rdbuf();
  r.err = ss.str();
  std::filesystem::remove(err_file);
  return r;
}

// The regular files under `dir` (recursively; none if it does not exist).
inline std::vector<std::string> files_under(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  return out;
}

}  // namespace dgs
