// Table 3: FasterTransformer comparison (paper values; Welder's own modelled numbers).
#include <map>

#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

namespace {

Cell cell_or_missing(const std::optional<double>& v) {
  return v ? Cell(*v) : Cell(Missing{});
}

}  // namespace

void run_table3(ExperimentContext& ctx) {
  const PaperData pd = ctx.paper_data("table3.csv");
  ctx.note(
      "the suite has no FasterTransformer: its column is the paper's, not reproduced; "
      "'ours' is the suite's Welder plan under the GPU model");
  Table t({"model", "dtype", "batch", "paper_welder_ms", "paper_ft_ms", "ours_welder_ms",
           "ours_over_paper"});
  const std::map<std::string, std::string> zoo = {
      {"BERT", "bert_base"}, {"ViT", "vit_s32"}, {"swin-T", "swin_t"}};
  std::map<bool, WelderArch> archs;
  archs.emplace(false, experiment_arch(ctx, false));
  archs.emplace(true, experiment_arch(ctx, true));
  note_common_choices(ctx, archs.at(false));
  std::vector<double> ours_all;
  for (const auto& row : pd.rows()) {
    if (row[0] == "geomean") continue;
    const std::vector<std::pair<std::string, std::string>> key = {
        {"model", row[0]}, {"dtype", row[1]}, {"batch", row[2]}};
    ZooOptions zo;
    zo.batch = std::stoll(row[2]);
    const bool fp16 = row[1] == "FP16";
    zo.dtype = fp16 ? DType::F16 : DType::F32;
    const WelderArch& arch = archs.at(fp16);
    const double ours = zoo_latency_ms(zoo.at(row[0]), zo, arch, ScheduleOptions{});
    const double paper = *pd.value(key, "welder_ms");
    ours_all.push_back(ours);
    t.add_row({row[0], row[1], zo.batch, paper, *pd.value(key, "ft_ms"), ours, ours / paper});
  }
  // The paper's last row: the geomean over its 12 cases.
  const std::vector<std::pair<std::string, std::string>> gkey = {{"model", "geomean"}};
  const auto pg = pd.value(gkey, "welder_ms");
  const double og = geomean(ours_all);
  t.add_row({std::string("geomean"), std::string("-"), std::string("-"), cell_or_missing(pg),
             cell_or_missing(pd.value(gkey, "ft_ms")), og, pg ? Cell(og / *pg) : Cell(Missing{})});
  ctx.emit_table("Table 3 - Welder and FasterTransformer (FT: paper only)", t);
}

}  // namespace dgs::welder
