#pragma once
// The suite's papers as data, from the one list reproductions/papers.inc: each paper's folder key,
// its experiments (cli/cli.h) and its schedulers (common/scheduler/scheduler.h). The registry of
// schedulers (compare/scheduler_registry.cpp) and the tests that run every paper read it; CMake
// builds dgs_<paper> and repro_<paper> for each line of the same file.
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/scheduler/scheduler.h"

namespace dgs {

// What each paper folder defines (its experiment_list.h and schedulers.h declare the same).
#define DGS_PAPER(name)                  \
  namespace name {                       \
  PaperInfo paper_info();                \
  std::vector<Experiment> experiments(); \
  }                                      \
  SchedulerList name##_schedulers();
#include "reproductions/papers.inc"
#undef DGS_PAPER

struct PaperEntry {
  std::string key;  // the folder: reproductions/<key>/, data/<key>/, reports/<key>/, repro_<key>
  PaperInfo (*info)();
  std::vector<Experiment> (*experiments)();
  SchedulerList (*schedulers)();
};

// Every paper, in the order of reproductions/papers.inc.
inline const std::vector<PaperEntry>& paper_list() {
  static const std::vector<PaperEntry> list = {
#define DGS_PAPER(name) {#name, name::paper_info, name::experiments, name##_schedulers},
#include "reproductions/papers.inc"
#undef DGS_PAPER
  };
  return list;
}

}  // namespace dgs
