// gpu_validate: how far the GPU model is from the GPU it runs on.
//
//   gpu_validate [--out DIR] [--hw NAME|FILE.json] [--quick] [--seed N]
//   gpu_validate --replay FILE.csv --hw NAME|FILE.json [--out DIR]
//   gpu_validate --list              the cases (id, family, shape)
//   gpu_validate --predict-kernels --hw NAME   the model's time of each kernel of the cases timed
//                                    kernel by kernel (Welder Fig. 13), as CSV, no GPU needed
//   gpu_validate --probe             the live GPU and its config, in one line (exit 4 without)
//
// On a live GPU it runs the fixed kernel suite of validation/validation_cases.h (CUDA events,
// warm-up, median of repeats), prices every case with the GPU model on the live GPU's config
// (--hw: default the built-in config that matches the device), and writes
//   DIR/gpu_validate.csv          one row per case: shape, family, measured, predicted, error
//   DIR/gpu_validate_summary.csv  per family, all kernels, end to end: mean absolute error and
//                                 the fraction within 10% and 25% (the model before the
//                                 suite-kernel families beside it)
//   DIR/gpu_validate_pairs.csv    schedule-vs-schedule comparisons: is the faster one predicted?
//   DIR/gpu_validate_notes.txt    the device, the config, the model's constants and calibrations
//   DIR/gpu_validate_kernels.csv  Welder Fig. 13's schedules kernel by kernel: each kernel timed
//                                 alone and priced alone (never in the summary or the pairs)
//   DIR/gpu_validate_replay.csv   the measurements as a --replay file (cases, then kernels)
// (default DIR: reports/gpu_validate), each atomically, all after the last case. --replay prices
// the cases of an earlier run's measurements (columns id, measured_ms, source) without a GPU.
// Exit codes: 0 done; 1 a case failed on the device (one line naming the case, the stage and the
// kernel); 2 bad flag or input; 4 no usable GPU (one line).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/cuda/device.h"
#include "common/cuda/device_fault.h"
#include "common/gpumodel/kernel_family.h"
#include "common/hw/live_gpu.h"
#include "common/util/error.h"
#include "common/util/resources.h"
#include "validation/calibration.h"
#include "validation/validation_report.h"

namespace {

using namespace dgs;
using namespace dgs::validation;

constexpr int kExitFailed = 1, kExitUsage = 2, kExitNoGpu = 4;

struct Args {
  std::string out = "reports/gpu_validate";
  std::string hw, replay;
  bool list = false, quick = false, help = false, calibrate = false, probe = false;
  bool predict_kernels = false;
  uint64_t seed = 1;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(f + ": missing value");
      return argv[++i];
    };
    if (f == "--out") {
      a.out = value();
    } else if (f == "--hw") {
      a.hw = value();
    } else if (f == "--replay") {
      a.replay = value();
    } else if (f == "--seed") {
      a.seed = parse_seed(value());
    } else if (f == "--list") {
      a.list = true;
    } else if (f == "--predict-kernels") {
      a.predict_kernels = true;
    } else if (f == "--probe") {
      a.probe = true;
    } else if (f == "--calibrate") {
      a.calibrate = true;
    } else if (f == "--quick") {
      a.quick = true;
    } else if (f == "--help" || f == "-h") {
      a.help = true;
    } else {
      throw UsageError("unknown argument '" + f + "' (see --help)");
    }
  }
  if (a.predict_kernels && a.hw.empty())
    throw UsageError("--predict-kernels needs --hw NAME|FILE.json (the config to price on)");
  if (!a.replay.empty() && a.hw.empty())
    throw UsageError("--replay needs --hw NAME|FILE.json (the GPU the measurements come from)");
  return a;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--replay: cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string model_constants(const GpuSpec& spec) {
  std::string s;
  for (std::string_view k : gpu_efficiency::suite_model_keys()) {
    const std::string key(k);
    const auto src = spec.sources.find("efficiency." + key);
    s += "model constant: " + key + " = " +
         std::to_string(gpu_efficiency::suite_model_value(spec, k)) + " (" +
         (src != spec.sources.end() ? spec.file + ": " + src->second
                                    : std::string(gpu_efficiency::suite_model_default_reason(k))) +
         ")\n";
  }
  return s;
}

