// Table 4.2 of the IOS thesis: schedules specialised for a batch size or a device.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/ios/experiments/experiments.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

void run_table4_2(ExperimentContext& ctx) {
  const std::string model = ctx.options().model.empty() ? "inception_v3" : ctx.options().model;
  const HardwareSpec& v100_hw = ctx.hardware();
  const GpuSpec& v100 = ctx.gpu();
  const HardwareSpec k80_hw = load_hardware("k80");
  if (!k80_hw.gpu) throw Error(k80_hw.file + ": the K80 config is not a GPU");
  const GpuSpec& k80 = *k80_hw.gpu;
  common_notes(ctx, v100);
  ctx.note_calibrated_constants(k80);
  ctx.note(
      "device specialisation compares the schedule optimised on the K80 "
      "model with the one "
      "optimised on the V100 model (" +
      v100.name + "); --hw replaces the V100");
  const PaperData p = ctx.paper_data("table4_2.csv");
  // The thesis' values and claim are Inception V3's: with another --model only ours are shown.
  const bool paper_network = model == "inception_v3";
  if (!paper_network) {
    ctx.note("the thesis' values and claim are for Inception V3, not " + model_display_name(model) +
             ": only ours are shown");
  }
  auto paper_ms = [&](const std::vector<std::pair<std::string, std::string>>& keys) {
    return paper_network ? p.value(keys, "latency_ms") : std::nullopt;
  };
  const int64_t batches[] = {1, 32, 128};
  Table t({"kind", "execute_on", "optimized_for", "latency_ms", "paper_latency_ms",
           "vs_specialised", "paper_vs_specialised"});
  std::vector<Claim> claims;
  double max_gain = 1.0;
  for (int64_t exec : batches) {
    double diag = 0;
    std::vector<double> row;
    for (int64_t opt : batches) {
      const SearchResult& r = schedule_for(ctx, model, opt, v100, "IOS-Both");
      // The schedule is over units, which are the same at every batch size.
      row.push_back(latency_ms(ctx, model, exec, v100_hw, r.schedule));
      if (opt == exec) diag = row.back();
    }
    const auto pdiag = paper_ms({{"kind", "batch"},
                                 {"execute_on", std::to_string(exec)},
                                 {"optimized_for", std::to_string(exec)}});
    for (size_t i = 0; i < row.size(); ++i) {
      const int64_t opt = batches[i];
      const auto pv = paper_ms({{"kind", "batch"},
                                {"execute_on", std::to_string(exec)},
                                {"optimized_for", std::to_string(opt)}});
      max_gain = std::max(max_gain, row[i] / diag);
      t.add_row({std::string("batch"), std::to_string(exec), std::to_string(opt), row[i], cell(pv),
                 row[i] / diag, cell(ratio(pv, pdiag))});
    }
  }
  const std::pair<std::string, const HardwareSpec*> devices[] = {{"k80", &k80_hw},
                                                                 {"v100", &v100_hw}};
  for (const auto& [exec_name, exec_hw] : devices) {
    std::vector<double> row;
    double diag = 0;
    for (const auto& [opt_name, opt_hw] : devices) {
      const SearchResult& r = schedule_for(ctx, model, 1, *opt_hw->gpu, "IOS-Both");
      row.push_back(latency_ms(ctx, model, 1, *exec_hw, r.schedule));
      if (opt_name == exec_name) diag = row.back();
    }
    const auto pdiag =
        paper_ms({{"kind", "device"}, {"execute_on", exec_name}, {"optimized_for", exec_name}});
    for (size_t i = 0; i < row.size(); ++i) {
      const auto pv = paper_ms(
          {{"kind", "device"}, {"execute_on", exec_name}, {"optimized_for", devices[i].first}});
      max_gain = std::max(max_gain, row[i] / diag);
      t.add_row({std::string("device"), exec_name, devices[i].first, row[i], cell(pv),
                 row[i] / diag, cell(ratio(pv, pdiag))});
    }
  }
  ctx.emit_table("Table 4.2: specialised schedules, " + model + " (latency, ms)", t);
  claims.push_back(make_claim(ctx, "specialization_gain",
                              "largest gain of the specialised schedule over a mismatched one",
                              max_gain, ClaimKind::Ratio));
  if (paper_network) ctx.emit_claims(claims);
}

}  // namespace dgs::ios
