// The stage executor on a GPU (see stage_executor.h): construction, device memory, the support
// check, op dispatch, streams and stages, and the public classes. Convolutions are in
// stage_executor_conv.cu, the other ops' kernels in stage_executor_ops.cu.
#include "common/cuda/device_fault.h"
#include "common/cuda/stage_executor_impl.cuh"

namespace dgs::gpu {

StageExecutor::Impl::Impl(const Graph& graph, StageExecutorOptions o) : g(graph), opts(o) {
  std::string why;
  if (!cuda_gpu_available(&why)) throw Error("stage executor needs a GPU: " + why);
  if (opts.max_streams < 0) throw Error("stage executor: max_streams must be >= 0 (0: no limit)");
  validate(g);
  gpu = query_gpu_spec(0);
  allocate();
  conv_runs.resize(static_cast<size_t>(g.num_ops()));
  for (int i = 0; i < g.num_ops(); ++i) check_supported(i);
  ensure_contexts(1);
  pass_start = std::make_unique<Event>();
}

void StageExecutor::Impl::ensure_contexts(size_t n) {
  if (opts.max_streams > 0 && n > static_cast<size_t>(opts.max_streams)) {
    throw Error("stage executor: a stage with " + std::to_string(n) +
                " tasks exceeds max_streams " + std::to_string(opts.max_streams));
  }
  while (ctx.size() < n) ctx.push_back(std::make_unique<Context>(opts.workspace_bytes));
}

void StageExecutor::Impl::allocate() {
  const size_t nt = static_cast<size_t>(g.num_tensors());
  own.resize(nt);
  ptr.assign(nt, nullptr);
  std::vector<bool> alias(nt, false);
  for (int oi : g.topo_order()) {
    const Op& op = g.op(oi);
    if (is_layout_only(op.kind) && !op.inputs.empty() && op.inputs[0] >= 0) {
      alias[static_cast<size_t>(op.outputs[0])] = true;
    }
  }
  for (size_t t = 0; t < nt; ++t) {
    const Tensor& ts = g.tensor(static_cast<int>(t));
    if (!on_device(ts.dtype) || alias[t]) continue;
    if (ts.role == TensorRole::Constant && ts.float_data.empty() && ts.int_data.empty()) continue;
    own[t] = DeviceBuffer(static_cast<size_t>(ts.numel()) * sizeof(float));
    own[t].fill_bytes(0);  // defined values for stages measured alone (inputs not computed)
    ptr[t] = own[t].floats();
  }
  for (int oi : g.topo_order()) {
    const Op& op = g.op(oi);
    if (is_layout_only(op.kind) && !op.inputs.empty() && op.inputs[0] >= 0) {
      ptr[static_cast<size_t>(op.outputs[0])] = ptr[static_cast<size_t>(op.inputs[0])];
    }
  }
  const TensorValues feeds = make_graph_feeds(g, {}, opts.seed);
  for (const auto& [t, v] : feeds) {
    if (ptr[static_cast<size_t>(t)] && on_device(v.dtype)) upload(t, v);
  }
}

void StageExecutor::Impl::upload(int t, const TensorData& v) {
  if (v.dtype == DType::F32) {
    own[static_cast<size_t>(t)].upload(v.f.data(), v.f.size() * sizeof(float));
    return;
  }
  std::vector<float> f(v.i.size());
  for (size_t k = 0; k < f.size(); ++k) f[k] = v.i[k] != 0 ? 1.0f : 0.0f;
  own[static_cast<size_t>(t)].upload(f.data(), f.size() * sizeof(float));
}

float* StageExecutor::Impl::buf(int op, int t) {
  if (t < 0 || ptr[static_cast<size_t>(t)] == nullptr) {
    unsupported(g, op,
                "tensor '" + (t < 0 ? std::string("<omitted>") : g.tensor(t).name) +
                    "' is not a float32 or bool tensor on the device");
  }
  return ptr[static_cast<size_t>(t)];
}

void StageExecutor::Impl::check_supported(int oi) {
  const Op& op = g.op(oi);
  for (int t : op.outputs) {
    if (t >= 0 && !on_device(g.tensor(t).dtype) && !g.tensor(t).consumers.empty()) {
      unsupported(g, oi, "output '" + g.tensor(t).name + "' is not float32 or bool");
    }
  }
  const OpKind k = op.kind;
  if (is_layout_only(k)) {
    if (k == OpKind::Dropout && op.outputs.size() > 1 && op.outputs[1] >= 0 &&
        (!g.tensor(op.outputs[1]).consumers.empty() ||
         g.tensor(op.outputs[1]).role == TensorRole::Output)) {
      unsupported(g, oi, "the mask output is not produced");
    }
    return;
  }
  if (op_family(k) == OpFamily::Logic) {  // Equal, And, Not, IsNaN, Where (op_table.inc)
    for (int t : op.inputs) {
      if (t >= 0 && !on_device(g.tensor(t).dtype)) {
        unsupported(g, oi,
                    "input '" + g.tensor(t).name + "' is " +
                        std::string(dtype_name(g.tensor(t).dtype)) +
                        "; the device holds float32 and bool tensors");
      }
    }
    return;
  }
  switch (k) {
    case OpKind::Conv:
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      if (in_shape(oi, 0).size() != 4) unsupported(g, oi, "only 2-D (NCHW) windows");
      if (k == OpKind::MaxPool && op.outputs.size() > 1) unsupported(g, oi, "Indices output");
      return;
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      if (in_shape(oi, 0).size() != 4) unsupported(g, oi, "only NCHW input");
      return;
    case OpKind::BatchNormalization:
      if (op.attrs.get_int("training_mode", 0) != 0 || op.outputs.size() > 1) {
        unsupported(g, oi, "training mode");
      }
      if (in_shape(oi, 0).size() < 2) unsupported(g, oi, "input rank < 2");
      return;
    case OpKind::Softmax:
    case OpKind::Concat:
    case OpKind::Split:
    case OpKind::Slice:
    case OpKind::Transpose:
    case OpKind::Expand:
      return;
    case OpKind::Pad:
      if (op.attrs.get_string("mode", "constant") != "constant") {
        unsupported(g, oi, "only constant padding");
      }
      if (op.inputs.size() > 3 && op.inputs[3] >= 0) unsupported(g, oi, "the axes input");
      return;
    case OpKind::Gemm:
      return;
    case OpKind::MatMul:
      if (in_shape(oi, 0).size() < 2 || in_shape(oi, 1).size() < 2) {
        unsupported(g, oi, "1-D operands");
      }
      return;
    case OpKind::Gelu: {
      const std::string ap = op.attrs.get_string("approximate", "none");
      if (ap != "none" && ap != "tanh") unsupported(g, oi, "approximate '" + ap + "'");
      return;
    }
    case OpKind::GatherND: {
      const Tensor& data = g.tensor(op.inputs.at(0));
      const Tensor& ind = g.tensor(op.inputs.at(1));
      if (!on_device(data.dtype)) unsupported(g, oi, "data of a type other than float or bool");
      if (ind.role != TensorRole::Constant || ind.int_data.empty()) {
        unsupported(g, oi, "indices computed at run time (only constant indices)");
      }
      (void)gather_nd_offsets(oi);  // refuses out-of-range indices now
      return;
    }
    default:
      if (ew_op_of(k)) return;
      unsupported(g, oi, "not implemented on the GPU");
  }
}

void StageExecutor::Impl::run_op(int oi, Context& cx) {
  const Op& op = g.op(oi);
  switch (op.kind) {
    case OpKind::Conv: {
      ConvRun& c = ensure_conv(oi);
      run_conv(c, cx, buf(oi, op.inputs[0]), buf(oi, op.inputs[1]), conv_bias(oi),
               buf(oi, op.outputs[0]), false);
      return;
    }
    case OpKind::Relu:
      return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_RELU);
    case OpKind::Sigmoid:
      return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_SIGMOID);
    case OpKind::Tanh:
      return run_cudnn_activation(oi, cx, CUDNN_ACTIVATION_TANH);
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return run_pool(oi, cx);
    case OpKind::BatchNormalization:
      return run_batchnorm(oi, cx);
    case OpKind::Softmax:
      return run_softmax(oi, cx);
    case OpKind::Concat:
      return run_concat(oi, cx);
    case OpKind::Split:
      return run_split(oi, cx);
    case OpKind::Slice:
      return run_slice(oi, cx);
    case OpKind::Transpose:
      return run_transpose(oi, cx);
    case OpKind::Expand:
      return run_expand(oi, cx);
    case OpKind::Pad:
      return run_pad(oi, cx);
    case OpKind::Gemm:
      return run_gemm(oi, cx);
    case OpKind::MatMul:
      return run_matmul(oi, cx);
    case OpKind::Where:
      return run_where(oi, cx);
    case OpKind::GatherND:
      return run_gather_nd(oi, cx);
    default:
      if (is_layout_only(op.kind)) return;  // the output aliases the input: nothing moves
      if (const auto ew = ew_op_of(op.kind)) return run_elementwise(oi, cx, *ew);
      unsupported(g, oi, "not implemented on the GPU");
  }
}

