#include "reproductions/ios/scheduler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "common/evaluate/evaluate.h"
#include "common/gpumodel/gpu_model.h"
#include "common/util/error.h"

namespace dgs::ios {

int IosStage::num_units() const {
  int n = 0;
  for (const auto& g : groups) n += static_cast<int>(g.size());
  return n;
}

namespace {

// Relative margin by which a bound from a simulated prefix stage is lowered: it covers the
// rounding of the sum of the appended kernels' least times (the prefix's end time itself is
// exact: both simulations are the same up to it).
constexpr double kPrefixBoundMargin = 1e-6;

// Conv+bias+Relu is one cuDNN call in the authors' engine.
constexpr KernelOptions kIosKernelOptions{.tensor_cores = true, .fold_activation = true};

// The ops of a merge stage's Merged task: the convolutions, then the ops after them (their
// Relus, folded into the merged conv's epilogue).
std::vector<int> merged_task_ops(const Network& net, const IosStage& st) {
  std::vector<int> ops, after;
  for (const auto& grp : st.groups)
    for (int u : grp) {
      const Unit& un = net.units[static_cast<size_t>(u)];
      if (un.conv < 0)
        throw Error("IOS merge stage holds unit '" + un.name +
                    "' that is not a mergeable convolution");
      ops.push_back(un.conv);
      for (int op : un.ops)
        if (op != un.conv) after.push_back(op);
    }
  ops.insert(ops.end(), after.begin(), after.end());
  return ops;
}

// The stage `c` over the part's units, into `st` (reusing its storage).
void assign_ios_stage(const Part& part, const StageChoice& c, IosStage& st) {
  st.merge = c.merge;
  st.groups.resize(c.groups.size());
  for (size_t i = 0; i < c.groups.size(); ++i) {
    std::vector<int>& grp = st.groups[i];
    grp.clear();
    for (Mask r = c.groups[i]; r; r &= r - 1)
      grp.push_back(part.units[static_cast<size_t>(std::countr_zero(r))]);
  }
}

IosStage to_ios_stage(const Part& part, const StageChoice& c) {
  IosStage st;
  assign_ios_stage(part, c, st);
  return st;
}

}  // namespace

const std::vector<KernelLaunch>& GpuModelStageCost::compute_unit_kernels(const Network& net,
                                                                         int unit) {
  if (net_ != &net || unit_known_.size() != net.units.size()) {
    net_ = &net;
    unit_kernels_.assign(net.units.size(), {});
    unit_known_.assign(net.units.size(), 0);
    unit_signature_.assign(net.units.size(), -1);
    unit_bound_.assign(net.units.size(), {});
    unit_bound_known_.assign(net.units.size(), 0);
    signatures_.clear();
    clear_stages();
    l2_savings_.clear();
    saved_bounds_.clear();
    saved_kernels_.clear();
  }
  auto& ks = unit_kernels_[static_cast<size_t>(unit)];
  if (!unit_known_[static_cast<size_t>(unit)]) {
    for (int op : net.units[static_cast<size_t>(unit)].ops)
      for (auto& k : kernels_for_op(*net.graph, op, spec_, kIosKernelOptions)) {
        k.ops = {op};  // as stage_streams names them (the L2 residency rule reads them)
        ks.push_back(std::move(k));
      }
    unit_known_[static_cast<size_t>(unit)] = 1;
  }
  return ks;
}

namespace {
template <typename T>
void append_raw(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof(v));
}
// Everything of a kernel the simulation reads.
void append_kernel(std::string& key, const KernelLaunch& k) {
  append_simulation_key(key, k);
}
}  // namespace

int32_t GpuModelStageCost::compute_unit_signature(const Network& net, int unit) {
  unit_kernels(net, unit);  // resets the caches when `net` changes
  int32_t& sig = unit_signature_[static_cast<size_t>(unit)];
  if (sig < 0) {
    std::string key;
    for (const auto& k : unit_kernels(net, unit)) append_kernel(key, k);
    sig =
        signatures_.emplace(std::move(key), static_cast<int32_t>(signatures_.size())).first->second;
  }
  return sig;
}

