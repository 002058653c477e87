#pragma once
// The paper's network set (Tables I and II: the eight networks of Figs. 8-11), the networks each
// evaluation item runs with the reason for any left out, and the stand-in labels of the claims
// whose Rounds or baselines are the suite's stand-ins.
#include <string>
#include <vector>

#include "common/hw/dsa_spec.h"

namespace dgs::atomic {

struct PaperNetwork {
  std::string paper_name;  // "ResNet-50" (Table II's column)
  std::string zoo;         // "resnet50"
};
// Table II's eight networks in its order (Figs. 8-11 show the same eight).
const std::vector<PaperNetwork>& table2_networks();
// The paper's name of a zoo network of Table II ("" if none).
std::string paper_name_of(const std::string& zoo);

// A network of the paper's set that an item does not run, and why (a model refusal or run time).
struct LeftOut {
  std::string zoo;
  std::string why;
};
// The networks of Table II that the items at `batch` on dataflow `df` run (1: Figs. 8 and 10;
// 20: Fig. 9, Table II, Fig. 11), in Table II's order, and those left out for run time with the
// reason. A network the items run whose plan the DSA model refuses is reported by the item.
std::vector<std::string> networks_run(int batch, DsaDataflow df);
std::vector<LeftOut> networks_left_out(int batch, DsaDataflow df);

// The dataflow-specific config every item shares (the run caches are keyed by the config's name):
// dsa_with_dataflow(base, df).
DsaSpec item_spec(const DsaSpec& base, DsaDataflow df);

// The stand-ins of the claims. The paper's AD schedules Rounds with its DP (Algorithm 2); the suite
// runs that DP only on DAGs of at most 63 atoms (dp_schedule.h), and every network's AD with the
// greedy fill by the same four priority rules (schedule.h).
inline constexpr const char* kDpStandIn =
    "the suite's greedy priority-rule Rounds (schedule.h) for the paper's DP (Algorithm 2), "
    "which the suite runs only on DAGs of at most 63 atoms";
inline constexpr const char* kCnnpStandIn =
    "the suite's CNN-P (partition_baselines.h) for CNN-Partition [51]";
inline constexpr const char* kIlPipeStandIn =
    "the suite's IL-Pipe (partition_baselines.h) for Tangram's inter-layer pipelining [19]";
// "a; b": several stand-ins of one claim.
std::string stand_ins(const std::vector<std::string>& labels);

}  // namespace dgs::atomic
