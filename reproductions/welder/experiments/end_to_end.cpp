// Figs. 9, 10, 11, 12 and 15: end-to-end comparisons over Table 2's models (one group, as the
// paper makes it: the same models in five settings).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

#include "cli/paper_values.h"
#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

namespace {

const std::vector<Variant> kAllVariants = {Variant::AnsorLike, Variant::None, Variant::Base,
                                           Variant::Welder};

// The stand-ins of the end-to-end claims: the suite runs none of the paper's baselines.
const char* const kTensorRtStandIn = "the suite's Ansor-like rule-based fusion for TensorRT";

// One end-to-end setting: dtype, tensor cores, batch.
struct E2eSetting {
  DType dtype;
  bool tc;
  int64_t batch;
  std::string label() const {
    return std::string(dtype == DType::F16 ? "FP16" : "FP32") + (tc ? " TC" : " SIMT") + " bs" +
           std::to_string(batch);
  }
};

// The Table 2 models a setting runs (the batch-64 ones only at batch 64; --model picks one),
// with the zoo options of the setting.
std::vector<std::pair<const Table2Model*, ZooOptions>> e2e_cases(const ExperimentContext& ctx,
                                                                 const E2eSetting& st) {
  std::vector<std::pair<const Table2Model*, ZooOptions>> out;
  for (const auto& m : kTable2) {
    if (st.batch == 64 && !m.batch64) continue;
    if (!ctx.options().model.empty() && ctx.options().model != m.zoo) continue;
    ZooOptions zo;
    zo.batch = st.batch;
    zo.dtype = st.dtype;
    out.emplace_back(&m, zo);
  }
  return out;
}

// Welder's speedup over the suite's Ansor-like fusion per Table 2 model (label -> speedup) in
// one setting on `gpu` (only the two variants needed).
std::map<std::string, double> speedups_vs_ansor_like(ExperimentContext& ctx, const GpuSpec& gpu,
                                                     const E2eSetting& st) {
  const WelderArch arch = arch_from_gpu(gpu, st.tc);
  std::map<std::string, double> out;
  for (const auto& [m, zo] : e2e_cases(ctx, st)) {
    out[m->label] = zoo_variant_latency_ms(m->zoo, zo, arch, Variant::AnsorLike) /
                    zoo_variant_latency_ms(m->zoo, zo, arch, Variant::Welder);
  }
  return out;
}

// One setting of an end-to-end figure's chart: ours per model and geomean, and the paper's
// geomean (vs Ansor where it gives one, else vs TensorRT).
struct E2eChartSetting {
  std::string label;
  std::map<std::string, double> speedups;  // model label -> Welder over Ansor-like
  double geomean = std::nan("");
  double paper_geomean = std::nan("");
  std::string paper_baseline;
};

// Bars per model (and the geomean) for each setting: ours, and the paper's geomean beside ours.
std::string end_to_end_chart(const std::string& title,
                             const std::vector<E2eChartSetting>& settings) {
  BarChart c;
  c.title = title;
  c.y_label = "speedup of Welder (x)";
  c.x_label = "model (Table 2)";
  c.reference_y = 1.0;
  for (const auto& m : kTable2) {
    for (const auto& st : settings)
      if (st.speedups.count(m.label)) {
        c.categories.push_back(m.label);
        break;
      }
  }
  c.categories.push_back("geomean");
  for (const auto& st : settings) {
    Series ours{st.label + " (ours, vs Ansor-like)", {}};
    for (size_t i = 0; i + 1 < c.categories.size(); ++i) {
      const auto it = st.speedups.find(c.categories[i]);
      ours.values.push_back(it == st.speedups.end() ? std::nan("") : it->second);
    }
    ours.values.push_back(st.geomean);
    c.series.push_back(ours);
    if (!st.paper_baseline.empty()) {
      Series paper{st.label + " (paper, geomean vs " + st.paper_baseline + ")",
                   std::vector<double>(c.categories.size(), std::nan(""))};
      paper.values.back() = st.paper_geomean;
      c.series.push_back(paper);
    }
  }
  return bar_chart_svg(c, 960, 460);
}

std::vector<double> values_of(const std::map<std::string, double>& m) {
  std::vector<double> v;
  for (const auto& [k, x] : m) v.push_back(x);
  return v;
}

}  // namespace

