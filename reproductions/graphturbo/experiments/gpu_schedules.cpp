// GraphTurbo's GPU schedules of ResNet18-Tailor (gpu_schedules.h).
#include "reproductions/graphturbo/experiments/gpu_schedules.h"

#include <algorithm>
#include <functional>

#include "common/evaluate/evaluate.h"
#include "common/gpumodel/kernel_rules.h"
#include "common/gpumodel/plan_evaluation.h"
#include "reproductions/graphturbo/tailor.h"

namespace dgs::graphturbo {

Graph tailor_f16(int64_t batch) {
  return resnet18_tailor(batch, DType::F16);
}

namespace {

std::vector<int> convs_of(const Graph& g, const std::vector<int>& ops) {
  std::vector<int> out;
  for (int op : ops)
    if (g.op(op).kind == OpKind::Conv) out.push_back(op);
  return out;
}

double tensor_bytes(const Graph& g, int t) {
  return double(g.tensor(t).numel()) * dtype_size(g.tensor(t).dtype);
}

// conv A -> conv B back to back: one kernel; the intermediate never reaches L2 or DRAM.
KernelLaunch b2b_kernel(const Graph& g, int a, int b, const GpuSpec& spec, const KernelOptions& o) {
  const KernelLaunch ka = kernels_for_op(g, a, spec, o).at(0);
  const KernelLaunch kb = kernels_for_op(g, b, spec, o).at(0);
  const double inter = tensor_bytes(g, g.op(a).outputs[0]);
  KernelLaunch k = ka;
  k.name = "b2b:" + g.op(a).name + "+" + g.op(b).name;
  k.flops = ka.flops + kb.flops;
  k.dram_bytes = std::max(0.0, ka.dram_bytes + kb.dram_bytes - 2 * inter);
  k.l2_bytes = std::max(k.dram_bytes, ka.l2_bytes + kb.l2_bytes - 2 * inter);
  k.registers_per_thread = std::max(ka.registers_per_thread, kb.registers_per_thread);
  k.shared_bytes_per_block = std::max(ka.shared_bytes_per_block, kb.shared_bytes_per_block);
  k.ops = {a, b};
  return k;
}

// Instance i of f of a stage's kernel: 1/f of its grid, work and traffic.
KernelLaunch instance_of(KernelLaunch k, int64_t i, int64_t f) {
  k.name += ":instance" + std::to_string(i + 1);
  k.grid_blocks = (k.grid_blocks + f - 1) / f;
  k.flops /= double(f);
  k.dram_bytes /= double(f);
  k.l2_bytes /= double(f);
  return k;
}

// The stage (0-based) of each conv of the network: convs come in pairs, stage by stage.
int stage_of_conv(const Graph& g, int conv) {
  int k = 0;
  for (int op : g.topo_order()) {
    if (op == conv) return k / 2;
    k += g.op(op).kind == OpKind::Conv;
  }
  throw Error("table5: op " + std::to_string(conv) + " is not a convolution of the network");
}

}  // namespace

// The kernels of a Fused task: one stage's two convs = one back-to-back kernel; a run of split
// stages (factors[s] > 1, each a multiple of the next) = their instances in Algorithm 3's order (a
// consumer instance right after the producer instances it reads), a consumer instance reading its
// producers' outputs from L2 (up to the L2's size; the paper keeps them on chip).
std::vector<KernelLaunch> fused_kernels(const Graph& g, const Task& t, const GpuSpec& spec,
                                        const std::vector<int64_t>& factors) {
  KernelOptions o;
  o.fold_activation = true;
  const std::vector<int> c = convs_of(g, t.ops);
  if (c.empty() || c.size() % 2 != 0) throw Error("table5: a fused task holds pairs of convs");
  const int first = stage_of_conv(g, c[0]);
  const size_t n = c.size() / 2;
  if (n == 1 && factors[size_t(first)] == 1) return {b2b_kernel(g, c[0], c[1], spec, o)};
  std::vector<std::vector<KernelLaunch>> inst(n);  // per stage of the run, its instances
  for (size_t k = 0; k < n; ++k) {
    const int64_t f = factors[size_t(first) + k];
    if (k + 1 < n && f % factors[size_t(first) + k + 1] != 0)
      throw Error("table5: a split stage's factor is not a multiple of the next one's");
    const KernelLaunch whole = b2b_kernel(g, c[2 * k], c[2 * k + 1], spec, o);
    for (int64_t i = 0; i < f; ++i) inst[k].push_back(instance_of(whole, i, f));
  }
  // L2 reuse: consumer instance j of stage k + 1 reads 1/f_{k+1} of stage k's output, written by
  // its producer instances just before it.
  for (size_t k = 0; k + 1 < n; ++k) {
    const int64_t fp = factors[size_t(first) + k], fc = factors[size_t(first) + k + 1];
    const double read = tensor_bytes(g, g.op(c[2 * k + 1]).outputs[0]) / double(fc);
    const double saved = std::min(read, double(spec.l2_bytes));
    const int64_t per = fp / fc;
    for (int64_t j = 0; j < fc; ++j) {
      inst[k + 1][size_t(j)].dram_bytes -= saved;
      for (int64_t i = j * per; i < (j + 1) * per; ++i)
        inst[k][size_t(i)].dram_bytes -= saved / double(per);
    }
  }
  std::vector<KernelLaunch> out;
  const std::function<void(size_t, int64_t)> emit = [&](size_t k, int64_t j) {
    if (k > 0) {
      const int64_t per = factors[size_t(first) + k - 1] / factors[size_t(first) + k];
      for (int64_t i = j * per; i < (j + 1) * per; ++i) emit(k - 1, i);
    }
    out.push_back(inst[k][size_t(j)]);
  };
  for (int64_t j = 0; j < factors[size_t(first) + n - 1]; ++j) emit(n - 1, j);
  return out;
}

// "4/2/1/1"
std::string factors_text(const std::vector<int64_t>& factors) {
  std::string s;
  for (int64_t f : factors) {
    if (!s.empty()) s += '/';
    s += std::to_string(f);
  }
  return s;
}

// GraphTurbo's plan: a run of consecutive split stages (factor > 1) is one Fused task (its
// instances, fused_kernels), every other stage its two-conv kernel.
Plan gpu_plan(const Graph& g, GpuSchedule s, const std::vector<int64_t>& factors) {
  Plan p;
  p.graph = g.name;
  p.options.fold_activation = true;
  const std::vector<int> order = g.topo_order();  // conv, relu, conv, relu, ...
  const size_t layers = order.size() / 2;
  auto ops_of = [&](size_t first_layer, size_t count) {
    return std::vector<int>(order.begin() + long(2 * first_layer),
                            order.begin() + long(2 * (first_layer + count)));
  };
  auto add = [&](TaskKind kind, std::vector<int> ops) {
    Task t;
    t.kind = kind;
    t.ops = std::move(ops);
    Stage st;
    st.tasks.push_back(std::move(t));
    p.stages.push_back(std::move(st));
  };
  if (s == GpuSchedule::Tvm) {
    p.scheduler = "TVM + CUTLASS per layer";
    for (size_t l = 0; l < layers; ++l) add(TaskKind::Sequential, ops_of(l, 1));
  } else if (s == GpuSchedule::CutlassFusion) {
    p.scheduler = "CUTLASS two-conv fusion";
    for (size_t l = 0; l < layers; l += 2) add(TaskKind::Fused, ops_of(l, 2));
  } else {
    p.scheduler = "GraphTurbo (instances per sub-graph ";
    p.scheduler += factors_text(factors);
    p.scheduler += ")";
    if (factors.size() * 2 != layers) throw Error("table5: one factor per two-conv sub-graph");
    for (size_t st = 0; st < factors.size();) {
      size_t end = st + 1;
      if (factors[st] > 1)
        while (end < factors.size() && factors[end] > 1) ++end;
      add(TaskKind::Fused, ops_of(2 * st, 2 * (end - st)));
      st = end;
    }
  }
  return p;
}

// The plan of schedule `s` checked and priced by evaluate() on `hw` (a GPU), its Fused tasks'
// kernels GraphTurbo's (fused_kernels, tailor.h).
double gpu_ms(const Graph& g, GpuSchedule s, const HardwareSpec& hw,
              const std::vector<int64_t>& factors) {
  const Plan p = gpu_plan(g, s, factors);
  EvaluationOptions o;
  o.gpu_fused_kernels = [&factors](const Graph& gg, const Task& t, const GpuSpec& spec) {
    return fused_kernels(gg, t, spec, factors.empty() ? std::vector<int64_t>(4, 1) : factors);
  };
  return evaluate(g, p, hw, o).latency_us / 1000;
}

}  // namespace dgs::graphturbo