void GpuModelStageCost::append_concurrent_key(const Network& net, const IosStage& stage,
                                              const std::vector<size_t>* lengths,
                                              std::string& key) {
  const size_t ng = stage.groups.size();
  auto length = [&](size_t gi) { return lengths ? (*lengths)[gi] : stage.groups[gi].size(); };
  size_t launching = 0;
  for (size_t gi = 0; gi < ng; ++gi) {
    key.push_back('|');
    bool launches = false;
    for (size_t k = 0; k < length(gi); ++k) {
      const int u = stage.groups[gi][k];
      append_raw(key, unit_signature(net, u));
      launches = launches || !unit_kernels(net, u).empty();
    }
    launching += launches ? 1 : 0;
  }
  // The L2 residency rule (common/gpumodel/l2_residency.h) between consecutive kernels of each
  // group's stream: what each kernel reads from L2 depends on the graph, not only on the kernels,
  // so the savings are part of the key.
  const double share = l2_share_per_stream(spec_, launching);
  savings_.clear();
  for (size_t gi = 0; gi < ng; ++gi) {
    const KernelLaunch* prev = nullptr;
    for (size_t k = 0; k < length(gi); ++k)
      for (const KernelLaunch& kl : unit_kernels(net, stage.groups[gi][k])) {
        savings_.push_back(prev ? l2_savings(net, *prev, kl, launching, share) : 0.0);
        prev = &kl;
      }
  }
  key.push_back('#');
  for (double v : savings_) append_raw(key, v);
}

double GpuModelStageCost::l2_savings(const Network& net, const KernelLaunch& prev,
                                     const KernelLaunch& next, size_t launching, double share) {
  // The kernels live in unit_kernels_ (never moved while the network is the same), so their
  // addresses and the number of launching streams (which fixes the share) name the pair.
  const L2PairKey key{&prev, &next, launching};
  auto it = l2_savings_.find(key);
  if (it != l2_savings_.end()) return it->second;
  const double v = l2_resident_bytes(*net.graph, prev, next, share);
  l2_savings_.emplace(key, v);
  return v;
}

const KernelWorkBound& GpuModelStageCost::saved_kernel_bound(const KernelLaunch& k, double saved) {
  const auto key = std::make_pair(&k, saved);
  auto it = saved_bounds_.find(key);
  if (it != saved_bounds_.end()) return it->second;
  KernelLaunch adjusted = k;
  if (saved > 0) adjusted.dram_bytes = std::max(0.0, k.dram_bytes - saved);
  return saved_bounds_.emplace(key, kernel_work_bound(spec_, adjusted)).first->second;
}

const KernelLaunch& GpuModelStageCost::saved_kernel(const KernelLaunch& k, double saved) {
  const auto key = std::make_pair(&k, saved);
  auto it = saved_kernels_.find(key);
  if (it != saved_kernels_.end()) return it->second;
  KernelLaunch adjusted = k;
  adjusted.dram_bytes = std::max(0.0, k.dram_bytes - saved);
  return saved_kernels_.emplace(key, std::move(adjusted)).first->second;
}