// --calibrate: fits the suite-kernel model's two constants on their declared cases and, when the
// run measured cuDNN convolutions, the two library-call costs on theirs (calibration.h); each
// fitted constant's source names its case, which makes that case's row a calibration point.
// Returns the notes' lines.
std::string calibrate(GpuSpec& spec, const std::vector<ValidationCase>& cases,
                      const std::map<std::string, ReplayMeasurement>& replay) {
  std::map<std::string, double> measured;
  bool library = false;
  for (const auto& [id, m] : replay) measured[id] = m.measured_ms;
  for (const ValidationCase& c : cases)
    library = library || (c.family == "cudnn_conv" && measured.count(c.id) > 0);
  std::vector<CalibrationPoint> points = calibrate_suite_model(spec, cases, measured);
  if (library)
    for (CalibrationPoint& p : calibrate_library_calls(spec, cases, measured))
      points.push_back(std::move(p));
  std::string lines;
  for (const CalibrationPoint& p : points) {
    char v[64];
    std::snprintf(v, sizeof v, "%.6g", p.value);
    lines += "calibrated here: " + p.key + " = " + v + " on case " + p.case_id +
             " (a calibration point, not a prediction)\n";
    spec.sources["efficiency." + p.key] = "calibrated here on case " + p.case_id;
  }
  return lines;
}

// --predict-kernels: the model's time of each kernel of the cases timed kernel by kernel.
int print_kernel_predictions(const std::vector<ValidationCase>& cases, const std::string& hw) {
  GpuSpec spec;
  try {
    spec = load_gpu_spec(hw);
  } catch (const Error& e) {
    throw UsageError(std::string("--hw: ") + e.what());
  }
  Table t({"id", "kernel", "predicted_ms", "model"});
  t.precision = 4;
  for (const ValidationCase& c : cases) {
    if (!c.predict_kernels) continue;
    const std::vector<KernelPrediction> p = c.predict_kernels(spec);
    for (size_t i = 0; i < p.size(); ++i)
      t.add_row({kernel_row_id(c.id, i), p[i].name, p[i].predicted_ms, p[i].detail});
  }
  std::cout << to_csv(t);
  return 0;
}