void StageExecutor::Impl::run_task(const Task& task, Context& cx) {
  if (task.kind == TaskKind::Merged) {
    const WorkScope where(&g.op(task.ops.front()).name);  // the merged convolution's first op
    return run_merged(task, cx);
  }
  // Sequential and Fused tasks run op by op on the task's stream (fused kernels run through
  // their own launchers, e.g. tile programs (tile_program_gpu.h), not through this executor).
  for (size_t i = 0; i < task.ops.size(); ++i) {
    const int oi = task.ops[i];
    const WorkScope where(&g.op(oi).name);  // names the kernel in a device error
    const int next = i + 1 < task.ops.size() ? task.ops[i + 1] : -1;
    if (fusible_relu(oi, next) && ensure_conv(oi).fused_relu_ok) {
      const Op& op = g.op(oi);
      run_conv(ensure_conv(oi), cx, buf(oi, op.inputs[0]), buf(oi, op.inputs[1]), conv_bias(oi),
               buf(next, g.op(next).outputs[0]), true);
      ++i;
      continue;
    }
    run_op(oi, cx);
  }
}

void StageExecutor::Impl::run_stage(const Stage& s) {
  ensure_contexts(s.tasks.size());
  for (size_t j = 0; j < s.tasks.size(); ++j) run_task(s.tasks[j], context(j));
}