double GpuModelStageCost::stage_latency_us(const Network& net, const IosStage& stage) {
  const bool merged = stage.merge && stage.num_units() > 1;
  // Key: the kernels the simulation reads, stream by stream. A concurrent stage is keyed by the
  // signatures of its units (units with identical kernels share one), so that no kernel is copied
  // unless the stage is simulated.
  std::vector<std::vector<KernelLaunch>> streams;
  std::string& key = key_;  // scratch: no allocation for a stage already simulated
  key.clear();
  if (!merged && &net == tight_net_ && stage.groups == tight_groups_) {
    // The key and savings the tight bound computed for this stage (the DP asks for the tight
    // bound of a stage just before its cost).
    key.swap(tight_key_);
    savings_.swap(tight_savings_);
    tight_net_ = nullptr;
  } else if (merged) {
    streams.push_back(
        kernels_for_merged_task(*net.graph, merged_task_ops(net, stage), spec_, kIosKernelOptions));
    key.push_back('M');
    for (const auto& k : streams[0]) append_kernel(key, k);
  } else {
    append_concurrent_key(net, stage, nullptr, key);
  }
  const uint64_t hash = stage_hash(key);
  if (const uint32_t i = find_stage(key, hash); i != kNoStage) {
    SimulatedStage& known = stages_[i];
    if (known.search != search_) {  // simulated by an earlier search: this one's first ask
      known.search = search_;
      ++simulations_;
      simulated_kernels_ += known.kernels;
    }
    return known.latency_us;
  }
  ++simulations_;
  SimulatedStage entry;
  entry.search = search_;
  StageResult r;
  if (merged) {
    r = simulate_stage(spec_, streams);
  } else {
    // The kernels, with the L2 residency rule's savings (computed by append_concurrent_key into
    // savings_, one per kernel in stream order) applied to copies, made once per kernel and saving.
    std::vector<std::vector<const KernelLaunch*>>& refs = refs_;  // scratch: storage reused
    refs.resize(stage.groups.size());
    size_t ki = 0;
    for (size_t gi = 0; gi < stage.groups.size(); ++gi) {
      std::vector<const KernelLaunch*>& ks = refs[gi];
      ks.clear();
      for (int u : stage.groups[gi])
        for (const KernelLaunch& k : unit_kernels(net, u)) {
          const double saved = savings_[ki++];
          ks.push_back(saved > 0 ? &saved_kernel(k, saved) : &k);
        }
    }
    r = simulate_stage_refs(spec_, refs);
    std::vector<double> ends(stage.groups.size(), -1.0);
    for (const KernelTiming& k : r.kernels) {
      double& e = ends[static_cast<size_t>(k.stream)];
      e = std::max(e, k.end_us);
    }
    entry.stream_ends = std::move(ends);
  }
  entry.kernels = static_cast<int64_t>(r.kernels.size());
  simulated_kernels_ += entry.kernels;
  // The GPU model's synchronisation rule, the one evaluate_plan applies (a merged stage is one
  // task).
  const double v = r.latency_us + stage_sync_cost_us(spec_, merged ? 1 : stage.groups.size());
  entry.latency_us = v;
  add_stage(key, hash, std::move(entry));
  return v;
}

uint32_t GpuModelStageCost::find_stage(const std::string& key, uint64_t hash) const {
  const size_t mask = stage_slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const StageSlot& sl = stage_slots_[i];
    if (sl.index == kNoStage) return kNoStage;
    if (sl.hash != hash) continue;
    const size_t begin = sl.index ? stage_key_end_[sl.index - 1] : 0;
    if (std::string_view(stage_keys_).substr(begin, stage_key_end_[sl.index] - begin) == key)
      return sl.index;
  }
}

void GpuModelStageCost::add_stage(const std::string& key, uint64_t hash, SimulatedStage stage) {
  if (2 * (stages_.size() + 1) > stage_slots_.size()) {  // grow: at most half the slots used
    std::vector<StageSlot> bigger(stage_slots_.size() * 2);
    for (const StageSlot& sl : stage_slots_) {
      if (sl.index == kNoStage) continue;
      size_t i = sl.hash & (bigger.size() - 1);
      while (bigger[i].index != kNoStage) i = (i + 1) & (bigger.size() - 1);
      bigger[i] = sl;
    }
    stage_slots_.swap(bigger);
  }
  const size_t mask = stage_slots_.size() - 1;
  size_t i = hash & mask;
  while (stage_slots_[i].index != kNoStage) i = (i + 1) & mask;
  stage_slots_[i] = StageSlot{hash, static_cast<uint32_t>(stages_.size())};
  stages_.push_back(std::move(stage));
  stage_keys_ += key;
  stage_key_end_.push_back(stage_keys_.size());
}

void GpuModelStageCost::clear_stages() {
  stage_slots_.assign(kFirstStageSlots, StageSlot{});
  stages_.clear();
  stage_key_end_.clear();
  stage_keys_.clear();
}

std::string GpuModelStageCost::part_cost_signature(const Network& net, const Part& part) {
  std::string sig;
  for (int u : part.units) append_raw(sig, unit_signature(net, u));
  return sig;
}

