// L2 residency between consecutive kernels of a stream (the rule is stated in l2_residency.h).
#include "common/gpumodel/l2_residency.h"

#include <algorithm>

namespace dgs {

namespace {

// The tensor whose bytes `t` views: through layout-only producers to the first real one.
int storage_of(const Graph& g, int t) {
  while (t >= 0) {
    const int p = g.tensor(t).producer;
    if (p < 0 || !is_layout_only(g.op(p).kind) || g.op(p).inputs.empty()) break;
    t = g.op(p).inputs[0];
  }
  return t;
}

bool writes(const Graph& g, const KernelLaunch& k, int storage) {
  for (int op : k.ops)
    for (int t : g.op(op).outputs)
      if (t == storage) return true;
  return false;
}

bool computes(const KernelLaunch& k, int op) {
  return std::find(k.ops.begin(), k.ops.end(), op) != k.ops.end();
}

// Calls f(storage, bytes) once per distinct tensor storage that `k` reads from outside its own
// ops (constants included; the caller filters).
template <typename F>
void for_each_external_input(const Graph& g, const KernelLaunch& k, F&& f) {
  std::vector<int> seen;
  for (int op : k.ops)
    for (int t : g.op(op).inputs) {
      if (t < 0) continue;
      const int producer = g.tensor(t).producer;
      if (producer >= 0 && computes(k, producer)) continue;  // internal to the kernel
      const int s = storage_of(g, t);
      if (s < 0 || std::find(seen.begin(), seen.end(), s) != seen.end()) continue;
      seen.push_back(s);
      f(s, static_cast<double>(g.tensor(s).bytes()));
    }
}

}  // namespace

double l2_share_per_stream(const GpuSpec& spec, size_t streams) {
  if (spec.l2_bytes <= 0 || streams == 0) return 0.0;
  return static_cast<double>(spec.l2_bytes) / static_cast<double>(streams);
}

double l2_resident_bytes(const Graph& g, const KernelLaunch& producer, const KernelLaunch& consumer,
                         double share) {
  if (share <= 0 || producer.ops.empty() || consumer.ops.empty()) return 0.0;
  double bytes = 0;
  for_each_external_input(g, consumer, [&](int s, double b) {
    if (b <= share && writes(g, producer, s)) bytes += b;
  });
  return bytes;
}

double l2_resident_bytes_at_most(const Graph& g, const GpuSpec& spec, const KernelLaunch& k) {
  const double share = l2_share_per_stream(spec, 1);
  double bytes = 0;
  for_each_external_input(g, k, [&](int s, double b) {
    if (b <= share && g.tensor(s).producer >= 0) bytes += b;
  });
  return std::min(bytes, std::max(0.0, k.dram_bytes));
}

void apply_l2_residency(const Graph& g, const GpuSpec& spec,
                        std::vector<std::vector<KernelLaunch>>& streams) {
  size_t launching = 0;
  for (const auto& s : streams) launching += s.empty() ? 0 : 1;
  const double share = l2_share_per_stream(spec, launching);
  if (share <= 0) return;
  for (auto& s : streams)
    for (size_t i = s.size(); i-- > 1;) {
      const double saved = l2_resident_bytes(g, s[i - 1], s[i], share);
      if (saved > 0) s[i].dram_bytes = std::max(0.0, s[i].dram_bytes - saved);
    }
}

}  // namespace dgs