void StageExecutor::Impl::forward(const Plan& plan) {
  size_t width = 1;
  for (const Stage& s : plan.stages) width = std::max(width, s.tasks.size());
  ensure_contexts(width);
  pass_start->record(context(0).stream);
  for (size_t j = 1; j < width; ++j) pass_start->make_wait(context(j).stream);
  for (size_t si = 0; si < plan.stages.size(); ++si) {
    const WorkScope where(stage_labels(plan.stages.size()).at(si));
    run_stage(plan.stages[si]);
    const bool last = si + 1 == plan.stages.size();
    if (!last && !(plan.stages[si].tasks.size() == 1 && plan.stages[si + 1].tasks.size() == 1)) {
      device_synchronize();
    }
  }
  for (size_t j = 1; j < width; ++j) {
    context(j).done.record(context(j).stream);
    context(j).done.make_wait(context(0).stream);
  }
}

const std::vector<std::string>& StageExecutor::Impl::stage_labels(size_t n) {
  if (labels.size() != n) {
    labels.clear();
    for (size_t i = 0; i < n; ++i)
      labels.push_back("stage " + std::to_string(i + 1) + " of " + std::to_string(n));
  }
  return labels;
}

void StageExecutor::Impl::prepare(const Plan& plan) {
  plan.check(g);
  for (size_t si = 0; si < plan.stages.size(); ++si) {
    const Stage& s = plan.stages[si];
    const WorkScope where(stage_labels(plan.stages.size()).at(si));
    ensure_contexts(s.tasks.size());
    for (const Task& t : s.tasks) {
      if (t.kind == TaskKind::Merged) {
        ensure_merged(t);
        continue;
      }
      for (int o : t.ops) {
        const WorkScope op_where(&g.op(o).name);
        if (g.op(o).kind == OpKind::Conv) ensure_conv(o);
      }
    }
  }
  device_synchronize();
}