std::string GpuModelStageCost::part_cost_key(const Network& net, const PartDag& dag,
                                             const Part& part, int max_groups) {
  std::string key = part_cost_signature(net, part);  // its first part (see the header)
  const size_t n = part.units.size();
  // The savings a stage's key holds: between consecutive kernels of a group's stream, at the
  // share of the stage's launching streams (at most one per group). Units i < j follow each other
  // in a group only when both are in the closure of one head (a group is a head's closure within
  // the state, which lies within its closure in the part): partners[i], those j.
  std::vector<Mask> desc(n, 0), partners(n, 0);
  for (size_t h = n; h-- > 0;) {
    desc[h] = Mask{1} << h;
    for (Mask su = dag.succ[h]; su; su &= su - 1)
      desc[h] |= desc[static_cast<size_t>(std::countr_zero(su))];
    for (Mask m = desc[h]; m; m &= m - 1)
      partners[static_cast<size_t>(std::countr_zero(m))] |= desc[h];
  }
  const size_t most = max_groups > 0 ? std::min(n, static_cast<size_t>(max_groups)) : n;
  key.push_back('#');
  for (size_t launching = 1; launching <= most; ++launching) {
    const double share = l2_share_per_stream(spec_, launching);
    for (size_t i = 0; i < n; ++i) {
      const std::vector<KernelLaunch>& ki = unit_kernels(net, part.units[i]);
      for (size_t k = 1; k < ki.size(); ++k)
        append_raw(key, l2_resident_bytes(*net.graph, ki[k - 1], ki[k], share));
      if (ki.empty()) continue;
      for (size_t j = i + 1; j < n; ++j) {
        if (!(partners[i] >> j & 1)) continue;
        const std::vector<KernelLaunch>& kj = unit_kernels(net, part.units[j]);
        if (!kj.empty())
          append_raw(key, l2_resident_bytes(*net.graph, ki.back(), kj.front(), share));
      }
    }
  }
  // The merged kernels of every subset (of at least two units) of each merge class, in the
  // order of a merge stage's units.
  std::map<int, std::vector<int>> classes;  // class -> the units, in part order
  for (size_t i = 0; i < n; ++i)
    if (dag.merge_class[i] >= 0) classes[dag.merge_class[i]].push_back(part.units[i]);
  IosStage merged;
  merged.merge = true;
  merged.groups.resize(1);
  for (const auto& [cls, units] : classes) {
    if (units.size() < 2) continue;
    if (units.size() > static_cast<size_t>(kMaxMergeClassForKey)) return {};
    key.push_back('M');
    for (uint32_t sub = 1; sub < (uint32_t{1} << units.size()); ++sub) {
      if (std::popcount(sub) < 2) continue;
      merged.groups[0].clear();
      for (size_t b = 0; b < units.size(); ++b)
        if (sub >> b & 1) merged.groups[0].push_back(units[b]);
      key.push_back('|');
      for (const KernelLaunch& k : kernels_for_merged_task(*net.graph, merged_task_ops(net, merged),
                                                           spec_, kIosKernelOptions))
        append_kernel(key, k);
    }
  }
  return key;
}

double StageCostModel::stage_latency_lower_bound_us(const Network&, const IosStage&) {
  return 0.0;  // latencies are never negative
}

double GpuModelStageCost::stage_latency_lower_bound_us(const Network& net, const IosStage& stage) {
  if (stage.merge && stage.num_units() > 1) return 0.0;  // one task: no synchronisation
  stream_bounds_.assign(stage.groups.size(), KernelWorkBound{});
  for (size_t gi = 0; gi < stage.groups.size(); ++gi)
    for (int u : stage.groups[gi]) stream_bounds_[gi] += unit_bound(net, u);
  // The latency's bound plus the synchronisation stage_latency_us adds (rounding is monotone, so
  // the sum stays at or below stage_latency_us's sum).
  return dgs::stage_latency_lower_bound_us(spec_, stream_bounds_) +
         stage_sync_cost_us(spec_, stage.groups.size());
}

const KernelWorkBound& GpuModelStageCost::unit_bound(const Network& net, int unit) {
  const auto& ks = unit_kernels(net, unit);  // resets the caches when `net` changes
  const size_t ui = static_cast<size_t>(unit);
  if (!unit_bound_known_[ui]) {
    // With the most DRAM bytes the L2 residency rule could save (a lower bound for any stage).
    for (const KernelLaunch& k : ks) {
      KernelLaunch least = k;
      least.dram_bytes -= l2_resident_bytes_at_most(*net.graph, spec_, k);
      unit_bound_[ui] += kernel_work_bound(spec_, least);
    }
    unit_bound_known_[ui] = 1;
  }
  return unit_bound_[ui];
}