namespace {

// Refuses a --model that is not one of Table 2's models (UsageError naming them).
void check_model_option(const ExperimentContext& ctx, const std::string& fig) {
  if (const std::string& only = ctx.options().model; !only.empty()) {
    std::string names;
    bool known = false;
    for (const auto& m : kTable2) {
      names += (names.empty() ? "" : ", ") + m.zoo;
      known = known || m.zoo == only;
    }
    if (!known)
      throw UsageError("--model " + only + ": fig " + fig +
                       " runs the Table 2 models; --model picks one of them (" + names + ")");
  }
}

// Schedules every case of the figure (and Fig. 12's V100 comparison), one per CPU at a time.
void prefetch_e2e_cases(ExperimentContext& ctx, const std::string& fig,
                        const std::vector<E2eSetting>& settings) {
  std::vector<ZooVariantsCase> cases;
  for (const E2eSetting& st : settings) {
    const WelderArch a = experiment_arch(ctx, st.tc);
    for (const auto& [mp, zo] : e2e_cases(ctx, st))
      cases.push_back({mp->zoo, zo, a, kAllVariants, st.label() + " " + mp->label});
  }
  if (fig == "12") {
    const GpuSpec v100 = ctx.options().hw.empty() ? load_gpu_spec("v100_pcie") : ctx.gpu();
    for (const E2eSetting& st : settings) {
      const WelderArch a = arch_from_gpu(v100, st.tc);
      for (const auto& [mp, zo] : e2e_cases(ctx, st))
        cases.push_back({mp->zoo,
                         zo,
                         a,
                         {Variant::AnsorLike, Variant::Welder},
                         v100.name + " " + st.label() + " " + mp->label});
    }
  }
  if (fig == "10") {  // the SIMT cases of the TensorCore claims (add_tensor_core_claims)
    const E2eSetting simt{DType::F32, false, 1};
    const WelderArch a = arch_from_gpu(ctx.gpu(), simt.tc);
    for (const auto& [mp, zo] : e2e_cases(ctx, simt))
      cases.push_back(
          {mp->zoo, zo, a, {Variant::AnsorLike, Variant::Welder}, simt.label() + " " + mp->label});
  }
  ctx.progress("scheduling " + std::to_string(cases.size()) + " cases, one per CPU at a time");
  prefetch_zoo_variants(cases, ctx.progress_fn());
}

// A geomean speedup of data/welder/speedups.csv and its source.
double e2e_paper_value(const PaperData& pd, const std::string& f, const std::string& setting) {
  return paper_number(pd, {{"figure", f}, {"setting", setting}}, "geomean_speedup");
}
std::string e2e_paper_source(const PaperData& pd, const std::string& f,
                             const std::string& setting) {
  return pd.source({{"figure", f}, {"setting", setting}});
}

// Fig. 10's claims against Fig. 9: the TensorCore gains over the SIMT ones at batch 1.
void add_tensor_core_claims(ExperimentContext& ctx, const PaperData& pd,
                            const std::map<std::string, double>& speed_bs1,
                            std::vector<Claim>& claims) {
  // The paper's TensorCore claims compare Fig. 10 with Fig. 9 (FP32, SIMT) at batch 1.
  const auto simt = speedups_vs_ansor_like(ctx, ctx.gpu(), {DType::F32, false, 1});
  const double g_tc = geomean(values_of(speed_bs1)), g_simt = geomean(values_of(simt));
  std::ostringstream txt;
  txt << std::setprecision(3)
      << "batch 1: speedups larger with TensorCore than on SIMT (paper: vs each of the 6 "
         "baselines in both figures, e.g. TensorRT 1.53x vs 1.47x; ours: geomean vs Ansor-like "
      << g_tc << "x TC vs " << g_simt << "x SIMT)";
  claims.push_back(stand_in_claim({txt.str(), e2e_paper_source(pd, "fig10", "FP16 TC bs1"), 1,
                                   g_tc > g_simt ? 1.0 : 0.0, ClaimKind::Ordering, "1=yes"},
                                  kAnsorStandIn));
  if (speed_bs1.count("NeRF") && simt.count("NeRF")) {
    const double paper = e2e_paper_value(pd, "fig10", "FP16 TC bs1 NeRF") /
                         e2e_paper_value(pd, "fig9", "FP32 bs1 NeRF");
    claims.push_back(stand_in_claim(
        {"NeRF: gain on TensorCore over gain on SIMT (paper: vs TensorRT 2.34x / 1.16x)",
         e2e_paper_source(pd, "fig10", "FP16 TC bs1 NeRF"), paper,
         speed_bs1.at("NeRF") / simt.at("NeRF"), ClaimKind::Ratio, "x"},
        kTensorRtStandIn));
  }
}

// Fig. 12's claim: the geomean over all cases similar on the RTX 3090 and the V100.
void add_v100_claim(ExperimentContext& ctx, const PaperData& pd,
                    const std::vector<E2eSetting>& settings, const std::vector<double>& all_cases,
                    std::vector<Claim>& claims) {
  // The V100 of the comparison (a second machine); --hw replaces it too, as it replaces the
  // RTX 3090.
  const GpuSpec v100 = ctx.options().hw.empty() ? load_gpu_spec("v100_pcie") : ctx.gpu();
  std::vector<double> v100_cases;
  for (const E2eSetting& st : settings)
    for (double x : values_of(speedups_vs_ansor_like(ctx, v100, st))) v100_cases.push_back(x);
  const double g3090 = geomean(all_cases), gv100 = geomean(v100_cases);
  ctx.note_calibrated_constants(v100);
  // "Similar": the relative difference of the two geomeans, in %.
  const double paper = 100 * (e2e_paper_value(pd, "fig12", "RTX 3090 34 cases") /
                                  e2e_paper_value(pd, "fig12", "V100 34 cases") -
                              1);
  std::ostringstream txt;
  txt << std::setprecision(3) << "geomean speedup over all " << all_cases.size()
      << " cases similar on RTX 3090 and V100: 3090/V100 - 1 (paper: vs TensorRT 1.40x / "
         "1.36x; ours: "
      << g3090 << "x / " << gv100 << "x)";
  claims.push_back(stand_in_claim({txt.str(), e2e_paper_source(pd, "fig12", "RTX 3090 34 cases"),
                                   paper, 100 * (g3090 / gv100 - 1), ClaimKind::Percentage, "%"},
                                  kTensorRtStandIn));
  ctx.out() << "  paper: Welder vs TensorRT on RTX 3090, geomean of 34 cases "
            << e2e_paper_value(pd, "fig12", "RTX 3090 34 cases")
            << "x: not reproduced (the suite has no TensorRT)\n";
}

}  // namespace