int64_t StageExecutor::Impl::launches() const {
  int64_t n = 0;
  for (const auto& c : ctx) n += c->launcher.launches();
  return n;
}

// --- StageExecutor ------------------------------------------------------------------------------
StageExecutor::StageExecutor(const Graph& g, StageExecutorOptions opts)
    : impl_(std::make_unique<Impl>(g, opts)) {}
StageExecutor::~StageExecutor() = default;

const Graph& StageExecutor::graph() const {
  return impl_->g;
}
const GpuSpec& StageExecutor::gpu() const {
  return impl_->gpu;
}
std::string StageExecutor::conv_math() const {
  return impl_->opts.allow_tf32 ? "default (TF32 tensor cores allowed)" : "FMA (FP32 CUDA cores)";
}

// The values conv_algorithm reports (and gpu_validate names) are cuDNN's enum values.
static_assert(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM == 0 &&
              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM == 1 &&
              CUDNN_CONVOLUTION_FWD_ALGO_GEMM == 2 && CUDNN_CONVOLUTION_FWD_ALGO_DIRECT == 3 &&
              CUDNN_CONVOLUTION_FWD_ALGO_FFT == 4 && CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING == 5 &&
              CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD == 6 &&
              CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED == 7);
int StageExecutor::conv_algorithm(int op, bool* fused) const {
  const Impl& m = *impl_;
  if (op < 0 || static_cast<size_t>(op) >= m.conv_runs.size() ||
      !m.conv_runs[static_cast<size_t>(op)])
    return -1;
  if (fused) *fused = m.conv_runs[static_cast<size_t>(op)]->ran_fused;
  return static_cast<int>(m.conv_runs[static_cast<size_t>(op)]->algo);
}

void StageExecutor::set_tensor(int tensor, const TensorData& value) {
  Impl& m = *impl_;
  if (tensor < 0 || tensor >= m.g.num_tensors()) {
    throw Error("StageExecutor::set_tensor: tensor index " + std::to_string(tensor) +
                " out of range");
  }
  const Tensor& t = m.g.tensor(tensor);
  if (t.role != TensorRole::Input && t.role != TensorRole::Weight) {
    throw Error("StageExecutor::set_tensor: '" + t.name + "' is not an input or a weight");
  }
  if (value.shape != t.shape || value.dtype != t.dtype || !Impl::on_device(t.dtype) ||
      value.size() != t.numel()) {
    throw Error("StageExecutor::set_tensor: '" + t.name + "' is " +
                std::string(dtype_name(t.dtype)) + shape_str(t.shape) + "; got " +
                tensor_data_str(value));
  }
  m.upload(tensor, value);
  if (t.role == TensorRole::Weight) m.merged.clear();  // merged weights are copies
}

TensorData StageExecutor::get_tensor(int tensor) const {
  const Impl& m = *impl_;
  if (tensor < 0 || tensor >= m.g.num_tensors() || m.ptr[static_cast<size_t>(tensor)] == nullptr) {
    throw Error("StageExecutor::get_tensor: tensor " + std::to_string(tensor) +
                " is not a float32 or bool tensor on the device");
  }
  device_synchronize();
  const Tensor& t = m.g.tensor(tensor);
  TensorData d = TensorData::zeros(t.shape);
  DGS_CUDA_CHECK(cudaMemcpy(d.f.data(), m.ptr[static_cast<size_t>(tensor)],
                            d.f.size() * sizeof(float), cudaMemcpyDeviceToHost));
  if (t.dtype == DType::Bool) {  // 0/1 floats on the device
    TensorData b;
    b.shape = t.shape;
    b.dtype = DType::Bool;
    b.i.resize(d.f.size());
    for (size_t k = 0; k < d.f.size(); ++k) b.i[k] = d.f[k] != 0.0f ? 1 : 0;
    return b;
  }
  return d;
}