double GpuModelStageCost::stage_latency_tight_lower_bound_us(const Network& net,
                                                             const IosStage& stage) {
  if (stage.merge && stage.num_units() > 1) return 0.0;
  // The host issues a stage's launches stream by stream (the GPU model's launch rule), so a
  // group that grows delays the launches of every group after it: a prefix stage is simulated
  // like the stage only up to its grown group's end when no group after it launches kernels.
  auto launches_after = [&](size_t gi) {
    for (size_t gj = gi + 1; gj < stage.groups.size(); ++gj)
      for (int u : stage.groups[gj])
        if (!unit_kernels(net, u).empty()) return true;
    return false;
  };
  double best = 0;
  // The cheap bound with the L2 residency rule's actual savings of this stage (the cheap one
  // assumes the most any stage could save).
  {
    tight_key_.clear();
    append_concurrent_key(net, stage, nullptr, tight_key_);   // leaves the savings in savings_
    tight_savings_.assign(savings_.begin(), savings_.end());  // kept for stage_latency_us
    tight_groups_ = stage.groups;
    tight_net_ = &net;
    stream_bounds_.assign(stage.groups.size(), KernelWorkBound{});
    size_t ki = 0;
    for (size_t gi = 0; gi < stage.groups.size(); ++gi)
      for (int u : stage.groups[gi])
        for (const KernelLaunch& k : unit_kernels(net, u))
          stream_bounds_[gi] += saved_kernel_bound(k, savings_[ki++]);
    best = dgs::stage_latency_lower_bound_us(spec_, stream_bounds_);
  }
  for (size_t gi = 0; gi < stage.groups.size(); ++gi) {
    if (launches_after(gi)) continue;
    const auto& grp = stage.groups[gi];
    // The stage with group gi cut to its first `len` units.
    for (size_t len = 1; len < grp.size(); ++len) {
      prefix_key_.clear();
      prefix_len_.clear();
      for (size_t gj = 0; gj < stage.groups.size(); ++gj)
        prefix_len_.push_back(gj == gi ? len : stage.groups[gj].size());
      append_concurrent_key(net, stage, &prefix_len_, prefix_key_);
      const SimulatedStage* prefix = seen_in_search(prefix_key_);
      if (!prefix || prefix->stream_ends.empty() || prefix->stream_ends[gi] < 0) continue;
      double appended = 0;
      for (size_t k = len; k < grp.size(); ++k) appended += unit_bound(net, grp[k]).stream_us;
      best = std::max(best, (prefix->stream_ends[gi] + appended) * (1.0 - kPrefixBoundMargin));
    }
  }
  // Every group cut to its first unit at once: the simulations agree until the first cut group
  // whose appended units launch kernels ends in the smaller stage.
  size_t cut_groups = 0;
  for (const auto& grp : stage.groups) cut_groups += grp.size() > 1 ? 1 : 0;
  if (cut_groups > 1) {
    prefix_key_.clear();
    prefix_len_.assign(stage.groups.size(), 1);
    append_concurrent_key(net, stage, &prefix_len_, prefix_key_);
    const SimulatedStage* prefix = seen_in_search(prefix_key_);
    if (prefix && !prefix->stream_ends.empty()) {
      const std::vector<double>& ends = prefix->stream_ends;
      double first_end = std::numeric_limits<double>::infinity(), appended_there = 0;
      bool valid = true;
      for (size_t gi = 0; gi < stage.groups.size() && valid; ++gi) {
        const auto& grp = stage.groups[gi];
        double appended = 0;
        size_t kernels = 0;
        for (size_t k = 1; k < grp.size(); ++k) {
          appended += unit_bound(net, grp[k]).stream_us;
          kernels += unit_kernels(net, grp[k]).size();
        }
        if (kernels == 0) continue;  // the same kernels in both stages
        if (ends[gi] < 0 || launches_after(gi))
          valid = false;  // they would differ from the first launch, or delay later groups
        else if (ends[gi] < first_end)
          first_end = ends[gi], appended_there = appended;
      }
      if (valid && std::isfinite(first_end))
        best = std::max(best, (first_end + appended_there) * (1.0 - kPrefixBoundMargin));
    }
  }
  return best > 0 ? best + stage_sync_cost_us(spec_, stage.groups.size()) : 0.0;
}

