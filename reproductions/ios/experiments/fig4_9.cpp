// Fig. 4.9 of the IOS thesis: Inception V3 at batch sizes 1 to 128.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "models/zoo.h"
#include "reproductions/ios/experiments/experiments.h"
#include "reproductions/ios/experiments/measured.h"
#include "reproductions/ios/experiments/runs.h"

namespace dgs::ios {

void run_fig4_9(ExperimentContext& ctx) {
  const GpuSpec& spec = gpu_and_notes(
      ctx,
      "TVM-cuDNN, TASO and TensorRT are not in the suite: the paper's TensorRT latencies are "
      "shown, the others are not reproduced (TASO runs out of memory at batch 128 in the thesis)");
  const std::string m = ctx.options().model.empty() ? "inception_v3" : ctx.options().model;
  const PaperData p = ctx.paper_data("fig4_9.csv");
  // The thesis' values and claim are Inception V3's: with another --model only ours are shown.
  const bool paper_network = m == "inception_v3";
  if (!paper_network) {
    ctx.note("the thesis' values and claim are for Inception V3, not " + model_display_name(m) +
             ": only ours are shown");
  }
  Table t({"batch", "schedule", "latency_ms", "throughput_img_s", "paper_latency_ms",
           "paper_throughput_img_s", "ios_speedup", "paper_ios_speedup"});
  LineChart chart{"Fig. 4.9: throughput vs batch size, " + m + " (" + spec.name + ")",
                  "batch size",
                  "images / s",
                  {},
                  {},
                  true,
                  false};
  Series s_seq{"Sequential (ours)", {}}, s_ios{"IOS (ours)", {}}, p_seq{"Sequential (paper)", {}},
      p_trt{"TensorRT (paper)", {}}, p_ios{"IOS (paper)", {}};
  std::vector<double> speedups;
  for (int64_t bs : {1, 16, 32, 64, 128}) {
    chart.x.push_back(static_cast<double>(bs));
    const double seq = latency_ms(ctx, m, bs, ctx.hardware(),
                                  schedule_for(ctx, m, bs, spec, "Sequential").schedule);
    const double ios =
        latency_ms(ctx, m, bs, ctx.hardware(), schedule_for(ctx, m, bs, spec, "IOS-Both").schedule);
    speedups.push_back(seq / ios);
    auto pv = [&](const std::string& s) {
      return paper_network ? p.value({{"batch", std::to_string(bs)}, {"schedule", s}}, "latency_ms")
                           : std::nullopt;
    };
    const auto ps = pv("Sequential"), pt = pv("TensorRT"), pi = pv("IOS");
    auto thr = [&](std::optional<double> ms) {
      return ms ? std::optional<double>(bs * 1e3 / *ms) : std::nullopt;
    };
    const std::optional<double> psp = ps && pi ? std::optional<double>(*ps / *pi) : std::nullopt;
    t.add_row({bs, std::string("Sequential"), seq, bs * 1e3 / seq, cell(ps), cell(thr(ps)),
               Missing{}, Missing{}});
    t.add_row({bs, std::string("TensorRT"), Missing{}, Missing{}, cell(pt), cell(thr(pt)),
               Missing{}, Missing{}});
    t.add_row({bs, std::string("IOS"), ios, bs * 1e3 / ios, cell(pi), cell(thr(pi)), seq / ios,
               cell(psp)});
    s_seq.values.push_back(bs * 1e3 / seq);
    s_ios.values.push_back(bs * 1e3 / ios);
    p_seq.values.push_back(ps ? bs * 1e3 / *ps : kNaN);
    p_trt.values.push_back(pt ? bs * 1e3 / *pt : kNaN);
    p_ios.values.push_back(pi ? bs * 1e3 / *pi : kNaN);
  }
  chart.series = {s_seq, s_ios, p_seq, p_trt, p_ios};
  ctx.emit_table("Fig. 4.9: batch sizes 1 to 128", t);
  ctx.emit_svg(line_chart_svg(chart));
  Claim c{"IOS is faster than Sequential at every batch size (batch sizes where it is)",
          "§4.6.4 / Fig. 4.9",
          5,
          static_cast<double>(
              std::count_if(speedups.begin(), speedups.end(), [](double x) { return x > 1.0; })),
          ClaimKind::Count,
          "batch sizes"};
  c.informational = kDpContainsSchedules;
  if (paper_network) ctx.emit_claims({c});
}

}  // namespace dgs::ios