void run_end_to_end(ExperimentContext& ctx, const std::string& fig) {
  check_model_option(ctx, fig);
  DType dt = DType::F32;
  bool tc = false;
  if (fig == "10") dt = DType::F16, tc = true;
  if (fig == "11") dt = DType::F16;
  const WelderArch arch = noted_experiment_arch(ctx, tc);
  ctx.note(
      "the suite has no PyTorch, ONNX Runtime, TensorRT, Rammer, BladeDISC, Nimble or Ansor: "
      "their paper speedups are listed as 'not reproduced'; 'Ansor-like' is the suite's "
      "rule-based fusion (TVM rules) under the same cost model, not Ansor's tuned kernels");
  // Fig. 12 covers "all 34 test cases": FP32 (SIMT) and FP16 (TensorCore), batch 1 and 64.
  std::vector<E2eSetting> settings;
  for (int64_t batch : {int64_t{1}, int64_t{64}}) {
    if (fig == "11" && batch == 64) continue;  // Fig. 11: batch 1
    settings.push_back({dt, tc, batch});
  }
  if (fig == "12") {
    settings.clear();
    for (bool fp16 : {false, true})
      for (int64_t batch : {int64_t{1}, int64_t{64}})
        settings.push_back({fp16 ? DType::F16 : DType::F32, fp16, batch});
    ctx.note(
        "Fig. 12 runs the paper's 34 cases (10 + 7 models, FP32 on SIMT and FP16 on TensorCore); "
        "TensorRT is not in the suite, so its claim compares Welder's speedup over the suite's "
        "Ansor-like fusion on the RTX 3090 with the same on the V100 (the paper's point: the "
        "gain carries over across GPUs)");
  }
  prefetch_e2e_cases(ctx, fig, settings);
  Table t({"setting", "model", "welder_ms", "welder_base_ms", "welder_none_ms", "ansor_like_ms",
           "speedup_vs_ansor_like", "kernels_welder"});
  const PaperData pd = ctx.paper_data("speedups.csv");
  std::vector<Claim> claims;
  std::map<std::string, double> speed_bs1;  // per model, first batch-1 setting
  std::vector<double> all_cases;
  std::vector<E2eChartSetting> chart_settings;
  for (const E2eSetting& st : settings) {
    const WelderArch a = experiment_arch(ctx, st.tc);
    std::vector<double> sp;
    E2eChartSetting& cs = chart_settings.emplace_back();
    cs.label = st.label();
    for (const auto& [mp, zo] : e2e_cases(ctx, st)) {
      const Table2Model& m = *mp;
      const auto s = zoo_variants(m.zoo, zo, a, kAllVariants);
      double ms[4];
      for (size_t i = 0; i < 4; ++i) ms[i] = zoo_variant_latency_ms(m.zoo, zo, a, kAllVariants[i]);
      const double speed = ms[0] / ms[3];
      sp.push_back(speed);
      cs.speedups[m.label] = speed;
      all_cases.push_back(speed);
      if (st.batch == 1 && !speed_bs1.count(m.label)) speed_bs1[m.label] = speed;
      t.add_row(
          {st.label(), m.label, ms[3], ms[2], ms[1], ms[0], speed, int64_t{s[3]->metrics.kernels}});
    }
    cs.geomean = geomean(sp);
    if (fig == "12") continue;  // its claim is over all 34 cases, below
    // Paper geomean speedups for this figure and batch.
    const std::string setting_prefix = fig == "9"    ? "FP32 bs"
                                       : fig == "10" ? "FP16 TC bs"
                                       : fig == "15" ? "MI50 bs"
                                                     : "";
    for (const auto& row : pd.rows()) {
      const std::string& figure = row[0];
      const std::string& setting = row[1];
      const std::string& baseline = row[2];
      if (figure != "fig" + fig) continue;
      if (setting.find(" max") != std::string::npos || setting.find("NeRF") != std::string::npos)
        continue;  // per-model claims, below
      const bool batch_match =
          setting_prefix.empty() || setting == setting_prefix + std::to_string(st.batch);
      if (!batch_match) continue;
      const std::vector<std::pair<std::string, std::string>> key = {
          {"figure", figure}, {"setting", setting}, {"baseline", baseline}};
      const double paper = *pd.value(key, "geomean_speedup");
      if (baseline == "Ansor" || (baseline == "TensorRT" && cs.paper_baseline.empty())) {
        cs.paper_geomean = paper;
        cs.paper_baseline = baseline;
      }
      if (baseline == "Ansor") {
        claims.push_back(stand_in_claim({"Welder vs Ansor geomean speedup, " + setting,
                                         pd.source(key), paper, geomean(sp), ClaimKind::Ratio, "x"},
                                        kAnsorStandIn));
      } else {
        ctx.out() << "  paper: Welder vs " << baseline << " (" << setting << ") geomean " << paper
                  << "x [" << pd.source(key) << "]: not reproduced (the suite has no " << baseline
                  << ")\n";
      }
    }
  }
  ctx.emit_table("Figure " + fig + " - end-to-end latency per model (model mode, " + arch.name +
                     (fig == "12"        ? ", FP32 SIMT and FP16 TensorCore"
                      : dt == DType::F16 ? ", FP16"
                                         : ", FP32") +
                     (tc ? ", tensor cores" : "") + ")",
                 t);
  if (fig == "11" && !speed_bs1.empty()) {
    const double mx = *std::max_element(all_cases.begin(), all_cases.end());
    const double paper = e2e_paper_value(pd, "fig11", "FP16 SIMT max");
    claims.push_back(stand_in_claim(
        {"Welder vs Ansor largest per-model speedup, FP16 SIMT",
         e2e_paper_source(pd, "fig11", "FP16 SIMT max"), paper, mx, ClaimKind::Ratio, "x"},
        kAnsorStandIn));
  }
  if (fig == "10" && !speed_bs1.empty()) add_tensor_core_claims(ctx, pd, speed_bs1, claims);
  if (fig == "12" && !all_cases.empty()) add_v100_claim(ctx, pd, settings, all_cases, claims);
  if (fig == "12") {
    E2eChartSetting& all = chart_settings.emplace_back();
    all.label = "all " + std::to_string(all_cases.size()) + " cases";
    all.geomean = geomean(all_cases);
    all.paper_geomean = e2e_paper_value(pd, "fig12", "RTX 3090 34 cases");
    all.paper_baseline = "TensorRT";
  }
  ctx.emit_svg(end_to_end_chart(
      "Figure " + fig + ": Welder over the Ansor-like stand-in (" + arch.name + ")",
      chart_settings));
  if (!claims.empty()) ctx.emit_claims(claims);
}

}  // namespace dgs::welder