double MemoStageCost::stage_latency_us(const Network& net, const IosStage& stage) {
  std::vector<int> key;
  for (const auto& g : stage.groups) {
    key.insert(key.end(), g.begin(), g.end());
    key.push_back(-1);
  }
  auto k = std::make_pair(std::move(key), stage.merge && stage.num_units() > 1);
  auto it = cache_.find(k);
  if (it != cache_.end()) return it->second;
  const double v = inner_.stage_latency_us(net, stage);
  cache_.emplace(std::move(k), v);
  return v;
}

IosSchedule sequential_schedule(const Network& net) {
  IosSchedule s;
  s.name = "Sequential";
  for (const Part& p : net.parts) {
    s.part_first_stage.push_back(static_cast<int>(s.stages.size()));
    for (int u : p.units) s.stages.push_back(IosStage{false, {{u}}});
  }
  return s;
}

IosSchedule greedy_schedule(const Network& net, int max_streams) {
  IosSchedule s;
  s.name = "Greedy";
  for (const Part& p : net.parts) {
    s.part_first_stage.push_back(static_cast<int>(s.stages.size()));
    const PartDag d = part_dag(net, p);
    Mask done = 0;
    const Mask all = d.all();
    while (done != all) {
      IosStage st;
      Mask taken = 0;
      for (int u = 0; u < d.n && static_cast<int>(st.groups.size()) < max_streams; ++u) {
        if (done >> u & 1) continue;
        bool ready = true;
        for (int v = 0; v < u && ready; ++v)
          if ((d.succ[static_cast<size_t>(v)] >> u & 1) && !(done >> v & 1)) ready = false;
        if (!ready) continue;
        st.groups.push_back({p.units[static_cast<size_t>(u)]});
        taken |= Mask{1} << u;
      }
      done |= taken;
      s.stages.push_back(std::move(st));
    }
  }
  return s;
}

IosSchedule ios_schedule(const Network& net, StrategySet strategies, const Pruning& prune,
                         StageCostModel& cost, SearchStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  IosSchedule s;
  s.name = std::string(strategy_set_name(strategies));
  SearchStats total;
  // The parts searched so far, for parts whose DAG and costs repeat (cells of one kind).
  struct Solved {
    PartDag dag;
    const Part* part;
    std::optional<std::string> signature;  // cost.part_cost_signature, when first compared
    std::optional<std::string> key;        // cost.part_cost_key, when first compared
    DpResult result;
  };
  std::vector<Solved> solved;
  auto same_dag = [](const PartDag& a, const PartDag& b) {
    return a.n == b.n && a.succ == b.succ && a.merge_class == b.merge_class;
  };
  for (const Part& p : net.parts) {
    s.part_first_stage.push_back(static_cast<int>(s.stages.size()));
    const PartDag d = part_dag(net, p);
    std::optional<std::string> signature, key;
    const DpResult* known = nullptr;
    for (Solved& sv : solved) {
      if (!same_dag(sv.dag, d)) continue;
      // The cheap signature first: equal keys imply equal signatures.
      if (!signature) signature = cost.part_cost_signature(net, p);
      if (!sv.signature) sv.signature = cost.part_cost_signature(net, *sv.part);
      if (*sv.signature != *signature) continue;
      if (!key) key = cost.part_cost_key(net, d, p, prune.max_num_groups);
      if (key->empty()) break;
      if (!sv.key) sv.key = cost.part_cost_key(net, sv.dag, *sv.part, prune.max_num_groups);
      if (*sv.key == *key) {
        known = &sv.result;
        break;
      }
    }
    if (known) {
      for (const StageChoice& c : known->stages) s.stages.push_back(to_ios_stage(p, c));
      total.states += known->stats.states;
      total.transitions += known->stats.transitions;
      total.stages_costed += known->stats.stages_costed;
      total.schedules += known->stats.schedules;
      continue;
    }
    IosStage scratch;  // asked for every distinct stage: no allocation per call
    const StageCostFn fn = [&](const StageChoice& c) {
      assign_ios_stage(p, c, scratch);
      return cost.stage_latency_us(net, scratch);
    };
    const StageCostFn bound = [&](const StageChoice& c) {
      assign_ios_stage(p, c, scratch);
      return cost.stage_latency_lower_bound_us(net, scratch);
    };
    const StageCostFn tight = [&](const StageChoice& c) {
      assign_ios_stage(p, c, scratch);
      return cost.stage_latency_tight_lower_bound_us(net, scratch);
    };
    DpResult r;
    try {
      r = cost.has_lower_bound()
              ? solve_part(d, strategies, prune, fn, bound, tight, kIosMaxSearchStates)
              : solve_part(d, strategies, prune, fn, StageCostFn{}, StageCostFn{},
                           kIosMaxSearchStates);
    } catch (const StateBudgetExceeded& e) {
      throw SearchBudgetExceeded("IOS search: block '" + p.block + "' (part " +
                                 std::to_string(p.index_in_block) + ", " + std::to_string(d.n) +
                                 " units, width " + std::to_string(dag_width(d)) +
                                 ") needs more than " + std::to_string(e.budget) +
                                 " DP states (kIosMaxSearchStates); prune it with smaller r and s");
    }
    for (const StageChoice& c : r.stages) s.stages.push_back(to_ios_stage(p, c));
    total.states += r.stats.states;
    total.transitions += r.stats.transitions;
    total.stages_costed += r.stats.stages_costed;
    total.schedules += r.stats.schedules;
    solved.push_back(Solved{d, &p, std::move(signature), std::move(key), std::move(r)});
  }
  total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) *stats = total;
  return s;
}

