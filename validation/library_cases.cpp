// The cases of gpu_validate that run through the library and the schedulers' executors
// (validation_cases.h): cuDNN convolutions of ResNet-50 and Inception V3, stages of concurrent
// convolutions, and the end-to-end schedules of IOS Fig. 1.2, GraphTurbo Table 5 and Welder
// Fig. 13. Only the CUDA-free headers of common/cuda are used (see validation_cases.cpp).
#include "validation/library_cases.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/cuda/device_fault.h"
#include "common/cuda/device_network.h"
#include "common/cuda/stage_executor.h"
#include "common/cuda/tile_program_gpu.h"
#include "common/exec/executor.h"
#include "common/gpumodel/gpu_model.h"
#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/occupancy.h"
#include "common/graph/window.h"
#include "common/util/error.h"
#include "models/zoo.h"
#include "reproductions/graphturbo/tailor.h"
#include "reproductions/ios/experiments/measured.h"
#include "reproductions/ios/experiments/runs.h"
#include "reproductions/ios/network.h"
#include "reproductions/ios/scheduler.h"
#include "reproductions/welder/experiments/experiments.h"
#include "reproductions/welder/schedule_tile_programs.h"
#include "validation/suite_kernels.h"

namespace dgs::validation {

std::string cudnn_algorithm_detail(int algo, bool fused) {
  static constexpr const char* kNames[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  const bool named = algo >= 0 && algo < static_cast<int>(std::size(kNames));
  return std::string("cuDNN algorithm ") +
         (named ? kNames[static_cast<size_t>(algo)] : std::to_string(algo)) +
         (fused ? " (fused Conv+bias+ReLU call)" : "");
}

std::string model_conv_algorithm(const Graph& g, int op, const GpuSpec& spec) {
  KernelOptions ko;
  ko.fold_activation = true;
  for (const KernelLaunch& k : kernels_for_op(g, op, spec, ko)) {
    if (k.klass != KernelClass::Gemm) continue;
    const std::string tile = std::to_string(k.tile.m) + "x" + std::to_string(k.tile.n);
    if (k.name.find("winograd") == std::string::npos) return "implicit GEMM " + tile;
    const std::string r = std::to_string(resolve_window(g, op).kernel.at(0));
    return "Winograd F(2x2," + r + "x" + r + ") " + tile;
  }
  return "";
}

std::string kernel_row_id(const std::string& case_id, size_t index) {
  return case_id + "/k" + std::to_string(index);
}

namespace {

// The suite_tile_program launch of each kernel of `np` on the grid measured mode launches
// (gpu::tile_program_blocks at the interpreter's occupancy on `spec`), with its SuiteKernel.
std::vector<std::pair<KernelLaunch, SuiteKernel>> tile_program_kernels(const GpuSpec& spec,
                                                                       const NetworkProgram& np) {
  KernelLaunch probe;
  probe.threads_per_block = gpu::kTpThreadsPerBlock;
  probe.registers_per_thread = kTileProgramRegisters;
  const int blocks_per_sm = std::max(1, occupancy(spec, probe).blocks_per_sm);
  std::vector<std::pair<KernelLaunch, SuiteKernel>> out;
  for (const TileProgram& k : np.kernels) {
    SuiteKernel sk =
        tile_program_kernel(k, gpu::tile_program_blocks(k, spec.sm_count, blocks_per_sm));
    KernelLaunch l = suite_kernel_launch(spec, sk);
    out.emplace_back(std::move(l), std::move(sk));
  }
  return out;
}

std::vector<KernelLaunch> tile_program_launches(const GpuSpec& spec, const NetworkProgram& np) {
  std::vector<KernelLaunch> out;
  for (auto& k : tile_program_kernels(spec, np)) out.push_back(std::move(k.first));
  return out;
}

// "; MatMul 1x80x128 of K 1536, ...": the output region of tile 0 of each MatMul/Gemm of `p`
// and its reduction length (what a block's operand reuse depends on).
std::string matmul_regions(const TileProgram& p) {
  std::string out;
  const size_t nops = p.ops.size();
  for (size_t i = 0; i < nops; ++i) {
    const TpOp& op = p.ops[i];
    if (op.kind != TpKind::MatMul && op.kind != TpKind::Gemm) continue;
    const int64_t* reg = p.regions.data() + static_cast<int64_t>(i) * p.region_stride();
    std::string dims;
    for (int d = 0; d < op.rank; ++d) {
      if (d > 0) dims += 'x';
      dims += std::to_string(reg[kTpMaxRank + d]);
    }
    const TpOperand& a = op.in[0];
    const bool ta = op.kind == TpKind::Gemm && op.ia[0] != 0;
    const int64_t k =
        op.kind == TpKind::Gemm ? (ta ? a.shape[0] : a.shape[1]) : a.shape[a.rank - 1];
    out += out.empty() ? "; " : ", ";
    out += tp_kind_name(op.kind);
    out += ' ';
    out += dims;
    out += " of K ";
    out += std::to_string(k);
  }
  return out;
}

// Each kernel of `np` priced alone (one launch on an idle GPU), in launch order.
std::vector<KernelPrediction> tile_program_predictions(const GpuSpec& spec,
                                                       const NetworkProgram& np) {
  std::vector<KernelPrediction> out;
  const std::vector<std::pair<KernelLaunch, SuiteKernel>> ks = tile_program_kernels(spec, np);
  for (size_t i = 0; i < ks.size(); ++i) {
    const TileProgram& p = np.kernels[i];
    const SuiteKernel& sk = ks[i].second;
    KernelPrediction kp;
    kp.name = p.name;
    std::string ops;
    for (const TpOp& op : p.ops) ops += std::string(ops.empty() ? "" : "+") + tp_kind_name(op.kind);
    char d[160];
    std::snprintf(d, sizeof d, "%lld tiles on %lld blocks; busiest thread %lld waits, %.0f instr",
                  static_cast<long long>(p.tiles), static_cast<long long>(sk.grid_blocks),
                  static_cast<long long>(sk.steps),
                  sk.other_instructions + sk.fma_per_step * static_cast<double>(sk.steps));
    kp.detail = ops + "; " + d + matmul_regions(p);
    kp.predicted_ms = simulate_stage(spec, {{ks[i].first}}).latency_us / 1000.0;
    out.push_back(std::move(kp));
  }
  return out;
}

// --- cuDNN convolutions of ResNet-50 and Inception V3 -------------------------------------------
// A graph of one convolution (with its bias, and its ReLU where the network has one) cut out of
// a network: input, weight and bias as the network's.
struct ConvFragment {
  std::string key;
  Graph g;
};

std::vector<ConvFragment> distinct_convs(const std::string& model, int64_t batch) {
  ZooOptions zo;
  zo.batch = batch;
  const Graph net = build_zoo_model(model, zo);
  std::vector<ConvFragment> out;
  std::set<std::string> seen;
  for (int oi : net.topo_order()) {
    const Op& op = net.op(oi);
    if (op.kind != OpKind::Conv) continue;
    const Shape& x = net.tensor(op.inputs.at(0)).shape;
    const Shape& w = net.tensor(op.inputs.at(1)).shape;
    const Shape& y = net.tensor(op.outputs.at(0)).shape;
    const Tensor& yt = net.tensor(op.outputs.at(0));
    const bool relu = yt.consumers.size() == 1 && net.op(yt.consumers[0]).kind == OpKind::Relu;
    const Window win = resolve_window(net, oi);
    std::ostringstream k;
    k << x[0] << "x" << x[1] << "x" << x[2] << "x" << x[3] << " k" << w[2] << "x" << w[3] << " -> "
      << y[1] << "x" << y[2] << "x" << y[3];
    for (int64_t s : win.strides) k << " s" << s;
    for (int64_t p : win.pads_begin) k << " p" << p;
    for (int64_t p : win.pads_end) k << " q" << p;
    if (win.group > 1) k << " g" << win.group;
    if (relu) k << " +relu";
    if (!seen.insert(k.str()).second) continue;
    ConvFragment f;
    f.key = k.str();
    f.g.name = "conv_fragment";
    const int xi = f.g.add_input("x", x);
    std::vector<int> in = {xi, f.g.add_weight("w", w)};
    if (op.inputs.size() > 2 && op.inputs[2] >= 0)
      in.push_back(f.g.add_weight("b", net.tensor(op.inputs[2]).shape));
    int out_t = f.g.op(f.g.add_op(OpKind::Conv, "conv", in, op.attrs)).outputs.at(0);
    if (relu) out_t = f.g.op(f.g.add_op(OpKind::Relu, "relu", {out_t})).outputs.at(0);
    f.g.mark_output(out_t);
    out.push_back(std::move(f));
  }
  return out;
}

// One stage, one Sequential task of every op (or one task per op: `concurrent`), Conv+ReLU
// folded as cuDNN runs it.
Plan single_stage_plan(const Graph& g, bool concurrent,
                       const std::vector<std::vector<int>>& tasks) {
  Plan p;
  p.graph = g.name;
  p.scheduler = concurrent ? "concurrent" : "sequential";
  p.options.fold_activation = true;
  Stage s;
  for (const std::vector<int>& ops : tasks) {
    Task t;
    t.kind = TaskKind::Sequential;
    t.ops = ops;
    s.tasks.push_back(std::move(t));
  }
  p.stages.push_back(std::move(s));
  return p;
}

gpu::StageExecutorOptions executor_options(const MeasureOptions& o) {
  gpu::StageExecutorOptions e = ios::ios_executor_options(o.seed);
  e.timing = o.timing;
  return e;
}

// "op: cuDNN algorithm NAME; ..." for every convolution of `g` that `ex` prepared (after a
// measurement; a merged convolution is not an op's and is not named).
std::string conv_algorithms(const gpu::StageExecutor& ex, const Graph& g) {
  std::string d;
  for (int op = 0; op < g.num_ops(); ++op) {
    bool fused = false;
    const int algo = ex.conv_algorithm(op, &fused);
    if (algo >= 0)
      d += (d.empty() ? "" : "; ") + g.op(op).name + ": " + cudnn_algorithm_detail(algo, fused);
  }
  return d;
}

ValidationCase plan_case(std::string id, std::string family, std::string shape,
                         std::shared_ptr<const Graph> g, Plan plan, bool stage_alone) {
  ValidationCase c;
  c.id = std::move(id);
  c.family = std::move(family);
  c.shape = std::move(shape);
  c.predict_ms = [g, plan](const GpuSpec& spec) {
    return evaluate_plan(*g, plan, spec).latency_us / 1000.0;
  };
  c.predict_before_ms = c.predict_ms;  // library-class kernels: the model is unchanged
  auto algorithms = std::make_shared<std::string>();
  c.measure_ms = [g, plan, stage_alone, algorithms, id = c.id](const MeasureOptions& o) {
    const gpu::WorkScope where("case " + id);
    gpu::StageExecutor ex(*g, executor_options(o));
    ex.prepare(plan);
    // A stage timed alone includes the synchronisation after each run of a multi-task stage
    // (the model's rule, stage_sync_cost_us).
    const double ms = stage_alone ? ex.measure_stage(plan.stages.at(0)).median_ms
                                  : ex.measure(plan, false).network_ms;
    *algorithms = conv_algorithms(ex, *g);
    return ms;
  };
  c.measured_detail = [algorithms] { return *algorithms; };
  return c;
}

// The convolutions of one network and batch measured on one stage executor over a graph that
// holds them all (cuDNN handles and workspaces are created once, not per case).
struct SharedExecutor {
  Graph all;
  std::unique_ptr<gpu::StageExecutor> ex;
  gpu::StageExecutor& get(const MeasureOptions& o) {
    if (!ex) ex = std::make_unique<gpu::StageExecutor>(all, executor_options(o));
    return *ex;
  }
};

// Appends fragment `f`'s ops to `all` (tensors renamed with `suffix`); returns their indices.
std::vector<int> append_fragment(Graph& all, const Graph& f, const std::string& suffix) {
  std::map<int, int> t;  // fragment tensor -> all's
  for (int i : f.input_tensors())
    t[i] = all.add_input(f.tensor(i).name + suffix, f.tensor(i).shape);
  for (int i = 0; i < f.num_tensors(); ++i)
    if (f.tensor(i).role == TensorRole::Weight)
      t[i] = all.add_weight(f.tensor(i).name + suffix, f.tensor(i).shape);
  std::vector<int> ops;
  for (int oi : f.topo_order()) {
    const Op& op = f.op(oi);
    std::vector<int> in;
    for (int x : op.inputs) in.push_back(x < 0 ? -1 : t.at(x));
    const int n = all.add_op(op.kind, op.name + suffix, in, op.attrs);
    t[op.outputs.at(0)] = all.op(n).outputs.at(0);
    ops.push_back(n);
  }
  for (int o : f.output_tensors()) all.mark_output(t.at(o));
  return ops;
}

}  // namespace

void add_cudnn_cases(std::vector<ValidationCase>& out, bool full) {
  for (const std::string model : {"resnet50", "inception_v3"}) {
    for (int64_t batch : {int64_t{1}, int64_t{32}}) {
      if (batch > 1 && !full) continue;
      auto shared = std::make_shared<SharedExecutor>();
      shared->all.name = model + "_convs_b" + std::to_string(batch);
      int i = 0;
      for (ConvFragment& f : distinct_convs(model, batch)) {
        const std::string id =
            "cudnn." + model + ".b" + std::to_string(batch) + "." + std::to_string(i);
        const std::vector<int> ops = append_fragment(shared->all, f.g, "_" + std::to_string(i++));
        auto g = std::make_shared<const Graph>(std::move(f.g));
        std::vector<int> own;
        for (int o = 0; o < g->num_ops(); ++o) own.push_back(o);
        const Plan p = single_stage_plan(*g, false, {own});
        ValidationCase c;
        c.id = id;
        c.family = "cudnn_conv";
        c.shape = f.key;
        c.predict_ms = [g, p](const GpuSpec& spec) {
          return evaluate_plan(*g, p, spec).latency_us / 1000.0;
        };
        c.predict_before_ms = c.predict_ms;  // library-class kernels: the model is unchanged
        c.model_algorithm = [g](const GpuSpec& spec) { return model_conv_algorithm(*g, 0, spec); };
        c.measured_detail = [shared, ops]() {
          std::string d;
          for (int op : ops) {
            bool fused = false;
            const int algo = shared->ex ? shared->ex->conv_algorithm(op, &fused) : -1;
            if (algo >= 0) d += (d.empty() ? "" : "; ") + cudnn_algorithm_detail(algo, fused);
          }
          return d;
        };
        c.measure_ms = [shared, ops, id](const MeasureOptions& o) {
          const gpu::WorkScope where("case " + id);
          Stage s;
          Task t;
          t.kind = TaskKind::Sequential;
          t.ops = ops;
          s.tasks.push_back(std::move(t));
          return shared->get(o).measure_stage(s).median_ms;
        };
        out.push_back(std::move(c));
      }
    }
  }
}

// --- a stage of 2 and 4 concurrent convolutions (IOS Fig. 1.2's shapes) -------------------------
void add_multistream_cases(std::vector<ValidationCase>& out) {
  for (int streams : {2, 4}) {
    Graph g;
    g.name = "concurrent_convs";
    const int x = g.add_input("x", {1, 384, 15, 15});
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    std::vector<std::vector<int>> tasks;
    for (int s = 0; s < streams; ++s) {
      const int64_t oc = s % 2 == 0 ? 768 : 384;
      const std::string n = "conv" + std::to_string(s);
      const int w = g.add_weight(n + ".w", {oc, 384, 3, 3});
      const int b = g.add_weight(n + ".b", {oc});
      const int c = g.add_op(OpKind::Conv, n, {x, w, b}, a);
      const int r = g.add_op(OpKind::Relu, n + ".relu", {g.op(c).outputs.at(0)});
      g.mark_output(g.op(r).outputs.at(0));
      tasks.push_back({c, r});
    }
    auto gp = std::make_shared<const Graph>(std::move(g));
    Plan p = single_stage_plan(*gp, true, tasks);
    out.push_back(plan_case("stage." + std::to_string(streams) + "convs", "multi_stream",
                            std::to_string(streams) +
                                " concurrent 3x3 Conv+ReLU (384 -> 768/384 on 15x15), one stream "
                                "each, then a device synchronisation",
                            gp, std::move(p), true));
  }
}

// --- end to end ---------------------------------------------------------------------------------
void add_ios_cases(std::vector<ValidationCase>& out) {
  auto g = std::make_shared<const Graph>(build_zoo_model("ios_fig1_2"));
  auto net = std::make_shared<const ios::Network>(ios::make_network(*g, ios::PartRule::Blocks));
  const std::vector<std::string> names = {"Sequential", "Greedy", "IOS-Merge", "IOS-Parallel",
                                          "IOS-Both"};
  for (const std::string& name : names) {
    // The schedule of the model on the config being validated (searched once per config).
    auto schedule = [g, net, name](const GpuSpec& spec) {
      if (name == "Sequential") return ios::sequential_schedule(*net);
      if (name == "Greedy") return ios::greedy_schedule(*net);
      const ios::StrategySet s = name == "IOS-Merge"      ? ios::StrategySet::Merge
                                 : name == "IOS-Parallel" ? ios::StrategySet::Parallel
                                                          : ios::StrategySet::Both;
      return ios::fresh_search(*net, spec, s, ios::Pruning{}).schedule;
    };
    ValidationCase c;
    c.id = "ios_fig1_2." + name;
    c.family = "e2e_ios";
    c.shape = "IOS thesis Fig. 1.2 (4 convs on 384x15x15), schedule " + name +
              " (searched with the model on the validated config)";
    c.end_to_end = true;
    c.predict_ms = [net, schedule](const GpuSpec& spec) {
      return ios::evaluate_schedule(*net, schedule(spec), spec).latency_us / 1000.0;
    };
    c.predict_before_ms = c.predict_ms;
    auto searched = std::make_shared<std::string>();
    c.measure_ms = [g, net, schedule, searched, id = c.id](const MeasureOptions& o) {
      const gpu::WorkScope where("case " + id);
      gpu::StageExecutor ex(*g, executor_options(o));
      // The schedule searched on the validated config (the one predict_ms prices), else on the
      // live GPU's spec (the executor knows the device).
      const GpuSpec& on = o.search_config ? *o.search_config : ex.gpu();
      const ios::IosSchedule s = schedule(on);
      *searched = "schedule searched on " + on.file + ":";
      for (const ios::IosStage& st : s.stages)
        *searched += " " + ios::describe_stage(*net, st) + ";";
      const double ms = ex.measure(ios::to_plan(*net, s), false).network_ms;
      const std::string algorithms = conv_algorithms(ex, *g);
      if (!algorithms.empty()) *searched += " " + algorithms;
      return ms;
    };
    c.measured_detail = [searched] { return *searched; };
    out.push_back(std::move(c));
  }
}

void add_graphturbo_case(std::vector<ValidationCase>& out) {
  constexpr int64_t kBatch = 64;
  auto net =
      std::make_shared<graphturbo::TailorNetwork>(graphturbo::tailor_per_layer(kBatch, DType::F32));
  Plan p;
  p.graph = net->graph.name;
  p.scheduler = "cuDNN per layer";
  p.options.fold_activation = true;
  for (const std::vector<int>& k : net->kernels) {
    Task t;
    t.kind = TaskKind::Sequential;
    t.ops = k;
    p.stages.push_back(Stage{{t}});
  }
  auto g = std::shared_ptr<const Graph>(net, &net->graph);
  ValidationCase c = plan_case("graphturbo_table5.b64.cudnn", "e2e_graphturbo",
                               "GraphTurbo Table 5: ResNet18-Tailor, batch 64, FP32, one cuDNN "
                               "call per conv+ReLU layer",
                               g, std::move(p), false);
  c.end_to_end = true;
  out.push_back(std::move(c));
}

void add_welder_cases(std::vector<ValidationCase>& out) {
  constexpr int64_t kBatch = 8;
  for (welder::Variant v : {welder::Variant::None, welder::Variant::Welder}) {
    ValidationCase c;
    c.id = "welder_fig13.vit_s32.b8." + welder::variant_name(v);
    c.family = "e2e_welder";
    c.shape = "Welder Fig. 13 ViT-S/32 at batch 8, " + welder::variant_name(v) +
              ", every kernel one launch of the tile-program interpreter";
    c.end_to_end = true;
    auto schedule = [v](const GpuSpec& spec) {
      ZooOptions zo;
      zo.batch = kBatch;
      auto tg = std::make_shared<welder::TileGraph>(welder::model_tile_graph("vit_s32", zo));
      const std::vector<welder::Schedule> s =
          welder::run_variants(*tg, welder::arch_from_gpu(spec, false), {v});
      return std::make_pair(tg, s.at(0));
    };
    // The model prices what runs: each kernel of the compiled schedule one launch of the
    // tile-program interpreter (suite family suite_tile_program) on the grid measured mode
    // launches, one after another on one stream. Before: Welder's schedule as generated
    // kernels (its own latency).
    c.predict_ms = [schedule](const GpuSpec& spec) {
      const auto [tg, s] = schedule(spec);
      return simulate_stage(spec, {tile_program_launches(spec, welder::compile_schedule(*tg, s))})
                 .latency_us /
             1000.0;
    };
    c.predict_kernels = [schedule](const GpuSpec& spec) {
      const auto [tg, s] = schedule(spec);
      return tile_program_predictions(spec, welder::compile_schedule(*tg, s));
    };
    c.predict_before_ms = [schedule](const GpuSpec& spec) {
      return schedule(spec).second.metrics.latency_ms;
    };
    auto searched = std::make_shared<std::string>();
    auto per_kernel = std::make_shared<std::vector<double>>();
    c.measure_ms = [schedule, searched, per_kernel, id = c.id](const MeasureOptions& o) {
      const gpu::WorkScope where("case " + id);
      const GpuSpec live = gpu::query_gpu_spec(0);
      // The schedule searched on the validated config (the one predict_ms prices), else on the
      // live GPU's spec.
      const GpuSpec& on = o.search_config ? *o.search_config : live;
      const auto [tg, s] = schedule(on);
      const NetworkProgram np = welder::compile_schedule(*tg, s);
      *searched =
          "schedule searched on " + on.file + ": " + std::to_string(np.kernels.size()) + " kernels";
      const Graph& g = *tg->source;
      const TensorValues feeds = make_graph_feeds(g, {}, o.seed);
      const gpu::DeviceNetwork dn(g, np, feeds, live.sm_count);
      gpu::Stream stream;
      gpu::KernelLauncher launcher(stream);
      gpu::TimingProtocol t = o.timing;
      t.number = 1;
      const double ms = gpu::time_with_events([&] { dn.run(launcher); }, stream, t).median_ms;
      // Then each kernel alone, on the values the runs left in the buffers (same protocol).
      per_kernel->clear();
      for (size_t i = 0; i < dn.kernel_count(); ++i)
        per_kernel->push_back(
            gpu::time_with_events([&dn, &launcher, i] { dn.run_kernel(launcher, i); }, stream, t)
                .median_ms);
      return ms;
    };
    c.measured_detail = [searched] { return *searched; };
    c.measured_kernels = [per_kernel] { return *per_kernel; };
    out.push_back(std::move(c));
  }
}

}  // namespace dgs::validation