std::map<int, TensorData> StageExecutor::outputs() const {
  std::map<int, TensorData> out;
  for (int t : impl_->g.output_tensors()) out.emplace(t, get_tensor(t));
  return out;
}

void StageExecutor::poison_activations() {
  Impl& m = *impl_;
  device_synchronize();
  for (int t = 0; t < m.g.num_tensors(); ++t) {
    const TensorRole r = m.g.tensor(t).role;
    DeviceBuffer& b = m.own[static_cast<size_t>(t)];
    if ((r == TensorRole::Activation || r == TensorRole::Output) && !b.empty()) b.fill_bytes(0xFF);
  }
}

void StageExecutor::prepare(const Plan& plan) {
  impl_->prepare(plan);
}

void StageExecutor::run(const Plan& plan) {
  impl_->prepare(plan);
  impl_->forward(plan);
  device_synchronize();
}

Timing StageExecutor::measure_stage(const Stage& stage) {
  Impl& m = *impl_;
  const WorkScope where("a stage of " + std::to_string(stage.tasks.size()) +
                        " task(s) timed alone");
  m.ensure_contexts(stage.tasks.size());
  for (const Task& t : stage.tasks) {
    if (t.kind == TaskKind::Merged) {
      m.ensure_merged(t);
    } else {
      for (int o : t.ops) {
        if (o < 0 || o >= m.g.num_ops()) throw Error("measure_stage: op index out of range");
        if (m.g.op(o).kind == OpKind::Conv) m.ensure_conv(o);
      }
    }
  }
  device_synchronize();
  const bool multi = stage.tasks.size() > 1;
  return time_with_events(
      [&] {
        m.run_stage(stage);
        if (multi) device_synchronize();  // a sync after each run of a multi-task stage
      },
      m.context(0).stream, m.opts.timing);
}

PlanLatency StageExecutor::measure(const Plan& plan, bool per_stage) {
  Impl& m = *impl_;
  m.prepare(plan);
  PlanLatency r;
  const int64_t before = m.launches();
  m.forward(plan);
  device_synchronize();
  r.kernel_calls = m.launches() - before;
  r.network = time_with_events([&] { m.forward(plan); }, m.context(0).stream, m.opts.timing);
  r.network_ms = r.network.median_ms;
  if (per_stage)
    for (const Stage& s : plan.stages) r.stage_ms.push_back(measure_stage(s).median_ms);
  return r;
}

// --- MeasuredStageCost --------------------------------------------------------------------------
MeasuredStageCost::MeasuredStageCost(const Graph& g, StageExecutorOptions opts)
    : exec_(std::make_unique<StageExecutor>(g, opts)) {}
MeasuredStageCost::~MeasuredStageCost() = default;

double MeasuredStageCost::stage_latency_ms(const std::vector<std::vector<int>>& groups,
                                           Strategy strategy) {
  std::string key = strategy == Strategy::Merge ? "M" : "C";
  for (const auto& grp : groups) {
    key += "|";
    for (int o : grp) key += std::to_string(o) + ",";
  }
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Stage s;
  if (strategy == Strategy::Merge) {
    Task t;
    t.kind = TaskKind::Merged;
    for (const auto& grp : groups) t.ops.insert(t.ops.end(), grp.begin(), grp.end());
    // Convolutions first, then the element-wise ops, each in group order.
    std::stable_partition(t.ops.begin(), t.ops.end(),
                          [&](int o) { return exec_->graph().op(o).kind == OpKind::Conv; });
    s.tasks.push_back(std::move(t));
  } else {
    for (const auto& grp : groups) {
      Task t;
      t.kind = TaskKind::Sequential;
      t.ops = grp;
      s.tasks.push_back(std::move(t));
    }
  }
  const double ms = exec_->measure_stage(s).median_ms;
  cache_.emplace(key, ms);
  return ms;
}

int64_t MeasuredStageCost::measurements() const {
  return static_cast<int64_t>(cache_.size());
}

}  // namespace dgs::gpu