Plan to_plan(const Network& net, const IosSchedule& s) {
  Plan plan;
  plan.scheduler = s.name;
  plan.graph = net.graph->name;
  plan.options = {.fold_activation = kIosKernelOptions.fold_activation,
                  .tensor_cores = kIosKernelOptions.tensor_cores};
  for (const IosStage& st : s.stages) {
    Stage stage;
    if (st.merge && st.num_units() > 1) {
      Task t;
      t.kind = TaskKind::Merged;
      t.ops = merged_task_ops(net, st);
      t.placement = stream_placement(0);
      stage.tasks.push_back(std::move(t));
    } else {
      int stream = 0;
      for (const auto& grp : st.groups) {
        Task t;
        t.kind = TaskKind::Sequential;
        for (int u : grp)
          for (int op : net.units[static_cast<size_t>(u)].ops) t.ops.push_back(op);
        t.placement = stream_placement(stream++);
        stage.tasks.push_back(std::move(t));
      }
    }
    plan.stages.push_back(std::move(stage));
  }
  return plan;
}

ScheduleEval evaluate_schedule(const Network& net, const IosSchedule& s, const HardwareSpec& hw) {
  if (!hw.gpu) throw Error(hw.file + ": IOS schedules a GPU; hardware of kind '" + hw.kind + "'");
  const Plan plan = to_plan(net, s);
  const EvaluationResult r = evaluate(*net.graph, plan, hw);  // plan.options: kIosKernelOptions
  ScheduleEval e;
  e.latency_us = r.latency_us;
  e.avg_active_warps_per_sm = value_of(r.details, "avg_active_warps_per_sm");
  e.flops = r.flops;
  for (size_t i = 0; i < r.stage_latency_us.size(); ++i)
    e.stage_us.push_back(r.stage_latency_us[i] +
                         (needs_stage_sync(plan, i) ? hw.gpu->stage_sync_us : 0.0));
  return e;
}

ScheduleEval evaluate_schedule(const Network& net, const IosSchedule& s, const GpuSpec& spec) {
  return evaluate_schedule(net, s, gpu_hardware_spec(spec));
}

std::string describe_stage(const Network& net, const IosStage& st) {
  std::string out;
  if (st.merge && st.num_units() > 1) {
    out = "merge{";
    bool first = true;
    for (const auto& g : st.groups)
      for (int u : g) {
        out += (first ? "" : ", ") + net.units[static_cast<size_t>(u)].name;
        first = false;
      }
    return out + "}";
  }
  for (size_t i = 0; i < st.groups.size(); ++i) {
    out += i ? " | " : "";
    out += "[";
    for (size_t j = 0; j < st.groups[i].size(); ++j)
      out += (j ? " -> " : "") + net.units[static_cast<size_t>(st.groups[i][j])].name;
    out += "]";
  }
  return out;
}

}  // namespace dgs::ios
