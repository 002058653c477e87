// Welder Fig. 13 in measured mode (see measured_fig13.h). Calls only the CUDA-free headers of
// common/cuda/, so it compiles in the build without CUDA, where every device entry point throws.
#include "reproductions/welder/experiments/measured_fig13.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <utility>

#include "cli/paper_values.h"
#include "common/cuda/device.h"
#include "common/cuda/device_fault.h"
#include "common/cuda/kernel_testbed.h"
#include "common/report/report.h"
#include "reproductions/welder/experiments/experiments.h"

namespace dgs::welder {

double Fig13PaperValues::value(const std::string& comparison, const std::string& metric) const {
  return paper_number(data, {{"comparison", comparison}, {"metric", metric}}, "value");
}

std::string Fig13PaperValues::source(const std::string& comparison,
                                     const std::string& metric) const {
  return data.source({{"comparison", comparison}, {"metric", metric}});
}

double reduction_pct(double from, double to) {
  return from > 0 ? 100.0 * (1.0 - to / from) : 0;
}

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

namespace {

// The interpreter runs a batch-64 network in seconds, so the default protocol (2 warm-up runs,
// 6 repeats of 6 runs) would take tens of minutes per model: the verification run (every variant
// runs once and is checked before it is timed) is the warm-up, then the median of three single
// runs; --full-protocol adds one more warm-up run.
constexpr gpu::TimingProtocol kFig13Protocol{0, 1, 3};
constexpr gpu::TimingProtocol kFig13FullProtocol{1, 1, 3};

// Sample `b` of a batch-first tensor.
TensorData batch_sample(const TensorData& t, int64_t b) {
  TensorData s;
  s.dtype = t.dtype;
  s.shape = t.shape;
  s.shape.at(0) = 1;
  const int64_t n = numel(s.shape);
  s.f.assign(t.f.begin() + b * n, t.f.begin() + (b + 1) * n);
  return s;
}

// The measured table and the notes on how it was made.
void emit_fig13_measured(ExperimentContext& ctx, const Fig13Measured& out, const WelderArch& arch,
                         const gpu::TimingProtocol& protocol, int64_t batch, uint64_t seed) {
  const bool full = ctx.options().full_protocol;
  std::string counters;
  gpu::hardware_counters_readable(&counters);
  Table t({"model", "variant", "measured_ms", "min_ms", "max_ms", "launches", "kernels_model",
           "model_ms", "computed_M", "transactions", "verified"});
  t.precision = 4;
  for (const Fig13MeasuredRow& r : out.rows)
    t.add_row({r.model, r.variant, r.median_ms, r.min_ms, r.max_ms, r.launches,
               int64_t{r.kernels_model}, r.model_ms, r.computed_m, std::string("not readable"),
               std::string(r.verified ? "yes" : "NO")});
  ctx.emit_table("Figure 13 - Welder ablation (FP32, batch " + std::to_string(batch) +
                     "), measured on " + out.device +
                     " with the tile-program interpreter; model_ms: " + arch.name,
                 t);
  ctx.note(
      "kernels: every launched group of a schedule runs as ONE launch of the suite's generic "
      "tile-program interpreter (common/tileprog/tile_program_interpreter.h: each output element "
      "computed "
      "by index arithmetic, intermediates in a per-block scratch slice of global memory), not "
      "cuDNN or Welder's generated code: absolute latencies are far above the paper's; the "
      "variants compare at equal kernel quality. Layout-only groups launch nothing (views)");
  ctx.note("measured on " + out.device + " (the paper: V100); CUDA events, the verification run " +
           "and " + std::to_string(protocol.warmup) + " more warm-up run(s), median of " +
           std::to_string(protocol.repeats) +
           " single runs of the whole network (the paper states no protocol; --full-protocol adds "
           "a warm-up run); launches read from the KernelLauncher for one run");
  ctx.note("transactions: " + counters);
  ctx.note("batch " + std::to_string(batch) +
           (full ? " (the paper's, --full-protocol)"
                 : " (the paper's is " + std::to_string(kFig13Batch) +
                       ": the interpreter takes seconds per run there; --full-protocol runs it)") +
           "; the schedules are Welder's for this batch on the model's GPU");
  ctx.note("model_ms is the model-mode prediction on " + arch.name +
           " (--hw; in measured mode by default the live GPU's config), Welder's cost model of "
           "generated kernels, not of the kernels that ran (gpu_validate prices those); "
           "computed_M: elements "
           "the kernels compute per run (recomputed halos and shares included)");
  ctx.note("checks (rtol " + fixed(gpu::kGpuTolerance.rtol, 4) + ", atol " +
           fixed(gpu::kGpuTolerance.atol, 4) + ", seed " + std::to_string(seed) +
           "): Welder-none's output sample 0 against the CPU reference executor at batch 1 "
           "(same weights, same image); every other variant's whole output against "
           "Welder-none's");
}

// Claims: the paper's latency and kernel-count reductions, from the measured rows (by [model
// label][variant]).
std::vector<Claim> fig13_measured_claims(
    ExperimentContext& ctx, const std::vector<Fig13Model>& models,
    std::map<std::string, std::map<Variant, Fig13MeasuredRow>>& m) {
  const Fig13PaperValues fig13_paper(ctx);
  auto paper = [&](const std::string& cmp, const std::string& metric) {
    return fig13_paper.value(cmp, metric);
  };
  auto src = [&](const std::string& cmp, const std::string& metric) {
    return fig13_paper.source(cmp, metric);
  };
  auto mean_red = [&](Variant from, Variant to, bool latency) {
    double sum = 0;
    for (const auto& fm : models) {
      const Fig13MeasuredRow& a = m[fm.label][from];
      const Fig13MeasuredRow& b = m[fm.label][to];
      sum += latency
                 ? reduction_pct(a.median_ms, b.median_ms)
                 : reduction_pct(static_cast<double>(a.launches), static_cast<double>(b.launches));
    }
    return sum / static_cast<double>(models.size());
  };
  std::vector<Claim> claims;
  // The latency and launch-count reductions of one comparison (`key`: "to vs from").
  auto add_reductions = [&](const std::string& label, const std::string& key, Variant from,
                            Variant to) {
    claims.push_back({label + ": measured latency reduction (mean of per-model)",
                      src(key, "latency_reduction"), paper(key, "latency_reduction"),
                      mean_red(from, to, true), ClaimKind::Percentage, "%"});
    claims.push_back({label + ": launch-count reduction (mean of per-model)",
                      src(key, "kernel_reduction"), paper(key, "kernel_reduction"),
                      mean_red(from, to, false), ClaimKind::Percentage, "%"});
  };
  add_reductions("Welder-base vs Welder-none", "base_vs_none", Variant::None, Variant::Base);
  {
    double sum = 0;
    for (const auto& fm : models)
      sum += m[fm.label][Variant::None].median_ms / m[fm.label][Variant::Base].median_ms;
    claims.push_back({"Welder-base vs Welder-none: measured mean speedup",
                      src("base_vs_none", "speedup"), paper("base_vs_none", "speedup"),
                      sum / static_cast<double>(models.size()), ClaimKind::Ratio, "x"});
  }
  add_reductions("Welder vs Welder-base", "welder_vs_base", Variant::Base, Variant::Welder);
  {
    double mx = 0;
    for (const auto& fm : models)
      mx = std::max(mx,
                    m[fm.label][Variant::Base].median_ms / m[fm.label][Variant::Welder].median_ms);
    claims.push_back({"Welder vs Welder-base: largest measured per-model speedup",
                      src("welder_vs_base", "max_speedup"), paper("welder_vs_base", "max_speedup"),
                      mx, ClaimKind::Ratio, "x"});
  }
  return claims;
}

}  // namespace

Fig13Measured measure_fig13(ExperimentContext& ctx) {
  std::string why;
  if (!cuda_gpu_available(&why)) throw Error("fig13 --mode measured needs an NVIDIA GPU: " + why);
  const WelderArch arch = noted_experiment_arch(ctx, false);
  const GpuSpec spec = gpu::query_gpu_spec(0);
  Fig13Measured out;
  out.device = spec.name;
  const uint64_t seed = ctx.options().seed;
  std::vector<Fig13Model> models = fig13_models();
  if (!ctx.options().model.empty()) models = {{ctx.options().model, ctx.options().model}};
  // Measured in this order: Welder-none first, the reference of the others.
  const std::vector<Variant> order = {Variant::None, Variant::Base, Variant::Welder,
                                      Variant::AnsorLike};
  // rows by [model label][variant]
  std::map<std::string, std::map<Variant, Fig13MeasuredRow>> m;
  const bool full = ctx.options().full_protocol;
  const gpu::TimingProtocol protocol = full ? kFig13FullProtocol : kFig13Protocol;
  const int64_t batch = full ? kFig13Batch : kFig13MeasuredBatch;
  for (size_t mi = 0; mi < models.size(); ++mi) {
    const Fig13Model& fm = models[mi];
    const std::string of =
        " (" + std::to_string(mi + 1) + " of " + std::to_string(models.size()) + ")";
    ctx.progress("network " + fm.label + of + ": scheduling the variants (batch " +
                 std::to_string(batch) + ")");
    ZooOptions zo;
    zo.batch = batch;
    const TileGraph tg = model_tile_graph(fm.zoo, zo);
    const Graph& g = *tg.source;
    const auto scheds = run_variants(tg, arch, fig13_variants());
    ctx.progress("network " + fm.label + ": CPU reference of sample 0 (batch 1)");
    const TensorValues feeds = make_graph_feeds(g, {}, seed);
    // CPU reference of sample 0: the batch-1 graph, same weights (same names, same seed), the
    // first image of the batch.
    ZooOptions z1;
    z1.batch = 1;
    const Graph g1 = load_model(fm.zoo, z1);
    TensorValues feeds1;
    for (int t : g.input_tensors()) {
      const int t1 = g1.find_tensor(g.tensor(t).name);
      if (t1 < 0)
        throw Error("fig13 measured: batch-1 " + fm.zoo + " lacks input '" + g.tensor(t).name +
                    "'");
      feeds1[t1] = batch_sample(feeds.at(t), 0);
    }
    const TensorValues ref1 = run_graph(g1, feeds1, seed);
    std::map<int, TensorData> none_out;  // Welder-none's outputs, by graph tensor
    for (Variant v : order) {
      const Schedule* s = nullptr;
      for (const Schedule& x : scheds)
        if (x.variant == v) s = &x;
      if (!s) continue;
      ctx.progress("network " + fm.label + ": " + variant_name(v) + " (" +
                   std::to_string(s->metrics.kernels) + " kernels): compile, run, check, time");
      const gpu::WorkScope where(variant_name(v) + " of network " + fm.label);
      const NetworkProgram np = compile_schedule(tg, *s);
      Fig13MeasuredRow row;
      row.model = fm.label;
      row.variant = variant_name(v);
      row.kernels_model = s->metrics.kernels;
      row.model_ms = evaluated_latency_ms(tg, *s, arch);
      int64_t computed = 0;
      for (const TileProgram& k : np.kernels) computed += k.computed_elements();
      row.computed_m = computed / 1000000;
      const gpu::DeviceNetwork dn(g, np, feeds, spec.sm_count);
      gpu::Stream stream;
      gpu::KernelLauncher launcher(stream);
      dn.run(launcher);
      stream.synchronize();
      row.launches = launcher.launches();
      row.verified = true;
      for (int t : g.output_tensors()) {
        TensorData got = dn.download(t);
        Comparison c;
        if (v == Variant::None) {
          const int t1 = g1.find_tensor(g.tensor(t).name);
          if (t1 < 0)
            throw Error("fig13 measured: batch-1 " + fm.zoo + " lacks output '" + g.tensor(t).name +
                        "'");
          c = compare_tensors(batch_sample(got, 0), ref1.at(t1), gpu::kGpuTolerance);
          row.check += (row.check.empty() ? "" : "; ") +
                       std::string("sample 0 vs CPU reference: ") + c.str();
          none_out[t] = std::move(got);
        } else {
          c = compare_tensors(got, none_out.at(t), gpu::kGpuTolerance);
          row.check += (row.check.empty() ? "" : "; ") + std::string("vs Welder-none: ") + c.str();
        }
        row.verified = row.verified && c.passed;
      }
      const gpu::Timing tm = gpu::time_with_events([&] { dn.run(launcher); }, stream, protocol);
      row.median_ms = tm.median_ms;
      row.min_ms = tm.min_ms;
      row.max_ms = tm.max_ms;
      m[fm.label][v] = row;
      out.rows.push_back(row);
    }
  }
  // A variant whose output differs from its reference has no latency worth reporting: refuse
  // before anything is written.
  for (const Fig13MeasuredRow& r : out.rows)
    if (!r.verified)
      throw Error("fig13 measured: " + r.model + " " + r.variant +
                  " differs from its reference: " + r.check);
  emit_fig13_measured(ctx, out, arch, protocol, batch, seed);
  ctx.emit_claims(fig13_measured_claims(ctx, models, m));
  return out;
}

}  // namespace dgs::welder
