// Table 4.1 of the IOS thesis: the CNN benchmarks (blocks, operators, unit type).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/ios/experiments/experiments.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

void run_table4_1(ExperimentContext& ctx) {
  ctx.note(
      "#Blocks: the thesis' column (11 / 3 / 13 / 10) counts blocks "
      "differently from the "
      "authors' code containers (13 / 6 / 1 block in 25 parts / 12); ours "
      "are the code's "
      "containers (blocks found as single-value cuts; NasNet's per-cell "
      "parts from its names)");
  const PaperData p = ctx.paper_data("table4_1.csv");
  Table t({"model", "blocks", "parts", "paper_blocks", "operators", "paper_operators", "unit_kinds",
           "paper_operator_type", "graph_ops"});
  std::vector<Claim> claims;
  for (const std::string& m : evaluation_models(ctx)) {
    const Network& net = network(ctx, m, 1);
    std::map<std::string, int> kinds;
    for (const Unit& u : net.units) ++kinds[u.kind];
    std::string k;
    for (const auto& [name, c] : kinds)
      k += (k.empty() ? "" : " ") + name + ":" + std::to_string(c);
    const auto pb = p.value({{"model", m}}, "blocks");
    const auto po = p.value({{"model", m}}, "operators");
    const std::string ptype = p.text({{"model", m}}, "operator_type").value_or("");
    t.add_row({m, static_cast<int64_t>(net.num_blocks()), static_cast<int64_t>(net.parts.size()),
               cell(pb), static_cast<int64_t>(net.units.size()), cell(po), k, ptype,
               static_cast<int64_t>(net.graph->num_ops())});
    if (po) {
      claims.push_back({m + ": number of schedule units (operators)", p.source({{"model", m}}), *po,
                        static_cast<double>(net.units.size()), ClaimKind::Count, ""});
    }
  }
  ctx.emit_table("Table 4.1: the CNN benchmarks", t);
  ctx.emit_claims(claims);
}

}  // namespace dgs::ios
