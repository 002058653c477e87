// Built when nvcc was not found: the stage executor and the measured stage cost exist so that
// a paper's executable links; constructing either throws "this build has no CUDA support".
#include "common/cuda/nocuda/nocuda.h"
#include "common/cuda/stage_executor.h"

namespace dgs::gpu {

struct StageExecutor::Impl {};

StageExecutor::StageExecutor(const Graph&, StageExecutorOptions) {
  throw_no_cuda("StageExecutor");
}
StageExecutor::~StageExecutor() = default;
const Graph& StageExecutor::graph() const {
  throw_no_cuda("StageExecutor::graph");
}
const GpuSpec& StageExecutor::gpu() const {
  throw_no_cuda("StageExecutor::gpu");
}
std::string StageExecutor::conv_math() const {
  throw_no_cuda("StageExecutor::conv_math");
}
int StageExecutor::conv_algorithm(int, bool*) const {
  throw_no_cuda("StageExecutor::conv_algorithm");
}
void StageExecutor::set_tensor(int, const TensorData&) {
  throw_no_cuda("StageExecutor::set_tensor");
}
TensorData StageExecutor::get_tensor(int) const {
  throw_no_cuda("StageExecutor::get_tensor");
}
std::map<int, TensorData> StageExecutor::outputs() const {
  throw_no_cuda("StageExecutor::outputs");
}
void StageExecutor::poison_activations() {
  throw_no_cuda("StageExecutor::poison_activations");
}
void StageExecutor::prepare(const Plan&) {
  throw_no_cuda("StageExecutor::prepare");
}
void StageExecutor::run(const Plan&) {
  throw_no_cuda("StageExecutor::run");
}
Timing StageExecutor::measure_stage(const Stage&) {
  throw_no_cuda("StageExecutor::measure_stage");
}
PlanLatency StageExecutor::measure(const Plan&, bool) {
  throw_no_cuda("StageExecutor::measure");
}

MeasuredStageCost::MeasuredStageCost(const Graph&, StageExecutorOptions) {
  throw_no_cuda("MeasuredStageCost");
}
MeasuredStageCost::~MeasuredStageCost() = default;
double MeasuredStageCost::stage_latency_ms(const std::vector<std::vector<int>>&, Strategy) {
  throw_no_cuda("MeasuredStageCost::stage_latency_ms");
}
int64_t MeasuredStageCost::measurements() const {
  return static_cast<int64_t>(cache_.size());
}

}  // namespace dgs::gpu