int run(const Args& a) {
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](const std::string& what) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%.1f s", s);
    std::cerr << "[gpu_validate " << stamp << "] " << what << std::endl;
  };
  const std::vector<ValidationCase> cases = validation_cases(!a.quick);
  if (a.list) {
    for (const ValidationCase& c : cases)
      std::cout << c.id << "\t" << c.family << "\t" << c.shape << "\n";
    return 0;
  }
  if (a.predict_kernels) return print_kernel_predictions(cases, a.hw);
  std::string device = "replay of " + a.replay;
  std::string hw = a.hw, hw_why;
  std::map<std::string, ReplayMeasurement> replay;
  if (a.replay.empty()) {
    LiveGpuProperties p;
    std::string why;
    if (!cuda_device_properties(&p, &why)) {
      std::cerr << "error: gpu_validate needs an NVIDIA GPU: " << why
                << " (without one: --replay FILE.csv --hw NAME)" << std::endl;
      return kExitNoGpu;
    }
    device = p.name;
    if (hw.empty()) {
      const LiveGpuMatch m = match_live_gpu(p);
      if (m.config.empty()) throw UsageError(m.why);
      hw = m.config;
      hw_why = m.why;
    }
    if (a.probe) {
      std::cout << "GPU: " << p.name << " (" << p.sm_count << " SMs, sm_" << p.compute_capability
                << ", " << p.total_memory_bytes / (int64_t{1} << 20) << " MiB); config: " << hw
                << (hw_why.empty() ? "" : " (" + hw_why + ")") << "\n";
      return 0;
    }
  } else {
    std::vector<std::string> ids;
    for (const ValidationCase& c : cases) ids.push_back(c.id);
    replay = read_replay(read_text(a.replay), a.replay, ids);
  }
  GpuSpec spec;
  try {
    spec = load_gpu_spec(hw);
  } catch (const Error& e) {
    throw UsageError(std::string("--hw: ") + e.what());
  }
  std::filesystem::create_directories(a.out);

  MeasureOptions mo;
  mo.seed = a.seed;
  mo.search_config = &spec;  // measure the schedules the model prices
  if (a.replay.empty()) {
    size_t i = 0;
    for (const ValidationCase& c : cases) {
      progress("case " + std::to_string(++i) + " of " + std::to_string(cases.size()) + ": " + c.id);
      const double ms = c.measure_ms(mo);
      const std::string detail = c.measured_detail ? c.measured_detail() : "";
      replay[c.id] = {ms, "measured on " + device + (detail.empty() ? "" : "; " + detail)};
      const std::vector<double> per_kernel =
          c.measured_kernels ? c.measured_kernels() : std::vector<double>{};
      // The measured schedule is the one the model prices on `spec`: each row names its kernel,
      // so a replay on a config whose schedule differs is refused (priced_kernel_rows).
      const std::vector<KernelPrediction> names =
          per_kernel.empty() ? std::vector<KernelPrediction>{} : c.predict_kernels(spec);
      for (size_t k = 0; k < per_kernel.size(); ++k)
        replay[kernel_row_id(c.id, k)] = {
            per_kernel[k],
            "measured on " + device + "; kernel " + std::to_string(k) + " launched alone" +
                (k < names.size() ? std::string(kKernelNameTag) + names[k].name : "")};
    }
  }
  const std::string calibration = a.calibrate ? calibrate(spec, cases, replay) : "";
  const std::vector<ValidationRow> rows = priced_rows(cases, replay, spec);
  const std::vector<GroupSummary> summary = summarize(rows);
  const std::vector<PairResult> pairs = compare_pairs(rows, validation_pairs());
  const std::vector<KernelRow> kernel_rows = priced_kernel_rows(cases, replay, spec);
  const Table rt = rows_table(rows), st = summary_table(summary), pt = pairs_table(pairs);
  print_table(std::cout, "gpu_validate: " + device + ", model on " + spec.name, rt);
  print_table(std::cout, "Summary (mae: mean |predicted / measured - 1|)", st);
  print_table(std::cout, "Schedule-vs-schedule comparisons", pt);
  int right = 0, right_before = 0;
  for (const PairResult& p : pairs) right += p.sign_right, right_before += p.sign_right_before;
  std::ostringstream notes;
  notes << "device: " << device << "\n"
        << "config: " << spec.file << (hw_why.empty() ? "" : " (" + hw_why + ")") << "\n"
        << "timing: CUDA events, " << mo.timing.warmup << " warm-up runs, median of "
        << mo.timing.repeats << " samples of " << mo.timing.number << " runs\n"
        << calibration << model_constants(spec);
  const std::string cal = ExperimentContext::calibrated_constants(spec);
  if (!cal.empty()) notes << "calibrated constants used: " << cal << "\n";
  notes << "schedule-vs-schedule signs right: " << right << " of " << pairs.size() << " (before "
        << right_before << " of " << pairs.size() << ")\n"
        << "the model before: the same launches with the library-class efficiencies "
           "(gemm_fp32, memory_bound, fused, ...) and no suite-kernel family; for e2e_welder, "
           "Welder's own latency of the schedule as generated kernels\n";
  notes << kernel_summary(kernel_rows);
  std::cout << notes.str();
  const std::filesystem::path dir(a.out);
  if (!kernel_rows.empty())
    write_file_atomic((dir / "gpu_validate_kernels.csv").string(),
                      to_csv(kernel_rows_table(kernel_rows)));
  write_file_atomic((dir / "gpu_validate_replay.csv").string(),
                    to_csv(replay_table(rows, kernel_rows)));
  write_file_atomic((dir / "gpu_validate.csv").string(), to_csv(rt));
  write_file_atomic((dir / "gpu_validate_summary.csv").string(), to_csv(st));
  write_file_atomic((dir / "gpu_validate_pairs.csv").string(), to_csv(pt));
  write_file_atomic((dir / "gpu_validate_notes.txt").string(), notes.str());
  std::cout << "wrote " << (dir / "gpu_validate.csv").string()
            << " and its summary, pairs, notes, replay file"
            << (kernel_rows.empty() ? "" : ", per-kernel rows") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    const Args a = parse(argc, argv);
    if (a.help) {
      std::cout
          << "usage: gpu_validate [--out DIR] [--hw NAME|FILE.json] [--quick] [--seed N]\n"
             "       gpu_validate --replay FILE.csv --hw NAME|FILE.json [--calibrate] [--out DIR]\n"
             "       gpu_validate --list | --probe | --predict-kernels --hw NAME|FILE.json\n"
             "Runs the suite's kernel suite on the live GPU and compares each latency with "
             "the GPU model's\n(see README, 'Validating the GPU model'). Exit codes: 0 ok, 1 "
             "a case failed, 2 usage, 4 no GPU\n";
      return 0;
    }
    return run(a);
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return kExitUsage;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "error: internal error: " << e.what() << std::endl;
    return kExitFailed;
  }
}
